#include "apiserver/openapi_v2.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "apiserver/crd/registry.h"
#include "apiserver/deletion.h"
#include "apiserver/negotiation.h"
#include "apiserver/patch/patch_schema.h"
#include "apiserver/protobuf/openapi_v2.h"
#include "apiserver/schema/openapi.h"
#include "common/fnv.h"
#include "common/kube_version.h"

namespace tidepool::apiserver {
namespace {

using json = nlohmann::json;

constexpr std::string_view kV3Ref = "#/components/schemas/";
constexpr char kV2Ref[] = "#/definitions/";
constexpr char kMeta[] = "io.k8s.apimachinery.pkg.apis.meta.v1.";
// kube-openapi's protobuf media types: the one it answers with, and the older spelling
// client-go asks for.
constexpr char kOpenApiV2Protobuf[] = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
constexpr char kOpenApiV2ProtobufDeprecated[] =
    "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

// ---- definitions -------------------------------------------------------------------------------

// A component schema of /openapi/v3 in Swagger 2.0's form, as kube-openapi writes the same
// definition in /openapi/v2: a reference is "#/definitions/<name>" with the field's
// description beside it (v3 wraps it in a one-element allOf), and OpenAPI 3's nullable is
// dropped. A built-in kind's quantity or int-or-string (a oneOf without a type) is a string. A
// custom resource's schema (`custom`) goes as apiextensions-apiserver's ToStructuralOpenAPIV2
// takes it: Swagger 2.0 has no allOf/anyOf/oneOf/not, so those value validations go; a
// nullable field loses its type, items and properties and leaves its parent's required list
// (all of it when additionalProperties is nullable); x-kubernetes-preserve-unknown-fields
// drops items and properties (kubectl would refuse the unknown fields), and an array left
// without items loses its type.
// Walks schema keywords only, so a property named "allOf" or "$ref" (a CRD's
// JSONSchemaProps) is left alone.
// A schema keyword's value when it has the expected type (a CRD's schema may carry null there:
// nothing here may throw).
bool FlagOf(const json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_boolean() && it->get<bool>();
}
std::string TypeOf(const json& s) {
  auto it = s.find("type");
  return it != s.end() && it->is_string() ? it->get<std::string>() : "";
}

void ToSwagger2(json& s, bool custom) {
  if (!s.is_object()) return;
  auto all = s.find("allOf");
  if (all != s.end() && all->is_array() && all->size() == 1 && (*all)[0].is_object() &&
      (*all)[0].contains("$ref")) {
    json ref = std::move((*all)[0]["$ref"]);
    s.erase(all);
    s["$ref"] = std::move(ref);
  }
  if (custom) {
    for (const char* key : {"allOf", "anyOf", "oneOf", "not"}) s.erase(key);
    if (FlagOf(s, "nullable")) {
      for (const char* key : {"type", "items", "properties"}) s.erase(key);
    }
    if (FlagOf(s, "x-kubernetes-preserve-unknown-fields")) {
      for (const char* key : {"items", "properties"}) s.erase(key);
    }
    if (!s.contains("items") && TypeOf(s) == "array") s.erase("type");
    auto extra = s.find("additionalProperties");
    if (extra != s.end() && extra->is_object() && FlagOf(*extra, "nullable")) {
      s.erase("required");
    }
  } else if (s.contains("oneOf") && !s.contains("type")) {  // Quantity, IntOrString
    s.erase("oneOf");
    s["type"] = "string";
  }
  auto ref = s.find("$ref");
  if (ref != s.end() && ref->is_string()) {
    const std::string& r = ref->get_ref<const std::string&>();
    if (r.rfind(kV3Ref, 0) == 0) *ref = kV2Ref + r.substr(kV3Ref.size());
  }
  auto props = s.find("properties");
  if (props != s.end() && props->is_object()) {
    auto required = s.find("required");
    for (auto& [name, p] : props->items()) {
      if (custom && required != s.end() && required->is_array() && p.is_object() &&
          FlagOf(p, "nullable")) {
        required->erase(std::remove(required->begin(), required->end(), json(name)),
                        required->end());
      }
      ToSwagger2(p, custom);
    }
    if (required != s.end() && required->is_array() && required->empty()) s.erase(required);
  }
  s.erase("nullable");
  for (const char* key : {"additionalProperties", "items", "not"}) {
    auto it = s.find(key);
    if (it != s.end()) ToSwagger2(*it, custom);
  }
  for (const char* key : {"allOf", "anyOf", "oneOf"}) {
    auto it = s.find(key);
    if (it == s.end() || !it->is_array()) continue;
    for (json& e : *it) ToSwagger2(e, custom);
  }
}

// The definition a property's value (or each of its items) refers to; "" for none.
std::string DefinitionOf(const json& property) {
  const json* p = &property;
  if (auto items = property.find("items"); items != property.end()) p = &*items;
  auto ref = p->find("$ref");
  if (ref == p->end() || !ref->is_string()) return "";
  const std::string& r = ref->get_ref<const std::string&>();
  return r.rfind(kV2Ref, 0) == 0 ? r.substr(sizeof(kV2Ref) - 1) : "";
}

// kube-openapi writes a field's Go tags and markers as extensions: patchStrategy and
// patchMergeKey as x-kubernetes-patch-strategy / -patch-merge-key (what kubectl's client-side
// apply computes its strategic merge patches with), +listType / +listMapKey / +mapType as
// x-kubernetes-list-type / -list-map-keys / -map-type. They come from the one table the
// server's strategic merge patch and server-side apply read (patch/patch_schema.h), so kubectl
// merges by the keys the server merges by: the fields of definition `name` as struct `type`,
// then the definitions its typed fields refer to. `seen` holds the (definition, type) pairs
// done.
void AddPatchMetadata(json& definitions, const std::string& name, std::string_view type,
                      std::set<std::pair<std::string, std::string>>& seen) {
  if (!seen.emplace(name, std::string(type)).second) return;
  auto def = definitions.find(name);
  if (def == definitions.end()) return;
  auto props = def->find("properties");
  if (props == def->end() || !props->is_object()) return;
  for (auto& [field_name, p] : props->items()) {
    const patch::schema::Field& f = patch::schema::LookupField(type, field_name);
    if (!f.patch_strategy.empty()) p["x-kubernetes-patch-strategy"] = f.patch_strategy;
    if (!f.patch_merge_key.empty()) p["x-kubernetes-patch-merge-key"] = f.patch_merge_key;
    const bool list = TypeOf(p) == "array";
    switch (f.shape) {
      case patch::schema::Shape::kDefault:
        break;
      case patch::schema::Shape::kAtomic:
        p[list ? "x-kubernetes-list-type" : "x-kubernetes-map-type"] = "atomic";
        break;
      case patch::schema::Shape::kSet:
        p["x-kubernetes-list-type"] = "set";
        break;
      case patch::schema::Shape::kMap: {
        p["x-kubernetes-list-type"] = "map";
        json keys = json::array();
        for (const patch::schema::ListKey& k : f.keys) keys.push_back(k.name);
        p["x-kubernetes-list-map-keys"] = std::move(keys);
        break;
      }
    }
    if (f.type.empty()) continue;
    const std::string target = DefinitionOf(p);
    if (!target.empty()) AddPatchMetadata(definitions, target, f.type, seen);
  }
}

json Ref(const std::string& definition) { return {{"$ref", kV2Ref + definition}}; }

// apiextensions-apiserver's buildListSchema for a custom resource's list kind.
json CustomListSchema(const Resource& r, const std::string& item_definition) {
  return {{"description", r.list_kind + " is a list of " + r.kind},
          {"properties",
           {{"apiVersion",
             {{"description",
               "APIVersion defines the versioned schema of this representation of an object. "
               "Servers should convert recognized schemas to the latest internal value, and may "
               "reject unrecognized values. More info: https://git.k8s.io/community/contributors/"
               "devel/sig-architecture/api-conventions.md#resources"},
              {"type", "string"}}},
            {"kind",
             {{"description",
               "Kind is a string value representing the REST resource this object represents. "
               "Servers may infer this from the endpoint the client submits requests to. Cannot "
               "be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/"
               "devel/sig-architecture/api-conventions.md#types-kinds"},
              {"type", "string"}}},
            {"items",
             {{"description", "List of " + r.resource +
                                  ". More info: https://git.k8s.io/community/contributors/devel/"
                                  "sig-architecture/api-conventions.md"},
              {"items", Ref(item_definition)},
              {"type", "array"}}},
            {"metadata",
             {{"$ref", std::string(kV2Ref) + kMeta + "ListMeta"},
              {"description",
               "Standard list metadata. More info: https://git.k8s.io/community/contributors/"
               "devel/sig-architecture/api-conventions.md#types-kinds"}}}}},
          {"required", {"items"}},
          {"type", "object"},
          {"x-kubernetes-group-version-kind",
           json::array({{{"group", r.group}, {"kind", r.list_kind}, {"version", r.version}}})}};
}

// ---- operations --------------------------------------------------------------------------------

// apiserver's ToValidOperationID: letters and '_' kept, anything else dropped and the next
// letter capitalized.
std::string ValidOperationId(std::string_view s, bool capitalize_first) {
  std::string out;
  bool capitalize = capitalize_first;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isalpha(c) || c == '_' || (i != 0 && std::isdigit(c))) {
      out.push_back(capitalize ? static_cast<char>(std::toupper(c)) : static_cast<char>(c));
      capitalize = false;
    } else {
      capitalize = true;
    }
  }
  return out;
}

