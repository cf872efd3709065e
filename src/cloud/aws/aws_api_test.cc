// File: aws_api_test.cc
//
// Tests for AwsApi over a real EmulatedCloud with EKS's node style and AWS's catalog, on a
// simulated clock: a table of requests as the aws CLI sends them (bodies as cloud-apis.md §3
// records), then a node group's life (create -> ASG with EKS's tags -> set-desired-capacity ->
// instances Pending / InService with EKS node names -> terminate -> delete).
#include "cloud/aws/aws_api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cloud/aws/aws_catalog.h"
#include "cloud/aws/eks_node_style.h"
#include "cloud/gke/emulated_gke_control.h"
#include "common/event_queue.h"

namespace tidepool::cloud::aws {
namespace {

namespace emu = cloud::emulated;
using json = nlohmann::json;

std::string Scope(const std::string& service) {
  return "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261205/us-west-2/" + service +
         "/aws4_request, SignedHeaders=host;x-amz-date, Signature=00";
}

class AwsApiTest : public ::testing::Test {
 protected:
  AwsApiTest()
      : random_(7),
        cloud_("123456789012", "tidepool", "us-west-2a", queue_, sink_, random_, Options()),
        control_(cloud_, gke::ClusterInfo{}),
        api_(control_, cloud_.catalog(), Info(), queue_.clock(), 11) {
    cloud_.AddObserver(&api_);
  }
  ~AwsApiTest() override { cloud_.RemoveObserver(&api_); }

  static emu::EmulatedCloudOptions Options() {
    emu::EmulatedCloudOptions o;
    o.catalog = AwsCatalog();
    o.style = &EksNodeStyle();
    o.faults.stockout.push_back(emu::FaultMatch{"", "", "g5.2xlarge", "", 1.0});
    o.faults.gpu_quota["L-DB2E81BA"] = 8;  // on-demand G and VT vCPUs: two g4dn.xlarge
    return o;
  }
  static EksClusterInfo Info() {
    EksClusterInfo c;
    c.endpoint = "https://127.0.0.1:6443";
    c.ca_pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    c.zones = {"us-west-2a", "us-west-2b"};
    return c;
  }

  AwsResponse Eks(const std::string& method, const std::string& path, const std::string& body = "",
                  std::multimap<std::string, std::string> query = {}) {
    return api_.Handle({method, path, std::move(query), {{"authorization", Scope("eks")}}, body});
  }
  AwsResponse Query(const std::string& service, const std::string& body) {
    return api_.Handle({"POST", "/", {}, {{"authorization", Scope(service)}}, body});
  }
  json EksJson(const std::string& method, const std::string& path, const std::string& body = "") {
    AwsResponse r = Eks(method, path, body);
    EXPECT_EQ(r.status, 200) << method << " " << path << ": " << r.body;
    return json::parse(r.body);
  }
  std::string ErrorType(const AwsResponse& r) {
    for (const auto& [k, v] : r.headers) {
      if (k == "x-amzn-ErrorType") return v;
    }
    return "";
  }

  EventQueue queue_;
  emu::MemoryNodeSink sink_;
  Random random_;
  emu::EmulatedCloud cloud_;
  gke::EmulatedGkeControl control_;
  AwsApi api_;
};

// The aws CLI's create-nodegroup body (cloud-apis.md §3.3), desired 0.
const char kCreate[] =
    R"({"nodegroupName": "gpu-ng", "scalingConfig": {"minSize": 0, "maxSize": 5, "desiredSize": 0},
 "subnets": ["subnet-0abc", "subnet-0def"], "instanceTypes": ["g4dn.xlarge"], "amiType": "AL2_x86_64_GPU",
 "nodeRole": "arn:aws:iam::123456789012:role/NodeRole", "labels": {"app-type": "gpu-workloads"},
 "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
 "clientRequestToken": "0d4c8a52-3b7e-4d0c-9a3e-1f2e3d4c5b6a"})";

