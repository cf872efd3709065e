#include "autoscaler/core/autoscaler.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "autoscaler/core/scale_up.h"
#include "autoscaler/node_facts.h"
#include "autoscaler/scale_down/drainability.h"
#include "autoscaler/scale_down/scale_down.h"
#include "autoscaler/simulator/daemonset_pods.h"
#include "common/check.h"
#include "common/duration.h"
#include "common/string_hash.h"
#include "scheduler/scheduler.h"

namespace tidepool::autoscaler {
namespace {


bool RequestsGpu(const scheduler::PodInfo& p) { return p.request().Scalar(api::kResourceNvidiaGpu) > 0; }

struct ScaleUpRequest {
  int increase = 0;
  TimePoint time;
  TimePoint expected_add_time;
};

struct BackoffState {
  Duration duration{0};
  TimePoint until;
  TimePoint last_failure;
  std::string error_code;
  std::string error_message;
};

// The readiness of one node group's nodes and instances (clusterstate.Readiness).
struct GroupState {
  cloud::NodeGroup* group = nullptr;
  int target = 0;
  int ready = 0;
  int not_started = 0;  // registered, not ready (or GPU not allocatable), young
  // Their names: the loop replaces them with template copies (upcoming capacity).
  std::vector<std::string> not_started_nodes;
  int unready = 0;
  int resource_unready = 0;  // GPU not allocatable yet
  int registered = 0;
  int unregistered = 0;
  int long_unregistered = 0;
  int being_deleted = 0;
  int upcoming = 0;
  std::vector<std::string> failed_instances;
  std::vector<std::string> long_unregistered_instances;
  std::optional<cloud::InstanceErrorInfo> failure;
  std::vector<api::NodeConstSharedPtr> template_candidates;
};

// The events of one loop, passed on to `out` as they come and kept, so that a skipped loop
// (SkipOnce) emits them again: CA's recorder counts every repeat and its spam filter decides by
// time which repeats are written.
class LoopEvents final : public EventRecorder {
 public:
  explicit LoopEvents(EventRecorder& out) : out_(out) {}
  void Event(const ObjectRef& object, std::string_view type, std::string_view reason,
             std::string message) override {
    kept_.push_back({object, std::string(type), std::string(reason), message});
    out_.Event(object, type, reason, std::move(message));
  }
  void Clear() { kept_.clear(); }
  void EmitAgain() {
    for (const Kept& e : kept_) out_.Event(e.object, e.type, e.reason, e.message);
  }

 private:
  struct Kept {
    ObjectRef object;
    std::string type, reason, message;
  };
  EventRecorder& out_;
  std::vector<Kept> kept_;
};

class AutoscalerImpl final : public Autoscaler {
 public:
  // `strategy` holds the Random it was made with.
  AutoscalerImpl(const AutoscalingOptions& options, cloud::CloudProvider& cloud,
                 ClusterWriter& writer, EventRecorder& recorder, log::Logger& logger,
                 std::unique_ptr<scheduler::Scheduler> sched,
                 std::unique_ptr<expander::Strategy> strategy)
      : options_(options),
        cloud_(cloud),
        writer_(writer),
        loop_events_(recorder),
        recorder_(loop_events_),
        log_(logger),
        sched_(std::move(sched)),
        strategy_(std::move(strategy)),
        scale_up_(options_, cloud_, sched_->framework(), *strategy_, recorder_, log_),
        planner_(options_, cloud_, sched_->framework(), log_),
        actuator_(options_, cloud_, writer_, recorder_, log_) {
    SetMetrics(nullptr);
  }

  Status RunOnce(TimePoint now, const ClusterView& view) override;
  std::optional<TimePoint> SettledUntil() const override { return settled_until_; }
  void SkipOnce(TimePoint now) override;
  std::string StatusYaml() const override { return status_yaml_; }
  void SetMetrics(Metrics* metrics) override {
    static Metrics none;
    metrics_ = metrics != nullptr ? metrics : &none;
  }

 private:
  std::map<std::string, GroupState> UpdateClusterState(TimePoint now,
                                                       const std::vector<const NodeFacts*>& nodes);
  // Upcoming nodes per group; REQUIRES: HandleFailures ran (a failed or timed-out scale-up no
  // longer promises capacity).
  void ComputeUpcoming(TimePoint now, std::map<std::string, GroupState>& groups) const;
  void HandleFailures(TimePoint now, std::map<std::string, GroupState>& groups);
  void RegisterFailedScaleUp(TimePoint now, const std::string& group, const std::string& code,
                             const std::string& message);
  bool BackedOff(const std::string& group, TimePoint now) const {
    auto it = backoff_.find(group);
    return it != backoff_.end() && now < it->second.until;
  }
  void WriteStatus(TimePoint now, const std::map<std::string, GroupState>& groups,
                   const std::string& scale_up_status, const std::string& scale_down_status);
  // SettledUntil() for the loop that just ran (see autoscaler.h).
  std::optional<TimePoint> ComputeSettledUntil(TimePoint now, const ClusterView& view,
                                               const std::vector<const NodeFacts*>& facts,
                                               const std::map<std::string, GroupState>& groups,
                                               bool acted) const;

