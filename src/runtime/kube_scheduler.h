// File: kube_scheduler.h
//
// KubeScheduler: kube-scheduler as an API client - the one scheduling queue both runtimes use
// (scheduler::SchedulingQueue) fed by informers of nodes and pods, acting through the API as
// kube-scheduler 1.32 does:
//   - the binding cycle: VolumeBinding's PreBind (BindPodVolumes) for a pod with claims not
//     bound yet - each WaitForFirstConsumer claim gets its static volume (the volume's
//     claimRef, bound-by-controller; kcm's PV controller completes the binding) or, when none
//     matches, volume.kubernetes.io/selected-node = the node (the provisioner makes its volume
//     in that node's zone); then every `volumeBindPoll` (1 s) until every claim is fully bound
//     (plugins/volume_binding's CheckBindings), an error (`provisioning failed for PVC "x"`
//     when the provisioner gave up), or `volumeBindTimeout` (600 s: `context deadline
//     exceeded`), each error as `running PreBind plugin "VolumeBinding": binding volumes: ...`;
//     then POST pods/<name>/binding {"target": {"kind": "Node", "name": ...}} with the pod's
//     uid in the binding's metadata (a pod deleted and re-created is not bound by mistake). So
//     Scheduled comes after the volume is provisioned and bound, as in a real cluster; a pod
//     deleted while it waits stops the wait;
//   - Unschedulable: a strategic-merge PATCH of pods/<name>/status setting the PodScheduled
//     condition (and status.nominatedNodeName when preemption chose a node), written only when
//     it changes (podutil.UpdatePodCondition), lastTransitionTime when its status changes;
//   - preemption victims: DELETE with the pod's uid as precondition;
//   - events Scheduled / FailedScheduling / Preempted with source default-scheduler.
// In `tidepool up` it runs over the in-process transport, so a node created through the API
// (KWOK's, or a user's) is a node to schedule onto like the emulated cloud's.
//
// With a VolumeCache (the one the scheduler's VolumeBinding plugin reads, scheduler/framework/
// volume_lister.h), informers of persistentvolumeclaims, persistentvolumes and storageclasses
// keep it, and each add or update is a storage event for the queue (its unschedulable pods'
// hints); scheduling waits for them to sync too.
// Threads: informer handlers decode objects on the informers' threads and post them to the
// scheduler's own thread (common/thread_timer_service.h), where the queue, its timers and every
// API write run; nothing is scheduled before both informers have synced (kube-scheduler's
// WaitForCacheSync: Start() waits up to a minute for them). Start/Stop from the owner's thread.
// With an executor (`tidepool simulate`; common/actor_timers.h) there is no thread: the
// informers are driven (handlers called on the executor's thread; the scheduler neither starts
// nor stops them), the handlers post to the executor, and the queue, its timers and every API
// write (events included) are callbacks on it. Start() does not wait: it checks at once, then
// every 100 ms of the executor's clock (WaitForCacheSync's poll), whether both informers have
// synced; until then changes are held, as without an executor. Stop() cancels what is pending.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/actor_timers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/timer_service.h"
#include "runtime/kube_cluster.h"
#include "scheduler/framework/volume_lister.h"
#include "scheduler/plugins/volume_binding/volume_binding.h"
#include "scheduler/queue/scheduling_queue.h"
#include "scheduler/scheduler.h"

namespace tidepool::runtime {

class KubeScheduler final : private scheduler::SchedulingActions {
 public:
  // Every reference must outlive the scheduler; `logger` may be null. `clock` stamps events,
  // drives the informers' back-off and is the queue's clock (its durations are `options`');
  // with `executor` the queue's clock is the executor's (simulate passes its clock as `clock`
  // too). `executor`, when set, selects the executor mode (see "Threads").
  KubeScheduler(const client::RestClient& kube, const Clock& clock,
                const scheduler::Scheduler& scheduler, scheduler::SchedulingQueueOptions options,
                log::Logger* logger, uint64_t seed,
                client::SharedInformerFactory* informers = nullptr,
                TimerService* executor = nullptr,
                std::shared_ptr<scheduler::VolumeCache> volumes = nullptr);
  ~KubeScheduler() override;  // Stop()
  KubeScheduler(const KubeScheduler&) = delete;
  KubeScheduler& operator=(const KubeScheduler&) = delete;

