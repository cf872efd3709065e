#include "sim/scheduler_loop.h"

#include <utility>

namespace tidepool::sim {
namespace {

scheduler::SchedulingQueue::Change ToQueue(ChangeType t) {
  switch (t) {
    case ChangeType::kAdded:
      return scheduler::SchedulingQueue::Change::kAdded;
    case ChangeType::kModified:
      return scheduler::SchedulingQueue::Change::kModified;
    case ChangeType::kDeleted:
      break;
  }
  return scheduler::SchedulingQueue::Change::kDeleted;
}

}  // namespace

SchedulerLoop::SchedulerLoop(Store& store, TimerService& timers,
                             const scheduler::Scheduler& scheduler, SchedulerLoopOptions options)
    : store_(store), queue_(timers, scheduler, *this, options) {
  store_.AddObserver(this);
  for (const api::NodeConstSharedPtr& n : store_.ListNodes()) {
    queue_.OnNode(scheduler::SchedulingQueue::Change::kAdded, n);
  }
  for (const PodRecord& p : store_.ListPods()) {
    queue_.OnPod(scheduler::SchedulingQueue::Change::kAdded, p.pod);
  }
}

SchedulerLoop::~SchedulerLoop() { store_.RemoveObserver(this); }

void SchedulerLoop::OnNodeChange(const NodeChange& change) {
  queue_.OnNode(ToQueue(change.type), change.node);
}

void SchedulerLoop::OnPodChange(const PodChange& change) {
  queue_.OnPod(ToQueue(change.type), change.pod.pod);
}

Status SchedulerLoop::Bind(const api::Pod& pod, const std::string& node) {
  return store_.BindPod(pod.Key(), node);
}

void SchedulerLoop::Event(const scheduler::PodRef& pod, std::string_view type,
                          std::string_view reason, std::string message) {
  store_.RecordEvent(autoscaler::ObjectRef{"Pod", pod.namespace_, pod.name, pod.uid}, type, reason,
                     std::move(message), EventSource{"default-scheduler", ""});
}

void SchedulerLoop::SetUnschedulable(const api::Pod& pod, const api::PodCondition& condition,
                                     const std::optional<std::string>& nominated_node) {
  (void)store_.SetPodCondition(pod.Key(), condition, nominated_node);
}

void SchedulerLoop::DeleteVictim(const scheduler::PodRef& victim) {
  (void)store_.DeletePod(victim.namespace_, victim.name);
}

}  // namespace tidepool::sim