TEST_F(AwsApiTest, RoutesByCredentialScopeElsePathOrVersion) {
  struct Case {
    AwsRequest request;
    std::string service;
  };
  const std::vector<Case> cases = {
      {{"GET", "/clusters/x", {}, {{"authorization", Scope("eks")}}, ""}, "eks"},
      {{"POST", "/", {}, {{"authorization", Scope("autoscaling")}}, "Action=X"}, "autoscaling"},
      {{"POST", "/", {}, {{"authorization", Scope("sts")}}, ""}, "sts"},
      {{"GET", "/clusters", {}, {}, ""}, "eks"},
      {{"POST", "/", {}, {}, "Action=DescribeInstances&Version=2016-11-15"}, "ec2"},
      {{"POST", "/", {}, {}, "Action=DescribeTags&Version=2011-01-01"}, "autoscaling"},
      {{"GET", "/api/v1/pods", {}, {}, ""}, ""},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(AwsServiceOf(c.request), c.service) << c.request.path << " " << c.request.body;
  }
  EXPECT_TRUE(IsAwsRequest("GET", "/clusters/tidepool", {}));
  EXPECT_FALSE(IsAwsRequest("GET", "/api/v1/nodes", {{"authorization", "Bearer k8s-aws-v1.x"}}));
}

TEST_F(AwsApiTest, TableOfEksRequests) {
  struct Case {
    std::string name;
    std::string method;
    std::string path;
    std::string body;
    int status;
    std::string error_type;             // x-amzn-ErrorType, "" on success
    std::vector<std::string> contains;  // substrings of the body
  };
  const std::vector<Case> cases = {
      {"list clusters", "GET", "/clusters", "", 200, "", {R"("clusters":["tidepool"])"}},
      {"describe cluster",
       "GET",
       "/clusters/tidepool",
       "",
       200,
       "",
       {R"("status":"ACTIVE")", R"("endpoint":"https://127.0.0.1:6443")",
        R"("arn":"arn:aws:eks:us-west-2:123456789012:cluster/tidepool")",
        R"("data":"LS0tLS1CRUdJTi)"}},
      {"unknown cluster",
       "GET",
       "/clusters/nope/node-groups",
       "",
       404,
       "ResourceNotFoundException",
       {"No cluster found for name: nope."}},
      {"create",
       "POST",
       "/clusters/tidepool/node-groups",
       kCreate,
       200,
       "",
       {R"("status":"CREATING")", R"("instanceTypes":["g4dn.xlarge"])",
        R"("autoScalingGroups":[{"name":"eks-gpu-ng-)", R"("effect":"NO_SCHEDULE")",
        R"("desiredSize":0)"}},
      {"duplicate",
       "POST",
       "/clusters/tidepool/node-groups",
       kCreate,
       409,
       "ResourceInUseException",
       {"NodeGroup already exists with name gpu-ng and cluster name tidepool"}},
      {"describe",
       "GET",
       "/clusters/tidepool/node-groups/gpu-ng",
       "",
       200,
       "",
       {R"("status":"ACTIVE")", R"("labels":{"app-type":"gpu-workloads"})"}},
      {"list",
       "GET",
       "/clusters/tidepool/node-groups",
       "",
       200,
       "",
       {R"("nodegroups":["gpu-ng"])"}},
      {"missing node group",
       "GET",
       "/clusters/tidepool/node-groups/nope",
       "",
       404,
       "ResourceNotFoundException",
       {"No node group found for name: nope."}},
      {"bad effect",
       "POST",
       "/clusters/tidepool/node-groups",
       R"({"nodegroupName":"x","subnets":["s"],"taints":[{"key":"k","effect":"NoSchedule"}]})",
       400,
       "InvalidParameterException",
       {"enum value set: [NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE]"}},
      {"desired above max",
       "POST",
       "/clusters/tidepool/node-groups/gpu-ng/update-config",
       R"({"scalingConfig":{"desiredSize":9}})",
       400,
       "InvalidParameterException",
       {"Desired capacity:9 can't be greater than max size:5 or less than min size:0"}},
      {"partial scaling config",
       "POST",
       "/clusters/tidepool/node-groups/gpu-ng/update-config",
       R"({"scalingConfig":{"maxSize":10}})",
       200,
       "",
       {R"("status":"InProgress")", R"("type":"MaxSize")", R"("value":"10")"}},
      {"not JSON",
       "POST",
       "/clusters/tidepool/node-groups",
       "{",
       400,
       "InvalidParameterException",
       {"Invalid request body"}},
  };
  for (const Case& c : cases) {
    AwsResponse r = Eks(c.method, c.path, c.body);
    EXPECT_EQ(r.status, c.status) << c.name << ": " << r.body;
    EXPECT_EQ(ErrorType(r), c.error_type) << c.name;
    for (const std::string& s : c.contains) {
      EXPECT_NE(r.body.find(s), std::string::npos) << c.name << ": no " << s << " in " << r.body;
    }
  }
  StatusOr<emu::NodePoolInfo> pool = cloud_.GetNodePool("gpu-ng");
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ(pool->spec.max_nodes, 10);
  EXPECT_EQ(pool->spec.zones, (std::vector<std::string>{"us-west-2a", "us-west-2b"}));
  EXPECT_TRUE(pool->spec.group_id.starts_with("eks-gpu-ng-"));
  EXPECT_EQ(cloud_.Provider().Name(), "aws");
  EXPECT_EQ(cloud_.Provider().NodeGroups().at(0)->Id(), pool->spec.group_id);
}

