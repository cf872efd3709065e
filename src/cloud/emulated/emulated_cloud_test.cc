// File: emulated_cloud_test.cc
//
// Tests for the emulated GKE cloud, driven by a test-local discrete-event TimerService on a
// SimulatedClock: the exact VM / Node lifecycle with timestamps, faults (stockout, GPU quota,
// never registers, slow boot, driver never ready), node group size rules with
// cluster-autoscaler's error texts, node pool validation and status, templates, prices and
// determinism of instance names for a seed.
#include "cloud/emulated/emulated_cloud.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <regex>
#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::cloud::emulated {
namespace {

using namespace std::chrono_literals;
using ::tidepool::testing::Q;

// ---- Test doubles -----------------------------------------------------------------------------

// A discrete-event TimerService: a min-heap of (time, sequence) over a SimulatedClock.
// Callbacks due at a time already past run at the current time, after those already queued
// for it.
class FakeTimerService final : public TimerService {
 public:
  explicit FakeTimerService(SimulatedClock& clock) : clock_(clock) {}

  TimerId ScheduleAt(TimePoint at, Callback fn) override {
    const TimerId id = next_id_++;
    queue_.push(Entry{std::max(at, clock_.Now()), id});
    callbacks_[id] = std::move(fn);
    return id;
  }
  void Cancel(TimerId id) override { callbacks_.erase(id); }
  const Clock& clock() const override { return clock_; }

  // Runs every callback due at or before `t` (advancing the clock to each), then moves the
  // clock to `t`.
  void RunUntil(TimePoint t) {
    while (!queue_.empty() && queue_.top().at <= t) {
      const Entry e = queue_.top();
      queue_.pop();
      auto it = callbacks_.find(e.id);
      if (it == callbacks_.end()) {
        continue;  // cancelled
      }
      Callback fn = std::move(it->second);
      callbacks_.erase(it);
      clock_.AdvanceTo(e.at);
      fn();
    }
    clock_.AdvanceTo(t);
  }
  void RunFor(Duration d) { RunUntil(clock_.Now() + d); }
  size_t pending() const { return callbacks_.size(); }

 private:
  struct Entry {
    TimePoint at;
    TimerId id;  // ids grow with scheduling order: the tie-breaker
    bool operator>(const Entry& o) const { return at != o.at ? at > o.at : id > o.id; }
  };
  SimulatedClock& clock_;
  TimerId next_id_ = 1;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  std::map<TimerId, Callback> callbacks_;
};

// Records what the cloud publishes, as the object store would see it.
class RecordingSink final : public NodeSink {
 public:
  explicit RecordingSink(const Clock& clock) : clock_(clock) {}
  Status UpsertNode(api::Node node) override {
    upserts.push_back({clock_.Now(), node});
    nodes[node.Name()] = std::move(node);
    return OkStatus();
  }
  Status DeleteNode(const std::string& name) override {
    deletes.push_back({clock_.Now(), name});
    if (nodes.erase(name) == 0) {
      return NotFoundError("node " + name + " not found");
    }
    return OkStatus();
  }

  std::vector<std::pair<TimePoint, api::Node>> upserts;
  std::vector<std::pair<TimePoint, std::string>> deletes;
  std::map<std::string, api::Node> nodes;

 private:
  const Clock& clock_;
};

class RecordingObserver final : public CloudObserver {
 public:
  void OnCloudEvent(const CloudEvent& e) override { events.push_back(e); }
  std::vector<CloudEvent> events;
};

// ---- Fixture ----------------------------------------------------------------------------------

constexpr char kProject[] = "test-project";
constexpr char kCluster[] = "test-cluster";
constexpr char kZone[] = "us-central1-a";

NodePoolSpec GpuPool(std::string name = "gpu-pool") {
  NodePoolSpec s;
  s.name = std::move(name);
  s.machine_type = "n1-standard-4";
  s.accelerator = Accelerator{"nvidia-tesla-t4", 1};
  s.min_nodes = 0;
  s.max_nodes = 5;
  s.autoscaling = true;
  s.labels = {{"app-type", "gpu-workloads"}};
  return s;
}

NodePoolSpec CpuPool(std::string name = "cpu-pool") {
  NodePoolSpec s;
  s.name = std::move(name);
  s.machine_type = "e2-standard-4";
  s.min_nodes = 0;
  s.max_nodes = 10;
  s.autoscaling = true;
  return s;
}

const api::NodeCondition& ReadyOf(const api::Node& n) {
  const api::NodeCondition* c = n.FindCondition("Ready");
  EXPECT_NE(c, nullptr);
  static const api::NodeCondition kNone;
  return c != nullptr ? *c : kNone;
}

bool HasTaint(const api::Node& n, std::string_view key) {
  for (const api::Taint& t : n.spec.taints) {
    if (t.key == key) {
      return true;
    }
  }
  return false;
}

std::string Label(const api::Node& n, const std::string& key) {
  auto it = n.meta.labels.find(key);
  return it == n.meta.labels.end() ? "<none>" : it->second;
}

class EmulatedCloudTest : public ::testing::Test {
 protected:
  EmulatedCloudTest() : timers_(clock_), sink_(clock_), random_(42), start_(clock_.Now()) {}

  EmulatedCloud& MakeCloud(EmulatedCloudOptions options = {}) {
    cloud_ = std::make_unique<EmulatedCloud>(kProject, kCluster, kZone, timers_, sink_, random_,
                                             std::move(options));
    cloud_->AddObserver(&observer_);
    return *cloud_;
  }
  NodeGroup* Group(const std::string& id) {
    for (NodeGroup* g : cloud_->Provider().NodeGroups()) {
      if (g->Id() == id) {
        return g;
      }
    }
    return nullptr;
  }
  std::vector<Instance> InstancesOf(NodeGroup* g) {
    StatusOr<std::vector<Instance>> got = g->Nodes();
    EXPECT_TRUE(got.ok());
    return got.ok() ? *got : std::vector<Instance>{};
  }
  // "+<seconds>s <event> <instance>" for every instance event, in order.
  std::vector<std::string> Timeline() const {
    std::vector<std::string> out;
    for (const CloudEvent& e : observer_.events) {
      if (e.instance.empty()) {
        continue;
      }
      out.push_back("+" + std::to_string((e.at - start_) / 1s) + "s " +
                    std::string(CloudEventKindName(e.kind)) + " " + e.instance);
    }
    return out;
  }
  std::vector<std::string> PoolStatuses(const std::string& pool) const {
    std::vector<std::string> out;
    for (const CloudEvent& e : observer_.events) {
      if (e.kind == CloudEventKind::kNodePoolStatusChanged && e.node_pool == pool) {
        out.push_back("+" + std::to_string((e.at - start_) / 1s) + "s " + e.detail);
      }
    }
    return out;
  }

