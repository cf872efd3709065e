// File: kube_version.h
//
// The Kubernetes release tidepool emulates, declared once: GKE's 1.32.4-gke.1106006. The API
// server's /version and its OpenAPI documents' info.version say its gitVersion (as GKE's
// control plane does: `kubectl version` prints "Server Version: v1.32.4-gke.1106006"), the
// emulated kubelets report it as nodeInfo.kubeletVersion, the GKE API as a cluster's
// currentMasterVersion. Upstream's parts of it stay upstream's: major "1", minor "32" (the
// Cloud SDK's kubectl dispatcher picks its client by the minor).
#pragma once

#include <string_view>

namespace tidepool {

inline constexpr std::string_view kGkeVersion = "1.32.4-gke.1106006";
inline constexpr std::string_view kKubeGitVersion = "v1.32.4-gke.1106006";
inline constexpr std::string_view kKubeMajor = "1";
inline constexpr std::string_view kKubeMinor = "32";

}  // namespace tidepool
