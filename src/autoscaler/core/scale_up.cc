#include "autoscaler/core/scale_up.h"

#include <algorithm>
#include <climits>
#include <unordered_set>

#include "common/check.h"

namespace tidepool::autoscaler {
namespace {

constexpr const char* kReasonMaxSize = "max node group size reached";
constexpr const char* kReasonNotReady = "not ready for scale-up";

// Whole units of a node's capacity (cores for cpu), as CA counts cluster totals.
int64_t CapacityOf(const api::Node& n, std::string_view name) {
  return api::Get(n.status.capacity, name).Value();
}

std::string JoinSorted(const std::map<std::string, int>& counts) {
  std::vector<std::string> parts;
  for (const auto& [reason, n] : counts) {
    parts.push_back(std::to_string(n) + " " + reason);
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    out += (i > 0 ? ", " : "") + parts[i];
  }
  return out;
}

}  // namespace

std::string FormatScaleUpInfos(const std::vector<ScaleUpInfo>& infos) {
  std::string out = "[";
  for (size_t i = 0; i < infos.size(); ++i) {
    const ScaleUpInfo& s = infos[i];
    out += (i > 0 ? " " : "");
    out += "{" + s.group + " " + std::to_string(s.current_size) + "->" +
           std::to_string(s.new_size) + " (max: " + std::to_string(s.max_size) + ")}";
  }
  return out + "]";
}

ObjectRef RefOf(const api::Pod& pod) {
  return ObjectRef{"Pod", pod.meta.namespace_, pod.meta.name, pod.meta.uid};
}

ObjectRef RefOf(const scheduler::PodInfo& pod) {
  return ObjectRef{"Pod", pod.namespace_(), std::string(pod.name()), std::string(pod.uid())};
}

ScaleUpOrchestrator::ScaleUpOrchestrator(const AutoscalingOptions& options,
                                         cloud::CloudProvider& cloud,
                                         const scheduler::Framework& framework,
                                         expander::Strategy& expander, EventRecorder& recorder,
                                         log::Logger& logger)
    : options_(options),
      cloud_(cloud),
      framework_(framework),
      expander_(expander),
      recorder_(recorder),
      log_(logger),
      estimator_(framework) {}

int ScaleUpOrchestrator::AllowedByResourceLimits(const api::Node& t, const ClusterResources& usage,
                                                 std::string& reason) const {
  int allowed = INT_MAX;
  auto limit = [&](std::string_view resource, int64_t per_node, int64_t used, int64_t max) {
    if (per_node <= 0) {
      return;
    }
    int64_t left = max - used;
    int n = left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left / per_node, INT_MAX));
    if (n == 0 && reason.empty()) {
      reason = "max cluster " + std::string(resource) + " limit reached";
    }
    allowed = std::min(allowed, n);
  };
  limit("cpu", CapacityOf(t, api::kResourceCpu), usage.cores, options_.cores_total.max);
  limit("memory", CapacityOf(t, api::kResourceMemory), usage.memory_bytes,
        options_.memory_total_gib.max * (int64_t{1} << 30));
  if (auto gpu = cloud_.GetNodeGpuConfig(t); gpu.has_value()) {
    auto it = options_.gpu_total.find(gpu->type);
    if (it != options_.gpu_total.end()) {
      auto used = usage.gpus_by_type.find(gpu->type);
      limit(gpu->type, CapacityOf(t, gpu->resource_name),
            used == usage.gpus_by_type.end() ? 0 : used->second, it->second.max);
    }
  }
  return allowed;
}