  // Declared in destruction-safe order: the cloud (last) goes first and cancels its timers.
  SimulatedClock clock_;
  FakeTimerService timers_;
  RecordingSink sink_;
  RecordingObserver observer_;
  Random random_;
  TimePoint start_;
  std::unique_ptr<EmulatedCloud> cloud_;
};

// ---- Lifecycle ----------------------------------------------------------------------------------

TEST_F(EmulatedCloudTest, GpuPoolScaledFromZeroWalksTheWholeLifecycle) {
  EmulatedCloud& cloud = MakeCloud();
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  EXPECT_EQ(PoolStatuses("gpu-pool"),
            (std::vector<std::string>{"+0s PROVISIONING", "+0s RUNNING"}));
  NodeGroup* g = Group("gpu-pool");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->MinSize(), 0);
  EXPECT_EQ(g->MaxSize(), 5);
  EXPECT_EQ(g->Debug(), "gpu-pool (0:5)");
  EXPECT_EQ(*g->TargetSize(), 0);
  EXPECT_TRUE(InstancesOf(g).empty());

  ASSERT_TRUE(g->IncreaseSize(1).ok());
  EXPECT_EQ(*g->TargetSize(), 1);
  std::vector<Instance> instances = InstancesOf(g);
  ASSERT_EQ(instances.size(), 1u);
  EXPECT_EQ(instances[0].state, InstanceState::kCreating);
  EXPECT_FALSE(instances[0].error.has_value());
  const std::string name = instances[0].id.substr(instances[0].id.rfind('/') + 1);
  EXPECT_TRUE(
      std::regex_match(name, std::regex("gke-test-cluster-gpu-pool-[0-9a-f]{8}-[a-z0-9]{4}")))
      << name;
  EXPECT_EQ(instances[0].id, "gce://test-project/us-central1-a/" + name);

  timers_.RunFor(34s);
  EXPECT_EQ(InstancesOf(g)[0].state, InstanceState::kCreating);
  timers_.RunFor(1s);
  EXPECT_EQ(InstancesOf(g)[0].state, InstanceState::kRunning);
  EXPECT_TRUE(sink_.upserts.empty());

  timers_.RunFor(10min);
  EXPECT_EQ(Timeline(), (std::vector<std::string>{
                            "+0s InstanceRequested " + name,
                            "+35s InstanceRunning " + name,
                            "+50s NodeRegistered " + name,
                            "+80s NodeReady " + name,
                            "+200s GpuReady " + name,
                        }));
  ASSERT_EQ(sink_.upserts.size(), 3u);

  // Registered: NotReady, labelled, no GPUs yet. (The not-ready taint is the API server's.)
  {
    SCOPED_TRACE("registered");
    const auto& [at, n] = sink_.upserts[0];
    EXPECT_EQ(at - start_, 50s);
    EXPECT_EQ(n.Name(), name);
    EXPECT_EQ(n.spec.provider_id, "gce://test-project/us-central1-a/" + name);
    const api::NodeCondition& ready = ReadyOf(n);
    EXPECT_EQ(ready.status, api::ConditionStatus::kFalse);
    EXPECT_EQ(ready.reason, "KubeletNotReady");
    EXPECT_EQ(ready.message, "container runtime status check may not have completed yet");
    EXPECT_FALSE(HasTaint(n, "node.kubernetes.io/not-ready"));
    EXPECT_TRUE(HasTaint(n, "nvidia.com/gpu"));
    EXPECT_EQ(Label(n, "cloud.google.com/gke-nodepool"), "gpu-pool");
    EXPECT_EQ(Label(n, "cloud.google.com/gke-accelerator"), "nvidia-tesla-t4");
    EXPECT_EQ(Label(n, "node.kubernetes.io/instance-type"), "n1-standard-4");
    EXPECT_EQ(Label(n, "topology.kubernetes.io/zone"), "us-central1-a");
    EXPECT_EQ(Label(n, "topology.kubernetes.io/region"), "us-central1");
    EXPECT_EQ(Label(n, "kubernetes.io/hostname"), name);
    EXPECT_EQ(Label(n, "kubernetes.io/arch"), "amd64");
    EXPECT_EQ(Label(n, "kubernetes.io/os"), "linux");
    EXPECT_EQ(Label(n, "cloud.google.com/machine-family"), "n1");
    EXPECT_EQ(Label(n, "cloud.google.com/gke-provisioning"), "standard");
    EXPECT_EQ(Label(n, "app-type"), "gpu-workloads");
    EXPECT_EQ(Label(n, "nvidia.com/gpu.present"), "<none>");
    EXPECT_EQ(n.status.capacity.count("nvidia.com/gpu"), 0u);
    EXPECT_EQ(api::Get(n.status.allocatable, "nvidia.com/gpu").Value(), 0);
    EXPECT_EQ(api::Get(n.status.capacity, "cpu"), Q("4"));
    EXPECT_EQ(api::Get(n.status.capacity, "memory"), Q("15Gi"));
    EXPECT_EQ(api::Get(n.status.allocatable, "cpu"), Q("3920m"));
    EXPECT_EQ(api::Get(n.status.allocatable, "memory"), Q("12700Mi"));
    // The provider sees a GPU node (by label) even before the GPUs are allocatable.
    std::optional<GpuConfig> gpu = cloud.Provider().GetNodeGpuConfig(n);
    ASSERT_TRUE(gpu.has_value());
    EXPECT_EQ(gpu->type, "nvidia-tesla-t4");
    EXPECT_EQ(gpu->label, "cloud.google.com/gke-accelerator");
    EXPECT_EQ(cloud.Provider().NodeGroupForNode(n), g);
    // A node with only the provider id (what cluster-autoscaler builds for an instance whose
    // node is not registered) maps to the instance's pool; an unknown one to none.
    api::Node bare;
    bare.meta.name = n.spec.provider_id;
    bare.spec.provider_id = n.spec.provider_id;
    EXPECT_EQ(cloud.Provider().NodeGroupForNode(bare), g);
    bare.spec.provider_id = "gce://tidepool-local/us-central1-a/no-such-vm";
    EXPECT_EQ(cloud.Provider().NodeGroupForNode(bare), nullptr);
    bare.spec.provider_id.clear();
    EXPECT_EQ(cloud.Provider().NodeGroupForNode(bare), nullptr);
  }
  // Ready; still no GPUs.
  {
    SCOPED_TRACE("ready");
    const auto& [at, n] = sink_.upserts[1];
    EXPECT_EQ(at - start_, 80s);
    const api::NodeCondition& ready = ReadyOf(n);
    EXPECT_EQ(ready.status, api::ConditionStatus::kTrue);
    EXPECT_EQ(ready.reason, "KubeletReady");
    EXPECT_EQ(ready.message, "kubelet is posting ready status");
    EXPECT_EQ(ready.last_transition_time, start_ + 80s);
    EXPECT_FALSE(HasTaint(n, "node.kubernetes.io/not-ready"));
    EXPECT_TRUE(HasTaint(n, "nvidia.com/gpu"));
    EXPECT_EQ(api::Get(n.status.allocatable, "nvidia.com/gpu").Value(), 0);
  }
  // Driver and device plugin up: GPUs allocatable, GPU Feature Discovery labels.
  {
    SCOPED_TRACE("gpu ready");
    const auto& [at, n] = sink_.upserts[2];
    EXPECT_EQ(at - start_, 200s);
    EXPECT_TRUE(n.IsReady());
    EXPECT_EQ(api::Get(n.status.allocatable, "nvidia.com/gpu").Value(), 1);
    EXPECT_EQ(api::Get(n.status.capacity, "nvidia.com/gpu").Value(), 1);
    EXPECT_EQ(Label(n, "nvidia.com/gpu.present"), "true");
    EXPECT_EQ(Label(n, "nvidia.com/gpu.product"), "Tesla-T4");
    EXPECT_EQ(Label(n, "nvidia.com/gpu.count"), "1");
  }
  EXPECT_EQ(timers_.pending(), 0u);
}

