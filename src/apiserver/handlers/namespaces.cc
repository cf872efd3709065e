// The namespace registry's deletion and finalize (kube's pkg/registry/core/namespace/storage):
// a deleted namespace is marked Terminating and stays while spec.finalizers holds anything (the
// namespace controller's "kubernetes", which it removes through finalize once the namespace's
// contents are gone: controllers/namespace/).
#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

Status NamespaceNotFound(const Context& c) {
  return Status(StatusCode::kNotFound, ObjectStore::Qualified(c.res, c.r.name) + " not found");
}

// validateFinalizerName: a standard finalizer, or a qualified name with a "/".
std::optional<api::FieldError> InvalidFinalizer(const json& f, size_t i) {
  const std::string path = "spec.finalizers[" + std::to_string(i) + "]";
  if (!f.is_string()) return api::FieldError::Invalid(path, "", "must be a string");
  const std::string& name = f.get_ref<const std::string&>();
  if (name == "kubernetes" || name.find('/') != std::string::npos) return std::nullopt;
  return api::FieldError::Invalid(path, name,
                                  "name is neither a standard finalizer name nor is it fully "
                                  "qualified");
}

}  // namespace

void DeleteNamespace(Context& c, const DeleteOptions& opts) {
  // NamespaceLifecycle admission's immortal namespaces.
  if (c.r.name == "default" || c.r.name == "kube-system" || c.r.name == "kube-public") {
    return SendError(c.w, {403, "Forbidden",
                           ObjectStore::Qualified(c.res, c.r.name) +
                               " is forbidden: this namespace may not be deleted",
                           Details(&c.res, c.r.name)});
  }
  const ObjectStore::WriteOptions wopts{c.wopts.origin, opts.dry_run};
  const std::string now = FormatRfc3339(c.clock.Now());
  auto result = c.store.Update(
      c.res, "", c.r.name,
      [&](const StoredObject* cur) -> StatusOr<json> {
        if (cur == nullptr) return NamespaceNotFound(c);
        json obj = cur->Parse();
        json& meta = obj["metadata"];
        if (opts.precondition_uid && Str(obj, "metadata", "uid") != *opts.precondition_uid) {
          return Status(
              StatusCode::kAborted,
              "Operation cannot be fulfilled on " + ObjectStore::Qualified(c.res, c.r.name) +
                  ": Precondition failed: UID in precondition: " + *opts.precondition_uid +
                  ", UID in object meta: " + Str(obj, "metadata", "uid"));
        }
        if (!meta.contains("deletionTimestamp") || meta["deletionTimestamp"].is_null()) {
          meta["deletionTimestamp"] = now;
          json& status = obj["status"];
          if (!status.is_object()) status = json::object();
          status["phase"] = "Terminating";
        }
        return obj;  // without finalizers of either kind, the store removes it now
      },
      wopts);
  if (!result.ok()) return c.Fail(result.status());
  const json* f = Member(result->object->view, "spec");
  f = f != nullptr ? Member(*f, "finalizers") : nullptr;
  const json* mf = Member(result->object->view, "metadata");
  mf = mf != nullptr ? Member(*mf, "finalizers") : nullptr;
  const bool none = (f == nullptr || !f->is_array() || f->empty()) &&
                    (mf == nullptr || !mf->is_array() || mf->empty());
  if (none && !result->deleted) {
    // Nothing to wait for: the registry deletes it now.
    auto d = c.store.Delete(c.res, "", c.r.name, wopts);
    if (!d.ok()) return c.Fail(d.status());
    return c.SendText(200, (*d)->text, {});
  }
  return c.SendText(200, result->object->text, {});
}

void HandleFinalize(Context& c) {
  if (c.method != "PUT") return SendError(c.w, MethodNotAllowed(c.method));
  auto body = ParseBody(c.req);
  if (!body.ok()) return SendError(c.w, UnrecognizedBody(c.res, body.status(), c.req.body));
  if (!body->is_object()) return SendError(c.w, NotAnObject());
  if (auto e = DecodeTyped(c.res, *body)) return SendError(c.w, *e);
  json finalizers = json::array();
  if (const json* spec = Member(*body, "spec"); spec != nullptr) {
    if (const json* f = Member(*spec, "finalizers"); f != nullptr && f->is_array()) {
      finalizers = *f;
    }
  }
  api::FieldErrors errors;
  for (size_t i = 0; i < finalizers.size(); ++i) {
    if (auto e = InvalidFinalizer(finalizers[i], i)) errors.push_back(*e);
  }
  if (!errors.empty()) return SendError(c.w, Invalid(c.res, c.r.name, errors));
  const std::string rv = Str(*body, "metadata", "resourceVersion");
  auto result = c.store.Update(
      c.res, "", c.r.name,
      [&](const StoredObject* cur) -> StatusOr<json> {
        if (cur == nullptr) return NamespaceNotFound(c);
        json obj = cur->Parse();
        obj["spec"]["finalizers"] = finalizers;
        if (!rv.empty()) obj["metadata"]["resourceVersion"] = rv;
        return obj;
      },
      c.wopts);
  if (!result.ok()) return c.Fail(result.status());
  return c.SendText(200, result->object->text, {});
}

}  // namespace tidepool::apiserver::handlers
