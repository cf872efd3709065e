#include "controllers/tainteviction/taint_eviction_controller.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "api/codec/json_codec.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::tainteviction {
namespace {

using json = nlohmann::json;

constexpr char kNodeKey[] = "n/";   // a node's NoExecute taints changed
constexpr char kPodKey[] = "p/";    // a pod's tolerations or node changed
constexpr char kEvictKey[] = "x/";  // a pod's deletion is due
constexpr int kRetries = 5;
constexpr char kController[] = "taint-eviction-controller";

// getNoExecuteTaints of a Node object's spec.taints (undecodable taints count as none).
std::vector<api::Taint> NoExecuteTaints(const json& node) {
  auto taints = api::codec::TaintsFromJson(Member(Member(node, "spec"), "taints"));
  std::vector<api::Taint> out;
  if (!taints.ok()) return out;
  for (api::Taint& t : *taints) {
    if (t.effect == api::TaintEffect::kNoExecute) out.push_back(std::move(t));
  }
  return out;
}

// v1helper.GetMatchingTolerations: whether every taint is tolerated, with the first toleration
// that tolerates each taint in `used`.
bool MatchingTolerations(const std::vector<api::Taint>& taints,
                         const std::vector<api::Toleration>& tolerations,
                         std::vector<const api::Toleration*>* used) {
  for (const api::Taint& taint : taints) {
    auto it = std::find_if(tolerations.begin(), tolerations.end(),
                           [&](const api::Toleration& t) { return t.ToleratesTaint(taint); });
    if (it == tolerations.end()) return false;
    used->push_back(&*it);
  }
  return true;
}

// getMinTolerationTime: the smallest tolerationSeconds of `used` (none used: 0; 0 or less: 0),
// or nullopt when none names a time (tolerated for ever).
std::optional<Duration> MinTolerationTime(const std::vector<const api::Toleration*>& used) {
  if (used.empty()) return Duration::zero();
  int64_t min = std::numeric_limits<int64_t>::max();
  for (const api::Toleration* t : used) {
    if (!t->toleration_seconds.has_value()) continue;
    if (*t->toleration_seconds <= 0) return Duration::zero();
    min = std::min(min, *t->toleration_seconds);
  }
  if (min == std::numeric_limits<int64_t>::max()) return std::nullopt;
  return std::chrono::seconds(min);
}

}  // namespace

TaintEvictionController::TaintEvictionController(
    const client::RestClient& client, const Clock& clock, TaintEvictionControllerOptions options,
    autoscaler::EventRecorder* recorder, log::Logger* logger,
    client::SharedInformerFactory* informers, TimerService* executor)
    : client_(client),
      clock_(clock),
      options_(options),
      recorder_(recorder),
      log_(logger),
      executor_(executor),
      queue_(
          clock, [this](const std::string& key) { return Sync(key); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  pods_ = client::MakeDecodingInformer(informers, client_, clock_, "taint-eviction-pods",
                                       "/api/v1/pods", options_.seed, logger);
  nodes_ = client::MakeDecodingInformer(informers, client_, clock_, "taint-eviction-nodes",
                                        "/api/v1/nodes", options_.seed + 1, logger);
  pods_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPod(*o, false); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnPod(*o, false); },
       [this](const client::ObjectRef& o, bool) { OnPod(*o, true); }});
  nodes_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnNode(*o, false); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnNode(*o, false); },
       [this](const client::ObjectRef& o, bool) { OnNode(*o, true); }});
}

TaintEvictionController::~TaintEvictionController() { Stop(); }

void TaintEvictionController::Start() {
  if (executor_ == nullptr) {  // with an executor, a driver feeds the informers
    pods_->Start();
    nodes_->Start();
  }
  queue_.Start();
}

void TaintEvictionController::Stop() {
  queue_.Stop();
  client::StopAll({pods_.get(), nodes_.get()});
}

bool TaintEvictionController::HasSynced() const {
  return pods_->HasSynced() && nodes_->HasSynced();
}

uint64_t TaintEvictionController::deleted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return deleted_;
}

