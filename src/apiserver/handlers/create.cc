#include "apiserver/admission.h"
#include "apiserver/conversion.h"
#include "apiserver/handlers/handler.h"
#include "apiserver/patch/server_side_apply.h"
#include "apiserver/schema/schema.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

// The decode of a create's body as kube-apiserver's decoder does it: an object of the
// resource's version and kind, type errors first, then fieldValidation (Strict refuses unknown
// and duplicate fields; Warn drops unknown ones and warns; Ignore drops them).
std::optional<ApiError> DecodeCreateBody(Context& c, json& obj,
                                         const std::vector<std::string>& duplicates) {
  const Resource& res = c.res;
  if (!obj.is_object()) return NotAnObject();
  if (auto e = VersionKindTypeError(obj)) return e;
  const std::string av = Str(obj, "apiVersion");
  const std::string kind = Str(obj, "kind");
  if (!av.empty() && av != res.GroupVersion()) {
    return ApiError{400, "BadRequest",
                    "the API version in the data (" + av +
                        ") does not match the expected API version (" + res.GroupVersion() + ")",
                    json()};
  }
  if (!kind.empty() && kind != res.kind) {
    return ApiError{
        400, "BadRequest",
        "the kind in the data (" + kind + ") does not match the expected kind (" + res.kind + ")",
        json()};
  }
  // The typed decode (type errors first), then strict field validation, as the decoder does.
  if (auto e = DecodeTyped(res, obj)) return e;
  const FieldValidation fv = FieldValidationParam(c.req);
  if (fv == FieldValidation::kStrict) {
    auto unknown = UnknownFieldsOf(res, obj);
    if (!unknown.empty() || !duplicates.empty()) {
      return ApiError{
          400, "BadRequest",
          schema::StrictDecodingMessage(res.GroupVersion(), res.kind, unknown, duplicates), json()};
    }
    return std::nullopt;
  }
  const std::vector<std::string> dropped = DropUnknownFieldsOf(res, obj);
  if (fv == FieldValidation::kWarn) WarnFields(c.r, dropped, duplicates);
  return std::nullopt;
}

}  // namespace

void HandleCreate(Context& c) {
  std::vector<std::string> duplicates;
  auto body = ParseBody(c.req, &duplicates);
  if (!body.ok()) return SendError(c.w, UnrecognizedBody(c.res, body.status(), c.req.body));
  json obj = std::move(body).value();
  if (auto e = DecodeCreateBody(c, obj, duplicates)) return SendError(c.w, *e);
  // Decoded (and defaulted) in the request's version; stored, admitted and validated in the
  // storage version; answered in the request's (Context::SendObject).
  // Its managedFields are the request's too (kube's field manager runs on the request's
  // version): computed before the conversion, kept as they are after it.
  std::optional<json> converted_entries;
  if (conversion::Converts(c.res)) {
    ApplyDefaults(c.res, obj);
    json entries = patch::UpdateManagedFields(json(), obj, FieldManager(c.req), c.clock.Now());
    converted_entries = entries.contains("metadata") && entries["metadata"].is_object()
                            ? entries["metadata"].value("managedFields", json())
                            : json();
    obj = conversion::ToStorage(c.res, std::move(obj));
  }
  const Resource& res = StorageOf(c.res);
  const std::string body_ns = Str(obj, "metadata", "namespace");
  std::string ns = c.r.ns;
  if (res.namespaced) {
    if (!body_ns.empty() && !ns.empty() && body_ns != ns) {
      return SendError(c.w, {400, "BadRequest",
                             "the namespace of the provided object does not match the "
                             "namespace sent on the request",
                             json()});
    }
    if (ns.empty()) ns = body_ns.empty() ? "default" : body_ns;
    obj["metadata"]["namespace"] = ns;
  }
  const std::string name = Str(obj, "metadata", "name");
  c.r.name = name;
  ApplyDefaults(res, obj);
  FillSystemFields(obj, c.store.GenerateUid(), c.clock.Now());
  PrepareForCreate(res, obj, &c.r.user, c.options.taint_nodes_by_condition);
  // Mutating admission, before validation; the pod's QoS class follows what it set (kube's
  // PrepareForCreate computes it after admission).
  if (ApplyLimitRanges(c, obj, ns)) ApplyDefaults(res, obj);
  const PodServiceAccount account = ReadPodServiceAccount(c.store, res, "", obj, ns);
  if (auto e = AdmitServiceAccount(res, account, obj, nullptr, name, ns)) {
    return SendError(c.w, *e, c.r.Headers());
  }
  const std::vector<ObjectPtr> classes = PriorityClasses(c.store, res, "");
  if (res.group.empty() && res.resource == "pods") {
    if (auto e = AdmitPodPriority(res, classes, obj, nullptr, name)) {
      return SendError(c.w, *e, c.r.Headers());
    }
  }
  AdmitStorageOnCreate(DefaultStorageClassName(c.store, res), res, obj);
  if (res.group.empty() && res.resource == "services") {
    if (auto e = AllocateService(c, obj, ns, name)) return SendError(c.w, *e, c.r.Headers());
  }
  api::FieldErrors errors;
  if (Status s = Validate(res, obj, nullptr, &errors); !s.ok()) return c.Fail(s);
  if (!errors.empty()) return SendError(c.w, Invalid(res, name, errors), c.r.Headers());
  if (auto e = c.NamespaceRefusal(ns, name)) return SendError(c.w, *e, c.r.Headers());
  if (res.group == "scheduling.k8s.io" && res.resource == "priorityclasses") {
    if (auto e = AdmitPriorityClass(res, classes, obj, true)) {
      return SendError(c.w, *e, c.r.Headers());
    }
  }
  if (auto e = CheckLimitRanges(c, obj, ns, name)) return SendError(c.w, *e, c.r.Headers());
  if (auto e = AdmitQuota(c, obj, ns, name)) return SendError(c.w, *e, c.r.Headers());
  obj["metadata"].erase("resourceVersion");
  std::string fields_v1;  // the new entry's FieldsV1, as text: no tree is built for it
  if (!converted_entries) {
    obj = patch::UpdateManagedFields(json(), std::move(obj), FieldManager(c.req), c.clock.Now(),
                                     &fields_v1);
  } else if (converted_entries->is_array()) {
    obj["metadata"]["managedFields"] = std::move(*converted_entries);
  } else {
    obj["metadata"].erase("managedFields");
  }
  if (TooLargeForStorage(obj, fields_v1.size())) {
    return SendError(c.w, EtcdRequestTooLarge(), c.r.Headers());
  }
  ObjectStore::WriteOptions create_opts = c.wopts;
  create_opts.fields_v1_text = fields_v1;
  auto created = c.store.Create(res, std::move(obj), create_opts);
  if (!created.ok()) return c.Fail(created.status());
  return c.SendObject(201, *created);
}

}  // namespace tidepool::apiserver::handlers
