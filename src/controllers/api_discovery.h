// File: api_discovery.h
//
// The resources the API serves, as client-go's discovery gives them to kube-controller-manager
// (ServerPreferredResources): every group-version of /api and /apis, and of each
// APIResourceList its top-level resources (subresources left out), a group's resource once, in
// its preferred version (the first version a group lists). Custom resources included. The
// garbage collector and the namespace controller read it.
//
// Errors: the first failed GET's Status. Thread-compatible (a free function of a client).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "client/rest_client.h"
#include "common/status_or.h"

namespace tidepool::controllers {

struct ApiResource {
  std::string group_version;  // "v1", "apps/v1"
  std::string group;          // "", "apps"
  std::string resource;       // "replicasets"
  std::string kind;           // "ReplicaSet"
  bool namespaced = true;
  std::set<std::string> verbs;

  bool Can(const std::string& verb) const { return verbs.count(verb) != 0; }
  // "/api/v1/namespaces/<ns>/pods" or "/apis/apps/v1/replicasets" (`ns` empty: every one).
  std::string CollectionPath(const std::string& ns) const;
};

// Every served resource in every version a group lists, in discovery order, with
// `preferred_only` just the first version of each group/resource.
StatusOr<std::vector<ApiResource>> DiscoverApiResources(const client::RestClient& client,
                                                        bool preferred_only);

// "apps/v1" -> "apps"; "v1" -> "".
std::string GroupOfVersion(const std::string& group_version);

}  // namespace tidepool::controllers
