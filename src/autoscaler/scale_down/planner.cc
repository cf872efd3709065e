// Planner: CA's core/scaledown/planner (planner.go), eligibility (eligibility.go), the removal
// simulator (simulator/cluster.go) and unneeded tracking (unneeded/nodes.go).
#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "autoscaler/scale_down/drainability.h"
#include "autoscaler/scale_down/go_format.h"
#include "autoscaler/scale_down/scale_down.h"
#include "autoscaler/scale_down/utilization.h"
#include "common/check.h"
#include "scheduler/framework/volume_lister.h"

// klog's V(n).Infof: the message is built only when verbosity n is on.
#define SD_VLOG(level, msg)    \
  do {                         \
    if (log_.Enabled(level)) { \
      log_.V(level, msg);      \
    }                          \
  } while (0)

namespace tidepool::autoscaler::scaledown {
namespace {

using scheduler::NodeId;

// klogx.NewLoggingQuota(20) for the per-node utilisation lines.
constexpr int kUtilizationLogQuota = 20;

struct Candidate {
  const NodeFacts* facts;
  cloud::NodeGroup* group;
  Utilization utilization;
  bool ready = true;
  bool empty = false;         // nothing to move, nothing blocking, as of eligibility
  bool was_unneeded = false;  // unneeded in the previous pass
};

using UnboundPods =
    std::unordered_map<const scheduler::PodInfo*, std::pair<scheduler::PodInfoConstSharedPtr,
                                                            scheduler::PodInfoConstSharedPtr>>;

// Places the pods of removed nodes on the destination nodes (CA's HintingSimulator with
// breakOnFailure): first the node a pod went to in the previous pass, then first fit over the
// destinations in name order starting where the last pod from a node of the same class went.
// Pods are checked with the scheduler's PreFilter and Filter plugins.
class DrainSimulator {
 public:
  DrainSimulator(const scheduler::Framework& framework, scheduler::ClusterSnapshot& snapshot,
                 const std::unordered_map<std::string, std::string>& hints,
                 const UnboundPods& unbound)
      : framework_(framework), snapshot_(snapshot), hints_(hints), old_unbound_(unbound) {}

  // The destinations in name order, as added.
  const std::vector<NodeId>& destinations() const { return order_; }

  void AddDestination(NodeId id) {
    if (id >= dest_.size()) {
      dest_.resize(id + 1, 0);
      pos_.resize(id + 1, 0);
    }
    dest_[id] = 1;
    pos_[id] = order_.size();
    order_.push_back(id);  // callers add nodes in name order
  }
  bool IsDestination(NodeId id) const { return id < dest_.size() && dest_[id] != 0; }
  void SetDestination(NodeId id, bool on) {
    if (id < dest_.size()) {
      dest_[id] = on ? 1 : 0;
    }
  }
  // Places every pod (in order) on a destination; on the first that fits nowhere returns false
  // with CA's error text. The caller reverts the snapshot on failure.
  bool PlaceAll(const std::vector<scheduler::PodInfoConstSharedPtr>& pods, uint32_t source_class,
                std::string& error) {
    std::vector<std::pair<std::string, std::string>> placed;
    placed.reserve(pods.size());
    size_t& cursor = cursor_[source_class];
    for (size_t i = 0; i < pods.size(); ++i) {
      scheduler::PodInfoConstSharedPtr pod = Unbound(pods[i]);
      const std::string key = pod->Key();
      NodeId target = kNone;
      scheduler::CycleState state;
      if (framework_.RunPreFilter(state, *pod).IsSuccess()) {
        target = FindHinted(state, *pod, key);
        if (target == kNone) {
          target = FirstFit(state, *pod, cursor);
        }
      }
      if (target == kNone) {
        error = "can reschedule only " + std::to_string(i) + " out of " +
                std::to_string(pods.size()) + " pods";
        return false;
      }
      const std::string& node_name = snapshot_.node_info(target).name();
      Status s = snapshot_.AddPod(pod, node_name);
      TIDEPOOL_CHECK(s.ok());
      placed.emplace_back(key, node_name);
    }
    for (auto& [key, node] : placed) {
      new_hints_[key] = std::move(node);
    }
    return true;
  }

