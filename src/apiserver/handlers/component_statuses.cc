// core/v1 ComponentStatus (kube-apiserver's pkg/registry/core/componentstatus, 1.32): GET and
// LIST of the control plane's components as `kubectl get componentstatuses` (cs) shows them -
// controller-manager, etcd-0 and scheduler, each with one Healthy condition (status True,
// message "ok", as the health checks of a running control plane answer: everything is in this
// process). Deprecated since 1.19: every answer carries kube's Warning
// `299 - "v1 ComponentStatus is deprecated in v1.19+"`, which kubectl prints. Nothing is stored:
// no resourceVersion, no watch (405), no creationTimestamp. Listed by name (kube lists them in
// the order its concurrent checks finish). An unknown name is rest.Get's plain error: a 500
// "Component not found: <name>" (kubectl: `Error from server: Component not found: x`).

#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

constexpr const char* kComponents[] = {"controller-manager", "etcd-0", "scheduler"};

json ComponentStatus(const std::string& name) {
  return {
      {"kind", "ComponentStatus"},
      {"apiVersion", "v1"},
      {"metadata", {{"name", name}, {"creationTimestamp", nullptr}}},
      {"conditions", json::array({{{"type", "Healthy"}, {"status", "True"}, {"message", "ok"}}})}};
}

}  // namespace

bool IsComponentStatusResource(const Resource& r) {
  return r.group.empty() && r.resource == "componentstatuses";
}

void HandleComponentStatuses(Context& c) {
  const std::vector<std::pair<std::string, std::string>> warned = {
      {"Warning", WarningHeader("v1 ComponentStatus is deprecated in v1.19+")}};
  if (c.method != "GET" || QueryBool(c.req, "watch")) {
    return SendError(c.w, MethodNotAllowed(c.method), warned);
  }
  std::vector<json> items;
  for (const char* name : kComponents) {
    if (c.r.name.empty() || c.r.name == name) items.push_back(ComponentStatus(name));
  }
  if (!c.r.name.empty() && items.empty()) {
    // rest.Get's fmt.Errorf, which the API answers as an unknown 500.
    return SendError(c.w, {500, "", "Component not found: " + c.r.name, json()}, warned);
  }
  if (WantsTable(c.req)) {
    std::vector<printers::TableObject> objs;
    for (const json& i : items) objs.push_back({&i, ""});
    return c.w.Send(200, kJson,
                    TableText(c.res, objs, "", c.clock.Now(), IncludeObjectParam(c.req), true),
                    warned);
  }
  if (!c.r.name.empty()) {
    return c.w.Send(200, kJson, items[0].dump(-1, ' ', false, json::error_handler_t::replace),
                    warned);
  }
  const json list = {{"kind", "ComponentStatusList"},
                     {"apiVersion", "v1"},
                     {"metadata", json::object()},
                     {"items", items}};
  c.w.Send(200, kJson, list.dump(-1, ' ', false, json::error_handler_t::replace), warned);
}

}  // namespace tidepool::apiserver::handlers
