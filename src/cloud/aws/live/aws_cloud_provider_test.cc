// File: aws_cloud_provider_test.cc
//
// The live AWS provider against `tidepool up --cloud aws`'s emulated AWS (AwsApi over an
// EmulatedCloud with EKS's nodes, on a simulated clock), over real HTTP on loopback with
// libcurl's SigV4 signatures checked by the emulator's verifier: discovery by tags, the template
// of a GPU node group at zero, scale-up, instances, the node of an instance, scale-down by node
// name, the limits, a stockout's placeholders, explicit --nodes groups and a bad secret.
#include "cloud/aws/live/aws_cloud_provider.h"

#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "apiserver/http/server.h"
#include "cloud/aws/aws_api.h"
#include "cloud/aws/aws_catalog.h"
#include "cloud/aws/eks_node_style.h"
#include "cloud/gke/emulated_gke_control.h"
#include "common/event_queue.h"

namespace tidepool::cloud::aws::live {
namespace {

namespace emu = cloud::emulated;

constexpr char kKey[] = "AKIATIDEPOOLTEST0001";
constexpr char kSecret[] = "c2VjcmV0LXRpZGVwb29sLXRlc3Qtc2VjcmV0LWtleQ";
constexpr char kIrsaKey[] = "irsa-test-key";

class StaticKeys final : public CredentialSource {
 public:
  explicit StaticKeys(std::string secret) : secret_(std::move(secret)) {}
  StatusOr<AwsCredentials> Get() override {
    return AwsCredentials{kKey, secret_, "", std::nullopt, "static"};
  }

 private:
  std::string secret_;
};

class AwsCloudProviderTest : public ::testing::Test {
 protected:
  AwsCloudProviderTest()
      : random_(3),
        cloud_("123456789012", "tidepool", "us-west-2a", queue_, sink_, random_, CloudOptions()),
        control_(cloud_, gke::ClusterInfo{}),
        verifier_(SigV4Verifier::Credentials{{kKey, kSecret}}, kIrsaKey),
        api_(control_, cloud_.catalog(), Info(), queue_.clock(), 5, &verifier_) {
    cloud_.AddObserver(&api_);
  }
  ~AwsCloudProviderTest() override {
    if (server_) server_->Stop();
    cloud_.RemoveObserver(&api_);
  }

  void SetUp() override {
    auto server = apiserver::http::HttpServer::Start(
        {}, [this](const apiserver::http::HttpRequest& req, apiserver::http::ResponseWriter& rw) {
          std::lock_guard<std::mutex> lock(mu_);
          Record(req);
          AwsResponse r = api_.Handle({req.method, req.path, req.query, req.headers, req.body});
          rw.Send(r.status, r.content_type, std::move(r.body), r.headers);
        });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }

  // Every call the provider makes must be one deploy/eks/iam/iam-policy.json allows.
  void TearDown() override {
    std::set<std::string> allowed;
    for (const std::string& a : AwsProviderActions()) allowed.insert(a);
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& a : called_) {
      if (a == "eks:CreateNodegroup") continue;  // the test's own set-up
      EXPECT_EQ(allowed.count(a), 1u) << a << " is called but not in AwsProviderActions()";
    }
  }

  // "service:Action" of a request, from its SigV4 scope and its form or EKS path.
  void Record(const apiserver::http::HttpRequest& req) {
    const std::string auth = req.Header("authorization");
    const size_t end = auth.find("/aws4_request");
    if (end == std::string::npos) return;
    const std::string scope = auth.substr(0, end);
    const std::string service = scope.substr(scope.rfind('/') + 1);
    std::string action;
    if (service == "eks") {
      action = req.method == "GET" ? "DescribeNodegroup" : "CreateNodegroup";
    } else {
      const size_t a = req.body.find("Action=");
      action = req.body.substr(a + 7, req.body.find('&', a) - a - 7);
    }
    called_.insert(service + ":" + action);
  }

