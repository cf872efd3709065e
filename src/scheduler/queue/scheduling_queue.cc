#include "scheduler/queue/scheduling_queue.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace tidepool::scheduler {

bool SchedulingQueue::IsPending(const api::Pod& pod) {
  return pod.spec.node_name.empty() && !pod.Terminal() &&
         !pod.meta.deletion_timestamp.has_value() && pod.spec.scheduler_name == "default-scheduler";
}

SchedulingQueue::SchedulingQueue(TimerService& timers, const Scheduler& scheduler,
                                 SchedulingActions& actions, SchedulingQueueOptions options)
    : timers_(timers), scheduler_(scheduler), actions_(actions), options_(options) {}

SchedulingQueue::~SchedulingQueue() {
  if (cycle_at_.has_value()) timers_.Cancel(cycle_timer_);
}

Duration SchedulingQueue::BackoffFor(int attempts) const {
  Duration d = options_.initial_backoff;
  for (int i = 1; i < attempts && d < options_.max_backoff; ++i) d *= 2;
  return std::min(d, options_.max_backoff);
}

// ---- The cache ---------------------------------------------------------------------------------

void SchedulingQueue::SnapshotAddPod(const api::PodConstSharedPtr& pod) {
  const std::string key = pod->Key();
  const std::string& node = pod->spec.node_name;
  if (snap_pods_.count(key) > 0) return;
  if (snapshot_.GetNodeInfo(node) == nullptr) {
    waiting_for_node_[node][key] = pod;
    waiting_pods_[key] = node;
    return;
  }
  if (snapshot_.AddPod(MakePodInfo(pod), node).ok()) {
    snap_pods_[key] = node;
    node_pods_[node].insert(key);
  }
}

void SchedulingQueue::SnapshotRemovePod(const std::string& key) {
  auto it = snap_pods_.find(key);
  if (it == snap_pods_.end()) {
    auto w = waiting_pods_.find(key);
    if (w != waiting_pods_.end()) {
      auto n = waiting_for_node_.find(w->second);
      if (n != waiting_for_node_.end()) {
        n->second.erase(key);
        if (n->second.empty()) waiting_for_node_.erase(n);
      }
      waiting_pods_.erase(w);
    }
    return;
  }
  (void)snapshot_.RemovePod(key, it->second);
  node_pods_[it->second].erase(key);
  snap_pods_.erase(it);
}

namespace {

// kube-scheduler 1.32's nodeSchedulingPropertiesChange (eventhandlers.go): what of `now` changed
// since `old` that scheduling reads, as ClusterEvent's update bits (0: no event). Conditions
// compare by type -> status only (nodeConditionsChanged), so a kubelet's heartbeat is no event.
uint32_t NodeUpdate(const api::Node& old, const api::Node& now) {
  uint32_t bits = 0;
  if (old.status.allocatable != now.status.allocatable)
    bits |= ClusterEvent::kUpdateNodeAllocatable;
  if (old.meta.labels != now.meta.labels) bits |= ClusterEvent::kUpdateNodeLabel;
  // nodeSpecUnschedulableChanged counts only a node that becomes schedulable (an uncordon).
  if (old.spec.taints != now.spec.taints || (old.spec.unschedulable && !now.spec.unschedulable)) {
    bits |= ClusterEvent::kUpdateNodeTaint;
  }
  if (old.meta.annotations != now.meta.annotations) bits |= ClusterEvent::kUpdateNodeAnnotation;
  const auto statuses = [](const api::Node& n) {
    std::map<std::string, api::ConditionStatus> m;
    for (const api::NodeCondition& c : n.status.conditions) m[c.type] = c.status;
    return m;
  };
  if (statuses(old) != statuses(now)) bits |= ClusterEvent::kUpdateNodeCondition;
  return bits;
}

}  // namespace

