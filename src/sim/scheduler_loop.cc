#include "sim/scheduler_loop.h"

#include <algorithm>
#include <string>
#include <vector>

#include "autoscaler/core/scale_up.h"

namespace tidepool::sim {
namespace {

bool IsPending(const api::Pod& pod) {
  return pod.spec.node_name.empty() && !IsTerminal(pod) &&
         !pod.meta.deletion_timestamp.has_value() && pod.spec.scheduler_name == "default-scheduler";
}

}  // namespace

SchedulerLoop::SchedulerLoop(Store& store, TimerService& timers,
                             const scheduler::Scheduler& scheduler, SchedulerLoopOptions options)
    : store_(store), timers_(timers), scheduler_(scheduler), options_(options) {
  store_.AddObserver(this);
  // Start from what the store holds already.
  for (const api::NodeConstSharedPtr& n : store_.ListNodes()) {
    OnNodeChange(NodeChange{ChangeType::kAdded, nullptr, n});
  }
  for (const PodRecord& p : store_.ListPods()) {
    OnPodChange(PodChange{ChangeType::kAdded, std::nullopt, p});
  }
}

SchedulerLoop::~SchedulerLoop() {
  store_.RemoveObserver(this);
  if (cycle_at_.has_value()) {
    timers_.Cancel(cycle_timer_);
  }
}

Duration SchedulerLoop::BackoffFor(int attempts) const {
  Duration d = options_.initial_backoff;
  for (int i = 1; i < attempts && d < options_.max_backoff; ++i) {
    d *= 2;
  }
  return std::min(d, options_.max_backoff);
}

// ---- The cache ---------------------------------------------------------------------------------

void SchedulerLoop::SnapshotAddPod(const api::PodConstSharedPtr& pod) {
  const std::string key = pod->Key();
  const std::string& node = pod->spec.node_name;
  if (snap_pods_.count(key) > 0) {
    return;
  }
  if (snapshot_.GetNodeInfo(node) == nullptr) {
    waiting_for_node_[node].insert(key);
    infos_[key] = scheduler::MakePodInfo(pod);
    return;
  }
  auto info = scheduler::MakePodInfo(pod);
  if (snapshot_.AddPod(info, node).ok()) {
    snap_pods_[key] = node;
    node_pods_[node].insert(key);
    infos_[key] = info;
  }
}

void SchedulerLoop::SnapshotRemovePod(const std::string& key) {
  infos_.erase(key);
  auto it = snap_pods_.find(key);
  if (it == snap_pods_.end()) {
    for (auto& [node, keys] : waiting_for_node_) {
      keys.erase(key);
    }
    return;
  }
  (void)snapshot_.RemovePod(key, it->second);
  node_pods_[it->second].erase(key);
  snap_pods_.erase(it);
}

void SchedulerLoop::OnNodeChange(const NodeChange& change) {
  const std::string& name = change.node->meta.name;
  switch (change.type) {
    case ChangeType::kAdded: {
      (void)snapshot_.AddNode(change.node);
      auto waiting = waiting_for_node_.find(name);
      if (waiting != waiting_for_node_.end()) {
        const std::set<std::string> keys = std::move(waiting->second);
        waiting_for_node_.erase(waiting);
        for (const std::string& key : keys) {
          const PodRecord* rec = store_.GetPod(key);
          if (rec != nullptr) {
            infos_.erase(key);
            SnapshotAddPod(rec->pod);
          }
        }
      }
      break;
    }
    case ChangeType::kModified:
      (void)snapshot_.UpdateNode(change.node);
      break;
    case ChangeType::kDeleted: {
      (void)snapshot_.RemoveNode(name);
      auto it = node_pods_.find(name);
      if (it != node_pods_.end()) {
        for (const std::string& key : it->second) {
          snap_pods_.erase(key);
          infos_.erase(key);
        }
        node_pods_.erase(it);
      }
      break;
    }
  }
  if (change.type != ChangeType::kDeleted) {
    MoveAllToActiveOrBackoff();
  }
}

void SchedulerLoop::OnPodChange(const PodChange& change) {
  const api::PodConstSharedPtr& pod = change.pod.pod;
  const std::string key = pod->Key();
  if (change.type == ChangeType::kDeleted) {
    queue_.erase(key);
    const bool was_assigned = snap_pods_.count(key) > 0;
    SnapshotRemovePod(key);
    if (was_assigned) {
      MoveAllToActiveOrBackoff();  // AssignedPodDelete
    }
    return;
  }
  if (!pod->spec.node_name.empty()) {
    queue_.erase(key);
    if (IsTerminal(*pod)) {
      const bool was_assigned = snap_pods_.count(key) > 0;
      SnapshotRemovePod(key);
      if (was_assigned) {
        MoveAllToActiveOrBackoff();
      }
    } else {
      SnapshotAddPod(pod);
    }
    return;
  }
  if (!IsPending(*pod)) {
    queue_.erase(key);
    return;
  }
  if (queue_.count(key) == 0) {
    Queued q;
    q.seq = next_seq_++;
    q.where = Where::kActive;
    queue_.emplace(key, q);
    RequestCycle(Now() + options_.first_attempt_delay);
  }
}

// ---- The queue ---------------------------------------------------------------------------------

void SchedulerLoop::MoveAllToActiveOrBackoff() {
  const TimePoint now = Now();
  bool any = false;
  for (auto& [key, q] : queue_) {
    if (q.where != Where::kUnschedulable) {
      continue;
    }
    q.where = q.backoff_until <= now ? Where::kActive : Where::kBackoff;
    any = true;
  }
  if (any) {
    ScheduleNextCycle();
  }
}

void SchedulerLoop::RequestCycle(TimePoint at) {
  if (in_cycle_) {
    return;  // RunCycle schedules the next one when it ends
  }
  if (cycle_at_.has_value()) {
    if (*cycle_at_ <= at) {
      return;
    }
    timers_.Cancel(cycle_timer_);
  }
  cycle_at_ = at;
  cycle_timer_ = timers_.ScheduleAt(at, [this] {
    cycle_at_.reset();
    RunCycle();
  });
}

void SchedulerLoop::ScheduleNextCycle() {
  std::optional<TimePoint> next;
  auto consider = [&](TimePoint t) {
    if (!next.has_value() || t < *next) {
      next = t;
    }
  };
  const TimePoint now = Now();
  for (const auto& [key, q] : queue_) {
    switch (q.where) {
      case Where::kActive:
        consider(now);
        break;
      case Where::kBackoff:
        consider(q.backoff_until);
        break;
      case Where::kUnschedulable:
        consider(q.unschedulable_since + options_.max_unschedulable);
        break;
    }
  }
  if (next.has_value()) {
    RequestCycle(std::max(*next, now));
  }
}

void SchedulerLoop::RunCycle() {
  const TimePoint now = Now();
  in_cycle_ = true;
  std::vector<std::pair<std::string, Queued*>> active;
  for (auto& [key, q] : queue_) {
    if (q.where == Where::kBackoff && q.backoff_until <= now) {
      q.where = Where::kActive;
    }
    if (q.where == Where::kUnschedulable &&
        now - q.unschedulable_since >= options_.max_unschedulable) {
      q.where = q.backoff_until <= now ? Where::kActive : Where::kBackoff;
    }
    if (q.where == Where::kActive) {
      active.emplace_back(key, &q);
    }
  }
  struct Item {
    std::string key;
    int32_t priority;
    uint64_t seq;
  };
  std::vector<Item> order;
  for (const auto& [key, q] : active) {
    const PodRecord* rec = store_.GetPod(key);
    if (rec == nullptr) {
      continue;
    }
    order.push_back(Item{key, rec->pod->Priority(), q->seq});
  }
  // PrioritySort: higher priority first, then arrival.
  std::sort(order.begin(), order.end(), [](const Item& a, const Item& b) {
    return a.priority != b.priority ? a.priority > b.priority : a.seq < b.seq;
  });
  for (const Item& item : order) {
    auto qit = queue_.find(item.key);
    const PodRecord* rec = store_.GetPod(item.key);
    if (qit == queue_.end() || rec == nullptr || !IsPending(*rec->pod)) {
      continue;
    }
    const api::PodConstSharedPtr pod = rec->pod;
    ++attempts_;
    auto info = scheduler::MakePodInfo(pod);
    scheduler::ScheduleResult r = scheduler_.ScheduleOne(info, snapshot_);
    const std::string pod_ref = pod->meta.namespace_ + "/" + pod->meta.name;
    if (r.Scheduled()) {
      // Assumed in the snapshot by ScheduleOne; the binding makes it so in the store.
      snap_pods_[item.key] = r.node;
      node_pods_[r.node].insert(item.key);
      infos_[item.key] = info;
      queue_.erase(qit);
      Status s = store_.BindPod(item.key, r.node);
      if (!s.ok()) {
        SnapshotRemovePod(item.key);
        continue;
      }
      store_.RecordEvent(RefOf(*pod), "Normal", "Scheduled",
                         "Successfully assigned " + pod_ref + " to " + r.node,
                         EventSource{"default-scheduler", ""});
      continue;
    }
    Queued& q = qit->second;
    ++q.attempts;
    q.backoff_until = now + BackoffFor(q.attempts);
    q.unschedulable_since = now;
    q.where = Where::kUnschedulable;
    store_.RecordEvent(RefOf(*pod), "Warning", "FailedScheduling", r.message,
                       EventSource{"default-scheduler", ""});
    std::optional<std::string> nominated;
    if (!r.nominated_node.empty()) {
      nominated = r.nominated_node;
      for (const scheduler::PodInfoConstSharedPtr& v : r.victims) {
        store_.RecordEvent(autoscaler::RefOf(*v), "Normal", "Preempted",
                           "Preempted by pod " + pod->meta.uid + " on node " + r.nominated_node,
                           EventSource{"default-scheduler", ""});
        (void)store_.DeletePod(v->namespace_(), std::string(v->name()));
      }
    }
    api::PodCondition cond;
    cond.type = "PodScheduled";
    cond.status = api::ConditionStatus::kFalse;
    cond.reason = "Unschedulable";
    cond.message = r.message;
    (void)store_.SetPodCondition(item.key, cond, nominated);
    if (on_unschedulable_) {
      on_unschedulable_(*pod);
    }
  }
  in_cycle_ = false;
  ScheduleNextCycle();
}

}  // namespace tidepool::sim
