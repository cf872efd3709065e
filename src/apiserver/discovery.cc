#include "apiserver/discovery.h"

#include <openssl/sha.h>

#include <algorithm>
#include <map>
#include <set>

#include "apiserver/crd/registry.h"
#include "apiserver/openapi_v2.h"
#include "apiserver/resources.h"
#include "apiserver/schema/openapi.h"
#include "common/base64.h"
#include "common/fnv.h"
#include "common/kube_version.h"

namespace tidepool::apiserver {

using nlohmann::json;

namespace {

using List = std::vector<const Resource*>;

// The built-in resources, then the custom ones.
List All(const List& custom) {
  List all;
  all.reserve(Resources().size() + custom.size());
  for (const Resource& r : Resources()) all.push_back(&r);
  all.insert(all.end(), custom.begin(), custom.end());
  return all;
}

// Named groups in the order discovery lists them (kube-apiserver's priority order; the
// custom resources' groups after the built-in ones, as their default priority puts them).
std::vector<std::string> Groups(const List& all) {
  std::vector<std::string> groups;
  std::set<std::string> seen;
  for (const Resource* r : all) {
    if (!r->group.empty() && seen.insert(r->group).second) groups.push_back(r->group);
  }
  return groups;
}

// The versions a group serves, preferred first (the order of the list).
std::vector<std::string> Versions(const List& all, const std::string& group) {
  std::vector<std::string> versions;
  for (const Resource* r : all) {
    if (r->group == group &&
        std::find(versions.begin(), versions.end(), r->version) == versions.end()) {
      versions.push_back(r->version);
    }
  }
  return versions;
}

// A stable content hash for OpenAPI URLs (FNV-1a, hex).
std::string Hash(std::string_view s) {
  const uint64_t h = Fnv1a64(s);
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf) + std::string(buf);
}

// discovery.StorageVersionHash: the first 8 bytes of the SHA-256 of the storage version's
// "group/version/kind", base64. Core and events.k8s.io Events share core's storage (cohabiting
// resources), so both say "/v1/Event".
std::string StorageVersionHash(const Resource& r) {
  const Resource& stored = StorageOf(r);
  const std::string gvk = r.group == "events.k8s.io" && r.resource == "events"
                              ? std::string("/v1/Event")
                              : stored.group + "/" + stored.version + "/" + stored.kind;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(gvk.data()), gvk.size(), digest);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), 8));
}

// A custom resource's component schema, and the ObjectMeta its metadata refers to (with what
// ObjectMeta refers to: the generated definitions of schema/openapi.h), as
// apiextensions-apiserver publishes them for `kubectl explain`.
void AddCustomSchemas(const Resource& r, json& schemas) {
  schemas[crd::OpenApiComponentName(r)] = r.custom->openapi;
  schemas.update(schema::OpenApiDefinitions({"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}));
}

json AggregatedResource(const Resource& r) {
  json j = {{"resource", r.resource},
            {"responseKind", {{"group", r.group}, {"version", r.version}, {"kind", r.kind}}},
            {"scope", r.namespaced ? "Namespaced" : "Cluster"},
            {"singularResource", r.singular},
            {"verbs", r.verbs}};
  if (!r.short_names.empty()) j["shortNames"] = r.short_names;
  if (!r.categories.empty()) j["categories"] = r.categories;
  if (!r.subresources.empty()) {
    json subs = json::array();
    for (const Subresource& s : r.subresources) {
      subs.push_back({{"subresource", s.name},
                      {"responseKind", {{"group", s.group}, {"version", s.version}, {"kind", s.kind}}},
                      {"verbs", s.verbs}});
    }
    j["subresources"] = subs;
  }
  return j;
}

json GroupDiscovery(const List& all, const std::string& group) {
  json versions = json::array();
  for (const std::string& version : Versions(all, group)) {
    json resources = json::array();
    for (const Resource* r : all) {
      if (r->group == group && r->version == version) resources.push_back(AggregatedResource(*r));
    }
    versions.push_back({{"version", version}, {"resources", resources}, {"freshness", "Current"}});
  }
  return {{"metadata", {{"name", group}, {"creationTimestamp", nullptr}}}, {"versions", versions}};
}

json GroupEntry(const List& all, const std::string& group) {
  json versions = json::array();
  for (const std::string& version : Versions(all, group)) {
    versions.push_back({{"groupVersion", group + "/" + version}, {"version", version}});
  }
  return {{"name", group}, {"versions", versions}, {"preferredVersion", versions[0]}};
}

}  // namespace

json VersionInfo() {
  return {{"major", kKubeMajor},           {"minor", kKubeMinor},
          {"gitVersion", kKubeGitVersion}, {"gitCommit", "59526cd4867447956156ae3a602fcbac5b1c3e2"},
          {"gitTreeState", "clean"},       {"buildDate", "2025-04-22T16:02:27Z"},
          {"goVersion", "go1.23.6"},       {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

json AggregatedDiscovery(bool core, const List& custom) {
  const List all = All(custom);
  json items = json::array();
  if (core) {
    items.push_back(GroupDiscovery(all, ""));
  } else {
    for (const std::string& g : Groups(all)) items.push_back(GroupDiscovery(all, g));
  }
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", "apidiscovery.k8s.io/v2"},
          {"metadata", json::object()},
          {"items", items}};
}

json LegacyApiVersions(std::string_view server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs",
           json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}})}};
}