  const AutoscalingOptions& options_;
  cloud::CloudProvider& cloud_;
  ClusterWriter& writer_;
  LoopEvents loop_events_;
  EventRecorder& recorder_;  // loop_events_
  log::Logger& log_;
  std::unique_ptr<scheduler::Scheduler> sched_;
  std::unique_ptr<expander::Strategy> strategy_;
  ScaleUpOrchestrator scale_up_;
  scaledown::Planner planner_;
  scaledown::Actuator actuator_;

  std::map<std::string, ScaleUpRequest> scale_up_requests_;
  std::map<std::string, BackoffState> backoff_;
  std::map<std::string, TimePoint> unregistered_since_;  // instance id -> first seen
  // The providerIDs of the registered nodes of autoscaled groups, as of facts_.generation()
  // `registered_ids_generation_` (the views look into the nodes the facts hold).
  std::unordered_set<std::string_view> registered_ids_;
  std::optional<uint64_t> registered_ids_generation_;
  // What the last pass over a group's instances found, kept while neither the cloud's answer
  // (NodeGroup::NodesVersion, when the cloud tells one) nor the registered nodes changed.
  struct InstancePass {
    uint64_t nodes_version = 0;  // 0: not kept
    uint64_t registered_generation = 0;
    std::vector<std::string> failed;
    std::optional<cloud::InstanceErrorInfo> failure;
    std::vector<std::string> unregistered;  // neither registered nor being deleted nor failed
  };
  std::map<std::string, InstancePass> instance_passes_;
  // Registered nodes of no autoscaled group, as of the last loop (cluster-wide counts only).
  GroupState unmanaged_;
  Metrics* metrics_ = nullptr;  // never null once constructed (SetMetrics(nullptr) in Create)
  std::set<std::string> reported_failures_;               // instance ids already handled
  std::optional<TimePoint> last_scale_up_;
  std::optional<TimePoint> last_scale_down_delete_;
  std::optional<TimePoint> last_scale_down_failure_;
  std::string status_yaml_;
  std::optional<TimePoint> settled_until_;

  // The snapshot is kept from loop to loop and brought up to date with each view: objects
  // whose shared pointer did not change (informers and the simulator hand out the same one
  // for an unchanged object) are not touched. Rebuilding it every loop was most of a loop's
  // fixed cost. At fork depth 0 between loops.
  void SyncSnapshot(const ClusterView& view, const std::vector<const NodeFacts*>& started);
  // Under --expendable-pods-priority-cutoff: CA neither scales up for it nor counts it where it
  // runs (its snapshot holds the other scheduled pods only).
  bool Expendable(const scheduler::PodInfo& p) const {
    return scaledown::IsExpendablePod(p, options_.expendable_pods_priority_cutoff);
  }
  scheduler::ClusterSnapshot snapshot_;
  NodeFactsCache facts_;
  struct SnapNode {
    api::NodeConstSharedPtr node;  // null only inside SyncSnapshot, before its AddNode
    uint64_t mark = 0;             // the last sync whose view had it
  };
  struct SnapPod {
    scheduler::PodInfoConstSharedPtr pod;
    uint64_t mark = 0;
  };
  std::unordered_map<std::string, SnapNode, StringHash, std::equal_to<>> snap_nodes_;  // by name
  std::unordered_map<const scheduler::PodInfo*, SnapPod> snap_pods_;
  uint64_t sync_mark_ = 0;
  // The node and pod objects of the last sync, in the view's order: a loop that sees the very
  // same objects has nothing to apply. Held, so that no new object can reuse an address.
  std::vector<api::NodeConstSharedPtr> last_nodes_;
  std::vector<scheduler::PodInfoConstSharedPtr> last_pods_;
  // Nodes added or updated since the snapshot was last built from scratch. The snapshot's node
  // classes are only dropped by Clear(), so with node churn and labels of a node's own they
  // would pile up: after 4x the live nodes (plus 1,000) of such writes it starts over.
  size_t node_writes_since_clear_ = 0;
};

void AutoscalerImpl::SyncSnapshot(const ClusterView& view,
                                  const std::vector<const NodeFacts*>& started) {
  // A quiet loop: the same node and pod objects as last time, in the same order.
  bool same = started.size() == last_nodes_.size() &&
              view.scheduled_pods.size() == last_pods_.size();
  for (size_t i = 0; same && i < started.size(); ++i) {
    same = started[i]->node == last_nodes_[i];
  }
  for (size_t i = 0; same && i < view.scheduled_pods.size(); ++i) {
    same = view.scheduled_pods[i] == last_pods_[i];
  }
  if (same) {
    return;
  }
  last_nodes_.clear();
  for (const NodeFacts* f : started) {
    last_nodes_.push_back(f->node);
  }
  last_pods_ = view.scheduled_pods;

  if (node_writes_since_clear_ > 4 * snap_nodes_.size() + 1000) {
    snapshot_.Clear();
    snap_nodes_.clear();
    snap_pods_.clear();
    node_writes_since_clear_ = 0;
  }
  // What the snapshot must hold: the started nodes and the pods bound to them. Entries seen in
  // this view get this sync's mark; new nodes enter the index now (without an object yet) so
  // that their pods are known to be wanted.
  const uint64_t mark = ++sync_mark_;
  std::vector<std::pair<SnapNode*, const api::NodeConstSharedPtr*>> node_writes;
  for (const NodeFacts* f : started) {
    auto [it, inserted] = snap_nodes_.try_emplace(f->node->meta.name);
    it->second.mark = mark;
    if (it->second.node != f->node) {
      node_writes.emplace_back(&it->second, &f->node);
    }
  }
  std::vector<const scheduler::PodInfoConstSharedPtr*> pod_adds;
  for (const auto& p : view.scheduled_pods) {
    if (Expendable(*p)) continue;  // CA's nonExpendableScheduledPods
    auto n = snap_nodes_.find(p->node_name());
    if (n == snap_nodes_.end() || n->second.mark != mark) {
      continue;
    }
    auto it = snap_pods_.find(p.get());
    if (it != snap_pods_.end()) {
      it->second.mark = mark;
    } else {
      pod_adds.push_back(&p);
    }
  }
  // Pods gone, changed (a new pointer) or on a node no longer wanted leave first, in a
  // deterministic order; then nodes gone.
  std::vector<scheduler::PodInfoConstSharedPtr> leaving;
  for (const auto& [ptr, e] : snap_pods_) {
    if (e.mark != mark) leaving.push_back(e.pod);
  }
  std::sort(leaving.begin(), leaving.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a->node_name(), a->Key()) < std::make_pair(b->node_name(), b->Key());
  });
  for (const auto& p : leaving) {
    (void)snapshot_.RemovePod(p->Key(), p->node_name());
    snap_pods_.erase(p.get());
  }
  std::vector<std::string> dropped;
  for (const auto& [name, e] : snap_nodes_) {
    if (e.mark != mark) dropped.push_back(name);
  }
  std::sort(dropped.begin(), dropped.end());
  for (const std::string& name : dropped) {
    (void)snapshot_.RemoveNode(name);
    snap_nodes_.erase(name);
  }
  // Nodes new or changed, in name order (`started` is).
  for (auto& [entry, n] : node_writes) {
    ++node_writes_since_clear_;
    if (entry->node == nullptr) {
      if (snapshot_.AddNode(*n).ok()) {
        entry->node = *n;
      }
    } else {
      (void)snapshot_.UpdateNode(*n);
      entry->node = *n;
    }
  }
  for (const auto* p : pod_adds) {
    auto n = snap_nodes_.find((*p)->node_name());
    if (n->second.node != nullptr && snapshot_.AddPod(*p, (*p)->node_name()).ok()) {
      snap_pods_.emplace((*p).get(), SnapPod{*p, mark});
    }
  }
  // A node whose AddNode failed is not in the snapshot.
  for (auto it = snap_nodes_.begin(); it != snap_nodes_.end();) {
    it = it->second.node == nullptr ? snap_nodes_.erase(it) : std::next(it);
  }
}

