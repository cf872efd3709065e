#include "kubelet/api_node_sink.h"

#include "api/codec/json_codec.h"
#include "kubelet/node_status.h"

namespace tidepool::kubelet {
namespace {

using json = nlohmann::json;

constexpr int kConflictRetries = 5;

std::string NodePath(const std::string& name, std::string_view subresource = "") {
  return client::ResourcePath("", "v1", "nodes", "", name, subresource);
}

// Adds or overwrites each key of `from` in `into` (both objects, or `into` made one).
void MergeByKey(json& into, const json& from) {
  if (!from.is_object()) return;
  if (!into.is_object()) into = json::object();
  for (auto it = from.begin(); it != from.end(); ++it) into[it.key()] = it.value();
}

}  // namespace

ApiNodeSink::ApiNodeSink(const client::RestClient& kube, log::Logger* logger,
                         TimerService* executor, cloud::emulated::NodeSystem system)
    : system_(std::move(system)), kube_(kube), logger_(logger) {
  if (executor != nullptr) {
    executor_ = std::make_unique<ActorTimers>(executor->clock(), executor);
    return;
  }
  writer_ = std::thread([this] { Run(); });
}

ApiNodeSink::~ApiNodeSink() {
  if (executor_) {
    executor_->Stop();  // nothing of this sink runs later
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  writer_.join();
}

Status ApiNodeSink::UpsertNode(api::Node node) {
  if (node.meta.name.empty()) return InvalidArgumentError("metadata.name: Required value");
  const std::string name = node.meta.name;
  Queue(name, std::move(node));
  return OkStatus();
}

Status ApiNodeSink::DeleteNode(const std::string& name) {
  Queue(name, std::nullopt);
  return OkStatus();
}

void ApiNodeSink::Queue(const std::string& name, std::optional<api::Node> node) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = pending_.insert_or_assign(name, std::move(node));
    if (inserted) {
      order_.push_back(name);
      // One write per node queued; it takes the node's latest change when it runs.
      if (executor_) {
        executor_->Post([this] {
          std::unique_lock<std::mutex> l(mu_);
          if (!order_.empty()) WriteFirst(l);
        });
      }
    }
  }
  cv_.notify_all();
}

void ApiNodeSink::Flush() {
  if (executor_) return;  // what the executor ran is written; the rest is its to run
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return order_.empty() && !writing_; });
}

void ApiNodeSink::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !order_.empty(); });
    if (order_.empty()) return;  // stopping, nothing left
    WriteFirst(lock);
  }
}

void ApiNodeSink::WriteFirst(std::unique_lock<std::mutex>& lock) {
  const std::string name = std::move(order_.front());
  order_.pop_front();
  auto it = pending_.find(name);
  std::optional<api::Node> op = std::move(it->second);
  pending_.erase(it);
  writing_ = true;
  lock.unlock();
  Status s = op.has_value() ? WriteNode(*op) : RemoveNode(name);
  if (!s.ok() && s.code() != StatusCode::kNotFound && logger_ != nullptr) {
    logger_->Warning(op.has_value() ? "Failed to publish node" : "Failed to delete node",
                     {{"node", name}, {"err", s.ToString()}});
  }
  lock.lock();
  writing_ = false;
  cv_.notify_all();
}

Status ApiNodeSink::WriteNode(const api::Node& node) {
  // The Node as the kubelet reports it, encoded once for every attempt.
  json reported = api::codec::NodeToJson(node);
  json& status = reported["status"];
  if (!status.is_object()) status = json::object();
  status["addresses"] = NodeAddressesJson(node.meta.name);
  status["daemonEndpoints"] = DaemonEndpointsJson();
  status["nodeInfo"] = NodeInfoJson(node.meta.name, system_);
  Status s;
  for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
    s = TryUpsert(node, reported);
    if (s.code() != StatusCode::kAborted && s.code() != StatusCode::kAlreadyExists) break;
  }
  if (s.ok()) reported_taints_[node.meta.name] = node.spec.taints;
  return s;
}

Status ApiNodeSink::TryUpsert(const api::Node& node, const json& reported) {
  const std::string& name = node.meta.name;
  const json& status = reported["status"];
  StatusOr<json> current = kube_.Get(NodePath(name));
  if (!current.ok() && current.status().code() == StatusCode::kNotFound) {
    json obj = reported;
    obj["metadata"].erase("creationTimestamp");  // the API server's to set
    obj["metadata"].erase("uid");
    return kube_.CreateUnread(client::ResourcePath("", "v1", "nodes"), obj);
  }
  if (!current.ok()) return current.status();
  TIDEPOOL_ASSIGN_OR_RETURN(api::Node stored, api::codec::NodeFromJson(*current));
  json next = *current;
  MergeByKey(next["metadata"]["labels"], reported["metadata"].value("labels", json::object()));
  if (reported["metadata"].contains("annotations")) {
    MergeByKey(next["metadata"]["annotations"], reported["metadata"]["annotations"]);
  }
  // A node not written in this process (a restart with --data-dir): the taints it reports now
  // count as its own.
  auto it = reported_taints_.find(name);
  const std::vector<api::Taint>& previous =
      it != reported_taints_.end() ? it->second : node.spec.taints;
  api::Node merged;
  merged.spec.taints = api::MergeOwnedTaints(stored.spec.taints, previous, node.spec.taints);
  merged.spec.provider_id = node.spec.provider_id;
  const json merged_spec = api::codec::NodeToJson(merged).value("spec", json::object());
  json& spec = next["spec"];
  if (!spec.is_object()) spec = json::object();
  if (merged_spec.contains("taints")) {
    spec["taints"] = merged_spec["taints"];
  } else {
    spec.erase("taints");
  }
  if (merged_spec.contains("providerID")) spec["providerID"] = merged_spec["providerID"];
  if (next != *current) {
    TIDEPOOL_ASSIGN_OR_RETURN(json updated, kube_.Update(NodePath(name), next));
    next = std::move(updated);
  }
  if (next.value("status", json::object()) == status) return OkStatus();
  next["status"] = status;
  return kube_.UpdateUnread(NodePath(name, "status"), next);
}

Status ApiNodeSink::RemoveNode(const std::string& name) {
  reported_taints_.erase(name);
  return kube_.Delete(NodePath(name)).status();
}

}  // namespace tidepool::kubelet
