// File: gke_api_test.cc
//
// Tests for GkeApi over a real EmulatedCloud on a simulated clock (sim::EventQueue): a table of
// request -> (status, JSON fragments) cases in the order gcloud sends them, then the operation
// lifecycle (RUNNING while the pool settles, DONE after; stockout and quota failures).
#include "cloud/gke/gke_api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/event_queue.h"

namespace tidepool::cloud::gke {
namespace {

namespace emu = cloud::emulated;
using json = nlohmann::json;

class NullSink final : public emu::NodeSink {
 public:
  Status UpsertNode(api::Node) override { return OkStatus(); }
  Status DeleteNode(const std::string&) override { return OkStatus(); }
};

// GkeControl straight on an EmulatedCloud (the test is single-threaded).
class CloudControl final : public GkeControl {
 public:
  explicit CloudControl(emu::EmulatedCloud& cloud) : cloud_(cloud) {}
  ClusterInfo Cluster() override {
    ClusterInfo c;
    c.endpoint = "127.0.0.1:6443";
    c.ca_pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    return c;
  }
  std::vector<emu::NodePoolInfo> ListNodePools() override { return cloud_.ListNodePools(); }
  StatusOr<emu::NodePoolInfo> GetNodePool(const std::string& n) override {
    return cloud_.GetNodePool(n);
  }
  Status CreateNodePool(emu::NodePoolSpec s) override { return cloud_.CreateNodePool(s); }
  Status DeleteNodePool(const std::string& n) override { return cloud_.DeleteNodePool(n); }
  Status SetAutoscaling(const std::string& n, bool e, int mn, int mx) override {
    return cloud_.SetAutoscaling(n, e, mn, mx);
  }
  Status SetSize(const std::string& n, int c) override { return cloud_.SetSize(n, c); }
  Status SetLabels(const std::string&, const api::Labels&) override {
    return UnimplementedError("node pool label updates are not supported");
  }
  Status SetTaints(const std::string&, const std::vector<api::Taint>&) override {
    return UnimplementedError("node pool taint updates are not supported");
  }
  std::vector<VmInfo> ListVms() override {
    std::vector<VmInfo> out;
    for (const emu::InstanceInfo& i : cloud_.ListInstances()) {
      VmInfo v;
      v.instance = i;
      v.internal_ip = "10.128.0.9";
      out.push_back(v);
    }
    return out;
  }

 private:
  emu::EmulatedCloud& cloud_;
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

  sim::EventQueue queue_;
  NullSink sink_;
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

}  // namespace
}  // namespace tidepool::cloud::gke
