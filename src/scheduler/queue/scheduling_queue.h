// File: scheduling_queue.h
//
// SchedulingQueue: kube-scheduler's scheduling queue, cache and loop around scheduler::Scheduler,
// fed with node and pod changes (kube-scheduler's informers and cache) and acting on the
// cluster through SchedulingActions: runtime/kube_scheduler.h over the API's informers, in
// `tidepool up` and `tidepool simulate` alike.
//   - the ClusterSnapshot is kept incrementally: nodes added, updated and deleted; pods bound to
//     a node (and not terminal) are on it until they are deleted or reach a terminal phase; a
//     pod bound to a node not seen yet waits for it;
//   - pending pods (no node, not terminal, not being deleted, schedulerName default-scheduler)
//     enter the active queue; a scheduling cycle tries every active pod in PrioritySort order
//     (higher priority first, then arrival);
//   - success: the pod is assumed on its node and its binding cycle starts
//     (SchedulingActions::Bind, which may wait: for its volumes, up to 10 minutes). While it
//     runs the pod stays assumed and its updates are only kept; when it succeeds the event
//     Normal Scheduled "Successfully assigned <ns>/<pod> to <node>" is recorded; when it fails
//     (handleBindingCycleError) the assumption is forgotten (an AssignedPodDelete for the
//     others), the event Warning FailedScheduling and the condition PodScheduled=False, reason
//     SchedulerError, carry the error, and the pod waits out its backoff. A pod deleted, being
//     deleted or created again under its name meanwhile is forgotten at once, and its cycle's
//     end changes nothing; a pod stays assumed after a successful cycle until its binding is
//     seen;
//   - failure: the event Warning FailedScheduling with the scheduler's exact message, and the
//     pod condition PodScheduled=False, reason Unschedulable, with the same message; the pod
//     waits among the unschedulable pods. If preemption chose victims, each gets the event
//     Preempted and is deleted, and the pod's status.nominatedNodeName is set;
//   - retries, as kube-scheduler 1.32's queue does them with queueing hints
//     (SchedulerQueueingHints, on by default): each cluster change - a node added, a node
//     update of what scheduling reads (nodeSchedulingPropertiesChange: allocatable, labels,
//     taints or an uncordon, annotations, a condition's status; a heartbeat alone is no
//     event), a pod bound to a node deleted or finished - is put to the plugins that rejected
//     each unschedulable pod (EnqueueExtensions::Hint, scheduler/framework/plugin.h); a pod
//     one of them answers kQueue for (or that no plugin rejected) goes back, after its backoff
//     (1 s doubling per attempt up to 10 s). So a node's Ready condition alone retries nobody,
//     the removal of a taint the pod did not tolerate does. A deleted node retries nobody. A
//     waiting pod given more tolerations is a change too (UpdatePodToleration), put to its
//     rejectors, and so is a claim, volume or class added or updated (OnStorageChange). A pod
//     left unschedulable for 5 minutes is retried anyway (podMaxInUnschedulablePodsDuration). Pods
//     of one class rejected by the same plugins are asked about once per change.
//
// Time: every wait is a timer of the injected TimerService; durations are the options'
// (divided by --speed where the runtime says so).
// Not thread-safe: every call, and every timer, on the TimerService's one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "api/pod.h"
#include "common/speed.h"
#include "common/status.h"
#include "common/timer_service.h"
#include "scheduler/scheduler.h"
#include "scheduler/snapshot/cluster_snapshot.h"

namespace tidepool::scheduler {

struct SchedulingQueueOptions {
  // New pending pod -> first scheduling attempt.
  Duration first_attempt_delay = Duration::zero();
  Duration initial_backoff = std::chrono::seconds(1);    // podInitialBackoffDuration
  Duration max_backoff = std::chrono::seconds(10);       // podMaxBackoffDuration
  Duration max_unschedulable = std::chrono::minutes(5);  // podMaxInUnschedulablePodsDuration
  // VolumeBinding's PreBind: how long the binding cycle waits for the pod's claims to be bound
  // (VolumeBindingArgs.bindTimeoutSeconds) and how often it looks (BindPodVolumes' poll).
  Duration volume_bind_timeout = std::chrono::seconds(600);
  Duration volume_bind_poll = std::chrono::seconds(1);
  // The scheduler's profile (a packing policy's: scheduler/plugins/packing/packing.h).
  Profile profile = DefaultProfile();