std::map<std::string, GroupState> AutoscalerImpl::UpdateClusterState(
    TimePoint now, const std::vector<const NodeFacts*>& nodes) {
  std::map<std::string, GroupState> groups;
  std::unordered_map<const cloud::NodeGroup*, GroupState*> by_group;
  unmanaged_ = GroupState{};
  for (cloud::NodeGroup* g : cloud_.NodeGroups()) {
    GroupState& s = groups[g->Id()];
    s.group = g;
    s.target = g->TargetSize().ok() ? *g->TargetSize() : 0;
    by_group[g] = &s;
  }
  // Nodes of no autoscaled group (e.g. a fixed-size default pool) count cluster-wide only, as
  // in CA's clusterstate readiness.
  if (registered_ids_generation_ != facts_.generation()) {
    registered_ids_.clear();
    registered_ids_.reserve(nodes.size());
    for (const NodeFacts* f : nodes) {
      if (f->group != nullptr) {
        registered_ids_.insert(f->node->spec.provider_id);
      }
    }
    registered_ids_generation_ = facts_.generation();
  }
  for (const NodeFacts* f : nodes) {
    const api::NodeConstSharedPtr& n = f->node;
    cloud::NodeGroup* g = f->group;
    GroupState* group_state = nullptr;
    if (g != nullptr) {
      auto it = by_group.find(g);
      group_state = it != by_group.end() ? it->second : &groups[g->Id()];
    }
    GroupState& s = group_state != nullptr ? *group_state : unmanaged_;
    ++s.registered;
    if (f->has_to_be_deleted_taint) {
      ++s.being_deleted;
    }
    const bool ready = f->ready;
    // A GPU node whose driver has not exposed its GPUs yet is not ready for scheduling
    // (CA's FilterOutNodesWithUnreadyResources).
    const bool gpu_unready = f->cloud_gpu_unready;
    if (ready && !gpu_unready) {
      ++s.ready;
      if (!f->has_to_be_deleted_taint && !n->spec.unschedulable) {
        if (!f->ready_since ||
            *f->ready_since + options_.node_template_stabilization_delay <= now) {
          s.template_candidates.push_back(n);
        }
      }
      continue;
    }
    if (gpu_unready && ready) {
      // tidepool: a Ready GPU node still installing its driver is capacity on its way, for as
      // long as it takes; it never triggers another scale-up.
      ++s.not_started;
      ++s.resource_unready;
      s.not_started_nodes.push_back(n->meta.name);
      continue;
    }
    TimePoint created = n->meta.creation_timestamp.value_or(now);
    if (created + options_.max_node_startup_time > now) {
      ++s.not_started;
      s.not_started_nodes.push_back(n->meta.name);
    } else {
      ++s.unready;
    }
  }
  for (auto& [id, s] : groups) {
    InstancePass& pass = instance_passes_[id];
    const uint64_t version = s.group->NodesVersion();
    if (version == 0 || pass.nodes_version != version ||
        pass.registered_generation != facts_.generation()) {
      pass = InstancePass{};
      auto instances = s.group->Nodes();
      if (!instances.ok()) {
        continue;
      }
      for (const cloud::Instance& inst : *instances) {
        if (inst.error.has_value()) {
          pass.failed.push_back(inst.id);
          if (!pass.failure) {
            pass.failure = inst.error;
          }
          continue;
        }
        if (inst.state == cloud::InstanceState::kDeleting || registered_ids_.count(inst.id) > 0) {
          if (!unregistered_since_.empty()) {
            unregistered_since_.erase(inst.id);
          }
          continue;
        }
        pass.unregistered.push_back(inst.id);
      }
      pass.nodes_version = version;
      pass.registered_generation = facts_.generation();
    }
    s.failed_instances = pass.failed;
    s.failure = pass.failure;
    for (const std::string& inst : pass.unregistered) {
      auto [it, inserted] = unregistered_since_.emplace(inst, now);
      if (it->second + options_.max_node_provision_time <= now) {
        ++s.long_unregistered;
        s.long_unregistered_instances.push_back(inst);
      } else {
        ++s.unregistered;
      }
    }
  }
  return groups;
}

