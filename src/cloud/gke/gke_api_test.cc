// File: gke_api_test.cc
//
// Tests for GkeApi over a real EmulatedCloud on a simulated clock (EventQueue): a table of
// request -> (status, JSON fragments) cases in the order gcloud sends them, then the operation
// lifecycle (RUNNING while the pool settles, DONE after; stockout and quota failures), and the
// journal (GkeApiOptions::journal) read back by a new GkeApi (a restart of up --data-dir).
#include "cloud/gke/gke_api.h"

#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "cloud/gke/emulated_gke_control.h"
#include "cloud/gke/request_schema.h"
#include "common/event_queue.h"

namespace tidepool::cloud::gke {
namespace {

namespace emu = cloud::emulated;
using json = nlohmann::json;

// EmulatedGkeControl with a cluster endpoint and CA, internal IPs, and label / taint updates
// refused (to test the 501).
class CloudControl final : public EmulatedGkeControl {
 public:
  explicit CloudControl(emu::EmulatedCloud& cloud) : EmulatedGkeControl(cloud, Info()) {}
  static ClusterInfo Info() {
    ClusterInfo c;
    c.endpoint = "127.0.0.1:6443";
    c.ca_pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    return c;
  }
  Status SetLabels(const std::string&, const api::Labels&) override {
    return UnimplementedError("node pool label updates are not supported");
  }
  Status SetTaints(const std::string&, const std::vector<api::Taint>&) override {
    return UnimplementedError("node pool taint updates are not supported");
  }
  std::vector<VmInfo> ListVms() override {
    std::vector<VmInfo> out = EmulatedGkeControl::ListVms();
    for (VmInfo& v : out) v.internal_ip = "10.128.0.9";
    return out;
  }
};

class GkeApiTest : public ::testing::Test {
 protected:
  GkeApiTest()
      : random_(7),
        cloud_("tidepool-local", "tidepool", "us-central1-a", queue_, sink_, random_, Options()),
        control_(cloud_),
        api_(control_, queue_.clock()) {}

  static emu::EmulatedCloudOptions Options() {
    emu::EmulatedCloudOptions o;
    o.faults.gpu_quota["NVIDIA_V100_GPUS"] = 0;
    o.faults.stockout.push_back(emu::FaultMatch{"", "", "", "nvidia-tesla-p4", 1.0});
    return o;
  }

  GkeResponse Do(const std::string& method, const std::string& path, const std::string& body = "") {
    return api_.Handle(GkeRequest{method, path, body});
  }
  json DoJson(const std::string& method, const std::string& path, const std::string& body = "") {
    GkeResponse r = Do(method, path, body);
    EXPECT_EQ(r.status, 200) << method << " " << path << ": " << r.body;
    return json::parse(r.body);
  }

  EventQueue queue_;
  emu::MemoryNodeSink sink_;
  Random random_;
  emu::EmulatedCloud cloud_;
  CloudControl control_;
  GkeApi api_;
};

const std::string kP = "/v1/projects/tidepool-local/locations/us-central1-a/clusters/tidepool";

// The seed's step-1 body, exactly as gcloud 528 sends it.
const char kSeedCreate[] = R"({"nodePool": {"autoscaling": {"enabled": true, "maxNodeCount": 5, "minNodeCount": 0},
 "config": {"accelerators": [{"acceleratorCount": "1", "acceleratorType": "nvidia-tesla-t4"}],
  "labels": {"app-type": "gpu-workloads"}, "machineType": "n1-standard-4",
  "oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only"],
  "taints": [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}]},
 "initialNodeCount": 3, "management": {"autoRepair": true, "autoUpgrade": true},
 "name": "gpu-pool", "upgradeSettings": {"maxSurge": 1}},
 "parent": "projects/tidepool-local/locations/us-central1-a/clusters/tidepool"})";

struct Case {
  std::string name;
  std::string method;
  std::string path;
  std::string body;
  int status;
  std::vector<std::string> contains;  // substrings of the response body
};