// kubectl's GetArticleForNoun, padded with spaces: " a ", " an ", or " " for a plural.
std::string Article(const std::string& noun) {
  const size_t n = noun.size();
  if (n > 0 && noun[n - 1] == 's' && !(n > 1 && noun[n - 2] == 's')) return " ";
  const char c =
      static_cast<char>(std::tolower(static_cast<unsigned char>(noun.empty() ? 'x' : noun[0])));
  return std::string(" ") +
         (std::string_view("aeiou").find(c) != std::string_view::npos ? "an" : "a") + " ";
}

json QueryParam(const char* name, const char* type, const char* description) {
  return {{"uniqueItems", true},
          {"type", type},
          {"description", description},
          {"name", name},
          {"in", "query"}};
}

}  // namespace

json KubeQueryParameter(std::string_view name) {
  if (name == "labelSelector") {
    return QueryParam("labelSelector", "string",
                      "A selector to restrict the list of returned objects by their labels. "
                      "Defaults to everything.");
  }
  if (name == "fieldSelector") {
    return QueryParam("fieldSelector", "string",
                      "A selector to restrict the list of returned objects by their fields. "
                      "Defaults to everything.");
  }
  if (name == "watch") {
    return QueryParam("watch", "boolean",
                      "Watch for changes to the described resources and return them as a stream "
                      "of add, update, and remove notifications. Specify resourceVersion.");
  }
  if (name == "allowWatchBookmarks") {
    return QueryParam(
        "allowWatchBookmarks", "boolean",
        "allowWatchBookmarks requests watch events with type \"BOOKMARK\". Servers that do not "
        "implement bookmarks may ignore this flag and bookmarks are sent at the server's "
        "discretion. Clients should not assume bookmarks are returned at any specific interval, "
        "nor may they assume the server will send any BOOKMARK event during a session. If this "
        "is not a watch, this field is ignored.");
  }
  if (name == "resourceVersion") {
    return QueryParam("resourceVersion", "string",
                      "resourceVersion sets a constraint on what resource versions a request may "
                      "be served from. See https://kubernetes.io/docs/reference/using-api/"
                      "api-concepts/#resource-versions for details.\n\nDefaults to unset");
  }
  if (name == "resourceVersionMatch") {
    return QueryParam(
        "resourceVersionMatch", "string",
        "resourceVersionMatch determines how resourceVersion is applied to list calls. It is "
        "highly recommended that resourceVersionMatch be set for list calls where "
        "resourceVersion is set See https://kubernetes.io/docs/reference/using-api/"
        "api-concepts/#resource-versions for details.\n\nDefaults to unset");
  }
  if (name == "timeoutSeconds") {
    return QueryParam("timeoutSeconds", "integer",
                      "Timeout for the list/watch call. This limits the duration of the call, "
                      "regardless of any activity or inactivity.");
  }
  if (name == "limit") {
    return QueryParam(
        "limit", "integer",
        "limit is a maximum number of responses to return for a list call. If more items exist, "
        "the server will set the `continue` field on the list metadata to a value that can be "
        "used with the same initial query to retrieve the next set of results. Setting a limit "
        "may return fewer than the requested amount of items (up to zero items) in the event all "
        "requested objects are filtered out and clients should only use the presence of the "
        "continue field to determine whether more results are available. Servers may choose not "
        "to support the limit argument and will return all of the available results. If limit "
        "is specified and the continue field is empty, clients may assume that no more results "
        "are available. This field is not supported if watch is true.\n\nThe server guarantees "
        "that the objects returned when using continue will be identical to issuing a single "
        "list call without a limit - that is, no objects created, modified, or deleted after the "
        "first request is issued will be included in any subsequent continued requests. This is "
        "sometimes referred to as a consistent snapshot, and ensures that a client that is using "
        "limit to receive smaller chunks of a very large result can ensure they see all possible "
        "objects. If objects are updated during a chunked list the version of the object that "
        "was present at the time the first list result was calculated is returned.");
  }
  if (name == "continue") {
    return QueryParam(
        "continue", "string",
        "The continue option should be set when retrieving more results from the server. Since "
        "this value is server defined, clients may only use the continue value from a previous "
        "query result with identical query parameters (except for the value of continue) and "
        "the server may reject a continue value it does not recognize. If the specified continue "
        "value is no longer valid whether due to expiration (generally five to fifteen minutes) "
        "or a configuration change on the server, the server will respond with a 410 "
        "ResourceExpired error together with a continue token. If the client needs a consistent "
        "list, it must restart their list without the continue field. Otherwise, the client may "
        "send another list request with the token received with the 410 error, the server will "
        "respond with a list starting from the next key, but from the latest snapshot, which is "
        "inconsistent from the previous list results - objects that are created, modified, or "
        "deleted after the first list request will be included in the response, as long as their "
        "keys are after the \"next key\".\n\nThis field is not supported when watch is true. "
        "Clients may start a watch from the last resourceVersion value returned by the server "
        "and not miss any modifications.");
  }
  if (name == "pretty") {
    return QueryParam("pretty", "string", "If 'true', then the output is pretty printed.");
  }
  if (name == "dryRun") {
    return QueryParam("dryRun", "string",
                      "When present, indicates that modifications should not be persisted. An "
                      "invalid or unrecognized dryRun directive will result in an error response "
                      "and no further processing of the request. Valid values are: - All: all "
                      "dry run stages will be processed");
  }
  if (name == "fieldManager") {
    return QueryParam("fieldManager", "string",
                      "fieldManager is a name associated with the actor or entity that is making "
                      "these changes. The value must be less than or 128 characters long, and "
                      "only contain printable characters, as defined by "
                      "https://golang.org/pkg/unicode/#IsPrint.");
  }
  if (name == "patchFieldManager") {
    return QueryParam(
        "fieldManager", "string",
        "fieldManager is a name associated with the actor or entity that is making these "
        "changes. The value must be less than or 128 characters long, and only contain printable "
        "characters, as defined by https://golang.org/pkg/unicode/#IsPrint. This field is "
        "required for apply requests (application/apply-patch) but optional for non-apply patch "
        "types (JsonPatch, MergePatch, StrategicMergePatch).");
  }
  if (name == "fieldValidation") {
    return QueryParam(
        "fieldValidation", "string",
        "fieldValidation determines how the server should respond to unknown/duplicate fields "
        "in the object in the request. Introduced as alpha in 1.23, older servers or servers "
        "with the `ServerSideFieldValidation` feature disabled will discard valid values "
        "specified in  this param and not perform any server side field validation. Valid "
        "values are: - Ignore: ignores unknown/duplicate fields. - Warn: responds with a warning "
        "for each unknown/duplicate field, but successfully serves the request. - Strict: fails "
        "the request on unknown/duplicate fields.");
  }
  if (name == "force") {
    return QueryParam("force", "boolean",
                      "Force is going to \"force\" Apply requests. It means user will re-acquire "
                      "conflicting fields owned by other people. Force flag must be unset for "
                      "non-apply patch requests.");
  }
  if (name == "gracePeriodSeconds") {
    return QueryParam(
        "gracePeriodSeconds", "integer",
        "The duration in seconds before the object should be deleted. Value must be "
        "non-negative integer. The value zero indicates delete immediately. If this value is "
        "nil, the default grace period for the specified type will be used. Defaults to a per "
        "object value if not specified. zero means delete immediately.");
  }
  if (name == "orphanDependents") {
    return QueryParam(
        "orphanDependents", "boolean",
        "Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. "
        "Should the dependent objects be orphaned. If true/false, the \"orphan\" finalizer will "
        "be added to/removed from the object's finalizers list. Either this field or "
        "PropagationPolicy may be set, but not both.");
  }
  if (name == "propagationPolicy") {
    return QueryParam(
        "propagationPolicy", "string",
        "Whether and how garbage collection will be performed. Either this field or "
        "OrphanDependents may be set, but not both. The default policy is decided by the "
        "existing finalizer set in the metadata.finalizers and the resource-specific default "
        "policy. Acceptable values are: 'Orphan' - orphan the dependents; 'Background' - allow "
        "the garbage collector to delete the dependents in the background; 'Foreground' - a "
        "cascading policy that deletes all dependents in the foreground.");
  }
  return nullptr;
}