  // Every Duration member, once (common/speed.h).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("firstAttemptDelay", first_attempt_delay, TimeBase::kEmulated);
    f("initialBackoff", initial_backoff, TimeBase::kEmulated);
    f("maxBackoff", max_backoff, TimeBase::kEmulated);
    f("maxUnschedulable", max_unschedulable, TimeBase::kEmulated);
    f("volumeBindTimeout", volume_bind_timeout, TimeBase::kEmulated);
    f("volumeBindPoll", volume_bind_poll, TimeBase::kEmulated);
  }
};

// The pod an event is about.
struct PodRef {
  std::string namespace_;
  std::string name;
  std::string uid;
};

// What the scheduler does to the cluster. Called on the queue's thread; a call may deliver
// changes back to the queue before it returns.
class SchedulingActions {
 public:
  using BindDone = std::function<void(const Status&)>;
  virtual ~SchedulingActions() = default;
  // The binding cycle: PreBind (the pod's volumes), then the binding subresource
  // (spec.nodeName = node; the Binding carries what Reserve decided as annotations,
  // alibabacloud.com/gpu-index, which the API server copies onto the pod). `done` is called
  // once, on the queue's thread, at once or later, with the outcome; an error's message is
  // kube-scheduler's (the FailedScheduling event's text).
  virtual void Bind(const api::Pod& pod, const std::string& node, const Reservation& reservation,
                    BindDone done) = 0;
  // An event with source default-scheduler; `type` is "Normal" or "Warning".
  virtual void Event(const PodRef& pod, std::string_view type, std::string_view reason,
                     std::string message) = 0;
  // The pod's PodScheduled=False condition, and status.nominatedNodeName when preemption chose
  // a node.
  virtual void SetUnschedulable(const api::Pod& pod, const api::PodCondition& condition,
                                const std::optional<std::string>& nominated_node) = 0;
  // Preemption: deletes a victim (graceful, as kube-scheduler's DELETE).
  virtual void DeleteVictim(const PodRef& victim) = 0;
};

class SchedulingQueue {
 public:
  enum class Change { kAdded, kModified, kDeleted };

  // Every reference must outlive the queue.
  SchedulingQueue(TimerService& timers, const Scheduler& scheduler, SchedulingActions& actions,
                  SchedulingQueueOptions options = {});
  ~SchedulingQueue();  // cancels the pending cycle
  SchedulingQueue(const SchedulingQueue&) = delete;
  SchedulingQueue& operator=(const SchedulingQueue&) = delete;

  void OnNode(Change change, const api::NodeConstSharedPtr& node);
  // For kDeleted, the last state seen.
  void OnPod(Change change, const api::PodConstSharedPtr& pod);
  // A claim, volume or class added or updated (ClusterEvent::kStorageChange): put to the
  // rejectors of the unschedulable pods, as a node change is.
  void OnStorageChange(const ClusterEvent& event);

  // Called after each failed attempt (with the pod as it was tried).
  void SetOnUnschedulable(std::function<void(const api::Pod&)> fn) {
    on_unschedulable_ = std::move(fn);
  }

  const ClusterSnapshot& snapshot() const { return snapshot_; }
  // Pods waiting to be scheduled (any queue).
  size_t NumPending() const { return queue_.size(); }
  uint64_t attempts() const { return attempts_; }

  // A pod kube-scheduler would queue: no node, not terminal, not being deleted, schedulerName
  // default-scheduler.
  static bool IsPending(const api::Pod& pod);

