#include "apiserver/health.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::apiserver {
namespace {

// kube-apiserver 1.32's post-start hooks, in the order its health endpoints list them (without
// the MultiCIDRServiceAllocator's service CIDR controller, off by default in 1.32).
constexpr std::string_view kPostStartHooks[] = {
    "poststarthook/start-apiserver-admission-initializer",
    "poststarthook/generic-apiserver-start-informers",
    "poststarthook/priority-and-fairness-config-consumer",
    "poststarthook/priority-and-fairness-filter",
    "poststarthook/storage-object-count-tracker-hook",
    "poststarthook/start-apiextensions-informers",
    "poststarthook/start-apiextensions-controllers",
    "poststarthook/crd-informer-synced",
    "poststarthook/start-system-namespaces-controller",
    "poststarthook/start-cluster-authentication-info-controller",
    "poststarthook/start-kube-apiserver-identity-lease-controller",
    "poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
    "poststarthook/start-legacy-token-tracking-controller",
    "poststarthook/start-service-ip-repair-controllers",
    "poststarthook/rbac/bootstrap-roles",
    "poststarthook/scheduling/bootstrap-system-priority-classes",
    "poststarthook/priority-and-fairness-config-producer",
    "poststarthook/bootstrap-controller",
    "poststarthook/aggregator-reload-proxy-client-cert",
    "poststarthook/start-kube-aggregator-informers",
    "poststarthook/apiservice-status-local-available-controller",
    "poststarthook/apiservice-status-remote-available-controller",
    "poststarthook/apiservice-registration-controller",
    "poststarthook/apiservice-discovery-controller",
    "poststarthook/kube-apiserver-autoregistration",
    "autoregister-completion",
    "poststarthook/apiservice-openapi-controller",
    "poststarthook/apiservice-openapiv3-controller",
};

// The checks of endpoint `name` ("healthz", "livez" or "readyz"), in kube's order.
std::vector<std::string_view> Checks(std::string_view name) {
  const bool ready = name == "readyz";
  std::vector<std::string_view> out = {"ping", "log", "etcd"};
  if (ready) out.insert(out.end(), {"etcd-readiness", "informer-sync"});
  out.insert(out.end(), std::begin(kPostStartHooks), std::end(kPostStartHooks));
  if (ready) out.push_back("shutdown");
  return out;
}

// Go's %q of a plain name, joined by "," (healthz.go's formatQuoted).
std::string FormatQuoted(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ',';
    out += '"';
    for (char c : n) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out;
}

void SendText(http::ResponseWriter& w, std::string body) {
  w.Send(200, "text/plain; charset=utf-8", std::move(body),
         {{"X-Content-Type-Options", "nosniff"}});
}

void ServeRoot(const http::HttpRequest& req, http::ResponseWriter& w, std::string_view name) {
  std::set<std::string> excluded;
  for (auto [it, end] = req.query.equal_range("exclude"); it != end; ++it) {
    excluded.insert(it->second);
  }
  std::string out;
  for (std::string_view check : Checks(name)) {
    if (excluded.erase(std::string(check)) > 0) {
      out.append("[+]").append(check).append(" excluded: ok\n");
    } else {
      out.append("[+]").append(check).append(" ok\n");
    }
  }
  if (!excluded.empty()) {
    out += "warn: some health checks cannot be excluded: no matches for " + FormatQuoted(excluded) +
           "\n";
  }
  if (!req.HasQuery("verbose")) return SendText(w, "ok");
  out.append(name).append(" check passed\n");
  SendText(w, std::move(out));
}

}  // namespace

bool ServeHealth(const http::HttpRequest& req, http::ResponseWriter& w) {
  std::string_view path = req.path;
  if (path.empty() || path[0] != '/') return false;
  path.remove_prefix(1);
  const size_t slash = path.find('/');
  const std::string_view name = path.substr(0, slash);
  if (name != "healthz" && name != "livez" && name != "readyz") return false;
  if (slash == std::string_view::npos) {
    ServeRoot(req, w, name);
    return true;
  }
  const std::string_view check = path.substr(slash + 1);
  for (std::string_view c : Checks(name)) {
    if (c == check) {
      SendText(w, "ok");
      return true;
    }
  }
  return false;
}

}  // namespace tidepool::apiserver
