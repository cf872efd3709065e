// File: kube_kubelets.h
//
// KubeKubelets: the emulated kubelets of `tidepool up` as API clients - one
// kubelet::PodLifecycle (kubelet/pod_lifecycle.h, the lifecycle the simulator's kubelets run
// too) per node of the API, the emulated cloud's nodes and nodes created through the API alike,
// fed by informers of nodes and pods (routed by spec.nodeName) and writing as a kubelet does:
//   - status: a merge PATCH of pods/<name>/status (kubelet/status_json.h: phase, conditions,
//     startTime, host and pod IPs, containerStatuses);
//   - events with source {kubelet, <node>} (Pulling, Pulled, Created, Started, Killing,
//     BackOff, FailedMount, Failed);
//   - the final removal once the containers stopped: DELETE with gracePeriodSeconds 0 and the
//     pod's uid as precondition (a pod with finalizers stays, terminating, until they go).
// What a kubelet reads of a pod is the object the informer delivered, with the status it wrote
// itself since (an older echo of its own write never replaces a newer write). The keys of every
// ConfigMap and Secret come from informers too (what a pod's volumes and environment need), or,
// for one the informers have not delivered, from a GET.
//
// The node side (kubelet/node_status.h), for each node a kubelet registered (its status has
// conditions) and each KWOK node (annotated kwok.x-k8s.io/node=fake):
//   - a KWOK node that is not Ready gets KWOK's node-initialize status when it appears (a merge
//     PATCH of nodes/<name>/status), so nodes created through the API by CA's or Karpenter's
//     kwok provider become Ready nodes of the cluster;
//   - its Lease in kube-node-lease is created, then renewed every nodeLeaseRenewInterval
//     (jittered by 4 %) with the resourceVersion last written (read again after a conflict);
//   - its conditions' lastHeartbeatTime is reported when the kubelet starts, then every
//     nodeStatusReportFrequency (a strategic merge PATCH of nodes/<name>/status, conditions
//     merged by type).
// Node status that changes (registration, Ready, GPUs) is the emulated cloud's to write
// (kubelet/api_node_sink.h). The node side runs on a thread of its own, so that thousands of
// Lease renewals never hold up a pod's start.
//
// Threads: informer handlers decode on the informers' threads and post to the kubelets' own
// thread (common/thread_timer_service.h), where every kubelet, its timers and its API writes
// run; the node side (Leases, heartbeats, KWOK's initialization) has a thread of its own too.
// Start/Stop from the owner's thread. With an executor (`tidepool simulate`;
// common/actor_timers.h) there is no thread: the informers are driven (handlers called on the
// executor's thread; the kubelets neither start nor stop them), and both kinds of work - the
// kubelets' and the node side's, events included - are callbacks on the executor, timed by its
// clock (Leases and heartbeats too). Start() and Stop() do not wait; Stop() cancels what is
// pending.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/actor_timers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/random.h"
#include "common/timer_service.h"
#include "kubelet/pod_lifecycle.h"
#include "runtime/kube_cluster.h"

namespace tidepool::runtime {

class KubeKubelets final : private kubelet::KubeletHost {
 public:
  // Every reference must outlive the kubelets; `logger` may be null. `clock` is the kubelets'
  // clock (their durations are `options`'), stamps events and drives the informers' back-off;
  // with `executor` the timers' clock is the executor's (simulate passes its clock as `clock`
  // too). `executor`, when set, selects the executor mode (see "Threads").
  KubeKubelets(const client::RestClient& kube, const Clock& clock, kubelet::KubeletOptions options,
               log::Logger* logger, uint64_t seed,
               client::SharedInformerFactory* informers = nullptr,
               TimerService* executor = nullptr);
  ~KubeKubelets() override;  // Stop()
  KubeKubelets(const KubeKubelets&) = delete;
  KubeKubelets& operator=(const KubeKubelets&) = delete;

  // Starts the informers and the kubelets' threads (with an executor: nothing to start).
  void Start();
  // Stops the informers and the threads (with an executor: cancels what is pending, leaves
  // the informers to their driver). Idempotent.
  void Stop();
  bool HasSynced() const;