  static emu::EmulatedCloudOptions CloudOptions() {
    emu::EmulatedCloudOptions o;
    UseEks(o);
    o.faults.stockout.push_back(emu::FaultMatch{"", "", "g5.2xlarge", "", 1.0});
    return o;
  }
  static EksClusterInfo Info() {
    EksClusterInfo c;
    c.endpoint = "https://127.0.0.1:6443";
    c.zones = {"us-west-2a", "us-west-2b"};
    return c;
  }

  AwsSettings Settings() const {
    AwsSettings s;
    s.region = "us-west-2";
    const std::string url = "http://127.0.0.1:" + std::to_string(server_->port());
    for (AwsService svc :
         {AwsService::kAutoScaling, AwsService::kEc2, AwsService::kEks, AwsService::kSts}) {
      s.endpoints[svc] = url;
    }
    return s;
  }

  // A provider over its own client; `discovery` empty: none.
  std::unique_ptr<AwsCloudProvider> Provider(std::map<std::string, std::string> discovery,
                                             std::vector<NodeGroupSpec> nodes = {},
                                             std::string secret = kSecret) {
    return ProviderWith(std::make_unique<StaticKeys>(std::move(secret)), std::move(discovery),
                        std::move(nodes));
  }
  std::unique_ptr<AwsCloudProvider> ProviderWith(std::unique_ptr<CredentialSource> keys,
                                                 std::map<std::string, std::string> discovery,
                                                 std::vector<NodeGroupSpec> nodes = {}) {
    keys_ = std::move(keys);
    AwsClientOptions co;
    co.max_retries = 0;
    co.sleep = [](Duration) { return false; };
    client_ = std::make_unique<AwsClient>(Settings(), http_, *keys_, co);
    AwsProviderOptions o;
    o.discovery = std::move(discovery);
    o.node_groups = std::move(nodes);
    o.catalog = AwsCatalog();
    return std::make_unique<AwsCloudProvider>(std::move(o), *client_, queue_.clock());
  }

  // Creates an EKS node group as the aws CLI does.
  void CreateNodegroup(const std::string& name, const std::string& type) {
    const std::string body = R"({"nodegroupName": ")" + name +
                             R"(", "scalingConfig": {"minSize": 0, "maxSize": 5, "desiredSize": 0},
 "subnets": ["subnet-0abc"], "instanceTypes": [")" +
                             type + R"("], "amiType": "AL2_x86_64_GPU",
 "nodeRole": "arn:aws:iam::123456789012:role/NodeRole",
 "labels": {"k8s.amazonaws.com/accelerator": "nvidia-tesla-t4", "team": "ml"},
 "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]})";
    StaticKeys keys(kSecret);
    AwsClientOptions co;
    co.sleep = [](Duration) { return false; };
    AwsClient aws(Settings(), http_, keys, co);
    StatusOr<std::string> r = aws.Eks("POST", "/clusters/tidepool/node-groups", body);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  void Run(Duration d) {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.RunUntil(queue_.Now() + d);
  }

  static std::map<std::string, std::string> EksTags() {
    return {{"k8s.io/cluster-autoscaler/enabled", ""}, {"k8s.io/cluster-autoscaler/tidepool", ""}};
  }