void AutoscalerImpl::ComputeUpcoming(TimePoint now,
                                     std::map<std::string, GroupState>& groups) const {
  for (auto& [id, s] : groups) {
    // What the target promises beyond what is there and usable (clusterstate.GetUpcomingNodes),
    // whoever asked for it: this process, a resize by hand, or this autoscaler before a restart
    // (CA counts it the same; a new process must not add a second node for a pod the first one
    // already asked for). Not for a group that is backed off; GPU nodes installing drivers are
    // upcoming regardless.
    const int pending_capacity = s.target - (s.ready + s.unready + s.long_unregistered);
    s.upcoming = std::max(0, BackedOff(id, now) ? s.resource_unready : pending_capacity);
  }
}

void AutoscalerImpl::RegisterFailedScaleUp(TimePoint now, const std::string& group,
                                           const std::string& code, const std::string& message) {
  metrics_->RegisterFailedScaleUp(code);
  BackoffState& b = backoff_[group];
  if (b.duration == Duration::zero() ||
      now - b.last_failure > options_.node_group_backoff_reset_timeout) {
    b.duration = options_.initial_node_group_backoff_duration;
  } else {
    b.duration = std::min(b.duration * 2, options_.max_node_group_backoff_duration);
  }
  b.until = now + b.duration;
  b.last_failure = now;
  b.error_code = code;
  b.error_message = message;
}

void AutoscalerImpl::HandleFailures(TimePoint now, std::map<std::string, GroupState>& groups) {
  ObjectRef status_cm{"ConfigMap", "kube-system", options_.status_config_map_name, ""};
  for (auto& [id, s] : groups) {
    // Instances the cloud failed to create (stockout, quota): the scale-up failed now, not in
    // 15 minutes; back the group off and delete the failed instances.
    if (!s.failed_instances.empty()) {
      int unseen = 0;
      for (const auto& inst : s.failed_instances) {
        unseen += reported_failures_.insert(inst).second ? 1 : 0;
      }
      if (unseen > 0) {
        const cloud::InstanceErrorInfo& e = *s.failure;
        std::string cls = e.error_class == cloud::InstanceErrorInfo::Class::kOutOfResources
                              ? "OutOfResource"
                              : "Other";
        std::string code = cls + "." + e.error_code;
        log_.Warning("Failed adding " + std::to_string(s.failed_instances.size()) + " nodes (" +
                     std::to_string(unseen) + " unseen previously) to group " + id + " due to " +
                     code + "; errorMessages=[]string{\"" + e.error_message + "\"}");
        recorder_.Event(status_cm, "Warning", "ScaleUpFailed",
                        "Failed adding " + std::to_string(s.failed_instances.size()) +
                            " nodes to group " + id + " due to " + code + "; source errors: " +
                            e.error_message);
        RegisterFailedScaleUp(now, id, code, e.error_message);
        scale_up_requests_.erase(id);
        last_scale_down_failure_ = now;
      }
      log_.V(1, "Deleting " + std::to_string(s.failed_instances.size()) + " from " + id +
                    " node group because of create errors");
      Status st = s.group->DeleteNodes(s.failed_instances);
      if (!st.ok()) {
        log_.Warning("Failed to delete nodes from " + id + ": " + std::string(st.message()));
      }
      s.target -= static_cast<int>(s.failed_instances.size());
      s.failed_instances.clear();
    }
    // Scale-ups whose nodes did not register in time.
    auto req = scale_up_requests_.find(id);
    if (req != scale_up_requests_.end()) {
      if (req->second.expected_add_time <= now &&
          s.unregistered + s.long_unregistered > 0) {
        log_.Warning("Scale-up timed out for node group " + id + " after " +
                     FormatGoDuration(now - req->second.time));
        recorder_.Event(status_cm, "Warning", "ScaleUpTimedOut",
                        "Nodes added to group " + id + " failed to register within " +
                            FormatGoDuration(now - req->second.time));
        RegisterFailedScaleUp(now, id, "timeout", "Scale-up timed out");
        int revert = s.unregistered + s.long_unregistered;
        Status st = s.group->DecreaseTargetSize(-revert);
        s.target -= st.ok() ? revert : 0;
        if (!st.ok()) {
          recorder_.Event(status_cm, "Warning", "FailedToRevertScaleUp",
                          "Nodes added to group " + id + " failed to register within " +
                              FormatGoDuration(now - req->second.time));
        }
        scale_up_requests_.erase(req);
      } else if (s.ready + s.unready + s.long_unregistered >= s.target) {
        // No node of the group is still on its way (areThereUpcomingNodesInNodeGroup): the
        // scale-up is over; a success clears backoff. Registered nodes that have not started
        // yet (NotReady, or GPUs not allocatable) keep it in flight.
        log_.V(4, "Scale up in group " + id + " finished successfully in " +
                      FormatGoDuration(now - req->second.time));
        scale_up_requests_.erase(req);
        backoff_.erase(id);
      }
    }
    // Instances that never registered and have no scale-up to wait for any more.
    if (!s.long_unregistered_instances.empty() && scale_up_requests_.count(id) == 0) {
      for (const auto& inst : s.long_unregistered_instances) {
        if (s.group->DeleteNodes({inst}).ok()) {
          recorder_.Event(status_cm, "Normal", "DeleteUnregistered",
                          "Removed unregistered node " + inst);
          unregistered_since_.erase(inst);
        } else {
          recorder_.Event(status_cm, "Warning", "DeleteUnregisteredFailed",
                          "Failed to remove node " + inst);
        }
      }
    }
  }
}