  std::unordered_map<std::string, std::string> TakeHints() { return std::move(new_hints_); }
  UnboundPods TakeUnbound() { return std::move(new_unbound_); }

 private:
  static constexpr NodeId kNone = scheduler::NodeGroup::kNoNode;
  static constexpr size_t kDirectScan = 16;

  // The pod with spec.nodeName cleared, as CA reschedules it in simulation; the NodeName filter
  // would otherwise pin it to the node being removed. Copies are reused across passes.
  scheduler::PodInfoConstSharedPtr Unbound(const scheduler::PodInfoConstSharedPtr& p) {
    if (p->node_name().empty()) {
      return p;
    }
    auto it = old_unbound_.find(p.get());
    scheduler::PodInfoConstSharedPtr copy;
    if (it != old_unbound_.end() && it->second.first == p) {
      copy = it->second.second;
    } else {
      copy = p->WithNodeName("");
    }
    new_unbound_.emplace(p.get(), std::make_pair(p, copy));
    return copy;
  }

  bool Fits(const scheduler::CycleState& state, const scheduler::PodInfo& pod, NodeId id) const {
    return framework_.RunFilters(state, pod, snapshot_.node_info(id)).IsSuccess();
  }

  NodeId FindHinted(const scheduler::CycleState& state, const scheduler::PodInfo& pod,
                    const std::string& key) const {
    auto it = hints_.find(key);
    if (it == hints_.end()) {
      return kNone;
    }
    const scheduler::NodeInfo* info = snapshot_.GetNodeInfo(it->second);
    if (info == nullptr) {
      return kNone;
    }
    NodeId id = snapshot_.IdOf(*info);
    return IsDestination(id) && Fits(state, pod, id) ? id : kNone;
  }

  // The first destination, in name order starting at `cursor` and wrapping around, that the
  // pod fits. The next few nodes are tried one by one (where the previous pods went, there is
  // usually room); past them, the scheduler's grouped filtering (per node class and usage
  // bucket) finds every feasible node at once and the nearest one is taken: the same node a
  // full scan would find, without filtering thousands of nodes one by one when few or none fit.
  NodeId FirstFit(const scheduler::CycleState& state, const scheduler::PodInfo& pod,
                  size_t& cursor) const {
    const size_t n = order_.size();
    if (n == 0) {
      return kNone;
    }
    const size_t direct = std::min(n, kDirectScan);
    for (size_t k = 0; k < direct; ++k) {
      const size_t idx = (cursor + k) % n;
      const NodeId id = order_[idx];
      if (IsDestination(id) && Fits(state, pod, id)) {
        cursor = idx;
        return id;
      }
    }
    if (direct == n) {
      return kNone;
    }
    scheduler::FilterOutcome outcome = framework_.FindFeasible(state, pod, snapshot_);
    if (!outcome.error.ok()) {
      return kNone;
    }
    NodeId best = kNone;
    size_t best_distance = n;
    for (const scheduler::NodeGroup& g : outcome.feasible) {
      g.ForEachNode([&](NodeId id) {
        if (!IsDestination(id)) {
          return;
        }
        const size_t distance = (pos_[id] + n - cursor) % n;
        if (distance < best_distance) {
          best_distance = distance;
          best = id;
        }
      });
    }
    if (best != kNone) {
      cursor = pos_[best];
    }
    return best;
  }

  const scheduler::Framework& framework_;
  scheduler::ClusterSnapshot& snapshot_;
  const std::unordered_map<std::string, std::string>& hints_;
  std::unordered_map<std::string, std::string> new_hints_;
  const UnboundPods& old_unbound_;
  UnboundPods new_unbound_;
  std::vector<char> dest_;      // by NodeId
  std::vector<NodeId> order_;   // destinations by name
  std::vector<size_t> pos_;     // by NodeId: index in order_
  std::unordered_map<uint32_t, size_t> cursor_;
};

}  // namespace

struct Planner::SimulationMemo {
  // What the simulation reads of one candidate, in the candidates' order (which is all that
  // being unneeded last time changes). Its utilisation and what must move follow from the
  // node and the snapshot's content.
  struct Candidate {
    api::NodeConstSharedPtr node;  // held, so that no other node takes its address
    const cloud::NodeGroup* group;
    bool empty;
    bool operator==(const Candidate&) const = default;
  };
  uint64_t snapshot_version = 0;
  // The claims, volumes and classes the drain's VolumeBinding reads (volume_lister.h).
  uint64_t volumes_generation = 0;
  size_t limit = 0;
  // The simulation stopped because `limit` removable nodes were found. If it did not, any
  // limit above the number found gives the same answer (the limit grows with the unneeded set
  // over the first passes).
  bool stopped_at_limit = false;
  DrainOptions drain;
  RemainingPdbTracker pdbs;  // as the pass started
  std::vector<Candidate> candidates;
  std::vector<NodeId> destinations;
  // The answer: the removable nodes' indexes in `candidates`. What the planner keeps of them
  // (unneeded_, candidates_, ...) is what that pass left, and stays while the answer is
  // reused.
  std::vector<size_t> removable;