void TaintEvictionController::OnPod(const json& pod, bool deleted) {
  const json& spec = Member(pod, "spec");
  const json& meta = Meta(pod);
  const std::string key = Key(Str(Member(meta, "namespace")), Str(Member(meta, "name")));
  const std::string node = deleted ? "" : Str(Member(spec, "nodeName"));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = facts_.find(key);
  if (it != facts_.end() && it->second.node != node) {
    auto n = by_node_.find(it->second.node);
    n->second.erase(key);
    if (n->second.empty()) by_node_.erase(n);
    facts_.erase(it);
    it = facts_.end();
  }
  if (node.empty()) {  // gone, or bound to no node yet: nothing kept
    if (deleted && work_.count(key) > 0) queue_.Add(kPodKey + key);  // a cancellation to do
    return;
  }
  Tolerations tolerations = InternLocked(Member(spec, "tolerations"));
  // PodUpdated: only a change of tolerations or node matters (interned lists: the same list
  // is the same pointer).
  if (it != facts_.end() && it->second.tolerations == tolerations) return;
  if (it == facts_.end()) {
    it = facts_.try_emplace(key).first;
    it->second.node = node;
    by_node_[node].insert(key);
  }
  it->second.tolerations = std::move(tolerations);
  // Nothing to do on a node without NoExecute taints, handled or not (a node's pending sync
  // looks at its pods).
  if (tainted_.count(node) > 0 || HasTaintsLocked(node)) queue_.Add(kPodKey + key);
}

TaintEvictionController::Tolerations TaintEvictionController::InternLocked(
    const json& tolerations) {
  // Expired entries go every so often, so that the table stays about as large as the lists in
  // use.
  if (++interned_since_sweep_ >= 1024 && interned_.size() >= 1024) {
    interned_since_sweep_ = 0;
    std::erase_if(interned_, [](const auto& e) { return e.second.expired(); });
  }
  std::weak_ptr<const std::vector<api::Toleration>>& slot = interned_[tolerations.dump()];
  if (Tolerations shared = slot.lock()) return shared;
  auto decoded = api::codec::TolerationsFromJson(tolerations);
  Tolerations shared = std::make_shared<const std::vector<api::Toleration>>(
      decoded.ok() ? std::move(*decoded) : std::vector<api::Toleration>());
  slot = shared;
  return shared;
}

bool TaintEvictionController::HasTaintsLocked(const std::string& node) const {
  auto it = node_taints_.find(node);
  return it != node_taints_.end() && !it->second.empty();
}

void TaintEvictionController::OnNode(const json& node, bool deleted) {
  const std::string name = Str(Member(Meta(node), "name"));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = node_taints_.find(name);
  if (deleted) {
    if (it != node_taints_.end()) node_taints_.erase(it);
  } else {
    std::vector<api::Taint> taints = NoExecuteTaints(node);
    // NodeUpdated: only a change of its NoExecute taints matters.
    if (it != node_taints_.end() && it->second == taints) return;
    node_taints_[name] = std::move(taints);
  }
  queue_.Add(kNodeKey + name);
}

std::optional<TimePoint> TaintEvictionController::Sync(const std::string& key) {
  const TimePoint now = clock_.Now();
  const std::string rest = key.substr(2);
  std::optional<TimePoint> next;
  if (key.rfind(kNodeKey, 0) == 0) {
    HandleNode(rest, now);
  } else if (key.rfind(kPodKey, 0) == 0) {
    HandlePod(rest, now);
  } else {
    bool run = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      run = due_.erase(rest) > 0;
      auto w = work_.find(rest);
      if (!run && w != work_.end() && w->second.fire.has_value()) {
        if (*w->second.fire > now) {
          next = w->second.fire;
        } else {
          w->second.fire.reset();  // the timer fired: the nil worker from now on
          run = true;
        }
      }
    }
    if (run) {
      const bool ok = Evict(rest);
      std::lock_guard<std::mutex> lock(mu_);
      if (ok) {
        work_[rest] = Work{now, std::nullopt};
        ++deleted_;
      } else {
        work_.erase(rest);
      }
    }
  }
  std::vector<std::pair<std::string, std::string>> events;
  {
    std::lock_guard<std::mutex> lock(mu_);
    events.swap(pending_events_);
  }
  for (auto& [pod, message] : events) PodEvent(pod, std::move(message));
  return next;
}

void TaintEvictionController::HandleNode(const std::string& name, TimePoint now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = node_taints_.find(name);
  if (it == node_taints_.end() || it->second.empty()) {
    tainted_.erase(name);
  } else {
    tainted_[name] = it->second;
  }
  if (it == node_taints_.end()) return;  // deleted: its pods' scheduled deletions stay
  auto pods = by_node_.find(name);
  if (pods == by_node_.end()) return;
  if (it->second.empty()) {  // every taint gone: every scheduled deletion is cancelled
    for (const std::string& key : pods->second) CancelLocked(key);
    return;
  }
  for (const std::string& key : pods->second) {
    ProcessPodLocked(key, *facts_.at(key).tolerations, it->second, now);
  }
}