// NodesVersion lets the autoscaler keep its pass over a group's instances: it must move with
// every change Nodes() could show, and only then.
TEST_F(EmulatedCloudTest, NodesVersionMovesWithEveryInstanceChange) {
  EmulatedCloud& cloud = MakeCloud();
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  NodeGroup* g = Group("gpu-pool");
  ASSERT_NE(g, nullptr);
  uint64_t v = g->NodesVersion();
  EXPECT_NE(v, 0u);
  auto moved = [&] {
    const uint64_t now = g->NodesVersion();
    const bool changed = now != v;
    v = now;
    return changed;
  };
  EXPECT_FALSE(moved());
  InstancesOf(g);
  EXPECT_FALSE(moved()) << "reading changes nothing";
  ASSERT_TRUE(g->IncreaseSize(1).ok());
  EXPECT_TRUE(moved()) << "a new instance (creating)";
  const std::vector<Instance> creating = InstancesOf(g);
  ASSERT_EQ(creating.size(), 1u);
  EXPECT_EQ(creating[0].state, InstanceState::kCreating);
  timers_.RunFor(60s);
  EXPECT_TRUE(moved()) << "the VM is running";
  EXPECT_EQ(InstancesOf(g)[0].state, InstanceState::kRunning);
  timers_.RunFor(10min);
  moved();
  EXPECT_FALSE(moved());
  const std::string name = creating[0].id.substr(creating[0].id.rfind('/') + 1);
  ASSERT_TRUE(g->DeleteNodes({name}).ok());
  EXPECT_TRUE(moved()) << "being deleted";
  EXPECT_EQ(InstancesOf(g)[0].state, InstanceState::kDeleting);
  timers_.RunFor(10min);
  EXPECT_TRUE(moved()) << "gone";
  EXPECT_TRUE(InstancesOf(g).empty());
}

TEST_F(EmulatedCloudTest, DelaysAreConfigurable) {
  EmulatedCloudOptions options;
  options.delays.provisioning = 10s;
  options.delays.registration = 5s;
  options.delays.kubelet_ready = 1s;
  options.delays.driver = 4min;
  EmulatedCloud& cloud = MakeCloud(std::move(options));
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  ASSERT_TRUE(cloud.IncreaseSize("gpu-pool", 1).ok());
  timers_.RunFor(1h);
  const std::vector<std::string> t = Timeline();
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[1].substr(0, t[1].find(' ')), "+10s");
  EXPECT_EQ(t[2].substr(0, t[2].find(' ')), "+15s");
  EXPECT_EQ(t[3].substr(0, t[3].find(' ')), "+16s");
  EXPECT_EQ(t[4].substr(0, t[4].find(' ')), "+256s");
}

TEST_F(EmulatedCloudTest, CpuPoolHasNoGpuStepAndSpotLabels) {
  EmulatedCloud& cloud = MakeCloud();
  NodePoolSpec spec = CpuPool();
  spec.spot = true;
  ASSERT_TRUE(cloud.CreateNodePool(spec).ok());
  ASSERT_TRUE(cloud.IncreaseSize("cpu-pool", 1).ok());
  timers_.RunFor(1h);
  ASSERT_EQ(sink_.upserts.size(), 2u);
  const api::Node& n = sink_.upserts[1].second;
  EXPECT_TRUE(n.IsReady());
  EXPECT_EQ(Label(n, "cloud.google.com/gke-spot"), "true");
  EXPECT_EQ(Label(n, "cloud.google.com/gke-provisioning"), "spot");
  EXPECT_EQ(Label(n, "cloud.google.com/gke-accelerator"), "<none>");
  EXPECT_TRUE(n.spec.taints.empty());
  EXPECT_FALSE(cloud.Provider().GetNodeGpuConfig(n).has_value());
}

TEST_F(EmulatedCloudTest, ZeroAllocatableBeforeDriverIsAnOption) {
  EmulatedCloudOptions options;
  options.gpu_before_driver = GpuResourceBeforeDriver::kZeroAllocatable;
  EmulatedCloud& cloud = MakeCloud(std::move(options));
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  ASSERT_TRUE(cloud.IncreaseSize("gpu-pool", 1).ok());
  timers_.RunFor(80s);
  ASSERT_EQ(sink_.upserts.size(), 2u);
  for (const auto& [at, n] : sink_.upserts) {
    EXPECT_EQ(api::Get(n.status.capacity, "nvidia.com/gpu").Value(), 1);
    ASSERT_EQ(n.status.allocatable.count("nvidia.com/gpu"), 1u);
    EXPECT_TRUE(api::Get(n.status.allocatable, "nvidia.com/gpu").IsZero());
  }
}

// ---- Faults -------------------------------------------------------------------------------------

TEST_F(EmulatedCloudTest, StockoutFailsCreationAfterTheDelay) {
  EmulatedCloudOptions options;
  options.faults.stockout.push_back(
      FaultMatch{.zone = "us-central1-a", .accelerator = "nvidia-tesla-t4"});
  EmulatedCloud& cloud = MakeCloud(std::move(options));
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  NodeGroup* g = Group("gpu-pool");
  ASSERT_TRUE(g->IncreaseSize(2).ok());

  timers_.RunFor(19s);
  for (const Instance& i : InstancesOf(g)) {
    EXPECT_EQ(i.state, InstanceState::kCreating);
    EXPECT_FALSE(i.error.has_value());
  }
  timers_.RunFor(1s);
  std::vector<Instance> instances = InstancesOf(g);
  ASSERT_EQ(instances.size(), 2u);
  for (const Instance& i : instances) {
    SCOPED_TRACE(i.id);
    EXPECT_EQ(i.state, InstanceState::kCreating);
    ASSERT_TRUE(i.error.has_value());
    EXPECT_EQ(i.error->error_class, InstanceErrorInfo::Class::kOutOfResources);
    EXPECT_EQ(i.error->error_code, "ZONE_RESOURCE_POOL_EXHAUSTED");
    EXPECT_EQ(i.error->error_message,
              "The zone 'projects/test-project/zones/us-central1-a' does not have enough "
              "resources available to fulfill the request.  Try a different zone, or try again "
              "later.");
  }
  // Failed instances stay listed and count in the target until removed; no node ever appears.
  timers_.RunFor(1h);
  EXPECT_EQ(*g->TargetSize(), 2);
  EXPECT_EQ(InstancesOf(g).size(), 2u);
  EXPECT_TRUE(sink_.upserts.empty());

  // cluster-autoscaler deletes them by provider id (its fake nodes) or lowers the target.
  ASSERT_TRUE(g->DeleteNodes({instances[0].id}).ok());
  EXPECT_EQ(*g->TargetSize(), 1);
  ASSERT_TRUE(g->DecreaseTargetSize(-1).ok());
  EXPECT_EQ(*g->TargetSize(), 0);
  EXPECT_TRUE(InstancesOf(g).empty());
}

