// File: scheduler_loop.h
//
// SchedulerLoop: kube-scheduler's scheduling queue and loop around scheduler::Scheduler, fed by
// the Store's watch (kube-scheduler's informers and cache):
//   - the ClusterSnapshot is kept incrementally from store changes: nodes added, updated and
//     deleted; pods bound to a node (and not terminal) are on it until they are deleted or reach
//     a terminal phase;
//   - pending pods (no node, not terminal, not being deleted, schedulerName default-scheduler)
//     enter the active queue; a scheduling cycle tries every active pod in PrioritySort order
//     (higher priority first, then arrival);
//   - success: the pod is bound (binding subresource) and the event Normal Scheduled
//     "Successfully assigned <ns>/<pod> to <node>" is recorded;
//   - failure: the event Warning FailedScheduling with the scheduler's exact message, and the
//     pod condition PodScheduled=False, reason Unschedulable, with the same message; the pod
//     waits among the unschedulable pods. If preemption chose victims, they are deleted (event
//     Preempted on each) and the pod's status.nominatedNodeName is set;
//   - retries, as kube-scheduler's queue does them: a cluster change that may help (node added
//     or updated, a pod on a node deleted or finished) moves unschedulable pods back, each
//     after its backoff (1 s doubling per attempt up to 10 s); a pod left unschedulable for
//     5 minutes is retried anyway (podMaxInUnschedulablePodsDuration).
//
// Not thread-safe (single-threaded simulator).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "common/speed.h"
#include "common/timer_service.h"
#include "scheduler/scheduler.h"
#include "scheduler/snapshot/cluster_snapshot.h"
#include "sim/store.h"

namespace tidepool::sim {

struct SchedulerLoopOptions {
  // New pending pod -> first scheduling attempt.
  Duration first_attempt_delay = Duration::zero();
  Duration initial_backoff = std::chrono::seconds(1);    // podInitialBackoffDuration
  Duration max_backoff = std::chrono::seconds(10);       // podMaxBackoffDuration
  Duration max_unschedulable = std::chrono::minutes(5);  // podMaxInUnschedulablePodsDuration

  // Every Duration member, once (common/speed.h).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("firstAttemptDelay", first_attempt_delay, TimeBase::kEmulated);
    f("initialBackoff", initial_backoff, TimeBase::kEmulated);
    f("maxBackoff", max_backoff, TimeBase::kEmulated);
    f("maxUnschedulable", max_unschedulable, TimeBase::kEmulated);
  }
};

class SchedulerLoop final : public StoreObserver {
 public:
  // Every reference must outlive the loop. Registers itself as a store observer.
  SchedulerLoop(Store& store, TimerService& timers, const scheduler::Scheduler& scheduler,
                SchedulerLoopOptions options = {});
  ~SchedulerLoop() override;
  SchedulerLoop(const SchedulerLoop&) = delete;
  SchedulerLoop& operator=(const SchedulerLoop&) = delete;

  // Called after each failed attempt (with the pod as it was tried).
  void SetOnUnschedulable(std::function<void(const api::Pod&)> fn) {
    on_unschedulable_ = std::move(fn);
  }

  const scheduler::ClusterSnapshot& snapshot() const { return snapshot_; }
  // Pods waiting to be scheduled (any queue).
  size_t NumPending() const { return queue_.size(); }
  uint64_t attempts() const { return attempts_; }

  void OnNodeChange(const NodeChange& change) override;
  void OnPodChange(const PodChange& change) override;

 private:
  enum class Where { kActive, kBackoff, kUnschedulable };
  struct Queued {
    uint64_t seq = 0;  // arrival order
    int attempts = 0;
    Where where = Where::kActive;
    TimePoint backoff_until;
    TimePoint unschedulable_since;
  };

  TimePoint Now() const { return timers_.clock().Now(); }
  Duration BackoffFor(int attempts) const;
  void SnapshotAddPod(const api::PodConstSharedPtr& pod);
  void SnapshotRemovePod(const std::string& key);
  // A cluster change that may make unschedulable pods schedulable.
  void MoveAllToActiveOrBackoff();
  void RequestCycle(TimePoint at);
  void RunCycle();
  void ScheduleNextCycle();

  // Constant after construction.
  Store& store_;
  TimerService& timers_;
  const scheduler::Scheduler& scheduler_;
  const SchedulerLoopOptions options_;

  scheduler::ClusterSnapshot snapshot_;
  std::map<std::string, std::string, std::less<>> snap_pods_;            // pod key -> node
  std::map<std::string, std::set<std::string>, std::less<>> node_pods_;  // node -> pod keys
  // Bound pods whose node is not in the snapshot (yet): node -> pod keys.
  std::map<std::string, std::set<std::string>, std::less<>> waiting_for_node_;
  std::map<std::string, scheduler::PodInfoConstSharedPtr, std::less<>> infos_;  // bound pods
  std::map<std::string, Queued, std::less<>> queue_;
  uint64_t next_seq_ = 1;
  uint64_t attempts_ = 0;
  std::optional<TimePoint> cycle_at_;
  TimerService::TimerId cycle_timer_ = 0;
  bool in_cycle_ = false;
  std::function<void(const api::Pod&)> on_unschedulable_;
};

}  // namespace tidepool::sim