TEST_F(AwsApiTest, WrongTypesAreErrorsNeverCrashes) {
  const std::vector<std::string> bodies = {
      R"({"nodegroupName": 5, "subnets": ["s"]})",
      R"({"nodegroupName": "a", "subnets": ["s"], "nodeRole": {}})",
      R"({"nodegroupName": "a", "subnets": ["s"], "taints": [{"key": "k", "effect": 3}]})",
      R"({"nodegroupName": "a", "subnets": ["s"], "taints": [{"key": "k", "value": [],
          "effect": "NO_SCHEDULE"}]})",
      R"({"nodegroupName": "a", "subnets": ["s"], "scalingConfig": {"maxSize": "5"}})",
      R"({"nodegroupName": "a", "subnets": ["s"], "labels": [1]})",
      R"({"nodegroupName": "a", "subnets": "s"})",
      R"([1, 2])",
  };
  for (const std::string& b : bodies) {
    AwsResponse r = Eks("POST", "/clusters/tidepool/node-groups", b);
    EXPECT_EQ(r.status, 400) << b << ": " << r.body;
  }
  EXPECT_TRUE(cloud_.ListNodePools().empty());
}

TEST_F(AwsApiTest, AutoScalingGroupFollowsTheNodeGroup) {
  EksJson("POST", "/clusters/tidepool/node-groups", kCreate);
  const std::string asg = cloud_.GetNodePool("gpu-ng")->spec.group_id;

  // Discovery as CA's --node-group-auto-discovery asks for it.
  AwsResponse d = Query("autoscaling",
                        "Action=DescribeAutoScalingGroups&Version=2011-01-01"
                        "&Filters.member.1.Name=tag-key&Filters.member.1.Values.member.1="
                        "k8s.io%2Fcluster-autoscaler%2Fenabled&Filters.member.2.Name="
                        "tag%3Ak8s.io%2Fcluster-autoscaler%2Ftidepool"
                        "&Filters.member.2.Values.member.1=owned");
  ASSERT_EQ(d.status, 200) << d.body;
  EXPECT_NE(d.body.find("<DescribeAutoScalingGroupsResult><AutoScalingGroups><member>"
                        "<AutoScalingGroupName>" +
                        asg),
            std::string::npos)
      << d.body;
  EXPECT_NE(d.body.find("<DesiredCapacity>0</DesiredCapacity>"), std::string::npos);
  EXPECT_NE(d.body.find("<Key>eks:nodegroup-name</Key><Value>gpu-ng</Value>"), std::string::npos);
  AwsResponse none = Query("autoscaling",
                           "Action=DescribeAutoScalingGroups&Version=2011-01-01"
                           "&Filters.member.1.Name=tag-key&Filters.member.1.Values.member.1=nope");
  EXPECT_NE(none.body.find("<AutoScalingGroups></AutoScalingGroups>"), std::string::npos);

  // Out of range: Auto Scaling's text.
  AwsResponse big = Query("autoscaling",
                          "Action=SetDesiredCapacity&Version=2011-01-01"
                          "&AutoScalingGroupName=" +
                              asg + "&DesiredCapacity=30");
  EXPECT_EQ(big.status, 400);
  EXPECT_NE(big.body.find("<Code>ValidationError</Code><Message>New SetDesiredCapacity value 30 "
                          "is above max value 5 for the AutoScalingGroup.</Message>"),
            std::string::npos)
      << big.body;

  AwsResponse set = Query("autoscaling",
                          "Action=SetDesiredCapacity&Version=2011-01-01"
                          "&AutoScalingGroupName=" +
                              asg + "&DesiredCapacity=1");
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_NE(set.body.find("<SetDesiredCapacityResponse"), std::string::npos);
  AwsResponse pending = Query("autoscaling",
                              "Action=DescribeAutoScalingGroups&Version=2011-01-01"
                              "&AutoScalingGroupNames.member.1=" +
                                  asg);
  EXPECT_NE(pending.body.find("<LifecycleState>Pending</LifecycleState>"), std::string::npos)
      << pending.body;
  json ng = EksJson("GET", "/clusters/tidepool/node-groups/gpu-ng");
  EXPECT_EQ(ng["nodegroup"]["scalingConfig"]["desiredSize"], 1);

  queue_.RunUntil(queue_.Now() + std::chrono::minutes(5));
  ASSERT_EQ(sink_.nodes.size(), 1u);
  const api::Node& node = sink_.nodes.begin()->second;
  EXPECT_TRUE(node.meta.name.starts_with("ip-10-0-")) << node.meta.name;
  EXPECT_TRUE(node.meta.name.ends_with(".us-west-2.compute.internal")) << node.meta.name;
  EXPECT_TRUE(node.spec.provider_id.starts_with("aws:///us-west-2")) << node.spec.provider_id;
  EXPECT_EQ(node.meta.labels.at("eks.amazonaws.com/nodegroup"), "gpu-ng");
  EXPECT_EQ(node.meta.labels.at("eks.amazonaws.com/capacityType"), "ON_DEMAND");
  EXPECT_EQ(node.meta.labels.at("node.kubernetes.io/instance-type"), "g4dn.xlarge");
  EXPECT_EQ(node.meta.labels.at("app-type"), "gpu-workloads");
  EXPECT_EQ(node.meta.labels.count("cloud.google.com/gke-nodepool"), 0u);
  EXPECT_EQ(api::Get(node.status.allocatable, "nvidia.com/gpu").Value(), 1);
  EXPECT_EQ(api::Get(node.status.capacity, "pods").Value(), 29);  // g4dn.xlarge's ENI limit
  ASSERT_EQ(node.spec.taints.size(), 1u);  // the node group's; EKS adds no GPU taint
  EXPECT_EQ(node.spec.taints[0].key, "nvidia.com/gpu");

  const std::string id = InstanceIdOf(node.spec.provider_id);
  ASSERT_EQ(id.size(), 19u) << id;
  AwsResponse running = Query("ec2",
                              "Action=DescribeInstances&Version=2016-11-15"
                              "&Filter.1.Name=tag%3Aeks%3Anodegroup-name"
                              "&Filter.1.Value.1=gpu-ng");
  ASSERT_EQ(running.status, 200) << running.body;
  EXPECT_NE(running.body.find("<instanceId>" + id + "</instanceId>"), std::string::npos);
  EXPECT_NE(running.body.find("<name>running</name>"), std::string::npos);
  EXPECT_NE(running.body.find("<privateDnsName>" + node.meta.name + "</privateDnsName>"),
            std::string::npos);
  EXPECT_NE(running.body.find("<key>aws:autoscaling:groupName</key><value>" + asg),
            std::string::npos);

  // CA's scale-down call: the instance goes and the desired capacity with it.
  AwsResponse term = Query("autoscaling",
                           "Action=TerminateInstanceInAutoScalingGroup&Version=2011-01-01"
                           "&InstanceId=" +
                               id + "&ShouldDecrementDesiredCapacity=true");
  ASSERT_EQ(term.status, 200) << term.body;
  EXPECT_NE(term.body.find("<Activity><ActivityId>"), std::string::npos) << term.body;
  EXPECT_EQ(
      EksJson("GET",
              "/clusters/tidepool/node-groups/gpu-ng")["nodegroup"]["scalingConfig"]["desiredSize"],
      0);
  queue_.RunUntil(queue_.Now() + std::chrono::minutes(2));
  EXPECT_TRUE(sink_.nodes.empty());

  // Delete: DELETING, then 404 (the nodegroup-deleted waiter's success).
  json del = EksJson("DELETE", "/clusters/tidepool/node-groups/gpu-ng");
  EXPECT_EQ(del["nodegroup"]["status"], "DELETING");
  queue_.RunUntil(queue_.Now() + std::chrono::minutes(2));
  EXPECT_EQ(Eks("GET", "/clusters/tidepool/node-groups/gpu-ng").status, 404);
}

