// File: discovery.h
//
// Discovery and OpenAPI documents, generated from the resource registry (resources.h), in the
// shapes kubectl 1.32 reads (kubectl-api.md §2.2-2.3):
//   - /version: major "1", minor "32" (the Google Cloud SDK's kubectl dispatcher picks its
//     kubectl 1.32 client by this minor);
//   - aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) for /api and /apis,
//     served with its own media type by the caller;
//   - legacy discovery: APIVersions (/api), APIGroupList (/apis), APIGroup (/apis/<g>),
//     APIResourceList (/api/v1, /apis/<g>/<v>) - drain reads /api/v1 for pods/eviction;
//   - OpenAPI v3: the root ({"paths": {"api/v1": {"serverRelativeURL": ...}}}) and one document
//     per group-version whose PATCH operations carry x-kubernetes-group-version-kind and the
//     fieldValidation parameter, with no requestBody: that tells kubectl to leave field
//     validation to the server (it then sends fieldValidation=Strict), and to compute its
//     strategic merge patches from its own types. components.schemas holds the kinds' schemas
//     and what they reference, for `kubectl explain`: the built-in kinds' from
//     schema/openapi.h (their documents are made once), a custom resource's from its
//     definition.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "apiserver/resources.h"

namespace tidepool::apiserver {

// The custom resources served now (crd/registry.h), listed after the built-in ones.
using CustomResourceList = std::vector<const Resource*>;

inline constexpr char kAggregatedDiscoveryType[] =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

nlohmann::json VersionInfo();
// `core`: /api (the legacy group) or /apis (every named group).
nlohmann::json AggregatedDiscovery(bool core, const CustomResourceList& custom);
nlohmann::json LegacyApiVersions(std::string_view server_address);
nlohmann::json LegacyApiGroupList(const CustomResourceList& custom);
// nullopt when the group is not served.
std::optional<nlohmann::json> LegacyApiGroup(std::string_view group,
                                             const CustomResourceList& custom);
// `group_version`: "v1" or "apps/v1". nullopt when not served.
std::optional<nlohmann::ordered_json> ApiResourceList(std::string_view group_version,
                                                      const CustomResourceList& custom);

nlohmann::json OpenApiV3Root(const CustomResourceList& custom);
// `path`: "api/v1" or "apis/apps/v1". nullopt when not served.
std::optional<nlohmann::json> OpenApiV3Document(std::string_view path,
                                                const CustomResourceList& custom);

}  // namespace tidepool::apiserver
