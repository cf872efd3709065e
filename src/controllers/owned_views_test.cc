#include "controllers/owned_views.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

namespace tidepool::controllers {
namespace {

struct Facts {
  std::string ns, name, controller_uid;
};
using FactsPtr = std::shared_ptr<const Facts>;

// A view that records what it was handed.
class Seen {
 public:
  struct Params {
    std::string uid;
    int version = 0;
    friend bool operator==(const Params&, const Params&) = default;
  };
  explicit Seen(Params p) : params_(std::move(p)) {}
  const Params& params() const { return params_; }
  void Set(const std::string& key, FactsPtr pod) {
    ++sets;
    if (pod == nullptr) {
      pods.erase(key);
    } else {
      pods[key] = pod->name;
    }
  }
  std::map<std::string, std::string> pods;
  int sets = 0;

 private:
  Params params_;
};

FactsPtr Pod(const std::string& name, const std::string& uid) {
  return std::make_shared<const Facts>(Facts{"ns", name, uid});
}

TEST(OwnedViewsTest, MadeFromTheIndexThenFedOnlyWhatChanged) {
  PodIndex<Facts> index;
  OwnedViews<Seen, Facts> views;
  index.Put("ns/a", Pod("a", "u1"));
  index.Put("ns/b", Pod("b", "u1"));
  index.Put("ns/c", Pod("c", "u2"));
  Seen& v = views.Refresh("ns/rs", {"u1", 1}, index);
  EXPECT_EQ(v.pods, (std::map<std::string, std::string>{{"ns/a", "a"}, {"ns/b", "b"}}));
  EXPECT_EQ(v.sets, 2);

  index.Put("ns/a", Pod("a", ""));  // released
  views.Changed("u1", "ns/a");
  views.Changed("u2", "ns/c");  // no view of u2: ignored
  views.Changed("", "ns/x");    // no controller: ignored
  Seen& again = views.Refresh("ns/rs", {"u1", 1}, index);
  EXPECT_EQ(&again, &v);
  EXPECT_EQ(v.pods, (std::map<std::string, std::string>{{"ns/b", "b"}}));
  EXPECT_EQ(v.sets, 3);  // only the change
  EXPECT_EQ(&views.At("u1"), &v);

  // Other params: made afresh.
  Seen& remade = views.Refresh("ns/rs", {"u1", 2}, index);
  EXPECT_EQ(remade.sets, 1);
  EXPECT_EQ(remade.params().version, 2);
}

TEST(OwnedViewsTest, ANewObjectUnderTheNameAndAForgottenOneLeaveNothing) {
  PodIndex<Facts> index;
  OwnedViews<Seen, Facts> views;
  index.Put("ns/a", Pod("a", "old"));
  index.Put("ns/b", Pod("b", "new"));
  views.Refresh("ns/rs", {"old", 0}, index);
  Seen& fresh = views.Refresh("ns/rs", {"new", 0}, index);
  EXPECT_EQ(fresh.pods, (std::map<std::string, std::string>{{"ns/b", "b"}}));
  views.Changed("old", "ns/a");  // the old view is gone: nothing recorded
  views.Forget("ns/rs");
  Seen& made = views.Refresh("ns/rs", {"new", 0}, index);  // made again from the index
  EXPECT_EQ(made.sets, 1);
}

}  // namespace
}  // namespace tidepool::controllers