TEST_F(GkeApiTest, TableOfRequests) {
  const std::vector<Case> cases = {
      {"serviceusage", "GET", "/v1/projects/tidepool-local/services/container.googleapis.com", "",
       200, {R"("state":"ENABLED")"}},
      {"zone lookup", "GET", "/compute/v1/projects/tidepool-local/zones/us-central1-a", "", 200,
       {R"("name":"us-central1-a")", R"("status":"UP")"}},
      {"unknown zone", "GET", "/compute/v1/projects/tidepool-local/zones/mars-north1-a", "", 404,
       {R"("reason":"notFound")", "mars-north1-a"}},
      {"clusters list (all locations)", "GET", "/v1/projects/tidepool-local/locations/-/clusters",
       "", 200, {R"("name":"tidepool")", R"("status":"RUNNING")", R"("endpoint":"127.0.0.1:6443")"}},
      {"cluster get", "GET", kP, "", 200,
       {R"("zone":"us-central1-a")", R"("clusterCaCertificate":"LS0tLS1CRUdJTi)"}},
      {"cluster get, other name", "GET",
       "/v1/projects/tidepool-local/locations/us-central1-a/clusters/nope", "", 404,
       {R"("status":"NOT_FOUND")",
        "Not found: projects/tidepool-local/locations/us-central1-a/clusters/nope."}},
      {"node pools: none yet", "GET", kP + "/nodePools", "", 200, {R"({"nodePools":[]})"}},
      {"create gpu-pool (seed step 1)", "POST", kP + "/nodePools", kSeedCreate, 200,
       {R"("operationType":"CREATE_NODE_POOL")", R"("status":"DONE")"}},
      {"create again: already exists", "POST", kP + "/nodePools", kSeedCreate, 409,
       {R"("status":"ALREADY_EXISTS")",
        "Already exists: projects/tidepool-local/locations/us-central1-a/clusters/tidepool/"
        "nodePools/gpu-pool."}},
      {"get gpu-pool (v1beta1, zones form)", "GET",
       "/v1beta1/projects/tidepool-local/zones/us-central1-a/clusters/tidepool/nodePools/gpu-pool",
       "", 200,
       {R"("autoscaling":{"enabled":true,"locationPolicy":"BALANCED","maxNodeCount":5,"minNodeCount":0})",
        R"("taints":[{"effect":"NO_SCHEDULE","key":"nvidia.com/gpu","value":"present"}])",
        R"("labels":{"app-type":"gpu-workloads"})",
        R"("accelerators":[{"acceleratorCount":"1","acceleratorType":"nvidia-tesla-t4"}])",
        R"("initialNodeCount":0)", R"("status":"RUNNING")"}},
      {"cluster get lists the pool (resize needs it)", "GET", kP, "", 200,
       {R"("name":"gpu-pool")"}},
      {"update autoscaling min > max", "PUT", kP,
       R"({"name":"x","update":{"desiredNodePoolAutoscaling":{"enabled":true,"maxNodeCount":1,"minNodeCount":3},"desiredNodePoolId":"gpu-pool"}})",
       400, {R"("status":"INVALID_ARGUMENT")", "min_node_count (3)"}},
      {"update autoscaling 0..10", "PUT", kP,
       R"({"name":"x","update":{"desiredNodePoolAutoscaling":{"enabled":true,"maxNodeCount":10,"minNodeCount":0},"desiredNodePoolId":"gpu-pool"}})",
       200, {R"("operationType":"UPDATE_CLUSTER")", R"("status":"DONE")"}},
      {"update autoscaling of a missing pool", "PUT", kP,
       R"({"update":{"desiredNodePoolAutoscaling":{"enabled":true,"maxNodeCount":1},"desiredNodePoolId":"nope"}})",
       404, {"nodePools/nope."}},
      {"max is now 10", "GET", kP + "/nodePools/gpu-pool", "", 200, {R"("maxNodeCount":10)"}},
      {"unknown machine type", "POST", kP + "/nodePools",
       R"({"nodePool":{"name":"bad","config":{"machineType":"n9-huge-1"},"initialNodeCount":1}})",
       400, {R"("status":"INVALID_ARGUMENT")", "n9-huge-1"}},
      {"unknown accelerator", "POST", kP + "/nodePools",
       R"({"nodePool":{"name":"bad","config":{"machineType":"n1-standard-4","accelerators":[{"acceleratorCount":"1","acceleratorType":"nvidia-tesla-z9"}]},"initialNodeCount":1}})",
       400, {R"("status":"INVALID_ARGUMENT")", "nvidia-tesla-z9"}},
      {"unknown taint effect", "POST", kP + "/nodePools",
       R"({"nodePool":{"name":"bad","config":{"machineType":"n1-standard-4","taints":[{"key":"a","value":"b","effect":"NoSchedule"}]},"initialNodeCount":1}})",
       400, {"NoSchedule"}},
      {"create min > max", "POST", kP + "/nodePools",
       R"({"nodePool":{"name":"bad","config":{"machineType":"n1-standard-4"},"initialNodeCount":1,"autoscaling":{"enabled":true,"minNodeCount":4,"maxNodeCount":2}}})",
       400, {"must be less than or equal to max_node_count (2)"}},
      {"quota exceeded: a failed operation", "POST", kP + "/nodePools",
       R"({"nodePool":{"name":"v100","config":{"machineType":"n1-standard-8","accelerators":[{"acceleratorCount":"1","acceleratorType":"nvidia-tesla-v100"}]},"initialNodeCount":1}})",
       200, {R"("status":"DONE")", "Insufficient quota to satisfy the request: Quota '"}},
      {"setSize of a missing pool", "POST", kP + "/nodePools/nope:setSize",
       R"({"name":"x","nodeCount":2})", 404, {"nodePools/nope."}},
      {"label update unsupported by this control", "PUT", kP + "/nodePools/gpu-pool",
       R"({"labels":{"labels":{"a":"b"}}})", 501, {"UNIMPLEMENTED"}},
      {"operations list", "GET", "/v1/projects/tidepool-local/locations/-/operations", "", 200,
       {R"("operationType":"CREATE_NODE_POOL")", R"("zone":"us-central1-a")"}},
      {"unknown operation", "GET",
       "/v1/projects/tidepool-local/locations/us-central1-a/operations/operation-1-x", "", 404,
       {"NOT_FOUND"}},
      {"delete a missing pool", "DELETE", kP + "/nodePools/nope", "", 404, {"nodePools/nope."}},
      {"delete gpu-pool (no nodes: done at once)", "DELETE", kP + "/nodePools/gpu-pool", "", 200,
       {R"("operationType":"DELETE_NODE_POOL")", R"("status":"DONE")"}},
      {"gone", "GET", kP + "/nodePools/gpu-pool", "", 404, {"Not found"}},
      {"other project", "GET", "/v1/projects/other-proj/locations/us-central1-a/clusters/tidepool",
       "", 404, {"NOT_FOUND"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    GkeResponse r = Do(c.method, c.path, c.body);
    EXPECT_EQ(r.status, c.status) << r.body;
    for (const std::string& s : c.contains) EXPECT_NE(r.body.find(s), std::string::npos) << s << " in " << r.body;
    EXPECT_FALSE(json::parse(r.body, nullptr, false).is_discarded()) << r.body;
  }
}

TEST_F(GkeApiTest, ResizeOperationRunsUntilThePoolSettles) {
  DoJson("POST", kP + "/nodePools",
         R"({"nodePool":{"name":"cpu","config":{"machineType":"e2-standard-4"},"initialNodeCount":0}})");
  json op = DoJson("POST", kP + "/nodePools/cpu:setSize", R"({"nodeCount":2})");
  EXPECT_EQ(op["status"], "RUNNING");
  EXPECT_EQ(DoJson("GET", kP + "/nodePools/cpu")["status"], "RECONCILING");
  json vms = DoJson("GET", "/compute/v1/projects/tidepool-local/aggregated/instances");
  ASSERT_EQ(vms["items"]["zones/us-central1-a"]["instances"].size(), 2u);
  EXPECT_EQ(vms["items"]["zones/us-central1-a"]["instances"][0]["status"], "PROVISIONING");
  queue_.RunUntil(queue_.Now() + std::chrono::minutes(5));
  const std::string op_path = "/v1/projects/tidepool-local/locations/us-central1-a/operations/" +
                              op["name"].get<std::string>();
  json done = DoJson("GET", op_path);
  EXPECT_EQ(done["status"], "DONE");
  EXPECT_FALSE(done.contains("statusMessage"));
  EXPECT_EQ(DoJson("GET", kP)["currentNodeCount"], 2);
}

TEST_F(GkeApiTest, StockoutFailsTheOperationWithTheZoneError) {
  json op = DoJson("POST", kP + "/nodePools",
                   R"({"nodePool":{"name":"p4","config":{"machineType":"n1-standard-4","accelerators":[{"acceleratorCount":"1","acceleratorType":"nvidia-tesla-p4"}]},"initialNodeCount":1}})");
  EXPECT_EQ(op["status"], "RUNNING");
  queue_.RunUntil(queue_.Now() + std::chrono::minutes(5));
  json done = DoJson("GET", "/v1/projects/tidepool-local/locations/us-central1-a/operations/" +
                                op["name"].get<std::string>());
  EXPECT_EQ(done["status"], "DONE");
  EXPECT_NE(done["statusMessage"].get<std::string>().find("[ZONE_RESOURCE_POOL_EXHAUSTED]"),
            std::string::npos)
      << done.dump();
  EXPECT_EQ(DoJson("GET", kP + "/nodePools/p4")["status"], "ERROR");
}

// The compute path of a pool's first instance group, from the node pool's instanceGroupUrls.
std::string IgmPath(const json& pool) {
  const std::string url = pool["instanceGroupUrls"][0].get<std::string>();
  return url.substr(url.find("/compute/v1/"));
}

TEST_F(GkeApiTest, ManagedInstanceGroupFollowsThePool) {
  DoJson("POST", kP + "/nodePools", kSeedCreate);
  const std::string igm = IgmPath(DoJson("GET", kP + "/nodePools/gpu-pool"));
  json g = DoJson("GET", igm);
  EXPECT_EQ(g["kind"], "compute#instanceGroupManager");
  EXPECT_EQ(g["targetSize"], 0);
  EXPECT_EQ(g["status"]["isStable"], true);
  const std::string name = g["name"].get<std::string>();
  ASSERT_GT(name.size(), 4u);
  EXPECT_EQ(name.substr(name.size() - 4), "-grp");
  EXPECT_EQ(g["baseInstanceName"], name.substr(0, name.size() - 4));
  EXPECT_NE(g["instanceTemplate"].get<std::string>().find("/global/instanceTemplates/"),
            std::string::npos);
  EXPECT_EQ(g["selfLink"].get<std::string>().substr(g["selfLink"].get<std::string>().find("/compute/v1/")), igm);
  // No instances: the list is omitted, as Compute Engine does.
  EXPECT_EQ(DoJson("POST", igm + "/listManagedInstances"), json::object());

  DoJson("POST", kP + "/nodePools/gpu-pool:setSize", R"({"nodeCount":2})");
  g = DoJson("GET", igm);
  EXPECT_EQ(g["targetSize"], 2);
  EXPECT_EQ(g["currentActions"]["creating"], 2);
  EXPECT_EQ(g["status"]["isStable"], false);
  json mi = DoJson("POST", igm + "/listManagedInstances")["managedInstances"];
  ASSERT_EQ(mi.size(), 2u);
  EXPECT_EQ(mi[0]["currentAction"], "CREATING");
  EXPECT_EQ(mi[0]["instanceStatus"], "PROVISIONING");
  const std::string first = mi[0]["instance"].get<std::string>();
  EXPECT_NE(first.find("/projects/tidepool-local/zones/us-central1-a/instances/" +
                       g["baseInstanceName"].get<std::string>() + "-"),
            std::string::npos)
      << first;

  queue_.RunUntil(queue_.Now() + std::chrono::minutes(5));
  mi = DoJson("POST", igm + "/listManagedInstances")["managedInstances"];
  EXPECT_EQ(mi[0]["currentAction"], "NONE");
  EXPECT_EQ(mi[0]["instanceStatus"], "RUNNING");
  EXPECT_EQ(DoJson("GET", igm)["status"]["isStable"], true);

  // deleteInstances: the VM goes, the target drops by one; the operation is DONE and readable.
  json op = DoJson("POST", igm + "/deleteInstances",
                   json{{"instances", {first}}}.dump());
  EXPECT_EQ(op["kind"], "compute#operation");
  EXPECT_EQ(op["status"], "DONE");
  EXPECT_EQ(op["operationType"], "compute.instanceGroupManagers.deleteInstances");
  EXPECT_FALSE(op.contains("error")) << op.dump();
  const std::string zone_ops = "/compute/v1/projects/tidepool-local/zones/us-central1-a/operations/";
  EXPECT_EQ(DoJson("GET", zone_ops + op["name"].get<std::string>())["name"], op["name"]);
  g = DoJson("GET", igm);
  EXPECT_EQ(g["targetSize"], 1);
  EXPECT_EQ(g["currentActions"]["deleting"], 1);
  mi = DoJson("POST", igm + "/listManagedInstances")["managedInstances"];
  EXPECT_EQ(mi[0]["currentAction"], "DELETING");

  // Refusals: the operation fails (nothing deleted) unless skipInstancesOnValidationError.
  const std::string partial = "zones/us-central1-a/instances/gke-not-a-member";
  op = DoJson("POST", igm + "/deleteInstances", json{{"instances", {partial}}}.dump());
  ASSERT_TRUE(op.contains("error")) << op.dump();
  EXPECT_EQ(op["error"]["errors"][0]["code"], "RESOURCE_NOT_FOUND");
  op = DoJson("POST", igm + "/deleteInstances", json{{"instances", {first}}}.dump());
  EXPECT_TRUE(op.contains("error")) << "already deleting: " << op.dump();
  op = DoJson("POST", igm + "/deleteInstances",
              json{{"instances", {partial, first}}, {"skipInstancesOnValidationError", true}}.dump());
  EXPECT_FALSE(op.contains("error")) << op.dump();
  op = DoJson("POST", igm + "/deleteInstances",
              json{{"instances", {"zones/us-central1-b/instances/x"}},
                   {"skipInstancesOnValidationError", true}}.dump());
  EXPECT_EQ(op["error"]["errors"][0]["code"], "INVALID_FIELD_VALUE") << "another zone always fails";
  EXPECT_EQ(DoJson("GET", igm)["targetSize"], 1);

  // resize sets the target.
  GkeRequest resize{"POST", igm + "/resize", "", {{"size", "3"}}};
  GkeResponse rr = api_.Handle(resize);
  ASSERT_EQ(rr.status, 200) << rr.body;
  EXPECT_EQ(json::parse(rr.body)["operationType"], "compute.instanceGroupManagers.resize");
  EXPECT_EQ(DoJson("GET", igm)["targetSize"], 3);
}

TEST_F(GkeApiTest, ComputeTableOfRequests) {
  DoJson("POST", kP + "/nodePools", kSeedCreate);
  const std::string igm = IgmPath(DoJson("GET", kP + "/nodePools/gpu-pool"));
  const std::string z = "/compute/v1/projects/tidepool-local/zones/us-central1-a";
  struct ComputeCase {
    std::string name;
    GkeRequest request;
    int status;
    std::vector<std::string> contains;
  };
  const std::vector<ComputeCase> cases = {
      {"machine type", {"GET", z + "/machineTypes/n1-standard-4", "", {}}, 200,
       {R"("guestCpus":4)", R"("memoryMb":15360)", R"("kind":"compute#machineType")",
        R"("zone":"us-central1-a")"}},
      {"machine type with built-in GPUs", {"GET", z + "/machineTypes/g2-standard-4", "", {}}, 200,
       {R"("accelerators":[{"guestAcceleratorCount":1,"guestAcceleratorType":"nvidia-l4"}])"}},
      {"unknown machine type", {"GET", z + "/machineTypes/n9-huge-1", "", {}}, 404,
       {R"("reason":"notFound")", "machineTypes/n9-huge-1"}},
      {"instance group managers of the zone", {"GET", z + "/instanceGroupManagers", "", {}}, 200,
       {R"("kind":"compute#instanceGroupManagerList")", "-grp"}},
      {"unknown instance group manager", {"GET", z + "/instanceGroupManagers/nope", "", {}}, 404,
       {"instanceGroupManagers/nope' was not found"}},
      {"igm in an unknown zone", {"GET", "/compute/v1/projects/tidepool-local/zones/mars-1-a/instanceGroupManagers/x", "", {}}, 404,
       {"notFound"}},
      {"resize without size", {"POST", igm + "/resize", "", {}}, 400, {"'size'"}},
      {"resize to a negative size", {"POST", igm + "/resize", "", {{"size", "-1"}}}, 400,
       {"Must be greater than or equal to 0"}},
      {"deleteInstances without instances", {"POST", igm + "/deleteInstances", "{}", {}}, 400,
       {"'instances'"}},
      {"GET of a verb", {"GET", igm + "/listManagedInstances", "", {}}, 405, {"methodNotAllowed"}},
      {"unknown verb", {"POST", igm + "/abandonInstances", "{}", {}}, 400, {"abandonInstances"}},
      {"unknown operation", {"GET", z + "/operations/operation-1-2-3", "", {}}, 404, {"notFound"}},
  };
  for (const ComputeCase& c : cases) {
    SCOPED_TRACE(c.name);
    GkeResponse r = api_.Handle(c.request);
    EXPECT_EQ(r.status, c.status) << r.body;
    for (const std::string& s : c.contains) {
      EXPECT_NE(r.body.find(s), std::string::npos) << s << " in " << r.body;
    }
  }
}

TEST_F(GkeApiTest, StockedOutCreationsStayListedWithTheirErrors) {
  DoJson("POST", kP + "/nodePools",
         R"({"nodePool":{"name":"p4","config":{"machineType":"n1-standard-4","accelerators":[{"acceleratorCount":"1","acceleratorType":"nvidia-tesla-p4"}]},"initialNodeCount":1}})");
  const std::string igm = IgmPath(DoJson("GET", kP + "/nodePools/p4"));
  queue_.RunUntil(queue_.Now() + std::chrono::minutes(5));
  json mi = DoJson("POST", igm + "/listManagedInstances")["managedInstances"];
  ASSERT_EQ(mi.size(), 1u);
  EXPECT_EQ(mi[0]["currentAction"], "CREATING");
  EXPECT_FALSE(mi[0].contains("instanceStatus"));
  EXPECT_EQ(mi[0]["lastAttempt"]["errors"]["errors"][0]["code"], "ZONE_RESOURCE_POOL_EXHAUSTED");
  EXPECT_FALSE(mi[0]["lastAttempt"]["errors"]["errors"][0]["message"].get<std::string>().empty());
  json g = DoJson("GET", igm);
  EXPECT_EQ(g["targetSize"], 1);
  EXPECT_EQ(g["status"]["isStable"], false);
}

TEST_F(GkeApiTest, ResizeBeyondGpuQuotaIsAFailedOperation) {
  DoJson("POST", kP + "/nodePools",
         R"({"nodePool":{"name":"v100","config":{"machineType":"n1-standard-8","accelerators":[{"acceleratorCount":"1","acceleratorType":"nvidia-tesla-v100"}]},"initialNodeCount":0}})");
  const std::string igm = IgmPath(DoJson("GET", kP + "/nodePools/v100"));
  GkeResponse r = api_.Handle(GkeRequest{"POST", igm + "/resize", "", {{"size", "1"}}});
  ASSERT_EQ(r.status, 200) << r.body;
  json op = json::parse(r.body);
  EXPECT_EQ(op["status"], "DONE");
  EXPECT_EQ(op["error"]["errors"][0]["code"], "QUOTA_EXCEEDED");
  EXPECT_NE(op["error"]["errors"][0]["message"].get<std::string>().find("NVIDIA_V100_GPUS"),
            std::string::npos);
  EXPECT_EQ(DoJson("GET", igm)["targetSize"], 0);
}

// Bodies of the wrong shape are refused as Google's front end refuses them, before the
// emulation reads them; nothing of the cluster changes and the API keeps answering.
TEST_F(GkeApiTest, WrongTypesAreInvalidArgument) {
  const std::string pools = kP + "/nodePools";
  const std::vector<Case> cases = {
      {"pool name number", "POST", pools, R"({"nodePool":{"name":5}})", 400,
       {R"(Invalid value at 'node_pool.name' (TYPE_STRING), 5)", R"("status":"INVALID_ARGUMENT")",
        R"("field":"node_pool.name")"}},
      {"machine type object", "POST", pools,
       R"({"nodePool":{"name":"p","config":{"machineType":{"a":1}}}})", 400,
       {R"(Invalid value at 'node_pool.config.machine_type' (TYPE_STRING), {\"a\":1})"}},
      {"accelerator type array", "POST", pools,
       R"({"nodePool":{"name":"p","config":{"accelerators":[{"acceleratorType":[1]}]}}})", 400,
       {"Proto field is not repeating, cannot start list."}},
      {"accelerator count word", "POST", pools,
       R"({"nodePool":{"name":"p","config":{"accelerators":[{"acceleratorCount":"one"}]}}})", 400,
       {R"(Invalid value at 'node_pool.config.accelerators[0].accelerator_count' (TYPE_INT64), \"one\")"}},
      {"taint effect number-like word", "POST", pools,
       R"({"nodePool":{"name":"p","config":{"taints":[{"effect":"SOMETIMES"}]}}})", 400,
       {R"((type.googleapis.com/google.container.v1.NodeTaint.Effect), \"SOMETIMES\")"}},
      {"taint key bool", "POST", pools,
       R"({"nodePool":{"name":"p","config":{"taints":[{"key":true}]}}})", 400,
       {R"(Invalid value at 'node_pool.config.taints[0].key' (TYPE_STRING), true)"}},
      {"config a string", "POST", pools, R"({"nodePool":{"name":"p","config":"big"}})", 400,
       {R"((type.googleapis.com/google.container.v1.NodeConfig), \"big\")"}},
      {"unknown field", "POST", pools, R"({"nodePool":{"name":"p","colour":"red"}})", 400,
       {R"(Unknown name \"colour\" at 'node_pool': Cannot find field.)"}},
      {"unknown top-level field", "POST", pools, R"({"pool":{}})", 400,
       {R"(Invalid JSON payload received. Unknown name \"pool\": Cannot find field.)"}},
      {"autoscaling enabled yes", "POST", kP + "/nodePools/default-pool:setAutoscaling",
       R"({"autoscaling":{"enabled":"yes"}})", 400,
       {R"(Invalid value at 'autoscaling.enabled' (TYPE_BOOL), \"yes\")"}},
      {"setSize count fraction", "POST", kP + "/nodePools/default-pool:setSize",
       R"({"nodeCount":1.5})", 400, {R"((TYPE_INT32), 1.5)"}},
      {"update labels not a map", "PUT", kP + "/nodePools/default-pool",
       R"({"labels":{"labels":["a"]}})", 400, {"cannot start list"}},
      {"v1beta1 too", "POST",
       "/v1beta1/projects/tidepool-local/locations/us-central1-a/clusters/tidepool/nodePools",
       R"({"nodePool":{"name":5}})", 400,
       {R"(Invalid value at 'node_pool.name' (TYPE_STRING), 5)"}},
      {"compute delete instances not a list", "POST",
       "/compute/v1/projects/tidepool-local/zones/us-central1-a/instanceGroupManagers/"
       "gke-tidepool-default-pool-00000000-grp/deleteInstances",
       R"({"instances":"all"})", 400, {}},
      {"nulls are defaults", "POST", pools,
       R"({"nodePool":{"name":"nullpool","config":{"machineType":null,"labels":null},
           "initialNodeCount":null,"autoscaling":null}})",
       200, {R"("operationType":"CREATE_NODE_POOL")"}},
  };
  for (const Case& c : cases) {
    GkeResponse r = Do(c.method, c.path, c.body);
    if (c.name != "compute delete instances not a list") {
      EXPECT_EQ(r.status, c.status) << c.name << ": " << r.body;
    } else {
      EXPECT_GE(r.status, 400) << c.name << ": " << r.body;  // 404 if no such group, else 400
    }
    for (const std::string& part : c.contains) {
      EXPECT_NE(r.body.find(part), std::string::npos) << c.name << ": " << r.body;
    }
  }
  const json list = DoJson("GET", pools);
  ASSERT_TRUE(list.contains("nodePools"));
}

TEST(RequestSchemaTest, DescribesEveryBodyTheApiTakes) {
  for (const char* api : {"container/v1", "container/v1beta1"}) {
    for (const char* m : {"CreateClusterRequest", "UpdateClusterRequest", "CreateNodePoolRequest",
                          "UpdateNodePoolRequest", "SetNodePoolSizeRequest",
                          "SetNodePoolAutoscalingRequest"}) {
      EXPECT_TRUE(DescribesRequest(api, m)) << api << " " << m;
    }
  }
  EXPECT_TRUE(DescribesRequest("compute/v1", "InstanceGroupManagersDeleteInstancesRequest"));
  // gcloud's own seed body passes.
  json seed = json::parse(kSeedCreate);
  EXPECT_FALSE(DecodeRequest("container/v1", "CreateNodePoolRequest", seed));
  json by_number = json::parse(R"({"nodePool":{"config":{"taints":[{"effect":2,"key":null}]}}})");
  EXPECT_FALSE(DecodeRequest("container/v1", "CreateNodePoolRequest", by_number));
  EXPECT_EQ(by_number, json::parse(R"({"nodePool":{"config":{"taints":[{"effect":"PREFER_NO_SCHEDULE"}]}}})"));
}

// ---- GkeApiOptions::journal: operations and requested taints survive a restart ----------------

class MapJournal final : public CloudJournal {
 public:
  Status Put(std::string_view kind, std::string_view name, std::string_view text) override {
    records[std::string(kind)][std::string(name)] = std::string(text);
    return OkStatus();
  }
  Status Delete(std::string_view kind, std::string_view name) override {
    records[std::string(kind)].erase(std::string(name));
    return OkStatus();
  }
  StatusOr<std::vector<CloudRecord>> List(std::string_view kind) const override {
    std::vector<CloudRecord> out;
    if (auto it = records.find(std::string(kind)); it != records.end()) {
      for (const auto& [n, t] : it->second) out.push_back({n, t});
    }
    return out;
  }
  std::map<std::string, std::map<std::string, std::string>> records;
};

constexpr char kCluster[] = "/v1/projects/tidepool-local/locations/us-central1-a/clusters/tidepool";

TEST(GkeApiJournalTest, OperationsAndRequestedTaintsSurviveARestart) {
  EventQueue queue;
  emu::MemoryNodeSink sink;
  Random random(7);
  emu::EmulatedCloud cloud("tidepool-local", "tidepool", "us-central1-a", queue, sink, random);
  EmulatedGkeControl control(cloud, ClusterInfo{});
  MapJournal journal;
  GkeApiOptions options;
  options.journal = &journal;
  json ops_before, pool_before;
  {
    GkeApi api(control, queue.clock(), options);
    const json body = {
        {"nodePool",
         {{"name", "gpu-pool"},
          {"initialNodeCount", 1},
          {"config",
           {{"machineType", "n1-standard-4"},
            {"accelerators", {{{"acceleratorCount", "1"}, {"acceleratorType", "nvidia-tesla-t4"}}}},
            {"taints", {{{"key", "team"}, {"value", "ml"}, {"effect", "NO_SCHEDULE"}}}}}}}}};
    GkeResponse created = api.Handle({"POST", std::string(kCluster) + "/nodePools", body.dump()});
    ASSERT_EQ(created.status, 200) << created.body;
    EXPECT_EQ(json::parse(created.body)["status"], "RUNNING");
    queue.RunUntil(queue.Now() + std::chrono::minutes(10));
    ops_before = json::parse(
        api.Handle({"GET", "/v1/projects/tidepool-local/locations/us-central1-a/operations"}).body);
    pool_before = json::parse(api.Handle({"GET", std::string(kCluster) + "/nodePools/gpu-pool"}).body);
  }
  ASSERT_EQ(ops_before["operations"].size(), 1u);
  EXPECT_EQ(ops_before["operations"][0]["status"], "DONE");
  ASSERT_EQ(journal.records["operations"].size(), 1u);
  GkeApi restarted(control, queue.clock(), options);
  EXPECT_EQ(json::parse(restarted
                            .Handle({"GET",
                                     "/v1/projects/tidepool-local/locations/us-central1-a/operations"})
                            .body),
            ops_before);
  const json pool =
      json::parse(restarted.Handle({"GET", std::string(kCluster) + "/nodePools/gpu-pool"}).body);
  EXPECT_EQ(pool["config"]["taints"], pool_before["config"]["taints"]);
  EXPECT_EQ(pool["config"]["taints"].size(), 1u) << pool.dump();  // the user's, not GKE's GPU taint
}

}  // namespace
}  // namespace tidepool::cloud::gke