  EventQueue queue_;
  emu::MemoryNodeSink sink_;
  Random random_;
  emu::EmulatedCloud cloud_;
  gke::EmulatedGkeControl control_;
  SigV4Verifier verifier_;
  AwsApi api_;
  std::mutex mu_;
  std::unique_ptr<apiserver::http::HttpServer> server_;
  client::http::HttpClient http_;
  std::unique_ptr<CredentialSource> keys_;
  std::unique_ptr<AwsClient> client_;
  std::set<std::string> called_;  // guarded by mu_
};

TEST(AwsProviderActionsTest, TheIamPolicyAllowsExactlyTheCallsMade) {
  std::ifstream in(std::string(TIDEPOOL_SOURCE_DIR) + "/deploy/eks/iam/iam-policy.json");
  ASSERT_TRUE(in.good());
  const nlohmann::json policy = nlohmann::json::parse(in);
  std::set<std::string> allowed;
  for (const auto& statement : policy["Statement"]) {
    for (const auto& action : statement["Action"]) allowed.insert(action.get<std::string>());
  }
  const std::vector<std::string> actions = AwsProviderActions();
  EXPECT_EQ(allowed, std::set<std::string>(actions.begin(), actions.end()));
}

TEST(ParseAsgAutoDiscoveryTest, CaSyntaxAndTexts) {
  struct Case {
    std::vector<std::string> specs;
    std::map<std::string, std::string> tags;
    std::string error;  // substring; "" for OK
  };
  const std::vector<Case> cases = {
      {{"asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/c1"},
       {{"k8s.io/cluster-autoscaler/enabled", ""}, {"k8s.io/cluster-autoscaler/c1", ""}},
       ""},
      {{"asg:tag=team=ml", "asg:tag=gpu"}, {{"team", "ml"}, {"gpu", ""}}, ""},
      {{"asg"}, {}, "invalid node group auto discovery spec specified via"},
      {{"mig:namePrefix=x"}, {}, "unsupported discoverer specified: mig"},
      {{"asg:tag"}, {}, "invalid key=value pair tag"},
      {{"asg:name=x"}, {}, "The only supported key is \"tag\""},
      {{"asg:tag="}, {}, "tag value not supplied"},
      {{"asg:tag=a,,b"}, {}, "ASG tag must not be empty"},
  };
  for (const Case& c : cases) {
    auto got = ParseAsgAutoDiscovery(c.specs);
    if (c.error.empty()) {
      ASSERT_TRUE(got.ok()) << c.specs.front() << ": " << got.status().ToString();
      EXPECT_EQ(*got, c.tags) << c.specs.front();
    } else {
      ASSERT_FALSE(got.ok()) << c.specs.front();
      EXPECT_NE(got.status().message().find(c.error), std::string::npos) << got.status().message();
    }
  }
}

TEST_F(AwsCloudProviderTest, GpuNodeGroupFromZeroToOneAndBack) {
  ASSERT_NO_FATAL_FAILURE(CreateNodegroup("gpu", "g4dn.xlarge"));
  auto provider = Provider(EksTags());
  ASSERT_TRUE(provider->Refresh().ok());
  // The system node group of the default cloud has no ASG here: only "gpu" exists.
  std::vector<NodeGroup*> groups = provider->NodeGroups();
  ASSERT_EQ(groups.size(), 1u);
  NodeGroup& g = *groups[0];
  EXPECT_EQ(g.Id().rfind("eks-gpu-", 0), 0u) << g.Id();
  EXPECT_EQ(g.MinSize(), 0);
  EXPECT_EQ(g.MaxSize(), 5);
  EXPECT_EQ(*g.TargetSize(), 0);
  EXPECT_EQ(g.Debug(), g.Id() + " (0:5)");

  // The template: EKS's node of a g4dn.xlarge with the node group's labels and taint.
  StatusOr<api::Node> t = g.TemplateNode();
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const api::Labels& l = t->meta.labels;
  EXPECT_EQ(l.at("eks.amazonaws.com/nodegroup"), "gpu");
  EXPECT_EQ(l.at("eks.amazonaws.com/capacityType"), "ON_DEMAND");
  EXPECT_EQ(l.at("node.kubernetes.io/instance-type"), "g4dn.xlarge");
  EXPECT_EQ(l.at("topology.kubernetes.io/zone"), "us-west-2a");
  EXPECT_EQ(l.at("k8s.amazonaws.com/accelerator"), "nvidia-tesla-t4");
  EXPECT_EQ(l.at("team"), "ml");
  ASSERT_EQ(t->spec.taints.size(), 1u);
  EXPECT_EQ(t->spec.taints[0].key, "nvidia.com/gpu");
  EXPECT_EQ(t->spec.taints[0].effect, api::TaintEffect::kNoSchedule);
  EXPECT_EQ(api::Get(t->status.allocatable, "nvidia.com/gpu").Value(), 1);
  EXPECT_EQ(api::Get(t->status.capacity, "cpu").Value(), 4);
  EXPECT_EQ(api::Get(t->status.allocatable, "pods").Value(), 29);  // g4dn.xlarge's ENI limit
  auto gpu = provider->GetNodeGpuConfig(*t);
  ASSERT_TRUE(gpu.has_value());
  EXPECT_EQ(gpu->type, "nvidia-tesla-t4");

  // Limits, then a scale-up by one.
  Status too_large = g.IncreaseSize(6);
  EXPECT_EQ(too_large.message(), "size increase too large - desired:6 max:5");
  EXPECT_EQ(g.IncreaseSize(0).message(), "size increase must be positive");
  ASSERT_TRUE(g.IncreaseSize(1).ok());
  EXPECT_EQ(*g.TargetSize(), 1);
  ASSERT_TRUE(provider->Refresh().ok());
  auto nodes = g.Nodes();
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].state, InstanceState::kCreating);
  EXPECT_FALSE((*nodes)[0].error.has_value());

  // Running: the node registers with the instance's provider id.
  Run(std::chrono::minutes(5));
  ASSERT_TRUE(provider->Refresh().ok());
  nodes = g.Nodes();
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].state, InstanceState::kRunning);
  EXPECT_EQ((*nodes)[0].id.rfind("aws:///us-west-2a/i-", 0), 0u) << (*nodes)[0].id;
  api::Node node;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ASSERT_EQ(sink_.nodes.size(), 1u);
    node = sink_.nodes.begin()->second;
  }
  EXPECT_EQ(node.spec.provider_id, (*nodes)[0].id);
  EXPECT_EQ(provider->NodeGroupForNode(node), &g);
  api::Node stranger;
  stranger.spec.provider_id = "aws:///us-west-2a/i-0000000000000000f";
  EXPECT_EQ(provider->NodeGroupForNode(stranger), nullptr);

  // Scale-down by node name (the private DNS name), the desired capacity decremented.
  EXPECT_EQ(g.DecreaseTargetSize(-1).message(),
            "attempt to delete existing nodes targetSize:1 delta:-1 existingNodes: 1");
  Status del = g.DeleteNodes({node.meta.name});
  ASSERT_TRUE(del.ok()) << del.ToString();
  EXPECT_EQ(*g.TargetSize(), 0);
  EXPECT_EQ(g.DeleteNodes({node.meta.name}).message(),
            "min size reached, nodes will not be deleted");
}

