// File: controller_ref.h
//
// The writes of kube-controller-manager's ControllerRefManager (ClaimPods' adopt and release),
// shared by the controllers that claim pods by selector: the pod is read, and a merge patch
// carrying its ownerReferences (whole, as merge patches replace lists) and `uid` (so a pod
// recreated under the same name is never patched) is sent.
//
// ClaimPods is the rest of ClaimPods for a controller that keeps its pods in its own indexes
// (the ReplicaSet, DaemonSet and StatefulSet controllers): the releases and adoptions, with
// kcm's RecheckDeletionTimestamp once before the first adoption.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "client/rest_client.h"
#include "common/status.h"
#include "common/status_or.h"

namespace tidepool::controllers {

// The path of the pod `name` in `ns` ("/api/v1/namespaces/NS/pods/NAME"; the collection when
// `name` is empty).
std::string PodsPath(const std::string& ns, const std::string& name = "");

// Adds `controller_ref` to the ownerReferences of the object at `path` whose uid is `uid`.
Status AdoptObject(const client::RestClient& client, const std::string& path,
                   const std::string& uid, const nlohmann::json& controller_ref);
// kcm's RecheckDeletionTimestamp, run before a controller adopts anything: a live read of the
// owner at `path`; AbortedError when it is another object than `uid` ("original <kind> NS/NAME
// is gone: got uid X, wanted Y") or is being deleted ("NS/NAME has just been deleted at T"),
// the read's error when it fails.
Status RecheckDeletionTimestamp(const client::RestClient& client, const std::string& path,
                                const std::string& uid, const std::string& kind);
// Removes the ownerReferences naming `owner_uid` from the object at `path` whose uid is `uid`.
Status ReleaseObject(const client::RestClient& client, const std::string& path,
                     const std::string& uid, const std::string& owner_uid);

// What ClaimPods needs of the owner.
struct PodClaimOwner {
  std::string ns;
  std::string uid;
  bool deleting = false;                           // the owner has a deletionTimestamp
  const nlohmann::json* controller_ref = nullptr;  // the ownerReference an adoption adds
  // kcm's canAdopt: RecheckDeletionTimestamp of the owner; null: adopt without a recheck.
  std::function<Status()> can_adopt;
};

// The PodClaimOwner of `owner`, an apps/v1 object of `resource` ("replicasets") and `kind`
// ("ReplicaSet"): can_adopt is RecheckDeletionTimestamp of it. `controller_ref` (the
// ownerReference adoptions add) and `client` must outlive the result.
PodClaimOwner ClaimOwnerOf(const client::RestClient& client, const nlohmann::json& owner,
                           const std::string& resource, const std::string& kind,
                           const nlohmann::json& controller_ref);

// ClaimPods' access to a pod that is a struct or a shared pointer to a const one.
namespace claim_internal {
template <typename P>
const P& Facts(const P& p) {
  return p;
}
template <typename T>
const T& Facts(const std::shared_ptr<const T>& p) {
  return *p;
}
template <typename P>
void SetController(P& p, const std::string& uid) {
  p.controller_uid = uid;
}
template <typename T>
void SetController(std::shared_ptr<const T>& p, const std::string& uid) {
  auto copy = std::make_shared<T>(*p);
  copy->controller_uid = uid;
  p = std::move(copy);
}
}  // namespace claim_internal

// kcm's ControllerRefManager.ClaimPods once the caller has its candidates: `owned` are the
// pods whose controller is the owner, `orphans` the pods without a controller that the owner's
// selector matches (not being deleted). An owned pod that `matches` is claimed; one that does
// not is left out, and released unless the owner is being deleted (kcm's ClaimObject). Orphans
// are adopted - none while the owner is being deleted - after one `can_adopt` before the first; an
// adopted pod's controller_uid becomes the owner's. Returns the claimed pods, or - as kcm's
// ClaimPods, after which the sync is retried - the recheck's error (nothing is adopted then) or the
// first release or adoption error other than NotFound. Pod: a struct with name, uid and
// controller_uid, or a shared pointer to a const one (an adopted pod is then a copy with the
// new controller_uid; the others are handed on as they are).
template <typename Pod, typename Matches>
StatusOr<std::vector<Pod>> ClaimPods(const client::RestClient& client, const PodClaimOwner& owner,
                                     std::vector<Pod> owned, const Matches& matches,
                                     std::vector<Pod> orphans) {
  std::vector<Pod> out;
  Status failed;
  const auto note = [&failed](const Status& s) {
    if (!s.ok() && failed.ok() && s.code() != StatusCode::kNotFound) failed = s;
  };
  using claim_internal::Facts;
  for (Pod& p : owned) {
    if (matches(p)) {
      out.push_back(std::move(p));
    } else if (!owner.deleting) {
      note(ReleaseObject(client, PodsPath(owner.ns, Facts(p).name), Facts(p).uid, owner.uid));
    }
  }
  if (owner.deleting) orphans.clear();  // a deleting owner adopts nothing
  if (!orphans.empty() && owner.can_adopt) TIDEPOOL_RETURN_IF_ERROR(owner.can_adopt());
  for (Pod& p : orphans) {
    const Status adopted =
        AdoptObject(client, PodsPath(owner.ns, Facts(p).name), Facts(p).uid, *owner.controller_ref);
    note(adopted);
    if (adopted.ok()) {
      claim_internal::SetController(p, owner.uid);
      out.push_back(std::move(p));
    }
  }
  if (!failed.ok()) return failed;
  return out;
}

}  // namespace tidepool::controllers