namespace tidepool::cloud::gke {
namespace {

// AcceleratorConfig as gcloud sends it (int64s as strings) and as GKE returns it.
TEST(GkeAcceleratorConfigTest, GpuSharingRoundTrips) {
  struct Case {
    std::string name;
    nlohmann::json in;
    emu::Accelerator want;
  };
  const std::vector<Case> cases = {
      {"whole GPUs",
       {{"acceleratorType", "nvidia-tesla-t4"}, {"acceleratorCount", "2"}},
       {"nvidia-tesla-t4", 2}},
      {"count defaults to 1", {{"acceleratorType", "nvidia-l4"}}, {"nvidia-l4", 1}},
      {"time-sharing",
       {{"acceleratorType", "nvidia-tesla-t4"},
        {"acceleratorCount", "1"},
        {"gpuSharingConfig",
         {{"gpuSharingStrategy", "TIME_SHARING"}, {"maxSharedClientsPerGpu", "4"}}}},
       {"nvidia-tesla-t4", 1, "TIME_SHARING", 4}},
      {"MPS, clients as a number",
       {{"acceleratorType", "nvidia-l4"},
        {"acceleratorCount", 1},
        {"gpuSharingConfig", {{"gpuSharingStrategy", "MPS"}, {"maxSharedClientsPerGpu", 8}}}},
       {"nvidia-l4", 1, "MPS", 8}},
      {"an unspecified strategy shares nothing",
       {{"acceleratorType", "nvidia-l4"},
        {"gpuSharingConfig", {{"gpuSharingStrategy", "GPU_SHARING_STRATEGY_UNSPECIFIED"}}}},
       {"nvidia-l4", 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto a = GkeApi::ParseAcceleratorConfig(c.in);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(*a, c.want);
    EXPECT_EQ(*GkeApi::ParseAcceleratorConfig(GkeApi::AcceleratorConfigJson(*a)), *a);
    EXPECT_EQ(a->Advertised(),
              c.want.sharing.empty() ? c.want.count : c.want.count * c.want.max_shared_clients);
  }
  EXPECT_FALSE(GkeApi::ParseAcceleratorConfig(
                   {{"acceleratorType", "nvidia-l4"}, {"acceleratorCount", "many"}})
                   .ok());
}

}  // namespace
}  // namespace tidepool::cloud::gke
