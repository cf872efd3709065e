#include "api/storage.h"

#include <algorithm>

namespace tidepool::api {

std::string PersistentVolumeClaim::ClassName() const {
  if (auto it = meta.annotations.find(std::string(kAnnBetaStorageClass));
      it != meta.annotations.end()) {
    return it->second;
  }
  return storage_class_name.value_or("");
}

bool PersistentVolumeClaim::FullyBound() const {
  return !volume_name.empty() && meta.annotations.count(std::string(kAnnBindCompleted)) != 0;
}

std::string PersistentVolumeClaim::SelectedNode() const {
  auto it = meta.annotations.find(std::string(kAnnSelectedNode));
  return it == meta.annotations.end() ? "" : it->second;
}

std::string PersistentVolume::ClassName() const {
  if (auto it = meta.annotations.find(std::string(kAnnBetaStorageClass));
      it != meta.annotations.end()) {
    return it->second;
  }
  return storage_class_name;
}

bool PersistentVolume::NodeAffinityMatches(const Labels& node_labels) const {
  // A node of labels only: matchFields (metadata.name) never match.
  return !node_affinity.has_value() || node_affinity->Matches(node_labels, "");
}

bool PersistentVolume::AffinityNamesNodes() const {
  if (!node_affinity.has_value()) return false;
  for (const NodeSelectorTerm& t : node_affinity->terms) {
    if (!t.match_fields.empty()) return true;
    for (const SelectorRequirement& r : t.match_expressions) {
      if (r.key == "kubernetes.io/hostname") return true;
    }
  }
  return false;
}

bool StorageClass::TopologyNamesNodes() const {
  for (const auto& term : allowed_topologies) {
    for (const auto& req : term) {
      if (req.first == "kubernetes.io/hostname") return true;
    }
  }
  return false;
}

bool StorageClass::TopologyAllows(const Labels& node_labels) const {
  if (allowed_topologies.empty()) return true;
  for (const auto& term : allowed_topologies) {
    if (term.empty()) continue;  // an empty term selects nothing
    const bool all = std::all_of(term.begin(), term.end(), [&](const auto& req) {
      auto it = node_labels.find(req.first);
      return it != node_labels.end() &&
             std::find(req.second.begin(), req.second.end(), it->second) != req.second.end();
    });
    if (all) return true;
  }
  return false;
}

}  // namespace tidepool::api
