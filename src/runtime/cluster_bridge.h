// File: cluster_bridge.h
//
// ClusterBridge: what is left of the join between the emulated world (sim::World) and the API
// server's ObjectStore under `tidepool up`, now that pods never enter the world: the world
// holds the emulated cloud's VMs and the nodes they register, nothing else.
//
//   API writes to nodes   --ObjectStore watch (nodes)-->  PumpApi()  -->  World's nodes
//   World's nodes, events --StoreObserver-->  ObjectStore (origin "world")
//
// What flows where:
//   - Pods are the API's alone: its scheduler binds them (kube_scheduler.h), its kubelets run
//     them (kube_kubelets.h), kcm's pod garbage collector removes those of nodes that are gone
//     (controllers/podgc).
//   - Nodes come from the world (the emulated cloud's VMs) and are written to the ObjectStore
//     whole, with nodeInfo, addresses and a Lease in kube-node-lease that a real kubelet would
//     report. A user's label / annotate / taint / cordon through the API goes back to the
//     world's node.
//   - Events of the world (the emulated cloud's, about nodes) are written as core/v1 Events,
//     aggregated by name as the world aggregates them.
//   - System objects: the namespaces default, kube-system, kube-public, kube-node-lease,
//     and the kube-system pods of a GKE cluster (cluster-autoscaler-<suffix>, kube-dns); the
//     autoscaler's log lines go to the cluster-autoscaler pod's log (`kubectl logs -f`).
//
// Writes the bridge makes carry origin "world"; PumpApi ignores them, so nothing echoes.
// Threading: every method runs on the world's thread (the World is single-threaded); the
// ObjectStore is thread-safe.
#pragma once

#include <memory>
#include <string>

#include "apiserver/object_store.h"
#include "apiserver/pod_logs.h"
#include "common/status.h"
#include "sim/world.h"

namespace tidepool::runtime {

class ClusterBridge final : public sim::StoreObserver {
 public:
  // Every reference must outlive the bridge. `gpu_operator`: the emulated NVIDIA GPU operator
  // (namespace gpu-operator, the DaemonSet nvidia-device-plugin-daemonset selecting GPU nodes,
  // labelled nvidia.com/gpu.deploy.device-plugin=true (cloud::emulated gpu_operator_labels), as `helm install gpu-operator`
  // leaves them; the DaemonSet controller makes the pods). `autoscaler_pod`: the
  // kube-system/cluster-autoscaler-<suffix> pod of the embedded autoscaler (its log is the
  // world's autoscaler log).
  ClusterBridge(sim::World& world, apiserver::ObjectStore& store, apiserver::PodLogs& logs,
                bool gpu_operator = true, bool autoscaler_pod = false);
  ~ClusterBridge() override;
  ClusterBridge(const ClusterBridge&) = delete;
  ClusterBridge& operator=(const ClusterBridge&) = delete;

  // Initial synchronisation (see the file comment), then watches the ObjectStore.
  Status Start();
  // Applies the API changes made since the last call to the world. Returns how many.
  size_t PumpApi();
  // Blocks up to `timeout` for an API change (then PumpApi has work) - the world thread's idle
  // wait.
  void WaitForApi(Duration timeout);

  // The cluster-autoscaler pod's name ("cluster-autoscaler-<suffix>").
  const std::string& autoscaler_pod() const { return autoscaler_pod_; }

  void OnNodeChange(const sim::NodeChange& change) override;
  void OnPodChange(const sim::PodChange& change) override;
  void OnEvent(const sim::EventChange& change) override;

 private:
  void WriteNode(const api::Node& node);
  void WriteEvent(const sim::EventRecord& e);
  // Hands one API event to the world (pods and nodes written by others than the bridge);
  // false when it is not one of those.
  bool ApplyApiEvent(const apiserver::WatchEvent& e);
  void ApplyApiNode(const apiserver::WatchEvent& e);
  Status EnsureSystemObjects();
  // CA's status ConfigMap (kube-system/cluster-autoscaler-status), when it changed.

  sim::World& world_;
  apiserver::ObjectStore& store_;
  apiserver::PodLogs& logs_;
  std::unique_ptr<apiserver::Watch> watch_;
  std::string autoscaler_pod_;
  bool gpu_operator_;
  bool want_autoscaler_pod_;
  const apiserver::Resource* pods_;
  const apiserver::Resource* nodes_;
  const apiserver::Resource* events_;
  const apiserver::Resource* namespaces_;
  const apiserver::Resource* leases_;
};

}  // namespace tidepool::runtime
