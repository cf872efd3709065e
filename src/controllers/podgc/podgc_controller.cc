#include "controllers/podgc/podgc_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "controllers/object_json.h"

namespace tidepool::controllers::podgc {
namespace {

using json = nlohmann::json;

constexpr char kGcKey[] = "gc";

}  // namespace

PodGcController::PodGcController(const client::RestClient& client, const Clock& clock,
                                 PodGcControllerOptions options, log::Logger* logger,
    client::SharedInformerFactory* informers)
    : client_(client),
      clock_(clock),
      options_(options),
      log_(logger),
      queue_(
          clock, [this](const std::string&) { return Gc(); }, [this] { return HasSynced(); }) {
  auto make = [&](const char* name, const char* path, uint64_t s) {
    return client::MakeInformer(informers, client_, clock_, client::DecodingInformerOptions(name, path, options_.seed + s), logger);
  };
  pods_ = make("podgc-pods", "/api/v1/pods", 0);
  nodes_ = make("podgc-nodes", "/api/v1/nodes", 1);
  auto on_pod = [this](const client::ObjectRef& o) {
    const json& m = Meta(*o);
    PodFacts f;
    f.namespace_ = Str(Member(m, "namespace"));
    f.name = Str(Member(m, "name"));
    f.uid = Str(Member(m, "uid"));
    f.node = Str(Member(Member(*o, "spec"), "nodeName"));
    const json& status = Member(*o, "status");
    const std::string phase = Str(Member(status, "phase"));
    f.terminal = phase == "Succeeded" || phase == "Failed";
    f.evicted = Str(Member(status, "reason")) == "Evicted";
    f.terminating = !Member(m, "deletionTimestamp").is_null();
    f.created = TimeOf(Member(m, "creationTimestamp")).value_or(TimePoint{});
    std::lock_guard<std::mutex> lock(mu_);
    facts_[Key(f.namespace_, f.name)] = std::move(f);
  };
  pods_->AddEventHandlers(
      {[on_pod](const client::ObjectRef& o, bool) { on_pod(o); },
       [on_pod](const client::ObjectRef&, const client::ObjectRef& o) { on_pod(o); },
       [this](const client::ObjectRef& o, bool) {
         std::lock_guard<std::mutex> lock(mu_);
         facts_.erase(client::Informer::KeyOf(*o));
       }});
}

PodGcController::~PodGcController() { Stop(); }

void PodGcController::Start() {
  pods_->Start();
  nodes_->Start();
  queue_.Start();
  queue_.Add(kGcKey);
}

void PodGcController::Stop() {
  queue_.Stop();
  client::StopAll({pods_.get(), nodes_.get()});
}

bool PodGcController::HasSynced() const { return pods_->HasSynced() && nodes_->HasSynced(); }

uint64_t PodGcController::deleted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return deleted_;
}

std::optional<TimePoint> PodGcController::Gc() {
  std::map<std::string, PodFacts> pods;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pods = facts_;
  }
  const TimePoint now = clock_.Now();
  if (options_.terminated_threshold > 0) GcTerminated(pods);
  GcOrphaned(pods, now);
  GcUnscheduledTerminating(pods);
  // The next collection; sooner when a quarantine ends first.
  TimePoint next = now + options_.period;
  for (const auto& [node, since] : quarantined_) next = std::min(next, since + options_.quarantine);
  return std::max(next, now);
}

void PodGcController::GcTerminated(const std::map<std::string, PodFacts>& pods) {
  std::vector<const PodFacts*> terminated;
  for (const auto& [key, p] : pods) {
    if (p.terminal) terminated.push_back(&p);
  }
  const int excess = static_cast<int>(terminated.size()) - options_.terminated_threshold;
  if (excess <= 0) return;
  // byEvictionAndCreationTimestamp: evicted first, then the oldest.
  std::sort(terminated.begin(), terminated.end(), [](const PodFacts* a, const PodFacts* b) {
    if (a->evicted != b->evicted) return a->evicted;
    if (a->created != b->created) return a->created < b->created;
    return Key(a->namespace_, a->name) < Key(b->namespace_, b->name);
  });
  if (log_ != nullptr) {
    log_->Info("Garbage collecting pods", {{"numPods", std::to_string(excess)}});
  }
  for (int i = 0; i < excess; ++i) MarkFailedAndDelete(*terminated[i], false);
}

