// File: node_pods.h
//
// NodePods: the pods one DaemonSet controls, grouped by the node each is for, kept up to date
// by the pods that changed instead of regrouped on every sync (kcm's getNodesToDaemonPods,
// which lists and claims every pod of the namespace and maps them by node on each sync).
//
//   - A pod is grouped when its controller is the DaemonSet (Params::uid; the caller hands only
//     such pods to Set) and the selector matches its labels. A controlled pod the selector does
//     not match is kept apart (Unmatched: the claim releases it). A pod that is gone or has
//     another controller is handed as null.
//   - A pod's node is DaemonPod::node_name: its nodeName, or before binding the node its
//     affinity pins it to ("" when neither: such a pod groups under "").
//   - Each node's pods are in kcm's order (podByCreationTimestampAndPhase): bound before
//     unbound, then older first, then by name.
//   - It counts the grouped pods not up to date with the template (daemon_pods.h IsUpdated of
//     Params' generation and hash): with none, a rolling update has nothing to do.
//   - What it groups and counts is fixed by its Params (the DaemonSet's uid and selector, its
//     template generation and revision hash): the caller makes a new NodePods when they
//     change.
//
// Thread-compatible: the caller locks.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/selector.h"
#include "controllers/replicaset/pod_ranking.h"

namespace tidepool::controllers::daemonset {

// What the controller keeps of a pod: the ReplicaSet controller's PodFacts (node_name is the
// pod's target node: its nodeName, or the node its affinity pins it to) and whether it is bound.
struct DaemonPod : replicaset::PodFacts {
  bool bound = false;  // spec.nodeName set
};
// Immutable once made, indexed and handed round by pointer (as replicaset::PodFactsPtr).
using DaemonPodPtr = std::shared_ptr<const DaemonPod>;

// podByCreationTimestampAndPhase: bound before unbound, then older first, then by name.
bool OlderFirst(const DaemonPodPtr& a, const DaemonPodPtr& b);

class NodePods {
 public:
  struct Params {
    std::string uid;
    std::optional<api::LabelSelector> selector;  // nullopt: matches nothing
    std::string generation, hash;                // the template's (IsUpdated)
    friend bool operator==(const Params&, const Params&) = default;
  };
  using Group = std::vector<DaemonPodPtr>;  // one node's pods, in kcm's order

  explicit NodePods(Params params) : params_(std::move(params)) {}
  const Params& params() const { return params_; }

  // The pod `key` ("namespace/name") as it is now; null when it is gone or not controlled by
  // params().uid.
  void Set(const std::string& key, DaemonPodPtr pod);

  // Every node with grouped pods, by name.
  const std::map<std::string, Group>& by_node() const { return by_node_; }
  // Controlled pods the selector does not match, by key.
  std::vector<DaemonPodPtr> Unmatched() const;
  size_t grouped() const { return grouped_; }
  // Grouped pods that are not up to date (terminating ones included).
  size_t outdated() const { return outdated_; }

 private:
  void Ungroup(const DaemonPodPtr& pod);

  Params params_;
  // key -> the pod as last set, and whether it is grouped (else unmatched).
  std::unordered_map<std::string, std::pair<DaemonPodPtr, bool>> pods_;
  std::map<std::string, Group> by_node_;
  std::map<std::string, DaemonPodPtr> unmatched_;
  size_t grouped_ = 0;
  size_t outdated_ = 0;
};

}  // namespace tidepool::controllers::daemonset
