#include "runtime/kube_scheduler.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "api/codec/json_codec.h"
#include "client/decoded.h"
#include "scheduler/plugins/volume_binding/volume_binding.h"

namespace tidepool::runtime {
namespace {

using json = nlohmann::json;

constexpr Duration kSyncTimeout = std::chrono::seconds(60);
// client-go's WaitForCacheSync polls every 100 ms (syncedPollPeriod).
constexpr Duration kSyncPoll = std::chrono::milliseconds(100);

}  // namespace

KubeScheduler::KubeScheduler(const client::RestClient& kube, const Clock& clock,
                             const scheduler::Scheduler& scheduler,
                             scheduler::SchedulingQueueOptions options, log::Logger* logger,
                             uint64_t seed, client::SharedInformerFactory* informers,
                             TimerService* executor,
                             std::shared_ptr<scheduler::VolumeCache> volumes)
    : kube_(kube),
      clock_(clock),
      bind_timeout_(options.volume_bind_timeout),
      bind_poll_(options.volume_bind_poll > Duration::zero() ? options.volume_bind_poll
                                                             : std::chrono::seconds(1)),
      logger_(logger),
      timers_(clock, executor),
      queue_(timers_, scheduler, *this, options),
      events_(kube, clock, "default-scheduler", logger, executor),
      volumes_(std::move(volumes)) {
  // The queue keeps the decoded objects.
  auto make = [&](const std::string& name, const std::string& path, uint64_t s) {
    return client::MakeDecodingInformer(informers, kube_, clock_, name, path, seed + s, logger_);
  };
  nodes_ = make("scheduler-nodes", "/api/v1/nodes", 1);
  pods_ = make("scheduler-pods", "/api/v1/pods", 2);
  nodes_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnNode(Change::kAdded, o); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnNode(Change::kModified, o); },
       [this](const client::ObjectRef& o, bool) { OnNode(Change::kDeleted, o); }});
  pods_->AddEventHandlers(
      {[this](const client::ObjectRef& o, bool) { OnPod(Change::kAdded, o); },
       [this](const client::ObjectRef&, const client::ObjectRef& o) { OnPod(Change::kModified, o); },
       [this](const client::ObjectRef& o, bool) { OnPod(Change::kDeleted, o); }});
  if (volumes_ == nullptr) return;
  using Storage = scheduler::ClusterEvent::Storage;
  struct Kind {
    Storage kind;
    const char* name;
    const char* path;
  };
  static constexpr Kind kKinds[] = {
      {Storage::kClaim, "scheduler-persistentvolumeclaims", "/api/v1/persistentvolumeclaims"},
      {Storage::kVolume, "scheduler-persistentvolumes", "/api/v1/persistentvolumes"},
      {Storage::kClass, "scheduler-storageclasses", "/apis/storage.k8s.io/v1/storageclasses"}};
  uint64_t s = 3;
  for (const auto& [kind, name, path] : kKinds) {
    auto inf = make(name, path, s++);
    inf->AddEventHandlers(
        {[this, kind](const client::ObjectRef& o, bool) { OnStorage(kind, Change::kAdded, o); },
         [this, kind](const client::ObjectRef&, const client::ObjectRef& o) {
           OnStorage(kind, Change::kModified, o);
         },
         [this, kind](const client::ObjectRef& o, bool) { OnStorage(kind, Change::kDeleted, o); }});
    storage_.push_back(std::move(inf));
  }
}

KubeScheduler::~KubeScheduler() { Stop(); }

void KubeScheduler::Start() {
  if (started_) return;
  started_ = true;
  timers_.Start();
  if (!timers_.threaded()) {
    // Driven informers: poll for their sync on the executor instead of waiting.
    timers_.Post([this] { CheckSynced(); });
    return;
  }
  nodes_->Start();
  pods_->Start();
  for (const auto& inf : storage_) inf->Start();
  bool synced = nodes_->WaitForSync(kSyncTimeout) && pods_->WaitForSync(kSyncTimeout);
  for (const auto& inf : storage_) synced = synced && inf->WaitForSync(kSyncTimeout);
  if (!synced) {
    if (logger_ != nullptr) logger_->Warning("scheduler: informers did not sync; scheduling anyway");
  }
  ReleaseHeld();
}

