// File: gke_cloud_provider_test.cc
//
// GkeCloudProvider against the very API `tidepool up` serves: an InProcessTransport routes its
// calls to a GkeApi over a real EmulatedCloud on a simulated clock (as gke_api_test.cc), and
// the provider's operation waits advance that clock. A wrapper transport records the calls and
// injects 429/5xx replies.
#include "cloud/gke/live/gke_cloud_provider.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "cloud/gke/emulated_gke_control.h"
#include "common/event_queue.h"

namespace tidepool::cloud::gke::live {
namespace {

namespace emu = cloud::emulated;
using json = nlohmann::json;

// Records every call; answers `fail_status` (with a google.rpc body) to calls whose URL
// contains `fail_match`, `fail_times` times.
class RecordingTransport final : public Transport {
 public:
  explicit RecordingTransport(Transport& next) : next_(next) {}
  StatusOr<HttpReply> Do(const HttpCall& call) override {
    calls.push_back(call);
    if (fail_times > 0 && call.url.find(fail_match) != std::string::npos) {
      --fail_times;
      return HttpReply{fail_status, fail_body};
    }
    return next_.Do(call);
  }
  int Count(std::string_view method, std::string_view url_part) const {
    int n = 0;
    for (const HttpCall& c : calls) {
      if (c.method == method && c.url.find(url_part) != std::string::npos) ++n;
    }
    return n;
  }

  std::vector<HttpCall> calls;
  std::string fail_match;
  int fail_times = 0;
  int fail_status = 0;
  std::string fail_body;

 private:
  Transport& next_;
};

const std::string kP = "/v1/projects/tidepool-local/locations/us-central1-a/clusters/tidepool";
const std::string kPrefix = "gce://tidepool-local/us-central1-a/";

class GkeCloudProviderTest : public ::testing::Test {
 protected:
  GkeCloudProviderTest()
      : random_(7),
        cloud_("tidepool-local", "tidepool", "us-central1-a", queue_, sink_, random_,
               CloudOptions()),
        control_(cloud_, ClusterInfo{}),
        api_(control_, queue_.clock()),
        inproc_(api_),
        transport_(inproc_) {}

  static emu::EmulatedCloudOptions CloudOptions() {
    emu::EmulatedCloudOptions o;
    o.faults.gpu_quota["NVIDIA_V100_GPUS"] = 0;
    o.faults.stockout.push_back(emu::FaultMatch{"", "", "", "nvidia-tesla-p4", 1.0});
    return o;
  }

  GkeProviderOptions ProviderOptions() {
    GkeProviderOptions o;
    o.project = "tidepool-local";
    o.location = "us-central1-a";
    o.cluster = "tidepool";
    o.container_endpoint = "http://127.0.0.1:8080/";
    o.compute_endpoint = "http://127.0.0.1:8080/compute/v1/";
    o.poll_interval = std::chrono::seconds(1);
    o.sleep = [this](Duration d) {
      queue_.RunUntil(queue_.Now() + d);
      return true;
    };
    return o;
  }

  std::unique_ptr<GkeCloudProvider> Provider(GkeProviderOptions o, TokenSource* tokens = nullptr) {
    return std::make_unique<GkeCloudProvider>(std::move(o), transport_, tokens, queue_.clock());
  }
  std::unique_ptr<GkeCloudProvider> Provider() { return Provider(ProviderOptions()); }