  // Starts the informers and the scheduler's thread; scheduling begins once both informers
  // have synced. With an executor: see "Threads".
  void Start();
  // Stops the informers and the thread (with an executor: cancels what is pending, leaves the
  // informers to their driver). Idempotent.
  void Stop();

  bool HasSynced() const;

 private:
  using Change = scheduler::SchedulingQueue::Change;
  void OnNode(Change change, const client::ObjectRef& obj);
  void OnPod(Change change, const client::ObjectRef& obj);
  // A claim, volume or class: kept in volumes_ (on the informer's thread), then a storage
  // event for the queue.
  void OnStorage(scheduler::ClusterEvent::Storage kind, Change change,
                 const client::ObjectRef& obj);
  // Hands a change to the queue's thread: before both informers synced, changes are held and
  // delivered in order (nodes first) once they have.
  void Deliver(bool node, std::function<void()> fn);
  // Marks the informers synced and posts what was held (nodes first).
  void ReleaseHeld();
  // With an executor: ReleaseHeld() once both informers have synced, checked every 100 ms.
  void CheckSynced();

  // A binding cycle waiting for the pod's claims.
  struct VolumeWait {
    api::Pod pod;
    std::string node;
    scheduler::Reservation reservation;
    scheduler::plugins::PodVolumeWrites writes;
    TimePoint deadline;
    BindDone done;
  };
  // BindPodVolumes' API writes (bindAPIUpdate) for the pod's WaitForFirstConsumer claims that
  // are not bound (see the file comment); a claim already given `node` is waited for again.
  // The API's answers go into the VolumeCache at once (the assume cache), so a volume chosen
  // here is not chosen again for the next pod before the informer shows the write.
  StatusOr<scheduler::plugins::PodVolumeWrites> WriteVolumeBindings(const api::Pod& pod,
                                                                    const std::string& node);
  // A static volume given the claim's reference, at the resourceVersion it was chosen at (a
  // conflict when it changed since); the volume as written.
  StatusOr<nlohmann::json> BindVolume(const api::PersistentVolumeClaim& claim,
                                      const api::PersistentVolume& volume);
  void Bind(const api::Pod& pod, const std::string& node, const scheduler::Reservation& reservation,
            BindDone done) override;
  // One look of BindPodVolumes' poll; binds the pod when its claims are bound.
  void PollVolumes(std::shared_ptr<VolumeWait> wait);
  Status PostBinding(const api::Pod& pod, const std::string& node,
                     const scheduler::Reservation& reservation);
  void Event(const scheduler::PodRef& pod, std::string_view type, std::string_view reason,
             std::string message) override;
  void SetUnschedulable(const api::Pod& pod, const api::PodCondition& condition,
                        const std::optional<std::string>& nominated_node) override;
  void DeleteVictim(const scheduler::PodRef& victim) override;

  const client::RestClient& kube_;
  const Clock& clock_;
  const Duration bind_timeout_;
  const Duration bind_poll_;
  log::Logger* logger_;
  ActorTimers timers_;  // its own thread, or the executor
  scheduler::SchedulingQueue queue_;
  KubeEventRecorder events_;
  std::shared_ptr<client::Informer> nodes_;
  std::shared_ptr<client::Informer> pods_;
  // With a VolumeCache: the claims, volumes and classes that fill it (VolumeBinding's listers).
  std::shared_ptr<scheduler::VolumeCache> volumes_;
  std::vector<std::shared_ptr<client::Informer>> storage_;
  std::mutex mu_;  // guards synced_ and the held changes
  bool synced_ = false;
  std::vector<std::function<void()>> held_nodes_;
  std::vector<std::function<void()>> held_pods_;
  bool started_ = false;
};

}  // namespace tidepool::runtime