Status AutoscalerImpl::RunOnce(TimePoint now, const ClusterView& view) {
  settled_until_.reset();
  loop_events_.Clear();
  const uint64_t lines_before = log_.lines();
  metrics_->UpdateLastTime("main", now);
  TIDEPOOL_RETURN_IF_ERROR(cloud_.Refresh());
  const std::vector<const NodeFacts*>& facts = facts_.Sync(view.nodes, cloud_);
  std::map<std::string, GroupState> groups = UpdateClusterState(now, facts);
  metrics_->UpdateClusterSafeToAutoscale(true);
  metrics_->UpdateLastTime("autoscaling", now);
  metrics_->UpdateNodeGroupsCount(static_cast<int>(groups.size()));
  HandleFailures(now, groups);
  ComputeUpcoming(now, groups);

  // The snapshot: registered usable nodes and their pods; nodes that have not started (and GPU
  // nodes still installing drivers) are left out, and inside a fork, copies of their group's
  // template stand in for them as upcoming capacity. After scale-up the fork is reverted and the
  // same snapshot serves scale-down, where such nodes are neither candidates nor destinations
  // (CA drops them from allNodes too).
  std::set<std::string> replaced;
  for (const auto& [id, s] : groups) {
    replaced.insert(s.not_started_nodes.begin(), s.not_started_nodes.end());
  }
  std::vector<const NodeFacts*> started;
  started.reserve(facts.size());
  for (const NodeFacts* f : facts) {
    if (replaced.empty() || replaced.count(f->node->meta.name) == 0) {
      started.push_back(f);
    }
  }
  SyncSnapshot(view, started);
  scheduler::ClusterSnapshot& snapshot = snapshot_;
  TIDEPOOL_CHECK(snapshot.fork_depth() == 0);

  snapshot.Fork();  // upcoming capacity, for scale-up only
  ScaleUpContext ctx;
  int upcoming_total = 0;
  // The pods on the real nodes used as templates (their DaemonSet and mirror pods go with the
  // template: CA's podsExpectedOnFreshNode).
  // Read from the snapshot's node (its pods are the view's pods bound to it); a candidate the
  // snapshot does not hold is looked up in the view's pods (a pass over every pod, which
  // every loop of a large cluster would otherwise pay).
  std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>, std::less<>> on_example;
  bool scan = false;
  for (const auto& [id, s] : groups) {
    if (s.template_candidates.empty()) continue;
    const std::string& name = s.template_candidates.front()->meta.name;
    if (const scheduler::NodeInfo* info = snapshot.GetNodeInfo(name)) {
      on_example[name] = info->pods();
    } else {
      scan |= on_example.try_emplace(name).second;
    }
  }
  if (scan) {
    for (const scheduler::PodInfoConstSharedPtr& p : view.scheduled_pods) {
      if (Expendable(*p)) continue;
      auto it = on_example.find(p->node_name());
      if (it != on_example.end() && snapshot.GetNodeInfo(it->first) == nullptr) {
        it->second.push_back(p);
      }
    }
  }
  for (auto& [id, s] : groups) {
    if (!s.template_candidates.empty()) {
      ctx.templates[id] = *s.template_candidates.front();
      ctx.template_pods[id] =
          ExpectedPodsFromExample(on_example[s.template_candidates.front()->meta.name]);
    } else if (auto t = s.group->TemplateNode(); t.ok()) {
      ctx.templates[id] = *t;
      // Scale-from-zero: every DaemonSet that would run there (forceDaemonSets).
      ctx.template_pods[id] = DaemonSetPodsForNode(*t, view.daemonset_pods);
    }
    if (BackedOff(id, now)) {
      const BackoffState& b = backoff_.at(id);
      log_.Warning("Node group " + id + " is not ready for scaleup - backoff with status: {" +
                   b.error_code + " " + b.error_message + "}");
      ctx.skipped_groups[id] = "in backoff after failed scale-up";
    }
    if (s.upcoming > 0 && ctx.templates.count(id) > 0) {
      for (int i = 0; i < s.upcoming; ++i) {
        api::Node copy = SanitizedTemplateCopy(ctx.templates[id], id, "upcoming-" + std::to_string(i));
        const std::string copy_name = copy.meta.name;
        if (snapshot.AddNode(std::make_shared<const api::Node>(std::move(copy))).ok()) {
          for (const auto& p : ctx.template_pods[id]) (void)snapshot.AddPod(p, copy_name);
        }
      }
      upcoming_total += s.upcoming;
    }
  }
  if (upcoming_total > 0) {
    log_.V(4, "Upcoming " + std::to_string(upcoming_total) + " nodes");
  }
  ctx.total_nodes = static_cast<int>(view.nodes.size()) + upcoming_total;
  for (const NodeFacts* f : facts) {
    ctx.resources.cores += f->capacity_cores;
    ctx.resources.memory_bytes += f->capacity_memory;
    if (f->cloud_gpu.has_value()) {
      ctx.resources.gpus_by_type[f->cloud_gpu->type] += f->capacity_gpus;
    }
  }

  // Pods the scheduler marked unschedulable, minus expendable ones and those that fit existing
  // or upcoming capacity (FilterOutSchedulable; the snapshot keeps what they take).
  std::vector<scheduler::PodInfoConstSharedPtr> unschedulable;
  for (const auto& p : view.pending_pods) {
    if (!p->marked_unschedulable()) {  // PodScheduled False, reason Unschedulable
      continue;
    }
    if (Expendable(*p)) {
      continue;
    }
    unschedulable.push_back(p);
  }
  // Priority first (CA's order). tidepool: then the largest requests first (GPUs, cpu, memory),
  // so that capacity on its way goes to the pod that needs all of it (first-fit decreasing): CA
  // 1.31 keeps the pods' order, counts a 1-GPU pod onto an upcoming 4-GPU node, finds the 4-GPU
  // pod "unschedulable" and scales up another 4-GPU node (tests/differential, 1+1+4gpu-pods).
  std::stable_sort(unschedulable.begin(), unschedulable.end(), [](const auto& a, const auto& b) {
    if (a->Priority() != b->Priority()) return a->Priority() > b->Priority();
    const scheduler::Resource& ra = a->request();
    const scheduler::Resource& rb = b->request();
    const int64_t ga = ra.Scalar(api::kResourceNvidiaGpu);
    const int64_t gb = rb.Scalar(api::kResourceNvidiaGpu);
    if (ga != gb) return ga > gb;
    if (ra.milli_cpu != rb.milli_cpu) return ra.milli_cpu > rb.milli_cpu;
    return ra.memory > rb.memory;
  });
  metrics_->UpdateUnschedulablePodsCount(static_cast<int>(unschedulable.size()));
  std::vector<scheduler::PodInfoConstSharedPtr> to_scale;
  snapshot.Fork();
  for (const auto& p : unschedulable) {
    scheduler::CycleState state;
    if (sched_->framework().RunPreFilter(state, *p).IsSuccess()) {
      scheduler::FilterOutcome o = sched_->framework().FindFeasible(state, *p, snapshot);
      if (!o.feasible.empty()) {
        scheduler::NodeId id = o.feasible.front().Representative();
        (void)snapshot.AddPod(p, snapshot.node_info(id).name());
        continue;
      }
    }
    to_scale.push_back(p);
  }
  snapshot.Revert();
  // filterOutDaemonSetPodListProcessor: scale-up cannot help a DaemonSet pod (it is for one
  // node).
  {
    log_.V(4, "Filtering out daemon set pods");
    const size_t before = to_scale.size();
    std::erase_if(to_scale, [](const auto& p) { return scaledown::IsDaemonSetPod(*p); });
    log_.V(4, "Filtered out " + std::to_string(before - to_scale.size()) +
                  " daemon set pods, " + std::to_string(to_scale.size()) +
                  " unschedulable pods left");
  }

  std::string scale_up_status = "NoActivity";
  bool scaled_up = false;
  bool too_new = false;
  bool scale_up_failed = false;
  if (to_scale.empty()) {
    log_.V(1, "No unschedulable pods");
  } else if (options_.max_nodes_total > 0 &&
             static_cast<int>(view.nodes.size()) >= options_.max_nodes_total) {
    log_.Warning("Max total nodes in cluster reached: " + std::to_string(options_.max_nodes_total) +
                 ". Current number of ready nodes: " + std::to_string(view.nodes.size()));
    recorder_.Event(ObjectRef{"ConfigMap", "kube-system", options_.status_config_map_name, ""},
                    "Warning", "MaxNodesTotalReached",
                    "Max total nodes in cluster reached: " +
                        std::to_string(options_.max_nodes_total));
    scale_up_status = "Needed";
  } else {
    // Wait a little for more pods to arrive (CA: 2 s, 30 s for GPU pods).
    for (const auto& p : to_scale) {
      TimePoint created = p->creation_timestamp().value_or(now - std::chrono::hours(1));
      Duration buffer = RequestsGpu(*p) ? options_.unschedulable_pod_with_gpu_time_buffer
                                        : options_.unschedulable_pod_time_buffer;
      if (created + buffer > now) {
        too_new = true;
      }
    }
    if (too_new) {
      log_.V(1, "Unschedulable pods are very new, waiting one iteration for more");
      scale_up_status = "Needed";
    } else {
      metrics_->UpdateLastTime("scaleUp", now);
      ScaleUpResult r = scale_up_.ScaleUp(now, to_scale, snapshot, ctx);
      switch (r.kind) {
        case ScaleUpResult::Kind::kSuccessful: {
          const ScaleUpInfo& info = r.infos.front();
          {
            std::string gpu_resource, gpu_type;
            auto t = ctx.templates.find(info.group);
            if (t != ctx.templates.end()) {
              if (auto gpu = cloud_.GetNodeGpuConfig(t->second); gpu.has_value()) {
                gpu_resource = gpu->resource_name;
                gpu_type = gpu->type;
              }
            }
            metrics_->RegisterScaleUp(info.new_size - info.current_size, gpu_resource, gpu_type);
          }
          ScaleUpRequest& req = scale_up_requests_[info.group];
          req.increase += info.new_size - info.current_size;
          req.time = now;
          req.expected_add_time = now + options_.max_node_provision_time;
          last_scale_up_ = now;
          scaled_up = true;
          scale_up_status = "InProgress";
          break;
        }
        case ScaleUpResult::Kind::kError:
          // The cloud refused at once (quota, invalid size): back that group off so that the
          // next loop falls back to another.
          RegisterFailedScaleUp(now, r.failed_group, "cloudProviderError",
                                std::string(r.error.message()));
          last_scale_down_failure_ = now;
          scale_up_status = "Backoff";
          scale_up_failed = true;
          break;
        case ScaleUpResult::Kind::kNoOptionsAvailable:
        case ScaleUpResult::Kind::kNotNeeded:
          break;
      }
    }
  }
  if (!scaled_up && !scale_up_requests_.empty() && scale_up_status == "NoActivity") {
    scale_up_status = "InProgress";
  }

  snapshot.Revert();  // drops the upcoming copies

  // Scale-down: unneeded nodes are tracked every loop; deletions wait out the cooldowns.
  std::string scale_down_status = "NoCandidates";
  if (options_.scale_down_enabled) {
    metrics_->UpdateLastTime("scaleDown", now);
    planner_.Update(now, snapshot, started, view.pdbs, view.controllers.get());
    metrics_->UpdateUnneededNodesCount(static_cast<int>(planner_.unneeded().size()));
    if (!planner_.unneeded().empty()) {
      scale_down_status = "CandidatesPresent";
    }
    bool cooldown = scaled_up || too_new ||
                    (last_scale_up_ && *last_scale_up_ + options_.scale_down_delay_after_add > now) ||
                    (last_scale_down_delete_ &&
                     *last_scale_down_delete_ + std::max(options_.scale_down_delay_after_delete,
                                                         options_.scan_interval) > now) ||
                    (last_scale_down_failure_ &&
                     *last_scale_down_failure_ + options_.scale_down_delay_after_failure > now);
    if (!cooldown) {
      std::vector<scaledown::NodeToRemove> remove = planner_.NodesToDelete(now);
      if (!remove.empty()) {
        std::vector<std::string> deleting = actuator_.StartDeletion(now, remove, view);
        if (!deleting.empty()) {
          last_scale_down_delete_ = now;
        }
        for (const scaledown::NodeToRemove& r : remove) {
          if (std::find(deleting.begin(), deleting.end(), r.node) != deleting.end()) {
            metrics_->RegisterScaleDown(1, r.empty ? "empty" : "underutilized");
          }
        }
      }
    }
  }
  WriteStatus(now, groups, scale_up_status, scale_down_status);
  if (log_.lines() == lines_before) {
    settled_until_ =
        ComputeSettledUntil(now, view, facts, groups, scaled_up || too_new || scale_up_failed);
  }
  return OkStatus();
}

