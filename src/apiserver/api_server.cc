#include "apiserver/api_server.h"

#include <optional>
#include <set>
#include <vector>

#include "api/codec/json_codec.h"
#include "api/codec/yaml.h"
#include "apiserver/admission.h"
#include "apiserver/binding.h"
#include "apiserver/deletion.h"
#include "apiserver/discovery.h"
#include "apiserver/eviction.h"
#include "apiserver/json_io.h"
#include "apiserver/json_members.h"
#include "apiserver/negotiation.h"
#include "apiserver/patch/go_format.h"
#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/server_side_apply.h"
#include "apiserver/patch/strategic_merge_patch.h"
#include "apiserver/printers/printers.h"
#include "apiserver/protobuf/decode.h"
#include "apiserver/protobuf/encode.h"
#include "apiserver/scale.h"
#include "apiserver/schema/schema.h"
#include "apiserver/selectors/fields.h"
#include "apiserver/selectors/labels.h"
#include "apiserver/validation/fields.h"

namespace tidepool::apiserver {

using nlohmann::json;
using http::HttpRequest;
using http::ResponseWriter;

namespace {

constexpr char kJson[] = "application/json";
// kube-apiserver's maxJSONPatchOperations: a longer JSON patch is a 413.
constexpr size_t kMaxJsonPatchOperations = 10000;

// ---- Status responses -------------------------------------------------------------------------

struct ApiError {
  int code = 500;
  std::string reason;  // "NotFound", "" for 500s without one
  std::string message;
  json details;  // null when none
};

json StatusJson(const ApiError& e) {
  json j = {{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", json::object()},
            {"status", "Failure"},
            {"message", e.message}};
  if (!e.reason.empty()) j["reason"] = e.reason;
  if (!e.details.is_null()) j["details"] = e.details;
  j["code"] = e.code;
  return j;
}

void SendError(ResponseWriter& w, const ApiError& e,
               const std::vector<std::pair<std::string, std::string>>& headers = {}) {
  w.Send(e.code, kJson, StatusJson(e).dump(-1, ' ', false, json::error_handler_t::replace), headers);
}

json Details(const Resource* r, std::string_view name) {
  json d = json::object();
  if (!name.empty()) d["name"] = std::string(name);
  if (r != nullptr) {
    if (!r->group.empty()) d["group"] = r->group;
    d["kind"] = r->resource;
  }
  return d;
}

// Maps a store / library Status to kube's Status.
ApiError FromStatus(const Status& s, const Resource* r, std::string_view name) {
  ApiError e;
  e.message = std::string(s.message());
  switch (s.code()) {
    case StatusCode::kNotFound:
      e.code = 404;
      e.reason = "NotFound";
      e.details = Details(r, name);
      break;
    case StatusCode::kAlreadyExists:
      e.code = 409;
      e.reason = "AlreadyExists";
      e.details = Details(r, name);
      break;
    case StatusCode::kAborted:
      e.code = 409;
      e.reason = "Conflict";
      e.details = Details(r, name);
      break;
    case StatusCode::kOutOfRange:
      e.code = 410;
      e.reason = "Expired";
      break;
    case StatusCode::kInvalidArgument:
      e.code = 400;
      e.reason = "BadRequest";
      break;
    case StatusCode::kUnimplemented:
      e.code = 415;
      e.reason = "UnsupportedMediaType";
      break;
    case StatusCode::kResourceExhausted:
      e.code = 429;
      e.reason = "TooManyRequests";
      break;
    default:
      e.code = 500;
      e.reason = "InternalError";
      e.message = "Internal error occurred: " + e.message;
      break;
  }
  return e;
}

std::string CauseReason(api::FieldError::Type t) {
  switch (t) {
    case api::FieldError::Type::kInvalid:
      return "FieldValueInvalid";
    case api::FieldError::Type::kRequired:
      return "FieldValueRequired";
    case api::FieldError::Type::kForbidden:
      return "FieldValueForbidden";
    case api::FieldError::Type::kNotSupported:
      return "FieldValueNotSupported";
    case api::FieldError::Type::kDuplicate:
      return "FieldValueDuplicate";
    case api::FieldError::Type::kTooLong:
      return "FieldValueTooLong";
    case api::FieldError::Type::kTooMany:
      return "FieldValueTooMany";
  }
  return "FieldValueInvalid";
}

ApiError Invalid(const Resource& r, std::string_view name, const api::FieldErrors& errors) {
  ApiError e;
  e.code = 422;
  e.reason = "Invalid";
  e.message = r.kind + " \"" + std::string(name) + "\" is invalid: " + api::AggregateMessage(errors);
  json causes = json::array();
  for (const api::FieldError& f : errors) {
    std::string full = f.ToString();
    const std::string prefix = f.field + ": ";
    if (full.compare(0, prefix.size(), prefix) == 0) full = full.substr(prefix.size());
    causes.push_back({{"reason", CauseReason(f.type)}, {"message", full}, {"field", f.field}});
  }
  e.details = {{"name", std::string(name)}, {"kind", r.kind}, {"causes", causes}};
  if (!r.group.empty()) e.details["group"] = r.group;
  return e;
}

// What kube-apiserver answers when etcd refuses an object over its request limit (1.5 MiB):
// the etcd error is not a metav1.Status, so it is a 500 without a reason.
ApiError EtcdRequestTooLarge() { return {500, "", "etcdserver: request is too large", json()}; }

// Whether `obj` (plus `extra` bytes stored with it) is over etcd's default --max-request-bytes.
bool TooLargeForStorage(const json& obj, size_t extra) {
  constexpr size_t kEtcdMaxRequestBytes = 1536 * 1024;
  return validation::EncodedSizeOver(obj, kEtcdMaxRequestBytes - std::min(extra, kEtcdMaxRequestBytes));
}

ApiError NotFoundPath(std::string_view path) {
  (void)path;
  return {404, "NotFound", "the server could not find the requested resource",
          json{{"causes", json::array({{{"reason", "UnexpectedServerResponse"},
                                        {"message", "404 page not found"}}})}}};
}

ApiError MethodNotAllowed(const std::string& method) {
  return {405, "MethodNotAllowed",
          "the server does not allow this method on the requested resource", json()};
}

// ---- Query parameters ---------------------------------------------------------------------------

// strconv.ParseBool's true values (clients send "true", "1", and Python's "True").
bool QueryBool(const HttpRequest& req, std::string_view name) {
  const std::string v = req.Query(name);
  return v == "1" || v == "t" || v == "T" || v == "TRUE" || v == "true" || v == "True";
}

bool WantsTable(const HttpRequest& req) {
  return req.Header("accept").find("as=Table") != std::string::npos;
}

std::string FieldManager(const HttpRequest& req) {
  std::string m = req.Query("fieldManager");
  if (!m.empty()) return m;
  // kube-apiserver defaults the manager to the user agent's program name.
  std::string ua = req.Header("user-agent");
  const size_t slash = ua.find('/');
  return slash == std::string::npos ? ua : ua.substr(0, slash);
}

// ---- System fields and DeleteOptions ---------------------------------------------------------

// rest.BeforeCreate: a created object's uid and creationTimestamp are the server's
// (FillObjectMetaSystemFields), whatever the client sent, and it is not being deleted.
void FillSystemFields(json& obj, std::string uid, TimePoint now) {
  json& meta = obj["metadata"];
  meta["uid"] = std::move(uid);
  meta["creationTimestamp"] = FormatRfc3339(now);
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
}

// DeleteOptions.dryRun names "All": the request is a dry run (as ?dryRun=All).
bool DryRunAll(const json& options) {
  const json* d = Member(options, "dryRun");
  if (d == nullptr || !d->is_array()) return false;
  for (const json& v : *d) {
    if (v.is_string() && v.get<std::string>() == "All") return true;
  }
  return false;
}

printers::IncludeObject IncludeObjectParam(const HttpRequest& req) {
  const std::string v = req.Query("includeObject", "Metadata");
  if (v == "Object") return printers::IncludeObject::kObject;
  if (v == "None") return printers::IncludeObject::kNone;
  return printers::IncludeObject::kMetadata;
}

}  // namespace

// ---- Request parsing ------------------------------------------------------------------------------

struct ApiServer::Request {
  const HttpRequest* http = nullptr;
  const Resource* resource = nullptr;
  std::string ns;           // from the URL
  std::string name;         // item name, empty for collections
  std::string subresource;  // "status", "log", ...
  std::vector<std::pair<std::string, std::string>> warnings;  // Warning headers