namespace {

json Param(std::string_view name) { return KubeQueryParameter(name); }

json Params(std::initializer_list<std::string_view> names) {
  json out = json::array();
  for (std::string_view n : names) out.push_back(Param(n));
  return out;
}

json PathParam(const char* name, std::string description) {
  return {{"uniqueItems", true}, {"type", "string"}, {"description", std::move(description)},
          {"name", name},        {"in", "path"},     {"required", true}};
}

json Body(const std::string& definition, bool required = true) {
  json b = {{"name", "body"}, {"in", "body"}, {"schema", Ref(definition)}};
  if (required) b["required"] = true;
  return b;
}

json Responses(std::initializer_list<std::pair<const char*, const char*>> codes,
               const std::string& definition) {
  json out = json::object();
  for (const auto& [code, text] : codes) {
    out[code] = {{"description", text}, {"schema", Ref(definition)}};
  }
  out["401"] = {{"description", "Unauthorized"}};
  return out;
}

bool Serves(const std::vector<std::string>& verbs, std::string_view verb) {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

// What one resource contributes to "paths".
class ResourcePaths {
 public:
  ResourcePaths(const Resource& r, std::string definition, std::string list_definition)
      : r_(r), def_(std::move(definition)), list_def_(std::move(list_definition)) {
    std::string_view group = r.group.empty() ? std::string_view("core") : r.group;
    if (group.size() > 7 && group.substr(group.size() - 7) == ".k8s.io") group.remove_suffix(7);
    gv_ = ValidOperationId(group, true) + ValidOperationId(r.version, true);
    tag_ = ValidOperationId(group, false) + "_" + ValidOperationId(r.version, false);
    prefix_ = r.group.empty() ? "/api/v1" : "/apis/" + r.group + "/" + r.version;
    scope_ = r.namespaced ? "Namespaced" : "";
    gvk_ = {{"group", r.group}, {"kind", r.kind}, {"version", r.version}};
  }

  void AddTo(json& paths) const {
    const std::string collection =
        prefix_ + (r_.namespaced ? "/namespaces/{namespace}/" : "/") + r_.resource;
    json coll = CollectionOperations();
    if (!coll.empty()) {
      coll["parameters"] = ScopeParams();
      paths[collection] = std::move(coll);
    }
    if (r_.namespaced && Serves(r_.verbs, "list") && !list_def_.empty()) {
      json all = {{"get", Operation("list", r_.kind + "ForAllNamespaces",
                                    "list or watch objects of kind " + r_.kind, "list", {},
                                    Responses({{"200", "OK"}}, list_def_), true)}};
      all["parameters"] =
          Params({"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit",
                  "pretty", "resourceVersion", "resourceVersionMatch", "timeoutSeconds", "watch"});
      paths[prefix_ + "/" + r_.resource] = std::move(all);
    }
    json item = ItemOperations("", r_.verbs, def_);
    if (!item.empty()) {
      item["parameters"] = ItemParams();
      paths[collection + "/{name}"] = std::move(item);
    }
    for (const Subresource& s : r_.subresources) {
      if (s.name != "status" && s.name != "scale") continue;
      const std::string sub_def = s.name == "scale" ? "io.k8s.api.autoscaling.v1.Scale" : def_;
      json ops = ItemOperations(s.name, s.verbs, sub_def);
      if (ops.empty()) continue;
      for (auto& [verb, op] : ops.items()) {  // a scale's operations take and give a Scale
        op["x-kubernetes-group-version-kind"] = {
            {"group", s.group}, {"kind", s.kind}, {"version", s.version}};
      }
      ops["parameters"] = ItemParams();
      paths[collection + "/{name}/" + s.name] = std::move(ops);
    }
  }

 private:
  json CollectionOperations() const {
    json ops = json::object();
    if (Serves(r_.verbs, "list") && !list_def_.empty()) {
      ops["get"] =
          Operation("list", scope_ + r_.kind, "list or watch objects of kind " + r_.kind, "list",
                    Params({"labelSelector", "fieldSelector", "watch", "allowWatchBookmarks",
                            "resourceVersion", "resourceVersionMatch", "timeoutSeconds", "limit",
                            "continue"}),
                    Responses({{"200", "OK"}}, list_def_), true);
    }
    if (Serves(r_.verbs, "create")) {
      json params = Params({"dryRun", "fieldManager", "fieldValidation"});
      params.insert(params.begin(), Body(def_));
      ops["post"] = Operation(
          "create", scope_ + r_.kind, "create" + Article(r_.kind) + r_.kind, "post",
          std::move(params),
          Responses({{"200", "OK"}, {"201", "Created"}, {"202", "Accepted"}}, def_), false);
    }
    if (Serves(r_.verbs, "deletecollection")) {
      json params = Params({"continue", "dryRun", "fieldSelector", "gracePeriodSeconds",
                            "labelSelector", "limit", "orphanDependents", "propagationPolicy",
                            "resourceVersion", "resourceVersionMatch", "timeoutSeconds"});
      params.insert(params.begin(), Body(std::string(kMeta) + "DeleteOptions", false));
      ops["delete"] =
          Operation("delete", "Collection" + scope_ + r_.kind, "delete collection of " + r_.kind,
                    "deletecollection", std::move(params),
                    Responses({{"200", "OK"}}, std::string(kMeta) + "Status"), false);
    }
    return ops;
  }

  // The object's operations, or a subresource's (`sub`: "status", "scale").
  json ItemOperations(const std::string& sub, const std::vector<std::string>& verbs,
                      const std::string& def) const {
    std::string title = sub;
    if (!title.empty())
      title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
    const std::string what =
        sub.empty() ? "the specified " + r_.kind : sub + " of the specified " + r_.kind;
    const std::string name = scope_ + r_.kind + title;
    json ops = json::object();
    if (Serves(verbs, "get")) {
      ops["get"] = Operation("read", name, "read " + what, "get", json::array(),
                             Responses({{"200", "OK"}}, def), false);
    }
    if (Serves(verbs, "update")) {
      json params = Params({"dryRun", "fieldManager", "fieldValidation"});
      params.insert(params.begin(), Body(def));
      ops["put"] = Operation("replace", name, "replace " + what, "put", std::move(params),
                             Responses({{"200", "OK"}, {"201", "Created"}}, def), false);
    }
    if (Serves(verbs, "patch")) {
      json params = Params({"dryRun", "force", "patchFieldManager", "fieldValidation"});
      params.insert(params.begin(), Body(std::string(kMeta) + "Patch"));
      json op = Operation("patch", name, "partially update " + what, "patch", std::move(params),
                          Responses({{"200", "OK"}, {"201", "Created"}}, def), false);
      op["consumes"] =
          r_.custom == nullptr
              ? json::array({"application/json-patch+json", "application/merge-patch+json",
                             "application/strategic-merge-patch+json",
                             "application/apply-patch+yaml"})
              : json::array({"application/json-patch+json", "application/merge-patch+json",
                             "application/apply-patch+yaml"});
      ops["patch"] = std::move(op);
    }
    if (sub.empty() && Serves(verbs, "delete")) {
      json params =
          Params({"dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy"});
      params.insert(params.begin(), Body(std::string(kMeta) + "DeleteOptions", false));
      const std::string answer = ReturnsDeletedObject(r_) ? def : std::string(kMeta) + "Status";
      ops["delete"] = Operation("delete", name, "delete" + Article(r_.kind) + r_.kind, "delete",
                                std::move(params),
                                Responses({{"200", "OK"}, {"202", "Accepted"}}, answer), false);
    }
    return ops;
  }

  // One operation as kube's endpoint installer describes it; its id is apiserver's
  // GetOperationIDAndTags of `verb` + `name` on this resource's group-version.
  json Operation(const std::string& verb, const std::string& name, std::string description,
                 const char* action, json params, json responses, bool streams) const {
    json produces = r_.custom == nullptr ? json::array({"application/json", "application/yaml",
                                                        "application/vnd.kubernetes.protobuf"})
                                         : json::array({"application/json", "application/yaml"});
    if (streams) {
      produces.push_back("application/json;stream=watch");
      if (r_.custom == nullptr)
        produces.push_back("application/vnd.kubernetes.protobuf;stream=watch");
    }
    json op = {{"description", std::move(description)},
               {"consumes", json::array({"*/*"})},
               {"produces", std::move(produces)},
               {"schemes", json::array({"https"})},
               {"tags", json::array({tag_})},
               {"operationId", verb + gv_ + ValidOperationId(name, true)},
               {"responses", std::move(responses)},
               {"x-kubernetes-action", action},
               {"x-kubernetes-group-version-kind", gvk_}};
    if (!params.empty()) op["parameters"] = std::move(params);
    return op;
  }

  json ScopeParams() const {
    json p = json::array();
    if (r_.namespaced) {
      p.push_back(
          PathParam("namespace", "object name and auth scope, such as for teams and projects"));
    }
    p.push_back(Param("pretty"));
    return p;
  }

  json ItemParams() const {
    json p = json::array({PathParam("name", "name of the " + r_.kind)});
    for (json& e : ScopeParams()) p.push_back(std::move(e));
    return p;
  }

  const Resource& r_;
  const std::string def_;
  const std::string list_def_;
  std::string gv_, tag_, prefix_, scope_;
  json gvk_;
};

// The document for `all` (built-in resources first, then custom ones).
json Build(const CustomResourceList& all) {
  json paths = json::object();
  json definitions = json::object();
  json custom_definitions = json::object();  // already in Swagger 2.0's form
  std::vector<std::string> kinds = {"v1/Status", "autoscaling/v1/Scale"};
  std::vector<std::string> names = {std::string(kMeta) + "Patch",
                                    std::string(kMeta) + "DeleteOptions"};
  std::vector<std::pair<std::string, std::string_view>> roots;  // definition, patch type
  for (const Resource* rp : all) {
    const Resource& r = *rp;
    std::string def, list_def;
    if (r.custom != nullptr) {
      def = crd::OpenApiComponentName(r);
      list_def = def + "List";
      json custom = r.custom->openapi;
      ToSwagger2(custom, true);
      custom_definitions[def] = std::move(custom);
      custom_definitions[list_def] = CustomListSchema(r, def);
      names.push_back(std::string(kMeta) + "ObjectMeta");
      names.push_back(std::string(kMeta) + "ListMeta");
    } else {
      const std::string gv = r.GroupVersion() + "/";
      def = schema::OpenApiDefinitionName(gv + r.kind);
      if (def.empty()) continue;  // a kind without a generated schema (reviews, internal)
      list_def = schema::OpenApiDefinitionName(gv + r.list_kind);
      kinds.push_back(gv + r.kind);
      kinds.push_back(gv + r.list_kind);
      roots.emplace_back(def, patch::schema::RootType(r.GroupVersion(), r.kind));
    }
    ResourcePaths(r, def, list_def).AddTo(paths);
  }
  definitions.update(schema::OpenApiComponents(kinds));
  definitions.update(schema::OpenApiDefinitions(std::move(names)));
  for (auto& [name, d] : definitions.items()) ToSwagger2(d, false);
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& [def, type] : roots) AddPatchMetadata(definitions, def, type, seen);
  definitions.update(custom_definitions);
  return {{"swagger", "2.0"},
          {"info", {{"title", "Kubernetes"}, {"version", kKubeGitVersion}}},
          {"paths", std::move(paths)},
          {"definitions", std::move(definitions)},
          {"securityDefinitions",
           {{"BearerToken",
             {{"description", "Bearer Token authentication"},
              {"type", "apiKey"},
              {"name", "authorization"},
              {"in", "header"}}}}},
          {"security", json::array({{{"BearerToken", json::array()}}})}};
}

std::shared_ptr<const OpenApiV2Document> Make(const CustomResourceList& all) {
  auto doc = std::make_shared<OpenApiV2Document>();
  const json built = Build(all);
  doc->json = built.dump(-1, ' ', false, json::error_handler_t::replace);
  doc->protobuf = protobuf::EncodeOpenApiV2Document(built);
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llX", static_cast<unsigned long long>(Fnv1a64(doc->json)));
  doc->etag = buf;
  return doc;
}

CustomResourceList WithBuiltins(const CustomResourceList& custom) {
  CustomResourceList all;
  for (const Resource& r : Resources()) all.push_back(&r);
  all.insert(all.end(), custom.begin(), custom.end());
  return all;
}

}  // namespace