TEST_F(AwsApiTest, TagsStsAndInstanceTypes) {
  EksJson("POST", "/clusters/tidepool/node-groups", kCreate);
  const std::string asg = cloud_.GetNodePool("gpu-ng")->spec.group_id;
  AwsResponse tag =
      Query("autoscaling",
            "Action=CreateOrUpdateTags&Version=2011-01-01&Tags.member.1.ResourceId=" + asg +
                "&Tags.member.1.ResourceType=auto-scaling-group&Tags.member.1.Key=k8s.io%2Fcluster-"
                "autoscaler%2Fnode-template%2Fresources%2Fnvidia.com%2Fgpu&Tags.member.1.Value=1"
                "&Tags.member.1.PropagateAtLaunch=true");
  ASSERT_EQ(tag.status, 200) << tag.body;
  AwsResponse tags = Query("autoscaling",
                           "Action=DescribeTags&Version=2011-01-01"
                           "&Filters.member.1.Name=auto-scaling-group"
                           "&Filters.member.1.Values.member.1=" +
                               asg);
  EXPECT_NE(tags.body.find("<Key>k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"
                           "</Key><Value>1</Value>"),
            std::string::npos)
      << tags.body;
  AwsResponse unknown = Query("autoscaling",
                              "Action=CreateOrUpdateTags&Version=2011-01-01"
                              "&Tags.member.1.ResourceId=nope&Tags.member.1.Key=k");
  EXPECT_EQ(unknown.status, 400);

  AwsResponse who = Query("sts", "Action=GetCallerIdentity&Version=2011-06-15");
  EXPECT_NE(who.body.find("<GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:user/tidepool"),
            std::string::npos)
      << who.body;
  AwsResponse types = Query("ec2",
                            "Action=DescribeInstanceTypes&Version=2016-11-15"
                            "&InstanceType.1=g4dn.xlarge");
  EXPECT_NE(types.body.find("<instanceType>g4dn.xlarge</instanceType>"), std::string::npos);
  EXPECT_NE(types.body.find("<name>T4</name><manufacturer>NVIDIA</manufacturer><count>1</count>"),
            std::string::npos)
      << types.body;
  AwsResponse bad = Query("ec2",
                          "Action=DescribeInstanceTypes&Version=2016-11-15"
                          "&InstanceType.1=g9.huge");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("<Code>InvalidInstanceType</Code>"), std::string::npos);
  AwsResponse lts = Query("ec2", "Action=DescribeLaunchTemplates&Version=2016-11-15");
  EXPECT_NE(lts.body.find("<launchTemplateName>eks-"), std::string::npos) << lts.body;
  EXPECT_NE(lts.body.find("<value>gpu-ng</value>"), std::string::npos);
  AwsResponse no_lt = Query("ec2",
                            "Action=DescribeLaunchTemplateVersions&Version=2016-11-15"
                            "&LaunchTemplateName=nope");
  EXPECT_EQ(no_lt.status, 400);
  EXPECT_NE(no_lt.body.find("InvalidLaunchTemplateName.NotFoundException"), std::string::npos);
  AwsResponse action = Query("autoscaling", "Action=Nope&Version=2011-01-01");
  EXPECT_NE(action.body.find("Could not find operation Nope for version 2011-01-01"),
            std::string::npos);
}

