#include <algorithm>
#include <functional>

#include "api/codec/yaml.h"
#include "apiserver/conversion.h"
#include "apiserver/crd/registry.h"
#include "apiserver/crd/strategy.h"
#include "apiserver/handlers/handler.h"
#include "apiserver/json_io.h"
#include "apiserver/negotiation.h"
#include "apiserver/protobuf/decode.h"
#include "apiserver/protobuf/encode.h"
#include "apiserver/schema/schema.h"
#include "apiserver/validation/fields.h"

namespace tidepool::apiserver::handlers {

using http::HttpRequest;
using http::ResponseWriter;
using nlohmann::json;

// ---- Status responses ---------------------------------------------------------------------------

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

void SendError(ResponseWriter& w, const ApiError& e, const HeaderList& headers) {
  w.Send(e.code, kJson, StatusJson(e).dump(-1, ' ', false, json::error_handler_t::replace),
         headers);
}

void SendJson(ResponseWriter& w, int code, const json& j, const HeaderList& headers) {
  w.Send(code, kJson, j.dump(-1, ' ', false, json::error_handler_t::replace), headers);
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
  // errors.NewInvalid: the qualified kind (GroupKind.String(): "Pod", "Deployment.apps").
  const std::string qualified = r.group.empty() ? r.kind : r.kind + "." + r.group;
  e.message =
      qualified + " \"" + std::string(name) + "\" is invalid: " + api::AggregateMessage(errors);
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

ApiError EtcdRequestTooLarge() { return {500, "", "etcdserver: request is too large", json()}; }

bool TooLargeForStorage(const json& obj, size_t extra) {
  constexpr size_t kEtcdMaxRequestBytes = 1536 * 1024;
  return validation::EncodedSizeOver(obj,
                                     kEtcdMaxRequestBytes - std::min(extra, kEtcdMaxRequestBytes));
}

ApiError MethodNotAllowed(const std::string& method) {
  return {405, "MethodNotAllowed",
          "the server does not allow this method on the requested resource", json()};
}

ApiError NotAnObject() {
  return {400, "BadRequest", "the body of the request was not an object", json()};
}

ApiError InvalidDeleteOptions(const Status& s) {
  const std::string msg(s.message());
  json causes = json::array();
  const std::string prefix = "DeleteOptions.meta.k8s.io \"\" is invalid: ";
  std::string rest = msg.compare(0, prefix.size(), prefix) == 0 ? msg.substr(prefix.size()) : msg;
  if (rest.size() > 2 && rest.front() == '[' && rest.back() == ']')
    rest = rest.substr(1, rest.size() - 2);
  size_t start = 0;
  while (start < rest.size()) {
    // Each error starts with ": Invalid value: " (the field path is empty).
    size_t next = rest.find(", : Invalid value: ", start);
    std::string one =
        rest.substr(start, next == std::string::npos ? std::string::npos : next - start);
    if (one.compare(0, 2, ": ") == 0) one = one.substr(2);
    causes.push_back({{"reason", "FieldValueInvalid"}, {"message", one}, {"field", ""}});
    if (next == std::string::npos) break;
    start = next + 2;
  }
  return {422, "Invalid", msg,
          json{{"group", "meta.k8s.io"}, {"kind", "DeleteOptions"}, {"causes", causes}}};
}

std::string WarningHeader(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "299 - \"" + escaped + "\"";
}

void WarnFields(ApiServer::Request& r, const std::vector<std::string>& unknown,
                const std::vector<std::string>& duplicates) {
  for (const std::string& f : unknown) {
    r.warnings.push_back({"Warning", WarningHeader(schema::UnknownFieldMessage(f))});
  }
  for (const std::string& f : duplicates) {
    r.warnings.push_back({"Warning", WarningHeader(schema::DuplicateFieldMessage(f))});
  }
}

// ---- Query parameters ---------------------------------------------------------------------------

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

printers::IncludeObject IncludeObjectParam(const HttpRequest& req) {
  const std::string v = req.Query("includeObject", "Metadata");
  if (v == "Object") return printers::IncludeObject::kObject;
  if (v == "None") return printers::IncludeObject::kNone;
  return printers::IncludeObject::kMetadata;
}

FieldValidation FieldValidationParam(const HttpRequest& req) {
  const std::string v = req.Query("fieldValidation");
  if (v == "Strict") return FieldValidation::kStrict;
  if (v == "Ignore") return FieldValidation::kIgnore;
  return FieldValidation::kWarn;
}

// ---- Request bodies -----------------------------------------------------------------------------

StatusOr<json> ParseBody(const HttpRequest& req, std::vector<std::string>* duplicate_paths) {
  const std::string ct = req.Header("content-type");
  if (ct.find("application/vnd.kubernetes.protobuf") == 0) {
    return protobuf::DecodeObject(req.body);
  }
  if (ct.find("yaml") != std::string::npos) {
    auto docs = api::codec::ParseYamlDocuments(req.body);
    if (!docs.ok()) {
      return Status(StatusCode::kInvalidArgument,
                    "error decoding YAML: " + std::string(docs.status().message()));
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
    return Status(StatusCode::kInvalidArgument,
                  "couldn't get version/kind; json parse error: " + why);
  }
  return j;
}

ApiError UnrecognizedBody(const Resource& r, const Status& why, std::string_view body) {
  constexpr size_t kSummary = 30;  // summarizeData's maxLength
  std::string summary;
  if (body.empty()) {
    summary = "<empty>";
  } else if (body.front() == '{') {
    summary = std::string(body.substr(0, kSummary));
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char ch : body.substr(0, kSummary)) {
      summary += kHex[ch >> 4];
      summary += kHex[ch & 15];
    }
  }
  if (body.size() > kSummary) summary += " ...";
  return {400, "BadRequest",
          "the object provided is unrecognized (must be of type " + r.kind +
              "): " + std::string(why.message()) + " (" + summary + ")",
          json()};
}

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

std::optional<ApiError> DecodeTyped(std::string_view api_version, std::string_view kind,
                                    json& obj) {
  if (auto e = VersionKindTypeError(obj)) return e;
  const auto& schema = schema::Schema::Builtin();
  if (auto t = schema.FindTypeError(api_version, kind, obj)) {
    return ApiError{400, "BadRequest",
                    schema::CannotBeHandledMessage(api_version, kind, t->JsonMessage()), json()};
  }
  schema.AsDecoded(api_version, kind, obj);
  return std::nullopt;
}
std::optional<ApiError> DecodeTyped(const Resource& res, json& obj) {
  return DecodeTyped(res.GroupVersion(), res.kind, obj);
}

void FillSystemFields(json& obj, std::string uid, TimePoint now) {
  json& meta = obj["metadata"];
  meta["uid"] = std::move(uid);
  meta["creationTimestamp"] = FormatRfc3339(now);
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
}

std::vector<std::string> UnknownFieldsOf(const Resource& res, const json& obj) {
  if (res.custom != nullptr) return crd::UnknownFields(res, obj);
  return schema::Schema::Builtin().UnknownFields(res.GroupVersion(), res.kind, obj);
}

std::vector<std::string> DropUnknownFieldsOf(const Resource& res, json& obj) {
  if (res.custom != nullptr) return crd::Prune(res, obj);
  return schema::Schema::Builtin().DropUnknownFields(res.GroupVersion(), res.kind, obj);
}

std::string TableText(const Resource& res, const std::vector<printers::TableObject>& objects,
                      std::string_view resource_version, TimePoint now,
                      printers::IncludeObject include, bool with_headers,
                      std::string_view continue_token, std::optional<int64_t> remaining_items) {
  if (res.custom != nullptr) {
    return printers::BuildTableText(res.custom->printer, objects, resource_version, now, include,
                                    with_headers, continue_token, remaining_items);
  }
  return printers::BuildTableText(res.group, res.resource, objects, resource_version, now, include,
                                  with_headers, continue_token, remaining_items);
}

// ---- Selectors ----------------------------------------------------------------------------------

StatusOr<Filter> ParseFilter(const HttpRequest& req, const Resource& r) {
  return ObjectFilter::Parse(r, req.Query("labelSelector"), req.Query("fieldSelector"));
}

ObjectStore::ListResult ListMatching(const ObjectStore& store, const Resource& res,
                                     std::string_view ns, const Filter& filter) {
  return store.List(
      res, ns, filter.Empty() ? std::function<bool(const json&)>() : [&filter](const json& o) {
        return filter.Matches(o);
      });
}

// ---- One request --------------------------------------------------------------------------------

namespace {

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

}  // namespace

Context::Context(const Clock& clock, ObjectStore& store, PodLogs& logs, crd::Registry& crds,
                 const ApiServerOptions& options, ApiServer::Request& r, ResponseWriter& w)
    : clock(clock),
      store(store),
      crds(crds),
      logs(logs),
      options(options),
      r(r),
      req(*r.http),
      res(*r.resource),
      w(w),
      method(req.method),
      wopts{"api", req.Query("dryRun") == "All"},
      protobuf_out(!WantsTable(req) &&
                   NegotiateResponse(req.Header("accept")) == ResponseEncoding::kProtobuf &&
                   protobuf::FindKind(res.GroupVersion(), res.kind) != nullptr) {}

void Context::SendText(int code, std::string_view text, const HeaderList& headers) {
  if (conversion::Converts(res)) {  // stored in another version: answered in the request's
    const std::string served = conversion::FromStorageText(res, text);
    if (protobuf_out) {
      if (std::optional<std::string> pb = ProtobufOf(served, res)) {
        return w.Send(code, kProtobufContentType, std::move(*pb), headers);
      }
    }
    return w.Send(code, kJson, served, headers);
  }
  if (protobuf_out) {
    if (std::optional<std::string> pb = ProtobufOf(text, res)) {
      return w.Send(code, kProtobufContentType, std::move(*pb), headers);
    }
  }
  w.SendView(code, kJson, text, headers);
}

void Context::SendObject(int code, const ObjectPtr& o) {
  if (WantsTable(req) && method == "GET") {
    // A row's object (includeObject=Object) is in the request's version.
    const std::string served =
        conversion::Converts(res) ? conversion::FromStorageText(res, o->text) : std::string();
    w.Send(
        code, kJson,
        TableText(res, {{&o->view, served.empty() ? std::string_view(o->text) : served}},
                  std::to_string(o->resource_version), clock.Now(), IncludeObjectParam(req), true),
        r.Headers());
  } else {
    SendText(code, o->text, r.Headers());  // `o` outlives the call: no copy
  }
}

void Context::Fail(const Status& s) { SendError(w, FromStatus(s, &res, r.name), r.Headers()); }

std::optional<ApiError> Context::NamespaceRefusal(const std::string& ns,
                                                  const std::string& name) const {
  if (!res.namespaced || ns.empty()) return std::nullopt;
  const Resource* nsr = FindResource("", "v1", "namespaces");
  auto got = store.Get(*nsr, "", ns);  // one read for both rules
  if (!got.ok()) {
    return ApiError{404, "NotFound", "namespaces \"" + ns + "\" not found", Details(nsr, ns)};
  }
  if (Str((*got)->view, "status", "phase") != "Terminating") return std::nullopt;
  json details = Details(&res, name);
  details["causes"] = json::array({{{"reason", "NamespaceTerminating"},
                                    {"message", "namespace " + ns + " is being terminated"},
                                    {"field", "metadata.namespace"}}});
  return ApiError{403, "Forbidden",
                  ObjectStore::Qualified(res, name) +
                      " is forbidden: unable to create new content in namespace " + ns +
                      " because it is being terminated",
                  details};
}

}  // namespace tidepool::apiserver::handlers