void KubeScheduler::CheckSynced() {
  if (HasSynced()) {
    ReleaseHeld();
    return;
  }
  timers_.ScheduleAfter(kSyncPoll, [this] { CheckSynced(); });
}

void KubeScheduler::ReleaseHeld() {
  // WaitForCacheSync done: what arrived meanwhile goes to the queue, nodes first.
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& fn : held_nodes_) timers_.Post(std::move(fn));
  for (auto& fn : held_pods_) timers_.Post(std::move(fn));
  held_nodes_.clear();
  held_pods_.clear();
  synced_ = true;
}

void KubeScheduler::Stop() {
  if (!started_) return;
  started_ = false;
  if (timers_.threaded()) {
    std::vector<client::Informer*> all = {nodes_.get(), pods_.get()};
    for (const auto& inf : storage_) all.push_back(inf.get());
    client::StopAll(all);
  }
  timers_.Stop();
}

bool KubeScheduler::HasSynced() const {
  for (const auto& inf : storage_) {
    if (!inf->HasSynced()) return false;
  }
  return nodes_->HasSynced() && pods_->HasSynced();
}

void KubeScheduler::Deliver(bool node, std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!synced_) {
    (node ? held_nodes_ : held_pods_).push_back(std::move(fn));
    return;
  }
  timers_.Post(std::move(fn));
}

void KubeScheduler::OnNode(Change change, const client::ObjectRef& obj) {
  StatusOr<api::NodeConstSharedPtr> node = client::DecodedNode(obj);
  api::NodeConstSharedPtr ptr;
  if (node.ok()) {
    ptr = *std::move(node);
  } else {
    if (change != Change::kDeleted) {
      if (logger_ != nullptr) {
        logger_->Warning("scheduler: cannot decode node", {{"err", node.status().ToString()}});
      }
      change = Change::kDeleted;  // a node it cannot read is no node to schedule onto
    }
    api::Node stub;
    stub.meta.name = client::Informer::KeyOf(*obj);
    ptr = std::make_shared<const api::Node>(std::move(stub));
  }
  Deliver(true, [this, change, ptr] { queue_.OnNode(change, ptr); });
}

void KubeScheduler::OnPod(Change change, const client::ObjectRef& obj) {
  Status error;
  api::PodConstSharedPtr ptr = DecodePodOrStub(obj, &error);
  if (!error.ok()) {
    if (change != Change::kDeleted && logger_ != nullptr) {
      logger_->Warning("scheduler: cannot decode pod", {{"err", error.ToString()}});
    }
    change = Change::kDeleted;  // a pod it cannot read is forgotten
  }
  Deliver(false, [this, change, ptr] { queue_.OnPod(change, ptr); });
}

