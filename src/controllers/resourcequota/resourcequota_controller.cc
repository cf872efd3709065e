#include "controllers/resourcequota/resourcequota_controller.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "api/quota.h"
#include "client/decoded.h"
#include "controllers/api_discovery.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::resourcequota {
namespace {

using json = nlohmann::json;

std::string NamespaceOf(const std::string& key) { return key.substr(0, key.find('/')); }

// A ResourceList as the API writes it ({"requests.cpu": "500m"}).
json ListJson(const api::ResourceList& list) {
  json out = json::object();
  for (const auto& [name, q] : list) out[name] = q.ToString();
  return out;
}

api::ResourceList ListOf(const json& j) {
  api::ResourceList out;
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string text = it->is_string() ? it->get<std::string>() : it->dump();
    auto q = api::Quantity::Parse(text);
    if (q.ok()) out[it.key()] = *q;
  }
  return out;
}

}  // namespace

ResourceQuotaController::ResourceQuotaController(
    const client::RestClient& client, const Clock& clock, ResourceQuotaControllerOptions options,
    log::Logger* logger, client::SharedInformerFactory* informers, TimerService* executor)
    : client_(client),
      clock_(clock),
      options_(options),
      log_(logger),
      executor_(executor),
      queue_(
          clock, [this](const std::string& key) { return Sync(key); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  auto make = [&](const char* name, const char* path, uint64_t s) {
    return client::MakeDecodingInformer(informers, client_, clock_, name, path, options_.seed + s,
                                        logger);
  };
  quotas_ = make("resourcequota-quotas", "/api/v1/resourcequotas", 0);
  pods_ = make("resourcequota-pods", "/api/v1/pods", 1);
  auto on_quota = [this](const client::ObjectRef& o) {
    const std::string ns = Str(Member(Meta(*o), "namespace"));
    const std::string name = Str(Member(Meta(*o), "name"));
    {
      std::lock_guard<std::mutex> lock(mu_);
      quotas_by_ns_[ns].insert(name);
    }
    // The status this controller writes changes nothing it reads: only a spec that is not
    // what status.hard says yet needs a sync (and a new quota).
    if (Member(*o, "spec") != json() &&
        ListJson(ListOf(Member(Member(*o, "spec"), "hard"))) !=
            ListJson(ListOf(Member(Member(*o, "status"), "hard")))) {
      queue_.Add(Key(ns, name));
    } else if (Member(Member(*o, "status"), "used").is_null()) {
      queue_.Add(Key(ns, name));
    }
  };
  quotas_->AddEventHandlers(
      {[on_quota](const client::ObjectRef& o, bool) { on_quota(o); },
       [on_quota](const client::ObjectRef&, const client::ObjectRef& o) { on_quota(o); },
       [this](const client::ObjectRef& o, bool) {
         std::lock_guard<std::mutex> lock(mu_);
         auto it = quotas_by_ns_.find(Str(Member(Meta(*o), "namespace")));
         if (it != quotas_by_ns_.end()) it->second.erase(Str(Member(Meta(*o), "name")));
       }});
  auto on_pod = [this](const client::ObjectRef& o) {
    auto pod = client::DecodedPod(o);
    const std::string key = client::Informer::KeyOf(*o);
    const std::string ns = Str(Member(Meta(*o), "namespace"));
    OnPod(key, ns, pod.ok() ? api::PodQuotaUsage(**pod) : api::ResourceList{});
  };
  pods_->AddEventHandlers(
      {[on_pod](const client::ObjectRef& o, bool) { on_pod(o); },
       [on_pod](const client::ObjectRef&, const client::ObjectRef& o) { on_pod(o); },
       [this](const client::ObjectRef& o, bool) { OnPodGone(client::Informer::KeyOf(*o)); }});
}

ResourceQuotaController::~ResourceQuotaController() { Stop(); }

void ResourceQuotaController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    quotas_->Start();
    pods_->Start();
  }
  queue_.Start();
}

void ResourceQuotaController::Stop() {
  queue_.Stop();
  quotas_->Stop();
  pods_->Stop();
}

bool ResourceQuotaController::HasSynced() const {
  return quotas_->HasSynced() && pods_->HasSynced();
}

