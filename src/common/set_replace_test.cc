#include "common/set_replace.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tidepool {
namespace {

// An element that carries its key and a payload; ordered and found by the key alone.
struct Entry {
  std::string key;
  int payload = 0;
};
struct ByKey {
  using is_transparent = void;
  static std::string_view K(const Entry& e) { return e.key; }
  static std::string_view K(std::string_view k) { return k; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const { return K(a) < K(b); }
};

TEST(InsertOrReplaceTest, InsertsNewKeysAndReplacesInPlace) {
  struct Step {
    std::string key;
    int payload;
  };
  const std::vector<Step> steps = {{"b", 1}, {"a", 2}, {"c", 3}, {"b", 4}, {"a", 5}, {"d", 6}};
  const std::vector<std::pair<std::string, int>> want = {{"a", 5}, {"b", 4}, {"c", 3}, {"d", 6}};
  std::set<Entry, ByKey> set;
  for (const Step& s : steps) {
    Entry e{s.key, s.payload};
    const std::string_view key = e.key;
    InsertOrReplace(set, key, std::move(e));
  }
  std::vector<std::pair<std::string, int>> got;
  for (const Entry& e : set) got.emplace_back(e.key, e.payload);
  EXPECT_EQ(got, want);
}

TEST(InsertOrReplaceTest, AReplacementKeepsTheNodeAndNeighbours) {
  std::set<Entry, ByKey> set = {{"a", 1}, {"b", 2}, {"c", 3}};
  const Entry* before = &*set.find(std::string_view("b"));
  InsertOrReplace(set, std::string_view("b"), Entry{"b", 20});
  const Entry* after = &*set.find(std::string_view("b"));
  EXPECT_EQ(before, after);  // the same node, given the new value
  EXPECT_EQ(after->payload, 20);
  EXPECT_EQ(set.size(), 3u);
}

TEST(EraseKeyTest, ErasesOnlyAnElementThatIsThere) {
  std::set<Entry, ByKey> set = {{"a", 1}, {"b", 2}};
  EraseKey(set, std::string_view("b"));
  EraseKey(set, std::string_view("z"));
  ASSERT_EQ(set.size(), 1u);
  EXPECT_EQ(set.begin()->key, "a");
}

}  // namespace
}  // namespace tidepool
