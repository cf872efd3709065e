#include "scheduler/framework/runtime/framework.h"

#include <algorithm>
#include <optional>
#include <set>

#include "common/check.h"

namespace tidepool::scheduler {
namespace {

// What the PreFilter step decided for the current pod: which Filter plugins to skip (their
// PreFilter returned Skip), by position in the profile, and the candidate nodes if a
// PreFilterResult narrowed them.
struct SkipState : CycleState::Data {
  std::vector<bool> filter;
  std::optional<std::set<std::string>> node_names;
  std::set<std::string> plugins_with_nodes;
};

std::string PluginList(const std::set<std::string>& names) {
  std::string out = "[";
  for (const auto& n : names) {
    if (out.size() > 1) {
      out += " ";
    }
    out += n;
  }
  return out + "]";
}

template <typename T>
StatusOr<const T*> As(const Plugin* p, std::string_view point) {
  const T* t = dynamic_cast<const T*>(p);
  if (t == nullptr) {
    return InvalidArgumentError("plugin \"" + std::string(p->Name()) +
                                "\" does not extend " + std::string(point));
  }
  return t;
}

}  // namespace

NodeId NodeGroup::Representative() const {
  if (node != kNoNode) {
    return node;
  }
  if (bucket != nullptr) {
    return *bucket->members.begin();
  }
  // The class's first node by name: the smallest bucket head.
  NodeId best = kNoNode;
  std::string_view best_name;
  (void)best_name;
  for (const auto& [key, b] : node_class->buckets()) {
    NodeId head = *b.members.begin();
    if (best == kNoNode || b.members.key_comp()(head, best)) {
      best = head;
    }
  }
  return best;
}

Profile DefaultProfile() {
  Profile p;
  p.pre_filter = {"NodeAffinity", "NodeResourcesFit", "VolumeBinding"};
  p.filter = {"NodeUnschedulable", "NodeName",         "TaintToleration",
              "NodeAffinity",      "NodeResourcesFit", "VolumeBinding"};
  p.post_filter = {"DefaultPreemption"};
  p.pre_score = {"TaintToleration", "NodeAffinity", "NodeResourcesFit",
                 "NodeResourcesBalancedAllocation"};
  p.score = {{"TaintToleration", 3},
             {"NodeAffinity", 2},
             {"NodeResourcesFit", 1},
             {"NodeResourcesBalancedAllocation", 1}};
  return p;
}

Framework::~Framework() = default;

StatusOr<std::unique_ptr<Framework>> Framework::Create(const Registry& registry,
                                                       const Profile& profile) {
  std::unique_ptr<Framework> fw(new Framework());
  fw->profile_ = profile;
  std::map<std::string, const Plugin*, std::less<>> instances;
  auto instance = [&](const std::string& name) -> StatusOr<const Plugin*> {
    auto it = instances.find(name);
    if (it != instances.end()) {
      return it->second;
    }
    auto factory = registry.find(name);
    if (factory == registry.end()) {
      return NotFoundError("plugin \"" + name + "\" does not exist");
    }
    TIDEPOOL_ASSIGN_OR_RETURN(PluginPtr p, factory->second(profile.args));
    const Plugin* raw = p.get();
    fw->plugins_.push_back(std::move(p));
    instances.emplace(name, raw);
    return raw;
  };
  // Resolves `names` to plugins extending T, in order.
  auto bind = [&]<typename T>(const std::vector<std::string>& names, std::string_view point,
                              std::vector<const T*>& into) -> Status {
    for (const auto& name : names) {
      TIDEPOOL_ASSIGN_OR_RETURN(const Plugin* p, instance(name));
      TIDEPOOL_ASSIGN_OR_RETURN(const T* t, As<T>(p, point));
      into.push_back(t);
    }
    return OkStatus();
  };
  TIDEPOOL_RETURN_IF_ERROR(bind(profile.pre_filter, "PreFilter", fw->pre_filter_));
  TIDEPOOL_RETURN_IF_ERROR(bind(profile.filter, "Filter", fw->filter_));
  TIDEPOOL_RETURN_IF_ERROR(bind(profile.post_filter, "PostFilter", fw->post_filter_));
  TIDEPOOL_RETURN_IF_ERROR(bind(profile.pre_score, "PreScore", fw->pre_score_));
  for (const auto& [name, weight] : profile.score) {
    if (weight <= 0) {
      return InvalidArgumentError("score plugin \"" + name + "\" needs a positive weight");
    }
    TIDEPOOL_ASSIGN_OR_RETURN(const Plugin* p, instance(name));
    TIDEPOOL_ASSIGN_OR_RETURN(const ScorePlugin* t, As<ScorePlugin>(p, "Score"));
    fw->score_.emplace_back(t, weight);
  }
  TIDEPOOL_RETURN_IF_ERROR(bind(profile.reserve, "Reserve", fw->reserve_));
  return fw;
}

PluginStatus Framework::RunPreFilter(CycleState& state, const PodInfo& pod) const {
  // RunPreFilterPlugins: an UnschedulableAndUnresolvable rejection stops at once; an
  // Unschedulable one is kept while the remaining plugins still run; results intersect.
  auto skip = std::make_unique<SkipState>();
  skip->filter.assign(filter_.size(), false);
  PluginStatus returned = PluginStatus::Success();
  for (const PreFilterPlugin* p : pre_filter_) {
    PreFilterResult r;
    PluginStatus s = p->PreFilter(state, pod, r);
    if (s.IsSkip()) {
      for (size_t i = 0; i < filter_.size(); ++i) {
        if (filter_[i]->Name() == p->Name()) {
          skip->filter[i] = true;
        }
      }
      continue;
    }
    if (!s.IsSuccess()) {
      s.WithPlugin(p->Name());
      if (s.code() == PluginCode::kUnschedulable) {
        returned = std::move(s);
        continue;
      }
      if (s.code() != PluginCode::kUnschedulableAndUnresolvable) {
        s = PluginStatus::Error("running PreFilter plugin \"" + std::string(p->Name()) +
                                "\": " + s.Message());
        s.WithPlugin(p->Name());
      }
      state.Write(std::move(skip));
      return s;
    }
    if (r.node_names.has_value()) {
      skip->plugins_with_nodes.insert(std::string(p->Name()));
      if (!skip->node_names.has_value()) {
        skip->node_names = std::move(r.node_names);
      } else {
        std::set<std::string> inter;
        for (const auto& n : *skip->node_names) {
          if (r.node_names->count(n) > 0) {
            inter.insert(n);
          }
        }
        skip->node_names = std::move(inter);
      }
      if (skip->node_names->empty()) {
        std::string msg =
            skip->plugins_with_nodes.size() == 1
                ? "node(s) didn't satisfy plugin " + *skip->plugins_with_nodes.begin()
                : "node(s) didn't satisfy plugin(s) " + PluginList(skip->plugins_with_nodes) +
                      " simultaneously";
        state.Write(std::move(skip));
        return PluginStatus::Unresolvable(msg).WithPlugin(p->Name());
      }
    }
  }
  state.Write(std::move(skip));
  return returned;
}

PluginStatus Framework::RunFilters(const CycleState& state, const PodInfo& pod,
                                   const NodeInfo& node) const {
  const SkipState* skip = state.Read<SkipState>();
  for (size_t i = 0; i < filter_.size(); ++i) {
    if (skip != nullptr && skip->filter[i]) {
      continue;
    }
    PluginStatus s = filter_[i]->Filter(state, pod, node);
    if (!s.IsSuccess() && !s.IsSkip()) {
      return s.WithPlugin(filter_[i]->Name());
    }
  }
  return PluginStatus::Success();
}

FilterOutcome Framework::FindFeasible(const CycleState& state, const PodInfo& pod,
                                      const ClusterSnapshot& snapshot,
                                      const std::function<bool(const NodeClass&)>* only,
                                      bool explain) const {
  FilterOutcome out;
  const SkipState* skip = state.Read<SkipState>();
  // The active filters for this pod and the scope each declared.
  std::vector<const FilterPlugin*> active;
  std::vector<NodeScope> scope;
  for (size_t i = 0; i < filter_.size(); ++i) {
    if (skip != nullptr && skip->filter[i]) {
      continue;
    }
    active.push_back(filter_[i]);
    scope.push_back(filter_[i]->FilterScope(state, pod));
  }
  const size_t n = active.size();
  const bool restricted = skip != nullptr && skip->node_names.has_value();

  // Rejections in the order they happened. A plugin with Fits() rejects without a status; its
  // Filter is asked for one (on the same node, same snapshot) only if nothing fits.
  struct Rejection {
    NodeGroup group;
    const FilterPlugin* plugin;
    const NodeInfo* rep;
    std::optional<PluginStatus> status;
  };
  std::vector<Rejection> rejected;
  // Runs active filters [from, to) on `rep`; returns the index that rejected, or `to`. A
  // rejection by Fits() leaves `status` unset.
  auto run = [&](size_t from, size_t to, const NodeInfo& rep, PluginStatus& status, bool& quick) {
    quick = false;
    for (size_t i = from; i < to; ++i) {
      if (active[i]->HasFits()) {
        if (!active[i]->Fits(state, pod, rep)) {
          quick = true;
          return i;
        }
        continue;
      }
      status = active[i]->Filter(state, pod, rep);
      if (!status.IsSuccess() && !status.IsSkip()) {
        return i;
      }
    }
    return to;
  };
  auto fail = [&](NodeGroup g, size_t at, const NodeInfo& rep, PluginStatus&& status, bool quick) {
    const FilterPlugin* p = active[at];
    if (quick) {
      rejected.push_back(Rejection{g, p, &rep, std::nullopt});
      return;
    }
    status.WithPlugin(p->Name());
    if (status.code() == PluginCode::kError && out.error.ok()) {
      out.error = InternalError("running \"" + std::string(p->Name()) +
                                "\" filter plugin: " + status.Message());
    }
    rejected.push_back(Rejection{g, p, nullptr, std::move(status)});
  };
  // Plugin names and the reason histogram are derived from `failed` only if nothing fits.
  auto finish = [&] {
    if (!out.feasible.empty() || !explain) {
      return;
    }
    out.diagnosis.failed.reserve(rejected.size());
    for (Rejection& r : rejected) {
      if (!r.status.has_value()) {
        r.status = r.plugin->Filter(state, pod, *r.rep);
        r.status->WithPlugin(r.plugin->Name());
      }
      out.diagnosis.failed.push_back(FailedGroup{r.group, std::move(*r.status)});
    }
  };

  if (restricted) {
    // Only the PreFilterResult's nodes are filtered, one by one; the others are absent with
    // an unresolvable status naming the plugins that excluded them.
    size_t considered = 0;
    for (const std::string& name : *skip->node_names) {
      const NodeInfo* info = snapshot.GetNodeInfo(name);
      if (info == nullptr) {
        continue;
      }
      NodeId id = snapshot.IdOf(*info);
      if (only != nullptr && !(*only)(snapshot.ClassOf(id))) {
        continue;
      }
      ++considered;
      NodeGroup g{&snapshot.ClassOf(id), nullptr, id, 1};
      PluginStatus status;
      bool quick = false;
      size_t failed_at = run(0, n, *info, status, quick);
      if (failed_at < n) {
        fail(g, failed_at, *info, std::move(status), quick);
      } else {
        out.feasible.push_back(g);
        out.num_feasible_nodes += 1;
      }
    }
    // The plugins that narrowed the nodes rejected the pod too (diagnosis.UnschedulablePlugins
    // gets RunPreFilterPlugins' plugins with nodes).
    out.diagnosis.unschedulable_plugins.insert(skip->plugins_with_nodes.begin(),
                                               skip->plugins_with_nodes.end());
    size_t absent = snapshot.NumNodes() - considered;
    if (absent > 0) {
      out.diagnosis.reason_counts["node(s) didn't satisfy plugin(s) " +
                                  PluginList(skip->plugins_with_nodes)] += absent;
    }
    finish();
    return out;
  }

  snapshot.ForEachClass([&](const NodeClass& c) {
    if (only != nullptr && !(*only)(c)) {
      return;
    }
    NodeGroup class_group{&c, nullptr, NodeGroup::kNoNode, c.size()};
    const NodeInfo& class_rep = snapshot.node_info(*c.buckets().begin()->second.members.begin());
    size_t i = 0;
    while (i < n && scope[i] == NodeScope::kClass) {
      ++i;
    }
    PluginStatus status;
    bool quick = false;
    size_t failed_at = run(0, i, class_rep, status, quick);
    if (failed_at < i) {
      fail(class_group, failed_at, class_rep, std::move(status), quick);
      return;
    }
    for (const auto& [key, bucket] : c.buckets()) {
      NodeGroup bucket_group{&c, &bucket, NodeGroup::kNoNode, bucket.members.size()};
      size_t j = i;
      while (j < n && scope[j] != NodeScope::kNode) {
        ++j;
      }
      const NodeInfo& bucket_rep = snapshot.node_info(*bucket.members.begin());
      failed_at = run(i, j, bucket_rep, status, quick);
      if (failed_at < j) {
        fail(bucket_group, failed_at, bucket_rep, std::move(status), quick);
        continue;
      }
      if (j == n) {
        out.feasible.push_back(bucket_group);
        out.num_feasible_nodes += bucket_group.count;
        continue;
      }
      for (NodeId id : bucket.members) {
        NodeGroup node_group{&c, &bucket, id, 1};
        const NodeInfo& node = snapshot.node_info(id);
        failed_at = run(j, n, node, status, quick);
        if (failed_at < n) {
          fail(node_group, failed_at, node, std::move(status), quick);
        } else {
          out.feasible.push_back(node_group);
          out.num_feasible_nodes += 1;
        }
      }
    }
  });
  finish();
  return out;
}

PluginStatus Framework::RunReserve(CycleState& state, const PodInfo& pod, const NodeInfo& node,
                                   Reservation& reservation) const {
  for (const ReservePlugin* p : reserve_) {
    PluginStatus s = p->Reserve(state, pod, node, reservation);
    if (!s.IsSuccess()) {
      return s;
    }
  }
  return PluginStatus::Success();
}

NodeId Framework::SelectHost(CycleState& state, const PodInfo& pod,
                             const ClusterSnapshot& snapshot,
                             const std::vector<NodeGroup>& feasible) const {
  TIDEPOOL_CHECK(!feasible.empty());
  if (feasible.size() == 1 && feasible[0].count == 1) {
    return feasible[0].Representative();  // one feasible node: nothing to score
  }
  std::vector<bool> skip_score(score_.size(), false);
  for (const PreScorePlugin* p : pre_score_) {
    PluginStatus s = p->PreScore(state, pod);
    if (s.IsSkip()) {
      for (size_t i = 0; i < score_.size(); ++i) {
        if (score_[i].first->Name() == p->Name()) {
          skip_score[i] = true;
        }
      }
    }
  }
  // Score at the finest scope any active score plugin needs.
  bool per_node = false;
  for (size_t i = 0; i < score_.size(); ++i) {
    if (!skip_score[i] && score_[i].first->ScoreScope(state, pod) == NodeScope::kNode) {
      per_node = true;
    }
  }
  std::vector<NodeGroup> expanded;
  const std::vector<NodeGroup>* groups = &feasible;
  if (per_node) {
    for (const NodeGroup& g : feasible) {
      g.ForEachNode([&](NodeId id) { expanded.push_back(NodeGroup{g.node_class, g.bucket, id, 1}); });
    }
    groups = &expanded;
  }
  const size_t m = groups->size();
  std::vector<NodeId> reps(m);
  for (size_t g = 0; g < m; ++g) {
    reps[g] = (*groups)[g].Representative();
  }
  std::vector<int64_t> total(m, 0), raw(m);
  for (size_t i = 0; i < score_.size(); ++i) {
    if (skip_score[i]) {
      continue;
    }
    const auto& [plugin, weight] = score_[i];
    for (size_t g = 0; g < m; ++g) {
      raw[g] = plugin->Score(state, pod, snapshot.node_info(reps[g]));
    }
    plugin->NormalizeScore(state, pod, raw);
    for (size_t g = 0; g < m; ++g) {
      total[g] += raw[g] * weight;
    }
  }
  size_t best = 0;
  for (size_t g = 1; g < m; ++g) {
    if (total[g] > total[best] ||
        (total[g] == total[best] &&
         snapshot.node_info(reps[g]).name() < snapshot.node_info(reps[best]).name())) {
      best = g;
    }
  }
  return reps[best];
}

bool Framework::WorthRequeuing(const std::set<std::string>& rejectors, const ClusterEvent& event,
                               const PodInfo& pod) const {
  if (rejectors.empty()) return true;
  for (const std::string& name : rejectors) {
    auto it = std::find_if(plugins_.begin(), plugins_.end(),
                           [&](const PluginPtr& p) { return p->Name() == name; });
    const auto* hints =
        it == plugins_.end() ? nullptr : dynamic_cast<const EnqueueExtensions*>(it->get());
    if (hints == nullptr) return true;  // registered for every event, always kQueue
    if (hints->Hint(event, pod) == QueueingHint::kQueue) return true;
  }
  return false;
}

ScheduleResult Framework::Schedule(const PodInfo& pod, ClusterSnapshot& snapshot,
                                   bool explain) const {
  ScheduleResult result;
  result.num_all_nodes = snapshot.NumNodes();
  if (result.num_all_nodes == 0) {
    // schedule_one.go's ErrNoNodesAvailable.
    result.message = "no nodes available to schedule pods";
    return result;
  }
  CycleState state;
  PluginStatus pre = RunPreFilter(state, pod);
  if (pre.code() == PluginCode::kError) {
    result.message = pre.Message();
    return result;
  }
  if (!pre.IsSuccess()) {
    result.diagnosis.pre_filter_msg = pre.Message();
    result.diagnosis.unschedulable_plugins.insert(pre.plugin());
    // Every node shares the PreFilter status, so that preemption can consider them.
    snapshot.ForEachClass([&](const NodeClass& c) {
      result.diagnosis.failed.push_back(
          FailedGroup{NodeGroup{&c, nullptr, NodeGroup::kNoNode, c.size()}, pre});
    });
  } else {
    FilterOutcome outcome = FindFeasible(state, pod, snapshot, nullptr, explain);
    if (!outcome.error.ok()) {
      result.message = std::string(outcome.error.message());
      return result;
    }
    result.num_feasible_nodes = outcome.num_feasible_nodes;
    if (!outcome.feasible.empty()) {
      const NodeInfo& chosen =
          snapshot.node_info(SelectHost(state, pod, snapshot, outcome.feasible));
      PluginStatus reserved = RunReserve(state, pod, chosen, result.reservation);
      if (!reserved.IsSuccess()) {
        // schedule_one.go: a Reserve failure fails the cycle with the plugin's message.
        result.message = reserved.Message();
        return result;
      }
      result.node = chosen.name();
      return result;
    }
    if (!explain) {
      return result;
    }
    result.diagnosis = std::move(outcome.diagnosis);
    for (const FailedGroup& f : result.diagnosis.failed) {
      result.diagnosis.unschedulable_plugins.insert(f.status.plugin());
      for (const std::string& r : f.status.reasons()) {
        result.diagnosis.reason_counts[r] += f.group.count;
      }
    }
  }
  // No node fits: PostFilter (preemption), then the FitError message.
  std::vector<std::string> post_msgs;
  for (const PostFilterPlugin* p : post_filter_) {
    PostFilterResult r = p->PostFilter(state, pod, result.diagnosis, snapshot, *this);
    if (r.status.IsSuccess()) {
      result.nominated_node = r.nominated_node;
      result.victims = std::move(r.victims);
      post_msgs.clear();
      break;
    }
    if (!r.status.Message().empty()) {
      post_msgs.push_back(r.status.Message());
    }
  }
  for (size_t i = 0; i < post_msgs.size(); ++i) {
    if (i > 0) {
      result.diagnosis.post_filter_msg += ", ";
    }
    result.diagnosis.post_filter_msg += post_msgs[i];
  }
  // The failed groups point into the snapshot, which PostFilter may have reshaped.
  result.diagnosis.failed.clear();
  FitErrorParts parts;
  parts.num_all_nodes = result.num_all_nodes;
  parts.reason_counts = result.diagnosis.reason_counts;
  parts.pre_filter_msg = result.diagnosis.pre_filter_msg;
  parts.post_filter_msg = result.diagnosis.post_filter_msg;
  result.message = FitErrorMessage(parts);
  return result;
}

}  // namespace tidepool::scheduler