void KubeScheduler::OnStorage(scheduler::ClusterEvent::Storage kind, Change change,
                              const client::ObjectRef& obj) {
  using Storage = scheduler::ClusterEvent::Storage;
  std::string ns, name;
  if (obj->is_object()) {
    if (auto m = obj->find("metadata"); m != obj->end() && m->is_object()) {
      ns = m->value("namespace", "");
      name = m->value("name", "");
    }
  }
  Status error;
  if (kind == Storage::kClaim) {
    auto claim = api::codec::PersistentVolumeClaimFromJson(*obj);
    if (change == Change::kDeleted || !claim.ok()) {
      volumes_->RemoveClaim(ns, name);
    } else {
      volumes_->PutClaim(std::make_shared<const api::PersistentVolumeClaim>(*std::move(claim)));
    }
    error = claim.status();
  } else if (kind == Storage::kVolume) {
    auto volume = api::codec::PersistentVolumeFromJson(*obj);
    if (change == Change::kDeleted || !volume.ok()) {
      volumes_->RemoveVolume(name);
    } else {
      volumes_->PutVolume(std::make_shared<const api::PersistentVolume>(*std::move(volume)));
    }
    error = volume.status();
  } else {
    auto sc = api::codec::StorageClassFromJson(*obj);
    if (change == Change::kDeleted || !sc.ok()) {
      volumes_->RemoveClass(name);
    } else {
      volumes_->PutClass(std::make_shared<const api::StorageClass>(*std::move(sc)));
    }
    error = sc.status();
  }
  if (!error.ok() && change != Change::kDeleted && logger_ != nullptr) {
    logger_->Warning("scheduler: cannot decode a storage object",
                     {{"name", name}, {"err", error.ToString()}});
  }
  // EventsToRegister: claims, volumes and classes added or updated (a deletion helps no pod).
  if (change == Change::kDeleted) return;
  scheduler::ClusterEvent event;
  event.kind = scheduler::ClusterEvent::Kind::kStorageChange;
  event.storage = kind;
  if (kind == Storage::kClaim) {
    event.claim_namespace = ns;
    event.claim_name = name;
  }
  Deliver(false, [this, event] { queue_.OnStorageChange(event); });
}

// ---- What the queue does through the API ---------------------------------------------------

namespace {

constexpr std::string_view kPreBindPrefix = "running PreBind plugin \"VolumeBinding\": ";

Status PreBindError(const Status& s, std::string_view what = "") {
  return Status(s.code(),
                std::string(kPreBindPrefix) + std::string(what) + std::string(s.message()));
}

std::string ResourceVersionOf(const json& obj) {
  if (!obj.is_object()) return "";
  const auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return "";
  const auto rv = m->find("resourceVersion");
  return rv != m->end() && rv->is_string() ? rv->get<std::string>() : "";
}

}  // namespace

StatusOr<scheduler::plugins::PodVolumeWrites> KubeScheduler::WriteVolumeBindings(
    const api::Pod& pod, const std::string& node) {
  scheduler::plugins::PodVolumeWrites writes;
  if (volumes_ == nullptr) return writes;
  api::Labels labels;
  if (const scheduler::NodeInfo* info = queue_.snapshot().GetNodeInfo(node)) {
    labels = info->AllLabels();
  }
  // The delayed claims, smallest first, as VolumeBinding's Filter matched them.
  std::vector<api::PersistentVolumeClaimConstSharedPtr> delayed;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.claim_name.empty()) continue;
    auto claim = volumes_->Claim(pod.meta.namespace_, v.claim_name);
    if (claim == nullptr || !claim->volume_name.empty()) continue;
    if (const std::string selected = claim->SelectedNode(); !selected.empty()) {
      // Given this node by an earlier binding cycle (Filter rejects another node's claim):
      // written already, waited for again.
      if (selected == node) {
        writes.provisions.push_back({claim->meta.name, claim->meta.resource_version});
      }
      continue;
    }
    const auto sc = volumes_->Class(claim->ClassName());
    if (sc != nullptr && sc->WaitForFirstConsumer()) delayed.push_back(std::move(claim));
  }
  std::stable_sort(delayed.begin(), delayed.end(), [](const auto& a, const auto& b) {
    return a->storage_request < b->storage_request;
  });
  std::set<std::string> chosen;
  for (const auto& claim : delayed) {
    if (const auto volume = scheduler::plugins::FindVolumeFor(*volumes_, *claim, labels, &chosen)) {
      chosen.insert(volume->meta.name);
      auto written = BindVolume(*claim, *volume);
      if (!written.ok()) return written.status();
      writes.bindings.push_back({claim->meta.name, volume->meta.name, ResourceVersionOf(*written)});
      // Assumed at once (AssumePodVolumes): the next pod of this cycle does not take it too.
      if (auto pv = api::codec::PersistentVolumeFromJson(*written); pv.ok()) {
        volumes_->AssumeVolume(std::make_shared<const api::PersistentVolume>(*std::move(pv)));
      }
      continue;
    }
    const json patch = {
        {"metadata", {{"annotations", {{std::string(api::kAnnSelectedNode), node}}}}}};
    auto written = kube_.Patch(client::ResourcePath("", "v1", "persistentvolumeclaims",
                                                    pod.meta.namespace_, claim->meta.name),
                               client::PatchType::kMerge, patch);
    if (!written.ok()) return written.status();
    writes.provisions.push_back({claim->meta.name, ResourceVersionOf(*written)});
    if (auto pvc = api::codec::PersistentVolumeClaimFromJson(*written); pvc.ok()) {
      volumes_->AssumeClaim(std::make_shared<const api::PersistentVolumeClaim>(*std::move(pvc)));
    }
  }
  return writes;
}