  // A pool as gcloud creates it.
  void CreatePool(const std::string& name, const std::string& machine,
                  const std::string& accelerator, int min, int max, bool autoscaling = true,
                  int initial = 0, json extra_config = json::object(),
                  json locations = json()) {
    json config = {{"machineType", machine}};
    if (!accelerator.empty()) {
      config["accelerators"] = {{{"acceleratorCount", "1"}, {"acceleratorType", accelerator}}};
    }
    config.update(extra_config);
    json np = {{"name", name}, {"config", config}, {"initialNodeCount", initial}};
    if (autoscaling) {
      np["autoscaling"] = {{"enabled", true}, {"minNodeCount", min}, {"maxNodeCount", max}};
    }
    if (!locations.is_null()) np["locations"] = locations;
    GkeResponse r = api_.Handle(GkeRequest{"POST", kP + "/nodePools", json{{"nodePool", np}}.dump(), {}});
    ASSERT_EQ(r.status, 200) << r.body;
  }
  void CreateSeedPool() {
    CreatePool("gpu-pool", "n1-standard-4", "nvidia-tesla-t4", 0, 5, true, 0,
               {{"labels", {{"app-type", "gpu-workloads"}}},
                {"taints", {{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NO_SCHEDULE"}}}}});
  }

  void Run(Duration d) { queue_.RunUntil(queue_.Now() + d); }

  static NodeGroup* Group(CloudProvider& p, const std::string& id) {
    for (NodeGroup* g : p.NodeGroups()) {
      if (g->Id() == id) return g;
    }
    return nullptr;
  }

  EventQueue queue_;
  emu::MemoryNodeSink sink_;
  Random random_;
  emu::EmulatedCloud cloud_;
  EmulatedGkeControl control_;
  GkeApi api_;
  InProcessTransport inproc_;
  RecordingTransport transport_;
};

TEST_F(GkeCloudProviderTest, RefreshMakesGroupsOfAutoscaledPools) {
  CreateSeedPool();
  CreatePool("cpu", "e2-standard-4", "", 0, 0, /*autoscaling=*/false, /*initial=*/1);
  CreatePool("zonal", "e2-standard-4", "", 1, 2, true, 0, json::object(),
             {"us-central1-a", "us-central1-b"});
  auto provider = Provider();
  EXPECT_TRUE(provider->NodeGroups().empty()) << "nothing before the first Refresh";
  ASSERT_TRUE(provider->Refresh().ok());
  std::vector<std::string> ids;
  for (NodeGroup* g : provider->NodeGroups()) ids.push_back(g->Id());
  EXPECT_EQ(ids, (std::vector<std::string>{"gpu-pool", "zonal"}));
  NodeGroup* gpu = Group(*provider, "gpu-pool");
  EXPECT_EQ(gpu->MinSize(), 0);
  EXPECT_EQ(gpu->MaxSize(), 5);
  EXPECT_EQ(*gpu->TargetSize(), 0);
  EXPECT_EQ(gpu->Debug(), "gpu-pool (0:5)");
  NodeGroup* zonal = Group(*provider, "zonal");
  EXPECT_EQ(zonal->MinSize(), 2) << "per-zone counts times two zones";
  EXPECT_EQ(zonal->MaxSize(), 4);
  EXPECT_EQ(*zonal->TargetSize(), 2);
  EXPECT_EQ(provider->Name(), "gke");
  EXPECT_EQ(provider->GpuLabel(), "cloud.google.com/gke-accelerator");
  // One list of pools; a get and a listManagedInstances per MIG of autoscaled pools only.
  EXPECT_EQ(transport_.Count("GET", "/nodePools"), 1);
  EXPECT_EQ(transport_.Count("POST", "/listManagedInstances"), 3);
}

// CA's --nodes: the node groups are exactly the pools named, with the limits given, whether or
// not GKE's autoscaling is on for them - how tidepool replaces GKE's autoscaler.
TEST_F(GkeCloudProviderTest, ExplicitNodeGroupsAreExactlyThePoolsNamed) {
  CreateSeedPool();  // GKE autoscaling on, 0:5
  CreatePool("manual", "n1-standard-4", "nvidia-tesla-t4", 0, 0, /*autoscaling=*/false);
  CreatePool("zonal", "e2-standard-4", "", 1, 2, true, 0, json::object(),
             {"us-central1-a", "us-central1-b"});
  GkeResponse got = api_.Handle(GkeRequest{"GET", kP + "/nodePools/zonal", "", {}});
  ASSERT_EQ(got.status, 200) << got.body;
  // CA's GCE form of an instance group URL.
  std::string zonal_mig = json::parse(got.body)["instanceGroupUrls"][0].get<std::string>();
  zonal_mig.replace(zonal_mig.find("instanceGroupManagers"), 21, "instanceGroups");

  log::Logger logger("cluster-autoscaler", queue_.clock(), false);
  std::vector<std::string> logged;
  logger.AddSink([&](std::string_view l) { logged.emplace_back(l); });
  GkeProviderOptions o = ProviderOptions();
  o.logger = &logger;
  for (const std::string& flag : {std::string("0:3:manual"), "1:4:" + zonal_mig, std::string("0:2:missing")}) {
    o.node_groups.push_back(*ParseNodeGroupSpec(flag));
  }
  auto provider = Provider(o);
  ASSERT_TRUE(provider->Refresh().ok());
  std::vector<std::string> ids;
  for (NodeGroup* g : provider->NodeGroups()) ids.push_back(g->Id());
  EXPECT_EQ(ids, (std::vector<std::string>{"manual"})) << "gpu-pool is not named; zonal has two MIGs";
  NodeGroup* manual = Group(*provider, "manual");
  EXPECT_EQ(manual->MinSize(), 0);
  EXPECT_EQ(manual->MaxSize(), 3);
  EXPECT_EQ(manual->Debug(), "manual (0:3)");
  auto has = [&](const std::string& text) {
    for (const auto& l : logged) {
      if (l.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("--nodes=1:4:" + zonal_mig + " names one instance group of node pool zonal, "
                  "which has 2 (one per zone); tidepool autoscales whole node pools: name the "
                  "pool instead (1:4:zonal, sizes in total over its zones)"));
  EXPECT_TRUE(has("--nodes=0:2:missing: no node pool or instance group missing in cluster "
                  "tidepool; it is not autoscaled"));
  const size_t warnings = logged.size();
  ASSERT_TRUE(provider->Refresh().ok());
  EXPECT_EQ(logged.size(), warnings) << "each warning once";

  // The pool GKE does not autoscale grows and shrinks within the given limits.
  ASSERT_TRUE(manual->IncreaseSize(2).ok());
  EXPECT_EQ(*manual->TargetSize(), 2);
  Status s = manual->IncreaseSize(2);
  EXPECT_EQ(s.message(), "size increase too large - desired:4 max:3");
  ASSERT_TRUE(provider->Refresh().ok());
  Run(std::chrono::minutes(5));
  ASSERT_TRUE(provider->Refresh().ok());
  int manual_nodes = 0;
  for (const auto& [name, node] : sink_.nodes) {
    const bool in_manual = node.meta.labels.at("cloud.google.com/gke-nodepool") == "manual";
    manual_nodes += in_manual;
    EXPECT_EQ(provider->NodeGroupForNode(node), in_manual ? manual : nullptr) << name;
  }
  EXPECT_EQ(manual_nodes, 2);
}

TEST_F(GkeCloudProviderTest, ExplicitGroupByTheMigOfASingleZonePoolWarnsOfGkeAutoscaling) {
  CreateSeedPool();
  GkeResponse got = api_.Handle(GkeRequest{"GET", kP + "/nodePools/gpu-pool", "", {}});
  ASSERT_EQ(got.status, 200) << got.body;
  const std::string mig = json::parse(got.body)["instanceGroupUrls"][0].get<std::string>();
  log::Logger logger("cluster-autoscaler", queue_.clock(), false);
  std::vector<std::string> logged;
  logger.AddSink([&](std::string_view l) { logged.emplace_back(l); });
  GkeProviderOptions o = ProviderOptions();
  o.logger = &logger;
  o.node_groups.push_back(*ParseNodeGroupSpec("1:2:" + mig));
  auto provider = Provider(o);
  ASSERT_TRUE(provider->Refresh().ok());
  NodeGroup* g = Group(*provider, "gpu-pool");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->MinSize(), 1) << "the flag's limits, not GKE's 0:5";
  EXPECT_EQ(g->MaxSize(), 2);
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_NE(logged[0].find("Node pool gpu-pool has GKE cluster autoscaling enabled: GKE's own "
                           "autoscaler resizes it too. Turn it off (gcloud container node-pools "
                           "update gpu-pool --no-enable-autoscaling) for tidepool alone to manage "
                           "the pool"),
            std::string::npos)
      << logged[0];
}

TEST_F(GkeCloudProviderTest, ScaleUpSetsTheSizeAndAwaitsTheOperation) {
  CreateSeedPool();
  GkeProviderOptions o = ProviderOptions();
  o.container_operation_timeout = std::chrono::minutes(10);
  auto provider = Provider(o);
  ASSERT_TRUE(provider->Refresh().ok());
  NodeGroup* g = Group(*provider, "gpu-pool");
  ASSERT_NE(g, nullptr);
  const TimePoint before = queue_.Now();
  Status s = g->IncreaseSize(1);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(transport_.Count("POST", "/nodePools/gpu-pool:setSize"), 1);
  ASSERT_EQ(transport_.calls[transport_.calls.size() - 1].method, "GET");
  EXPECT_GT(transport_.Count("GET", "/locations/us-central1-a/operations/operation-"), 0);
  EXPECT_GE(queue_.Now() - before, std::chrono::seconds(60)) << "waited until the pool settled";
  EXPECT_EQ(*g->TargetSize(), 1);
  ASSERT_TRUE(provider->Refresh().ok());
  auto nodes = g->Nodes();
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].state, InstanceState::kRunning);
  EXPECT_EQ((*nodes)[0].id.rfind(kPrefix + "gke-tidepool-gpu-pool-", 0), 0u) << (*nodes)[0].id;
  EXPECT_FALSE((*nodes)[0].error.has_value());
  EXPECT_EQ((*nodes)[0].id, cloud_.ListInstances()[0].provider_id);
}

TEST_F(GkeCloudProviderTest, ScaleUpReturnsWhileTheOperationRunsAndShowsCreatingInstances) {
  CreateSeedPool();
  GkeProviderOptions o = ProviderOptions();
  o.container_operation_timeout = std::chrono::seconds(5);
  auto provider = Provider(o);
  ASSERT_TRUE(provider->Refresh().ok());
  NodeGroup* g = Group(*provider, "gpu-pool");
  ASSERT_TRUE(g->IncreaseSize(2).ok());
  EXPECT_EQ(*g->TargetSize(), 2);
  ASSERT_TRUE(provider->Refresh().ok());
  EXPECT_EQ(*g->TargetSize(), 2);
  auto nodes = g->Nodes();
  ASSERT_EQ(nodes->size(), 2u);
  for (const Instance& i : *nodes) {
    EXPECT_EQ(i.state, InstanceState::kCreating);
    EXPECT_FALSE(i.error.has_value());
  }
}

TEST_F(GkeCloudProviderTest, SizeLimitsAreRefusedWithClusterAutoscalersTexts) {
  CreatePool("cpu", "e2-standard-4", "", 1, 3);  // starts at its min
  auto provider = Provider();
  Run(std::chrono::minutes(5));
  ASSERT_TRUE(provider->Refresh().ok());
  NodeGroup* g = Group(*provider, "cpu");
  ASSERT_EQ(*g->TargetSize(), 1);
  const std::string node = cloud_.ListInstances()[0].name;
  struct Case {
    std::string name;
    std::function<Status()> call;
    StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"above max", [&] { return g->IncreaseSize(3); }, StatusCode::kInvalidArgument,
       "size increase too large - desired:4 max:3"},
      {"non-positive increase", [&] { return g->IncreaseSize(0); }, StatusCode::kInvalidArgument,
       "size increase must be positive"},
      {"below min", [&] { return g->DeleteNodes({node}); }, StatusCode::kFailedPrecondition,
       "min size reached, nodes will not be deleted"},
      {"decrease below the existing instances", [&] { return g->DecreaseTargetSize(-1); },
       StatusCode::kFailedPrecondition,
       "attempt to delete existing nodes targetSize:1 delta:-1 existingNodes: 1"},
      {"non-negative decrease", [&] { return g->DecreaseTargetSize(0); },
       StatusCode::kInvalidArgument, "size decrease must be negative"},
      {"unknown node", [&] { return g->DeleteNodes({"gke-nope"}); }, StatusCode::kNotFound,
       "node gke-nope is not an instance of node pool cpu"},
  };
  const size_t calls = transport_.calls.size();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Status s = c.call();
    EXPECT_EQ(s.code(), c.code) << s.ToString();
    EXPECT_EQ(s.message(), c.message);
  }
  EXPECT_EQ(transport_.calls.size(), calls) << "refusals ask nothing of the cloud";
  EXPECT_EQ(*g->TargetSize(), 1);
}

TEST_F(GkeCloudProviderTest, DeleteNodesDeletesThoseInstancesThroughTheirMig) {
  CreatePool("cpu", "e2-standard-4", "", 0, 5);
  ASSERT_TRUE(cloud_.SetSize("cpu", 3).ok());
  Run(std::chrono::minutes(5));
  auto provider = Provider();
  ASSERT_TRUE(provider->Refresh().ok());
  NodeGroup* g = Group(*provider, "cpu");
  const std::vector<emu::InstanceInfo> vms = cloud_.ListInstances();
  ASSERT_EQ(vms.size(), 3u);
  // By node name and by provider id.
  Status s = g->DeleteNodes({vms[0].name, vms[2].provider_id});
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(transport_.Count("POST", "/deleteInstances"), 1);
  const HttpCall& del = [&]() -> const HttpCall& {
    for (const HttpCall& c : transport_.calls) {
      if (c.url.find("/deleteInstances") != std::string::npos) return c;
    }
    return transport_.calls.front();
  }();
  json body = json::parse(del.body);
  ASSERT_EQ(body["instances"].size(), 2u);
  EXPECT_NE(body["instances"][0].get<std::string>().find("/zones/us-central1-a/instances/" + vms[0].name),
            std::string::npos);
  EXPECT_EQ(*g->TargetSize(), 1);
  ASSERT_TRUE(provider->Refresh().ok());
  EXPECT_EQ(*g->TargetSize(), 1);
  int deleting = 0;
  const auto instances = g->Nodes();
  ASSERT_TRUE(instances.ok());
  for (const Instance& i : *instances) deleting += i.state == InstanceState::kDeleting ? 1 : 0;
  EXPECT_EQ(deleting, 2);
  Run(std::chrono::minutes(2));
  EXPECT_EQ(cloud_.ListInstances().size(), 1u);
  EXPECT_EQ(cloud_.ListInstances()[0].name, vms[1].name);
  // Deleting again what is already going is a no-op.
  EXPECT_TRUE(g->DeleteNodes({vms[1].name}).ok());
}

TEST_F(GkeCloudProviderTest, StockoutSurfacesAsOutOfResourcesInstances) {
  CreatePool("p4", "n1-standard-4", "nvidia-tesla-p4", 0, 3);
  GkeProviderOptions o = ProviderOptions();
  o.container_operation_timeout = std::chrono::seconds(5);
  auto provider = Provider(o);
  ASSERT_TRUE(provider->Refresh().ok());
  NodeGroup* g = Group(*provider, "p4");
  ASSERT_TRUE(g->IncreaseSize(1).ok()) << "the stockout is not known yet";
  Run(std::chrono::minutes(1));
  ASSERT_TRUE(provider->Refresh().ok());
  auto nodes = g->Nodes();
  ASSERT_EQ(nodes->size(), 1u);
  const Instance& i = (*nodes)[0];
  EXPECT_EQ(i.state, InstanceState::kCreating);
  ASSERT_TRUE(i.error.has_value());
  EXPECT_EQ(i.error->error_class, InstanceErrorInfo::Class::kOutOfResources);
  EXPECT_EQ(i.error->error_code, "RESOURCE_POOL_EXHAUSTED") << "cluster-autoscaler's code";
  EXPECT_NE(i.error->error_message.find("does not have enough resources"), std::string::npos)
      << i.error->error_message;
  // The engine deletes failed instances by id; always allowed.
  Status s = g->DeleteNodes({i.id});
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(*g->TargetSize(), 0);
  EXPECT_TRUE(cloud_.ListInstances().empty());
}

TEST_F(GkeCloudProviderTest, OperationErrorsAreReturned) {
  CreatePool("p4", "n1-standard-4", "nvidia-tesla-p4", 0, 3);
  CreatePool("v100", "n1-standard-8", "nvidia-tesla-v100", 0, 3);
  GkeProviderOptions o = ProviderOptions();
  o.container_operation_timeout = std::chrono::minutes(5);
  auto provider = Provider(o);
  ASSERT_TRUE(provider->Refresh().ok());
  struct Case {
    std::string name;
    std::string pool;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {"stockout ends the resize operation in error", "p4", "ZONE_RESOURCE_POOL_EXHAUSTED"},
      {"GPU quota refuses the resize", "v100", "Quota 'NVIDIA_V100_GPUS' exceeded"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Status s = Group(*provider, c.pool)->IncreaseSize(1);
    EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
    EXPECT_NE(s.message().find(c.message_part), std::string_view::npos) << s.ToString();
  }
}

TEST_F(GkeCloudProviderTest, DecreaseTargetSizeGivesUpCapacityNotYetListed) {
  CreatePool("cpu", "e2-standard-4", "", 0, 5);
  GkeProviderOptions o = ProviderOptions();
  o.container_operation_timeout = std::chrono::seconds(1);
  auto provider = Provider(o);
  ASSERT_TRUE(provider->Refresh().ok());
  NodeGroup* g = Group(*provider, "cpu");
  ASSERT_TRUE(g->IncreaseSize(2).ok());
  // The cache has the new target but not yet the instances: CA's check lets this through.
  Status s = g->DecreaseTargetSize(-2);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(transport_.Count("POST", "/resize?size=0"), 1);
  EXPECT_EQ(*g->TargetSize(), 0);
  ASSERT_TRUE(provider->Refresh().ok());
  EXPECT_EQ(*g->TargetSize(), 0);
}

TEST_F(GkeCloudProviderTest, MultiZonePoolsResizeTheirMigsOneByOne) {
  CreatePool("zonal", "e2-standard-4", "", 0, 2, true, 0, json::object(),
             {"us-central1-a", "us-central1-b"});
  auto provider = Provider();
  ASSERT_TRUE(provider->Refresh().ok());
  NodeGroup* g = Group(*provider, "zonal");
  ASSERT_TRUE(g->IncreaseSize(2).ok());
  EXPECT_EQ(transport_.Count("POST", "/resize?size=1"), 2);
  EXPECT_EQ(transport_.Count("POST", ":setSize"), 0);
  ASSERT_TRUE(provider->Refresh().ok());
  EXPECT_EQ(*g->TargetSize(), 2);
  std::map<std::string, int> per_zone;
  for (const emu::InstanceInfo& i : cloud_.ListInstances()) ++per_zone[i.zone];
  EXPECT_EQ(per_zone, (std::map<std::string, int>{{"us-central1-a", 1}, {"us-central1-b", 1}}));
}

// The live template of a pool is the emulated cloud's template of the same pool: labels, taints,
// capacity and allocatable; with the provider's catalog or with the shape from compute.
TEST_F(GkeCloudProviderTest, TemplateNodeMatchesTheEmulatedCloudsTemplate) {
  CreateSeedPool();
  CreatePool("l4", "g2-standard-8", "", 0, 2);
  CreatePool("cpu-spot", "e2-standard-4", "", 0, 2, true, 0,
             {{"spot", true}, {"diskSizeGb", "200"},
              {"taints", {{{"key", "a"}, {"value", "b"}, {"effect", "PREFER_NO_SCHEDULE"}}}}});
  emu::Catalog accelerators_only;
  const emu::Catalog gke = emu::Catalog::Gke();
  for (const std::string& a : gke.AcceleratorTypeNames()) {
    accelerators_only.AddAcceleratorType(*gke.FindAcceleratorType(a));
  }
  for (bool from_compute : {false, true}) {
    GkeProviderOptions o = ProviderOptions();
    if (from_compute) o.catalog = accelerators_only;
    auto provider = Provider(o);
    ASSERT_TRUE(provider->Refresh().ok());
    for (const std::string pool : {"gpu-pool", "l4", "cpu-spot"}) {
      SCOPED_TRACE(pool + (from_compute ? " (machine type from compute)" : ""));
      auto live = Group(*provider, pool)->TemplateNode();
      ASSERT_TRUE(live.ok()) << live.status().ToString();
      auto want = cloud_.TemplateNode(pool);
      ASSERT_TRUE(want.ok());
      EXPECT_EQ(live->meta.name, want->meta.name);
      EXPECT_EQ(live->meta.labels, want->meta.labels);
      EXPECT_EQ(live->spec.taints, want->spec.taints);
      EXPECT_EQ(live->status.capacity, want->status.capacity);
      EXPECT_EQ(live->status.allocatable, want->status.allocatable);
      ASSERT_EQ(live->status.conditions.size(), want->status.conditions.size());
      for (size_t i = 0; i < live->status.conditions.size(); ++i) {
        EXPECT_EQ(live->status.conditions[i].type, want->status.conditions[i].type);
        EXPECT_EQ(live->status.conditions[i].status, want->status.conditions[i].status);
      }
    }
    EXPECT_EQ(transport_.Count("GET", "/machineTypes/") > 0, from_compute);
  }
}

TEST_F(GkeCloudProviderTest, TemplateOfTheSeedGpuPoolAtZeroNodes) {
  CreateSeedPool();
  auto provider = Provider();
  ASSERT_TRUE(provider->Refresh().ok());
  auto node = Group(*provider, "gpu-pool")->TemplateNode();
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(api::Get(node->status.capacity, api::kResourceNvidiaGpu).Value(), 1);
  EXPECT_EQ(api::Get(node->status.allocatable, api::kResourceNvidiaGpu).Value(), 1);
  EXPECT_EQ(api::Get(node->status.capacity, "cpu").Value(), 4);
  const api::Labels& l = node->meta.labels;
  EXPECT_EQ(l.at("cloud.google.com/gke-accelerator"), "nvidia-tesla-t4");
  EXPECT_EQ(l.at("cloud.google.com/gke-nodepool"), "gpu-pool");
  EXPECT_EQ(l.at("nvidia.com/gpu.present"), "true");
  EXPECT_EQ(l.at("app-type"), "gpu-workloads");
  EXPECT_EQ(l.at("node.kubernetes.io/instance-type"), "n1-standard-4");
  EXPECT_EQ(l.at("topology.kubernetes.io/zone"), "us-central1-a");
  EXPECT_EQ(l.at("topology.kubernetes.io/region"), "us-central1");
  EXPECT_EQ(l.at("kubernetes.io/os"), "linux");
  ASSERT_EQ(node->spec.taints.size(), 1u);
  EXPECT_EQ(node->spec.taints[0].key, "nvidia.com/gpu");
  EXPECT_EQ(node->spec.taints[0].value, "present");
  EXPECT_EQ(node->spec.taints[0].effect, api::TaintEffect::kNoSchedule);
  auto gpu = provider->GetNodeGpuConfig(*node);
  ASSERT_TRUE(gpu.has_value());
  EXPECT_EQ(gpu->type, "nvidia-tesla-t4");
  EXPECT_EQ(gpu->resource_name, "nvidia.com/gpu");
}

TEST_F(GkeCloudProviderTest, NodeGroupForNode) {
  CreateSeedPool();
  CreatePool("cpu", "e2-standard-4", "", 0, 0, /*autoscaling=*/false, /*initial=*/1);
  ASSERT_TRUE(cloud_.SetSize("gpu-pool", 1).ok());
  Run(std::chrono::minutes(5));
  auto provider = Provider();
  ASSERT_TRUE(provider->Refresh().ok());
  ASSERT_EQ(sink_.nodes.size(), 2u);
  for (const auto& [name, node] : sink_.nodes) {
    SCOPED_TRACE(name);
    NodeGroup* g = provider->NodeGroupForNode(node);
    if (node.meta.labels.at("cloud.google.com/gke-nodepool") == "gpu-pool") {
      ASSERT_NE(g, nullptr);
      EXPECT_EQ(g->Id(), "gpu-pool");
      // By providerID alone.
      api::Node bare;
      bare.spec.provider_id = node.spec.provider_id;
      EXPECT_EQ(provider->NodeGroupForNode(bare), g);
      EXPECT_EQ(provider->GetNodeGpuConfig(node)->type, "nvidia-tesla-t4");
    } else {
      EXPECT_EQ(g, nullptr) << "not autoscaled";
      EXPECT_FALSE(provider->GetNodeGpuConfig(node).has_value());
    }
  }
  api::Node by_label;
  by_label.meta.labels["cloud.google.com/gke-nodepool"] = "gpu-pool";
  ASSERT_NE(provider->NodeGroupForNode(by_label), nullptr);
  EXPECT_EQ(provider->NodeGroupForNode(api::Node{}), nullptr);
}

TEST_F(GkeCloudProviderTest, CloudErrorsBecomeStatusesWithTheCloudsText) {
  CreateSeedPool();
  struct Case {
    std::string name;
    std::string match;
    int status;
    std::string body;
    StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"429 on the pool list", "/nodePools", 429,
       R"({"error":{"code":429,"message":"Quota exceeded for quota metric 'Requests'","status":"RESOURCE_EXHAUSTED"}})",
       StatusCode::kResourceExhausted,
       "googleapi: Error 429: Quota exceeded for quota metric 'Requests'"},
      {"500 on a MIG", "/instanceGroupManagers/", 500,
       R"({"error":{"code":500,"message":"Internal error. Please try again.","errors":[{"message":"Internal error. Please try again.","domain":"global","reason":"backendError"}]}})",
       StatusCode::kUnavailable,
       "googleapi: Error 500: Internal error. Please try again., backendError"},
      {"503 without JSON", "/listManagedInstances", 503, "upstream connect error",
       StatusCode::kUnavailable,
       "googleapi: got HTTP response code 503 with body: upstream connect error"},
      {"403 permission", "/nodePools", 403,
       R"({"error":{"code":403,"message":"Required 'container.nodePools.list' permission","status":"PERMISSION_DENIED"}})",
       StatusCode::kPermissionDenied,
       "googleapi: Error 403: Required 'container.nodePools.list' permission"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto provider = Provider();
    transport_.fail_match = c.match;
    transport_.fail_times = 1;
    transport_.fail_status = c.status;
    transport_.fail_body = c.body;
    Status s = provider->Refresh();
    EXPECT_EQ(s.code(), c.code) << s.ToString();
    EXPECT_EQ(s.message(), c.message);
    EXPECT_TRUE(provider->NodeGroups().empty());
    // The next loop works again.
    EXPECT_TRUE(provider->Refresh().ok());
    EXPECT_EQ(provider->NodeGroups().size(), 1u);
  }
}

TEST_F(GkeCloudProviderTest, FailedPollsAreRetriedAndScaleUpErrorsReturned) {
  CreateSeedPool();
  GkeProviderOptions o = ProviderOptions();
  o.container_operation_timeout = std::chrono::minutes(10);
  auto provider = Provider(o);
  ASSERT_TRUE(provider->Refresh().ok());
  NodeGroup* g = Group(*provider, "gpu-pool");
  // A 503 on the first operation poll is logged and polling goes on.
  transport_.fail_match = "/operations/";
  transport_.fail_times = 1;
  transport_.fail_status = 503;
  transport_.fail_body = "{}";
  ASSERT_TRUE(g->IncreaseSize(1).ok());
  // A 429 on setSize itself fails the scale-up with ResourceExhausted.
  transport_.fail_match = ":setSize";
  transport_.fail_times = 1;
  transport_.fail_status = 429;
  transport_.fail_body = R"({"error":{"code":429,"message":"Too many requests","status":"RESOURCE_EXHAUSTED"}})";
  Status s = g->IncreaseSize(1);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
  EXPECT_EQ(*g->TargetSize(), 1);
}

TEST_F(GkeCloudProviderTest, CallsCarryTheBearerToken) {
  CreateSeedPool();
  StaticTokenSource tokens("ya29.test-token");
  auto provider = Provider(ProviderOptions(), &tokens);
  ASSERT_TRUE(provider->Refresh().ok());
  ASSERT_FALSE(transport_.calls.empty());
  for (const HttpCall& c : transport_.calls) {
    bool found = false;
    for (const auto& [k, v] : c.headers) {
      if (k == "Authorization" && v == "Bearer ya29.test-token") found = true;
    }
    EXPECT_TRUE(found) << c.url;
  }
}

TEST_F(GkeCloudProviderTest, StopCutsAWaitShort) {
  CreateSeedPool();
  GkeProviderOptions o = ProviderOptions();
  o.sleep = nullptr;  // the condition-variable wait
  o.container_operation_timeout = std::chrono::hours(1);
  o.poll_interval = std::chrono::hours(1);
  auto provider = Provider(o);
  ASSERT_TRUE(provider->Refresh().ok());
  provider->Stop();
  EXPECT_TRUE(Group(*provider, "gpu-pool")->IncreaseSize(1).ok());
}

}  // namespace
}  // namespace tidepool::cloud::gke::live