void SchedulingQueue::OnNode(Change change, const api::NodeConstSharedPtr& node) {
  const std::string& name = node->meta.name;
  // The event for the queueing hints: Node/Add, or an update of what scheduling reads (a node
  // first seen as an update counts as added). A deleted node makes no pod schedulable.
  std::optional<ClusterEvent> event;
  api::NodeConstSharedPtr old;  // keeps the old state alive for the event
  if (change != Change::kDeleted) {
    const auto seen = nodes_.find(name);
    if (change == Change::kAdded || seen == nodes_.end()) {
      event = ClusterEvent{ClusterEvent::Kind::kNodeAdd, 0, nullptr, node.get(), nullptr};
    } else if (const uint32_t bits = NodeUpdate(*seen->second, *node); bits != 0) {
      old = seen->second;
      event = ClusterEvent{ClusterEvent::Kind::kNodeUpdate, bits, old.get(), node.get(), nullptr};
    }
  }
  if (change == Change::kDeleted) {
    nodes_.erase(name);
  } else {
    nodes_[name] = node;
  }
  switch (change) {
    case Change::kAdded: {
      (void)snapshot_.AddNode(node);
      auto waiting = waiting_for_node_.find(name);
      if (waiting != waiting_for_node_.end()) {
        const std::map<std::string, api::PodConstSharedPtr> pods = std::move(waiting->second);
        waiting_for_node_.erase(waiting);
        for (const auto& [key, pod] : pods) {
          waiting_pods_.erase(key);
          SnapshotAddPod(pod);
        }
      }
      break;
    }
    case Change::kModified:
      (void)snapshot_.UpdateNode(node);
      break;
    case Change::kDeleted: {
      (void)snapshot_.RemoveNode(name);
      auto it = node_pods_.find(name);
      if (it != node_pods_.end()) {
        for (const std::string& key : it->second) snap_pods_.erase(key);
        node_pods_.erase(it);
      }
      break;
    }
  }
  if (event.has_value()) MoveAllToActiveOrBackoff(&*event);
}

void SchedulingQueue::OnPod(Change change, const api::PodConstSharedPtr& pod) {
  const std::string key = pod->Key();
  if (change == Change::kDeleted) {
    Dequeue(key);
    binding_.erase(key);  // its binding cycle's end changes nothing now
    // AssignedPodDelete for every bound pod (its node may be gone from the snapshot already).
    const bool was_assigned = snap_pods_.count(key) > 0 || !pod->spec.node_name.empty();
    SnapshotRemovePod(key);
    if (was_assigned) AssignedPodGone(*pod);
    return;
  }
  // A pod in its binding cycle deleted and created again under its name (a relist shows it as
  // an update): the old one's assumption goes, as for a deletion.
  if (auto b = binding_.find(key); b != binding_.end() && b->second.uid != pod->meta.uid) {
    const api::PodConstSharedPtr old = b->second.queued.pod;
    binding_.erase(b);
    ForgetAssumed(key, *old);
  }
  if (!pod->spec.node_name.empty()) {
    Dequeue(key);
    binding_.erase(key);    // the binding is seen: the pod is on its node for good
    if (pod->Terminal()) {  // its resources are free: as deleted for the queue
      const bool was_assigned = snap_pods_.count(key) > 0;
      SnapshotRemovePod(key);
      if (was_assigned) AssignedPodGone(*pod);
    } else {
      SnapshotAddPod(pod);
    }
    return;
  }
  if (!IsPending(*pod)) {
    Dequeue(key);
    // Being deleted (or finished) in its binding cycle: its place is freed now, not when the
    // cycle ends.
    if (binding_.erase(key) > 0) ForgetAssumed(key, *pod);
    return;
  }
  // An assumed pod's update is kept, not queued (kube-scheduler skips assumed pods).
  if (auto b = binding_.find(key); b != binding_.end() && b->second.uid == pod->meta.uid) {
    b->second.queued.pod = pod;
    return;
  }
  auto [it, inserted] = queue_.try_emplace(key);
  // A waiting pod given tolerations (UpdatePodToleration; they can only be added) is asked
  // about like any change, by the plugins that rejected it.
  const bool more_tolerations =
      !inserted && it->second.pod->spec.tolerations != pod->spec.tolerations;
  it->second.pod = pod;
  if (more_tolerations && it->second.where == Where::kUnschedulable) {
    const ClusterEvent event{ClusterEvent::Kind::kPodTolerationUpdate, 0, nullptr, nullptr,
                             pod.get()};
    if (scheduler_.framework().WorthRequeuing(it->second.rejectors, event, *it->second.info)) {
      Requeue(key, Now());
      ScheduleNextCycle();
    }
  }
  if (inserted) {
    it->second.seq = next_seq_++;
    it->second.priority = pod->Priority();  // immutable once admitted
    it->second.where = Where::kActive;
    Index(key, it->second);
    RequestCycle(Now() + options_.first_attempt_delay);
  }
}

// ---- The queue ---------------------------------------------------------------------------------

