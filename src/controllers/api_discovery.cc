#include "controllers/api_discovery.h"

#include <map>
#include <nlohmann/json.hpp>

namespace tidepool::controllers {

using nlohmann::json;

namespace {

const json& Array(const json& j, const char* key) {
  static const json kEmpty = json::array();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

std::string StringOf(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::string GroupOfVersion(const std::string& group_version) {
  const size_t slash = group_version.find('/');
  return slash == std::string::npos ? "" : group_version.substr(0, slash);
}

std::string ApiResource::CollectionPath(const std::string& ns) const {
  std::string path = group_version.find('/') == std::string::npos ? "/api/" : "/apis/";
  path += group_version;
  if (namespaced && !ns.empty()) path += "/namespaces/" + ns;
  return path + "/" + resource;
}

StatusOr<std::vector<ApiResource>> DiscoverApiResources(const client::RestClient& client,
                                                        bool preferred_only) {
  std::vector<std::string> group_versions;
  TIDEPOOL_ASSIGN_OR_RETURN(json core, client.Get("/api"));
  for (const json& v : Array(core, "versions")) {
    if (v.is_string()) group_versions.push_back(v.get<std::string>());
  }
  TIDEPOOL_ASSIGN_OR_RETURN(json groups, client.Get("/apis"));
  for (const json& g : Array(groups, "groups")) {
    for (const json& v : Array(g, "versions"))
      group_versions.push_back(StringOf(v, "groupVersion"));
  }
  std::vector<ApiResource> out;
  std::map<std::string, size_t> seen;  // group/resource
  for (const std::string& gv : group_versions) {
    if (gv.empty()) continue;
    TIDEPOOL_ASSIGN_OR_RETURN(
        json list, client.Get(gv.find('/') == std::string::npos ? "/api/" + gv : "/apis/" + gv));
    for (const json& r : Array(list, "resources")) {
      ApiResource a;
      a.resource = StringOf(r, "name");
      if (a.resource.empty() || a.resource.find('/') != std::string::npos) continue;
      a.group_version = gv;
      a.group = GroupOfVersion(gv);
      a.kind = StringOf(r, "kind");
      auto ns = r.find("namespaced");
      a.namespaced = ns == r.end() || !ns->is_boolean() || ns->get<bool>();
      for (const json& v : Array(r, "verbs")) {
        if (v.is_string()) a.verbs.insert(v.get<std::string>());
      }
      if (preferred_only && !seen.emplace(a.group + "/" + a.resource, out.size()).second) continue;
      out.push_back(std::move(a));
    }
  }
  return out;
}

}  // namespace tidepool::controllers