std::optional<TimePoint> AutoscalerImpl::ComputeSettledUntil(
    TimePoint now, const ClusterView& view, const std::vector<const NodeFacts*>& facts,
    const std::map<std::string, GroupState>& groups, bool acted) const {
  if (acted || !scale_up_requests_.empty()) return std::nullopt;
  std::optional<TimePoint> until =
      options_.scale_down_enabled ? planner_.SettledUntil() : TimePoint::max();
  if (!until.has_value()) return std::nullopt;
  // A node Ready for less than the stabilization delay becomes its group's template later.
  for (const NodeFacts* f : facts) {
    if (f->ready_since && *f->ready_since + options_.node_template_stabilization_delay > now) {
      until = std::min(*until, *f->ready_since + options_.node_template_stabilization_delay);
    }
  }
  // Every node registered, ready and started; no instance failed, creating or being deleted.
  const auto quiet = [](const GroupState& s) {
    return s.not_started == 0 && s.unready == 0 && s.unregistered == 0 &&
           s.long_unregistered == 0 && s.being_deleted == 0 && s.failed_instances.empty() &&
           s.ready == s.registered;
  };
  if (!quiet(unmanaged_)) return std::nullopt;
  for (const auto& [id, s] : groups) {
    // A backoff ends with time; a target above the nodes there is capacity on its way.
    if (!quiet(s) || BackedOff(id, now) || s.target != s.registered) return std::nullopt;
  }
  // A terminating pod stops counting towards its node's utilisation once it is long
  // terminating (drainability.h), with time alone.
  const bool terminating =
      std::any_of(view.scheduled_pods.begin(), view.scheduled_pods.end(),
                  [](const auto& p) { return p->deletion_timestamp().has_value(); });
  if (terminating) return std::nullopt;
  return until;
}

