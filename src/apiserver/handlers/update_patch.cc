#include "apiserver/admission.h"
#include "apiserver/conversion.h"
#include "apiserver/handlers/handler.h"
#include "apiserver/json_io.h"
#include "apiserver/patch/go_format.h"
#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/server_side_apply.h"
#include "apiserver/patch/strategic_merge_patch.h"
#include "apiserver/schema/schema.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

// kube-apiserver's maxJSONPatchOperations: a longer JSON patch is a 413.
constexpr size_t kMaxJsonPatchOperations = 10000;

constexpr char kStrategicMergePatch[] = "application/strategic-merge-patch+json";
constexpr char kMergePatch[] = "application/merge-patch+json";
constexpr char kJsonPatch[] = "application/json-patch+json";

// kube's refusal of a patch whose result does not decode: 422 on the field "patch", whose
// value is the patch (%+v of the patch map for a strategic merge patch, the patched object's
// JSON for a merge or JSON patch).
ApiError PatchInvalid(const std::string& value_text, const std::string& error) {
  const std::string detail =
      "Invalid value: " + patch::internal::GoQuote(value_text) + ": " + error;
  return {
      422, "Invalid", " \"\" is invalid: patch: " + detail,
      json{{"causes",
            json::array(
                {{{"reason", "FieldValueInvalid"}, {"message", detail}, {"field", "patch"}}})}}};
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

// One PUT or PATCH: what the request asks, and what the store's mutation found out.
struct Write {
  std::vector<std::string> duplicates;  // the body's repeated keys
  std::string ct;                       // Content-Type
  FieldValidation fv = FieldValidation::kWarn;
  std::string manager;
  bool put = false;
  bool status_only = false;  // the status subresource
  bool apply = false;        // server-side apply
  json patch_body;           // the object (PUT) or the patch
  // An object this request may create (server-side apply, PUT) gets its uid before the
  // store's lock (the generator takes it).
  std::string create_uid;
  std::string ns_for_apply;
  // Read before the store's lock for the Priority admission plugin (handler.h).
  std::vector<ObjectPtr> priority_classes;
  std::string default_storage_class;  // DefaultStorageClassName's, for a create by apply
  // ... and for the ServiceAccount plugin, when an apply may create a pod.
  PodServiceAccount service_account;

  std::string strict_error;  // set when strict validation refuses
  ApiError invalid_error;    // the answer when admission or validation refuses (Refuse)
  bool invalid = false;
  bool too_many_operations = false;
  bool too_large = false;  // the result is over the storage limit
  std::vector<patch::ApplyConflict> conflicts;
  std::vector<std::string> warn_fields;
};

// Reads the request into `u`; false when it was answered (a body that does not parse, or a PUT
// of anything but an object of the kind).
bool ReadWrite(Context& c, Write& u) {
  auto body = ParseBody(c.req, &u.duplicates);
  if (!body.ok()) {
    if (c.method == "PUT") {
      SendError(c.w, UnrecognizedBody(c.res, body.status(), c.req.body));
    } else {
      c.Fail(body.status());
    }
    return false;
  }
  u.ct = c.req.Header("content-type");
  u.fv = FieldValidationParam(c.req);
  u.manager = FieldManager(c.req);
  u.put = c.method == "PUT";
  // A CertificateSigningRequest's approval is written as its status is (csr.h keeps the rest).
  u.status_only = patch::IsStatusSubresource(c.r.subresource);
  u.apply = c.method == "PATCH" && u.ct.find("application/apply-patch") == 0;
  // A pod's admission needs the classes only when the write may create it (an apply).
  const Resource& sres = StorageOf(c.res);
  if (u.apply || !(sres.group.empty() && sres.resource == "pods")) {
    u.priority_classes = PriorityClasses(c.store, c.res, c.r.subresource);
  }
  if (u.apply) u.default_storage_class = DefaultStorageClassName(c.store, sres);
  u.patch_body = std::move(body).value();
  if (u.apply && sres.group.empty() && sres.resource == "pods" && sres.namespaced) {
    u.service_account =
        ReadPodServiceAccount(c.store, c.res, c.r.subresource, u.patch_body, c.r.ns);
  }
  if (u.put) {
    // A PUT replaces an object: anything else is refused as a create's body is (the fuzzer
    // found a status PUT of an array reaching json::value()).
    std::optional<ApiError> e =
        u.patch_body.is_object() ? DecodeTyped(c.res, u.patch_body) : NotAnObject();
    if (e) {
      SendError(c.w, *e);
      return false;
    }
  }
  u.create_uid = u.apply || u.put ? c.store.GenerateUid() : "";
  u.ns_for_apply = c.res.namespaced ? c.r.ns : "";
  return true;
}

// A PATCH's refusals before the store is asked: a patch type not served (415); an apply without
// fieldManager, or whose configuration does not convert to its typed form (a value of the wrong
// type; with fieldValidation=Strict, an unknown field).
std::optional<ApiError> CheckPatch(const Context& c, const Write& u) {
  const Resource& res = c.res;
  if (c.method == "PATCH" && res.custom != nullptr && u.ct.find(kStrategicMergePatch) == 0) {
    // Custom resources have no Go struct to merge strategically by.
    return ApiError{415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media "
                    "types include: application/json-patch+json, "
                    "application/merge-patch+json, application/apply-patch+yaml",
                    json()};
  }
  if (c.method == "PATCH" && !u.apply && u.ct.find(kStrategicMergePatch) != 0 &&
      u.ct.find(kMergePatch) != 0 && u.ct.find(kJsonPatch) != 0) {
    return ApiError{415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media "
                    "types include: application/json-patch+json, "
                    "application/merge-patch+json, application/apply-patch+yaml, "
                    "application/strategic-merge-patch+json",
                    json()};
  }
  if (!u.apply) return std::nullopt;
  if (c.req.Query("fieldManager").empty()) {
    return ApiError{400, "BadRequest", "fieldManager is required for apply requests", json()};
  }
  // structured-merge-diff's conversion of the apply configuration to its typed form.
  const std::string typed_patch_prefix = "failed to create typed patch object (" +
                                         (res.namespaced ? c.r.ns + "/" : std::string()) +
                                         c.r.name + "; " + (res.group.empty() ? "" : res.group) +
                                         "/" + res.version + ", Kind=" + res.kind + "): ";
  if (auto e = VersionKindTypeError(u.patch_body)) return e;
  const auto& schema = schema::Schema::Builtin();
  if (auto t = schema.FindTypeError(res.GroupVersion(), res.kind, u.patch_body)) {
    return ApiError{500, "", typed_patch_prefix + ApplyTypeMessage(*t), json()};
  }
  if (u.fv == FieldValidation::kStrict) {
    auto unknown = UnknownFieldsOf(res, u.patch_body);
    if (!unknown.empty()) {
      std::string msg = typed_patch_prefix;
      for (size_t i = 0; i < unknown.size(); ++i) {
        msg += (i ? ", " : "") + std::string(".") + unknown[i] + ": field not declared in schema";
      }
      return ApiError{500, "", msg, json()};
    }
  }
  return std::nullopt;
}

// A PUT's new object: the body; of the status subresource, the current object with the body's
// status (and the body's resourceVersion as the precondition).
json Replaced(const Write& u, const StoredObject* cur, const json& cur_value) {
  json next = u.patch_body;
  if (u.status_only && cur) {
    json s = next.value("status", json());
    next = cur_value;
    next["status"] = s;
    next["metadata"]["resourceVersion"] = Str(u.patch_body, "metadata", "resourceVersion");
  }
  return next;
}

// Server-side apply's new object (patch/server_side_apply.h); unknown fields are dropped unless
// fieldValidation=Strict refused them before.
StatusOr<json> Applied(const Context& c, Write& u, const json& cur_value) {
  const Resource& res = c.res;
  const auto& schema = schema::Schema::Builtin();
  json applied = u.patch_body;
  if (u.fv != FieldValidation::kStrict) {
    u.warn_fields = DropUnknownFieldsOf(res, applied);
  }
  auto out = patch::ServerSideApply(cur_value, applied, u.manager, QueryBool(c.req, "force"),
                                    c.clock.Now(), &u.conflicts, c.r.subresource);
  if (!out.ok()) return out.status();
  json next = std::move(out).value();
  if (next.is_object()) schema.AsDecoded(res.GroupVersion(), res.kind, next);
  return next;
}

// The patched object's decode into the kind's Go type: a value of the wrong type is a 422.
std::optional<ApiError> PatchedTypeError(const Resource& res, const Write& u, const json& next) {
  if (!next.is_object()) return std::nullopt;
  if (auto e = VersionKindTypeError(next)) return PatchInvalid(json_io::Dump(next), e->message);
  if (auto t = schema::Schema::Builtin().FindTypeError(res.GroupVersion(), res.kind, next)) {
    const bool smp = u.ct.find(kStrategicMergePatch) == 0;
    return smp ? PatchInvalid(patch::internal::GoValue(u.patch_body), t->ConverterMessage())
               : PatchInvalid(json_io::Dump(next), t->JsonMessage());
  }
  return std::nullopt;
}

// A strategic merge, JSON merge or JSON patch's new object from the current one (`target`).
StatusOr<json> Patched(const Context& c, Write& u, const json& target) {
  const Resource& res = c.res;
  StatusOr<json> out = Status(StatusCode::kInternal, "unreachable");
  if (u.ct.find(kStrategicMergePatch) == 0) {
    out = patch::StrategicMergePatch(target, u.patch_body, res.GroupVersion(), res.kind);
  } else if (u.ct.find(kMergePatch) == 0) {
    out = patch::MergePatch(target, u.patch_body);
  } else if (u.patch_body.is_array() && u.patch_body.size() > kMaxJsonPatchOperations) {
    u.too_many_operations = true;
    return Status(StatusCode::kInvalidArgument, "too many JSON patch operations");
  } else {
    out = patch::JsonPatch(target, u.patch_body);
  }
  if (!out.ok()) return out.status();
  json next = std::move(out).value();
  if (auto e = PatchedTypeError(res, u, next)) {
    u.invalid = true;
    u.invalid_error = *e;
    return Status(StatusCode::kInvalidArgument, u.invalid_error.message);
  }
  if (next.is_object()) schema::Schema::Builtin().AsDecoded(res.GroupVersion(), res.kind, next);
  if (u.status_only) {
    // A patch whose result is not an object is refused below, as any other; the
    // status path must not read it first (the fuzzer's second PATCH crash).
    if (!next.is_object()) {
      return Status(StatusCode::kInvalidArgument, "the body of the request was not an object");
    }
    json s = next.value("status", json());
    next = target;
    next["status"] = s;
  }
  // A patch that does not name a resourceVersion does not have a precondition.
  const bool patch_has_rv = u.patch_body.is_object()
                                ? !Str(u.patch_body, "metadata", "resourceVersion").empty()
                                : u.patch_body.dump(-1, ' ', false, json::error_handler_t::replace)
                                          .find("/metadata/resourceVersion") != std::string::npos;
  if (!patch_has_rv && next.contains("metadata")) next["metadata"].erase("resourceVersion");
  return next;
}

// Admission or validation refused the write: `e` is the answer (AnswerRefusal).
Status Refuse(Write& u, ApiError e) {
  u.invalid = true;
  u.invalid_error = std::move(e);
  return Status(StatusCode::kInvalidArgument, u.invalid_error.message);
}

// What every new object goes through before the store writes it: fieldValidation (an apply's
// was done before), defaults, a create's system fields, validation, managedFields (apply keeps
// its own), the namespace, and the storage limit.
StatusOr<json> Admit(const Context& c, Write& u, const StoredObject* cur, const json& cur_value,
                     json next, const json* stored_cur) {
  const Resource& res = c.res;
  if (!next.is_object()) {
    return Status(StatusCode::kInvalidArgument, "the body of the request was not an object");
  }
  if (!u.apply) {
    if (u.fv == FieldValidation::kStrict) {
      auto unknown = UnknownFieldsOf(res, next);
      if (!unknown.empty() || !u.duplicates.empty()) {
        u.strict_error =
            schema::StrictDecodingMessage(res.GroupVersion(), res.kind, unknown, u.duplicates);
        return Status(StatusCode::kInvalidArgument, u.strict_error);
      }
    } else {
      u.warn_fields = DropUnknownFieldsOf(res, next);
    }
  }
  ApplyDefaults(res, next);  // every decoded body is defaulted, updates too
  if (cur == nullptr) FillSystemFields(next, u.create_uid, c.clock.Now());
  // A version stored in another: managedFields in the request's version, the rest in the
  // storage version's.
  const bool convert = conversion::Converts(res);
  const Resource& sres = StorageOf(res);
  if (convert) {
    if (!u.apply) {
      next = patch::UpdateManagedFields(cur_value, std::move(next), u.manager, c.clock.Now(),
                                        nullptr, c.r.subresource);
    }
    next = conversion::ToStorage(res, std::move(next));
  }
  if (cur == nullptr) {
    PrepareForCreate(sres, next, &c.r.user, c.options.taint_nodes_by_condition);
    if (c.r.subresource.empty()) AdmitStorageOnCreate(u.default_storage_class, sres, next);
  }
  const json* old = cur == nullptr ? nullptr : convert ? stored_cur : &cur_value;
  if (old != nullptr) PrepareForUpdate(sres, next, *old, c.r.subresource, c.clock.Now());
  // Admission plugins see the object itself, never a subresource.
  const bool admitted = c.r.subresource.empty();
  if (admitted && sres.group.empty() && sres.resource == "pods") {
    if (auto e =
            AdmitServiceAccount(sres, u.service_account, next, old, c.r.name, u.ns_for_apply)) {
      return Refuse(u, std::move(*e));
    }
    if (auto e = AdmitPodPriority(sres, u.priority_classes, next, old, c.r.name)) {
      return Refuse(u, std::move(*e));
    }
  }
  api::FieldErrors errors;
  TIDEPOOL_RETURN_IF_ERROR(Validate(sres, next, old, &errors, c.r.subresource));
  if (!errors.empty()) return Refuse(u, Invalid(sres, c.r.name, errors));
  if (admitted && sres.group == "scheduling.k8s.io" && sres.resource == "priorityclasses") {
    if (auto e = AdmitPriorityClass(sres, u.priority_classes, next, cur == nullptr)) {
      return Refuse(u, std::move(*e));
    }
  }
  if (!u.apply && !convert) {
    next = patch::UpdateManagedFields(cur_value, std::move(next), u.manager, c.clock.Now(), nullptr,
                                      c.r.subresource);
  }
  if (res.namespaced && !Str(next, "metadata", "namespace").empty() &&
      Str(next, "metadata", "namespace") != u.ns_for_apply) {
    return Status(StatusCode::kInvalidArgument,
                  "the namespace of the provided object does not match the namespace "
                  "sent on the request");
  }
  if (TooLargeForStorage(next, 0)) {
    u.too_large = true;
    return Status(StatusCode::kResourceExhausted, "etcdserver: request is too large");
  }
  return next;
}

// The store's mutation: the new object from the current one (null when absent).
StatusOr<json> Mutate(const Context& c, Write& u, const StoredObject* cur) {
  // Stored in another version: the current object is seen, and the write made, in the
  // request's version.
  const json stored = cur ? cur->Parse() : json();
  const json cur_value = conversion::FromStorage(c.res, stored);
  StatusOr<json> next = u.put     ? StatusOr<json>(Replaced(u, cur, cur_value))
                        : u.apply ? Applied(c, u, cur_value)
                                  : Patched(c, u, cur_value);
  if (!next.ok()) return next.status();
  // kube's GuaranteedUpdate checks the precondition before the strategy validates: a stale
  // resourceVersion is a Conflict even when the object is also invalid.
  if (cur != nullptr && next->is_object()) {
    if (const json* meta = Member(*next, "metadata"); meta != nullptr) {
      TIDEPOOL_RETURN_IF_ERROR(
          ObjectStore::CheckResourceVersion(c.res, c.r.name, *meta, cur->resource_version));
    }
  }
  return Admit(c, u, cur, cur_value, std::move(next).value(), &stored);
}

// The answer to a PUT or PATCH the store refused with `s`: what the mutation found out first.
void AnswerRefusal(Context& c, const Write& u, const Status& s) {
  if (u.too_many_operations) {
    return SendError(c.w, {413, "RequestEntityTooLarge",
                           "Request entity too large: The allowed maximum operations in a JSON "
                           "patch is " +
                               std::to_string(kMaxJsonPatchOperations) + ", got " +
                               std::to_string(u.patch_body.size()),
                           json()});
  }
  if (u.invalid) return SendError(c.w, u.invalid_error, c.r.Headers());
  if (u.too_large) return SendError(c.w, EtcdRequestTooLarge(), c.r.Headers());
  if (!u.strict_error.empty()) {
    if (u.put) return SendError(c.w, {400, "BadRequest", u.strict_error, json()});
    // kube-apiserver: a patch that fails strict decoding is a 422 on field "patch" whose
    // value is Go's %+v rendering of the patch map.
    return SendError(
        c.w,
        PatchInvalid(patch::internal::GoValue(u.patch_body),
                     u.strict_error.substr(u.strict_error.find("strict decoding error"))),
        c.r.Headers());
  }
  if (s.code() == StatusCode::kAborted && !u.conflicts.empty()) {
    json causes = json::array();
    for (const auto& conflict : u.conflicts) {
      causes.push_back({{"reason", "FieldManagerConflict"},
                        {"message", conflict.message},
                        {"field", conflict.field}});
    }
    return SendError(c.w, {409, "Conflict", std::string(s.message()), json{{"causes", causes}}});
  }
  if (s.code() == StatusCode::kInvalidArgument) {
    return SendError(
        c.w, {u.apply ? 500 : 422, u.apply ? "" : "Invalid", std::string(s.message()), json()},
        c.r.Headers());
  }
  return c.Fail(s);
}

}  // namespace

void HandleUpdatePatch(Context& c) {
  Write u;
  if (!ReadWrite(c, u)) return;
  if (auto e = CheckPatch(c, u)) return SendError(c.w, *e);
  auto result = c.store.Update(
      c.res, c.r.ns, c.r.name, [&](const StoredObject* cur) { return Mutate(c, u, cur); }, c.wopts,
      /*allow_create=*/u.apply && c.r.subresource.empty());
  if (u.fv == FieldValidation::kWarn) WarnFields(c.r, u.warn_fields, u.duplicates);
  if (!result.ok()) return AnswerRefusal(c, u, result.status());
  c.SendText(result->created ? 201 : 200, result->object->text, c.r.Headers());
}

}  // namespace tidepool::apiserver::handlers