json LegacyApiGroupList(const List& custom) {
  const List all = All(custom);
  json groups = json::array();
  for (const std::string& g : Groups(all)) groups.push_back(GroupEntry(all, g));
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<json> LegacyApiGroup(std::string_view group, const List& custom) {
  const List all = All(custom);
  for (const std::string& g : Groups(all)) {
    if (g == group) {
      json j = GroupEntry(all, g);
      j["kind"] = "APIGroup";
      j["apiVersion"] = "v1";
      return j;
    }
  }
  return std::nullopt;
}

std::optional<nlohmann::ordered_json> ApiResourceList(std::string_view group_version,
                                                      const List& custom) {
  using ordered = nlohmann::ordered_json;
  // Members in metav1.APIResource's field order, as kube-apiserver's encoder writes them
  // (clients and kubectl's test suite read the raw text).
  ordered resources = ordered::array();
  bool found = false;
  for (const Resource* rp : All(custom)) {
    const Resource& r = *rp;
    if (r.GroupVersion() != group_version) continue;
    found = true;
    ordered j = {{"name", r.resource},
                 {"singularName", r.singular},
                 {"namespaced", r.namespaced},
                 {"kind", r.kind},
                 {"verbs", r.verbs}};
    if (!r.short_names.empty()) j["shortNames"] = r.short_names;
    if (!r.categories.empty()) j["categories"] = r.categories;
    if (r.stored) j["storageVersionHash"] = StorageVersionHash(r);
    resources.push_back(std::move(j));
    for (const Subresource& s : r.subresources) {
      ordered sj = {
          {"name", r.resource + "/" + s.name}, {"singularName", ""}, {"namespaced", r.namespaced}};
      if (s.group != r.group || s.version != r.version) {
        sj["group"] = s.group;
        sj["version"] = s.version;
      }
      sj["kind"] = s.kind;
      sj["verbs"] = s.verbs;
      resources.push_back(std::move(sj));
    }
  }
  if (!found) return std::nullopt;
  return ordered{{"kind", "APIResourceList"},
                 {"apiVersion", "v1"},
                 {"groupVersion", std::string(group_version)},
                 {"resources", std::move(resources)}};
}

namespace {

// A query parameter of kube's PATCH operations in OpenAPI v3's form.
json V3QueryParameter(std::string_view name) {
  const json p = KubeQueryParameter(name);
  return {{"description", p["description"]},
          {"in", "query"},
          {"name", p["name"]},
          {"schema", {{"type", p["type"]}, {"uniqueItems", true}}}};
}

// The OpenAPI v3 document of one group-version of `all`: a PATCH operation per resource (with
// its group-version-kind and the fieldValidation parameter, no request body) and the component
// schemas of its kinds: the built-in ones (schema/openapi.h), a custom resource's from its
// definition. Null when the group-version serves nothing.
json BuildDocument(const std::string& gv, const List& all) {
  json paths = json::object();
  json schemas = json::object();
  std::vector<std::string> builtin_kinds;
  bool found = false;
  for (const Resource* rp : all) {
    const Resource& r = *rp;
    if (r.GroupVersion() != gv) continue;
    found = true;
    if (r.custom != nullptr) {
      AddCustomSchemas(r, schemas);
    } else {
      builtin_kinds.push_back(gv + "/" + r.kind);
    }
    const std::string prefix = gv == "v1" ? "/api/v1" : "/apis/" + gv;
    const std::string item = prefix + (r.namespaced ? "/namespaces/{namespace}/" : "/") +
                             r.resource + "/{name}";
    json op = {{"operationId", "patch" + r.kind},
               {"x-kubernetes-action", "patch"},
               {"x-kubernetes-group-version-kind",
                {{"group", r.group}, {"version", r.version}, {"kind", r.kind}}},
               {"parameters", json::array({V3QueryParameter("dryRun"), V3QueryParameter("force"),
                                           V3QueryParameter("patchFieldManager"),
                                           V3QueryParameter("fieldValidation")})},
               {"responses", {{"200", {{"description", "OK"}}}}}};
    paths[item] = {{"patch", op}};
  }
  if (!found) return nullptr;
  if (!builtin_kinds.empty()) schemas.update(schema::OpenApiComponents(builtin_kinds));
  return json{{"openapi", "3.0.0"},
              {"info", {{"title", "Kubernetes"}, {"version", kKubeGitVersion}}},
              {"paths", paths},
              {"components", {{"schemas", schemas}}}};
}

// The built-in group-versions' documents and their hashes, made once (the root names every
// document by its hash on every request, and kubectl asks for the root on most commands).
struct Document {
  json doc;
  std::string hash;
};
const std::map<std::string, Document>& BuiltinDocuments() {
  static const std::map<std::string, Document> kDocs = [] {
    std::map<std::string, Document> docs;
    const List all = All({});
    for (const Resource* r : all) {
      const std::string gv = r->GroupVersion();
      if (docs.count(gv) != 0) continue;
      json doc = BuildDocument(gv, all);
      const std::string hash = Hash(doc.dump());
      docs[gv] = {std::move(doc), hash};
    }
    return docs;
  }();
  return kDocs;
}

bool HasCustom(const List& custom, const std::string& gv) {
  for (const Resource* r : custom) {
    if (r->GroupVersion() == gv) return true;
  }
  return false;
}

}  // namespace

json OpenApiV3Root(const List& custom) {
  json paths = json::object();
  std::set<std::string> gvs;
  for (const Resource* r : All(custom)) gvs.insert(r->GroupVersion());
  for (const std::string& gv : gvs) {
    const std::string path = gv == "v1" ? "api/v1" : "apis/" + gv;
    const auto& builtin = BuiltinDocuments();
    auto it = builtin.find(gv);
    const std::string hash = it != builtin.end() && !HasCustom(custom, gv)
                                 ? it->second.hash
                                 : Hash(OpenApiV3Document(path, custom)->dump());
    paths[path] = {{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash}};
  }
  return {{"paths", paths}};
}

std::optional<json> OpenApiV3Document(std::string_view path, const List& custom) {
  std::string gv;
  if (path == "api/v1") {
    gv = "v1";
  } else if (path.substr(0, 5) == "apis/") {
    gv = std::string(path.substr(5));
  } else {
    return std::nullopt;
  }
  if (!HasCustom(custom, gv)) {
    const auto& builtin = BuiltinDocuments();
    auto it = builtin.find(gv);
    if (it == builtin.end()) return std::nullopt;
    return it->second.doc;
  }
  json doc = BuildDocument(gv, All(custom));
  if (doc.is_null()) return std::nullopt;
  return doc;
}

}  // namespace tidepool::apiserver