void SchedulingQueue::Index(const std::string& key, const Queued& q) {
  switch (q.where) {
    case Where::kActive:
      active_.emplace(std::pair(-int64_t{q.priority}, q.seq), key);
      break;
    case Where::kBackoff:
      backoff_.emplace(std::pair(q.backoff_until, q.seq), key);
      break;
    case Where::kUnschedulable: {
      const std::pair<TimePoint, uint64_t> at(q.unschedulable_since, q.seq);
      unschedulable_.emplace(at, key);
      HintGroup& g = groups_[GroupKey(q)];
      if (g.sample == nullptr) {
        g.sample = q.info;
        g.rejectors = q.rejectors;
      }
      g.members.insert(at);
      break;
    }
  }
}

std::string SchedulingQueue::GroupKey(const Queued& q) {
  // The class is kept alive by the group's sample while the group exists, so its address
  // names it.
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(q.info->pod_class().get()));
  for (const std::string& r : q.rejectors) key += "/" + r;
  return key;
}

void SchedulingQueue::Unindex(const Queued& q) {
  switch (q.where) {
    case Where::kActive:
      active_.erase(std::pair(-int64_t{q.priority}, q.seq));
      break;
    case Where::kBackoff:
      backoff_.erase(std::pair(q.backoff_until, q.seq));
      break;
    case Where::kUnschedulable: {
      const std::pair<TimePoint, uint64_t> at(q.unschedulable_since, q.seq);
      unschedulable_.erase(at);
      auto g = groups_.find(GroupKey(q));
      g->second.members.erase(at);
      if (g->second.members.empty()) groups_.erase(g);
      break;
    }
  }
}

void SchedulingQueue::Dequeue(const std::string& key) {
  auto it = queue_.find(key);
  if (it == queue_.end()) return;
  Unindex(it->second);
  queue_.erase(it);
}

// `key` by value: callers pass the index entry that Unindex erases.
void SchedulingQueue::Requeue(std::string key, TimePoint now) {
  Queued& q = queue_.find(key)->second;
  Unindex(q);
  q.where = q.backoff_until <= now ? Where::kActive : Where::kBackoff;
  Index(key, q);
}

void SchedulingQueue::MoveAllToActiveOrBackoff(const ClusterEvent* event) {
  if (unschedulable_.empty()) return;
  const TimePoint now = Now();
  // Pods of one class rejected by the same plugins get the same hints: asked once per group.
  std::vector<std::string> moving;
  for (const auto& [name, group] : groups_) {
    if (event != nullptr &&
        !scheduler_.framework().WorthRequeuing(group.rejectors, *event, *group.sample)) {
      continue;
    }
    for (const auto& at : group.members) moving.push_back(unschedulable_.at(at));
  }
  if (moving.empty()) return;
  for (const std::string& key : moving) Requeue(key, now);
  ScheduleNextCycle();
}

void SchedulingQueue::OnStorageChange(const ClusterEvent& event) {
  MoveAllToActiveOrBackoff(&event);
}

void SchedulingQueue::AssignedPodGone(const api::Pod& pod) {
  const ClusterEvent event{ClusterEvent::Kind::kAssignedPodDelete, 0, nullptr, nullptr, &pod};
  MoveAllToActiveOrBackoff(&event);
}

void SchedulingQueue::RequestCycle(TimePoint at) {
  if (in_cycle_) return;  // RunCycle schedules the next one when it ends
  if (cycle_at_.has_value()) {
    if (*cycle_at_ <= at) return;
    timers_.Cancel(cycle_timer_);
  }
  cycle_at_ = at;
  cycle_timer_ = timers_.ScheduleAt(at, [this] {
    cycle_at_.reset();
    RunCycle();
  });
}

void SchedulingQueue::ScheduleNextCycle() {
  std::optional<TimePoint> next;
  auto consider = [&](TimePoint t) {
    if (!next.has_value() || t < *next) next = t;
  };
  const TimePoint now = Now();
  if (!active_.empty()) consider(now);
  if (!backoff_.empty()) consider(backoff_.begin()->first.first);
  if (!unschedulable_.empty()) {
    consider(unschedulable_.begin()->first.first + options_.max_unschedulable);
  }
  if (next.has_value()) RequestCycle(std::max(*next, now));
}

void SchedulingQueue::RunCycle() {
  const TimePoint now = Now();
  in_cycle_ = true;
  // Backoffs that ended, and pods unschedulable for longer than max_unschedulable (flushed to
  // active, or to backoff if theirs has not ended).
  while (!backoff_.empty() && backoff_.begin()->first.first <= now) {
    Requeue(backoff_.begin()->second, now);
  }
  while (!unschedulable_.empty() &&
         now - unschedulable_.begin()->first.first >= options_.max_unschedulable) {
    Requeue(unschedulable_.begin()->second, now);
  }
  // PrioritySort: higher priority first, then arrival (active_'s order).
  std::vector<std::string> order;
  order.reserve(active_.size());
  for (const auto& [rank, key] : active_) order.push_back(key);
  for (const std::string& key : order) TryOne(key, now);
  in_cycle_ = false;
  ScheduleNextCycle();
}