  // True if a simulation with the inputs `o` would give this answer.
  bool Matches(const SimulationMemo& o) const {
    const bool same_limit = stopped_at_limit ? o.limit == limit : o.limit > removable.size();
    return snapshot_version == o.snapshot_version && volumes_generation == o.volumes_generation &&
           same_limit && drain == o.drain && destinations == o.destinations &&
           candidates == o.candidates && pdbs == o.pdbs;
  }
};

Planner::~Planner() = default;

Planner::Planner(const AutoscalingOptions& options, cloud::CloudProvider& cloud,
                 const scheduler::Framework& framework, log::Logger& logger)
    : options_(options),
      cloud_(cloud),
      framework_(framework),
      log_(logger),
      min_update_interval_(options.scale_down_unneeded_time > Duration::zero()
                               ? options.scale_down_unneeded_time
                               : Duration(1)) {}

size_t Planner::UnneededNodesLimit() const {
  // Up to N = max-scale-down-parallelism nodes go per loop: find N more than are unneeded
  // already, plus N spare, but never more than N per loop until the unneeded time is up.
  const int64_t n = std::max(options_.max_scale_down_parallelism, 0);
  const int64_t limit = static_cast<int64_t>(unneeded_.size()) + 2 * n;
  const Duration loop = min_update_interval_;
  const Duration u = std::max(Duration(options_.scale_down_unneeded_time), loop);
  const int64_t upper = n * (u / loop) + n;
  return static_cast<size_t>(std::min(limit, upper));
}

void Planner::SetUnremovable(const std::string& node, UnremovableReason reason) {
  unremovable_[node] = Unremovable{reason, pass_};
}

std::unordered_map<std::string, UnremovableReason> Planner::unremovable() const {
  std::unordered_map<std::string, UnremovableReason> out;
  for (const auto& [node, u] : unremovable_) {
    if (u.pass == pass_) out.emplace(node, u.reason);
  }
  return out;
}

void Planner::Update(TimePoint now, scheduler::ClusterSnapshot& snapshot,
                     const std::vector<api::NodeConstSharedPtr>& nodes,
                     const std::vector<api::PodDisruptionBudgetConstSharedPtr>& pdbs,
                     const ControllerLister* controllers) {
  std::vector<NodeFacts> facts;
  facts.reserve(nodes.size());
  for (const auto& n : nodes) {
    facts.push_back(NodeFactsCache::Compute(n, cloud_));
  }
  std::vector<const NodeFacts*> sorted;
  sorted.reserve(facts.size());
  for (const NodeFacts& f : facts) {
    sorted.push_back(&f);
  }
  std::sort(sorted.begin(), sorted.end(), [](const NodeFacts* a, const NodeFacts* b) {
    return a->node->meta.name < b->node->meta.name;
  });
  Update(now, snapshot, sorted, pdbs, controllers);
}

void Planner::NoteLoop(TimePoint now) {
  if (last_update_.has_value()) {
    const Duration interval = now - *last_update_;
    if (interval > Duration::zero() && interval < min_update_interval_) {
      min_update_interval_ = interval;
    }
  }
  last_update_ = now;
}

void Planner::Update(TimePoint now, scheduler::ClusterSnapshot& snapshot,
                     const std::vector<const NodeFacts*>& sorted,
                     const std::vector<api::PodDisruptionBudgetConstSharedPtr>& pdbs,
                     const ControllerLister* controllers) {
  NoteLoop(now);
  ++pass_;
  if (unremovable_.size() > 2 * sorted.size() + 64) {
    // Nodes long gone: keep the map as large as the cluster.
    std::erase_if(unremovable_, [&](const auto& e) { return e.second.pass + 1 < pass_; });
  }
  for (auto it = recheck_after_.begin(); it != recheck_after_.end();) {
    const bool keep = it->second.first > now && snapshot.GetNodeInfo(it->first) != nullptr;
    it = keep ? std::next(it) : recheck_after_.erase(it);
  }
  const DrainOptions drain_options = DrainOptions::From(options_, controllers);
  // What the cluster's budgets allow, taken from as removable nodes are found (CA's
  // RemainingPdbTracker, set at the start of every loop).
  RemainingPdbTracker pdb_tracker;
  pdb_tracker.SetPdbs(pdbs);

  // Eligibility (CA's PreFilteringScaleDownNodeProcessor and eligibility.Checker).
  DrainSimulator sim(framework_, snapshot, hints_, unbound_pods_);
  // Target sizes by group, asked once per group and pass (only looked up, never iterated).
  std::unordered_map<const cloud::NodeGroup*, std::optional<int>> group_sizes;
  std::unordered_map<const cloud::NodeGroup*, int> group_min_sizes;
  std::vector<Candidate> candidates;
  int util_logs_left = kUtilizationLogQuota;
  int recently_unremovable = 0;
  // A candidate with a deleting or finished pod: what must move depends on `now`.
  bool depends_on_now = false;
  // A node skipped for a reason that ends with time (SettledUntil()).
  bool time_bound_skip = false;
  node_ids_.resize(sorted.size(), scheduler::NodeGroup::kNoNode);
  for (size_t index = 0; index < sorted.size(); ++index) {
    const NodeFacts* f = sorted[index];
    const api::Node& node = *f->node;
    const std::string& name = node.meta.name;
    const std::optional<NodeId> id = snapshot.FindNode(name, node_ids_[index]);
    node_ids_[index] = id.value_or(scheduler::NodeGroup::kNoNode);
    if (!id.has_value()) {
      log_.Error("Can't retrieve scale-down candidate " + name +
                 " from snapshot, err: node not found");
      SetUnremovable(name, UnremovableReason::kUnexpectedError);
      continue;
    }
    const scheduler::NodeInfo& info = snapshot.node_info(*id);
    if (f->to_be_deleted_time.has_value() &&
        now - *f->to_be_deleted_time < options_.max_cloud_provider_node_deletion_time) {
      SD_VLOG(1, "Skipping " + name +
                     " from delete consideration - the node is currently being deleted");
      time_bound_skip = true;
      continue;
    }
    sim.AddDestination(*id);
    if (f->scale_down_disabled) {
      SD_VLOG(1, "Skipping " + name +
                     " from delete consideration - the node is marked as no scale down");
      SetUnremovable(name, UnremovableReason::kScaleDownDisabledAnnotation);
      continue;
    }
    cloud::NodeGroup* group = f->group;
    if (group == nullptr) {
      SD_VLOG(5, "Node " + name +
                     " should not be processed by cluster autoscaler (no node group config)");
      SetUnremovable(name, UnremovableReason::kNotAutoscaled);
      continue;
    }
    auto [size_it, inserted] = group_sizes.try_emplace(group);
    if (inserted) {
      StatusOr<int> target = group->TargetSize();
      if (target.ok()) {
        size_it->second = *target;
      }
    }
    if (!size_it->second.has_value()) {
      log_.Error("Error while checking node group size " + group->Id() +
                 ": group size not found");
      SetUnremovable(name, UnremovableReason::kUnexpectedError);
      continue;
    }
    // Asked once per group and pass: a cloud may answer it from an API call.
    auto [min_it, min_new] = group_min_sizes.try_emplace(group, 0);
    if (min_new) min_it->second = group->MinSize();
    if (*size_it->second <= min_it->second) {
      SD_VLOG(1, "Skipping " + name + " - node group min size reached (current: " +
                     std::to_string(*size_it->second) +
                     ", min: " + std::to_string(min_it->second) + ")");
      SetUnremovable(name, UnremovableReason::kNodeGroupMinSizeReached);
      continue;
    }
    if (auto recent = recheck_after_.find(name); recent != recheck_after_.end()) {
      SetUnremovable(name, recent->second.second);
      ++recently_unremovable;
      continue;
    }
    const std::optional<cloud::GpuConfig>& gpu = f->gpu;
    if (f->gpu_unready && (!node.meta.creation_timestamp.has_value() ||
                        *node.meta.creation_timestamp + options_.max_node_startup_time > now)) {
      // Still starting (CA's NotStarted: the GPU driver or device plugin is not up yet).
      SD_VLOG(4, "Skipping " + name + " from delete consideration - its " + gpu->resource_name +
                     " is not allocatable yet");
      SetUnremovable(name, UnremovableReason::kNotUnreadyLongEnough);
      time_bound_skip = true;
      continue;
    }
    UtilizationResult util =
        CalculateUtilization(info, gpu, now, drain_options.pod_long_terminating_extra_threshold);
    if (!util.error.empty()) {
      log_.Warning("Failed to calculate utilization for " + name + ": " + util.error);
    }
    if (util.gpu_unready) {
      SD_VLOG(3, "node " + name + " has unready GPU resource: " + gpu->resource_name);
    }
    const double threshold = gpu.has_value() ? options_.scale_down_gpu_utilization_threshold
                                             : options_.scale_down_utilization_threshold;
    if (util.info.value >= threshold) {
      SD_VLOG(4, "Node " + name + " unremovable: " + util.info.resource + " requested (" +
                     GoPrecision6(util.info.value * 100) +
                     "% of allocatable) is above the scale-down utilization threshold");
      SetUnremovable(name, UnremovableReason::kNotUnderutilized);
      continue;
    }
    if (log_.Enabled(4) && util_logs_left-- > 0) {
      SD_VLOG(4, "Node " + name + " - " + util.info.resource + " requested is " +
                     GoPrecision6(util.info.value * 100) + "% of allocatable");
    }
    depends_on_now = depends_on_now || info.num_deleting_or_finished_pods() != 0;
    Candidate c{f, group, std::move(util.info)};
    c.ready = f->ready && !util.gpu_unready;
    c.was_unneeded = candidates_.count(name) > 0;
    // Which pods must move is asked again of the candidates simulated (few, with CA's limits).
    c.empty = NothingToMove(info, drain_options, pdb_tracker, now);
    candidates.push_back(std::move(c));
  }
  if (util_logs_left < 0) {
    SD_VLOG(4,
            "Skipped logging utilization for " + std::to_string(-util_logs_left) + " other nodes");
  }
  if (recently_unremovable > 0) {
    SD_VLOG(1, "Scale-down calculation: ignoring " + std::to_string(recently_unremovable) +
                   " nodes unremovable in the last " +
                   GoDuration(options_.unremovable_node_recheck_timeout));
  }
  // Settled (SettledUntil) when this pass leaves no node unneeded and every candidate waiting
  // for its recheck (so that the next pass, until the first recheck, has none); both exits.
  const auto settle = [&] {
    settled_until_.reset();
    if (time_bound_skip || !unneeded_.empty() || (!candidates.empty() && depends_on_now)) return;
    for (const Candidate& c : candidates) {
      if (recheck_after_.count(c.facts->node->meta.name) == 0) return;
    }
    settled_until_ = TimePoint::max();
    for (const auto& [node, recheck] : recheck_after_) {
      settled_until_ = std::min(*settled_until_, recheck.first);
    }
  };

  // Empty nodes first, then those unneeded last time (CA's scale-down candidates sorting), then
  // the least utilised.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.empty != b.empty) {
      return a.empty;
    }
    if (a.was_unneeded != b.was_unneeded) {
      return a.was_unneeded;
    }
    if (a.utilization.value != b.utilization.value) {
      return a.utilization.value < b.utilization.value;
    }
    return a.facts->node->meta.name < b.facts->node->meta.name;
  });

  // Drain simulation on a fork: each removable node leaves the snapshot with its pods placed on
  // other nodes (committed), so the next candidates see that capacity taken.
  const size_t limit = UnneededNodesLimit();
  const TimePoint recheck_at = now + options_.unremovable_node_recheck_timeout;
  const size_t recheck_before = recheck_after_.size();
  std::vector<std::pair<NodeToRemove, const Candidate*>> removable;
  std::unique_ptr<SimulationMemo> inputs;
  simulated_ = 0;
  if (!depends_on_now && !log_.Enabled(2)) {
    inputs = std::make_unique<SimulationMemo>();
    inputs->snapshot_version = snapshot.version();
    if (const auto& volumes = options_.scheduler_profile.args.volumes) {
      inputs->volumes_generation = volumes->generation();
    }
    inputs->limit = limit;
    inputs->drain = drain_options;
    inputs->pdbs = pdb_tracker;
    inputs->candidates.reserve(candidates.size());
    for (const Candidate& c : candidates) {
      inputs->candidates.push_back({c.facts->node, c.group, c.empty});
    }
    inputs->destinations = sim.destinations();
  }
  if (inputs != nullptr && memo_ != nullptr && memo_->Matches(*inputs)) {
    // The same answer: the unneeded nodes, since when, what removing each means - all kept
    // from the pass that found it. Only a group's id is asked again (a group is compared by
    // its object).
    for (size_t index : memo_->removable) {
      auto it = candidates_.find(candidates[index].facts->node->meta.name);
      TIDEPOOL_CHECK(it != candidates_.end());
      it->second.node_group = candidates[index].group->Id();
    }
    settle();
    return;
  }
  memo_.reset();
  snapshot.Fork();
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (removable.size() >= limit) {
      if (inputs != nullptr) {
        inputs->stopped_at_limit = true;
      }
      SD_VLOG(4, std::to_string(candidates.size() - i) + " out of " +
                     std::to_string(candidates.size()) +
                     " nodes skipped in scale down simulation: there are already " +
                     std::to_string(removable.size()) +
                     " unneeded nodes so no point in looking for more. Total atomic scale down "
                     "nodes: 0");
      break;
    }
    Candidate& c = candidates[i];
    const std::string& name = c.facts->node->meta.name;
    SD_VLOG(2, "Simulating node " + name + " removal");
    ++simulated_;
    const std::optional<NodeId> found = snapshot.FindNode(name);
    TIDEPOOL_CHECK(found.has_value());
    const NodeId id = *found;
    // As the node is now: pods moved here from a node removed earlier in this pass move again.
    PodsToMove ptm = GetPodsToMove(snapshot.node_info(id), drain_options, pdb_tracker, now);
    if (ptm.blocked()) {
      SD_VLOG(2, "node " + name + " cannot be removed: " + ptm.message);
      SetUnremovable(name, UnremovableReason::kBlockedByPod);
      recheck_after_[name] = {recheck_at, UnremovableReason::kBlockedByPod};
      continue;
    }
    const uint32_t source_class = snapshot.ClassOf(id).id();
    const bool was_destination = sim.IsDestination(id);
    snapshot.Fork();
    sim.SetDestination(id, false);
    Status s = snapshot.RemoveNode(name);
    TIDEPOOL_CHECK(s.ok());
    std::string error;
    if (!sim.PlaceAll(ptm.pods, source_class, error)) {
      snapshot.Revert();
      sim.SetDestination(id, was_destination);
      SD_VLOG(2, "node " + name + " is not suitable for removal: " + error);
      SetUnremovable(name, UnremovableReason::kNoPlaceToMovePods);
      recheck_after_[name] = {recheck_at, UnremovableReason::kNoPlaceToMovePods};
      continue;
    }
    snapshot.Commit();
    SD_VLOG(2, "node " + name + " may be removed");
    pdb_tracker.RemovePods(ptm.pods);
    NodeToRemove r;
    r.node = name;
    r.node_group = c.group->Id();
    r.empty = ptm.pods.empty();
    r.pods_to_move = std::move(ptm.pods);
    r.utilization = c.utilization;
    removable.emplace_back(std::move(r), &c);
  }
  snapshot.Revert();
  if (recheck_after_.size() > recheck_before) {
    SD_VLOG(1, std::to_string(recheck_after_.size() - recheck_before) +
                   " nodes found to be unremovable in simulation, will re-check them at " +
                   GoTime(recheck_at));
  } else if (inputs != nullptr) {
    // Every simulated candidate was removable: the same inputs give this answer again.
    for (const auto& [r, c] : removable) {
      inputs->removable.push_back(static_cast<size_t>(c - candidates.data()));
    }
    memo_ = std::move(inputs);
  }
  hints_ = sim.TakeHints();
  unbound_pods_ = sim.TakeUnbound();

  // Unneeded tracking: a node keeps the time it first became unneeded while it stays unneeded.
  std::map<std::string, TimePoint> since;
  for (const UnneededNode& u : unneeded_) {
    since.emplace(u.node, u.since);
  }
  unneeded_.clear();
  candidates_.clear();
  unneeded_nodes_.clear();
  unneeded_ready_.clear();
  for (auto& [r, c] : removable) {
    auto it = since.find(r.node);
    unneeded_.push_back(UnneededNode{r.node, it == since.end() ? now : it->second});
    unneeded_nodes_[r.node] = c->facts->node;
    unneeded_ready_[r.node] = c->ready;
    const std::string name = r.node;
    candidates_.emplace(name, std::move(r));
  }
  settle();
}

