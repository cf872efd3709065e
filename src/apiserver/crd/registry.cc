#include "apiserver/crd/registry.h"

#include <algorithm>
#include <cmath>

#include "apiserver/crd/jsonpath.h"
#include "apiserver/json_io.h"
#include "apiserver/json_members.h"
#include "apiserver/printers/internal.h"
#include "common/clock.h"

namespace tidepool::apiserver::crd {

using nlohmann::json;

namespace {

std::vector<std::string> Strings(const json& j, const char* key) {
  std::vector<std::string> out;
  if (const json* v = Member(j, key); v != nullptr && v->is_array()) {
    for (const json& s : *v) {
      if (s.is_string()) out.push_back(s.get<std::string>());
    }
  }
  return out;
}

// client-go jsonpath's PrintResults of one value: maps and slices as JSON, the rest as Go's
// fmt.Sprint.
std::string PrintValue(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() || v.is_array()) return json_io::Dump(v);
  if (v.is_null()) return "<nil>";
  return v.dump();
}

// tableconvertor's cellForJSONValue.
json Cell(const std::string& type, const json& v, TimePoint now) {
  if (v.is_null()) return nullptr;
  if (type == "integer") {
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float()) return static_cast<int64_t>(v.get<double>());
    return nullptr;
  }
  if (type == "number") return v.is_number() ? json(v.get<double>()) : json(nullptr);
  if (type == "boolean") return v.is_boolean() ? v : json(nullptr);
  if (type == "date") {
    if (!v.is_string()) return nullptr;
    auto t = ParseRfc3339(v.get<std::string>());
    if (!t.ok()) return "<invalid>";
    return printers::HumanDuration(now - *t);
  }
  return PrintValue(v);
}

struct ColumnSpec {
  std::string type;
  JsonPath path;
};

printers::DynamicPrinter PrinterOf(const json& version) {
  printers::DynamicPrinter p;
  p.columns.push_back(printers::internal::NameColumn());
  std::vector<ColumnSpec> specs;
  const json* cols = Member(version, "additionalPrinterColumns");
  json defaults = json::array({{{"name", "Age"},
                                {"type", "date"},
                                {"description", printers::internal::kCreationTimestampDescription},
                                {"jsonPath", ".metadata.creationTimestamp"}}});
  if (cols == nullptr || !cols->is_array() || cols->empty()) cols = &defaults;
  for (const json& c : *cols) {
    auto path = JsonPath::Parse(Str(c, "jsonPath"));
    if (!path.ok()) continue;  // validation refuses such a definition
    int priority = 0;
    if (const json* pr = Member(c, "priority"); pr != nullptr && pr->is_number_integer()) {
      priority = pr->get<int>();
    }
    p.columns.push_back(
        {Str(c, "name"), Str(c, "type"), Str(c, "format"), Str(c, "description"), priority});
    specs.push_back({Str(c, "type"), std::move(path).value()});
  }
  p.cells = [specs](const json& object, TimePoint now) {
    json cells = json::array();
    const json* meta = Member(object, "metadata");
    cells.push_back(meta != nullptr ? Str(*meta, "name") : std::string());
    for (const ColumnSpec& s : specs) {
      std::vector<const json*> found = s.path.Eval(object);
      cells.push_back(found.empty() ? json(nullptr) : Cell(s.type, *found[0], now));
    }
    return cells;
  };
  return p;
}

// The reversed group, as kube-openapi names a definition ("com.example.stable").
std::string ReversedGroup(const std::string& group) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (true) {
    const size_t dot = group.find('.', i);
    parts.push_back(group.substr(i, dot == std::string::npos ? std::string::npos : dot - i));
    if (dot == std::string::npos) break;
    i = dot + 1;
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!out.empty()) out += '.';
    out += *it;
  }
  return out;
}