StatusOr<json> KubeScheduler::BindVolume(const api::PersistentVolumeClaim& claim,
                                         const api::PersistentVolume& volume) {
  const std::string path =
      client::ResourcePath("", "v1", "persistentvolumes", "", volume.meta.name);
  auto pv = kube_.Get(path);
  if (!pv.ok()) return pv.status();
  json updated = *std::move(pv);
  if (!updated.is_object()) return Status(StatusCode::kInternal, "not an object");
  // GetBindVolumeToClaim: the claim's reference, and bound-by-controller.
  updated["spec"]["claimRef"] = {{"kind", "PersistentVolumeClaim"},
                                 {"namespace", claim.meta.namespace_},
                                 {"name", claim.meta.name},
                                 {"uid", claim.meta.uid},
                                 {"apiVersion", "v1"},
                                 {"resourceVersion", claim.meta.resource_version}};
  updated["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] = "yes";
  // The version the choice was made on (bindAPIUpdate updates the assumed object): a volume
  // another writer changed since is a conflict, not taken from it.
  if (!volume.meta.resource_version.empty()) {
    updated["metadata"]["resourceVersion"] = volume.meta.resource_version;
  }
  return kube_.Update(path, updated);
}

void KubeScheduler::Bind(const api::Pod& pod, const std::string& node,
                         const scheduler::Reservation& reservation, BindDone done) {
  auto writes = WriteVolumeBindings(pod, node);
  if (!writes.ok()) {
    if (logger_ != nullptr) {
      logger_->Warning("scheduler: cannot bind the pod's volumes",
                       {{"pod", pod.Key()}, {"err", writes.status().ToString()}});
    }
    done(PreBindError(writes.status()));
    return;
  }
  if (writes->empty()) {  // every claim bound already (or none)
    done(PostBinding(pod, node, reservation));
    return;
  }
  auto wait = std::make_shared<VolumeWait>(VolumeWait{pod, node, reservation, *std::move(writes),
                                                      timers_.clock().Now() + bind_timeout_,
                                                      std::move(done)});
  timers_.ScheduleAfter(bind_poll_, [this, wait] { PollVolumes(wait); });
}

void KubeScheduler::PollVolumes(std::shared_ptr<VolumeWait> wait) {
  const api::Pod& pod = wait->pod;
  const std::string& node = wait->node;
  StatusOr<bool> bound = false;
  // checkBindings: the node, then the pod, then each claim written.
  if (const scheduler::NodeInfo* info = queue_.snapshot().GetNodeInfo(node); info == nullptr) {
    bound = Status(StatusCode::kNotFound,
                   "failed to get node \"" + node + "\": node \"" + node + "\" not found");
  } else if (pods_->Get(pod.Key()) == nullptr) {
    bound = Status(StatusCode::kNotFound,
                   "pod does not exist any more: pod \"" + pod.meta.name + "\" not found");
  } else {
    bound = scheduler::plugins::CheckBindings(*volumes_, pod.meta.namespace_, node,
                                              info->AllLabels(), wait->writes);
  }
  if (bound.ok() && !*bound) {
    if (timers_.clock().Now() < wait->deadline) {
      timers_.ScheduleAfter(bind_poll_, [this, wait] { PollVolumes(wait); });
      return;
    }
    bound = Status(StatusCode::kDeadlineExceeded, "context deadline exceeded");
  }
  if (!bound.ok()) {
    const Status error = PreBindError(bound.status(), "binding volumes: ");
    if (logger_ != nullptr) {
      logger_->Warning("scheduler: the pod's volumes were not bound",
                       {{"pod", pod.Key()}, {"node", node}, {"err", error.ToString()}});
    }
    wait->done(error);
    return;
  }
  wait->done(PostBinding(pod, node, wait->reservation));
}

Status KubeScheduler::PostBinding(const api::Pod& pod, const std::string& node,
                                  const scheduler::Reservation& reservation) {
  json binding = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata",
       {{"name", pod.meta.name}, {"namespace", pod.meta.namespace_}, {"uid", pod.meta.uid}}},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  if (reservation.gpu_indices != 0) {
    binding["metadata"]["annotations"] = {
        {scheduler::kGpuIndexAnnotation, scheduler::FormatGpuIndex(reservation.gpu_indices)}};
  }
  auto r = kube_.Create(
      client::ResourcePath("", "v1", "pods", pod.meta.namespace_, pod.meta.name, "binding"),
      binding);
  if (r.ok()) return Status::Ok();
  if (logger_ != nullptr) {
    logger_->Warning("scheduler: binding rejected",
                     {{"pod", pod.Key()}, {"node", node}, {"err", r.status().ToString()}});
  }
  // RunBindPlugins' error.
  return Status(r.status().code(),
                "running Bind plugin \"DefaultBinder\": " + std::string(r.status().message()));
}