std::vector<NodeToRemove> Planner::NodesToDelete(TimePoint now) {
  std::map<std::string, int> sizes;
  for (cloud::NodeGroup* g : cloud_.NodeGroups()) {
    StatusOr<int> target = g->TargetSize();
    if (target.ok()) {
      sizes[g->Id()] = *target;
    }
  }
  // unneeded.Nodes.unremovableReason.
  auto check = [&](const UnneededNode& u) -> std::pair<UnremovableReason, std::string> {
    const api::Node& node = *unneeded_nodes_.at(u.node);
    if (HasScaleDownDisabledAnnotation(node)) {
      SD_VLOG(4, "Skipping " + u.node + " - scale down disabled annotation found");
      return {UnremovableReason::kScaleDownDisabledAnnotation, ""};
    }
    cloud::NodeGroup* group = cloud_.NodeGroupForNode(node);
    if (group == nullptr) {
      SD_VLOG(4, "Skipping " + u.node + " - no node group config");
      return {UnremovableReason::kNotAutoscaled, ""};
    }
    if (unneeded_ready_.at(u.node)) {
      if (!(u.since + options_.scale_down_unneeded_time < now)) {
        return {UnremovableReason::kNotUnneededLongEnough, ""};
      }
    } else if (!(u.since + options_.scale_down_unready_time < now)) {
      return {UnremovableReason::kNotUnreadyLongEnough, ""};
    }
    auto size = sizes.find(group->Id());
    if (size == sizes.end()) {
      log_.Error("Error while checking node group size " + group->Id() +
                 ": group size not found in cache");
      return {UnremovableReason::kUnexpectedError, ""};
    }
    if (size->second <= group->MinSize()) {
      SD_VLOG(1, "Skipping " + u.node + " - node group min size reached");
      return {UnremovableReason::kNodeGroupMinSizeReached, ""};
    }
    return {UnremovableReason::kNone, group->Id()};
  };

  // Empty nodes first, in bulk up to max-scale-down-parallelism; then nodes to drain, up to
  // max-drain-parallelism within what is left of it (CA's budgets).
  const size_t parallelism = static_cast<size_t>(std::max(options_.max_scale_down_parallelism, 0));
  std::vector<NodeToRemove> out;
  size_t drain_budget = 0;
  size_t drained = 0;
  for (bool want_empty : {true, false}) {
    if (!want_empty) {
      drain_budget = std::min(parallelism - out.size(),
                              static_cast<size_t>(std::max(options_.max_drain_parallelism, 0)));
    }
    for (const UnneededNode& u : unneeded_) {
      const NodeToRemove& c = candidates_.at(u.node);
      if (c.empty != want_empty) {
        continue;
      }
      SD_VLOG(2, u.node + " was unneeded for " + GoDuration(now - u.since));
      auto [reason, group_id] = check(u);
      if (reason != UnremovableReason::kNone) {
        SetUnremovable(u.node, reason);
        continue;
      }
      if (want_empty ? out.size() >= parallelism : drained >= drain_budget) {
        continue;  // over budget this loop; still unneeded
      }
      --sizes[group_id];
      out.push_back(c);
      drained += want_empty ? 0 : 1;
    }
  }
  return out;
}

}  // namespace tidepool::autoscaler::scaledown

#undef SD_VLOG
