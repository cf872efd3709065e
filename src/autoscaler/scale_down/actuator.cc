// Actuator: CA's core/scaledown/actuation (actuator.go, drain.go, delete_in_batch.go), made
// synchronous.
#include "autoscaler/scale_down/drainability.h"
#include "autoscaler/scale_down/go_format.h"
#include "autoscaler/scale_down/scale_down.h"
#include "autoscaler/scale_down/utilization.h"

namespace tidepool::autoscaler::scaledown {
namespace {

ObjectRef NodeRef(const std::string& name) { return ObjectRef{"Node", "", name, ""}; }

ObjectRef PodRef(const scheduler::PodInfo& pod) {
  return ObjectRef{"Pod", pod.namespace_(), std::string(pod.name()), std::string(pod.uid())};
}

// CA's joinPodNames: pod names (without namespace) joined by ",".
std::string JoinPodNames(const std::vector<scheduler::PodInfoConstSharedPtr>& pods) {
  std::string out;
  for (size_t i = 0; i < pods.size(); ++i) {
    out += (i > 0 ? "," : "");
    out += pods[i]->name();
  }
  return out;
}

}  // namespace

Actuator::Actuator(const AutoscalingOptions& options, cloud::CloudProvider& cloud,
                   ClusterWriter& writer, EventRecorder& recorder, log::Logger& logger)
    : options_(options), cloud_(cloud), writer_(writer), recorder_(recorder), log_(logger) {}

std::vector<std::string> Actuator::StartDeletion(TimePoint now,
                                                 const std::vector<NodeToRemove>& nodes,
                                                 const ClusterView& view) {
  std::vector<std::string> deleted;
  std::vector<const NodeToRemove*> empty;
  std::vector<const NodeToRemove*> drain;
  for (const NodeToRemove& n : nodes) {
    (n.empty ? empty : drain).push_back(&n);
  }
  const ObjectRef status_cm{"ConfigMap", "kube-system", options_.status_config_map_name, ""};

  if (!empty.empty()) {
    if (!TaintAll(now, empty)) {
      return deleted;
    }
    for (const NodeToRemove* n : empty) {
      const std::string msg = "Scale-down: removing empty node " + GoQuote(n->node);
      log_.Info(msg);
      recorder_.Event(status_cm, "Normal", "ScaleDownEmpty", msg);
    }
    // No listers and no budgets: CA's deleteNodesAsync sets them when draining only.
    const PodsNow pods_now = ReadPods(empty);
    for (const NodeToRemove* n : empty) {
      const Pods& pods = PodsOf(pods_now, n->node);
      if (Movable(now, *n, false, pods, DrainOptions::From(options_), RemainingPdbTracker()) &&
          Delete(*n, false, pods)) {
        deleted.push_back(n->node);
      }
    }
  }

  if (!drain.empty()) {
    // Every node to drain is tainted before any eviction, so that pods evicted from one are not
    // recreated on another.
    if (!TaintAll(now, drain)) {
      return deleted;
    }
    for (const NodeToRemove* n : drain) {
      const std::string msg = "Scale-down: removing node " + n->node +
                              ", utilization: " + FormatUtilization(n->utilization) +
                              ", pods to reschedule: " + JoinPodNames(n->pods_to_move);
      log_.Info(msg);
      recorder_.Event(status_cm, "Normal", "ScaleDown", msg);
    }
    const PodsNow pods_now = ReadPods(drain);
    RemainingPdbTracker pdbs;
    pdbs.SetPdbs(view.pdbs);
    const DrainOptions options = DrainOptions::From(options_, view.controllers.get());
    for (const NodeToRemove* n : drain) {
      const Pods& pods = PodsOf(pods_now, n->node);
      if (Movable(now, *n, true, pods, options, pdbs) && Delete(*n, true, pods)) {
        deleted.push_back(n->node);
      }
    }
  }
  return deleted;
}

Actuator::PodsNow Actuator::ReadPods(const std::vector<const NodeToRemove*>& nodes) const {
  std::set<std::string, std::less<>> names;
  for (const NodeToRemove* n : nodes) names.insert(n->node);
  PodsNow pods_now = writer_.PodsOnNodes(names);
  // CA's deletion snapshot holds the non-expendable scheduled pods only.
  for (auto& [node, pods] : pods_now) {
    std::erase_if(pods, [&](const scheduler::PodInfoConstSharedPtr& p) {
      return IsExpendablePod(*p, options_.expendable_pods_priority_cutoff);
    });
  }
  return pods_now;
}

const Actuator::Pods& Actuator::PodsOf(const PodsNow& pods_now, const std::string& node) {
  static const Pods kNone;
  auto it = pods_now.find(node);
  return it == pods_now.end() ? kNone : it->second;
}

bool Actuator::TaintAll(TimePoint now, const std::vector<const NodeToRemove*>& nodes) {
  // MarkToBeDeleted: ToBeDeletedByClusterAutoscaler=<unix seconds>:NoSchedule.
  const api::Taint taint{std::string(kToBeDeletedTaint), std::to_string(UnixSeconds(now)),
                         api::TaintEffect::kNoSchedule, std::nullopt};
  std::vector<const NodeToRemove*> tainted;
  for (const NodeToRemove* n : nodes) {
    Status s = writer_.AddNodeTaint(n->node, taint);
    if (!s.ok()) {
      recorder_.Event(
          NodeRef(n->node), "Warning", "ScaleDownFailed",
          "failed to mark the node as toBeDeleted/unschedulable: " + std::string(s.message()));
      // Clean up the taints already applied.
      for (const NodeToRemove* t : tainted) {
        if (writer_.RemoveNodeTaint(t->node, std::string(kToBeDeletedTaint)).ok()) {
          log_.V(1,
                 "Successfully released " + std::string(kToBeDeletedTaint) + " on node " + t->node);
        }
      }
      log_.Error("Failed to scale down: couldn't taint node " + GoQuote(n->node) +
                 " with ToBeDeleted");
      return false;
    }
    recorder_.Event(NodeRef(n->node), "Normal", "ScaleDown",
                    "marked the node as toBeDeleted/unschedulable");
    tainted.push_back(n);
  }
  return true;
}

bool Actuator::Movable(TimePoint now, const NodeToRemove& node, bool drain, const Pods& pods,
                       const DrainOptions& options, const RemainingPdbTracker& pdbs) {
  const PodsToMove ptm = GetPodsToMove(pods, options, pdbs, now);
  if (ptm.blocked()) {
    log_.Error("Scale-down: couldn't delete node " + GoQuote(node.node) + ", err: " + ptm.message);
    FailDeletion(node, drain, "failed to get pods to move on node",
                 "GetPodsToMove for " + GoQuote(node.node) + " returned error: " + ptm.message);
    return false;
  }
  if (!drain && !ptm.pods.empty()) {
    log_.Error("Scale-down: couldn't delete empty node " + GoQuote(node.node) +
               ", new pods got scheduled");
    FailDeletion(node, false, "node is not empty",
                 "failed to delete empty node " + GoQuote(node.node) + ", new pods scheduled");
    return false;
  }
  return true;
}

int64_t Actuator::GracePeriod(const scheduler::PodInfo& pod) const {
  // CA's evictPod: the pod's own grace period (default 30 s), at most the drain rule's
  // (--max-graceful-termination-sec).
  int64_t grace = pod.spec().termination_grace_period_seconds.value_or(30);
  const int64_t max = options_.max_graceful_termination_sec;
  return max > 0 && grace > max ? max : grace;
}

std::vector<std::string> Actuator::Evict(const Pods& pods, bool full_eviction) {
  // A best-effort eviction's failure is neither logged nor an event, and fails nothing.
  std::vector<std::string> errors;
  for (const scheduler::PodInfoConstSharedPtr& p : pods) {
    const scheduler::PodInfo& pod = *p;
    recorder_.Event(PodRef(pod), "Normal", "ScaleDown", "deleting pod for node scale down");
    Status s = writer_.EvictPod(pod.namespace_(), std::string(pod.name()), GracePeriod(pod));
    if (s.ok() || s.code() == StatusCode::kNotFound) {
      continue;
    }
    if (!full_eviction) continue;
    log_.Error("Failed to evict pod " + std::string(pod.name()) +
               ", error: " + std::string(s.message()));
    recorder_.Event(PodRef(pod), "Warning", "ScaleDownFailed",
                    "failed to delete pod for ScaleDown");
    errors.push_back("failed to evict pod " + pod.Key() +
                     " within allowed timeout (last error: " + std::string(s.message()) + ")");
  }
  return errors;
}

bool Actuator::Delete(const NodeToRemove& node, bool drain, const Pods& pods) {
  // CA's podsToEvict: every pod but mirror pods; the DaemonSet pods apart, those its flag for
  // the node's kind (or their own annotation) lets go, evicted best effort.
  Pods others;
  Pods daemonset;
  const bool evict_ds = drain ? options_.daemonset_eviction_for_occupied_nodes
                              : options_.daemonset_eviction_for_empty_nodes;
  for (const scheduler::PodInfoConstSharedPtr& p : pods) {
    if (IsMirrorPod(*p)) continue;
    if (!IsDaemonSetPod(*p)) {
      others.push_back(p);
      continue;
    }
    auto a = p->annotations().find(std::string(kEnableDsEvictionAnnotation));
    if (a != p->annotations().end() ? a->second == "true" : evict_ds) daemonset.push_back(p);
  }
  if (drain) {
    const std::vector<std::string> errors = Evict(others, true);
    Evict(daemonset, false);
    if (!errors.empty()) {
      std::string joined;
      for (size_t i = 0; i < errors.size(); ++i) {
        joined += (i > 0 ? " " : "") + errors[i];
      }
      FailDeletion(
          node, true, "prepareNodeForDeletion failed",
          "Failed to drain node /" + node.node + ", due to following errors: [" + joined + "]");
      return false;
    }
    log_.V(1, "All pods removed from " + node.node);
  } else {
    Evict(daemonset, false);  // EvictDaemonSetPods: best effort, never fails the deletion
  }

  cloud::NodeGroup* group = nullptr;
  for (cloud::NodeGroup* g : cloud_.NodeGroups()) {
    if (g->Id() == node.node_group) {
      group = g;
      break;
    }
  }
  if (group == nullptr) {
    FailDeletion(node, drain, "", "picked node that doesn't belong to a node group: " + node.node);
    return false;
  }
  Status s = group->DeleteNodes({node.node});
  if (!s.ok()) {
    FailDeletion(
        node, drain, "",
        "failed to delete nodes from group " + group->Id() + ": " + std::string(s.message()));
    return false;
  }
  // RegisterAndRecordSuccessfulScaleDownEvent.
  recorder_.Event(NodeRef(node.node), "Normal", "ScaleDown", "nodes removed by cluster autoscaler");
  const ObjectRef status_cm{"ConfigMap", "kube-system", options_.status_config_map_name, ""};
  if (drain) {
    recorder_.Event(status_cm, "Normal", "ScaleDown",
                    "Scale-down: node " + node.node + " removed with drain");
  } else {
    recorder_.Event(status_cm, "Normal", "ScaleDownEmpty",
                    "Scale-down: empty node " + node.node + " removed");
  }
  return true;
}

void Actuator::FailDeletion(const NodeToRemove& node, bool drain, const std::string& err_msg,
                            const std::string& err) {
  // CleanUpAndRecordFailedScaleDownEvent.
  if (drain) {
    log_.Error("Scale-down: couldn't delete node " + GoQuote(node.node) + " with drain, " +
               err_msg + ", status error: " + err);
    recorder_.Event(NodeRef(node.node), "Warning", "ScaleDownFailed",
                    "failed to drain and delete node: " + err);
  } else {
    log_.Error("Scale-down: couldn't delete empty node, " + err_msg + ", status error: " + err);
    recorder_.Event(NodeRef(node.node), "Warning", "ScaleDownFailed",
                    "failed to delete empty node: " + err);
  }
  if (writer_.RemoveNodeTaint(node.node, std::string(kToBeDeletedTaint)).ok()) {
    log_.V(1, "Successfully released " + std::string(kToBeDeletedTaint) + " on node " + node.node);
  }
}

}  // namespace tidepool::autoscaler::scaledown
