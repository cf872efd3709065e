#include "controllers/testing/driven_cluster.h"

#include <fstream>
#include <optional>
#include <utility>
#include <vector>

#include "apiserver/resources.h"
#include "common/check.h"

namespace tidepool::controllers::testing {
namespace {

using nlohmann::json;

// "/api/v1" or "/apis/apps/v1".
std::string GroupVersionPath(const apiserver::Resource& r) {
  return r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
}

// The resource and namespace ("" for all) of a collection path, or nullopt.
std::optional<std::pair<const apiserver::Resource*, std::string>> ParseCollection(
    const std::string& path) {
  for (const apiserver::Resource& r : apiserver::Resources()) {
    const std::string base = GroupVersionPath(r);
    if (path == base + "/" + r.resource) return std::make_pair(&r, std::string());
    const std::string ns_prefix = base + "/namespaces/";
    const std::string suffix = "/" + r.resource;
    if (r.namespaced && path.size() > ns_prefix.size() + suffix.size() &&
        path.compare(0, ns_prefix.size(), ns_prefix) == 0 &&
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      std::string ns =
          path.substr(ns_prefix.size(), path.size() - ns_prefix.size() - suffix.size());
      if (ns.find('/') == std::string::npos) return std::make_pair(&r, std::move(ns));
    }
  }
  return std::nullopt;
}

}  // namespace

InformerFeed::InformerFeed(apiserver::ObjectStore& store, client::SharedInformerFactory& factory)
    : store_(store), factory_(factory) {
  auto w = store_.OpenWatch(nullptr, "", store_.resource_version(),
                            apiserver::ObjectStore::Backlog::kUnbounded);
  TIDEPOOL_CHECK(w.ok());
  watch_ = std::move(w).value();
}

void InformerFeed::Pump() {
  const std::vector<std::shared_ptr<client::Informer>> all = factory_.All();
  std::vector<apiserver::EventPtr> events;
  watch_->Drain(&events);
  for (const apiserver::EventPtr& e : events) {
    const apiserver::Resource& r = *e->resource;
    const std::string collection = GroupVersionPath(r) + "/" + r.resource;
    json obj = e->object->Parse();
    const std::string ns = obj["metadata"].value("namespace", "");
    const std::string in_ns = GroupVersionPath(r) + "/namespaces/" + ns + "/" + r.resource;
    for (const std::shared_ptr<client::Informer>& inf : all) {
      auto fed = fed_.find(inf.get());
      if (fed == fed_.end() || e->resource_version <= fed->second) continue;  // in its list
      const std::string& path = inf->options().path;
      if (path != collection && (ns.empty() || path != in_ns)) continue;
      inf->ApplyForTest(std::string(apiserver::EventTypeName(e->type)), json(obj));
    }
  }
  for (const std::shared_ptr<client::Informer>& inf : all) {
    if (fed_.count(inf.get()) > 0) continue;
    const client::InformerOptions& o = inf->options();
    TIDEPOOL_CHECK(o.label_selector.empty() && o.field_selector.empty());
    auto parsed = ParseCollection(o.path);
    TIDEPOOL_CHECK(parsed.has_value());
    apiserver::ObjectStore::ListResult list = store_.List(*parsed->first, parsed->second);
    std::vector<json> items;
    items.reserve(list.items.size());
    for (const apiserver::ObjectPtr& item : list.items) items.push_back(item->Parse());
    fed_[inf.get()] = list.resource_version;
    inf->ReplaceForTest(std::move(items), std::to_string(list.resource_version));
  }
}

DrivenCluster::DrivenCluster()
    : store(events.clock(), nullptr),
      api(events.clock(), store, logs, apiserver::ApiServerOptions{"127.0.0.1:6443"}),
      transport([this](const apiserver::http::HttpRequest& req,
                       apiserver::http::ResponseWriter& w) { api.Handle(req, w); }),
      client(cluster::InProcessRestConfig(), events.clock(),
             cluster::InProcessRestOptions(transport)),
      informers(client, events.clock()),
      feed(store, informers) {
  for (const char* ns : {"default", "kube-system"}) {
    Create("/api/v1/namespaces",
           {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  }
}

size_t DrivenCluster::RunUntil(TimePoint until) {
  size_t n = 0;
  feed.Pump();
  while (true) {
    const std::optional<TimePoint> next = events.NextEventTime();
    if (!next.has_value() || *next > until) break;
    events.Step();
    ++n;
    feed.Pump();
  }
  events.RunUntil(until);
  return n;
}

json DrivenCluster::Create(const std::string& collection_path, const json& obj) {
  StatusOr<json> created = client.Create(collection_path, obj);
  TIDEPOOL_CHECK(created.ok());
  return std::move(created).value();
}

std::vector<json> DrivenCluster::List(const std::string& collection_path) {
  StatusOr<json> list = client.List(collection_path);
  TIDEPOOL_CHECK(list.ok());
  std::vector<json> out;
  for (json& item : (*list)["items"]) out.push_back(std::move(item));
  return out;
}

int DrivenCluster::Threads() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

}  // namespace tidepool::controllers::testing