void ResourceQuotaController::OnPod(const std::string& key, const std::string& ns,
                                    api::ResourceList usage) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, fresh] = pods_by_key_.try_emplace(key);
    if (!fresh && ListJson(it->second.usage) == ListJson(usage)) return;  // nothing it counts
    it->second = {ns, std::move(usage)};
    pods_by_ns_[ns].insert(key);
  }
  EnqueueNamespace(ns);
}

void ResourceQuotaController::OnPodGone(const std::string& key) {
  std::string ns;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_by_key_.find(key);
    if (it == pods_by_key_.end()) return;
    ns = it->second.ns;
    pods_by_key_.erase(it);
    auto n = pods_by_ns_.find(ns);
    if (n != pods_by_ns_.end()) {
      n->second.erase(key);
      if (n->second.empty()) pods_by_ns_.erase(n);
    }
  }
  EnqueueNamespace(ns);
}

void ResourceQuotaController::EnqueueNamespace(const std::string& ns) {
  std::vector<std::string> keys;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = quotas_by_ns_.find(ns);
    if (it == quotas_by_ns_.end()) return;
    for (const std::string& name : it->second) keys.push_back(Key(ns, name));
  }
  for (const std::string& k : keys) queue_.Add(k);
}

api::Quantity ResourceQuotaController::PodUsageLocked(const std::string& ns,
                                                      const std::string& resource) const {
  api::Quantity total;
  auto it = pods_by_ns_.find(ns);
  if (it == pods_by_ns_.end()) return total;
  for (const std::string& key : it->second) {
    const auto& usage = pods_by_key_.at(key).usage;
    if (auto u = usage.find(resource); u != usage.end()) total.Add(u->second);
  }
  return total;
}

std::optional<TimePoint> ResourceQuotaController::Sync(const std::string& key) {
  const std::string ns = NamespaceOf(key);
  const std::string name = key.substr(key.find('/') + 1);
  const std::string path = "/api/v1/namespaces/" + ns + "/resourcequotas/" + name;
  auto got = client_.GetResult(path);
  if (got.http_status == 404) return std::nullopt;
  const TimePoint again = clock_.Now() + options_.resync;
  if (!got.ok()) return clock_.Now() + std::chrono::seconds(1);
  json quota = std::move(got.body);
  const api::ResourceList hard = ListOf(Member(Member(quota, "spec"), "hard"));
  api::ResourceList used;
  std::optional<std::vector<ApiResource>> discovered;
  for (const auto& [resource, limit] : hard) {
    (void)limit;
    if (api::IsPodQuotaResource(resource)) {  // (extended resources only as requests.*)
      std::lock_guard<std::mutex> lock(mu_);
      used[resource] = PodUsageLocked(ns, resource);
      continue;
    }
    auto counted = api::CountedResourceOf(resource);
    if (!counted) continue;  // what no evaluator counts gets no used entry
    used[resource] = api::Quantity::FromInt(0, api::QuantityFormat::kDecimalSI);
    if (!discovered) {
      auto d = DiscoverApiResources(client_, /*preferred_only=*/true);
      if (!d.ok()) return clock_.Now() + std::chrono::seconds(1);
      discovered = std::move(d).value();
    }
    for (const ApiResource& r : *discovered) {
      if (r.group != counted->group || r.resource != counted->resource || !r.namespaced) continue;
      auto list = client_.List(r.CollectionPath(ns));
      if (!list.ok()) return clock_.Now() + std::chrono::seconds(1);
      const json& items = Member(*list, "items");
      used[resource] =
          api::Quantity::FromInt(items.is_array() ? static_cast<int64_t>(items.size()) : 0,
                                 api::QuantityFormat::kDecimalSI);
    }
  }
  const json status = {{"hard", ListJson(hard)}, {"used", ListJson(used)}};
  if (ListJson(ListOf(Member(Member(quota, "status"), "hard"))) != status["hard"] ||
      ListJson(ListOf(Member(Member(quota, "status"), "used"))) != status["used"]) {
    quota["status"] = status;
    auto put = client_.UpdateResult(path + "/status", quota);
    if (!put.ok()) {
      if (log_ != nullptr && put.http_status != 409) {
        log_->Warning("resourcequota " + key + ": " + std::string(put.status.message()));
      }
      return clock_.Now() + std::chrono::seconds(1);
    }
  }
  return again;
}

}  // namespace tidepool::controllers::resourcequota
