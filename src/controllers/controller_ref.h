// File: controller_ref.h
//
// The writes of kube-controller-manager's ControllerRefManager (ClaimPods' adopt and release),
// shared by the controllers that claim pods by selector: the pod is read, and a merge patch
// carrying its ownerReferences (whole, as merge patches replace lists) and `uid` (so a pod
// recreated under the same name is never patched) is sent.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "client/rest_client.h"
#include "common/status.h"

namespace tidepool::controllers {

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

}  // namespace tidepool::controllers