  std::vector<std::pair<std::string, std::string>> Headers() const { return warnings; }
};

ApiServer::ApiServer(const Clock& clock, ObjectStore& store, PodLogs& logs,
                     ApiServerOptions options)
    : clock_(clock), store_(store), logs_(logs), options_(std::move(options)) {}

ApiServer::~ApiServer() = default;

namespace {

std::vector<std::string> Split(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    if (i >= path.size()) break;
    const size_t j = path.find('/', i);
    out.emplace_back(path.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) break;
    i = j;
  }
  return out;
}

void SendJson(ResponseWriter& w, int code, const json& j,
              const std::vector<std::pair<std::string, std::string>>& headers = {}) {
  w.Send(code, kJson, j.dump(-1, ' ', false, json::error_handler_t::replace), headers);
}

// Parses a request body as an object: JSON, YAML (apply patches), or Kubernetes protobuf. With
// `duplicate_paths`, a JSON body's repeated keys are listed there (json_io::Parse).
StatusOr<json> ParseBody(const HttpRequest& req,
                         std::vector<std::string>* duplicate_paths = nullptr) {
  const std::string ct = req.Header("content-type");
  if (ct.find("application/vnd.kubernetes.protobuf") == 0) {
    return protobuf::DecodeObject(req.body);
  }
  if (ct.find("yaml") != std::string::npos) {
    auto docs = api::codec::ParseYamlDocuments(req.body);
    if (!docs.ok()) {
      return Status(StatusCode::kInvalidArgument, "error decoding YAML: " +
                                                      std::string(docs.status().message()));
    }
    if (docs->size() != 1) {
      return Status(StatusCode::kInvalidArgument, "error decoding YAML: expected one document");
    }
    return std::move((*docs)[0]);
  }
  StatusOr<json> j = json_io::Parse(req.body, duplicate_paths);
  if (!j.ok()) {
    // kube's decoder reads the version and kind first (encoding/json): its syntax error.
    std::string why = json_io::GoSyntaxError(req.body);
    if (why.empty()) why = std::string(j.status().message());
    return Status(StatusCode::kInvalidArgument, "couldn't get version/kind; json parse error: " + why);
  }
  return j;
}

enum class FieldValidation { kStrict, kWarn, kIgnore };

FieldValidation FieldValidationParam(const HttpRequest& req) {
  const std::string v = req.Query("fieldValidation");
  if (v == "Strict") return FieldValidation::kStrict;
  if (v == "Ignore") return FieldValidation::kIgnore;
  return FieldValidation::kWarn;
}

// The version/kind sniff kube's decoder starts with (json.Unmarshal into an anonymous
// struct{APIVersion, Kind string}): a value of another type there fails the request.
std::optional<ApiError> VersionKindTypeError(const json& obj) {
  for (const char* key : {"apiVersion", "kind"}) {
    const json* v = Member(obj, key);
    if (v == nullptr || v->is_string() || v->is_null()) continue;
    const std::string got = v->is_number()    ? "number"
                            : v->is_boolean() ? "bool"
                            : v->is_array()   ? "array"
                                              : "object";
    return ApiError{400, "BadRequest",
                    "couldn't get version/kind; json parse error: json: cannot unmarshal " + got +
                        " into Go struct field ." + key + " of type string",
                    json()};
  }
  return std::nullopt;
}

// The typed decode of a create or update body: the first value of a type its field does not
// take is a 400 as kube-apiserver's decoder gives it; then nulls become Go's zero values.
std::optional<ApiError> DecodeTyped(std::string_view api_version, std::string_view kind,
                                    json& obj) {
  if (auto e = VersionKindTypeError(obj)) return e;
  const auto& schema = schema::Schema::Builtin();
  if (auto t = schema.FindTypeError(api_version, kind, obj)) {
    return ApiError{400, "BadRequest",
                    schema::CannotBeHandledMessage(api_version, kind, t->JsonMessage()), json()};
  }
  schema.ZeroNulls(api_version, kind, obj);
  return std::nullopt;
}
std::optional<ApiError> DecodeTyped(const Resource& res, json& obj) {
  return DecodeTyped(res.GroupVersion(), res.kind, obj);
}

// DeleteOptions in a DELETE's or an eviction's body: a wrong type is a 400 with the decoder's
// own text.
std::optional<ApiError> DeleteOptionsTypeError(const json& options) {
  if (auto t = schema::Schema::Builtin().FindTypeError("v1", "DeleteOptions", options)) {
    return ApiError{400, "BadRequest", t->JsonMessage(), json()};
  }
  return std::nullopt;
}

// ValidateDeleteOptions' refusal: 422 Invalid on DeleteOptions.meta.k8s.io.
ApiError InvalidDeleteOptions(const Status& s) {
  const std::string msg(s.message());
  json causes = json::array();
  const std::string prefix = "DeleteOptions.meta.k8s.io \"\" is invalid: ";
  std::string rest = msg.compare(0, prefix.size(), prefix) == 0 ? msg.substr(prefix.size()) : msg;
  if (rest.size() > 2 && rest.front() == '[' && rest.back() == ']') rest = rest.substr(1, rest.size() - 2);
  size_t start = 0;
  while (start < rest.size()) {
    // Each error starts with ": Invalid value: " (the field path is empty).
    size_t next = rest.find(", : Invalid value: ", start);
    std::string one = rest.substr(start, next == std::string::npos ? std::string::npos : next - start);
    if (one.compare(0, 2, ": ") == 0) one = one.substr(2);
    causes.push_back({{"reason", "FieldValueInvalid"}, {"message", one}, {"field", ""}});
    if (next == std::string::npos) break;
    start = next + 2;
  }
  return {422, "Invalid", msg,
          json{{"group", "meta.k8s.io"}, {"kind", "DeleteOptions"}, {"causes", causes}}};
}

// kube's refusal of a patch whose result does not decode: 422 on the field "patch", whose
// value is the patch (%+v of the patch map for a strategic merge patch, the patched object's
// JSON for a merge or JSON patch).
ApiError PatchInvalid(const std::string& value_text, const std::string& error) {
  const std::string detail =
      "Invalid value: " + patch::internal::GoQuote(value_text) + ": " + error;
  return {422, "Invalid", " \"\" is invalid: patch: " + detail,
          json{{"causes", json::array({{{"reason", "FieldValueInvalid"},
                                        {"message", detail},
                                        {"field", "patch"}}})}}};
}

// structured-merge-diff's text for an apply configuration whose value has the wrong type
// ("failed to create typed patch object (...): .spec.replicas: expected numeric (int or
// float), got string").
std::string ApplyTypeMessage(const schema::TypeError& t) {
  if (!t.message.empty()) return t.message;
  const std::string path = "." + t.field_path;
  const std::string got = t.unstructured == "map"     ? "map[string]interface {}"
                          : t.unstructured == "slice" ? "[]interface {}"
                                                      : t.unstructured;
  if (t.target == 'S' || t.target == 'M') return path + ": expected map, got " + got;
  if (t.target == 'L') return path + ": expected list, got " + got;
  if (t.go_type == "string") return path + ": expected string, got " + got;
  if (t.go_type == "bool") return path + ": expected boolean, got " + got;
  return path + ": expected numeric (int or float), got " + got;
}

std::string WarningHeader(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "299 - \"" + escaped + "\"";
}

}  // namespace

void ApiServer::Handle(const HttpRequest& req, ResponseWriter& w) {
  requests_.fetch_add(1);
  const std::string& path = req.path;
  if (path == "/version" || path == "/version/") {
    SendJson(w, 200, VersionInfo());
    return;
  }
  if (path == "/healthz" || path == "/livez" || path == "/readyz") {
    w.Send(200, "text/plain; charset=utf-8", "ok");
    return;
  }
  const bool aggregated =
      req.Header("accept").find("as=APIGroupDiscoveryList") != std::string::npos;
  if (path == "/api" || path == "/api/") {
    if (aggregated) {
      w.Send(200, kAggregatedDiscoveryType, AggregatedDiscovery(true).dump(-1, ' ', false, json::error_handler_t::replace));
    } else {
      SendJson(w, 200, LegacyApiVersions(options_.server_address));
    }
    return;
  }
  if (path == "/apis" || path == "/apis/") {
    if (aggregated) {
      w.Send(200, kAggregatedDiscoveryType, AggregatedDiscovery(false).dump(-1, ' ', false, json::error_handler_t::replace));
    } else {
      SendJson(w, 200, LegacyApiGroupList());
    }
    return;
  }
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    SendJson(w, 200, OpenApiV3Root());
    return;
  }
  if (path.rfind("/openapi/v3/", 0) == 0) {
    if (auto doc = OpenApiV3Document(std::string_view(path).substr(12))) {
      SendJson(w, 200, *doc);
    } else {
      SendError(w, NotFoundPath(path));
    }
    return;
  }
  const std::vector<std::string> seg = Split(path);
  Request r;
  r.http = &req;
  size_t rest = 0;
  std::string group, version;
  if (seg.size() >= 2 && seg[0] == "api" && seg[1] == "v1") {
    version = "v1";
    rest = 2;
  } else if (seg.size() >= 3 && seg[0] == "apis") {
    group = seg[1];
    version = seg[2];
    rest = 3;
  } else if (seg.size() == 2 && seg[0] == "apis") {
    if (auto g = LegacyApiGroup(seg[1])) {
      SendJson(w, 200, *g);
    } else {
      SendError(w, NotFoundPath(path));
    }
    return;
  } else {
    SendError(w, NotFoundPath(path));
    return;
  }
  if (seg.size() == rest) {
    if (req.method != "GET") {
      SendError(w, MethodNotAllowed(req.method));
      return;
    }
    if (auto list = ApiResourceList(group.empty() ? version : group + "/" + version)) {
      SendJson(w, 200, *list);
    } else {
      SendError(w, NotFoundPath(path));
    }
    return;
  }
  std::vector<std::string> rs(seg.begin() + static_cast<long>(rest), seg.end());
  if (rs.size() >= 3 && rs[0] == "namespaces" && rs[2] != "status" && rs[2] != "finalize") {
    r.ns = rs[1];
    rs.erase(rs.begin(), rs.begin() + 2);
  }
  r.resource = FindResource(group, version, rs[0]);
  if (r.resource == nullptr || rs.size() > 3) {
    SendError(w, NotFoundPath(path));
    return;
  }
  if (rs.size() >= 2) r.name = rs[1];
  if (rs.size() == 3) {
    r.subresource = rs[2];
    bool known = false;
    for (const Subresource& s : r.resource->subresources) known |= s.name == r.subresource;
    if (!known) {
      SendError(w, NotFoundPath(path));
      return;
    }
  }
  if (!r.resource->namespaced && !r.ns.empty()) {
    SendError(w, NotFoundPath(path));
    return;
  }
  HandleResource(r, w);
}

