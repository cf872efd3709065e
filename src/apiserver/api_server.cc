#include "apiserver/api_server.h"

#include <vector>

#include "api/codec/json_codec.h"
#include "apiserver/admission.h"
#include "apiserver/deletion.h"
#include "apiserver/discovery.h"
#include "apiserver/handlers/handler.h"
#include "apiserver/json_io.h"
#include "apiserver/negotiation.h"
#include "apiserver/patch/go_format.h"
#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/server_side_apply.h"
#include "apiserver/patch/strategic_merge_patch.h"
#include "apiserver/protobuf/encode.h"
#include "apiserver/schema/schema.h"

namespace tidepool::apiserver {

using namespace handlers;  // NOLINT: until every verb has its handler
using http::HttpRequest;
using http::ResponseWriter;
using nlohmann::json;

namespace {

ApiError NotFoundPath(std::string_view path) {
  (void)path;
  return {404, "NotFound", "the server could not find the requested resource",
          json{{"causes", json::array({{{"reason", "UnexpectedServerResponse"},
                                        {"message", "404 page not found"}}})}}};
}

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

// kube-apiserver's maxJSONPatchOperations: a longer JSON patch is a 413.
constexpr size_t kMaxJsonPatchOperations = 10000;

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

}  // namespace

ApiServer::ApiServer(const Clock& clock, ObjectStore& store, PodLogs& logs,
                     ApiServerOptions options)
    : clock_(clock), store_(store), logs_(logs), options_(std::move(options)) {}

ApiServer::~ApiServer() = default;

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

void ApiServer::HandleResource(Request& r, ResponseWriter& w) {
  handlers::Context c(clock_, store_, logs_, options_, r, w);
  const HttpRequest& req = c.req;
  const Resource& res = c.res;
  const std::string& method = c.method;
  const ObjectStore::WriteOptions& wopts = c.wopts;
  auto send_text = [&](int code, std::string_view text, const HeaderList& headers) {
    c.SendText(code, text, headers);
  };
  auto fail = [&](const Status& s) { c.Fail(s); };

  // ---- subresources
  if (r.subresource == "log") return handlers::HandleLog(c);
  if (r.subresource == "eviction") return handlers::HandleEviction(c);
  if (r.subresource == "binding") return handlers::HandleBinding(c);
  if (r.subresource == "scale") return handlers::HandleScale(c);
  // ---- collections
  if (r.name.empty()) {
    if (method == "GET") {
      return QueryBool(req, "watch") ? handlers::HandleWatch(c) : handlers::HandleList(c);
    }
    if (method == "POST") return handlers::HandleCreate(c);
    if (method == "DELETE") return handlers::HandleDeleteCollection(c);
    return SendError(w, MethodNotAllowed(method));
  }

  // ---- items
  if (method == "GET") return handlers::HandleGet(c);

  if (method == "DELETE") return handlers::HandleDelete(c);

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

}  // namespace tidepool::apiserver
