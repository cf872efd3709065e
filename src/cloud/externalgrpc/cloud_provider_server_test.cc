// Tests for CloudProviderServer: a fake cloud served on a loopback port and called through the
// generated client stub, as CA's externalgrpc provider calls it; every call must go through the
// runner.
#include "cloud/externalgrpc/cloud_provider_server.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <string>

#include "api/codec/json_codec.h"
#include "apiserver/protobuf/decode.h"
#include "apiserver/protobuf/encode.h"
#include "apiserver/protobuf/messages.h"
#include "cloud/externalgrpc/externalgrpc.grpc.pb.h"
#include "testing/builders.h"
#include "testing/fake_cloud_provider.h"
#include "testing/protobuf_writer.h"

namespace tidepool::cloud::externalgrpc {
namespace {

namespace pb = ::clusterautoscaler::cloudprovider::v1::externalgrpc;

api::Node GpuTemplate() {
  return testing::MakeNode("gpu-pool-template")
      .Capacity({{"cpu", "4"}, {"memory", "15Gi"}, {"nvidia.com/gpu", "1"}})
      .Label("cloud.google.com/gke-nodepool", "gpu-pool")
      .Label("cloud.google.com/gke-accelerator", "nvidia-tesla-t4")
      .Taint("nvidia.com/gpu", "present")
      .Obj();
}

// A protobuf body ("k8s\0" + runtime.Unknown) around a raw v1.Node, for DecodeObject.
std::string NodeEnvelope(const std::string& raw) {
  using ::tidepool::testing::Bytes;
  return std::string("k8s\0", 4) + Bytes(1, Bytes(1, "v1") + Bytes(2, "Node")) + Bytes(2, raw);
}

class CloudProviderServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cloud_.AddGroup("gpu-pool", 0, 5, 1, GpuTemplate());
    cloud_.AddGroup("cpu-pool", 1, 3, 1, testing::MakeNode("cpu").Obj());
    auto server =
        CloudProviderServer::Start("127.0.0.1:0", cloud_, [this](const std::function<void()>& fn) {
          ++runs_;
          fn();
        });
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = std::move(server).value();
    stub_ = pb::CloudProvider::NewStub(
        grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
  }