 private:
  enum class Where { kActive, kBackoff, kUnschedulable };
  struct Queued {
    api::PodConstSharedPtr pod;  // the latest state seen
    uint64_t seq = 0;            // arrival order
    int32_t priority = 0;        // spec.priority
    int attempts = 0;
    Where where = Where::kActive;
    TimePoint backoff_until;
    TimePoint unschedulable_since;
    // The last failed attempt's pod and the plugins that rejected it (kUnschedulable only).
    PodInfoConstSharedPtr info;
    std::set<std::string> rejectors;
  };
  // Unschedulable pods of one class rejected by the same plugins: the queueing hints'
  // answers are the same for all of them.
  struct HintGroup {
    PodInfoConstSharedPtr sample;
    std::set<std::string> rejectors;
    std::set<std::pair<TimePoint, uint64_t>> members;  // their unschedulable_ entries
  };

  TimePoint Now() const { return timers_.clock().Now(); }
  Duration BackoffFor(int attempts) const;
  void SnapshotAddPod(const api::PodConstSharedPtr& pod);
  void SnapshotRemovePod(const std::string& key);
  // Each queued pod is in one of the indexes below, by its `where`; these keep them so.
  void Index(const std::string& key, const Queued& q);
  void Unindex(const Queued& q);
  void Dequeue(const std::string& key);
  static std::string GroupKey(const Queued& q);
  // Moves a queued pod to active_, or to backoff_ if its backoff has not ended at `now`.
  void Requeue(std::string key, TimePoint now);
  // A cluster change: the unschedulable pods it may help (every one when `event` is null) go
  // back (see the file comment).
  void MoveAllToActiveOrBackoff(const ClusterEvent* event);
  // AssignedPodDelete: `pod`, bound to a node, was deleted or finished.
  void AssignedPodGone(const api::Pod& pod);
  // ForgetPod: the assumed pod `key` leaves its node; AssignedPodDelete for the others.
  void ForgetAssumed(const std::string& key, const api::Pod& pod);
  // The end of the binding cycle of the pod `key` (`ref`) assumed on `node`.
  void BindingDone(const std::string& key, const PodRef& ref, const std::string& node,
                   const Status& status);
  void RequestCycle(TimePoint at);
  void RunCycle();
  void TryOne(const std::string& key, TimePoint now);
  void ScheduleNextCycle();

  TimerService& timers_;
  const Scheduler& scheduler_;
  SchedulingActions& actions_;
  const SchedulingQueueOptions options_;

  ClusterSnapshot snapshot_;
  // Each node as last seen, for nodeSchedulingPropertiesChange.
  std::map<std::string, api::NodeConstSharedPtr, std::less<>> nodes_;
  std::map<std::string, std::string, std::less<>> snap_pods_;            // pod key -> node
  std::map<std::string, std::set<std::string>, std::less<>> node_pods_;  // node -> pod keys
  // Bound pods whose node is not in the snapshot (yet): node -> pod key -> pod, and back.
  std::map<std::string, std::map<std::string, api::PodConstSharedPtr>, std::less<>>
      waiting_for_node_;
  std::map<std::string, std::string, std::less<>> waiting_pods_;  // pod key -> node
  std::map<std::string, Queued, std::less<>> queue_;
  // The queued pods by where they wait, so that no event scans the whole queue: active
  // in PrioritySort order (-priority, arrival), backoff by its end, unschedulable by since.
  std::map<std::pair<int64_t, uint64_t>, std::string> active_;
  std::map<std::pair<TimePoint, uint64_t>, std::string> backoff_;
  std::map<std::pair<TimePoint, uint64_t>, std::string> unschedulable_;
  std::map<std::string, HintGroup> groups_;  // by GroupKey
  // Pods in their binding cycle (assumed, not in queue_): their entries, kept for a retry,
  // until the informer shows them bound, gone or being deleted.
  struct Binding {
    Queued queued;
    std::string uid;
    bool bound = false;  // the cycle succeeded; the pod's update is on its way
  };
  std::map<std::string, Binding, std::less<>> binding_;
  uint64_t next_seq_ = 1;
  uint64_t attempts_ = 0;
  std::optional<TimePoint> cycle_at_;
  TimerService::TimerId cycle_timer_ = 0;
  bool in_cycle_ = false;
  std::function<void(const api::Pod&)> on_unschedulable_;
};

}  // namespace tidepool::scheduler
