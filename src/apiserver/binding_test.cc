#include "apiserver/binding.h"

#include <gtest/gtest.h>

namespace tidepool::apiserver {
namespace {

using json = nlohmann::json;

const TimePoint kNow = SimulatedClock::kDefaultStart;

json Pod() {
  return json::parse(R"({"metadata":{"name":"p","namespace":"default","uid":"u1"},
                         "spec":{"containers":[{"name":"c","image":"busybox"}]},
                         "status":{"phase":"Pending","conditions":[{"type":"PodScheduled",
                           "status":"False","reason":"Unschedulable","message":"0/1 nodes",
                           "lastProbeTime":null,"lastTransitionTime":"2025-12-31T00:00:00Z"}]}})");
}

json Binding(const std::string& node, const std::string& uid = "") {
  json b = {{"apiVersion", "v1"}, {"kind", "Binding"}, {"metadata", {{"name", "p"}}},
            {"target", {{"kind", "Node"}, {"name", node}}}};
  if (!uid.empty()) b["metadata"]["uid"] = uid;
  return b;
}

TEST(AssignPodTest, SetsTheNodeAndMarksThePodScheduledAsUpdatePodConditionDoes) {
  json b = Binding("n1", "u1");
  b["metadata"]["annotations"] = {{"scheduler.example/why", "fit"}};
  auto out = AssignPod(Pod(), b, kNow);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["spec"]["nodeName"], "n1");
  EXPECT_EQ((*out)["metadata"]["annotations"]["scheduler.example/why"], "fit");
  ASSERT_EQ((*out)["status"]["conditions"].size(), 1u);
  EXPECT_EQ((*out)["status"]["conditions"][0],
            json::parse(R"({"type":"PodScheduled","status":"True","lastProbeTime":null,
                           "lastTransitionTime":"2026-01-01T00:00:00Z"})"));
}

TEST(AssignPodTest, RefusalsAreConflictsWithKubesWords) {
  struct Case {
    const char* name;
    void (*mutate)(json& pod);
    const char* uid;
    const char* message;
  };
  const Case cases[] = {
      {"another uid", [](json&) {}, "u2",
       "Operation cannot be fulfilled on pods \"p\": Precondition failed: UID in precondition: "
       "u2, UID in object meta: u1"},
      {"being deleted", [](json& p) { p["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"; },
       "", "Operation cannot be fulfilled on pods/binding \"p\": pod p is being deleted, cannot be "
           "assigned to a host"},
      {"assigned", [](json& p) { p["spec"]["nodeName"] = "n0"; }, "",
       "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node "
       "\"n0\""},
      {"gated", [](json& p) { p["spec"]["schedulingGates"] = json::array({{{"name", "g"}}}); }, "",
       "Operation cannot be fulfilled on pods/binding \"p\": pod p has non-empty "
       ".spec.schedulingGates"},
  };
  for (const Case& c : cases) {
    json pod = Pod();
    c.mutate(pod);
    auto out = AssignPod(pod, Binding("n1", c.uid), kNow);
    ASSERT_FALSE(out.ok()) << c.name;
    EXPECT_EQ(out.status().code(), StatusCode::kAborted) << c.name;
    EXPECT_EQ(out.status().message(), c.message) << c.name;
  }
}

TEST(ValidateBindingTest, NameTargetKindAndTargetName) {
  std::string bad;
  EXPECT_TRUE(ValidateBinding(Binding("n1"), "p", &bad).empty());
  EXPECT_EQ(bad, "");
  ValidateBinding(Binding("n1"), "q", &bad);
  EXPECT_EQ(bad, "name in URL does not match name in Binding object");
  bad.clear();
  json b = Binding("");
  b["target"]["kind"] = "Pod";
  EXPECT_EQ(api::AggregateMessage(ValidateBinding(b, "p", &bad)),
            "[target.kind: Unsupported value: \"Pod\": supported values: \"Node\", \"<empty>\", "
            "target.name: Required value]");
}

}  // namespace
}  // namespace tidepool::apiserver
