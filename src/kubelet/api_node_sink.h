// File: api_node_sink.h
//
// ApiNodeSink: where the emulated cloud's kubelets register their nodes in `tidepool up` - the
// API, through a cluster client (cloud::emulated::NodeSink over client::RestClient), as a real
// kubelet registers: the first UpsertNode creates the Node (POST /api/v1/nodes with its status),
// later ones update it (PUT of the object, then PUT of nodes/<name>/status), each with the
// resourceVersion it read and retried on a conflict.
//
// What it writes (NodeSink's merge contract):
//   - labels and annotations the cloud reports are added or overwritten by key; others kept;
//   - spec.providerID; the cloud's taints replace the ones it reported last, taints others
//     added (a cordon's, CA's ToBeDeletedByClusterAutoscaler) are kept (api::MergeOwnedTaints);
//     spec.unschedulable and every other field are left as they are;
//   - status: the reported one, with the kubelet's addresses, daemonEndpoints and nodeInfo
//     (kubelet/node_status.h).
// The taints it reported last are remembered per node; for a node it has not written in this
// process (a restart with --data-dir) the taints reported now count as its own. The not-ready
// taint is not the kubelet's: the API server's admission puts it on a new node and the node
// lifecycle controller removes it once the node is Ready.
// DeleteNode deletes the Node; its Lease goes with it (owner reference, garbage collector).
// The node's Lease and heartbeats are the kubelets' (runtime/kube_kubelets.h).
//
// Threading: UpsertNode and DeleteNode only queue the change and return OK at once (the cloud's
// thread must never wait on the API: under --speed 600 a second of waiting is ten emulated
// minutes for every VM); a thread of the sink's own writes them in the order the nodes were
// first queued, each node's latest change only (a later upsert replaces a queued one; a delete
// replaces whatever was queued). Failures are logged. Flush() waits until everything queued is
// written. Thread-safe.
// With an executor (`tidepool simulate`; common/actor_timers.h) there is no thread: a node's
// first queued change schedules a write on the executor at its now, in the same order and with
// the same rule (the write takes the node's latest change then; 409s retried); Flush() returns
// at once (nothing is pending once the executor ran), and what the executor has not run when
// the sink is destroyed is dropped.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/node.h"
#include "client/rest_client.h"
#include "cloud/emulated/emulated_cloud.h"
#include "common/actor_timers.h"
#include "common/log.h"
#include "common/timer_service.h"

namespace tidepool::kubelet {

class ApiNodeSink final : public cloud::emulated::NodeSink {
 public:
  // `kube` (and `executor`) must outlive the sink; `logger` may be null. Starts the writer
  // thread, or with `executor` writes on it (see "Threading"). `system`: the machine image the
  // nodes report (status.nodeInfo; the cloud's NodeStyle::System()).
  ApiNodeSink(const client::RestClient& kube, log::Logger* logger, TimerService* executor = nullptr,
              cloud::emulated::NodeSystem system = cloud::emulated::GkeNodeStyle().System());
  ~ApiNodeSink() override;  // writes what is queued, then stops (executor: drops it)
  ApiNodeSink(const ApiNodeSink&) = delete;
  ApiNodeSink& operator=(const ApiNodeSink&) = delete;

  Status UpsertNode(api::Node node) override;
  Status DeleteNode(const std::string& name) override;
  // Blocks until every change queued before the call is written (executor: returns at once).
  void Flush();

  // The writes themselves, synchronous (what the writer thread calls).
  Status WriteNode(const api::Node& node);
  Status RemoveNode(const std::string& name);

 private:
  const cloud::emulated::NodeSystem system_;
  void Queue(const std::string& name, std::optional<api::Node> node);
  void Run();
  // Writes the change first queued (order_ not empty); `lock` (of mu_) is released meanwhile.
  void WriteFirst(std::unique_lock<std::mutex>& lock);
  // One read-modify-write of `node`, whose JSON (with the kubelet's status fields) is
  // `reported`; Aborted on a conflict (the caller retries).
  Status TryUpsert(const api::Node& node, const nlohmann::json& reported);

  const client::RestClient& kube_;
  log::Logger* logger_;
  // The writer thread's only.
  std::map<std::string, std::vector<api::Taint>> reported_taints_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::optional<api::Node>> pending_;  // nullopt: delete
  std::deque<std::string> order_;
  bool writing_ = false;
  bool stopping_ = false;
  std::thread writer_;                     // without an executor
  std::unique_ptr<ActorTimers> executor_;  // with one
};

}  // namespace tidepool::kubelet