TEST_F(AwsApiTest, AStockoutIsAFailedLaunchAndCasPlaceholderError) {
  std::string body = kCreate;
  body.replace(body.find("gpu-ng"), 6, "g5-ng");
  body.replace(body.find("g4dn.xlarge"), 11, "g5.2xlarge");
  EksJson("POST", "/clusters/tidepool/node-groups", body);
  const std::string asg = cloud_.GetNodePool("g5-ng")->spec.group_id;
  ASSERT_EQ(Query("autoscaling",
                  "Action=SetDesiredCapacity&Version=2011-01-01"
                  "&AutoScalingGroupName=" +
                      asg + "&DesiredCapacity=1")
                .status,
            200);
  queue_.RunUntil(queue_.Now() + std::chrono::minutes(2));
  EXPECT_TRUE(sink_.nodes.empty());

  AwsResponse a = Query("autoscaling",
                        "Action=DescribeScalingActivities&Version=2011-01-01"
                        "&AutoScalingGroupName=" +
                            asg);
  EXPECT_NE(a.body.find("<StatusCode>Failed</StatusCode><StatusMessage>Could not launch On-Demand "
                        "Instances. InsufficientInstanceCapacity - We currently do not have "
                        "sufficient g5.2xlarge capacity in the Availability Zone you requested "
                        "(us-west-2a)."),
            std::string::npos)
      << a.body;
  // The failed launch is no instance of the group; its desired capacity stays.
  AwsResponse g = Query("autoscaling",
                        "Action=DescribeAutoScalingGroups&Version=2011-01-01"
                        "&AutoScalingGroupNames.member.1=" +
                            asg);
  EXPECT_NE(g.body.find("<DesiredCapacity>1</DesiredCapacity>"), std::string::npos);
  EXPECT_NE(g.body.find("<Instances></Instances>"), std::string::npos) << g.body;
  json ng = EksJson("GET", "/clusters/tidepool/node-groups/g5-ng");
  EXPECT_EQ(ng["nodegroup"]["health"]["issues"][0]["code"], "AsgInstanceLaunchFailures");

  // The autoscaler sees what CA's AWS provider reports for it.
  StatusOr<std::vector<Instance>> nodes = cloud_.Provider().NodeGroups().at(0)->Nodes();
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 1u);
  ASSERT_TRUE((*nodes)[0].error.has_value());
  EXPECT_EQ((*nodes)[0].error->error_class, InstanceErrorInfo::Class::kOutOfResources);
  EXPECT_EQ((*nodes)[0].error->error_code, "placeholder-cannot-be-fulfilled");

  // The activity outlives the failed instance the autoscaler gives up.
  ASSERT_TRUE(cloud_.DecreaseTargetSize("g5-ng", -1).ok());
  AwsResponse later = Query("autoscaling",
                            "Action=DescribeScalingActivities&Version=2011-01-01"
                            "&AutoScalingGroupName=" +
                                asg);
  EXPECT_NE(later.body.find("InsufficientInstanceCapacity"), std::string::npos) << later.body;
}

