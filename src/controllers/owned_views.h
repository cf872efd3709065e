// File: owned_views.h
//
// OwnedViews: the views a controller keeps of the pods each of its objects controls, brought up
// to date by the pods that changed instead of rebuilt on every sync (the ReplicaSet controller's
// Tally, the DaemonSet controller's NodePods).
//
//   - One View per owner uid. Refresh makes it from the controller's PodIndex (every pod the uid
//     controls) when there is none or when the Params it was made with differ; otherwise it
//     hands it, to View::Set, each pod recorded by Changed since the last Refresh: the pod as the
//     index has it now when the uid still controls it, else null.
//   - An owner key ("ns/name") maps to the uid of its view: a view whose key now names an object
//     of another uid (made again under the same name) is dropped, and Forget drops the view of
//     an owner that is gone.
//   - Views live in a std::map: a View& stays valid until its uid's view is remade or dropped.
//
// View: constructible from `View::Params` (which has `uid` and operator==), with
// `const Params& params() const` and `void Set(const std::string& key,
// std::shared_ptr<const Facts> pod)`. Thread-compatible: the controller's lock guards every call.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

#include "controllers/object_json.h"
#include "controllers/pod_index.h"

namespace tidepool::controllers {

template <typename View, typename Facts>
class OwnedViews {
 public:
  // The pod `key` changed; `uid` is its controller's uid, before or after the change ("": none).
  void Changed(const std::string& uid, const std::string& key) {
    if (uid.empty()) return;
    if (auto it = views_.find(uid); it != views_.end()) it->second.changed.insert(key);
  }

  // The view of the owner `owner_key` for `params`, up to date with `index`.
  View& Refresh(const std::string& owner_key, const typename View::Params& params,
                const PodIndex<Facts>& index) {
    if (auto k = uids_.find(owner_key); k != uids_.end() && k->second != params.uid) {
      views_.erase(k->second);  // an object of the same name before this one
    }
    uids_[owner_key] = params.uid;
    auto it = views_.find(params.uid);
    if (it == views_.end() || !(it->second.view.params() == params)) {
      Tracked fresh{View(params), {}};
      index.ForEachControlled(params.uid, [&fresh](const std::shared_ptr<const Facts>& p) {
        fresh.view.Set(Key(p->ns, p->name), p);
      });
      return views_.insert_or_assign(params.uid, std::move(fresh)).first->second.view;
    }
    Tracked& t = it->second;
    for (const std::string& pod_key : t.changed) {
      std::shared_ptr<const Facts> p = index.Find(pod_key);
      t.view.Set(pod_key, p != nullptr && p->controller_uid == params.uid ? std::move(p) : nullptr);
    }
    t.changed.clear();
    return t.view;
  }

  // The view of `uid`. REQUIRES: Refresh made it.
  View& At(const std::string& uid) { return views_.at(uid).view; }

  // Drops the view of the owner `owner_key` (gone).
  void Forget(const std::string& owner_key) {
    if (auto k = uids_.find(owner_key); k != uids_.end()) {
      views_.erase(k->second);
      uids_.erase(k);
    }
  }

 private:
  struct Tracked {
    View view;
    std::set<std::string> changed;  // pod keys
  };
  std::map<std::string, Tracked> views_;     // owner uid -> its view
  std::map<std::string, std::string> uids_;  // owner key -> the uid of its view
};

}  // namespace tidepool::controllers
