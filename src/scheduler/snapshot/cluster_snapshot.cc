#include "scheduler/snapshot/cluster_snapshot.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <string_view>

#include "api/node.h"
#include "common/check.h"

namespace tidepool::scheduler {
namespace {

inline size_t Mix(size_t h, size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

// A NodeClass is the static shape of a node as the filters see it: labels except
// kubernetes.io/hostname, taints in order by key, value and effect (not timeAdded),
// unschedulable and allocatable as a Resource. A NodeShape is exact (timeAdded, the quantities'
// formats), so several shapes may make one class.
size_t ClassHash(const NodeShape& shape) {
  std::hash<std::string_view> str;
  size_t h = 0x636c617373ULL;
  for (const auto& [k, v] : shape.labels) {
    h = Mix(Mix(h, str(k)), str(v));
  }
  h = Mix(h, 0x1e);
  for (const auto& t : shape.taints) {
    h = Mix(Mix(h, str(t.key)), str(t.value));
    h = Mix(h, static_cast<size_t>(t.effect));
  }
  h = Mix(h, shape.unschedulable ? 0x1f : 0x2f);
  return Mix(h, shape.allocatable_resource.Hash());
}

bool SameClass(const NodeShape& a, const NodeShape& b) {
  // api::Taint's == compares key, value and effect.
  return a.unschedulable == b.unschedulable && a.allocatable_resource == b.allocatable_resource &&
         a.taints == b.taints && a.labels == b.labels;
}

}  // namespace

size_t UsageKeyHash::operator()(const UsageKey& k) const {
  size_t h = k.requested.Hash();
  h = Mix(h, std::hash<int64_t>()(k.non_zero_milli_cpu));
  h = Mix(h, std::hash<int64_t>()(k.non_zero_memory));
  for (int32_t g : k.gpu_left) {
    h = Mix(h, std::hash<int32_t>()(g));
  }
  return Mix(h, k.num_pods);
}

bool NodeNameLess::operator()(NodeId a, NodeId b) const {
  return snapshot->node_info(a).name() < snapshot->node_info(b).name();
}

struct ClusterSnapshot::ClassIndex {
  // Each shape met and its class; held, so that a shape's address is not reused while cached.
  std::unordered_map<const NodeShape*, std::pair<std::shared_ptr<const NodeShape>, uint32_t>>
      by_shape;
  // Class ids by ClassHash of their first shape; several only on a collision.
  std::unordered_map<size_t, std::vector<uint32_t>> by_hash;
  std::vector<const NodeShape*> first_shape;  // by class id; held through by_shape
};

struct ClusterSnapshot::UndoEntry {
  enum class Kind { kAddNode, kRemoveNode, kUpdateNode, kAddPod, kRemovePod };
  Kind kind;
  NodeId node = 0;
  size_t pod_index = 0;
  PodInfoConstSharedPtr pod;
  std::unique_ptr<NodeInfo> node_info;  // kRemoveNode: the removed node, with its pods
  std::unique_ptr<NodeInfo::Facts> old_facts;  // kUpdateNode: the previous node
};

namespace {
// The source of version() values, shared by every snapshot so that two snapshots (or one
// snapshot before and after Clear) never show the same version for different contents.
std::atomic<uint64_t> g_last_version{0};
}  // namespace

ClusterSnapshot::ClusterSnapshot() : class_index_(std::make_unique<ClassIndex>()) { Touch(); }
ClusterSnapshot::~ClusterSnapshot() = default;

UsageKey ClusterSnapshot::UsageOf(const NodeInfo& n) const {
  UsageKey key{n.requested(), n.non_zero_milli_cpu(), n.non_zero_memory(), n.pods().size(),
               n.gpu_left()};
  std::sort(key.gpu_left.begin(), key.gpu_left.end());
  return key;
}

uint32_t ClusterSnapshot::ClassIdFor(const std::shared_ptr<const NodeShape>& shape) {
  auto known = class_index_->by_shape.find(shape.get());
  if (known != class_index_->by_shape.end()) {
    return known->second.second;
  }
  std::vector<uint32_t>& candidates = class_index_->by_hash[ClassHash(*shape)];
  uint32_t id = 0;
  bool found = false;
  for (uint32_t c : candidates) {
    if (SameClass(*class_index_->first_shape[c], *shape)) {
      id = c;
      found = true;
      break;
    }
  }
  if (!found) {
    auto c = std::make_unique<NodeClass>();
    c->id_ = static_cast<uint32_t>(classes_.size());
    classes_.push_back(std::move(c));
    id = classes_.back()->id_;
    candidates.push_back(id);
    class_index_->first_shape.push_back(shape.get());
  }
  class_index_->by_shape.emplace(shape.get(), std::make_pair(shape, id));
  return id;
}

void ClusterSnapshot::IndexInsert(NodeId id) {
  NodeClass& c = *classes_[node_class_[id]];
  auto [it, inserted] = c.buckets_.try_emplace(UsageOf(*nodes_[id]), this);
  it->second.members.insert(id);
  ++c.size_;
}

void ClusterSnapshot::IndexErase(NodeId id) {
  NodeClass& c = *classes_[node_class_[id]];
  auto it = c.buckets_.find(UsageOf(*nodes_[id]));
  TIDEPOOL_CHECK(it != c.buckets_.end());
  it->second.members.erase(id);
  if (it->second.members.empty()) {
    c.buckets_.erase(it);
  }
  --c.size_;
}

NodeId ClusterSnapshot::TakeSlot() {
  if (!free_slots_.empty()) {
    NodeId id = free_slots_.back();
    free_slots_.pop_back();
    return id;
  }
  nodes_.emplace_back();
  node_class_.push_back(0);
  return static_cast<NodeId>(nodes_.size() - 1);
}

void ClusterSnapshot::CountPod(const PodInfo& pod, int sign) {
  int32_t prio = pod.Priority();
  if (sign > 0) {
    ++priority_counts_[prio];
    ++num_pods_;
  } else {
    auto it = priority_counts_.find(prio);
    TIDEPOOL_CHECK(it != priority_counts_.end());
    if (--it->second == 0) {
      priority_counts_.erase(it);
    }
    --num_pods_;
  }
}

void ClusterSnapshot::CountNodePods(const NodeInfo& node, int sign) {
  for (const auto& p : node.pods()) {
    CountPod(*p, sign);
  }
}

void ClusterSnapshot::Touch() {
  version_ = g_last_version.fetch_add(1, std::memory_order_relaxed) + 1;
}

void ClusterSnapshot::Log(UndoEntry&& e) {
  if (!fork_marks_.empty()) {
    undo_.push_back(std::move(e));
  }
}

Status ClusterSnapshot::AddNode(const api::Node& node) {
  const std::string& name = node.meta.name;
  if (by_name_.find(name) != by_name_.end()) {
    return AlreadyExistsError("node \"" + name + "\" already exists in the snapshot");
  }
  NodeId id = TakeSlot();
  nodes_[id] = std::make_unique<NodeInfo>(node);
  node_class_[id] = ClassIdFor(nodes_[id]->shape());
  by_name_.emplace(nodes_[id]->name(), id);
  ++num_nodes_;
  IndexInsert(id);
  Touch();
  Log(UndoEntry{UndoEntry::Kind::kAddNode, id});
  return OkStatus();
}

Status ClusterSnapshot::UpdateNode(const api::Node& node) {
  auto it = by_name_.find(node.meta.name);
  if (it == by_name_.end()) {
    return NotFoundError("node \"" + node.meta.name + "\" not found in the snapshot");
  }
  NodeId id = it->second;
  NodeInfo::Facts facts = NodeInfo::MakeFacts(node);
  IndexErase(id);
  node_class_[id] = ClassIdFor(facts.shape);
  NodeInfo::Facts old = nodes_[id]->SwapFacts(std::move(facts));
  IndexInsert(id);
  Touch();
  if (!fork_marks_.empty()) {
    UndoEntry e{UndoEntry::Kind::kUpdateNode, id};
    e.old_facts = std::make_unique<NodeInfo::Facts>(std::move(old));
    undo_.push_back(std::move(e));
  }
  return OkStatus();
}

Status ClusterSnapshot::RemoveNode(std::string_view name) {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    return NotFoundError("node \"" + std::string(name) + "\" not found in the snapshot");
  }
  NodeId id = it->second;
  IndexErase(id);
  by_name_.erase(it);
  --num_nodes_;
  CountNodePods(*nodes_[id], -1);
  std::unique_ptr<NodeInfo> info = std::move(nodes_[id]);
  free_slots_.push_back(id);
  Touch();
  if (!fork_marks_.empty()) {
    UndoEntry e{UndoEntry::Kind::kRemoveNode, id};
    e.node_info = std::move(info);
    undo_.push_back(std::move(e));
  }
  return OkStatus();
}

Status ClusterSnapshot::AddPod(PodInfoConstSharedPtr pod, std::string_view node_name) {
  auto it = by_name_.find(node_name);
  if (it == by_name_.end()) {
    return NotFoundError("node \"" + std::string(node_name) + "\" not found in the snapshot");
  }
  NodeId id = it->second;
  IndexErase(id);
  CountPod(*pod, +1);
  nodes_[id]->AddPod(std::move(pod));
  IndexInsert(id);
  Touch();
  Log(UndoEntry{UndoEntry::Kind::kAddPod, id});
  return OkStatus();
}

Status ClusterSnapshot::RemovePod(std::string_view pod_key, std::string_view node_name) {
  auto it = by_name_.find(node_name);
  if (it == by_name_.end()) {
    return NotFoundError("node \"" + std::string(node_name) + "\" not found in the snapshot");
  }
  NodeId id = it->second;
  NodeInfo& info = *nodes_[id];
  for (size_t i = 0; i < info.pods().size(); ++i) {
    const PodInfo& m = *info.pods()[i];
    const std::string_view ns = m.namespace_();
    const std::string_view name = m.name();
    if (pod_key.size() == ns.size() + 1 + name.size() && pod_key.starts_with(ns) &&
        pod_key[ns.size()] == '/' && pod_key.ends_with(name)) {
      IndexErase(id);
      PodInfoConstSharedPtr removed = info.RemovePodAt(i);
      CountPod(*removed, -1);
      IndexInsert(id);
      Touch();
      UndoEntry e{UndoEntry::Kind::kRemovePod, id, i};
      e.pod = std::move(removed);
      Log(std::move(e));
      return OkStatus();
    }
  }
  return NotFoundError("pod \"" + std::string(pod_key) + "\" not found on node \"" +
                       std::string(node_name) + "\"");
}

void ClusterSnapshot::Clear() {
  TIDEPOOL_CHECK(fork_marks_.empty());
  nodes_.clear();
  node_class_.clear();
  free_slots_.clear();
  by_name_.clear();
  num_nodes_ = 0;
  num_pods_ = 0;
  priority_counts_.clear();
  classes_.clear();
  class_index_->by_shape.clear();
  class_index_->by_hash.clear();
  class_index_->first_shape.clear();
  Touch();
}

void ClusterSnapshot::Undo(UndoEntry& e) {
  NodeId id = e.node;
  switch (e.kind) {
    case UndoEntry::Kind::kAddNode: {
      IndexErase(id);
      by_name_.erase(nodes_[id]->name());
      nodes_[id].reset();
      --num_nodes_;
      free_slots_.push_back(id);
      break;
    }
    case UndoEntry::Kind::kRemoveNode: {
      TIDEPOOL_CHECK(!free_slots_.empty() && free_slots_.back() == id);
      free_slots_.pop_back();
      nodes_[id] = std::move(e.node_info);
      by_name_.emplace(nodes_[id]->name(), id);
      ++num_nodes_;
      CountNodePods(*nodes_[id], +1);
      IndexInsert(id);
      break;
    }
    case UndoEntry::Kind::kUpdateNode: {
      IndexErase(id);
      node_class_[id] = ClassIdFor(e.old_facts->shape);
      nodes_[id]->SwapFacts(std::move(*e.old_facts));
      IndexInsert(id);
      break;
    }
    case UndoEntry::Kind::kAddPod: {
      IndexErase(id);
      NodeInfo& info = *nodes_[id];
      PodInfoConstSharedPtr removed = info.RemovePodAt(info.pods().size() - 1);
      CountPod(*removed, -1);
      IndexInsert(id);
      break;
    }
    case UndoEntry::Kind::kRemovePod: {
      IndexErase(id);
      CountPod(*e.pod, +1);
      nodes_[id]->RestorePodAt(e.pod_index, std::move(e.pod));
      IndexInsert(id);
      break;
    }
  }
}

void ClusterSnapshot::Fork() {
  fork_marks_.push_back(ForkMark{undo_.size(), version_});
}

void ClusterSnapshot::Revert() {
  TIDEPOOL_CHECK(!fork_marks_.empty());
  const ForkMark mark = fork_marks_.back();
  fork_marks_.pop_back();
  while (undo_.size() > mark.undo_size) {
    Undo(undo_.back());
    undo_.pop_back();
  }
  version_ = mark.version;
}

void ClusterSnapshot::Commit() {
  TIDEPOOL_CHECK(!fork_marks_.empty());
  fork_marks_.pop_back();
  if (fork_marks_.empty()) {
    undo_.clear();
  }
}

const NodeInfo* ClusterSnapshot::GetNodeInfo(std::string_view name) const {
  const std::optional<NodeId> id = FindNode(name);
  return id.has_value() ? nodes_[*id].get() : nullptr;
}

std::vector<NodeId> ClusterSnapshot::IdsByName() const {
  std::vector<std::pair<std::string_view, NodeId>> named(by_name_.begin(), by_name_.end());
  std::sort(named.begin(), named.end());
  std::vector<NodeId> ids;
  ids.reserve(named.size());
  for (const auto& [name, id] : named) {
    ids.push_back(id);
  }
  return ids;
}

std::optional<NodeId> ClusterSnapshot::FindNode(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    return std::nullopt;
  }
  return it->second;
}

NodeId ClusterSnapshot::IdOf(const NodeInfo& info) const {
  const std::optional<NodeId> id = FindNode(info.name());
  TIDEPOOL_CHECK(id.has_value());
  return *id;
}

size_t ClusterSnapshot::NumClasses() const {
  size_t n = 0;
  for (const auto& c : classes_) {
    n += c->size_ > 0 ? 1 : 0;
  }
  return n;
}

}  // namespace tidepool::scheduler