 private:
  using Change = kubelet::PodLifecycle::Change;
  struct Record {
    kubelet::PodRecord rec;
    int64_t written_rv = 0;  // resourceVersion of this kubelet's last status write
  };
  // A node's heartbeats: its uid (the Lease's owner), the resourceVersion of the Lease last
  // written (0: read it first) and the two timers.
  struct NodeBeat {
    std::string uid;
    std::vector<std::string> condition_types;  // what the heartbeat touches
    nlohmann::json conditions;  // as last reported by its kubelet (not the node controller's)
    int64_t lease_rv = 0;
    TimerService::TimerId lease_timer = 0;
    TimerService::TimerId status_timer = 0;
  };
  void OnNode(Change change, client::ObjectRef node);
  // On node_timers_'s thread (the executor's).
  void StartNodeStatus(const nlohmann::json& node);
  void StopNodeStatus(const std::string& name);
  void RenewLease(const std::string& name);
  void ReportNodeStatus(const std::string& name);
  // The node's conditions as the controller manager left them: its kubelet's, remembered; or
  // marked Unknown by the node lifecycle controller while the kubelet lives (a stall of this
  // process, a suspended machine): reported again, as a kubelet's next status update does.
  void OnNodeConditions(const nlohmann::json& node);
  Duration Jittered(Duration d);
  void OnPod(Change change, api::PodConstSharedPtr pod, int64_t rv);
  // A running pod whose every container is ready but whose Ready or ContainersReady another
  // writer set otherwise: the kubelet's status again (its status manager's sync).
  void RestoreReady(const std::string& key);
  kubelet::PodLifecycle* KubeletOf(const std::string& node);

  // By namespace/name; nullopt: known absent (a GET's NotFound).
  using ConfigIndex = std::map<std::string, std::optional<kubelet::ConfigObject>, std::less<>>;
  std::vector<client::Informer*> Informers() const;
  const kubelet::ConfigObject* FindConfig(api::ConfigReference::Kind kind, std::string_view ns,
                                          std::string_view name) const override;
  const kubelet::PodRecord* GetPod(const std::string& key) const override;
  void UpdatePodStatus(const std::string& key, api::PodStatus status,
                       std::vector<kubelet::ContainerStatus> containers) override;
  void Event(const api::Pod& pod, const std::string& node, std::string_view type,
             std::string_view reason, std::string message) override;
  void RemovePod(const std::string& key) override;

  const client::RestClient& kube_;
  const Clock& clock_;
  const kubelet::KubeletOptions options_;
  log::Logger* logger_;
  ActorTimers timers_;  // its own thread, or the executor
  KubeEventRecorder events_;
  std::shared_ptr<client::Informer> node_informer_;
  std::shared_ptr<client::Informer> pod_informer_;
  std::shared_ptr<client::Informer> configmap_informer_;
  std::shared_ptr<client::Informer> secret_informer_;
  // On the kubelets' thread only.
  std::map<std::string, std::unique_ptr<kubelet::PodLifecycle>, std::less<>> kubelets_;
  std::map<std::string, Record, std::less<>> pods_;  // pods bound to a node, by key
  // Keys by namespace/name: the informers' and FindConfig's reads.
  mutable ConfigIndex configmaps_, secrets_;
  // The keys of pods_ by node name (a node that appears finds its pods without a scan).
  std::map<std::string, std::set<std::string>, std::less<>> pods_by_node_;
  // The node informer's handler: each node's Ready status as last posted to node_timers_.
  std::mutex ready_mu_;
  std::map<std::string, std::string, std::less<>> ready_seen_;
  // Each node's spec.unschedulable as last seen (the kubelet's lastNodeUnschedulable).
  std::map<std::string, bool, std::less<>> unschedulable_seen_;
  // On node_timers_'s thread only: the nodes whose Lease and heartbeats this process keeps.
  ActorTimers node_timers_;  // its own thread, or the executor
  std::map<std::string, NodeBeat, std::less<>> beats_;
  Random jitter_;
  bool started_ = false;
};

}  // namespace tidepool::runtime