ScaleUpResult ScaleUpOrchestrator::ScaleUp(
    TimePoint now, const std::vector<scheduler::PodInfoConstSharedPtr>& pending,
    scheduler::ClusterSnapshot& snapshot, const ScaleUpContext& ctx) {
  ScaleUpResult result;
  if (pending.empty()) {
    return result;
  }
  if (log_.Enabled(1)) {
    for (const auto& p : pending) {
      log_.V(1, "Pod " + p->Key() + " is unschedulable");
    }
  }
  std::vector<PodEquivalenceGroup> groups = BuildPodEquivalenceGroups(pending);
  // Per equivalence group: reason -> number of node groups that gave it.
  std::vector<std::map<std::string, int>> reasons(groups.size());
  auto all_groups_reason = [&](const std::string& r) {
    for (auto& m : reasons) {
      ++m[r];
    }
  };

  std::vector<expander::Option> options;
  for (cloud::NodeGroup* ng : cloud_.NodeGroups()) {
    const std::string id = ng->Id();
    if (auto it = ctx.skipped_groups.find(id); it != ctx.skipped_groups.end()) {
      all_groups_reason(it->second);
      continue;
    }
    StatusOr<int> target = ng->TargetSize();
    auto tmpl = ctx.templates.find(id);
    if (!target.ok() || tmpl == ctx.templates.end()) {
      all_groups_reason(kReasonNotReady);
      continue;
    }
    if (*target >= ng->MaxSize()) {
      all_groups_reason(kReasonMaxSize);
      continue;
    }
    std::string quota_reason;
    int by_quota = AllowedByResourceLimits(tmpl->second, ctx.resources, quota_reason);
    if (by_quota == 0) {
      all_groups_reason(quota_reason);
      continue;
    }
    // Which equivalence groups fit this group's template node at all (CheckPredicates on a
    // fork holding the template).
    std::vector<const PodEquivalenceGroup*> fitting;
    {
      snapshot.Fork();
      auto copy = std::make_shared<const api::Node>(
          SanitizedTemplateCopy(tmpl->second, id, "template"));
      const std::string tname = copy->meta.name;
      Status s = snapshot.AddNode(copy);
      TIDEPOOL_CHECK(s.ok());
      if (auto tp = ctx.template_pods.find(id); tp != ctx.template_pods.end()) {
        for (const auto& p : tp->second) (void)snapshot.AddPod(p, tname);
      }
      const scheduler::NodeInfo& tinfo = *snapshot.GetNodeInfo(tname);
      for (size_t g = 0; g < groups.size(); ++g) {
        scheduler::CycleState state;
        scheduler::PluginStatus st = framework_.RunPreFilter(state, groups[g].Exemplar());
        if (st.IsSuccess()) {
          st = framework_.RunFilters(state, groups[g].Exemplar(), tinfo);
        }
        if (st.IsSuccess()) {
          fitting.push_back(&groups[g]);
          continue;
        }
        for (const std::string& r : st.reasons()) {
          ++reasons[g][r];
        }
        if (log_.Enabled(2)) {
          const scheduler::PodInfo& ex = groups[g].Exemplar();
          std::string rs;
          for (size_t i = 0; i < st.reasons().size(); ++i) {
            rs += (i > 0 ? ", " : "") + st.reasons()[i];
          }
          log_.V(2, "Pod " + ex.Key() + " can't be scheduled on " + id +
                        ", predicate checking error: can't schedule pod " + ex.Key() +
                        ": predicate \"" + st.plugin() +
                        "\" didn't pass (predicateReasons=[" + rs + "]; debugInfo=)");
        }
      }
      snapshot.Revert();
    }
    if (fitting.empty()) {
      continue;
    }
    int limit = std::min(ng->MaxSize() - *target, options_.max_nodes_per_scaleup);
    if (options_.max_nodes_total > 0) {
      limit = std::min(limit, std::max(0, options_.max_nodes_total - ctx.total_nodes));
    }
    limit = std::min(limit, by_quota);
    auto tp = ctx.template_pods.find(id);
    EstimateResult est = estimator_.Estimate(fitting, tmpl->second, id, limit, snapshot,
                                             tp == ctx.template_pods.end() ? nullptr : &tp->second);
    if (est.node_count == 0) {
      continue;
    }
    expander::Option o;
    o.node_group_id = id;
    o.node_count = est.node_count;
    o.pods = std::move(est.scheduled);
    o.template_node = tmpl->second;
    o.debug = id;
    options.push_back(std::move(o));
  }

  auto remain_all = [&] {
    for (size_t g = 0; g < groups.size(); ++g) {
      for (const auto& p : groups[g].pods) {
        result.pods_remain_unschedulable.push_back(p);
        result.reasons_by_pod[p->Key()] = JoinSorted(reasons[g]);
      }
    }
  };
  if (options.empty()) {
    log_.V(1, "No expansion options");
    result.kind = ScaleUpResult::Kind::kNoOptionsAvailable;
    remain_all();
    EmitEvents(result);
    return result;
  }
  const expander::Option* best = expander_.BestOption(options);
  TIDEPOOL_CHECK(best != nullptr);
  log_.V(1, "Best option to resize: " + best->node_group_id);
  log_.V(1, "Estimated " + std::to_string(best->node_count) + " nodes needed in " +
                best->node_group_id);

  cloud::NodeGroup* group = nullptr;
  for (cloud::NodeGroup* ng : cloud_.NodeGroups()) {
    if (ng->Id() == best->node_group_id) {
      group = ng;
    }
  }
  TIDEPOOL_CHECK(group != nullptr);
  int current = *group->TargetSize();
  int delta = best->node_count;
  if (options_.max_nodes_total > 0 && ctx.total_nodes + delta > options_.max_nodes_total) {
    delta = std::max(0, options_.max_nodes_total - ctx.total_nodes);
    log_.Info("Capping size to max cluster total size (" + std::to_string(delta) + ")");
  }
  ScaleUpInfo info{best->node_group_id, current, current + delta, group->MaxSize()};
  result.infos = {info};
  log_.V(1, "Final scale-up plan: " + FormatScaleUpInfos(result.infos));
  const std::string setting = "Scale-up: setting group " + info.group + " size to " +
                              std::to_string(info.new_size) + " instead of " +
                              std::to_string(info.current_size) + " (max: " +
                              std::to_string(info.max_size) + ")";
  log_.Info(setting);
  ObjectRef status_cm{"ConfigMap", "kube-system", options_.status_config_map_name, ""};
  recorder_.Event(status_cm, "Normal", "ScaledUpGroup", setting);
  Status s = group->IncreaseSize(delta);
  if (!s.ok()) {
    std::string msg = "Scale-up failed for group " + info.group + ": " + std::string(s.message());
    log_.Warning(msg);
    recorder_.Event(status_cm, "Warning", "FailedToScaleUpGroup", msg);
    result.kind = ScaleUpResult::Kind::kError;
    result.failed_group = info.group;
    result.error = s;
    result.infos.clear();
    remain_all();
    return result;
  }
  recorder_.Event(status_cm, "Normal", "ScaledUpGroup",
                  "Scale-up: group " + info.group + " size set to " +
                      std::to_string(info.new_size) + " instead of " +
                      std::to_string(info.current_size) + " (max: " +
                      std::to_string(info.max_size) + ")");
  result.kind = ScaleUpResult::Kind::kSuccessful;
  std::unordered_set<const scheduler::PodInfo*> triggered;
  triggered.reserve(best->pods.size());
  for (const auto& p : best->pods) {
    result.pods_triggered.push_back(p);
    triggered.insert(p.get());
  }
  for (const auto& g : groups) {
    for (const auto& p : g.pods) {
      if (triggered.count(p.get()) == 0) {
        result.pods_remain_unschedulable.push_back(p);
      }
    }
  }
  (void)now;
  EmitEvents(result);
  return result;
}

void ScaleUpOrchestrator::EmitEvents(const ScaleUpResult& result) {
  // EventingScaleUpStatusProcessor: TriggeredScaleUp when the loop scaled up, otherwise
  // NotTriggerScaleUp for each pod that stays unschedulable.
  if (result.kind == ScaleUpResult::Kind::kSuccessful) {
    const std::string msg = "pod triggered scale-up: " + FormatScaleUpInfos(result.infos);
    for (const auto& p : result.pods_triggered) {
      recorder_.Event(RefOf(*p), "Normal", "TriggeredScaleUp", msg);
    }
    return;
  }
  for (const auto& p : result.pods_remain_unschedulable) {
    // CA's text exactly: ReasonsMessage may be empty (no group rejected or skipped the pod),
    // leaving "pod didn't trigger scale-up: " (eventing_scale_up_processor.go).
    std::string msg = "pod didn't trigger scale-up: ";
    auto it = result.reasons_by_pod.find(p->Key());
    if (it != result.reasons_by_pod.end()) msg += it->second;
    recorder_.Event(RefOf(*p), "Normal", "NotTriggerScaleUp", msg);
  }
}

}  // namespace tidepool::autoscaler