void KubeScheduler::Event(const scheduler::PodRef& pod, std::string_view type,
                          std::string_view reason, std::string message) {
  events_.Event(autoscaler::ObjectRef{"Pod", pod.namespace_, pod.name, pod.uid}, type, reason,
                std::move(message));
}

void KubeScheduler::SetUnschedulable(const api::Pod& pod, const api::PodCondition& condition,
                                     const std::optional<std::string>& nominated_node) {
  const api::PodCondition* existing = pod.FindCondition(condition.type);
  const bool nominated_changed =
      nominated_node.has_value() && *nominated_node != pod.status.nominated_node_name;
  const bool same = existing != nullptr && existing->status == condition.status &&
                    existing->reason == condition.reason && existing->message == condition.message;
  if (same && !nominated_changed) return;  // podutil.UpdatePodCondition: nothing to write
  const TimePoint transition = existing != nullptr && existing->status == condition.status &&
                                       existing->last_transition_time.has_value()
                                   ? *existing->last_transition_time
                                   : clock_.Now();
  json cond = {{"type", condition.type},
               {"status", "False"},
               {"lastProbeTime", nullptr},
               {"lastTransitionTime", FormatRfc3339(transition)},
               {"reason", condition.reason},
               {"message", condition.message}};
  json patch = {{"status", {{"conditions", json::array({cond})}}}};
  if (nominated_node.has_value()) patch["status"]["nominatedNodeName"] = *nominated_node;
  const Status r = kube_.PatchUnread(
      client::ResourcePath("", "v1", "pods", pod.meta.namespace_, pod.meta.name, "status"),
      client::PatchType::kStrategicMerge, patch);
  if (!r.ok() && logger_ != nullptr && r.code() != StatusCode::kNotFound) {
    logger_->Warning("scheduler: cannot update the pod's condition",
                     {{"pod", pod.Key()}, {"err", r.ToString()}});
  }
}

void KubeScheduler::DeleteVictim(const scheduler::PodRef& victim) {
  const json options = {{"apiVersion", "v1"},
                        {"kind", "DeleteOptions"},
                        {"preconditions", {{"uid", victim.uid}}}};
  auto r =
      kube_.Delete(client::ResourcePath("", "v1", "pods", victim.namespace_, victim.name), options);
  if (!r.ok() && logger_ != nullptr && r.status().code() != StatusCode::kNotFound) {
    logger_->Warning("scheduler: cannot delete a preemption victim",
                     {{"pod", victim.namespace_ + "/" + victim.name}, {"err", r.status().ToString()}});
  }
}

}  // namespace tidepool::runtime
