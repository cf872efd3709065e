#include <algorithm>
#include <cstdlib>

#include "apiserver/conversion.h"
#include "apiserver/crd/registry.h"
#include "apiserver/crd/strategy.h"
#include "apiserver/deletion.h"
#include "apiserver/handlers/handler.h"
#include "apiserver/schema/schema.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

// DeleteOptions in a DELETE's body: a wrong type is a 400 with the decoder's own text.
std::optional<ApiError> DeleteOptionsTypeError(const json& options) {
  if (auto t = schema::Schema::Builtin().FindTypeError("v1", "DeleteOptions", options)) {
    return ApiError{400, "BadRequest", t->JsonMessage(), json()};
  }
  return std::nullopt;
}

// The DeleteOptions of a non-empty body into `opts` (a body that is not an object has none);
// false when the request was answered (the body does not parse or decode).
bool ReadDeleteOptionsBody(Context& c, DeleteOptions& opts) {
  auto body = ParseBody(c.req);
  if (!body.ok()) {
    c.Fail(body.status());
    return false;
  }
  if (body->is_object()) {
    if (auto e = DeleteOptionsTypeError(*body)) {
      SendError(c.w, *e);
      return false;
    }
    opts = DeleteOptionsFromJson(*body);
  }
  return true;
}

}  // namespace

void HandleDelete(Context& c) {
  const http::HttpRequest& req = c.req;
  // DeleteOptions from the body, else from the query (delete.go).
  DeleteOptions opts;
  if (!req.body.empty()) {
    if (!ReadDeleteOptionsBody(c, opts)) return;
  } else {
    if (req.HasQuery("gracePeriodSeconds")) {
      opts.grace_period_seconds = std::atoll(req.Query("gracePeriodSeconds").c_str());
    }
    if (req.HasQuery("propagationPolicy")) opts.propagation_policy = req.Query("propagationPolicy");
    if (req.HasQuery("orphanDependents"))
      opts.orphan_dependents = QueryBool(req, "orphanDependents");
  }
  if (c.wopts.dry_run) opts.dry_run = true;
  if (c.res.group.empty() && c.res.resource == "namespaces") return DeleteNamespace(c, opts);
  if (crd::IsDefinition(c.res)) {
    // The definitions' registry: marked, never removed at once (crd/registry.h).
    auto d = crd::BeginDeletion(c.store, c.r.name, c.clock.Now(), c.wopts);
    if (!d.ok()) return c.Fail(d.status());
    c.SendText(200, (*d)->text, {});
    return c.crds.Sync();  // the finalizer's work, before the client looks again
  }
  auto d = DeleteObject(c.store, c.res, c.r.ns, c.r.name, opts, c.clock.Now(), c.wopts.origin);
  if (!d.ok() && d.status().code() == StatusCode::kInvalidArgument) {
    return SendError(c.w, InvalidDeleteOptions(d.status()));
  }
  if (!d.ok()) return c.Fail(d.status());
  // 202 when the object stays and the request asked for cascading with orphanDependents=false
  // (delete.go: the only case kube tells apart, for its old clients).
  const int code =
      !d->deleted && opts.orphan_dependents.has_value() && !*opts.orphan_dependents ? 202 : 200;
  if (d->deleted && !ReturnsDeletedObject(c.res)) {
    // finalizeDelete: a Status naming what was deleted (its Kind is the resource, as kube's).
    nlohmann::ordered_json details = {{"name", c.r.name}};
    if (!c.res.group.empty()) details["group"] = c.res.group;
    details["kind"] = c.res.resource;
    details["uid"] = Str(d->object->view, "metadata", "uid");
    const nlohmann::ordered_json status = {{"kind", "Status"},
                                           {"apiVersion", "v1"},
                                           {"metadata", json::object()},
                                           {"status", "Success"},
                                           {"details", std::move(details)}};
    return c.w.Send(code, kJson, status.dump(), {});
  }
  return c.SendText(code, d->object->text, {});
}

void HandleDeleteCollection(Context& c) {
  const Resource& res = c.res;
  auto filter = ParseFilter(c.req, res);
  if (!filter.ok()) return c.Fail(filter.status());
  DeleteOptions dopts;
  if (!c.req.body.empty() && !ReadDeleteOptionsBody(c, dopts)) return;
  if (c.wopts.dry_run) dopts.dry_run = true;
  if (std::string invalid = ValidateDeleteOptions(dopts); !invalid.empty()) {
    return SendError(c.w, InvalidDeleteOptions(Status(StatusCode::kInvalidArgument, invalid)));
  }
  auto list = ListMatching(c.store, res, res.namespaced ? c.r.ns : "", *filter);
  std::string body = "{\"kind\":\"" + res.list_kind + "\",\"apiVersion\":\"" + res.GroupVersion() +
                     "\",\"metadata\":{},\"items\":[";
  bool first = true;
  for (const ObjectPtr& o : list.items) {
    // The registry's DeleteCollection: each item deleted as DELETE deletes it; an item gone
    // meanwhile is skipped, any other failure ends the request.
    auto d = DeleteObject(c.store, res, Str(o->view, "metadata", "namespace"),
                          Str(o->view, "metadata", "name"), dopts, c.clock.Now(), c.wopts.origin);
    if (!d.ok() && d.status().code() == StatusCode::kNotFound) continue;
    if (!d.ok()) return c.Fail(d.status());
    if (!first) body += ',';
    first = false;
    body += conversion::Converts(c.res) ? conversion::FromStorageText(c.res, d->object->text)
                                        : d->object->text;
  }
  body += "]}";
  c.w.Send(200, kJson, std::move(body));
}

}  // namespace tidepool::apiserver::handlers