// ---- The resource handlers -------------------------------------------------------------------------

namespace {

struct Filter {
  std::optional<selectors::LabelSelector> labels;
  std::optional<selectors::FieldSelector> fields;
  const Resource* resource = nullptr;

  bool Matches(const json& obj) const {
    if (labels) {
      const json* meta = Member(obj, "metadata");
      const json* l = meta ? Member(*meta, "labels") : nullptr;
      if (!labels->Matches(l ? *l : json())) return false;
    }
    if (fields && !fields->Matches(resource->group, resource->resource, obj)) return false;
    return true;
  }
  bool Empty() const { return !labels && !fields; }
};

StatusOr<Filter> ParseFilter(const HttpRequest& req, const Resource& r) {
  Filter f;
  f.resource = &r;
  const std::string ls = req.Query("labelSelector");
  if (!ls.empty()) {
    TIDEPOOL_ASSIGN_OR_RETURN(selectors::LabelSelector sel, selectors::LabelSelector::Parse(ls));
    if (!sel.Empty()) f.labels = std::move(sel);
  }
  const std::string fs = req.Query("fieldSelector");
  if (!fs.empty()) {
    TIDEPOOL_ASSIGN_OR_RETURN(selectors::FieldSelector sel, selectors::FieldSelector::Parse(fs));
    TIDEPOOL_RETURN_IF_ERROR(sel.Validate(r.group, r.resource));
    if (!sel.Empty()) f.fields = std::move(sel);
  }
  return f;
}

// A stored object's JSON text in protobuf (protobuf/encode.h), or nullopt when it does not
// encode; the caller answers JSON then, never a half-written protobuf body.
std::optional<std::string> ProtobufOf(std::string_view text, const Resource& res) {
  json obj = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!obj.is_object()) return std::nullopt;
  if (!obj.contains("apiVersion")) obj["apiVersion"] = res.GroupVersion();
  if (!obj.contains("kind")) obj["kind"] = res.kind;
  auto body = protobuf::EncodeObject(obj);
  if (!body.ok()) return std::nullopt;
  return std::move(body).value();
}

// A LIST answer in protobuf, or nullopt when an item does not encode (JSON then).
std::optional<std::string> ProtobufList(const Resource& res, const std::vector<ObjectPtr>& items,
                                        int64_t resource_version) {
  auto e = protobuf::ListEncoder::Start(res.GroupVersion(), res.kind,
                                        {{"resourceVersion", std::to_string(resource_version)}});
  if (!e.ok()) return std::nullopt;
  for (const ObjectPtr& o : items) {
    const json obj = json::parse(o->text, nullptr, /*allow_exceptions=*/false);
    if (!obj.is_object() || !e->Add(obj).ok()) return std::nullopt;
  }
  return e->Finish();
}

}  // namespace

