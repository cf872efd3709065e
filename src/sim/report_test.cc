#include "sim/report.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/event_queue.h"
#include "common/random.h"
#include "sim/trace.h"

namespace tidepool::sim {
namespace {

TEST(ReportTest, PercentilesAreNearestRank) {
  const std::vector<double> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  struct Case {
    double q;
    double want;
  };
  for (const Case& c : std::vector<Case>{{50, 5}, {90, 9}, {99, 10}, {100, 10}, {1, 1}}) {
    EXPECT_EQ(Percentile(ten, c.q), c.want) << c.q;
  }
  EXPECT_EQ(Percentile({}, 50), 0);
  EXPECT_EQ(Percentile({42}, 99), 42);
}

namespace emu = cloud::emulated;
using std::chrono::hours;
using std::chrono::seconds;

api::NodeConstSharedPtr Node(const std::string& name, int64_t gpus, bool ready) {
  api::Node n;
  n.meta.name = name;
  n.meta.labels = {{std::string(emu::kLabelGkeNodePool), "gpu-pool"},
                   {std::string(emu::kLabelInstanceType), "n1-standard-4"}};
  if (gpus > 0)
    n.status.capacity[std::string(api::kResourceNvidiaGpu)] =
        api::Quantity::FromInt(gpus, api::QuantityFormat::kDecimalSI);
  api::NodeCondition c;
  c.type = "Ready";
  c.status = ready ? api::ConditionStatus::kTrue : api::ConditionStatus::kFalse;
  n.status.conditions.push_back(c);
  return std::make_shared<const api::Node>(std::move(n));
}

PodRecord Pod(const std::string& ns, const std::string& name, int64_t gpus,
              const std::string& node = "") {
  api::Pod p;
  p.meta.namespace_ = ns;
  p.meta.name = name;
  api::Container c;
  c.name = "main";
  if (gpus > 0) {
    c.resources.requests[std::string(api::kResourceNvidiaGpu)] =
        api::Quantity::FromInt(gpus, api::QuantityFormat::kDecimalSI);
  }
  p.spec.containers.push_back(c);
  p.spec.node_name = node;
  PodRecord r;
  r.pod = std::make_shared<const api::Pod>(std::move(p));
  return r;
}

PodRecord Owned(PodRecord r, const std::string& kind, const std::string& owner,
                const std::string& hash = "") {
  api::Pod p = *r.pod;
  api::OwnerReference o;
  o.kind = kind;
  o.name = owner;
  o.controller = true;
  p.meta.owner_references.push_back(o);
  if (!hash.empty()) p.meta.labels["pod-template-hash"] = hash;
  r.pod = std::make_shared<const api::Pod>(std::move(p));
  return r;
}

PodRecord Labeled(PodRecord r, const std::string& cls) {
  api::Pod p = *r.pod;
  p.meta.labels[kTraceClassLabel] = cls;
  r.pod = std::make_shared<const api::Pod>(std::move(p));
  return r;
}

PodRecord Bound(PodRecord r, const std::string& node) {
  api::Pod p = *r.pod;
  p.spec.node_name = node;
  r.pod = std::make_shared<const api::Pod>(std::move(p));
  return r;
}

EventRecord Event(const std::string& pod, const std::string& reason, const std::string& msg) {
  EventRecord e;
  e.involved_object = {"Pod", "default", pod, ""};
  e.reason = reason;
  e.message = msg;
  return e;
}

TEST(ReportTest, CostGpuHoursPendingTimesAndWhyPodsNeverRan) {
  EventQueue queue;
  Random random(1);
  emu::MemoryNodeSink sink;
  emu::EmulatedCloud cloud("p", "c", "us-central1-a", queue, sink, random);
  const TimePoint t0 = queue.Now();
  RunReport r(t0, cloud);
  r.set_counting(true);
  const auto at = [&](Duration d) { return t0 + d; };
  // A node: the cloud is asked at 0, it registers at 50 s, Ready at 80 s, gone at 2 h.
  r.OnCloudEvent(
      {t0, emu::CloudEventKind::kInstanceRequested, "gpu-pool", "us-central1-a", "n1", ""});
  r.OnNode({ChangeType::kAdded, nullptr, Node("n1", 0, false)}, at(seconds(50)));
  r.OnNode({ChangeType::kModified, nullptr, Node("n1", 0, true)}, at(seconds(80)));
  r.OnNode({ChangeType::kModified, nullptr, Node("n1", 2, true)}, at(seconds(200)));
  r.OnNode({ChangeType::kDeleted, nullptr, Node("n1", 2, true)}, at(hours(2) + seconds(50)));
  // A Deployment's pod: created at 0, bound at 100 s, deleted at 1 h 100 s (1 GPU for 1 h).
  const PodRecord web = Owned(Pod("default", "web-1", 1), "ReplicaSet", "web-5d8f", "5d8f");
  r.OnPod({ChangeType::kAdded, std::nullopt, web}, t0);
  r.OnPod({ChangeType::kModified, web, Bound(web, "n1")}, at(seconds(100)));
  r.OnPod({ChangeType::kDeleted, std::nullopt, Bound(web, "n1")}, at(hours(1) + seconds(100)));
  // A trace's pods: one waits 60 s, three never run, for three reasons.
  const PodRecord hn = Labeled(Pod("default", "hn-1", 0), "HN");
  r.OnPod({ChangeType::kAdded, std::nullopt, hn}, at(seconds(10)));
  r.OnPod({ChangeType::kModified, hn, Bound(hn, "n1")}, at(seconds(70)));
  for (const char* name : {"hn-2", "hn-3", "hn-4"}) {
    r.OnPod({ChangeType::kAdded, std::nullopt, Labeled(Pod("default", name, 0), "HN")}, t0);
  }
  r.OnEvent(Event("hn-2", "FailedScheduling", "0/1 nodes are available: 1 Insufficient cpu."));
  r.OnEvent(Event("hn-2", "NotTriggerScaleUp", "pod didn't trigger scale-up: "));  // no reason
  r.OnEvent(Event("hn-3", "FailedScheduling", "0/1 nodes are available: 1 Insufficient cpu."));
  r.OnEvent(Event("hn-3", "NotTriggerScaleUp",
                  "pod didn't trigger scale-up: 1 max node group size reached"));
  // A short-lived pod deleted before anything was said about it.
  const PodRecord gone = Labeled(Pod("default", "hn-5", 0), "HN");
  r.OnPod({ChangeType::kAdded, std::nullopt, gone}, t0);
  r.OnPod({ChangeType::kDeleted, std::nullopt, gone}, at(seconds(1)));
  // Not counted: the cluster's own pods.
  r.OnPod({ChangeType::kAdded, std::nullopt, Pod("kube-system", "dns", 0)}, t0);
  r.OnPod({ChangeType::kAdded, std::nullopt,
           Owned(Pod("gpu-operator", "plugin", 0), "DaemonSet", "plugin")},
          t0);

  // The pool's size: 0 -> 1 -> 2 at one instant (one scale-up), 2 -> 3 later (another), then
  // 3 -> 0 (one scale-down).
  r.OnPoolResize("gpu-pool", 0, 1, t0);
  r.OnPoolResize("gpu-pool", 1, 2, t0);
  r.OnPoolResize("gpu-pool", 2, 3, at(seconds(30)));
  r.OnPoolResize("gpu-pool", 3, 0, at(hours(2)));
  const ReportSummary s = r.Summarize(at(hours(3)));
  EXPECT_EQ(s.simulated_seconds, 3 * 3600);
  ASSERT_EQ(s.pools.size(), 1u);
  const PoolReport& pool = s.pools[0];
  EXPECT_EQ(pool.name, "gpu-pool");
  EXPECT_EQ(pool.nodes_created, 1);
  EXPECT_EQ(pool.nodes_removed, 1);
  EXPECT_EQ(pool.scale_ups, 2);
  EXPECT_EQ(pool.scale_downs, 1);
  EXPECT_DOUBLE_EQ(pool.node_hours, 2.0);
  EXPECT_DOUBLE_EQ(pool.gpu_hours, 4.0);   // the GPUs it had, from registration
  EXPECT_NEAR(pool.cost, 2 * 0.19, 1e-9);  // n1-standard-4 on demand, CA's price table
  EXPECT_DOUBLE_EQ(s.cost, pool.cost);
  EXPECT_DOUBLE_EQ(s.gpu_hours_provisioned, 4.0);
  EXPECT_DOUBLE_EQ(s.gpu_hours_allocated, 1.0);
  EXPECT_EQ(s.nodes_provisioned, 1);
  EXPECT_EQ(s.provision_p50, 80);
  ASSERT_EQ(s.classes.size(), 2u);
  EXPECT_EQ(s.classes[0].name, "Deployment/web");
  EXPECT_EQ(s.classes[0].p50, 100);
  const ClassReport& c = s.classes[1];
  EXPECT_EQ(c.name, "HN");
  EXPECT_EQ(c.pods, 5);
  EXPECT_EQ(c.scheduled, 1);
  EXPECT_EQ(c.never_scheduled, 4);
  EXPECT_EQ(c.p99, 60);
  EXPECT_EQ(c.max, 60);
  const std::vector<std::pair<std::string, int64_t>> reasons = {
      {"0/1 nodes are available: 1 Insufficient cpu.", 1},
      {"deleted before a scheduling attempt was recorded", 1},
      {"no scheduling attempt recorded", 1},
      {"pod didn't trigger scale-up: 1 max node group size reached", 1}};
  EXPECT_EQ(s.unscheduled_reasons, reasons);
}

}  // namespace
}  // namespace tidepool::sim
