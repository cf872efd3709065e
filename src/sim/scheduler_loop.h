// File: scheduler_loop.h
//
// SchedulerLoop: kube-scheduler in the simulator - scheduler::SchedulingQueue (the queue, cache
// and loop both runtimes share; scheduler/queue/scheduling_queue.h) fed by the Store's watch,
// acting on the Store: the binding is Store::BindPod, events are the Store's with source
// default-scheduler, the Unschedulable condition and nominatedNodeName Store::SetPodCondition,
// a preemption victim Store::DeletePod. `tidepool up` runs the same queue over the API's
// informers instead (runtime/kube_scheduler.h).
//
// Not thread-safe (single-threaded simulator).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/timer_service.h"
#include "scheduler/queue/scheduling_queue.h"
#include "scheduler/scheduler.h"
#include "sim/store.h"

namespace tidepool::sim {

using SchedulerLoopOptions = scheduler::SchedulingQueueOptions;

class SchedulerLoop final : public StoreObserver, private scheduler::SchedulingActions {
 public:
  // Every reference must outlive the loop. Registers itself as a store observer and starts
  // from what the store holds.
  SchedulerLoop(Store& store, TimerService& timers, const scheduler::Scheduler& scheduler,
                SchedulerLoopOptions options = {});
  ~SchedulerLoop() override;
  SchedulerLoop(const SchedulerLoop&) = delete;
  SchedulerLoop& operator=(const SchedulerLoop&) = delete;

  // Called after each failed attempt (with the pod as it was tried).
  void SetOnUnschedulable(std::function<void(const api::Pod&)> fn) {
    queue_.SetOnUnschedulable(std::move(fn));
  }

  const scheduler::ClusterSnapshot& snapshot() const { return queue_.snapshot(); }
  // Pods waiting to be scheduled (any queue).
  size_t NumPending() const { return queue_.NumPending(); }
  uint64_t attempts() const { return queue_.attempts(); }

  void OnNodeChange(const NodeChange& change) override;
  void OnPodChange(const PodChange& change) override;

 private:
  Status Bind(const api::Pod& pod, const std::string& node) override;
  void Event(const scheduler::PodRef& pod, std::string_view type, std::string_view reason,
             std::string message) override;
  void SetUnschedulable(const api::Pod& pod, const api::PodCondition& condition,
                        const std::optional<std::string>& nominated_node) override;
  void DeleteVictim(const scheduler::PodRef& victim) override;

  Store& store_;
  scheduler::SchedulingQueue queue_;
};

}  // namespace tidepool::sim