void ApiServer::HandleResource(Request& r, ResponseWriter& w) {
  const HttpRequest& req = *r.http;
  const Resource& res = *r.resource;
  const std::string& method = req.method;
  const ObjectStore::WriteOptions wopts{"api", req.Query("dryRun") == "All"};
  // Objects (GET, LIST, WATCH, and the object a write answers) go out in protobuf when the
  // client prefers it (negotiation.h) and the kind has a table; errors stay JSON Status (see
  // api_server.h).
  const bool protobuf_out =
      !WantsTable(req) && NegotiateResponse(req.Header("accept")) == ResponseEncoding::kProtobuf &&
      protobuf::FindKind(res.GroupVersion(), res.kind) != nullptr;
  // An object's JSON text as the answer, in protobuf when negotiated and it encodes.
  auto send_text = [&](int code, std::string_view text,
                       const std::vector<std::pair<std::string, std::string>>& headers) {
    if (protobuf_out) {
      if (std::optional<std::string> pb = ProtobufOf(text, res)) {
        return w.Send(code, kProtobufContentType, std::move(*pb), headers);
      }
    }
    w.SendView(code, kJson, text, headers);
  };

  auto send_object = [&](int code, const ObjectPtr& o) {
    if (WantsTable(req) && method == "GET") {
      w.Send(code, kJson,
             printers::BuildTableText(res.group, res.resource, {{&o->view, o->text}},
                                      std::to_string(o->resource_version), clock_.Now(),
                                      IncludeObjectParam(req), true),
             r.Headers());
    } else {
      send_text(code, o->text, r.Headers());  // `o` outlives the call: no copy
    }
  };
  auto fail = [&](const Status& s) { SendError(w, FromStatus(s, &res, r.name), r.Headers()); };

  // Namespaced writes need an existing namespace (kube's NamespaceLifecycle admission).
  auto namespace_exists = [&](const std::string& ns) -> bool {
    if (!res.namespaced || ns.empty()) return true;
    const Resource* nsr = FindResource("", "v1", "namespaces");
    return store_.Get(*nsr, "", ns).ok();
  };

  // ---- subresources
  if (r.subresource == "log") {
    if (method != "GET") return SendError(w, MethodNotAllowed(method));
    auto pod = store_.Get(res, r.ns, r.name);
    if (!pod.ok()) return fail(pod.status());
    const json p = (*pod)->Parse();
    std::vector<std::string> names;
    const json* spec = Member(p, "spec");
    if (const json* cs = spec ? Member(*spec, "containers") : nullptr; cs && cs->is_array()) {
      for (const json& c : *cs) names.push_back(c.value("name", ""));
    }
    std::string container = req.Query("container");
    if (container.empty()) {
      const json* meta = Member(p, "metadata");
      const json* ann = meta ? Member(*meta, "annotations") : nullptr;
      if (ann && ann->contains("kubectl.kubernetes.io/default-container")) {
        container = (*ann)["kubectl.kubernetes.io/default-container"].get<std::string>();
      } else if (names.size() == 1) {
        container = names[0];
      } else {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : " ") + n;
        return SendError(w, {400, "BadRequest",
                             "a container name must be specified for pod " + r.name +
                                 ", choose one of: [" + list + "]",
                             json()});
      }
    }
    if (std::find(names.begin(), names.end(), container) == names.end()) {
      return SendError(w, {400, "BadRequest",
                           "container " + container + " is not valid for pod " + r.name,
                           json()});
    }
    // A container that has not started has no log yet.
    bool started = false;
    const json* status = Member(p, "status");
    if (const json* cs = status ? Member(*status, "containerStatuses") : nullptr;
        cs && cs->is_array()) {
      for (const json& c : *cs) {
        if (c.value("name", "") != container) continue;
        const json* st = Member(c, "state");
        started = st && (st->contains("running") || st->contains("terminated"));
        if (!started && st && st->contains("waiting")) {
          return SendError(w, {400, "BadRequest",
                               "container \"" + container + "\" in pod \"" + r.name +
                                   "\" is waiting to start: " +
                                   (*st)["waiting"].value("reason", "ContainerCreating"),
                               json()});
        }
      }
    }
    if (!started) {
      return SendError(w, {400, "BadRequest",
                           "container \"" + container + "\" in pod \"" + r.name +
                               "\" is waiting to start: ContainerCreating",
                           json()});
    }
    std::optional<int64_t> tail;
    if (req.HasQuery("tailLines")) {
      try {
        tail = std::stoll(req.Query("tailLines"));
      } catch (...) {
        return SendError(w, {400, "BadRequest", "invalid tailLines", json()});
      }
    }
    if (QueryBool(req, "follow")) {
      if (!w.StartStream(200, "text/plain")) return;
      logs_.Follow(r.ns, r.name, container, tail,
                   [&](std::string_view chunk) { return w.WriteChunk(chunk); },
                   [&] { return w.Closed(); });
      w.EndStream();
      return;
    }
    w.Send(200, "text/plain", logs_.Read(r.ns, r.name, container, tail));
    return;
  }

  if (r.subresource == "eviction" || r.subresource == "binding") {
    if (method != "POST") return SendError(w, MethodNotAllowed(method));
    auto body = ParseBody(req);
    if (!body.ok()) return fail(body.status());
    if (!body->is_object()) {
      return SendError(w, {400, "BadRequest", "the body of the request was not an object", json()});
    }
    if (r.subresource == "eviction") {
      if (auto e = DecodeTyped("policy/v1", "Eviction", *body)) return SendError(w, *e);
    } else if (auto e = VersionKindTypeError(*body)) {
      return SendError(w, *e);
    } else {
      std::string bad_request;
      const api::FieldErrors errors = ValidateBinding(*body, r.name, &bad_request);
      if (!bad_request.empty()) return SendError(w, {400, "BadRequest", bad_request, json()});
      if (!errors.empty()) {
        const std::string m = api::AggregateMessage(errors);
        return SendError(w, {500, "InternalError", "Internal error occurred: " + m,
                             {{"causes", json::array({{{"message", m}}})}}});
      }
    }
    auto pod = store_.Get(res, r.ns, r.name);
    if (!pod.ok()) return fail(pod.status());
    if (r.subresource == "binding") {
      const std::string node = Str(*body, "target", "name");
      auto up = store_.Update(
          res, r.ns, r.name,
          [&](const StoredObject* cur) -> StatusOr<json> {
            json next = cur->Parse();
            return AssignPod(std::move(next), *body, clock_.Now());
          },
          wopts);
      if (!up.ok()) return fail(up.status());
      return SendJson(w, 201,
                      {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()},
                       {"status", "Success"}, {"code", 201}});
    }
    // Eviction: the budgets that select the pod (eviction.h), then the pod is deleted as DELETE
    // deletes it, with the eviction's options.
    const json p = (*pod)->Parse();
    // A dry run is asked in the query or in the eviction's deleteOptions (propagateDryRun).
    const json* delete_options = Member(*body, "deleteOptions");
    ObjectStore::WriteOptions eopts = wopts;
    if (delete_options != nullptr && DryRunAll(*delete_options)) eopts.dry_run = true;
    bool only_if_unchanged = false;
    std::string budget;
    if (!EvictionIgnoresBudgets(p)) {
      EvictionVerdict v = CheckEvictionBudgets(store_, p, r.ns, eopts.dry_run, clock_.Now());
      if (!v.allowed) return SendError(w, {v.code, v.reason, v.message, v.details});
      only_if_unchanged = v.only_if_unchanged;
      budget = v.pdb_name;
    }
    const std::optional<std::string> rv =
        only_if_unchanged ? std::optional<std::string>(std::to_string((*pod)->resource_version))
                          : std::nullopt;
    // Deleted as DELETE deletes it, with the eviction's options (a precondition on the
    // resourceVersion read when the budget check needs the pod unchanged).
    DeleteOptions o = delete_options != nullptr && delete_options->is_object()
                          ? DeleteOptionsFromJson(*delete_options)
                          : DeleteOptions{};
    if (eopts.dry_run) o.dry_run = true;
    if (rv) o.precondition_resource_version = rv;
    const Status st = DeleteObject(store_, res, r.ns, r.name, o, clock_.Now(), eopts.origin).status();
    if (st.code() == StatusCode::kInvalidArgument) return SendError(w, InvalidDeleteOptions(st));
    if (only_if_unchanged && st.code() == StatusCode::kAborted) {
      // The unready pod changed since it was read (it may be Ready now): the client retries.
      EvictionVerdict v = TooManyRequestsVerdict(budget);
      return SendError(w, {v.code, v.reason, v.message, v.details});
    }
    if (!st.ok()) return fail(st);
    return SendJson(w, 201,
                    {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()},
                     {"status", "Success"}, {"code", 201}});
  }

  if (r.subresource == "scale") return HandleScale(r, w);

  // ---- collections
  if (r.name.empty()) {
    if (method == "GET") {
      auto filter = ParseFilter(req, res);
      if (!filter.ok()) return fail(filter.status());
      if (QueryBool(req, "watch")) {
        int64_t from = 0;
        const std::string rv = req.Query("resourceVersion");
        if (!rv.empty()) {
          try {
            from = std::stoll(rv);
          } catch (...) {
            return SendError(w, {400, "BadRequest", "invalid resource version: " + rv, json()});
          }
        }
        auto watch_or = store_.OpenWatch(&res, res.namespaced ? r.ns : "", from);
        const bool table = WantsTable(req);
        if (!w.StartStream(200, protobuf_out ? kProtobufWatchContentType : kJson)) return;
        // A protobuf event (encode.h, EncodeWatchEvent); an object that does not encode ends
        // the stream with an ERROR event, as the JSON framing cannot follow protobuf frames.
        auto protobuf_event = [&](std::string_view type, const json& object) -> std::string {
          auto frame = protobuf::EncodeWatchEvent(type, object);
          if (frame.ok()) return std::move(frame).value();
          const ApiError e{500, "InternalError",
                           "Internal error occurred: " + std::string(frame.status().message()),
                           json()};
          return protobuf::EncodeWatchEvent("ERROR", StatusJson(e)).value();
        };
        if (!watch_or.ok()) {
          const ApiError e = FromStatus(watch_or.status(), &res, "");
          w.WriteChunk(protobuf_out ? protobuf_event("ERROR", StatusJson(e))
                                    : json{{"type", "ERROR"}, {"object", StatusJson(e)}}.dump(
                                          -1, ' ', false, json::error_handler_t::replace) +
                                          "\n");
          w.EndStream();
          return;
        }
        std::unique_ptr<Watch> watch_stream = std::move(watch_or).value();
        std::optional<TimePoint> deadline;
        if (req.HasQuery("timeoutSeconds")) {
          deadline = clock_.Now() + std::chrono::seconds(std::atoll(req.Query("timeoutSeconds").c_str()));
        }
        const bool bookmarks = QueryBool(req, "allowWatchBookmarks");
        TimePoint next_bookmark = clock_.Now() + options_.bookmark_interval;
        bool headers_sent = false;
        int64_t last_rv = from;
        // Every event queued when the watcher wakes goes out in one chunk of at most about
        // kMaxWatchChunk bytes (one event may pass it): one write per wake-up, not per event,
        // and memory per watcher bounded however far behind it is.
        static constexpr size_t kMaxWatchChunk = 256 << 10;
        std::vector<EventPtr> batch;
        std::string chunk;
        bool peer_gone = false;
        bool failed = false;  // a protobuf event did not encode: the stream ends
        while (!failed) {
          batch.clear();
          const auto result =
              watch_stream->NextBatch(std::chrono::seconds(1), kMaxWatchChunk, &batch);
          if (result == Watch::Result::kClosed) break;
          const TimePoint now = clock_.Now();
          if (result == Watch::Result::kEvent) {
            chunk.clear();
            for (const EventPtr& ep : batch) {
              const WatchEvent& e = *ep;
              last_rv = std::max(last_rv, e.resource_version);
              std::string_view type = EventTypeName(e.type);
              if (!filter->Empty()) {
                const bool now_match = filter->Matches(e.object->view);
                const bool was_match = e.old_object && filter->Matches(e.old_object->view);
                if (e.type == EventType::kModified) {
                  if (now_match && !was_match) type = "ADDED";
                  else if (!now_match && was_match) type = "DELETED";
                  else if (!now_match) continue;
                } else if (!now_match) {
                  continue;
                }
              }
              if (protobuf_out) {
                json obj = json::parse(e.object->text, nullptr, /*allow_exceptions=*/false);
                if (obj.is_object()) {
                  if (!obj.contains("apiVersion")) obj["apiVersion"] = res.GroupVersion();
                  if (!obj.contains("kind")) obj["kind"] = res.kind;
                }
                auto frame = protobuf::EncodeWatchEvent(type, obj);
                if (!frame.ok()) {
                  chunk += protobuf_event(type, obj);  // the ERROR event
                  failed = true;
                  break;
                }
                chunk += *frame;
                if (chunk.size() >= kMaxWatchChunk) {
                  if (!w.WriteChunk(chunk)) {
                    peer_gone = true;
                    break;
                  }
                  chunk.clear();
                }
                continue;
              }
              chunk += "{\"type\":\"";
              chunk += type;
              chunk += "\",\"object\":";
              if (table) {
                chunk += printers::BuildTableText(
                    res.group, res.resource, {{&e.object->view, e.object->text}},
                    std::to_string(e.resource_version), now, IncludeObjectParam(req),
                    !headers_sent);
                headers_sent = true;
              } else {
                chunk += e.object->text;
              }
              chunk += "}\n";
              if (chunk.size() >= kMaxWatchChunk) {
                if (!w.WriteChunk(chunk)) {
                  peer_gone = true;
                  break;
                }
                chunk.clear();
              }
            }
            if (peer_gone || (!chunk.empty() && !w.WriteChunk(chunk))) break;
            continue;
          }
          if (w.Closed()) break;
          if (deadline && now >= *deadline) break;
          if (bookmarks && now >= next_bookmark) {
            next_bookmark = now + options_.bookmark_interval;
            json bm = {{"type", "BOOKMARK"},
                       {"object",
                        {{"kind", res.kind},
                         {"apiVersion", res.GroupVersion()},
                         {"metadata",
                          {{"resourceVersion", std::to_string(std::max(last_rv, store_.resource_version()))},
                           {"creationTimestamp", nullptr}}}}}};
            const std::string text =
                protobuf_out ? protobuf_event("BOOKMARK", bm["object"])
                             : bm.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
            if (!w.WriteChunk(text)) break;
          }
        }
        // A watcher the store closed for falling too far behind (watch_stream->error()) ends
        // as kube's cacher ends an unresponsive watcher: the stream just ends, and the client
        // watches again from the last revision it saw.
        w.EndStream();
        return;
      }
      // A list at an exact resourceVersion (resourceVersionMatch=Exact, or a limit with a
      // resourceVersion: kube's legacy exact reads) the history no longer covers is 410, as
      // kube-apiserver answers a revision etcd compacted.
      if (const std::string rv = req.Query("resourceVersion");
          !rv.empty() && rv != "0" &&
          (req.Query("resourceVersionMatch") == "Exact" ||
           (!req.Query("limit").empty() && req.Query("resourceVersionMatch").empty()))) {
        const int64_t at = std::atoll(rv.c_str());
        if (at > 0 && !store_.CheckHistory(res, at).ok()) {
          return SendError(w, {410, "Expired", "The resourceVersion for the provided list is too old.",
                               json()});
        }
      }
      const Filter f = *filter;
      auto list = store_.List(res, res.namespaced ? r.ns : "",
                              f.Empty() ? std::function<bool(const json&)>()
                                        : [&f](const json& o) { return f.Matches(o); });
      if (WantsTable(req)) {
        std::vector<printers::TableObject> objs;
        objs.reserve(list.items.size());
        for (const ObjectPtr& o : list.items) objs.push_back({&o->view, o->text});
        w.Send(200, kJson,
               printers::BuildTableText(res.group, res.resource, objs,
                                        std::to_string(list.resource_version), clock_.Now(),
                                        IncludeObjectParam(req), true));
        return;
      }
      if (protobuf_out) {
        if (std::optional<std::string> pb = ProtobufList(res, list.items, list.resource_version)) {
          return w.Send(200, kProtobufContentType, std::move(*pb));
        }
      }
      std::string body = "{\"kind\":\"" + res.list_kind + "\",\"apiVersion\":\"" +
                         res.GroupVersion() + "\",\"metadata\":{\"resourceVersion\":\"" +
                         std::to_string(list.resource_version) + "\"},\"items\":[";
      size_t total = body.size() + 2;
      for (const ObjectPtr& o : list.items) total += o->text.size() + 1;
      body.reserve(total);
      for (size_t i = 0; i < list.items.size(); ++i) {
        if (i > 0) body += ',';
        body += list.items[i]->text;
      }
      body += "]}";
      w.Send(200, kJson, std::move(body));
      return;
    }
    if (method == "POST") {
      std::vector<std::string> duplicates;
      auto body = ParseBody(req, &duplicates);
      if (!body.ok()) return fail(body.status());
      json obj = std::move(body).value();
      if (!obj.is_object()) {
        return SendError(w, {400, "BadRequest", "the body of the request was not an object", json()});
      }
      if (auto e = VersionKindTypeError(obj)) return SendError(w, *e);
      const std::string av = Str(obj, "apiVersion");
      const std::string kind = Str(obj, "kind");
      if (!av.empty() && av != res.GroupVersion()) {
        return SendError(w, {400, "BadRequest",
                             "the API version in the data (" + av +
                                 ") does not match the expected API version (" +
                                 res.GroupVersion() + ")",
                             json()});
      }
      if (!kind.empty() && kind != res.kind) {
        return SendError(w, {400, "BadRequest",
                             "the kind in the data (" + kind + ") does not match the expected kind (" +
                                 res.kind + ")",
                             json()});
      }
      // The typed decode (type errors first), then strict field validation, as the decoder does.
      if (auto e = DecodeTyped(res, obj)) return SendError(w, *e);
      const auto& schema = schema::Schema::Builtin();
      const FieldValidation fv = FieldValidationParam(req);
      if (fv == FieldValidation::kStrict) {
        auto unknown = schema.UnknownFields(res.GroupVersion(), res.kind, obj);
        if (!unknown.empty() || !duplicates.empty()) {
          return SendError(w, {400, "BadRequest",
                               schema::StrictDecodingMessage(res.GroupVersion(), res.kind, unknown,
                                                             duplicates),
                               json()});
        }
      } else {
        for (const std::string& f : schema.DropUnknownFields(res.GroupVersion(), res.kind, obj)) {
          if (fv == FieldValidation::kWarn) {
            r.warnings.push_back({"Warning", WarningHeader(schema::UnknownFieldMessage(f))});
          }
        }
        for (const std::string& f : duplicates) {
          if (fv == FieldValidation::kWarn) {
            r.warnings.push_back({"Warning", WarningHeader(schema::DuplicateFieldMessage(f))});
          }
        }
      }
      const std::string body_ns = Str(obj, "metadata", "namespace");
      std::string ns = r.ns;
      if (res.namespaced) {
        if (!body_ns.empty() && !ns.empty() && body_ns != ns) {
          return SendError(w, {400, "BadRequest",
                               "the namespace of the provided object does not match the "
                               "namespace sent on the request",
                               json()});
        }
        if (ns.empty()) ns = body_ns.empty() ? "default" : body_ns;
        obj["metadata"]["namespace"] = ns;
      }
      const std::string name = Str(obj, "metadata", "name");
      r.name = name;
      ApplyDefaults(res, obj);
      FillSystemFields(obj, store_.GenerateUid(), clock_.Now());
      PrepareForCreate(res, obj);
      api::FieldErrors errors;
      if (Status s = Validate(res, obj, nullptr, &errors); !s.ok()) return fail(s);
      if (!errors.empty()) return SendError(w, Invalid(res, name, errors), r.Headers());
      if (!namespace_exists(ns)) {
        const Resource* nsr = FindResource("", "v1", "namespaces");
        return SendError(w, {404, "NotFound", "namespaces \"" + ns + "\" not found",
                             Details(nsr, ns)});
      }
      obj["metadata"].erase("resourceVersion");
      std::string fields_v1;  // the new entry's FieldsV1, as text: no tree is built for it
      obj = patch::UpdateManagedFields(json(), std::move(obj), FieldManager(req), clock_.Now(),
                                       &fields_v1);
      if (TooLargeForStorage(obj, fields_v1.size())) {
        return SendError(w, EtcdRequestTooLarge(), r.Headers());
      }
      ObjectStore::WriteOptions create_opts = wopts;
      create_opts.fields_v1_text = fields_v1;
      auto created = store_.Create(res, std::move(obj), create_opts);
      if (!created.ok()) return fail(created.status());
      return send_object(201, *created);
    }
    if (method == "DELETE") {
      auto filter = ParseFilter(req, res);
      if (!filter.ok()) return fail(filter.status());
      DeleteOptions dopts;
      if (!req.body.empty()) {
        auto body = ParseBody(req);
        if (!body.ok()) return fail(body.status());
        if (body->is_object()) {
          if (auto e = DeleteOptionsTypeError(*body)) return SendError(w, *e);
          dopts = DeleteOptionsFromJson(*body);
        }
      }
      if (wopts.dry_run) dopts.dry_run = true;
      if (std::string invalid = ValidateDeleteOptions(dopts); !invalid.empty()) {
        return SendError(w, InvalidDeleteOptions(Status(StatusCode::kInvalidArgument, invalid)));
      }
      const Filter f = *filter;
      auto list = store_.List(res, res.namespaced ? r.ns : "",
                              f.Empty() ? std::function<bool(const json&)>()
                                        : [&f](const json& o) { return f.Matches(o); });
      std::string body = "{\"kind\":\"" + res.list_kind + "\",\"apiVersion\":\"" +
                         res.GroupVersion() + "\",\"metadata\":{},\"items\":[";
      bool first = true;
      for (const ObjectPtr& o : list.items) {
        // The registry's DeleteCollection: each item deleted as DELETE deletes it; an item gone
        // meanwhile is skipped, any other failure ends the request.
        auto d = DeleteObject(store_, res, Str(o->view, "metadata", "namespace"),
                              Str(o->view, "metadata", "name"), dopts, clock_.Now(), wopts.origin);
        if (!d.ok() && d.status().code() == StatusCode::kNotFound) continue;
        if (!d.ok()) return fail(d.status());
        if (!first) body += ',';
        first = false;
        body += d->object->text;
      }
      body += "]}";
      w.Send(200, kJson, std::move(body));
      return;
    }
    return SendError(w, MethodNotAllowed(method));
  }

  // ---- items
  if (method == "GET") {
    auto o = store_.Get(res, r.ns, r.name);
    if (!o.ok()) return fail(o.status());
    return send_object(200, *o);
  }

  if (method == "DELETE") {
    // DeleteOptions from the body, else from the query (delete.go).
    DeleteOptions opts;
    if (!req.body.empty()) {
      auto body = ParseBody(req);
      if (!body.ok()) return fail(body.status());
      if (body->is_object()) {
        if (auto e = DeleteOptionsTypeError(*body)) return SendError(w, *e);
        opts = DeleteOptionsFromJson(*body);
      }
    } else {
      if (req.HasQuery("gracePeriodSeconds")) {
        opts.grace_period_seconds = std::atoll(req.Query("gracePeriodSeconds").c_str());
      }
      if (req.HasQuery("propagationPolicy")) opts.propagation_policy = req.Query("propagationPolicy");
      if (req.HasQuery("orphanDependents")) opts.orphan_dependents = QueryBool(req, "orphanDependents");
    }
    if (wopts.dry_run) opts.dry_run = true;
    if (res.group.empty() && res.resource == "namespaces") {
      // The namespace controller's work, done at once: everything in it goes, then it.
      const ObjectStore::WriteOptions nopts{wopts.origin, opts.dry_run};
      for (const Resource& other : Resources()) {
        if (!other.namespaced) continue;
        for (const ObjectPtr& o : store_.List(other, r.name).items) {
          (void)store_.Delete(other, r.name, Str(o->view, "metadata", "name"), nopts);
        }
      }
      auto d = store_.Delete(res, r.ns, r.name, nopts, opts.precondition_uid,
                             opts.precondition_resource_version);
      if (!d.ok()) return fail(d.status());
      return send_text(200, (*d)->text, {});
    }
    auto d = DeleteObject(store_, res, r.ns, r.name, opts, clock_.Now(), wopts.origin);
    if (!d.ok() && d.status().code() == StatusCode::kInvalidArgument) {
      return SendError(w, InvalidDeleteOptions(d.status()));
    }
    if (!d.ok()) return fail(d.status());
    // 202 when the object stays and the request asked for cascading with orphanDependents=false
    // (delete.go: the only case kube tells apart, for its old clients).
    const int code =
        !d->deleted && opts.orphan_dependents.has_value() && !*opts.orphan_dependents ? 202 : 200;
    return send_text(code, d->object->text, {});
  }

  if (method == "PUT" || method == "PATCH") {
    std::vector<std::string> duplicates;
    auto body = ParseBody(req, &duplicates);
    if (!body.ok()) return fail(body.status());
    const std::string ct = req.Header("content-type");
    const FieldValidation fv = FieldValidationParam(req);
    const auto& schema = schema::Schema::Builtin();
    const std::string manager = FieldManager(req);
    const bool status_only = r.subresource == "status";
    const bool apply = method == "PATCH" && ct.find("application/apply-patch") == 0;
    json patch_body = std::move(body).value();
    std::string strict_error;  // set when strict validation refuses
    ApiError invalid_error;
    bool invalid = false;
    bool too_many_operations = false;
    if (method == "PUT") {
      // A PUT replaces an object: anything else is refused as a create's body is (the fuzzer
      // found a status PUT of an array reaching json::value()).
      if (!patch_body.is_object()) {
        return SendError(w, {400, "BadRequest", "the body of the request was not an object", json()});
      }
      if (auto e = DecodeTyped(res, patch_body)) return SendError(w, *e);
    }
    bool too_large = false;  // the result is over the storage limit
    // An object this request may create (server-side apply, PUT) gets its uid before the
    // store's lock (the generator takes it).
    const std::string create_uid = apply || method == "PUT" ? store_.GenerateUid() : "";
    std::vector<patch::ApplyConflict> conflicts;
    std::vector<std::string> warn_fields;
    const std::string ns_for_apply = res.namespaced ? r.ns : "";
    if (method == "PATCH" && !apply && ct.find("application/strategic-merge-patch+json") != 0 &&
        ct.find("application/merge-patch+json") != 0 && ct.find("application/json-patch+json") != 0) {
      return SendError(w, {415, "UnsupportedMediaType",
                           "the body of the request was in an unknown format - accepted media "
                           "types include: application/json-patch+json, "
                           "application/merge-patch+json, application/apply-patch+yaml, "
                           "application/strategic-merge-patch+json",
                           json()});
    }
    if (apply && req.Query("fieldManager").empty()) {
      return SendError(w, {400, "BadRequest", "fieldManager is required for apply requests", json()});
    }
    // structured-merge-diff's conversion of the apply configuration to its typed form.
    const std::string typed_patch_prefix =
        "failed to create typed patch object (" + (res.namespaced ? r.ns + "/" : std::string()) +
        r.name + "; " + (res.group.empty() ? "" : res.group) + "/" + res.version +
        ", Kind=" + res.kind + "): ";
    if (apply) {
      if (auto e = VersionKindTypeError(patch_body)) return SendError(w, *e);
      if (auto t = schema.FindTypeError(res.GroupVersion(), res.kind, patch_body)) {
        return SendError(w, {500, "", typed_patch_prefix + ApplyTypeMessage(*t), json()});
      }
    }
    if (apply && fv == FieldValidation::kStrict) {
      auto unknown = schema.UnknownFields(res.GroupVersion(), res.kind, patch_body);
      if (!unknown.empty()) {
        std::string msg = typed_patch_prefix;
        for (size_t i = 0; i < unknown.size(); ++i) {
          msg += (i ? ", " : "") + std::string(".") + unknown[i] + ": field not declared in schema";
        }
        return SendError(w, {500, "", msg, json()});
      }
    }
    auto result = store_.Update(
        res, r.ns, r.name,
        [&](const StoredObject* cur) -> StatusOr<json> {
          const json cur_value = cur ? cur->Parse() : json();
          json next;
          if (method == "PUT") {
            next = patch_body;
            if (status_only && cur) {
              json s = next.value("status", json());
              next = cur_value;
              next["status"] = s;
              next["metadata"]["resourceVersion"] = Str(patch_body, "metadata", "resourceVersion");
            }
          } else if (apply) {
            json applied = patch_body;
            if (fv != FieldValidation::kStrict) {
              warn_fields = schema.DropUnknownFields(res.GroupVersion(), res.kind, applied);
            }
            auto out = patch::ServerSideApply(cur_value, applied, manager,
                                              QueryBool(req, "force"), clock_.Now(),
                                              &conflicts);
            if (!out.ok()) return out.status();
            next = std::move(out).value();
            if (next.is_object()) schema.ZeroNulls(res.GroupVersion(), res.kind, next);
          } else {
            const json& target = cur_value;
            StatusOr<json> out = Status(StatusCode::kInternal, "unreachable");
            if (ct.find("application/strategic-merge-patch+json") == 0) {
              out = patch::StrategicMergePatch(target, patch_body, res.GroupVersion(), res.kind);
            } else if (ct.find("application/merge-patch+json") == 0) {
              out = patch::MergePatch(target, patch_body);
            } else if (patch_body.is_array() && patch_body.size() > kMaxJsonPatchOperations) {
              too_many_operations = true;
              return Status(StatusCode::kInvalidArgument, "too many JSON patch operations");
            } else {
              out = patch::JsonPatch(target, patch_body);
            }
            if (!out.ok()) return out.status();
            next = std::move(out).value();
            // The result is decoded into the kind's Go type: a value of the wrong type is a 422.
            if (auto e = next.is_object() ? VersionKindTypeError(next) : std::nullopt) {
              invalid = true;
              invalid_error = PatchInvalid(json_io::Dump(next), e->message);
              return Status(StatusCode::kInvalidArgument, invalid_error.message);
            }
            if (auto t = next.is_object()
                             ? schema.FindTypeError(res.GroupVersion(), res.kind, next)
                             : std::nullopt) {
              const bool smp = ct.find("application/strategic-merge-patch+json") == 0;
              invalid = true;
              invalid_error =
                  smp ? PatchInvalid(patch::internal::GoValue(patch_body), t->ConverterMessage())
                      : PatchInvalid(json_io::Dump(next), t->JsonMessage());
              return Status(StatusCode::kInvalidArgument, invalid_error.message);
            }
            if (next.is_object()) schema.ZeroNulls(res.GroupVersion(), res.kind, next);
            if (status_only) {
              // A patch whose result is not an object is refused below, as any other; the
              // status path must not read it first (the fuzzer's second PATCH crash).
              if (!next.is_object()) {
                return Status(StatusCode::kInvalidArgument,
                              "the body of the request was not an object");
              }
              json s = next.value("status", json());
              next = target;
              next["status"] = s;
            }
            // A patch that does not name a resourceVersion does not have a precondition.
            const bool patch_has_rv =
                patch_body.is_object()
                    ? !Str(patch_body, "metadata", "resourceVersion").empty()
                    : patch_body.dump(-1, ' ', false, json::error_handler_t::replace).find("/metadata/resourceVersion") != std::string::npos;
            if (!patch_has_rv && next.contains("metadata")) next["metadata"].erase("resourceVersion");
          }
          if (!next.is_object()) {
            return Status(StatusCode::kInvalidArgument, "the body of the request was not an object");
          }
          if (!apply) {
            if (fv == FieldValidation::kStrict) {
              auto unknown = schema.UnknownFields(res.GroupVersion(), res.kind, next);
              if (!unknown.empty() || !duplicates.empty()) {
                strict_error = schema::StrictDecodingMessage(res.GroupVersion(), res.kind,
                                                             unknown, duplicates);
                return Status(StatusCode::kInvalidArgument, strict_error);
              }
            } else {
              warn_fields = schema.DropUnknownFields(res.GroupVersion(), res.kind, next);
            }
          }
          ApplyDefaults(res, next);  // every decoded body is defaulted, updates too
          if (cur == nullptr) {
            FillSystemFields(next, create_uid, clock_.Now());
            PrepareForCreate(res, next);
          }
          api::FieldErrors errors;
          TIDEPOOL_RETURN_IF_ERROR(Validate(res, next, cur ? &cur_value : nullptr, &errors));
          if (!errors.empty()) {
            invalid = true;
            invalid_error = Invalid(res, r.name, errors);
            return Status(StatusCode::kInvalidArgument, invalid_error.message);
          }
          if (!apply) {
            next = patch::UpdateManagedFields(cur_value, std::move(next), manager,
                                              clock_.Now());
          }
          if (res.namespaced && !Str(next, "metadata", "namespace").empty() &&
              Str(next, "metadata", "namespace") != ns_for_apply) {
            return Status(StatusCode::kInvalidArgument,
                          "the namespace of the provided object does not match the namespace "
                          "sent on the request");
          }
          if (TooLargeForStorage(next, 0)) {
            too_large = true;
            return Status(StatusCode::kResourceExhausted, "etcdserver: request is too large");
          }
          return next;
        },
        wopts, /*allow_create=*/apply);
    if (fv == FieldValidation::kWarn) {
      for (const std::string& f : warn_fields) {
        r.warnings.push_back({"Warning", WarningHeader(schema::UnknownFieldMessage(f))});
      }
      for (const std::string& f : duplicates) {
        r.warnings.push_back({"Warning", WarningHeader(schema::DuplicateFieldMessage(f))});
      }
    }
    if (!result.ok()) {
      if (too_many_operations) {
        return SendError(w, {413, "RequestEntityTooLarge",
                             "Request entity too large: The allowed maximum operations in a JSON "
                             "patch is " + std::to_string(kMaxJsonPatchOperations) + ", got " +
                                 std::to_string(patch_body.size()),
                             json()});
      }
      if (invalid) return SendError(w, invalid_error, r.Headers());
      if (too_large) return SendError(w, EtcdRequestTooLarge(), r.Headers());
      if (!strict_error.empty()) {
        if (method == "PUT") return SendError(w, {400, "BadRequest", strict_error, json()});
        // kube-apiserver: a patch that fails strict decoding is a 422 on field "patch" whose
        // value is Go's %+v rendering of the patch map.
        const std::string detail =
            "Invalid value: " + patch::internal::GoQuote(patch::internal::GoValue(patch_body)) +
            ": " + strict_error.substr(strict_error.find("strict decoding error"));
        ApiError e{422, "Invalid", " \"\" is invalid: patch: " + detail,
                   json{{"causes", json::array({{{"reason", "FieldValueInvalid"},
                                                 {"message", detail},
                                                 {"field", "patch"}}})}}};
        return SendError(w, e, r.Headers());
      }
      if (result.status().code() == StatusCode::kAborted && !conflicts.empty()) {
        json causes = json::array();
        for (const auto& c : conflicts) {
          causes.push_back({{"reason", "FieldManagerConflict"}, {"message", c.message}, {"field", c.field}});
        }
        return SendError(w, {409, "Conflict", std::string(result.status().message()),
                             json{{"causes", causes}}});
      }
      if (result.status().code() == StatusCode::kInvalidArgument) {
        return SendError(w, {apply ? 500 : 422, apply ? "" : "Invalid",
                             std::string(result.status().message()), json()},
                         r.Headers());
      }
      return fail(result.status());
    }
    return send_text(result->created ? 201 : 200, result->object->text, r.Headers());
  }
  SendError(w, MethodNotAllowed(method));
}

