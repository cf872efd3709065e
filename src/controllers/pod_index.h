// File: pod_index.h
//
// PodIndex: what a controller that claims pods by selector (the ReplicaSet and DaemonSet
// controllers) keeps of them - each pod's immutable facts by key ("ns/name"), and the same
// facts by controller uid and, for pods without a controller, by namespace, so that a sync
// reads only its own pods and its namespace's orphans. Facts are shared by pointer: a sync
// copies pointers. An index entry that empties is erased, so uids of controllers long gone
// leave nothing behind.
//
// `Facts` is a struct with `ns` and `controller_uid` (replicaset::PodFacts). Not thread-safe:
// the controller's lock guards it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tidepool::controllers {

template <typename Facts>
class PodIndex {
 public:
  using Ptr = std::shared_ptr<const Facts>;

  // The facts at `key`, or null.
  Ptr Find(const std::string& key) const {
    auto it = all_.find(key);
    return it == all_.end() ? nullptr : it->second;
  }
  // Puts `facts` at `key`, in place of what was there.
  void Put(const std::string& key, Ptr facts) {
    Remove(key);
    GroupOf(*facts)[key] = facts;
    all_.emplace(key, std::move(facts));
  }
  // Removes what is at `key` (nothing when nothing is).
  void Remove(const std::string& key) {
    auto it = all_.find(key);
    if (it == all_.end()) return;
    const Facts& f = *it->second;
    auto& groups = f.controller_uid.empty() ? orphans_ : by_controller_;
    auto g = groups.find(f.controller_uid.empty() ? f.ns : f.controller_uid);
    g->second.erase(key);
    if (g->second.empty()) groups.erase(g);
    all_.erase(it);
  }
  // Calls `f(facts)` for each pod controlled by `uid`, by key.
  template <typename F>
  void ForEachControlled(const std::string& uid, F&& f) const {
    if (auto it = by_controller_.find(uid); it != by_controller_.end()) {
      for (const auto& [key, p] : it->second) f(p);
    }
  }
  // The pods controlled by `uid`, by key.
  std::vector<Ptr> Controlled(const std::string& uid) const {
    std::vector<Ptr> out;
    if (auto it = by_controller_.find(uid); it != by_controller_.end()) {
      out.reserve(it->second.size());
      for (const auto& [key, p] : it->second) out.push_back(p);
    }
    return out;
  }
  // The pods of `ns` without a controller for which `keep(facts)`, by key.
  template <typename Keep>
  std::vector<Ptr> Orphans(const std::string& ns, Keep&& keep) const {
    std::vector<Ptr> out;
    if (auto it = orphans_.find(ns); it != orphans_.end()) {
      for (const auto& [key, p] : it->second) {
        if (keep(*p)) out.push_back(p);
      }
    }
    return out;
  }

 private:
  std::map<std::string, Ptr>& GroupOf(const Facts& f) {
    return f.controller_uid.empty() ? orphans_[f.ns] : by_controller_[f.controller_uid];
  }

  std::map<std::string, Ptr> all_;
  std::map<std::string, std::map<std::string, Ptr>> by_controller_;  // uid -> key -> facts
  std::map<std::string, std::map<std::string, Ptr>> orphans_;        // ns -> key -> facts
};

}  // namespace tidepool::controllers