void TaintEvictionController::HandlePod(const std::string& key, TimePoint now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = facts_.find(key);
  if (it == facts_.end()) {  // gone
    CancelLocked(key);
    return;
  }
  auto taints = tainted_.find(it->second.node);
  if (taints == tainted_.end()) return;
  ProcessPodLocked(key, *it->second.tolerations, taints->second, now);
}

void TaintEvictionController::ProcessPodLocked(const std::string& key,
                                               const std::vector<api::Toleration>& tolerations,
                                               const std::vector<api::Taint>& taints,
                                               TimePoint now) {
  std::vector<const api::Toleration*> used;
  if (!MatchingTolerations(taints, tolerations, &used)) {
    CancelLocked(key);  // deleted right away instead
    AddWorkLocked(key, now, now, now);
    return;
  }
  const std::optional<Duration> min = MinTolerationTime(used);
  if (!min.has_value()) {  // tolerated for ever
    CancelLocked(key);
    return;
  }
  TimePoint start = now;
  const TimePoint trigger = now + *min;
  auto w = work_.find(key);
  if (w != work_.end() && w->second.fire.has_value()) {
    start = w->second.created;
    if (start + *min < trigger) return;  // the deletion already scheduled stays
    CancelLocked(key);
  }
  AddWorkLocked(key, start, trigger, now);
}

void TaintEvictionController::AddWorkLocked(const std::string& key, TimePoint created,
                                            TimePoint fire, TimePoint now) {
  if (work_.count(key) > 0) return;  // "Trying to add already existing work, skipping"
  // createWorker: the timer waits fire - created from now; nothing to wait: at once.
  const Duration delay = fire - created;
  if (delay <= Duration::zero()) {
    work_[key] = Work{created, std::nullopt};
    due_.insert(key);
    queue_.Add(kEvictKey + key);
    return;
  }
  work_[key] = Work{created, now + delay};
  queue_.AddAt(kEvictKey + key, now + delay);
}

void TaintEvictionController::CancelLocked(const std::string& key) {
  auto w = work_.find(key);
  if (w == work_.end()) return;
  if (w->second.fire.has_value()) {
    pending_events_.emplace_back(key, "Cancelling deletion of Pod " + key);
  }
  work_.erase(w);
}

bool TaintEvictionController::Evict(const std::string& key) {
  PodEvent(key, "Marking for deletion Pod " + key);
  if (log_ != nullptr) log_->Info("Deleting pod", {{"controller", kController}, {"pod", key}});
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  Status s;
  for (int attempt = 0; attempt < kRetries; ++attempt) {
    s = AddConditionAndDelete(ns, name);
    if (s.ok()) return true;
  }
  if (log_ != nullptr) {
    log_->Warning("Cannot delete the pod", {{"pod", key}, {"err", s.ToString()}});
  }
  return false;
}

Status TaintEvictionController::AddConditionAndDelete(const std::string& ns,
                                                      const std::string& name) {
  const std::string path = client::ResourcePath("", "v1", "pods", ns, name);
  TIDEPOOL_ASSIGN_OR_RETURN(json pod, client_.Get(path));
  constexpr char kReason[] = "DeletionByTaintManager";
  constexpr char kMessage[] = "Taint manager: deleting due to NoExecute taint";
  bool present = false;
  const json& conditions = Member(Member(pod, "status"), "conditions");
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      present |= Str(Member(c, "type")) == "DisruptionTarget" &&
                 Str(Member(c, "status")) == "True" && Str(Member(c, "reason")) == kReason &&
                 Str(Member(c, "message")) == kMessage;
    }
  }
  if (!present) {
    const json condition = {
        {"type", "DisruptionTarget"}, {"status", "True"},
        {"lastProbeTime", nullptr},   {"lastTransitionTime", FormatRfc3339(clock_.Now())},
        {"reason", kReason},          {"message", kMessage}};
    // utilpod.PatchPodStatus: the pod's uid as a precondition.
    const json patch = {{"metadata", {{"uid", Member(Meta(pod), "uid")}}},
                        {"status", {{"conditions", json::array({condition})}}}};
    TIDEPOOL_RETURN_IF_ERROR(
        client_.PatchUnread(path + "/status", client::PatchType::kStrategicMerge, patch));
  }
  return client_.Delete(path).status();
}

void TaintEvictionController::PodEvent(const std::string& key, std::string message) {
  if (recorder_ == nullptr) return;
  const size_t slash = key.find('/');
  recorder_->Event({"Pod", key.substr(0, slash), key.substr(slash + 1), ""}, "Normal",
                   "TaintManagerEviction", std::move(message));
}

}  // namespace tidepool::controllers::tainteviction