TEST_F(AwsCloudProviderTest, StockoutMakesPlaceholdersThatCannotBeFulfilled) {
  ASSERT_NO_FATAL_FAILURE(CreateNodegroup("g5", "g5.2xlarge"));
  auto provider = Provider(EksTags());
  ASSERT_TRUE(provider->Refresh().ok());
  NodeGroup& g = *provider->NodeGroups().at(0);
  ASSERT_TRUE(g.IncreaseSize(2).ok());
  Run(std::chrono::minutes(3));
  ASSERT_TRUE(provider->Refresh().ok());
  auto nodes = g.Nodes();
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 2u);
  for (const Instance& i : *nodes) {
    EXPECT_EQ(i.id.rfind("aws:///us-west-2a/i-placeholder-" + g.Id() + "-", 0), 0u) << i.id;
    EXPECT_EQ(i.state, InstanceState::kCreating);
    ASSERT_TRUE(i.error.has_value()) << i.id;
    EXPECT_EQ(i.error->error_class, InstanceErrorInfo::Class::kOutOfResources);
    EXPECT_EQ(i.error->error_code, "placeholder-cannot-be-fulfilled");
    EXPECT_EQ(i.error->error_message,
              "AWS cannot provision any more instances for this node group");
  }
  // Deleting the placeholders gives the capacity back (desired = the real instances).
  ASSERT_TRUE(g.DeleteNodes({(*nodes)[0].id, (*nodes)[1].id}).ok());
  EXPECT_EQ(*g.TargetSize(), 0);
  ASSERT_TRUE(provider->Refresh().ok());
  EXPECT_TRUE(g.Nodes()->empty());
}