// ---- The scale subresource ------------------------------------------------------------------------

void ApiServer::HandleScale(Request& r, ResponseWriter& w) {
  const HttpRequest& req = *r.http;
  const Resource& res = *r.resource;
  const std::string& method = req.method;
  auto fail = [&](const Status& s) { SendError(w, FromStatus(s, &res, r.name), r.Headers()); };
  // A ReplicationController's selector is a label map, the apps kinds' a LabelSelector.
  const ScaleSelector selector =
      res.group.empty() ? ScaleSelector::kLabelMap : ScaleSelector::kLabelSelector;
  if (method == "GET") {
    auto o = store_.Get(res, r.ns, r.name);
    if (!o.ok()) return fail(o.status());
    return SendJson(w, 200, ScaleOf((*o)->Parse(), selector), r.Headers());
  }
  if (method != "PUT" && method != "PATCH") return SendError(w, MethodNotAllowed(method));
  auto body = ParseBody(req);
  if (!body.ok()) return fail(body.status());
  const std::string ct = req.Header("content-type");
  const bool merge = ct.find("application/merge-patch+json") == 0 ||
                     ct.find("application/strategic-merge-patch+json") == 0;
  const bool json_patch = ct.find("application/json-patch+json") == 0;
  if (method == "PATCH" && !merge && !json_patch) {
    // Server-side apply of a Scale is not served.
    return SendError(w, {415, "UnsupportedMediaType",
                         "the body of the request was in an unknown format - accepted media "
                         "types include: application/json-patch+json, "
                         "application/merge-patch+json, application/strategic-merge-patch+json",
                         json()});
  }
  if (method == "PUT") {
    if (!body->is_object()) {
      return SendError(w, {400, "BadRequest", "the body of the request was not an object", json()});
    }
    if (auto e = VersionKindTypeError(*body)) return SendError(w, *e);
  }
  const ObjectStore::WriteOptions wopts{"api", req.Query("dryRun") == "All"};
  const std::string manager = FieldManager(req);
  std::optional<ApiError> refused;  // set when the mutation refuses with kube's answer
  auto up = store_.Update(
      res, r.ns, r.name,
      [&](const StoredObject* cur) -> StatusOr<json> {
        const json current = cur->Parse();
        json scale = *body;
        if (method == "PATCH") {
          // A Scale has no lists: a strategic merge patch is a merge patch.
          auto patched = merge ? patch::MergePatch(ScaleOf(current, selector), *body)
                               : patch::JsonPatch(ScaleOf(current, selector), *body);
          if (!patched.ok()) return patched.status();
          scale = std::move(patched).value();
        }
        if (!scale.is_object()) {
          return Status(StatusCode::kInvalidArgument, "the body of the request was not an object");
        }
        std::string decode_error;
        api::FieldErrors errors;
        const int32_t replicas = ScaleReplicas(scale, &decode_error, &errors);
        if (!decode_error.empty()) {
          refused = ApiError{400, "BadRequest", decode_error, json()};
          return Status(StatusCode::kInvalidArgument, decode_error);
        }
        if (!errors.empty()) {
          ApiError e;
          e.code = 422;
          e.reason = "Invalid";
          e.message = "Scale.autoscaling \"" + r.name + "\" is invalid: " +
                      api::AggregateMessage(errors);
          json causes = json::array();
          for (const api::FieldError& f : errors) {
            std::string full = f.ToString();
            full = full.substr(std::min(full.size(), f.field.size() + 2));
            causes.push_back(
                {{"reason", CauseReason(f.type)}, {"message", full}, {"field", f.field}});
          }
          e.details = {{"name", r.name}, {"group", "autoscaling"}, {"kind", "Scale"},
                       {"causes", causes}};
          refused = e;
          return Status(StatusCode::kInvalidArgument, e.message);
        }
        json next = current;
        next["spec"]["replicas"] = replicas;
        // The Scale's resourceVersion, when set, is a precondition on the object.
        next["metadata"]["resourceVersion"] = Str(scale, "metadata", "resourceVersion");
        ApplyDefaults(res, next);
        api::FieldErrors object_errors;
        TIDEPOOL_RETURN_IF_ERROR(Validate(res, next, &current, &object_errors));
        if (!object_errors.empty()) {
          refused = Invalid(res, r.name, object_errors);
          return Status(StatusCode::kInvalidArgument, refused->message);
        }
        return patch::UpdateManagedFields(current, std::move(next), manager, clock_.Now());
      },
      wopts);
  if (refused) return SendError(w, *refused, r.Headers());
  if (!up.ok()) return fail(up.status());
  SendJson(w, 200, ScaleOf(up->object->Parse(), selector), r.Headers());
}

}  // namespace tidepool::apiserver