TEST_F(AwsApiTest, AVcpuQuotaFailsTheLaunchBeyondIt) {
  EksJson("POST", "/clusters/tidepool/node-groups", kCreate);
  const std::string asg = cloud_.GetNodePool("gpu-ng")->spec.group_id;
  // Accepted, as Auto Scaling accepts it; the third launch fails.
  ASSERT_EQ(Query("autoscaling",
                  "Action=SetDesiredCapacity&Version=2011-01-01"
                  "&AutoScalingGroupName=" +
                      asg + "&DesiredCapacity=3")
                .status,
            200);
  queue_.RunUntil(queue_.Now() + std::chrono::minutes(5));
  EXPECT_EQ(sink_.nodes.size(), 2u);
  AwsResponse a = Query("autoscaling",
                        "Action=DescribeScalingActivities&Version=2011-01-01"
                        "&AutoScalingGroupName=" +
                            asg);
  EXPECT_NE(a.body.find("VcpuLimitExceeded - You have requested more vCPU capacity than your "
                        "current vCPU limit of 8 allows for the instance bucket"),
            std::string::npos)
      << a.body;
  StatusOr<std::vector<Instance>> nodes = cloud_.Provider().NodeGroups().at(0)->Nodes();
  ASSERT_TRUE(nodes.ok());
  int failed = 0;
  for (const Instance& i : *nodes) failed += i.error.has_value() ? 1 : 0;
  EXPECT_EQ(failed, 1);
}