TEST_F(EmulatedCloudTest, MultiZonePoolsSpreadRoundRobinAndStockOutPerZone) {
  EmulatedCloudOptions options;
  options.faults.stockout.push_back(FaultMatch{.zone = "us-central1-b"});
  EmulatedCloud& cloud = MakeCloud(std::move(options));
  NodePoolSpec spec = GpuPool();
  spec.zones = {"us-central1-a", "us-central1-b", "us-central1-c"};
  spec.max_nodes = 6;
  ASSERT_TRUE(cloud.CreateNodePool(spec).ok());
  ASSERT_TRUE(cloud.IncreaseSize("gpu-pool", 3).ok());
  timers_.RunFor(1h);
  std::map<std::string, int> ready_by_zone;
  std::map<std::string, int> failed_by_zone;
  for (const InstanceInfo& i : cloud.ListInstances()) {
    if (i.status == VmStatus::kFailed) {
      ++failed_by_zone[i.zone];
    } else if (i.ready) {
      ++ready_by_zone[i.zone];
    }
  }
  EXPECT_EQ(ready_by_zone,
            (std::map<std::string, int>{{"us-central1-a", 1}, {"us-central1-c", 1}}));
  EXPECT_EQ(failed_by_zone, (std::map<std::string, int>{{"us-central1-b", 1}}));
  // One managed instance group per zone, each with its own hash in the instance names.
  StatusOr<NodePoolInfo> info = cloud.GetNodePool("gpu-pool");
  ASSERT_TRUE(info.ok());
  ASSERT_EQ(info->instance_groups.size(), 3u);
  for (const InstanceInfo& i : cloud.ListInstances()) {
    const size_t zone_index = i.zone.back() - 'a';
    const std::string group = info->instance_groups[zone_index];
    EXPECT_EQ(i.name.substr(0, group.size() - 4), group.substr(0, group.size() - 4)) << i.name;
  }
}

TEST_F(EmulatedCloudTest, GpuQuotaRefusesIncreaseAtOnce) {
  EmulatedCloudOptions options;
  options.faults.gpu_quota["NVIDIA_T4_GPUS"] = 4;
  EmulatedCloud& cloud = MakeCloud(std::move(options));
  NodePoolSpec spec = GpuPool();
  spec.accelerator = Accelerator{"nvidia-tesla-t4", 2};
  ASSERT_TRUE(cloud.CreateNodePool(spec).ok());
  NodeGroup* g = Group("gpu-pool");
  ASSERT_TRUE(g->IncreaseSize(2).ok());  // 4 GPUs: exactly the limit
  Status s = g->IncreaseSize(1);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "Quota 'NVIDIA_T4_GPUS' exceeded.  Limit: 4.0 in region us-central1.");
  EXPECT_EQ(*g->TargetSize(), 2);

  // Spot VMs count against PREEMPTIBLE_NVIDIA_T4_GPUS, which is unlimited here.
  NodePoolSpec spot = GpuPool("spot-pool");
  spot.spot = true;
  ASSERT_TRUE(cloud.CreateNodePool(spot).ok());
  EXPECT_TRUE(cloud.IncreaseSize("spot-pool", 3).ok());
  // Quota also applies to pool creation and manual resizes.
  NodePoolSpec more = GpuPool("more");
  more.initial_node_count = 1;
  EXPECT_EQ(cloud.CreateNodePool(more).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(cloud.SetSize("gpu-pool", 3).code(), StatusCode::kResourceExhausted);
}

TEST_F(EmulatedCloudTest, FailedInstancesDoNotUseQuota) {
  EmulatedCloudOptions options;
  options.faults.gpu_quota["NVIDIA_T4_GPUS"] = 1;
  options.faults.stockout.push_back(FaultMatch{.node_pool = "gpu-pool"});
  EmulatedCloud& cloud = MakeCloud(std::move(options));
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  ASSERT_TRUE(cloud.IncreaseSize("gpu-pool", 1).ok());
  EXPECT_FALSE(cloud.IncreaseSize("gpu-pool", 1).ok());  // the creating one holds the quota
  timers_.RunFor(20s);                                   // it fails
  EXPECT_TRUE(cloud.IncreaseSize("gpu-pool", 1).ok());
}

TEST_F(EmulatedCloudTest, NeverRegisteringSlowBootAndDriverFaults) {
  EmulatedCloudOptions options;
  options.faults.never_registers.push_back(FaultMatch{.node_pool = "lost"});
  options.faults.slow_boot.push_back(SlowBoot{FaultMatch{.node_pool = "slow"}, 60s});
  options.faults.driver_never_ready.push_back(FaultMatch{.accelerator = "nvidia-tesla-t4"});
  EmulatedCloud& cloud = MakeCloud(std::move(options));
  for (const char* pool : {"lost", "slow"}) {
    ASSERT_TRUE(cloud.CreateNodePool(GpuPool(pool)).ok());
    ASSERT_TRUE(cloud.IncreaseSize(pool, 1).ok());
  }
  timers_.RunFor(2h);
  std::map<std::string, InstanceInfo> by_pool;
  for (const InstanceInfo& i : cloud.ListInstances()) {
    by_pool[i.node_pool] = i;
  }
  // lost: the VM runs, no node ever registers.
  EXPECT_EQ(by_pool["lost"].status, VmStatus::kRunning);
  EXPECT_FALSE(by_pool["lost"].registered);
  EXPECT_EQ(sink_.nodes.count(by_pool["lost"].name), 0u);
  // slow: RUNNING 60 s late; Ready, but the driver never comes up.
  EXPECT_TRUE(by_pool["slow"].ready);
  EXPECT_FALSE(by_pool["slow"].gpu_ready);
  const api::Node& slow = sink_.nodes.at(by_pool["slow"].name);
  EXPECT_TRUE(slow.IsReady());
  EXPECT_EQ(api::Get(slow.status.allocatable, "nvidia.com/gpu").Value(), 0);
  std::vector<std::string> timeline = Timeline();
  EXPECT_NE(
      std::find(timeline.begin(), timeline.end(), "+95s InstanceRunning " + by_pool["slow"].name),
      timeline.end());
  // The unregistered VM is capacity that can still be given up.
  ASSERT_TRUE(cloud.DecreaseTargetSize("lost", -1).ok());
  EXPECT_EQ(*cloud.TargetSize("lost"), 0);
}