  testing::FakeCloudProvider cloud_;
  std::atomic<int> runs_{0};
  std::unique_ptr<CloudProviderServer> server_;
  std::unique_ptr<pb::CloudProvider::Stub> stub_;
};

TEST_F(CloudProviderServerTest, AddressNamesTheBoundPort) {
  EXPECT_GT(server_->port(), 0);
  EXPECT_EQ(server_->address(), "127.0.0.1:" + std::to_string(server_->port()));
  EXPECT_EQ(CloudConfigYaml(server_->address()), "address: " + server_->address() + "\n");
}

TEST_F(CloudProviderServerTest, NodeGroupsListsEveryGroupThroughTheRunner) {
  grpc::ClientContext ctx;
  pb::NodeGroupsResponse res;
  ASSERT_TRUE(stub_->NodeGroups(&ctx, {}, &res).ok());
  ASSERT_EQ(res.nodegroups_size(), 2);
  EXPECT_EQ(res.nodegroups(0).id(), "cpu-pool");
  EXPECT_EQ(res.nodegroups(0).minsize(), 1);
  EXPECT_EQ(res.nodegroups(1).id(), "gpu-pool");
  EXPECT_EQ(res.nodegroups(1).maxsize(), 5);
  EXPECT_FALSE(res.nodegroups(1).debug().empty());
  EXPECT_EQ(runs_.load(), 1);
}

TEST_F(CloudProviderServerTest, NodeGroupForNode) {
  struct Case {
    std::string pool_label;
    std::string want_id;
  };
  for (const Case& c : {Case{"gpu-pool", "gpu-pool"}, Case{"default-pool", ""}, Case{"", ""}}) {
    pb::NodeGroupForNodeRequest req;
    req.mutable_node()->set_name("n1");
    req.mutable_node()->set_providerid("gce://p/us-central1-a/n1");
    if (!c.pool_label.empty()) {
      (*req.mutable_node()->mutable_labels())["cloud.google.com/gke-nodepool"] = c.pool_label;
    }
    grpc::ClientContext ctx;
    pb::NodeGroupForNodeResponse res;
    ASSERT_TRUE(stub_->NodeGroupForNode(&ctx, req, &res).ok()) << c.pool_label;
    EXPECT_TRUE(res.has_nodegroup()) << c.pool_label;  // CA reads GetId() of a message
    EXPECT_EQ(res.nodegroup().id(), c.want_id) << c.pool_label;
  }
}

TEST_F(CloudProviderServerTest, SizeCallsChangeTheGroup) {
  {
    grpc::ClientContext ctx;
    pb::NodeGroupIncreaseSizeRequest req;
    req.set_id("gpu-pool");
    req.set_delta(2);
    pb::NodeGroupIncreaseSizeResponse res;
    ASSERT_TRUE(stub_->NodeGroupIncreaseSize(&ctx, req, &res).ok());
  }
  EXPECT_EQ(cloud_.group("gpu-pool").increases, std::vector<int>{2});
  {
    grpc::ClientContext ctx;
    pb::NodeGroupTargetSizeRequest req;
    req.set_id("gpu-pool");
    pb::NodeGroupTargetSizeResponse res;
    ASSERT_TRUE(stub_->NodeGroupTargetSize(&ctx, req, &res).ok());
    EXPECT_EQ(res.targetsize(), 3);
  }
  {
    grpc::ClientContext ctx;
    pb::NodeGroupDecreaseTargetSizeRequest req;
    req.set_id("gpu-pool");
    req.set_delta(-1);
    pb::NodeGroupDecreaseTargetSizeResponse res;
    ASSERT_TRUE(stub_->NodeGroupDecreaseTargetSize(&ctx, req, &res).ok());
    EXPECT_EQ(cloud_.group("gpu-pool").decreases, std::vector<int>{-1});
  }
  {
    grpc::ClientContext ctx;
    pb::NodeGroupDeleteNodesRequest req;
    req.set_id("gpu-pool");
    req.add_nodes()->set_name("gpu-node-1");
    pb::NodeGroupDeleteNodesResponse res;
    ASSERT_TRUE(stub_->NodeGroupDeleteNodes(&ctx, req, &res).ok());
    EXPECT_EQ(cloud_.group("gpu-pool").deleted, std::vector<std::string>{"gpu-node-1"});
  }
}

TEST_F(CloudProviderServerTest, ErrorsKeepTheProviderCodeAndText) {
  cloud_.group("gpu-pool").fail_increase = ResourceExhaustedError("QUOTA_EXCEEDED: GPUS");
  struct Case {
    std::string id;
    int delta;
    grpc::StatusCode code;
    std::string message;
  };
  for (const Case& c : {
           Case{"gpu-pool", 1, grpc::StatusCode::RESOURCE_EXHAUSTED, "QUOTA_EXCEEDED: GPUS"},
           Case{"no-such-pool", 1, grpc::StatusCode::NOT_FOUND,
                "node group no-such-pool not found"},
           Case{"cpu-pool", 0, grpc::StatusCode::INVALID_ARGUMENT,
                "size increase must be positive"},
       }) {
    grpc::ClientContext ctx;
    pb::NodeGroupIncreaseSizeRequest req;
    req.set_id(c.id);
    req.set_delta(c.delta);
    pb::NodeGroupIncreaseSizeResponse res;
    const grpc::Status s = stub_->NodeGroupIncreaseSize(&ctx, req, &res);
    EXPECT_EQ(s.error_code(), c.code) << c.id;
    EXPECT_EQ(s.error_message(), c.message) << c.id;
  }
}

TEST_F(CloudProviderServerTest, NodeGroupNodesReportsStatesAndErrorClasses) {
  testing::FakeNodeGroup& g = cloud_.group("gpu-pool");
  g.instances_ = {
      {"gce://p/z/a", InstanceState::kRunning, std::nullopt},
      {"gce://p/z/b", InstanceState::kCreating,
       InstanceErrorInfo{InstanceErrorInfo::Class::kOutOfResources, "ZONE_RESOURCE_POOL_EXHAUSTED",
                         "The zone does not have enough resources"}},
      {"gce://p/z/c", InstanceState::kDeleting, std::nullopt},
      {"gce://p/z/d", InstanceState::kCreating,
       InstanceErrorInfo{InstanceErrorInfo::Class::kOther, "BOOT_FAILED", "disk"}},
  };
  grpc::ClientContext ctx;
  pb::NodeGroupNodesRequest req;
  req.set_id("gpu-pool");
  pb::NodeGroupNodesResponse res;
  ASSERT_TRUE(stub_->NodeGroupNodes(&ctx, req, &res).ok());
  ASSERT_EQ(res.instances_size(), 4);
  EXPECT_EQ(res.instances(0).id(), "gce://p/z/a");
  EXPECT_EQ(res.instances(0).status().instancestate(), pb::InstanceStatus::instanceRunning);
  EXPECT_EQ(res.instances(0).status().errorinfo().errorcode(), "");
  EXPECT_EQ(res.instances(1).status().instancestate(), pb::InstanceStatus::instanceCreating);
  EXPECT_EQ(res.instances(1).status().errorinfo().errorcode(), "ZONE_RESOURCE_POOL_EXHAUSTED");
  EXPECT_EQ(res.instances(1).status().errorinfo().instanceerrorclass(), 1);
  EXPECT_EQ(res.instances(2).status().instancestate(), pb::InstanceStatus::instanceDeleting);
  EXPECT_EQ(res.instances(3).status().errorinfo().instanceerrorclass(), 99);
  EXPECT_EQ(res.instances(3).status().errorinfo().errormessage(), "disk");
}

TEST_F(CloudProviderServerTest, TemplateNodeInfoIsAKubernetesProtobufNode) {
  grpc::ClientContext ctx;
  pb::NodeGroupTemplateNodeInfoRequest req;
  req.set_id("gpu-pool");
  pb::NodeGroupTemplateNodeInfoResponse res;
  ASSERT_TRUE(stub_->NodeGroupTemplateNodeInfo(&ctx, req, &res).ok());
  auto node = apiserver::protobuf::DecodeObject(NodeEnvelope(res.nodeinfo()));
  ASSERT_TRUE(node.ok()) << node.status().message();
  const nlohmann::json& j = *node;
  EXPECT_EQ(j["metadata"]["name"], "gpu-pool-template");
  EXPECT_EQ(j["metadata"]["labels"]["cloud.google.com/gke-accelerator"], "nvidia-tesla-t4");
  EXPECT_EQ(j["status"]["capacity"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(j["status"]["allocatable"]["memory"], "15Gi");
  EXPECT_EQ(j["spec"]["taints"][0]["key"], "nvidia.com/gpu");
  EXPECT_EQ(j["spec"]["taints"][0]["effect"], "NoSchedule");
}

TEST_F(CloudProviderServerTest, GetOptionsAnswersTheDefaultsWithEveryDuration) {
  grpc::ClientContext ctx;
  pb::NodeGroupAutoscalingOptionsRequest req;
  req.set_id("gpu-pool");
  req.mutable_defaults()->set_scaledownutilizationthreshold(0.5);
  req.mutable_defaults()->mutable_scaledownunneededtime()->set_duration(600'000'000'000);
  pb::NodeGroupAutoscalingOptionsResponse res;
  ASSERT_TRUE(stub_->NodeGroupGetOptions(&ctx, req, &res).ok());
  const pb::NodeGroupAutoscalingOptions& o = res.nodegroupautoscalingoptions();
  EXPECT_EQ(o.scaledownutilizationthreshold(), 0.5);
  EXPECT_EQ(o.scaledownunneededtime().duration(), 600'000'000'000);
  EXPECT_TRUE(o.has_scaledownunreadytime());
  EXPECT_TRUE(o.has_maxnodeprovisiontime());
}

TEST_F(CloudProviderServerTest, GpuLabelTypesRefreshCleanupAndPrices) {
  {
    grpc::ClientContext ctx;
    pb::GPULabelResponse res;
    ASSERT_TRUE(stub_->GPULabel(&ctx, {}, &res).ok());
    EXPECT_EQ(res.label(), "cloud.google.com/gke-accelerator");
  }
  {
    grpc::ClientContext ctx;
    pb::GetAvailableGPUTypesResponse res;
    ASSERT_TRUE(stub_->GetAvailableGPUTypes(&ctx, {}, &res).ok());
    EXPECT_EQ(res.gputypes_size(), 0);  // the fake cloud knows none
  }
  {
    grpc::ClientContext ctx;
    pb::RefreshResponse res;
    EXPECT_TRUE(stub_->Refresh(&ctx, {}, &res).ok());
  }
  {
    grpc::ClientContext ctx;
    pb::CleanupResponse res;
    EXPECT_TRUE(stub_->Cleanup(&ctx, {}, &res).ok());
  }
  for (bool pod : {false, true}) {
    grpc::ClientContext ctx;
    grpc::Status s;
    if (pod) {
      pb::PricingPodPriceResponse res;
      s = stub_->PricingPodPrice(&ctx, {}, &res);
    } else {
      pb::PricingNodePriceResponse res;
      s = stub_->PricingNodePrice(&ctx, {}, &res);  // the fake cloud has no PricingModel
    }
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED) << pod;  // CA: ErrNotImplemented
  }
}

TEST_F(CloudProviderServerTest, StopIsIdempotentAndRefusesLaterCalls) {
  server_->Stop();
  server_->Stop();
  grpc::ClientContext ctx;
  ctx.set_deadline(gpr_time_from_seconds(2, GPR_TIMESPAN));  // relative: 2 s from the call
  pb::NodeGroupsResponse res;
  EXPECT_FALSE(stub_->NodeGroups(&ctx, {}, &res).ok());
}

// The fake cloud with prices: $2 per node-hour for the gpu-pool label, $0.25 per requested
// GPU-hour for a pod; the node and the pod as the server decoded them are kept.
class PricedCloud final : public CloudProvider, public PricingModel {
 public:
  explicit PricedCloud(CloudProvider& inner) : inner_(inner) {}
  std::string_view Name() const override { return "priced"; }
  std::vector<NodeGroup*> NodeGroups() override { return inner_.NodeGroups(); }
  NodeGroup* NodeGroupForNode(const api::Node& n) override { return inner_.NodeGroupForNode(n); }
  std::string GpuLabel() const override { return inner_.GpuLabel(); }
  std::optional<GpuConfig> GetNodeGpuConfig(const api::Node& n) const override {
    return inner_.GetNodeGpuConfig(n);
  }
  const PricingModel* Pricing() const override { return this; }
  Status Refresh() override { return OkStatus(); }

  StatusOr<double> NodePrice(const api::Node& node, TimePoint start, TimePoint end) const override {
    last_node = node;
    if (node.meta.labels.count("cloud.google.com/gke-nodepool") == 0) {
      return NotFoundError("no pool label");
    }
    return 2.0 * std::chrono::duration<double>(end - start).count() / 3600;
  }
  StatusOr<double> PodPrice(const api::Pod& pod, TimePoint start, TimePoint end) const override {
    last_pod = pod;
    double gpus = 0;
    for (const api::Container& c : pod.spec.containers) {
      gpus += static_cast<double>(api::Get(c.resources.requests, "nvidia.com/gpu").Value());
    }
    return 0.25 * gpus * std::chrono::duration<double>(end - start).count() / 3600;
  }

  mutable api::Node last_node;
  mutable api::Pod last_pod;

 private:
  CloudProvider& inner_;
};

TEST(CloudProviderServerPricingTest, NodeAndPodPricesComeFromThePricingModel) {
  testing::FakeCloudProvider fake;
  PricedCloud cloud(fake);
  auto server = CloudProviderServer::Start("127.0.0.1:0", cloud, [](auto& fn) { fn(); });
  ASSERT_TRUE(server.ok()) << server.status().message();
  auto stub = pb::CloudProvider::NewStub(
      grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));
  auto window = [](auto& req) {
    req.mutable_starttime()->set_seconds(1'700'000'000);
    req.mutable_endtime()->set_seconds(1'700'000'000 + 2 * 3600);
  };
  {
    pb::PricingNodePriceRequest req;
    window(req);
    req.mutable_node()->set_name("n1");
    (*req.mutable_node()->mutable_labels())["cloud.google.com/gke-nodepool"] = "gpu-pool";
    grpc::ClientContext ctx;
    pb::PricingNodePriceResponse res;
    ASSERT_TRUE(stub->PricingNodePrice(&ctx, req, &res).ok());
    EXPECT_DOUBLE_EQ(res.price(), 4.0);
    EXPECT_EQ(cloud.last_node.meta.name, "n1");
  }
  {
    // The pod as CA's client sends it: gogo's Marshal of a v1.Pod.
    const api::Pod pod = testing::MakePod("train")
                             .Container({{"cpu", "1"}, {"nvidia.com/gpu", "2"}})
                             .Container({{"nvidia.com/gpu", "1"}})
                             .Obj();
    auto raw = apiserver::protobuf::EncodeMessage(api::codec::PodToJson(pod),
                                                  *apiserver::protobuf::FindKind("v1", "Pod"));
    ASSERT_TRUE(raw.ok()) << raw.status().message();
    pb::PricingPodPriceRequest req;
    window(req);
    req.set_pod(*raw);
    grpc::ClientContext ctx;
    pb::PricingPodPriceResponse res;
    ASSERT_TRUE(stub->PricingPodPrice(&ctx, req, &res).ok());
    EXPECT_DOUBLE_EQ(res.price(), 0.25 * 3 * 2);
    EXPECT_EQ(cloud.last_pod.meta.name, "train");
  }
  {
    // A body that is not a v1.Pod is the caller's error, named.
    pb::PricingPodPriceRequest req;
    req.set_pod(
        std::string("\x0a\x05"
                    "ab"));  // a 5-byte field with 2 bytes
    grpc::ClientContext ctx;
    pb::PricingPodPriceResponse res;
    grpc::Status s = stub->PricingPodPrice(&ctx, req, &res);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  }
}

TEST(CloudProviderServerStartTest, AnAddressThatCannotBeBoundIsUnavailable) {
  testing::FakeCloudProvider cloud;
  auto server = CloudProviderServer::Start("256.0.0.1:1", cloud, [](auto& fn) { fn(); });
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(server.status().message(), "externalgrpc cloud provider: cannot listen on 256.0.0.1:1");
}

}  // namespace
}  // namespace tidepool::cloud::externalgrpc