// STS AssumeRoleWithWebIdentity, unsigned, with bad input of every kind: STS's codes and texts,
// and a good token's temporary credentials accepted (with their session token) by the verifier.
TEST_F(AwsApiTest, AssumeRoleWithWebIdentityAnswersBadInputAsSts) {
  SigV4Verifier verifier(SigV4Verifier::Credentials{{"AKIATIDEPOOLEXAMPLE1", "s"}}, "irsa-key");
  AwsApi api(control_, cloud_.catalog(), Info(), queue_.clock(), 12, &verifier);
  const std::string good = IssueWebIdentityToken(
      "irsa-key", {"https://oidc.example", "system:serviceaccount:kube-system:ca"}, queue_.Now(),
      std::chrono::hours(1));
  auto call = [&](const std::string& params) {
    return api.Handle({"POST",
                       "/",
                       {},
                       {{"content-type", "application/x-www-form-urlencoded"}},
                       "Action=AssumeRoleWithWebIdentity&Version=2011-06-15" + params});
  };
  const std::string role = "&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fca";
  struct Case {
    std::string name;
    std::string params;
    int status;
    std::string contains;
  };
  const std::vector<Case> cases = {
      {"no role", "&RoleSessionName=s1&WebIdentityToken=" + good, 400,
       "<Code>ValidationError</Code><Message>1 validation error detected: Value null at "
       "'roleArn' failed to satisfy constraint: Member must not be null</Message>"},
      {"no token", role + "&RoleSessionName=s1", 400, "Value null at 'webIdentityToken'"},
      {"another account",
       "&RoleArn=arn%3Aaws%3Aiam%3A%3A999999999999%3Arole%2Fca&RoleSessionName=s1"
       "&WebIdentityToken=" +
           good,
       403, "<Code>AccessDenied</Code>"},
      {"duration too short",
       role + "&RoleSessionName=s1&DurationSeconds=60&WebIdentityToken=" + good, 400,
       "Member must have value between 900 and 43200"},
      {"duration not a number",
       role + "&RoleSessionName=s1&DurationSeconds=99999999999999999999&WebIdentityToken=" + good,
       400, "at 'durationSeconds'"},
      {"duration with more after the number",
       role + "&RoleSessionName=s1&DurationSeconds=3600abc&WebIdentityToken=" + good, 400,
       "Value '3600abc' at 'durationSeconds'"},
      {"not a JWT", role + "&RoleSessionName=s1&WebIdentityToken=" + std::string(100000, 'x'), 400,
       "<Code>InvalidIdentityToken</Code><Message>The ID Token provided is not a valid JWT."},
      {"forged", role + "&RoleSessionName=s1&WebIdentityToken=" + good + "x", 400,
       "<Code>InvalidIdentityToken</Code>"},
      {"good", role + "&RoleSessionName=s1&WebIdentityToken=" + good, 200,
       "<Arn>arn:aws:sts::123456789012:assumed-role/ca/s1</Arn>"},
  };
  for (const Case& c : cases) {
    AwsResponse r = call(c.params);
    EXPECT_EQ(r.status, c.status) << c.name << ": " << r.body;
    EXPECT_NE(r.body.find(c.contains), std::string::npos) << c.name << ": " << r.body;
  }
  // The good answer's credentials: known to the verifier with their session token only.
  AwsResponse r = call(role + "&RoleSessionName=s2&WebIdentityToken=" + good);
  auto between = [&](const std::string& open, const std::string& close) {
    const size_t a = r.body.find(open) + open.size();
    return r.body.substr(a, r.body.find(close, a) - a);
  };
  const std::string key = between("<AccessKeyId>", "</AccessKeyId>");
  const std::string token = between("<SessionToken>", "</SessionToken>");
  EXPECT_EQ(key.rfind("ASIA", 0), 0u);
  SignedRequest unsigned_request{
      "POST",
      "/",
      {},
      {{"authorization", "AWS4-HMAC-SHA256 Credential=" + key +
                             "/20261205/us-west-2/sts/aws4_request, "
                             "SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=00"},
       {"x-amz-security-token", token}},
      ""};
  // Known key and token: only the (made-up) signature is wrong.
  EXPECT_EQ(
      verifier.Verify(unsigned_request, queue_.Now()).message().rfind("SignatureDoesNotMatch", 0),
      0u);
  unsigned_request.headers["x-amz-security-token"] = "other";
  EXPECT_EQ(
      verifier.Verify(unsigned_request, queue_.Now()).message().rfind("InvalidClientTokenId", 0),
      0u);
}

}  // namespace
}  // namespace tidepool::cloud::aws