TEST_F(EmulatedCloudTest, FaultsCanChangeAtRunTime) {
  EmulatedCloud& cloud = MakeCloud();
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  cloud.faults().stockout.push_back(FaultMatch{});
  ASSERT_TRUE(cloud.IncreaseSize("gpu-pool", 1).ok());
  cloud.faults().stockout.clear();  // the stockout ends; only new requests see it
  ASSERT_TRUE(cloud.IncreaseSize("gpu-pool", 1).ok());
  timers_.RunFor(1h);
  int failed = 0;
  int ready = 0;
  for (const InstanceInfo& i : cloud.ListInstances()) {
    failed += i.status == VmStatus::kFailed;
    ready += i.ready;
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(ready, 1);
}

// ---- Node group size rules ---------------------------------------------------------------------

TEST_F(EmulatedCloudTest, SizeRulesUseClusterAutoscalerTexts) {
  EmulatedCloud& cloud = MakeCloud();
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  NodeGroup* g = Group("gpu-pool");
  struct Case {
    std::string name;
    std::function<Status()> call;
    StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"beyond max", [&] { return g->IncreaseSize(6); }, StatusCode::kInvalidArgument,
       "size increase too large - desired:6 max:5"},
      {"zero increase", [&] { return g->IncreaseSize(0); }, StatusCode::kInvalidArgument,
       "size increase must be positive"},
      {"positive decrease", [&] { return g->DecreaseTargetSize(1); }, StatusCode::kInvalidArgument,
       "size decrease must be negative"},
      {"unknown node", [&] { return g->DeleteNodes({"no-such-node"}); }, StatusCode::kNotFound,
       "node no-such-node is not an instance of any node pool"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Status s = tc.call();
    EXPECT_EQ(s.code(), tc.code);
    EXPECT_EQ(s.message(), tc.message);
  }
  ASSERT_TRUE(g->IncreaseSize(5).ok());
  EXPECT_EQ(g->IncreaseSize(1).message(), "size increase too large - desired:6 max:5");
  EXPECT_EQ(*g->TargetSize(), 5);
}

TEST_F(EmulatedCloudTest, DeleteNodesStopsTheVmAndRemovesTheNode) {
  EmulatedCloud& cloud = MakeCloud();
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  ASSERT_TRUE(cloud.CreateNodePool(CpuPool()).ok());
  NodeGroup* g = Group("gpu-pool");
  ASSERT_TRUE(g->IncreaseSize(1).ok());
  ASSERT_TRUE(cloud.IncreaseSize("cpu-pool", 1).ok());
  timers_.RunFor(10min);
  ASSERT_EQ(sink_.nodes.size(), 2u);
  std::string gpu_node;
  std::string cpu_node;
  for (const auto& [name, n] : sink_.nodes) {
    (Label(n, "cloud.google.com/gke-nodepool") == "gpu-pool" ? gpu_node : cpu_node) = name;
  }

  Status other = g->DeleteNodes({cpu_node});
  EXPECT_EQ(other.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(other.message(), cpu_node + " belongs to a different node group than gpu-pool");

  const TimePoint deleted_at = clock_.Now();
  ASSERT_TRUE(g->DeleteNodes({gpu_node}).ok());
  EXPECT_EQ(*g->TargetSize(), 0);
  ASSERT_EQ(InstancesOf(g).size(), 1u);
  EXPECT_EQ(InstancesOf(g)[0].state, InstanceState::kDeleting);
  EXPECT_TRUE(g->DeleteNodes({gpu_node}).ok());  // already stopping: ignored
  timers_.RunFor(29s);
  EXPECT_EQ(sink_.nodes.count(gpu_node), 1u);
  timers_.RunFor(1s);
  EXPECT_EQ(sink_.nodes.count(gpu_node), 0u);
  ASSERT_EQ(sink_.deletes.size(), 1u);
  EXPECT_EQ(sink_.deletes[0].first, deleted_at + 30s);
  EXPECT_EQ(sink_.deletes[0].second, gpu_node);
  EXPECT_TRUE(InstancesOf(g).empty());
  EXPECT_EQ(cloud.ListInstances().size(), 1u);
}

TEST_F(EmulatedCloudTest, DeleteNodesRespectsMinSize) {
  EmulatedCloud& cloud = MakeCloud();
  NodePoolSpec spec = GpuPool();
  spec.min_nodes = 1;
  spec.initial_node_count = 1;
  ASSERT_TRUE(cloud.CreateNodePool(spec).ok());
  timers_.RunFor(10min);
  NodeGroup* g = Group("gpu-pool");
  ASSERT_EQ(sink_.nodes.size(), 1u);
  Status s = g->DeleteNodes({sink_.nodes.begin()->first});
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "min size reached, nodes will not be deleted");
  EXPECT_EQ(*g->TargetSize(), 1);
}

TEST_F(EmulatedCloudTest, DecreaseTargetSizeOnlyGivesUpUnregisteredCapacity) {
  EmulatedCloud& cloud = MakeCloud();
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  NodeGroup* g = Group("gpu-pool");
  ASSERT_TRUE(g->IncreaseSize(1).ok());
  timers_.RunFor(10min);
  ASSERT_TRUE(g->IncreaseSize(2).ok());
  Status s = g->DecreaseTargetSize(-3);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "attempt to delete existing nodes targetSize:3 delta:-3 existingNodes: 1");
  ASSERT_TRUE(g->DecreaseTargetSize(-2).ok());
  EXPECT_EQ(*g->TargetSize(), 1);
  timers_.RunFor(10min);
  EXPECT_EQ(sink_.nodes.size(), 1u);
  EXPECT_EQ(InstancesOf(g).size(), 1u);
}

// ---- Node pools ---------------------------------------------------------------------------------

TEST_F(EmulatedCloudTest, CreateNodePoolValidates) {
  EmulatedCloud& cloud = MakeCloud();
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  struct Case {
    std::string name;
    NodePoolSpec spec;
    StatusCode code;
    std::string message;  // empty: only the code is checked
  };
  auto with = [](std::function<void(NodePoolSpec&)> edit) {
    NodePoolSpec s = GpuPool("other");
    edit(s);
    return s;
  };
  const std::vector<Case> cases = {
      {"duplicate name", GpuPool(), StatusCode::kAlreadyExists,
       "Already exists: projects/test-project/locations/us-central1-a/clusters/test-cluster/"
       "nodePools/gpu-pool."},
      {"bad name", with([](NodePoolSpec& s) { s.name = "GPU_pool"; }), StatusCode::kInvalidArgument,
       ""},
      {"name too long", with([](NodePoolSpec& s) { s.name = std::string(41, 'a'); }),
       StatusCode::kInvalidArgument, ""},
      {"GPU on N2", with([](NodePoolSpec& s) { s.machine_type = "n2-standard-4"; }),
       StatusCode::kInvalidArgument,
       "[n2-standard-4, nvidia-tesla-t4] features are not compatible for creating instance."},
      {"unknown machine", with([](NodePoolSpec& s) { s.machine_type = "n9-standard-4"; }),
       StatusCode::kInvalidArgument, ""},
      {"zone in another region", with([](NodePoolSpec& s) { s.zones = {"europe-west4-a"}; }),
       StatusCode::kInvalidArgument, ""},
      {"min above max", with([](NodePoolSpec& s) { s.min_nodes = 6; }),
       StatusCode::kInvalidArgument, ""},
      {"tiny disk", with([](NodePoolSpec& s) { s.disk_size_gb = 5; }), StatusCode::kInvalidArgument,
       ""},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Status s = cloud.CreateNodePool(tc.spec);
    EXPECT_EQ(s.code(), tc.code) << s.ToString();
    if (!tc.message.empty()) {
      EXPECT_EQ(s.message(), tc.message);
    }
  }
  EXPECT_EQ(cloud.ListNodePools().size(), 1u);
}

