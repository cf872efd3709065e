#include "scheduler/plugins/packing/fgd.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "scheduler/framework/gpu_devices.h"
#include "scheduler/plugins/gpu_share/gpu_share.h"
#include "scheduler/plugins/packing/packing.h"

namespace tidepool::scheduler::plugins {
namespace {

// Entries the Frag memo keeps before it starts over.
constexpr size_t kMaxMemo = 1 << 20;

}  // namespace

FragModel::FragModel(const std::vector<TypicalPod>& typical, std::string gpu_model_label)
    : label_(std::move(gpu_model_label)) {
  for (const TypicalPod& t : typical) {
    models_.insert(models_.end(), t.gpu_models.begin(), t.gpu_models.end());
  }
  std::sort(models_.begin(), models_.end());
  models_.erase(std::unique(models_.begin(), models_.end()), models_.end());
  // Group GPU pods by (count, milli, models); each group's pods sorted by cpu.
  std::map<std::tuple<int32_t, int32_t, std::vector<std::string>>,
           std::vector<std::pair<int64_t, double>>>
      by_kind;
  for (const TypicalPod& t : typical) {
    if (t.gpu_count <= 0) {
      cpu_pod_weight_ += t.weight;
      continue;
    }
    std::vector<std::string> models = t.gpu_models;
    std::sort(models.begin(), models.end());
    by_kind[{t.gpu_count, t.gpu_milli, models}].emplace_back(t.milli_cpu, t.weight);
  }
  for (auto& [kind, pods] : by_kind) {
    Group g;
    g.count = std::get<0>(kind);
    g.milli = std::get<1>(kind);
    const auto& models = std::get<2>(kind);
    g.allowed.assign(models_.size() + 1, models.empty());
    for (const std::string& m : models) {
      auto it = std::lower_bound(models_.begin(), models_.end(), m);
      g.allowed[it - models_.begin() + 1] = true;
    }
    std::sort(pods.begin(), pods.end());
    for (const auto& [cpu, w] : pods) {
      g.weight += w;
      g.cpu.push_back(cpu);
      g.cum_weight.push_back(g.weight);
    }
    groups_.push_back(std::move(g));
  }
}

int FragModel::ModelOf(const NodeInfo& node) const {
  std::optional<std::string_view> value = node.Label(label_);
  if (!value.has_value()) {
    return 0;
  }
  auto it = std::lower_bound(models_.begin(), models_.end(), *value);
  return it != models_.end() && *it == *value ? static_cast<int>(it - models_.begin()) + 1 : 0;
}

double FragModel::Frag(int model, int64_t cpu_left, std::span<const int32_t> left) const {
  int64_t total = 0;
  for (int32_t l : left) {
    total += std::max(l, 0);
  }
  double frag = cpu_pod_weight_ * static_cast<double>(total);
  for (const Group& g : groups_) {
    int fitting = 0;
    int64_t small = 0;  // milli on GPUs with less than g.milli left
    for (int32_t l : left) {
      if (l >= g.milli) {
        ++fitting;
      } else {
        small += std::max(l, 0);
      }
    }
    if (!g.allowed[model] || fitting < g.count) {
      frag += g.weight * static_cast<double>(total);
      continue;
    }
    auto end = std::upper_bound(g.cpu.begin(), g.cpu.end(), cpu_left);
    const double fits = end == g.cpu.begin() ? 0 : g.cum_weight[end - g.cpu.begin() - 1];
    frag += fits * static_cast<double>(small) + (g.weight - fits) * static_cast<double>(total);
  }
  return frag;
}

std::vector<TypicalPod> TypicalPods(const std::vector<PodInfoConstSharedPtr>& pods,
                                    const std::string& gpu_model_label) {
  using Key = std::tuple<int64_t, int32_t, int32_t, std::vector<std::string>>;
  std::map<Key, int64_t> counts;
  for (const auto& p : pods) {
    const GpuDemand& d = p->gpu_demand();
    std::vector<std::string> models;
    const auto& affinity = p->spec().affinity;
    if (d.any() && affinity.has_value() && affinity->node_affinity.has_value() &&
        affinity->node_affinity->required.has_value()) {
      for (const auto& term : affinity->node_affinity->required->terms) {
        for (const auto& e : term.match_expressions) {
          if (e.key == gpu_model_label && e.op == api::SelectorOperator::kIn) models = e.values;
        }
      }
    }
    auto sel = p->spec().node_selector.find(gpu_model_label);
    if (d.any() && sel != p->spec().node_selector.end()) models = {sel->second};
    std::sort(models.begin(), models.end());
    ++counts[{p->request().milli_cpu, d.any() ? d.milli : 0, d.count, models}];
  }
  std::vector<std::pair<Key, int64_t>> kinds(counts.begin(), counts.end());
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first > b.first;
  });
  const auto total = static_cast<int64_t>(pods.size());
  int64_t cum = 0;
  size_t n = 0;
  while (n < kinds.size() && cum * 100 < total * 95) cum += kinds[n++].second;
  std::vector<TypicalPod> typical;
  for (size_t i = 0; i < n; ++i) {
    const auto& [key, count] = kinds[i];
    typical.push_back({.milli_cpu = std::get<0>(key),
                       .gpu_count = std::get<2>(key),
                       .gpu_milli = std::get<1>(key),
                       .gpu_models = std::get<3>(key),
                       .weight = static_cast<double>(count) / static_cast<double>(cum)});
  }
  return typical;
}

