// metrics.k8s.io/v1beta1 as metrics-server serves it (`kubectl top node|pod`), from the
// emulated cluster's usage: no container runs, so a running container uses what it requests
// (resources.requests cpu and memory), unless its pod declares its usage in the annotations
// tidepool.dev/cpu-usage and tidepool.dev/memory-usage (Quantities: the pod's usage, reported
// as its first container's; the others then report zero). Only pods Running on a node are
// measured (metrics-server scrapes kubelets); a node uses what its running pods use. CPU is
// given in nanocores and memory in Ki, as metrics-server writes them; the window is its
// default resolution, 15 s. GET and LIST only, with label selectors; nothing is stored.

#include <map>

#include "api/quantity.h"
#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

constexpr char kCpuUsage[] = "tidepool.dev/cpu-usage";
constexpr char kMemoryUsage[] = "tidepool.dev/memory-usage";

struct Usage {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
};

int64_t QuantityOf(const json& v, bool milli) {
  if (!v.is_string()) return 0;
  auto q = api::Quantity::Parse(v.get<std::string>());
  if (!q.ok()) return 0;
  return milli ? q->MilliValue() : q->Value();
}

json UsageJson(const Usage& u) {
  return {{"cpu", u.cpu_milli == 0 ? "0" : std::to_string(u.cpu_milli * 1000000) + "n"},
          {"memory", u.memory_bytes == 0 ? "0" : std::to_string(u.memory_bytes / 1024) + "Ki"}};
}

// A running pod's containers and their usage (see the file comment); empty when not measured.
std::vector<std::pair<std::string, Usage>> ContainerUsage(const json& pod) {
  std::vector<std::pair<std::string, Usage>> out;
  const json status = pod.value("status", json::object());
  const json spec = pod.value("spec", json::object());
  if (status.value("phase", "") != "Running" || spec.value("nodeName", "").empty()) return out;
  const json ann = pod.value("metadata", json::object()).value("annotations", json::object());
  const bool declared = ann.is_object() && (ann.contains(kCpuUsage) || ann.contains(kMemoryUsage));
  for (const json& c : spec.value("containers", json::array())) {
    Usage u;
    if (!declared) {
      const json req = c.value("resources", json::object()).value("requests", json::object());
      u.cpu_milli = QuantityOf(req.value("cpu", json()), true);
      u.memory_bytes = QuantityOf(req.value("memory", json()), false);
    } else if (out.empty()) {
      u.cpu_milli = QuantityOf(ann.value(kCpuUsage, json()), true);
      u.memory_bytes = QuantityOf(ann.value(kMemoryUsage, json()), false);
    }
    out.emplace_back(c.value("name", ""), u);
  }
  return out;
}

json MetricsMeta(const json& obj, const std::string& now, bool namespaced) {
  const json m = obj.value("metadata", json::object());
  json meta = {{"name", m.value("name", "")}, {"creationTimestamp", now}};
  if (namespaced) meta["namespace"] = m.value("namespace", "");
  if (m.contains("labels") && m["labels"].is_object()) meta["labels"] = m["labels"];
  return meta;
}

}  // namespace

bool IsMetricsResource(const Resource& r) { return r.group == "metrics.k8s.io"; }

void HandleMetrics(Context& c) {
  if (c.method != "GET" || QueryBool(c.req, "watch")) {
    return SendError(c.w, MethodNotAllowed(c.method));
  }
  const bool pods_view = c.res.resource == "pods";
  const Resource& pods = *FindResource("", "v1", "pods");
  const Resource& nodes = *FindResource("", "v1", "nodes");
  const Resource& listed = pods_view ? pods : nodes;
  auto filter = ParseFilter(c.req, listed);
  if (!filter.ok()) return c.Fail(filter.status());
  const std::string now = FormatRfc3339(c.clock.Now());
  const std::string gv = c.res.GroupVersion();
  auto item = [&](const json& obj, json rest) {
    json out = {
        {"metadata", MetricsMeta(obj, now, pods_view)}, {"timestamp", now}, {"window", "15s"}};
    for (auto& [k, v] : rest.items()) out[k] = v;
    return out;
  };
  json items = json::array();
  if (pods_view) {
    const std::string_view ns = c.r.ns;
    for (const ObjectPtr& o : ListMatching(c.store, pods, ns, *filter).items) {
      const json pod = o->Parse();
      if (!c.r.name.empty() && pod["metadata"].value("name", "") != c.r.name) continue;
      const auto usage = ContainerUsage(pod);
      if (usage.empty()) continue;
      json containers = json::array();
      for (const auto& [name, u] : usage)
        containers.push_back({{"name", name}, {"usage", UsageJson(u)}});
      items.push_back(item(pod, {{"containers", containers}}));
    }
  } else {
    std::map<std::string, Usage> by_node;
    for (const ObjectPtr& o : ListMatching(c.store, pods, "", Filter()).items) {
      const json pod = o->Parse();
      for (const auto& [name, u] : ContainerUsage(pod)) {
        Usage& sum = by_node[pod["spec"].value("nodeName", "")];
        sum.cpu_milli += u.cpu_milli;
        sum.memory_bytes += u.memory_bytes;
      }
    }
    for (const ObjectPtr& o : ListMatching(c.store, nodes, "", *filter).items) {
      const json node = o->Parse();
      const std::string name = node["metadata"].value("name", "");
      if (!c.r.name.empty() && name != c.r.name) continue;
      items.push_back(item(node, {{"usage", UsageJson(by_node[name])}}));
    }
  }
  const std::string kind = pods_view ? "PodMetrics" : "NodeMetrics";
  if (!c.r.name.empty()) {
    if (items.empty()) {
      const std::string what = pods_view ? c.r.ns + "/" + c.r.name : c.r.name;
      return SendError(c.w, {404, "NotFound",
                             (pods_view ? "podmetrics" : "nodemetrics") +
                                 std::string(".metrics.k8s.io \"") + what + "\" not found",
                             Details(&c.res, c.r.name)});
    }
    json one = items[0];
    one["kind"] = kind;
    one["apiVersion"] = gv;
    return SendJson(c.w, 200, one);
  }
  SendJson(c.w, 200,
           {{"kind", kind + "List"},
            {"apiVersion", gv},
            {"metadata", json::object()},
            {"items", items}});
}

}  // namespace tidepool::apiserver::handlers