TEST_F(EmulatedCloudTest, GpuPoolsGetGkesTaintOnce) {
  EmulatedCloud& cloud = MakeCloud();
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool("auto")).ok());
  NodePoolSpec given = GpuPool("given");
  given.taints.push_back(
      api::Taint{"nvidia.com/gpu", "present", api::TaintEffect::kNoSchedule, std::nullopt});
  ASSERT_TRUE(cloud.CreateNodePool(given).ok());
  for (const char* pool : {"auto", "given"}) {
    SCOPED_TRACE(pool);
    StatusOr<NodePoolInfo> info = cloud.GetNodePool(pool);
    ASSERT_TRUE(info.ok());
    ASSERT_EQ(info->spec.taints.size(), 1u);
    EXPECT_EQ(info->spec.taints[0].ToString(), "nvidia.com/gpu=present:NoSchedule");
  }
  ASSERT_TRUE(cloud.CreateNodePool(CpuPool()).ok());
  EXPECT_TRUE(cloud.GetNodePool("cpu-pool")->spec.taints.empty());
}

TEST_F(EmulatedCloudTest, NodePoolStatusFollowsOperations) {
  EmulatedCloud& cloud = MakeCloud();
  NodePoolSpec spec = GpuPool();
  spec.initial_node_count = 2;
  ASSERT_TRUE(cloud.CreateNodePool(spec).ok());
  EXPECT_EQ(cloud.GetNodePool("gpu-pool")->status, NodePoolStatus::kProvisioning);
  timers_.RunFor(5min);
  ASSERT_TRUE(cloud.SetSize("gpu-pool", 3).ok());
  timers_.RunFor(5min);
  ASSERT_TRUE(cloud.SetSize("gpu-pool", 1).ok());
  timers_.RunFor(5min);
  EXPECT_EQ(sink_.nodes.size(), 1u);
  ASSERT_TRUE(cloud.DeleteNodePool("gpu-pool").ok());
  EXPECT_EQ(cloud.GetNodePool("gpu-pool")->status, NodePoolStatus::kStopping);
  EXPECT_EQ(Group("gpu-pool"), nullptr);
  timers_.RunFor(5min);
  EXPECT_EQ(cloud.GetNodePool("gpu-pool").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(sink_.nodes.empty());
  EXPECT_TRUE(cloud.ListInstances().empty());
  EXPECT_EQ(PoolStatuses("gpu-pool"), (std::vector<std::string>{
                                          "+0s PROVISIONING",
                                          "+80s RUNNING",
                                          "+300s RECONCILING",
                                          "+380s RUNNING",
                                          "+600s RECONCILING",
                                          "+630s RUNNING",
                                          "+900s STOPPING",
                                      }));
  EXPECT_EQ(observer_.events.back().kind, CloudEventKind::kNodePoolDeleted);
  EXPECT_EQ(observer_.events.back().at - start_, 930s);
}

TEST_F(EmulatedCloudTest, PoolWhoseEveryInitialNodeFailsIsInError) {
  EmulatedCloudOptions options;
  options.faults.stockout.push_back(FaultMatch{});
  EmulatedCloud& cloud = MakeCloud(std::move(options));
  NodePoolSpec spec = GpuPool();
  spec.initial_node_count = 2;
  ASSERT_TRUE(cloud.CreateNodePool(spec).ok());
  timers_.RunFor(1min);
  EXPECT_EQ(cloud.GetNodePool("gpu-pool")->status, NodePoolStatus::kError);
  // A node that comes up later puts the pool back to RUNNING.
  cloud.faults().stockout.clear();
  ASSERT_TRUE(cloud.IncreaseSize("gpu-pool", 1).ok());
  timers_.RunFor(5min);
  EXPECT_EQ(cloud.GetNodePool("gpu-pool")->status, NodePoolStatus::kRunning);
}

TEST_F(EmulatedCloudTest, OnlyAutoscaledPoolsAreNodeGroups) {
  EmulatedCloud& cloud = MakeCloud();
  NodePoolSpec fixed = CpuPool("fixed");
  fixed.autoscaling = false;
  fixed.initial_node_count = 1;
  ASSERT_TRUE(cloud.CreateNodePool(fixed).ok());
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool("b-gpu")).ok());
  ASSERT_TRUE(cloud.CreateNodePool(CpuPool("a-cpu")).ok());
  std::vector<std::string> ids;
  for (NodeGroup* g : cloud.Provider().NodeGroups()) {
    ids.push_back(g->Id());
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"a-cpu", "b-gpu"}));
  timers_.RunFor(5min);
  ASSERT_EQ(sink_.nodes.size(), 1u);
  EXPECT_EQ(cloud.Provider().NodeGroupForNode(sink_.nodes.begin()->second), nullptr);
  // Enabling autoscaling makes it a group; the NodeGroup pointer stays stable.
  ASSERT_TRUE(cloud.SetAutoscaling("fixed", true, 1, 3).ok());
  NodeGroup* g = cloud.Provider().NodeGroupForNode(sink_.nodes.begin()->second);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g, Group("fixed"));
  EXPECT_EQ(g->MinSize(), 1);
  EXPECT_EQ(g->MaxSize(), 3);
  EXPECT_EQ(cloud.SetAutoscaling("fixed", true, 4, 3).code(), StatusCode::kInvalidArgument);
}

// ---- Templates and prices -----------------------------------------------------------------------

TEST_F(EmulatedCloudTest, TemplateNodeIsAFullyReadyNode) {
  EmulatedCloud& cloud = MakeCloud();
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  NodePoolSpec l4;
  l4.name = "l4-pool";
  l4.machine_type = "g2-standard-24";
  l4.max_nodes = 2;
  l4.autoscaling = true;
  l4.zones = {"us-central1-b", "us-central1-c"};
  ASSERT_TRUE(cloud.CreateNodePool(l4).ok());
  struct Case {
    std::string pool;
    std::string product;
    int gpus;
    std::string cpu;
    std::string zone;
  };
  const std::vector<Case> cases = {
      {"gpu-pool", "Tesla-T4", 1, "3920m", "us-central1-a"},
      // 24 cores: 80m + 0.25% of 20 cores = 130m.
      {"l4-pool", "NVIDIA-L4", 2, "23870m", "us-central1-b"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.pool);
    NodeGroup* g = Group(tc.pool);
    ASSERT_NE(g, nullptr);
    StatusOr<api::Node> t = g->TemplateNode();
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->Name(), "template-node-for-" + tc.pool);
    EXPECT_EQ(Label(*t, "kubernetes.io/hostname"), t->Name());
    EXPECT_EQ(Label(*t, "cloud.google.com/gke-nodepool"), tc.pool);
    EXPECT_EQ(Label(*t, "nvidia.com/gpu.product"), tc.product);
    EXPECT_EQ(Label(*t, "topology.kubernetes.io/zone"), tc.zone);
    EXPECT_EQ(api::Get(t->status.allocatable, "nvidia.com/gpu").Value(), tc.gpus);
    EXPECT_EQ(api::Get(t->status.allocatable, "cpu"), Q(tc.cpu));
    EXPECT_TRUE(t->IsReady());
    EXPECT_TRUE(HasTaint(*t, "nvidia.com/gpu"));
    EXPECT_FALSE(HasTaint(*t, "node.kubernetes.io/not-ready"));
    EXPECT_TRUE(t->spec.provider_id.empty());
  }
}