void AutoscalerImpl::SkipOnce(TimePoint now) {
  loop_events_.EmitAgain();  // what the loop would have said again (pods it cannot help)
  metrics_->UpdateLastTime("main", now);
  metrics_->UpdateLastTime("autoscaling", now);
  if (options_.scale_down_enabled) {
    metrics_->UpdateLastTime("scaleDown", now);
    planner_.NoteSkippedLoop(now);
  }
}

void AutoscalerImpl::WriteStatus(TimePoint now, const std::map<std::string, GroupState>& groups,
                                 const std::string& scale_up_status,
                                 const std::string& scale_down_status) {
  int total = 0, ready = 0, not_started = 0, unready = 0, resource_unready = 0, deleting = 0,
      long_unreg = 0, unreg = 0;
  std::vector<const GroupState*> all;
  for (const auto& [id, s] : groups) {
    all.push_back(&s);
  }
  all.push_back(&unmanaged_);
  for (const GroupState* state : all) {
    const GroupState& s = *state;
    total += s.registered;
    ready += s.ready;
    not_started += s.not_started;
    unready += s.unready;
    resource_unready += s.resource_unready;
    deleting += s.being_deleted;
    long_unreg += s.long_unregistered;
    unreg += s.unregistered;
  }
  metrics_->UpdateNodesCount(ready, unready, not_started, long_unreg, unreg);
  const std::string t = FormatRfc3339(now);
  std::string y;
  y += "time: " + t + "\n";
  y += "autoscalerStatus: Running\n";
  y += "clusterWide:\n";
  y += "  health:\n";
  y += "    status: Healthy\n";
  y += "    nodeCounts:\n";
  y += "      registered:\n";
  y += "        total: " + std::to_string(total) + "\n";
  y += "        ready: " + std::to_string(ready) + "\n";
  y += "        notStarted: " + std::to_string(not_started) + "\n";
  y += "        beingDeleted: " + std::to_string(deleting) + "\n";
  y += "        unready:\n";
  y += "          total: " + std::to_string(unready) + "\n";
  y += "          resourceUnready: " + std::to_string(resource_unready) + "\n";
  y += "      longUnregistered: " + std::to_string(long_unreg) + "\n";
  y += "      unregistered: " + std::to_string(unreg) + "\n";
  y += "  scaleUp:\n";
  y += "    status: " + scale_up_status + "\n";
  y += "  scaleDown:\n";
  y += "    status: " + scale_down_status + "\n";
  y += "nodeGroups:\n";
  for (const auto& [id, s] : groups) {
    y += "- name: " + id + "\n";
    y += "  health:\n";
    y += "    status: Healthy\n";
    y += "    nodeCounts:\n";
    y += "      registered:\n";
    y += "        total: " + std::to_string(s.registered) + "\n";
    y += "        ready: " + std::to_string(s.ready) + "\n";
    y += "        notStarted: " + std::to_string(s.not_started) + "\n";
    y += "    cloudProviderTarget: " + std::to_string(s.target) + "\n";
    y += "    minSize: " + std::to_string(s.group->MinSize()) + "\n";
    y += "    maxSize: " + std::to_string(s.group->MaxSize()) + "\n";
    y += "  scaleUp:\n";
    if (BackedOff(id, now)) {
      const BackoffState& b = backoff_.at(id);
      y += "    status: Backoff\n";
      y += "    backoffInfo:\n";
      y += "      errorCode: " + b.error_code + "\n";
      y += "      errorMessage: \"" + b.error_message + "\"\n";
    } else {
      y += std::string("    status: ") +
           (scale_up_requests_.count(id) > 0 ? "InProgress" : "NoActivity") + "\n";
    }
  }
  status_yaml_ = std::move(y);
}

}  // namespace

StatusOr<std::unique_ptr<Autoscaler>> Autoscaler::Create(const AutoscalingOptions& options,
                                                         cloud::CloudProvider& cloud,
                                                         ClusterWriter& writer,
                                                         EventRecorder& recorder,
                                                         log::Logger& logger, Random& random) {
  TIDEPOOL_ASSIGN_OR_RETURN(std::unique_ptr<scheduler::Scheduler> sched,
                            scheduler::Scheduler::Create(options.scheduler_profile));
  expander::ExpanderConfig ec;
  ec.names = options.expander;
  ec.pricing = cloud.Pricing();
  TIDEPOOL_ASSIGN_OR_RETURN(std::unique_ptr<expander::Strategy> strategy,
                            expander::NewStrategy(ec, random));
  return std::unique_ptr<Autoscaler>(new AutoscalerImpl(options, cloud, writer, recorder, logger,
                                                        std::move(sched),
                                                        std::move(strategy)));
}

}  // namespace tidepool::autoscaler