std::shared_ptr<const OpenApiV2Document> OpenApiV2(const CustomResourceList& custom) {
  if (custom.empty()) {
    static const std::shared_ptr<const OpenApiV2Document> kBuiltin = Make(WithBuiltins({}));
    return kBuiltin;
  }
  return Make(WithBuiltins(custom));
}

bool ServeOpenApiV2(const http::HttpRequest& req, http::ResponseWriter& w,
                    const CustomResourceList& custom) {
  std::string accept = req.Header("accept");
  if (accept.empty()) accept = "*/*";
  for (const std::string& range : AcceptedMediaRanges(accept)) {
    const bool json_form =
        range == "application/json" || range == "application/*" || range == "*/*";
    if (!json_form && range != kOpenApiV2Protobuf && range != kOpenApiV2ProtobufDeprecated) {
      continue;
    }
    const auto doc = OpenApiV2(custom);
    const std::string etag = "\"" + doc->etag + "\"";
    const std::vector<std::pair<std::string, std::string>> headers = {{"Etag", etag},
                                                                      {"Vary", "Accept"}};
    const std::string match = req.Header("if-none-match");
    if (!match.empty() && (match == etag || match == "*")) {
      w.Send(304, "", "", headers);
    } else if (json_form) {
      w.SendView(200, "application/json", doc->json, headers);
    } else {
      w.SendView(200, kOpenApiV2Protobuf, doc->protobuf, headers);
    }
    return true;
  }
  return false;
}

}  // namespace tidepool::apiserver