struct Fgd::Memo {
  std::mutex mu;
  std::unordered_map<std::string, double> frag;
};

Fgd::Fgd(const PackingArgs& args)
    : model_(args.typical_pods, args.gpu_model_label), memo_(std::make_unique<Memo>()) {}

Fgd::~Fgd() = default;

double Fgd::CachedFrag(int model, int64_t cpu_left, std::vector<int32_t> left) const {
  std::sort(left.begin(), left.end());
  std::string key(sizeof(int) + sizeof(int64_t) + left.size() * sizeof(int32_t), '\0');
  std::memcpy(key.data(), &model, sizeof(int));
  std::memcpy(key.data() + sizeof(int), &cpu_left, sizeof(int64_t));
  if (!left.empty()) {
    std::memcpy(key.data() + sizeof(int) + sizeof(int64_t), left.data(),
                left.size() * sizeof(int32_t));
  }
  {
    std::lock_guard<std::mutex> lock(memo_->mu);
    auto it = memo_->frag.find(key);
    if (it != memo_->frag.end()) {
      return it->second;
    }
  }
  const double frag = model_.Frag(model, cpu_left, left);
  std::lock_guard<std::mutex> lock(memo_->mu);
  if (memo_->frag.size() >= kMaxMemo) {
    memo_->frag.clear();
  }
  memo_->frag.emplace(std::move(key), frag);
  return frag;
}

std::pair<int64_t, uint32_t> Fgd::Evaluate(const PodInfo& pod, const NodeInfo& node) const {
  const int model = model_.ModelOf(node);
  const int64_t cpu_left = CpuLeft(node);
  const std::vector<int32_t>& left = node.gpu_left();
  const double before = CachedFrag(model, cpu_left, left);
  const int64_t cpu_after = cpu_left - pod.request().milli_cpu;
  auto score = [&](uint32_t mask) {
    std::vector<int32_t> after = left;
    TakeGpus(after, mask, pod.gpu_demand());
    const double delta = before - CachedFrag(model, cpu_after, std::move(after));
    return static_cast<int64_t>(100.0 / (1.0 + std::exp(-delta / 1000.0)));
  };
  const GpuDemand& demand = pod.gpu_demand();
  if (!demand.shared()) {
    const uint32_t mask = ChooseGpus(left, demand, GpuSelection::kBest);
    return {score(mask), mask};
  }
  int64_t best = -1;
  uint32_t best_mask = 0;
  for (size_t i = 0; i < left.size(); ++i) {
    if (left[i] < demand.milli) {
      continue;
    }
    const int64_t s = score(1u << i);
    if (s > best) {
      best = s;
      best_mask = 1u << i;
    }
  }
  return {std::max<int64_t>(best, 0), best_mask};
}

int64_t Fgd::Score(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  return Evaluate(pod, node).first;
}

PluginStatus Fgd::Reserve(CycleState&, const PodInfo& pod, const NodeInfo& node,
                          Reservation& reservation) const {
  if (!pod.gpu_demand().any()) {
    return PluginStatus::Success();
  }
  reservation.gpu_indices = Evaluate(pod, node).second;
  return reservation.gpu_indices != 0 ? PluginStatus::Success() : GpusDoNotFit(pod.gpu_demand());
}

}  // namespace tidepool::scheduler::plugins
