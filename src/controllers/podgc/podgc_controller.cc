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
                                 client::SharedInformerFactory* informers, TimerService* executor)
    : client_(client),
      clock_(clock),
      options_(options),
      log_(logger),
      executor_(executor),
      queue_(
          clock, [this](const std::string&) { return Gc(); }, [this] { return HasSynced(); },
          std::chrono::milliseconds(50), executor) {
  auto make = [&](const char* name, const char* path, uint64_t s) {
    return client::MakeDecodingInformer(informers, client_, clock_, name, path, options_.seed + s,
                                        logger);
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
    const std::string key = Key(f.namespace_, f.name);
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, fresh] = facts_.try_emplace(key);
    if (!fresh) UnindexLocked(key, it->second);
    it->second = std::move(f);
    IndexLocked(key, it->second);
  };
  pods_->AddEventHandlers(
      {[on_pod](const client::ObjectRef& o, bool) { on_pod(o); },
       [on_pod](const client::ObjectRef&, const client::ObjectRef& o) { on_pod(o); },
       [this](const client::ObjectRef& o, bool) {
         const std::string key = client::Informer::KeyOf(*o);
         std::lock_guard<std::mutex> lock(mu_);
         auto it = facts_.find(key);
         if (it == facts_.end()) return;
         UnindexLocked(key, it->second);
         facts_.erase(it);
       }});
  auto node = [this](bool deleted) {
    return [this, deleted](const client::ObjectRef& o, bool) {
      OnNode(client::Informer::KeyOf(*o), deleted);
    };
  };
  nodes_->AddEventHandlers({node(false), nullptr, node(true)});
}

void PodGcController::IndexLocked(const std::string& key, const PodFacts& pod) {
  if (pod.terminal) terminal_.insert(key);
  if (pod.terminating && pod.node.empty()) unscheduled_terminating_.insert(key);
  if (!pod.node.empty()) {
    by_node_[pod.node].insert(key);
    if (nodes_known_.count(pod.node) == 0) missing_.insert(pod.node);
  }
}

void PodGcController::UnindexLocked(const std::string& key, const PodFacts& pod) {
  if (pod.terminal) terminal_.erase(key);
  if (pod.terminating && pod.node.empty()) unscheduled_terminating_.erase(key);
  if (pod.node.empty()) return;
  auto n = by_node_.find(pod.node);
  if (n == by_node_.end()) return;
  n->second.erase(key);
  if (n->second.empty()) {
    missing_.erase(pod.node);
    by_node_.erase(n);
  }
}

void PodGcController::OnNode(const std::string& name, bool deleted) {
  std::lock_guard<std::mutex> lock(mu_);
  if (deleted) {
    nodes_known_.erase(name);
    if (by_node_.count(name) > 0) missing_.insert(name);
  } else {
    nodes_known_.insert(name);
    missing_.erase(name);
  }
}

PodGcController::~PodGcController() { Stop(); }

void PodGcController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    pods_->Start();
    nodes_->Start();
  }
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
  // What this collection may act on, copied under the lock (the indexes keep it small).
  std::vector<PodFacts> terminated, unscheduled;
  std::map<std::string, std::vector<PodFacts>> missing;  // node -> its pods
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (options_.terminated_threshold > 0 &&
        terminal_.size() > static_cast<size_t>(options_.terminated_threshold)) {
      for (const std::string& k : terminal_) terminated.push_back(facts_.at(k));
    }
    for (const std::string& node : missing_) {
      std::vector<PodFacts>& pods = missing[node];
      for (const std::string& k : by_node_.at(node)) pods.push_back(facts_.at(k));
    }
    for (const std::string& k : unscheduled_terminating_) unscheduled.push_back(facts_.at(k));
  }
  const TimePoint now = clock_.Now();
  if (!terminated.empty()) GcTerminated(std::move(terminated));
  GcOrphaned(missing, now);
  GcUnscheduledTerminating(unscheduled);
  // The next collection; sooner when a quarantine ends first.
  TimePoint next = now + options_.period;
  for (const auto& [node, since] : quarantined_) next = std::min(next, since + options_.quarantine);
  return std::max(next, now);
}

void PodGcController::GcTerminated(std::vector<PodFacts> terminated) {
  const int excess = static_cast<int>(terminated.size()) - options_.terminated_threshold;
  if (excess <= 0) return;
  // byEvictionAndCreationTimestamp: evicted first, then the oldest.
  std::sort(terminated.begin(), terminated.end(), [](const PodFacts& a, const PodFacts& b) {
    if (a.evicted != b.evicted) return a.evicted;
    if (a.created != b.created) return a.created < b.created;
    return Key(a.namespace_, a.name) < Key(b.namespace_, b.name);
  });
  if (log_ != nullptr) {
    log_->Info("Garbage collecting pods", {{"numPods", std::to_string(excess)}});
  }
  for (int i = 0; i < excess; ++i) MarkFailedAndDelete(terminated[i], false);
}

void PodGcController::GcOrphaned(const std::map<std::string, std::vector<PodFacts>>& missing,
                                 TimePoint now) {
  // A quarantined node that is back, or that no pod is bound to any more, is forgotten.
  for (auto it = quarantined_.begin(); it != quarantined_.end();) {
    it = missing.count(it->first) == 0 ? quarantined_.erase(it) : std::next(it);
  }
  for (const auto& [node, pods] : missing) {
    auto [it, fresh] = quarantined_.try_emplace(node, now);
    if (fresh || now - it->second < options_.quarantine) continue;
    // Quarantine over: is it really gone (checkIfNodeExists)?
    auto got = client_.Get("/api/v1/nodes/" + node);
    if (got.ok()) {
      quarantined_.erase(it);
      continue;
    }
    if (got.status().code() != StatusCode::kNotFound) continue;
    for (const PodFacts& p : pods) {
      if (log_ != nullptr) {
        log_->Info("Found orphaned Pod assigned to the Node, deleting",
                   {{"pod", Key(p.namespace_, p.name)}, {"node", node}});
      }
      MarkFailedAndDelete(p, true);
    }
    quarantined_.erase(node);
  }
}

void PodGcController::GcUnscheduledTerminating(const std::vector<PodFacts>& pods) {
  for (const PodFacts& p : pods) {
    if (log_ != nullptr) {
      log_->Info("Found unscheduled terminating Pod not assigned to any Node, deleting",
                 {{"pod", Key(p.namespace_, p.name)}});
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