TEST_F(EmulatedCloudTest, PricingCoversMachineAndGpusOnDemandOrSpot) {
  EmulatedCloud& cloud = MakeCloud();
  ASSERT_TRUE(cloud.CreateNodePool(GpuPool()).ok());
  NodePoolSpec spot = GpuPool("spot-pool");
  spot.spot = true;
  ASSERT_TRUE(cloud.CreateNodePool(spot).ok());
  const PricingModel* pricing = cloud.Provider().Pricing();
  ASSERT_NE(pricing, nullptr);
  struct Case {
    std::string pool;
    double want;  // for two hours
  };
  for (const Case& tc :
       std::vector<Case>{{"gpu-pool", 2 * (0.19 + 0.35)}, {"spot-pool", 2 * (0.04 + 0.11)}}) {
    SCOPED_TRACE(tc.pool);
    StatusOr<api::Node> t = cloud.TemplateNode(tc.pool);
    ASSERT_TRUE(t.ok());
    StatusOr<double> price = pricing->NodePrice(*t, start_, start_ + 2h);
    ASSERT_TRUE(price.ok()) << price.status().ToString();
    EXPECT_NEAR(*price, tc.want, 1e-9);
  }
  // A node whose pool is gone is priced from its labels.
  api::Node orphan = ::tidepool::testing::MakeNode("orphan")
                         .Label("node.kubernetes.io/instance-type", "a2-highgpu-1g")
                         .Label("cloud.google.com/gke-accelerator", "nvidia-tesla-a100")
                         .Obj();
  EXPECT_NEAR(*pricing->NodePrice(orphan, start_, start_ + 30min), 3.673385 / 2, 1e-9);
  EXPECT_FALSE(
      pricing->NodePrice(::tidepool::testing::MakeNode("bare").Obj(), start_, start_ + 1h).ok());
}

// Pod prices follow CA's GCE model: base rates per requested cpu, GiB and GPU, whole minutes.
TEST_F(EmulatedCloudTest, PodPriceIsCaGceBaseRates) {
  EmulatedCloud& cloud = MakeCloud();
  const PricingModel* pricing = cloud.Provider().Pricing();
  const api::Pod pod = ::tidepool::testing::MakePod("p")
                           .Container({{"cpu", "2"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}})
                           .Container({{"cpu", "500m"}})
                           .InitContainer({{"cpu", "8"}, {"nvidia.com/gpu", "4"}})
                           .Obj();
  const double per_hour = 2.5 * 0.033174 + 4 * 0.004446 + 0.700;
  EXPECT_NEAR(*pricing->PodPrice(pod, start_, start_ + 1h), per_hour, 1e-12);
  // 61 s count as 2 minutes (CA's getHours rounds up).
  EXPECT_NEAR(*pricing->PodPrice(pod, start_, start_ + 61s), per_hour * 2 / 60, 1e-12);
  EXPECT_EQ(*pricing->PodPrice(::tidepool::testing::MakePod("empty").Obj(), start_, start_ + 1h),
            0.0);
  EXPECT_FALSE(pricing->PodPrice(pod, start_ + 1h, start_).ok());
}

// ---- Determinism --------------------------------------------------------------------------------

std::vector<std::string> NamesFor(uint64_t seed) {
  SimulatedClock clock;
  FakeTimerService timers(clock);
  RecordingSink sink(clock);
  Random random(seed);
  EmulatedCloud cloud(kProject, kCluster, kZone, timers, sink, random);
  NodePoolSpec spec = GpuPool();
  spec.zones = {"us-central1-a", "us-central1-b"};
  EXPECT_TRUE(cloud.CreateNodePool(spec).ok());
  EXPECT_TRUE(cloud.CreateNodePool(CpuPool()).ok());
  EXPECT_TRUE(cloud.IncreaseSize("gpu-pool", 3).ok());
  EXPECT_TRUE(cloud.IncreaseSize("cpu-pool", 2).ok());
  timers.RunFor(1h);
  std::vector<std::string> names;
  for (const auto& [at, node] : sink.upserts) {
    names.push_back(std::to_string((at - clock.kDefaultStart) / 1s) + " " + node.Name());
  }
  return names;
}

TEST(EmulatedCloudDeterminismTest, SameSeedSameNames) {
  const std::vector<std::string> a = NamesFor(7);
  EXPECT_EQ(a.size(), 3u * 3 + 2u * 2);
  EXPECT_EQ(a, NamesFor(7));
  EXPECT_NE(a, NamesFor(8));
}

// ---- Journal (tidepool up --data-dir) ------------------------------------------------------------

// A CloudJournal in memory, counting writes; `fail` makes Put fail.
class MemoryJournal final : public CloudJournal {
 public:
  Status Put(std::string_view kind, std::string_view name, std::string_view json) override {
    if (fail) return UnavailableError("disk full");
    ++puts;
    records[std::string(kind)][std::string(name)] = std::string(json);
    return OkStatus();
  }
  Status Delete(std::string_view kind, std::string_view name) override {
    ++deletes;
    records[std::string(kind)].erase(std::string(name));
    return OkStatus();
  }
  StatusOr<std::vector<CloudRecord>> List(std::string_view kind) const override {
    std::vector<CloudRecord> out;
    auto it = records.find(std::string(kind));
    if (it == records.end()) return out;
    for (const auto& [name, json] : it->second) out.push_back({name, json});
    return out;
  }
  std::map<std::string, std::map<std::string, std::string>> records;
  int puts = 0;
  int deletes = 0;
  bool fail = false;
};

// One "process": a cloud on its own timers and sink, over a shared journal and clock.
struct CloudRun {
  CloudRun(SimulatedClock& clock, MemoryJournal& journal, uint64_t seed = 42)
      : timers(clock), sink(clock), random(seed) {
    EmulatedCloudOptions o;
    o.journal = &journal;
    cloud = std::make_unique<EmulatedCloud>(kProject, kCluster, kZone, timers, sink, random, o);
    cloud->AddObserver(&observer);
  }
  FakeTimerService timers;
  RecordingSink sink;
  Random random;
  RecordingObserver observer;
  std::unique_ptr<EmulatedCloud> cloud;
};

std::string Describe(const EmulatedCloud& cloud) {
  std::string out;
  for (const NodePoolInfo& p : cloud.ListNodePools()) {
    out += "pool " + p.spec.name + " " + std::string(NodePoolStatusName(p.status)) + " target " +
           std::to_string(p.target_size) + " autoscaling " +
           std::to_string(p.spec.min_nodes) + ".." + std::to_string(p.spec.max_nodes) +
           " taints " + std::to_string(p.spec.taints.size()) + " groups";
    for (const std::string& g : p.instance_groups) out += " " + g;
    out += "\n";
  }
  for (const InstanceInfo& i : cloud.ListInstances()) {
    out += "vm " + i.name + " " + i.node_pool + " " + std::string(VmStatusName(i.status)) +
           (i.registered ? " registered" : "") + (i.ready ? " ready" : "") +
           (i.gpu_ready ? " gpu" : "") + (i.error ? " error=" + i.error->error_code : "") + "\n";
  }
  return out;
}