json OpenApiOf(const std::string& group, const std::string& version, const std::string& kind,
               const json* schema) {
  json s = schema != nullptr && schema->is_object() ? *schema : json{{"type", "object"}};
  json& props = s["properties"];
  if (!props.is_object()) props = json::object();
  props["apiVersion"] = {
      {"type", "string"},
      {"description",
       "APIVersion defines the versioned schema of this representation of an object. Servers "
       "should convert recognized schemas to the latest internal value, and may reject "
       "unrecognized values. More info: "
       "https://git.k8s.io/community/contributors/devel/sig-architecture/"
       "api-conventions.md#resources"}};
  props["kind"] = {
      {"type", "string"},
      {"description",
       "Kind is a string value representing the REST resource this object represents. Servers "
       "may infer this from the endpoint the client submits requests to. Cannot be updated. In "
       "CamelCase. More info: "
       "https://git.k8s.io/community/contributors/devel/sig-architecture/"
       "api-conventions.md#types-kinds"}};
  props["metadata"] = {
      {"description",
       "Standard object's metadata. More info: "
       "https://git.k8s.io/community/contributors/devel/sig-architecture/"
       "api-conventions.md#metadata"},
      {"allOf", json::array({{{"$ref",
                               "#/components/schemas/"
                               "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}})},
      {"default", json::object()}};
  s["x-kubernetes-group-version-kind"] =
      json::array({{{"group", group}, {"version", version}, {"kind", kind}}});
  return s;
}

Subresource StatusOf(const Resource& r) {
  return {"status", r.group, r.version, r.kind, {"get", "patch", "update"}};
}

}  // namespace

namespace {

// ".spec.replicas" -> {"spec", "replicas"}.
std::vector<std::string> PathParts(const std::string& path) {
  std::vector<std::string> parts;
  size_t i = path.empty() || path[0] != '.' ? 0 : 1;
  while (i <= path.size() && i < path.size()) {
    const size_t dot = path.find('.', i);
    parts.push_back(path.substr(i, dot == std::string::npos ? std::string::npos : dot - i));
    if (dot == std::string::npos) break;
    i = dot + 1;
  }
  return parts;
}

const json* AtPath(const json& object, const std::string& path) {
  const json* cur = &object;
  for (const std::string& p : PathParts(path)) {
    cur = Member(*cur, p);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

}  // namespace

json CustomScaleOf(const ServedVersion::Scale& scale, const json& object) {
  json meta = json::object();
  if (const json* m = Member(object, "metadata"); m != nullptr && m->is_object()) {
    for (const char* k : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
      if (const json* v = Member(*m, k)) meta[k] = *v;
    }
  }
  json spec = json::object();
  const json* want = AtPath(object, scale.spec_replicas_path);
  if (want != nullptr && want->is_number_integer() && want->get<int64_t>() != 0) {
    spec["replicas"] = want->get<int64_t>();
  }
  json status = {{"replicas", 0}};
  const json* have = AtPath(object, scale.status_replicas_path);
  if (have != nullptr && have->is_number_integer()) status["replicas"] = have->get<int64_t>();
  if (!scale.label_selector_path.empty()) {
    const json* sel = AtPath(object, scale.label_selector_path);
    if (sel != nullptr && sel->is_string() && !sel->get<std::string>().empty()) {
      status["selector"] = *sel;
    }
  }
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", meta},
          {"spec", spec},
          {"status", status}};
}

void SetCustomReplicas(const ServedVersion::Scale& scale, json& object, int32_t replicas) {
  json* cur = &object;
  const std::vector<std::string> parts = PathParts(scale.spec_replicas_path);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!cur->is_object()) *cur = json::object();
    cur = &(*cur)[parts[i]];
  }
  *cur = replicas;
}

const Resource& DefinitionResource() {
  static const Resource* r =
      FindResource("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  return *r;
}

StatusOr<std::vector<Resource>> ResourcesOf(const json& definition) {
  const json* spec = Member(definition, "spec");
  if (spec == nullptr || !spec->is_object()) {
    return Status(StatusCode::kInvalidArgument, "no spec");
  }
  const json* names = Member(*spec, "names");
  const json empty = json::object();
  if (names == nullptr) names = &empty;
  const std::string group = Str(*spec, "group");
  const std::string kind = Str(*names, "kind");
  const std::string plural = Str(*names, "plural");
  if (group.empty() || kind.empty() || plural.empty()) {
    return Status(StatusCode::kInvalidArgument, "no group, kind or plural");
  }
  std::string singular = Str(*names, "singular");
  if (singular.empty()) {
    singular = kind;
    std::transform(singular.begin(), singular.end(), singular.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  std::string list_kind = Str(*names, "listKind");
  if (list_kind.empty()) list_kind = kind + "List";
  const bool namespaced = Str(*spec, "scope") != "Cluster";
  const json* versions = Member(*spec, "versions");
  if (versions == nullptr || !versions->is_array() || versions->empty()) {
    return Status(StatusCode::kInvalidArgument, "no versions");
  }
  std::vector<Resource> out;
  int storage = -1;
  for (const json& v : *versions) {
    const json* served = Member(v, "served");
    const json* stored = Member(v, "storage");
    const bool is_storage = stored != nullptr && stored->is_boolean() && stored->get<bool>();
    const bool is_served = served != nullptr && served->is_boolean() && served->get<bool>();
    if (!is_served && !is_storage) continue;
    Resource r;
    r.group = group;
    r.version = Str(v, "name");
    r.resource = plural;
    r.singular = singular;
    r.kind = kind;
    r.list_kind = list_kind;
    r.namespaced = namespaced;
    r.verbs = is_served ? std::vector<std::string>{"delete", "deletecollection", "get",    "list",
                                                   "patch",  "create",           "update", "watch"}
                        : std::vector<std::string>{};
    r.short_names = Strings(*names, "shortNames");
    r.categories = Strings(*names, "categories");
    auto sv = std::make_shared<ServedVersion>();
    sv->crd_name = Str(definition, "metadata", "name");
    const json* schema = nullptr;
    if (const json* s = Member(v, "schema"); s != nullptr) schema = Member(*s, "openAPIV3Schema");
    if (schema != nullptr) {
      auto parsed = Schema::Parse(*schema);
      if (!parsed.ok()) return parsed.status();
      sv->schema = std::make_shared<Schema>(std::move(parsed).value());
    }
    sv->printer = PrinterOf(v);
    if (const json* d = Member(v, "deprecated"); d != nullptr && d->is_boolean() && d->get<bool>()) {
      const json* text = Member(v, "deprecationWarning");
      sv->deprecation_warning = text != nullptr && text->is_string()
                                    ? text->get<std::string>()
                                    : group + "/" + r.version + " " + kind + " is deprecated";
    }
    if (const json* subs = Member(v, "subresources"); subs != nullptr) {
      if (const json* scale = Member(*subs, "scale"); scale != nullptr && scale->is_object()) {
        sv->scale =
            ServedVersion::Scale{Str(*scale, "specReplicasPath"), Str(*scale, "statusReplicasPath"),
                                 Str(*scale, "labelSelectorPath")};
        r.subresources.push_back(
            {"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}});
      }
      if (Member(*subs, "status") != nullptr) {
        sv->has_status = true;
        r.subresources.push_back(StatusOf(r));
      }
    }
    sv->openapi = OpenApiOf(group, r.version, kind, schema);
    r.custom = std::move(sv);
    if (is_storage) {
      if (storage >= 0) return Status(StatusCode::kInvalidArgument, "two storage versions");
      storage = static_cast<int>(out.size());
    }
    out.push_back(std::move(r));
  }
  if (storage < 0) return Status(StatusCode::kInvalidArgument, "no storage version");
  for (size_t i = 0; i < out.size(); ++i) {
    if (static_cast<int>(i) != storage) out[i].storage_version = out[storage].version;
  }
  return out;
}

std::string OpenApiComponentName(const Resource& r) {
  return ReversedGroup(r.group) + "." + r.version + "." + r.kind;
}

// ---- Registry ---------------------------------------------------------------------------------

Registry::Registry(ObjectStore& store) : store_(store) {
  auto w = store_.OpenWatch(&DefinitionResource(), "", 0, ObjectStore::Backlog::kUnbounded);
  if (w.ok()) watch_ = std::move(w).value();
}

Registry::~Registry() {
  if (watch_) watch_->Stop();
}

const Resource* Registry::Intern(Resource r) {
  // The key: everything a Resource value says (the schema by its text).
  json key = {r.group,
              r.version,
              r.resource,
              r.singular,
              r.kind,
              r.list_kind,
              r.namespaced,
              r.verbs,
              r.short_names,
              r.categories,
              r.storage_version,
              reinterpret_cast<uintptr_t>(r.custom_storage)};
  for (const Subresource& s : r.subresources) key.push_back(s.name);
  if (r.custom) {
    key.push_back(r.custom->crd_name);
    key.push_back(r.custom->schema ? r.custom->schema->raw() : json());
    json cols = json::array();
    for (const auto& c : r.custom->printer.columns) {
      cols.push_back({c.name, c.type, c.format, c.description, c.priority});
    }
    key.push_back(cols);
    key.push_back(r.custom->openapi);
  }
  const std::string k = json_io::Dump(key);
  auto& slot = interned_[k];
  if (!slot) slot = std::make_unique<Resource>(std::move(r));
  return slot.get();
}

void Registry::Define(const json& definition) {
  const json* meta = Member(definition, "metadata");
  const std::string name = meta != nullptr ? Str(*meta, "name") : "";
  auto resources = ResourcesOf(definition);
  Defined d;
  d.terminating = meta != nullptr && Member(*meta, "deletionTimestamp") != nullptr &&
                  !Member(*meta, "deletionTimestamp")->is_null();
  if (!resources.ok()) {
    defined_.erase(name);
    return;
  }
  // The storage version first: the others point at it.
  int storage = -1;
  for (size_t i = 0; i < resources->size(); ++i) {
    if ((*resources)[i].storage_version.empty()) storage = static_cast<int>(i);
  }
  Resource storage_copy = (*resources)[storage];
  const bool storage_served = !storage_copy.verbs.empty();
  d.storage = Intern(std::move(storage_copy));
  d.group = d.storage->group;
  for (size_t i = 0; i < resources->size(); ++i) {
    if (static_cast<int>(i) == storage) {
      if (storage_served) d.served.push_back(d.storage);
      continue;
    }
    Resource r = std::move((*resources)[i]);
    r.custom_storage = d.storage;
    if (!r.verbs.empty()) d.served.push_back(Intern(std::move(r)));
  }
  defined_[name] = std::move(d);
}

void Registry::CleanUp(const std::string& name, const Resource* storage, bool finalize) {
  const ObjectStore::WriteOptions opts{"crd-finalizer", false, {}};
  for (const ObjectPtr& o : store_.List(*storage, "").items) {
    const json& meta = o->view["metadata"];
    (void)store_.Delete(*storage, Str(meta, "namespace"), Str(meta, "name"), opts);
  }
  if (!finalize) return;
  (void)store_.Update(
      DefinitionResource(), "", name,
      [](const StoredObject* cur) -> StatusOr<json> {
        if (cur == nullptr) return Status(StatusCode::kNotFound, "gone");
        json obj = cur->Parse();
        json& meta = obj["metadata"];
        if (meta.contains("finalizers") && meta["finalizers"].is_array()) {
          json kept = json::array();
          for (const json& f : meta["finalizers"]) {
            if (f != kCleanupFinalizer) kept.push_back(f);
          }
          meta["finalizers"] = kept;
        }
        return obj;
      },
      opts);
}

StatusOr<ObjectPtr> BeginDeletion(ObjectStore& store, const std::string& name, TimePoint now,
                                  const ObjectStore::WriteOptions& opts) {
  auto updated = store.Update(
      DefinitionResource(), "", name,
      [&](const StoredObject* cur) -> StatusOr<json> {
        if (cur == nullptr) {
          return Status(StatusCode::kNotFound,
                        ObjectStore::Qualified(DefinitionResource(), name) + " not found");
        }
        json obj = cur->Parse();
        json& meta = obj["metadata"];
        if (!meta.contains("deletionTimestamp") || meta["deletionTimestamp"].is_null()) {
          meta["deletionTimestamp"] = FormatRfc3339(now);
          meta["deletionGracePeriodSeconds"] = 0;
        }
        json& finalizers = meta["finalizers"];
        if (!finalizers.is_array()) finalizers = json::array();
        bool has = false;
        for (const json& f : finalizers) has |= f == kCleanupFinalizer;
        if (!has) finalizers.push_back(kCleanupFinalizer);
        json& status = obj["status"];
        if (!status.is_object()) status = json::object();
        json& conditions = status["conditions"];
        if (!conditions.is_array()) conditions = json::array();
        bool terminating = false;
        for (const json& c : conditions)
          terminating |= c.is_object() && Str(c, "type") == "Terminating";
        if (!terminating) {
          conditions.push_back(
              {{"type", "Terminating"},
               {"status", "True"},
               {"lastTransitionTime", FormatRfc3339(now)},
               {"reason", "InstanceDeletionPending"},
               {"message",
                "CustomResourceDefinition marked for deletion; CustomResource deletion will "
                "begin soon"}});
        }
        return obj;
      },
      opts);
  if (!updated.ok()) return updated.status();
  return updated->object;
}

void Registry::RefreshLocked() {
  if (!watch_) return;
  // Until nothing is left: a cleanup's own writes (the finalizer removed, the definition gone)
  // come back as events of the next round.
  for (std::vector<EventPtr> events; watch_->Drain(&events) && !events.empty(); events.clear()) {
    std::vector<std::string> to_clean;
    for (const EventPtr& e : events) {
      static const json kNoMeta = json::object();
      const json* meta_p = Member(e->object->view, "metadata");
      const json& meta = meta_p != nullptr ? *meta_p : kNoMeta;
      const std::string name = Str(meta, "name");
      if (e->type == EventType::kDeleted) {
        // Removed without the finalizer's work (a deletecollection): its resources go too.
        if (auto it = defined_.find(name); it != defined_.end()) {
          const Resource* storage = it->second.storage;
          defined_.erase(it);
          CleanUp(name, storage, /*finalize=*/false);
        }
        continue;
      }
      Define(e->object->Parse());
      auto it = defined_.find(name);
      if (it == defined_.end() || !it->second.terminating) continue;
      if (auto f = meta.find("finalizers"); f != meta.end() && f->is_array()) {
        for (const json& x : *f) {
          if (x == kCleanupFinalizer) to_clean.push_back(name);
        }
      }
    }
    for (const std::string& name : to_clean) {
      if (auto it = defined_.find(name); it != defined_.end()) {
        CleanUp(name, it->second.storage, /*finalize=*/true);
      }
    }
  }
}

const Resource* Registry::Find(std::string_view group, std::string_view version,
                               std::string_view resource) {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshLocked();
  for (const auto& [name, d] : defined_) {
    if (d.group != group) continue;
    for (const Resource* r : d.served) {
      if (r->version == version && r->resource == resource) return r;
    }
  }
  return nullptr;
}

const Resource* Registry::FindByKind(std::string_view api_version, std::string_view kind) {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshLocked();
  for (const auto& [name, d] : defined_) {
    for (const Resource* r : d.served) {
      if (r->kind == kind && r->GroupVersion() == api_version) return r;
    }
  }
  return nullptr;
}

std::vector<const Resource*> Registry::Served() {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshLocked();
  std::vector<std::pair<std::string, const Defined*>> by_group;
  for (const auto& [name, d] : defined_) by_group.push_back({d.group + "/" + name, &d});
  std::sort(by_group.begin(), by_group.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const Resource*> out;
  for (const auto& [key, d] : by_group) out.insert(out.end(), d->served.begin(), d->served.end());
  return out;
}

void Registry::Sync() {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshLocked();
}

std::vector<const Resource*> Registry::Stored() {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshLocked();
  std::vector<const Resource*> out;
  for (const auto& [name, d] : defined_) out.push_back(d.storage);
  return out;
}

}  // namespace tidepool::apiserver::crd