void SchedulingQueue::TryOne(const std::string& key, TimePoint now) {
  auto qit = queue_.find(key);
  // Changes delivered during this cycle may have bound, finished or removed it.
  if (qit == queue_.end() || !IsPending(*qit->second.pod)) return;
  const api::PodConstSharedPtr pod = qit->second.pod;
  ++attempts_;
  PodInfoConstSharedPtr info = MakePodInfo(pod);
  ScheduleResult r = scheduler_.ScheduleOne(info, snapshot_);
  const PodRef ref{pod->meta.namespace_, pod->meta.name, pod->meta.uid};
  if (r.Scheduled()) {
    // Assumed in the snapshot by ScheduleOne; the binding makes it so in the cluster.
    snap_pods_[key] = r.node;
    node_pods_[r.node].insert(key);
    Unindex(qit->second);
    binding_[key] = Binding{std::move(qit->second), pod->meta.uid};
    queue_.erase(qit);
    actions_.Bind(*pod, r.node, r.reservation, [this, key, ref, node = r.node](const Status& s) {
      BindingDone(key, ref, node, s);
    });
    return;
  }
  Queued& q = qit->second;
  Unindex(q);
  q.info = info;
  q.rejectors = std::move(r.diagnosis.unschedulable_plugins);
  ++q.attempts;
  q.backoff_until = now + BackoffFor(q.attempts);
  q.unschedulable_since = now;
  q.where = Where::kUnschedulable;
  Index(key, q);
  actions_.Event(ref, "Warning", "FailedScheduling", r.message);
  std::optional<std::string> nominated;
  if (!r.nominated_node.empty()) {
    nominated = r.nominated_node;
    for (const PodInfoConstSharedPtr& v : r.victims) {
      const PodRef victim{v->namespace_(), std::string(v->name()), std::string(v->uid())};
      actions_.Event(victim, "Normal", "Preempted",
                     "Preempted by pod " + pod->meta.uid + " on node " + r.nominated_node);
      actions_.DeleteVictim(victim);
    }
  }
  api::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = api::ConditionStatus::kFalse;
  cond.reason = "Unschedulable";
  cond.message = r.message;
  actions_.SetUnschedulable(*pod, cond, nominated);
  if (on_unschedulable_) on_unschedulable_(*pod);
}

void SchedulingQueue::ForgetAssumed(const std::string& key, const api::Pod& pod) {
  if (snap_pods_.count(key) == 0) return;
  SnapshotRemovePod(key);
  AssignedPodGone(pod);
}

void SchedulingQueue::BindingDone(const std::string& key, const PodRef& ref,
                                  const std::string& node, const Status& status) {
  auto it = binding_.find(key);
  const bool current = it != binding_.end() && it->second.uid == ref.uid && !it->second.bound;
  if (status.ok()) {
    // Still assumed until the informer shows the pod on its node (an update written before
    // the binding and seen after it must not queue the pod again).
    if (current) it->second.bound = true;
    actions_.Event(ref, "Normal", "Scheduled",
                   "Successfully assigned " + ref.namespace_ + "/" + ref.name + " to " + node);
    return;
  }
  if (!current) return;  // deleted, bound or being deleted meanwhile: nothing to retry
  Queued q = std::move(it->second.queued);
  binding_.erase(it);
  const api::PodConstSharedPtr pod = q.pod;
  ForgetAssumed(key, *pod);
  // handleSchedulingFailure with an error: back after its backoff, rejected by no plugin.
  const TimePoint now = Now();
  ++q.attempts;
  q.backoff_until = now + BackoffFor(q.attempts);
  q.where = Where::kBackoff;
  q.info = nullptr;
  q.rejectors.clear();
  Dequeue(key);
  Index(key, queue_.emplace(key, std::move(q)).first->second);
  actions_.Event(ref, "Warning", "FailedScheduling", std::string(status.message()));
  api::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = api::ConditionStatus::kFalse;
  cond.reason = "SchedulerError";
  cond.message = std::string(status.message());
  actions_.SetUnschedulable(*pod, cond, std::string());  // clearNominatedNode
  ScheduleNextCycle();
}

}  // namespace tidepool::scheduler
