#include "controllers/testing/driven_cluster.h"

#include <fstream>
#include <utility>
#include <vector>

#include "client/test_api_server.h"

#include "common/check.h"

namespace tidepool::controllers::testing {
using nlohmann::json;

DrivenCluster::DrivenCluster()
    : store(events.clock(), nullptr),
      api(events.clock(), store, logs, client::testing::ComponentTestOptions()),
      transport([this](const apiserver::http::HttpRequest& req,
                       apiserver::http::ResponseWriter& w) { api.Handle(req, w); }),
      client(cluster::InProcessRestConfig(), events.clock(),
             cluster::InProcessRestOptions(transport)),
      informers(client, events.clock()),
      driver(store, events) {
  informers.SetDriver(&driver);
  for (const char* ns : {"default", "kube-system"}) {
    Create("/api/v1/namespaces",
           {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  }
}

size_t DrivenCluster::RunUntil(TimePoint until) {
  // The informers made so far (the controllers' executor mode starts none) are handed to the
  // driver; it lists each at the queue's now and feeds it every write after.
  informers.Start();
  const uint64_t before = events.executed();
  events.RunUntil(until);
  return events.executed() - before;
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
