#include "scheduler/framework/pod_info.h"

#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "api/pod_resources.h"
#include "common/fnv.h"
#include "scheduler/framework/intern_table.h"

namespace tidepool::scheduler {
namespace {

// The claims of the pods' volumes, in order: all that scheduling reads of volumes (the
// names differ per pod: the service account's kube-api-access-xxxxx).
bool SameClaims(const std::vector<api::Volume>& a, const std::vector<api::Volume>& b) {
  auto claim = [](const std::vector<api::Volume>& v, size_t& i) -> const std::string* {
    while (i < v.size() && v[i].claim_name.empty()) ++i;
    return i < v.size() ? &v[i++].claim_name : nullptr;
  };
  size_t i = 0, j = 0;
  while (true) {
    const std::string* x = claim(a, i);
    const std::string* y = claim(b, j);
    if (x == nullptr || y == nullptr) return x == y;
    if (*x != *y) return false;
  }
}

// Every field of the spec except nodeName, and of volumes their claims. Spelled out so that the
// comparison needs no copy of the pod; the static_assert below trips when PodSpec gains a field,
// which must be added here.
bool SameSpecExceptNodeName(const api::PodSpec& a, const api::PodSpec& b) {
  return a.init_containers == b.init_containers && a.containers == b.containers &&
         a.overhead == b.overhead && a.node_selector == b.node_selector &&
         a.affinity == b.affinity && a.tolerations == b.tolerations &&
         a.scheduler_name == b.scheduler_name && a.priority == b.priority &&
         a.priority_class_name == b.priority_class_name &&
         a.preemption_policy == b.preemption_policy && a.restart_policy == b.restart_policy &&
         a.termination_grace_period_seconds == b.termination_grace_period_seconds &&
         SameClaims(a.volumes, b.volumes);
}
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(api::PodSpec) == 456,
              "api::PodSpec changed: update SameSpecExceptNodeName and MakeShape");
static_assert(sizeof(api::ObjectMeta) == 320,
              "api::ObjectMeta changed: update SameClass and MakeShape");
#endif

// The pod's annotations but the GPU index, which is per pod (a class keeps none).
bool SameAnnotationsExceptGpuIndex(const std::map<std::string, std::string>& shape,
                                   const std::map<std::string, std::string>& pod) {
  if (!pod.contains(kGpuIndexAnnotation)) {
    return shape == pod;
  }
  if (shape.size() + 1 != pod.size()) {
    return false;
  }
  auto a = shape.begin();
  for (const auto& entry : pod) {
    if (entry.first == kGpuIndexAnnotation) {
      continue;
    }
    if (*a != entry) {
      return false;
    }
    ++a;
  }
  return true;
}

// Whether `pod` belongs to the class whose shape is `shape`: every field the shape keeps.
bool SameClass(const api::Pod& shape, const api::Pod& pod) {
  const api::ObjectMeta& a = shape.meta;
  const api::ObjectMeta& b = pod.meta;
  return a.namespace_ == b.namespace_ && a.generate_name == b.generate_name &&
         a.generation == b.generation && a.labels == b.labels &&
         SameAnnotationsExceptGpuIndex(a.annotations, b.annotations) &&
         a.owner_references == b.owner_references && SameSpecExceptNodeName(shape.spec, pod.spec);
}

api::Pod MakeShape(const api::Pod& pod) {
  api::Pod shape;
  shape.meta.generate_name = pod.meta.generate_name;
  shape.meta.namespace_ = pod.meta.namespace_;
  shape.meta.generation = pod.meta.generation;
  shape.meta.labels = pod.meta.labels;
  shape.meta.annotations = pod.meta.annotations;
  shape.meta.annotations.erase(kGpuIndexAnnotation);
  shape.meta.owner_references = pod.meta.owner_references;
  shape.spec = pod.spec;
  shape.spec.node_name.clear();
  // Of volumes, the class keeps what it compares (SameClaims): their claims.
  std::erase_if(shape.spec.volumes, [](const api::Volume& v) { return v.claim_name.empty(); });
  for (api::Volume& v : shape.spec.volumes) v = api::Volume{.claim_name = v.claim_name};
  return shape;
}

// The process-wide table of live classes, by fingerprint (intern_table.h).
using FpKey = std::pair<uint64_t, uint64_t>;
InternTable<PodClass, FpKey>& ClassTable() {
  static auto* t = new InternTable<PodClass, FpKey>();
  return *t;
}

// The annotations a class keeps, hashed: pods that differ only in them (a per-pod annotation
// such as tidepool.dev/duration) share a fingerprint and would otherwise chain in one slot.
uint64_t AnnotationsHash(const std::map<std::string, std::string>& annotations) {
  uint64_t h = 0;
  for (const auto& [k, v] : annotations) {
    if (k == kGpuIndexAnnotation) {
      continue;
    }
    h = (h ^ Fnv1a64(k)) * 0x100000001b3ULL;
    h = (h ^ Fnv1a64(v)) * 0x9e3779b97f4a7c15ULL;
  }
  return h;
}

std::shared_ptr<const PodClass> InternClass(const api::Pod& pod) {
  const api::PodFingerprint fp = api::SchedulingFingerprintWithNodeName(pod, "");
  return ClassTable().Intern(
      FpKey{fp.a ^ AnnotationsHash(pod.meta.annotations), fp.b},
      [&](const PodClass& c) { return SameClass(c.shape, pod); },
      [&] {
        // Built outside the table's mutex (PodRequests allocates).
        auto* c = new PodClass();
        c->shape = MakeShape(pod);
        c->request = Resource::FromList(api::PodRequests(c->shape));
        api::ResourceList non_zero = api::PodRequests(c->shape, {.non_missing_defaults = true});
        c->non_zero_milli_cpu = api::Get(non_zero, api::kResourceCpu).MilliValue();
        c->non_zero_memory = api::Get(non_zero, api::kResourceMemory).Value();
        c->gpu = GpuDemandOf(c->request);
        c->fingerprint = fp;
        return c;
      });
}

bool HasCondition(const api::Pod& pod, std::string_view type, api::ConditionStatus status,
                  std::string_view reason) {
  const api::PodCondition* c = pod.FindCondition(type);
  return c != nullptr && c->status == status && c->reason == reason;
}

}  // namespace