TEST(EmulatedCloudJournalTest, WithoutAJournalNothingIsRestored) {
  SimulatedClock clock;
  FakeTimerService timers(clock);
  RecordingSink sink(clock);
  Random random(1);
  EmulatedCloud cloud(kProject, kCluster, kZone, timers, sink, random);
  StatusOr<bool> restored = cloud.Restore();
  ASSERT_TRUE(restored.ok());
  EXPECT_FALSE(*restored);
}

TEST(EmulatedCloudJournalTest, ARestartDuringAScaleUpResumesTheSameVmOnce) {
  SimulatedClock clock;
  MemoryJournal journal;
  std::string before;
  std::string vm_name;
  {
    CloudRun first(clock, journal);
    ASSERT_TRUE(first.cloud->CreateNodePool(GpuPool()).ok());
    ASSERT_TRUE(first.cloud->CreateNodePool(CpuPool()).ok());
    ASSERT_TRUE(first.cloud->IncreaseSize("cpu-pool", 1).ok());
    first.timers.RunFor(10min);  // the CPU node is Ready
    ASSERT_TRUE(first.cloud->IncreaseSize("gpu-pool", 1).ok());
    first.timers.RunFor(10s);  // the GPU VM is provisioning (35 s)
    before = Describe(*first.cloud);
    for (const InstanceInfo& i : first.cloud->ListInstances()) {
      if (i.node_pool == "gpu-pool") vm_name = i.name;
    }
    ASSERT_FALSE(vm_name.empty());
    // The process dies here: its timers and memory are gone, the journal stays.
  }
  clock.AdvanceTo(clock.Now() + 5s);
  CloudRun second(clock, journal, /*seed=*/99);
  StatusOr<bool> restored = second.cloud->Restore();
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  ASSERT_TRUE(*restored);
  EXPECT_EQ(Describe(*second.cloud), before);
  // The registered CPU node is published again, as it was; nothing else yet, and no event.
  ASSERT_EQ(second.sink.upserts.size(), 1u);
  EXPECT_NE(second.sink.upserts[0].second.Name().find("cpu-pool"), std::string::npos);
  EXPECT_EQ(ReadyOf(second.sink.upserts[0].second).status, api::ConditionStatus::kTrue);
  EXPECT_TRUE(second.observer.events.empty());
  // The GPU VM boots when it was due (35 s after its request) and registers once.
  second.timers.RunFor(19s);
  EXPECT_EQ(second.sink.nodes.count(vm_name), 0u);
  second.timers.RunFor(2s);
  EXPECT_EQ(second.cloud->ListInstances().back().name, vm_name);  // gke-..-gpu-pool sorts last
  EXPECT_EQ(second.cloud->ListInstances().back().status, VmStatus::kRunning);
  second.timers.RunFor(10min);
  EXPECT_EQ(second.sink.nodes.count(vm_name), 1u);
  EXPECT_EQ(second.cloud->TargetSize("gpu-pool").value(), 1);
  EXPECT_EQ(second.cloud->ListInstances().size(), 2u);
  // A new instance after the restart gets a name of its own and the next creation order.
  ASSERT_TRUE(second.cloud->IncreaseSize("gpu-pool", 1).ok());
  EXPECT_EQ(second.cloud->ListInstances().size(), 3u);
}

TEST(EmulatedCloudJournalTest, DeletionsAndPoolsBeingDeletedSurvive) {
  SimulatedClock clock;
  MemoryJournal journal;
  {
    CloudRun first(clock, journal);
    NodePoolSpec cpu = CpuPool();
    cpu.initial_node_count = 2;
    ASSERT_TRUE(first.cloud->CreateNodePool(cpu).ok());
    first.timers.RunFor(10min);
    ASSERT_TRUE(first.cloud->DeleteNodePool("cpu-pool").ok());  // STOPPING, 30 s to go
    first.timers.RunFor(5s);
  }
  EXPECT_EQ(journal.records["instances"].size(), 2u);
  CloudRun second(clock, journal);
  ASSERT_TRUE(second.cloud->Restore().value());
  ASSERT_EQ(second.cloud->ListNodePools().size(), 1u);
  EXPECT_EQ(second.cloud->ListNodePools()[0].status, NodePoolStatus::kStopping);
  second.timers.RunFor(1min);
  EXPECT_TRUE(second.cloud->ListNodePools().empty());
  EXPECT_TRUE(second.sink.nodes.empty());
  EXPECT_EQ(second.sink.deletes.size(), 2u);
  EXPECT_TRUE(journal.records["nodepools"].empty());
  EXPECT_TRUE(journal.records["instances"].empty());
}

TEST(EmulatedCloudJournalTest, FailedInstancesAndTheirErrorsSurvive) {
  SimulatedClock clock;
  MemoryJournal journal;
  {
    CloudRun first(clock, journal);
    first.cloud->faults().stockout.push_back(FaultMatch{"gpu-pool"});
    ASSERT_TRUE(first.cloud->CreateNodePool(GpuPool()).ok());
    ASSERT_TRUE(first.cloud->IncreaseSize("gpu-pool", 1).ok());
    first.timers.RunFor(1min);
  }
  CloudRun second(clock, journal);
  ASSERT_TRUE(second.cloud->Restore().value());
  const std::vector<InstanceInfo> vms = second.cloud->ListInstances();
  ASSERT_EQ(vms.size(), 1u);
  EXPECT_EQ(vms[0].status, VmStatus::kFailed);
  ASSERT_TRUE(vms[0].error.has_value());
  EXPECT_EQ(vms[0].error->error_code, "ZONE_RESOURCE_POOL_EXHAUSTED");
  EXPECT_EQ(vms[0].error->error_class, InstanceErrorInfo::Class::kOutOfResources);
}

TEST(EmulatedCloudJournalTest, ARecordThatCannotBeReadIsDataLoss) {
  SimulatedClock clock;
  MemoryJournal journal;
  journal.records["nodepools"]["p"] = R"({"spec": 5})";
  CloudRun run(clock, journal);
  StatusOr<bool> restored = run.cloud->Restore();
  ASSERT_FALSE(restored.ok());
  EXPECT_EQ(restored.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(std::string(restored.status().message()).find("cloud record nodepools/p"),
            std::string::npos)
      << restored.status().ToString();
}

TEST(EmulatedCloudJournalTest, EveryChangeIsWrittenBeforeItsNodeIsPublished) {
  SimulatedClock clock;
  MemoryJournal journal;
  CloudRun run(clock, journal);
  ASSERT_TRUE(run.cloud->CreateNodePool(CpuPool()).ok());
  ASSERT_TRUE(run.cloud->IncreaseSize("cpu-pool", 1).ok());
  // When the sink sees the registration, the journal already says "registered".
  run.timers.RunFor(50s);
  ASSERT_EQ(run.sink.upserts.size(), 1u);
  const std::string name = run.sink.upserts[0].second.Name();
  EXPECT_NE(journal.records["instances"][name].find(R"("registered":true)"), std::string::npos)
      << journal.records["instances"][name];
  // A failed write is logged, not fatal: the cloud goes on.
  journal.fail = true;
  EXPECT_TRUE(run.cloud->IncreaseSize("cpu-pool", 1).ok());
  EXPECT_EQ(run.cloud->TargetSize("cpu-pool").value(), 2);
}

}  // namespace
}  // namespace tidepool::cloud::emulated