TEST_F(AwsCloudProviderTest, ExplicitGroupsKeepTheFlagsLimits) {
  ASSERT_NO_FATAL_FAILURE(CreateNodegroup("gpu", "g4dn.xlarge"));
  auto discover = Provider(EksTags());
  ASSERT_TRUE(discover->Refresh().ok());
  const std::string asg = discover->NodeGroups().at(0)->Id();
  auto provider = Provider({}, {{1, 3, asg}, {0, 2, "no-such-asg"}});
  ASSERT_TRUE(provider->Refresh().ok());
  auto groups = provider->NodeGroups();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0]->MinSize(), 1);
  EXPECT_EQ(groups[0]->MaxSize(), 3);
}

TEST_F(AwsCloudProviderTest, IrsaWebIdentityForTemporaryCredentials) {
  // The token file as EKS's webhook mounts it, exchanged at the emulated STS; the temporary
  // credentials sign (with their session token) the provider's calls.
  const std::string token =
      IssueWebIdentityToken(kIrsaKey,
                            {"https://oidc.eks.us-west-2.amazonaws.com/id/tidepool",
                             "system:serviceaccount:kube-system:tidepool-autoscaler"},
                            queue_.Now(), std::chrono::hours(1));
  AwsSettings settings = Settings();
  settings.web_identity = AwsWebIdentity{"arn:aws:iam::123456789012:role/ca", "/token", "ca"};
  auto source = DefaultCredentialSource(settings, http_, queue_.clock(), [&](const std::string&) {
    return StatusOr<std::string>(token);
  });
  ASSERT_TRUE(source.ok());
  StatusOr<AwsCredentials> creds = (*source)->Get();
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->access_key_id.rfind("ASIA", 0), 0u);
  EXPECT_FALSE(creds->session_token.empty());
  auto provider = ProviderWith(std::move(*source), EksTags());
  EXPECT_TRUE(provider->Refresh().ok());

  // Without the session token the key is unknown; an hour later it has expired.
  class Fixed final : public CredentialSource {
   public:
    explicit Fixed(AwsCredentials c) : c_(std::move(c)) {}
    StatusOr<AwsCredentials> Get() override { return c_; }
    AwsCredentials c_;
  };
  AwsCredentials no_token = *creds;
  no_token.session_token.clear();
  auto bare = ProviderWith(std::make_unique<Fixed>(no_token), EksTags());
  EXPECT_EQ(bare->Refresh().message().rfind("InvalidClientTokenId: ", 0), 0u);
  auto later = ProviderWith(std::make_unique<Fixed>(*creds), EksTags());
  Run(std::chrono::minutes(61));
  EXPECT_EQ(later->Refresh().message().rfind(
                "ExpiredToken: The security token included in the request is expired", 0),
            0u)
      << later->Refresh().message();

  // A token of another key is STS's InvalidIdentityToken.
  auto forged = DefaultCredentialSource(settings, http_, queue_.clock(), [&](const std::string&) {
    return StatusOr<std::string>(IssueWebIdentityToken(
        "guess", {"https://x", "system:serviceaccount:a:b"}, queue_.Now(), std::chrono::hours(1)));
  });
  StatusOr<AwsCredentials> refused = (*forged)->Get();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message().rfind("InvalidIdentityToken: ", 0), 0u)
      << refused.status().message();
}

TEST_F(AwsCloudProviderTest, ABadSecretIsAwsSignatureError) {
  auto provider = Provider(EksTags(), {}, "not-the-secret");
  Status s = provider->Refresh();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message().rfind("SignatureDoesNotMatch: The request signature we calculated", 0), 0u)
      << s.message();
  EXPECT_NE(s.message().find("status code: 403, request id: "), std::string::npos);
}

}  // namespace
}  // namespace tidepool::cloud::aws::live
