// PodIndex: facts found by key, by controller and (orphans) by namespace; a pod that changes
// controller moves between them; a removed pod is gone from all three.
#include "controllers/pod_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tidepool::controllers {
namespace {

struct Facts {
  std::string ns, name, controller_uid;
};
using Index = PodIndex<Facts>;

std::shared_ptr<const Facts> F(std::string ns, std::string name, std::string uid) {
  return std::make_shared<const Facts>(Facts{std::move(ns), std::move(name), std::move(uid)});
}

std::vector<std::string> Names(const std::vector<Index::Ptr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->name);
  return out;
}

TEST(PodIndexTest, FindsByKeyControllerAndNamespace) {
  Index index;
  index.Put("a/p2", F("a", "p2", "rs1"));
  index.Put("a/p1", F("a", "p1", "rs1"));
  index.Put("a/o1", F("a", "o1", ""));
  index.Put("b/o2", F("b", "o2", ""));
  EXPECT_EQ(index.Find("a/p1")->name, "p1");
  EXPECT_EQ(index.Find("a/none"), nullptr);
  EXPECT_EQ(Names(index.Controlled("rs1")), (std::vector<std::string>{"p1", "p2"}));
  EXPECT_TRUE(index.Controlled("rs2").empty());
  EXPECT_EQ(Names(index.Orphans("a", [](const Facts&) { return true; })),
            (std::vector<std::string>{"o1"}));
  EXPECT_TRUE(index.Orphans("a", [](const Facts&) { return false; }).empty());
  int n = 0;
  index.ForEachControlled("rs1", [&n](const Index::Ptr&) { ++n; });
  EXPECT_EQ(n, 2);
}

TEST(PodIndexTest, APodThatChangesControllerMovesAndARemovedOneIsGone) {
  Index index;
  index.Put("a/p", F("a", "p", ""));
  index.Put("a/p", F("a", "p", "rs1"));  // adopted
  EXPECT_TRUE(index.Orphans("a", [](const Facts&) { return true; }).empty());
  EXPECT_EQ(Names(index.Controlled("rs1")), (std::vector<std::string>{"p"}));
  index.Put("a/p", F("a", "p", ""));  // released
  EXPECT_TRUE(index.Controlled("rs1").empty());
  index.Remove("a/p");
  index.Remove("a/p");  // nothing there: no effect
  EXPECT_EQ(index.Find("a/p"), nullptr);
  EXPECT_TRUE(index.Orphans("a", [](const Facts&) { return true; }).empty());
}

}  // namespace
}  // namespace tidepool::controllers