void PodGcController::GcOrphaned(const std::map<std::string, PodFacts>& pods, TimePoint now) {
  std::map<std::string, bool> gone;  // node -> confirmed deleted
  for (const auto& [key, p] : pods) {
    if (p.node.empty() || gone.count(p.node) > 0) continue;
    if (nodes_->Get(p.node) != nullptr) {
      quarantined_.erase(p.node);
      gone[p.node] = false;
      continue;
    }
    auto [it, fresh] = quarantined_.try_emplace(p.node, now);
    gone[p.node] = false;
    if (fresh || now - it->second < options_.quarantine) continue;
    // Quarantine over: is it really gone (checkIfNodeExists)?
    auto node = client_.Get("/api/v1/nodes/" + p.node);
    if (!node.ok() && node.status().code() == StatusCode::kNotFound) gone[p.node] = true;
    if (node.ok()) quarantined_.erase(it);
  }
  for (const auto& [key, p] : pods) {
    auto g = gone.find(p.node);
    if (p.node.empty() || g == gone.end() || !g->second) continue;
    if (log_ != nullptr) {
      log_->Info("Found orphaned Pod assigned to the Node, deleting",
                 {{"pod", key}, {"node", p.node}});
    }
    MarkFailedAndDelete(p, true);
  }
  for (const auto& [node, deleted] : gone) {
    if (deleted) quarantined_.erase(node);
  }
  // Forget quarantined nodes no pod is bound to any more.
  for (auto it = quarantined_.begin(); it != quarantined_.end();) {
    it = gone.count(it->first) == 0 ? quarantined_.erase(it) : std::next(it);
  }
}

void PodGcController::GcUnscheduledTerminating(const std::map<std::string, PodFacts>& pods) {
  for (const auto& [key, p] : pods) {
    if (!p.terminating || !p.node.empty()) continue;
    if (log_ != nullptr) {
      log_->Info("Found unscheduled terminating Pod not assigned to any Node, deleting",
                 {{"pod", key}});
    }
    MarkFailedAndDelete(p, false);
  }
}

void PodGcController::MarkFailedAndDelete(const PodFacts& pod, bool with_condition) {
  const std::string path = client::ResourcePath("", "v1", "pods", pod.namespace_, pod.name);
  if (!pod.terminal || with_condition) {
    json status = json::object();
    if (!pod.terminal) status["phase"] = "Failed";
    if (with_condition) {
      status["conditions"] = json::array({{{"type", "DisruptionTarget"},
                                           {"status", "True"},
                                           {"lastProbeTime", nullptr},
                                           {"lastTransitionTime", FormatRfc3339(clock_.Now())},
                                           {"reason", "DeletionByPodGC"},
                                           {"message", "PodGC: node no longer exists"}}});
    }
    auto r = client_.Patch(path + "/status", client::PatchType::kStrategicMerge,
                           json{{"status", status}});
    if (!r.ok() && r.status().code() == StatusCode::kNotFound) return;
  }
  const json options = {{"apiVersion", "v1"},
                        {"kind", "DeleteOptions"},
                        {"gracePeriodSeconds", 0},
                        {"preconditions", {{"uid", pod.uid}}}};
  auto r = client_.Delete(path, options);
  if (r.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    ++deleted_;
  } else if (log_ != nullptr && r.status().code() != StatusCode::kNotFound) {
    log_->Warning("PodGC: cannot delete the pod",
                  {{"pod", Key(pod.namespace_, pod.name)}, {"err", r.status().ToString()}});
  }
}

}  // namespace tidepool::controllers::podgc