PodInfo::PodInfo(const api::Pod& pod)
    : class_(InternClass(pod)),
      phase_(pod.status.phase),
      marked_unschedulable_(
          HasCondition(pod, "PodScheduled", api::ConditionStatus::kFalse, "Unschedulable")),
      disruption_by_preemption_(HasCondition(pod, "DisruptionTarget", api::ConditionStatus::kTrue,
                                             "PreemptionByScheduler")),
      creation_(Raw(pod.meta.creation_timestamp)),
      deletion_(Raw(pod.meta.deletion_timestamp)),
      start_(Raw(pod.status.start_time)) {
  auto index = pod.meta.annotations.find(kGpuIndexAnnotation);
  if (index != pod.meta.annotations.end()) {
    gpu_indices_ = ParseGpuIndex(index->second).value_or(0);
  }
  SetStrings(pod.meta.name, pod.meta.uid, pod.spec.node_name, pod.status.nominated_node_name);
}

PodInfo::PodInfo(const PodInfo& other)
    : class_(other.class_),
      phase_(other.phase_),
      marked_unschedulable_(other.marked_unschedulable_),
      disruption_by_preemption_(other.disruption_by_preemption_),
      gpu_indices_(other.gpu_indices_),
      creation_(other.creation_),
      deletion_(other.deletion_),
      start_(other.start_) {
  SetStrings(other.name(), other.uid(), other.node_name(), other.nominated_node_name());
}

void PodInfo::SetStrings(std::string_view name, std::string_view uid, std::string_view node,
                         std::string_view nominated) {
  const std::string_view parts[4] = {name, uid, node, nominated};
  size_t total = 0;
  for (int i = 0; i < 4; ++i) {
    offset_[i] = static_cast<uint32_t>(total);
    total += parts[i].size();
  }
  offset_[4] = static_cast<uint32_t>(total);
  strings_ = std::make_unique_for_overwrite<char[]>(total == 0 ? 1 : total);
  for (int i = 0; i < 4; ++i) {
    if (!parts[i].empty()) {
      std::memcpy(strings_.get() + offset_[i], parts[i].data(), parts[i].size());
    }
  }
}

std::string PodInfo::Key() const {
  std::string key;
  key.reserve(namespace_().size() + 1 + name().size());
  key.append(namespace_()).append("/").append(name());
  return key;
}

PodInfoConstSharedPtr PodInfo::WithNodeName(std::string_view node_name) const {
  auto info = std::make_shared<PodInfo>(*this);
  info->SetStrings(name(), uid(), node_name, nominated_node_name());
  return info;
}

PodInfoConstSharedPtr PodInfo::WithPlacement(std::string_view node_name,
                                             uint32_t gpu_indices) const {
  auto info = std::make_shared<PodInfo>(*this);
  info->SetStrings(name(), uid(), node_name, nominated_node_name());
  info->gpu_indices_ = gpu_indices;
  return info;
}

api::Pod PodInfo::ToPod() const {
  api::Pod pod = class_->shape;
  pod.meta.name = std::string(name());
  pod.meta.uid = std::string(uid());
  pod.meta.creation_timestamp = creation_timestamp();
  pod.meta.deletion_timestamp = deletion_timestamp();
  pod.spec.node_name = std::string(node_name());
  if (gpu_indices_ != 0) {
    pod.meta.annotations[kGpuIndexAnnotation] = FormatGpuIndex(gpu_indices_);
  }
  pod.status.phase = phase_;
  pod.status.nominated_node_name = std::string(nominated_node_name());
  pod.status.start_time = start_time();
  if (marked_unschedulable_) {
    pod.status.conditions.push_back(api::PodCondition{.type = "PodScheduled",
                                                      .status = api::ConditionStatus::kFalse,
                                                      .reason = "Unschedulable"});
  }
  if (disruption_by_preemption_) {
    pod.status.conditions.push_back(api::PodCondition{.type = "DisruptionTarget",
                                                      .status = api::ConditionStatus::kTrue,
                                                      .reason = "PreemptionByScheduler"});
  }
  return pod;
}

size_t PodInfo::NumLiveClasses() { return ClassTable().NumLive(); }

PodInfoConstSharedPtr MakePodInfo(const api::Pod& pod) { return std::make_shared<PodInfo>(pod); }

}  // namespace tidepool::scheduler
