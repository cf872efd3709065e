#include "runtime/bootstrap_policy.h"

#include <nlohmann/json.hpp>
#include <string_view>

#include "apiserver/resources.h"

namespace tidepool::runtime {
namespace internal {
std::string_view EmbeddedBootstrapPolicyJson();  // bootstrap_policy.json (CMake)
}  // namespace internal

namespace {

using nlohmann::json;

constexpr char kRbacGroup[] = "rbac.authorization.k8s.io";

json Metadata(const json& entry) {
  json labels = {{"kubernetes.io/bootstrapping", "rbac-defaults"}};
  for (const json& to : entry.value("aggregateTo", json::array())) {
    labels[std::string(kRbacGroup) + "/aggregate-to-" + to.get<std::string>()] = "true";
  }
  return {{"name", entry["name"]},
          {"labels", std::move(labels)},
          {"annotations", {{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

// A compact rule ([apiGroups, resources, verbs(, resourceNames)] or {urls, verbs}) as a
// PolicyRule.
json Rule(const json& r) {
  if (r.is_object()) return {{"nonResourceURLs", r["urls"]}, {"verbs", r["verbs"]}};
  json rule = {{"apiGroups", r[0]}, {"resources", r[1]}, {"verbs", r[2]}};
  if (r.size() > 3) rule["resourceNames"] = r[3];
  return rule;
}

json ClusterRole(const json& entry) {
  json role = {{"apiVersion", std::string(kRbacGroup) + "/v1"},
               {"kind", "ClusterRole"},
               {"metadata", Metadata(entry)}};
  if (entry.contains("aggregate")) {
    role["aggregationRule"] = {
        {"clusterRoleSelectors", json::array({{{"matchLabels",
                                                {{std::string(kRbacGroup) + "/aggregate-to-" +
                                                      entry["aggregate"].get<std::string>(),
                                                  "true"}}}}})}};
  }
  if (entry.contains("rules")) {
    json rules = json::array();
    for (const json& r : entry["rules"]) rules.push_back(Rule(r));
    role["rules"] = std::move(rules);
  }
  return role;
}

json ClusterRoleBinding(const json& entry) {
  json subjects = json::array();
  for (const json& s : entry["subjects"]) {
    const std::string kind = s[0], name = s[1];
    if (kind == "ServiceAccount") {
      const size_t slash = name.find('/');
      subjects.push_back(
          {{"kind", kind}, {"namespace", name.substr(0, slash)}, {"name", name.substr(slash + 1)}});
    } else {
      subjects.push_back({{"apiGroup", kRbacGroup}, {"kind", kind}, {"name", name}});
    }
  }
  json binding = {
      {"apiVersion", std::string(kRbacGroup) + "/v1"},
      {"kind", "ClusterRoleBinding"},
      {"metadata", Metadata(entry)},
      {"roleRef", {{"apiGroup", kRbacGroup}, {"kind", "ClusterRole"}, {"name", entry["name"]}}}};
  if (!subjects.empty()) binding["subjects"] = std::move(subjects);
  return binding;
}

}  // namespace

Status EnsureBootstrapPolicy(apiserver::ObjectStore& store,
                             const apiserver::ObjectStore::WriteOptions& options) {
  static const json policy = json::parse(internal::EmbeddedBootstrapPolicyJson());
  const apiserver::Resource* roles = apiserver::FindResource(kRbacGroup, "v1", "clusterroles");
  const apiserver::Resource* bindings =
      apiserver::FindResource(kRbacGroup, "v1", "clusterrolebindings");
  if (roles == nullptr || bindings == nullptr)
    return InternalError("rbac resources not registered");
  for (const json& entry : policy["clusterRoles"]) {
    if (store.Get(*roles, "", entry["name"].get<std::string>()).ok()) continue;
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*roles, ClusterRole(entry), options).status());
  }
  for (const json& entry : policy["clusterRoleBindings"]) {
    if (store.Get(*bindings, "", entry["name"].get<std::string>()).ok()) continue;
    TIDEPOOL_RETURN_IF_ERROR(store.Create(*bindings, ClusterRoleBinding(entry), options).status());
  }
  return OkStatus();
}

}  // namespace tidepool::runtime
