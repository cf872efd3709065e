// CloudProviderServer: the generated CloudProvider::Service, each method one call of the
// provider made on its thread through the runner.
#include "cloud/externalgrpc/cloud_provider_server.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <utility>

#include "api/codec/json_codec.h"
#include "apiserver/protobuf/decode.h"
#include "apiserver/protobuf/encode.h"
#include "apiserver/protobuf/messages.h"
#include "cloud/externalgrpc/externalgrpc.grpc.pb.h"

namespace tidepool::cloud::externalgrpc {
namespace {

namespace pb = ::clusterautoscaler::cloudprovider::v1::externalgrpc;

// common/status.h's codes are gRPC's (both are google.rpc.Code).
grpc::Status ToGrpc(const Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

api::Node NodeOf(const pb::ExternalGrpcNode& n) {
  api::Node node;
  node.meta.name = n.name();
  node.meta.labels.insert(n.labels().begin(), n.labels().end());
  node.meta.annotations.insert(n.annotations().begin(), n.annotations().end());
  node.spec.provider_id = n.providerid();
  return node;
}

// The v1.Pod CA sends (gogo's Marshal of it: protobuf bytes, no envelope).
StatusOr<api::Pod> PodOf(const std::string& data) {
  const apiserver::protobuf::MessageSpec* spec = apiserver::protobuf::FindKind("v1", "Pod");
  if (spec == nullptr) {
    return InternalError("no protobuf message for v1.Pod");
  }
  TIDEPOOL_ASSIGN_OR_RETURN(nlohmann::json pod, apiserver::protobuf::DecodeMessage(data, *spec));
  return api::codec::PodFromJson(pod);
}

TimePoint TimeOf(const pb::Time& t) {
  return TimePoint(std::chrono::seconds(t.seconds()) + std::chrono::nanoseconds(t.nanos()));
}

void SetGroup(const NodeGroup& g, pb::NodeGroup* out) {
  out->set_id(g.Id());
  out->set_minsize(g.MinSize());
  out->set_maxsize(g.MaxSize());
  out->set_debug(g.Debug());
}

pb::InstanceStatus::InstanceState StateOf(InstanceState s) {
  switch (s) {
    case InstanceState::kRunning:
      return pb::InstanceStatus::instanceRunning;
    case InstanceState::kCreating:
      return pb::InstanceStatus::instanceCreating;
    case InstanceState::kDeleting:
      return pb::InstanceStatus::instanceDeleting;
  }
  return pb::InstanceStatus::unspecified;
}

// cloudprovider.InstanceErrorClass: OutOfResourcesErrorClass 1, OtherErrorClass 99.
int ErrorClassOf(InstanceErrorInfo::Class c) {
  return c == InstanceErrorInfo::Class::kOutOfResources ? 1 : 99;
}

// v1.Node#Marshal(): the node's JSON in Kubernetes' protobuf encoding, without envelope.
StatusOr<std::string> NodeBytes(const api::Node& node) {
  const apiserver::protobuf::MessageSpec* spec = apiserver::protobuf::FindKind("v1", "Node");
  if (spec == nullptr) return InternalError("no protobuf table for v1 Node");
  return apiserver::protobuf::EncodeMessage(api::codec::NodeToJson(node), *spec);
}

class Service final : public pb::CloudProvider::Service {
 public:
  Service(CloudProvider& provider, CloudProviderServer::Runner run, log::Logger* logger)
      : provider_(provider), run_(std::move(run)), log_(logger) {}

  grpc::Status NodeGroups(grpc::ServerContext*, const pb::NodeGroupsRequest*,
                          pb::NodeGroupsResponse* res) override {
    return Call("NodeGroups", [&]() -> Status {
      for (const NodeGroup* g : provider_.NodeGroups()) SetGroup(*g, res->add_nodegroups());
      return OkStatus();
    });
  }

  grpc::Status NodeGroupForNode(grpc::ServerContext*, const pb::NodeGroupForNodeRequest* req,
                                pb::NodeGroupForNodeResponse* res) override {
    return Call("NodeGroupForNode", [&]() -> Status {
      const NodeGroup* g = provider_.NodeGroupForNode(NodeOf(req->node()));
      if (g == nullptr) {
        res->mutable_nodegroup()->set_id("");  // no group: CA leaves the node alone
      } else {
        SetGroup(*g, res->mutable_nodegroup());
      }
      return OkStatus();
    });
  }

  // The provider's prices; UNIMPLEMENTED (CA's ErrNotImplemented) when it offers none.
  StatusOr<const PricingModel*> Pricing() const {
    const PricingModel* pricing = provider_.Pricing();
    if (pricing == nullptr) {
      return UnimplementedError(std::string(provider_.Name()) + " offers no prices");
    }
    return pricing;
  }

  grpc::Status PricingNodePrice(grpc::ServerContext*, const pb::PricingNodePriceRequest* req,
                                pb::PricingNodePriceResponse* res) override {
    return Call("PricingNodePrice", [&]() -> Status {
      TIDEPOOL_ASSIGN_OR_RETURN(const PricingModel* pricing, Pricing());
      TIDEPOOL_ASSIGN_OR_RETURN(const double price,
                                pricing->NodePrice(NodeOf(req->node()), TimeOf(req->starttime()),
                                                   TimeOf(req->endtime())));
      res->set_price(price);
      return OkStatus();
    });
  }

  grpc::Status PricingPodPrice(grpc::ServerContext*, const pb::PricingPodPriceRequest* req,
                               pb::PricingPodPriceResponse* res) override {
    return Call("PricingPodPrice", [&]() -> Status {
      TIDEPOOL_ASSIGN_OR_RETURN(const PricingModel* pricing, Pricing());
      TIDEPOOL_ASSIGN_OR_RETURN(const api::Pod pod, PodOf(req->pod()));
      TIDEPOOL_ASSIGN_OR_RETURN(const double price, pricing->PodPrice(pod, TimeOf(req->starttime()),
                                                                      TimeOf(req->endtime())));
      res->set_price(price);
      return OkStatus();
    });
  }

  grpc::Status GPULabel(grpc::ServerContext*, const pb::GPULabelRequest*,
                        pb::GPULabelResponse* res) override {
    return Call("GPULabel", [&]() -> Status {
      res->set_label(provider_.GpuLabel());
      return OkStatus();
    });
  }

  grpc::Status GetAvailableGPUTypes(grpc::ServerContext*, const pb::GetAvailableGPUTypesRequest*,
                                    pb::GetAvailableGPUTypesResponse* res) override {
    return Call("GetAvailableGPUTypes", [&]() -> Status {
      for (const std::string& type : provider_.AvailableGpuTypes()) {
        (*res->mutable_gputypes())[type];  // an empty Any: CA reads only the keys
      }
      return OkStatus();
    });
  }

  grpc::Status Cleanup(grpc::ServerContext*, const pb::CleanupRequest*,
                       pb::CleanupResponse*) override {
    return grpc::Status::OK;  // the provider belongs to tidepool, not to CA: nothing to release
  }

  grpc::Status Refresh(grpc::ServerContext*, const pb::RefreshRequest*,
                       pb::RefreshResponse*) override {
    return Call("Refresh", [&] { return provider_.Refresh(); });
  }

  grpc::Status NodeGroupTargetSize(grpc::ServerContext*, const pb::NodeGroupTargetSizeRequest* req,
                                   pb::NodeGroupTargetSizeResponse* res) override {
    return OnGroup("NodeGroupTargetSize", req->id(), [&](NodeGroup& g) -> Status {
      TIDEPOOL_ASSIGN_OR_RETURN(const int size, g.TargetSize());
      res->set_targetsize(size);
      return OkStatus();
    });
  }

  grpc::Status NodeGroupIncreaseSize(grpc::ServerContext*,
                                     const pb::NodeGroupIncreaseSizeRequest* req,
                                     pb::NodeGroupIncreaseSizeResponse*) override {
    return OnGroup("NodeGroupIncreaseSize", req->id(), [&](NodeGroup& g) -> Status {
      if (req->delta() <= 0) {
        return InvalidArgumentError("size increase must be positive");  // CA's gce text
      }
      return g.IncreaseSize(req->delta());
    });
  }

  grpc::Status NodeGroupDeleteNodes(grpc::ServerContext*,
                                    const pb::NodeGroupDeleteNodesRequest* req,
                                    pb::NodeGroupDeleteNodesResponse*) override {
    return OnGroup("NodeGroupDeleteNodes", req->id(), [&](NodeGroup& g) -> Status {
      std::vector<std::string> names;
      for (const pb::ExternalGrpcNode& n : req->nodes()) {
        names.push_back(n.name().empty() ? n.providerid() : n.name());
      }
      return g.DeleteNodes(names);
    });
  }

  grpc::Status NodeGroupDecreaseTargetSize(grpc::ServerContext*,
                                           const pb::NodeGroupDecreaseTargetSizeRequest* req,
                                           pb::NodeGroupDecreaseTargetSizeResponse*) override {
    return OnGroup("NodeGroupDecreaseTargetSize", req->id(), [&](NodeGroup& g) -> Status {
      if (req->delta() >= 0) {
        return InvalidArgumentError("size decrease must be negative");  // CA's gce text
      }
      return g.DecreaseTargetSize(req->delta());
    });
  }

  grpc::Status NodeGroupNodes(grpc::ServerContext*, const pb::NodeGroupNodesRequest* req,
                              pb::NodeGroupNodesResponse* res) override {
    return OnGroup("NodeGroupNodes", req->id(), [&](NodeGroup& g) -> Status {
      TIDEPOOL_ASSIGN_OR_RETURN(const std::vector<Instance> instances, g.Nodes());
      for (const Instance& i : instances) {
        pb::Instance* out = res->add_instances();
        out->set_id(i.id);
        pb::InstanceStatus* status = out->mutable_status();
        status->set_instancestate(StateOf(i.state));
        if (i.error.has_value()) {
          pb::InstanceErrorInfo* e = status->mutable_errorinfo();
          e->set_errorcode(i.error->error_code);
          e->set_errormessage(i.error->error_message);
          e->set_instanceerrorclass(ErrorClassOf(i.error->error_class));
        }
      }
      return OkStatus();
    });
  }

  grpc::Status NodeGroupTemplateNodeInfo(grpc::ServerContext*,
                                         const pb::NodeGroupTemplateNodeInfoRequest* req,
                                         pb::NodeGroupTemplateNodeInfoResponse* res) override {
    return OnGroup("NodeGroupTemplateNodeInfo", req->id(), [&](NodeGroup& g) -> Status {
      TIDEPOOL_ASSIGN_OR_RETURN(const api::Node node, g.TemplateNode());
      TIDEPOOL_ASSIGN_OR_RETURN(std::string bytes, NodeBytes(node));
      res->set_nodeinfo(std::move(bytes));
      return OkStatus();
    });
  }

  grpc::Status NodeGroupGetOptions(grpc::ServerContext*,
                                   const pb::NodeGroupAutoscalingOptionsRequest* req,
                                   pb::NodeGroupAutoscalingOptionsResponse* res) override {
    return OnGroup("NodeGroupGetOptions", req->id(), [&](NodeGroup&) -> Status {
      pb::NodeGroupAutoscalingOptions* out = res->mutable_nodegroupautoscalingoptions();
      *out = req->defaults();
      // CA 1.31 dereferences the three durations of the answer: each one is set.
      out->mutable_scaledownunneededtime();
      out->mutable_scaledownunreadytime();
      out->mutable_maxnodeprovisiontime();
      return OkStatus();
    });
  }

 private:
  // Runs `fn` on the provider's thread; its status, logged when it failed, is the answer.
  template <typename F>
  grpc::Status Call(const char* method, F&& fn) {
    Status result;
    run_([&] { result = fn(); });
    if (!result.ok() && log_ != nullptr) {
      log_->Warning("externalgrpc call failed",
                    {{"method", method}, {"err", std::string(result.message())}});
    }
    return ToGrpc(result);
  }

  // The same for the group `id`: NOT_FOUND when no autoscaled group has that id.
  template <typename F>
  grpc::Status OnGroup(const char* method, const std::string& id, F&& fn) {
    return Call(method, [&]() -> Status {
      for (NodeGroup* g : provider_.NodeGroups()) {
        if (g->Id() == id) return fn(*g);
      }
      return NotFoundError("node group " + id + " not found");
    });
  }

  CloudProvider& provider_;
  const CloudProviderServer::Runner run_;
  log::Logger* const log_;
};

}  // namespace

struct CloudProviderServer::Impl {
  std::unique_ptr<Service> service;
  std::unique_ptr<grpc::Server> server;
  std::string address;
  int port = 0;
  bool stopped = false;
};

StatusOr<std::unique_ptr<CloudProviderServer>> CloudProviderServer::Start(
    const std::string& address, CloudProvider& provider, Runner run, log::Logger* logger) {
  auto impl = std::make_unique<Impl>();
  impl->service = std::make_unique<Service>(provider, std::move(run), logger);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &impl->port);
  builder.RegisterService(impl->service.get());
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || impl->port == 0) {
    return UnavailableError("externalgrpc cloud provider: cannot listen on " + address);
  }
  const size_t colon = address.rfind(':');
  impl->address = address.substr(0, colon) + ":" + std::to_string(impl->port);
  return std::unique_ptr<CloudProviderServer>(new CloudProviderServer(std::move(impl)));
}

CloudProviderServer::CloudProviderServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CloudProviderServer::~CloudProviderServer() { Stop(); }

const std::string& CloudProviderServer::address() const { return impl_->address; }

int CloudProviderServer::port() const { return impl_->port; }

void CloudProviderServer::Stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  // A relative deadline (gRPC adds it to its own clock): calls in flight get 5 s to finish.
  impl_->server->Shutdown(gpr_time_from_seconds(5, GPR_TIMESPAN));
  impl_->server->Wait();
}

std::string CloudConfigYaml(const std::string& address) { return "address: " + address + "\n"; }

}  // namespace tidepool::cloud::externalgrpc
