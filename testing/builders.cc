#include "testing/builders.h"

#include <cstdio>
#include <cstdlib>

namespace tidepool::testing {

api::Quantity Q(const std::string& s) {
  auto q = api::Quantity::Parse(s);
  if (!q.ok()) {
    std::fprintf(stderr, "bad quantity in test: %s: %s\n", s.c_str(),
                 q.status().ToString().c_str());
    std::abort();
  }
  return *q;
}

api::ResourceList Resources(std::initializer_list<std::pair<std::string, std::string>> list) {
  api::ResourceList out;
  for (const auto& [k, v] : list) {
    out[k] = Q(v);
  }
  return out;
}

PodBuilder::PodBuilder(std::string name, std::string ns) {
  pod_.meta.name = std::move(name);
  pod_.meta.namespace_ = std::move(ns);
  pod_.meta.uid = "uid-" + pod_.meta.namespace_ + "-" + pod_.meta.name;
}

PodBuilder& PodBuilder::Container(
    std::initializer_list<std::pair<std::string, std::string>> requests) {
  api::Container c;
  c.name = "c" + std::to_string(pod_.spec.containers.size());
  c.image = "registry.k8s.io/pause:3.10";
  c.resources.requests = Resources(requests);
  for (const auto& [k, q] : c.resources.requests) {
    if (api::IsExtendedResource(k)) {
      c.resources.limits[k] = q;
    }
  }
  pod_.spec.containers.push_back(std::move(c));
  return *this;
}

PodBuilder& PodBuilder::Req(const std::string& resource, const std::string& quantity) {
  if (pod_.spec.containers.empty()) {
    Container({});
  }
  pod_.spec.containers[0].resources.requests[resource] = Q(quantity);
  if (api::IsExtendedResource(resource)) {
    pod_.spec.containers[0].resources.limits[resource] = Q(quantity);
  }
  return *this;
}

PodBuilder& PodBuilder::Limit(const std::string& resource, const std::string& quantity) {
  if (pod_.spec.containers.empty()) {
    Container({});
  }
  pod_.spec.containers[0].resources.limits[resource] = Q(quantity);
  return *this;
}

PodBuilder& PodBuilder::InitContainer(
    std::initializer_list<std::pair<std::string, std::string>> requests, bool sidecar) {
  api::Container c;
  c.name = "init" + std::to_string(pod_.spec.init_containers.size());
  c.resources.requests = Resources(requests);
  if (sidecar) {
    c.restart_policy = "Always";
  }
  pod_.spec.init_containers.push_back(std::move(c));
  return *this;
}

PodBuilder& PodBuilder::Overhead(
    std::initializer_list<std::pair<std::string, std::string>> overhead) {
  pod_.spec.overhead = Resources(overhead);
  return *this;
}

PodBuilder& PodBuilder::Toleration(const std::string& key, const std::string& value,
                                   api::TaintEffect effect) {
  pod_.spec.tolerations.push_back(
      api::Toleration{key, api::TolerationOperator::kEqual, value, effect, std::nullopt});
  return *this;
}

PodBuilder& PodBuilder::TolerationExists(const std::string& key, api::TaintEffect effect) {
  pod_.spec.tolerations.push_back(
      api::Toleration{key, api::TolerationOperator::kExists, "", effect, std::nullopt});
  return *this;
}

PodBuilder& PodBuilder::NodeSelector(const std::string& key, const std::string& value) {
  pod_.spec.node_selector[key] = value;
  return *this;
}

namespace {
api::NodeAffinity& NodeAffinityOf(api::Pod& pod) {
  if (!pod.spec.affinity) {
    pod.spec.affinity.emplace();
  }
  if (!pod.spec.affinity->node_affinity) {
    pod.spec.affinity->node_affinity.emplace();
  }
  return *pod.spec.affinity->node_affinity;
}
}  // namespace

PodBuilder& PodBuilder::RequiredAffinity(api::NodeSelectorTerm term) {
  api::NodeAffinity& na = NodeAffinityOf(pod_);
  if (!na.required) {
    na.required.emplace();
  }
  na.required->terms.push_back(std::move(term));
  return *this;
}

PodBuilder& PodBuilder::PreferredAffinity(int32_t weight, api::NodeSelectorTerm term) {
  NodeAffinityOf(pod_).preferred.push_back(api::PreferredSchedulingTerm{weight, std::move(term)});
  return *this;
}

PodBuilder& PodBuilder::NodeName(const std::string& node) {
  pod_.spec.node_name = node;
  return *this;
}

PodBuilder& PodBuilder::Priority(int32_t p) {
  pod_.spec.priority = p;
  return *this;
}

PodBuilder& PodBuilder::PreemptionPolicy(const std::string& policy) {
  pod_.spec.preemption_policy = policy;
  return *this;
}

PodBuilder& PodBuilder::OwnedBy(const std::string& kind, const std::string& name) {
  pod_.meta.owner_references.push_back(
      api::OwnerReference{"apps/v1", kind, name, "uid-" + name, true, true});
  return *this;
}

PodBuilder& PodBuilder::Claim(const std::string& volume, const std::string& claim) {
  pod_.spec.volumes.push_back(api::Volume{.name = volume, .claim_name = claim});
  return *this;
}

api::Pod PodBuilder::Obj() const {
  api::Pod p = pod_;
  if (p.spec.containers.empty()) {
    api::Container c;
    c.name = "c0";
    p.spec.containers.push_back(c);
  }
  return p;
}

NodeBuilder::NodeBuilder(std::string name) {
  node_.meta.name = name;
  node_.meta.uid = "uid-node-" + name;
  node_.meta.labels[std::string(api::kLabelHostname)] = name;
  node_.status.capacity[std::string(api::kResourcePods)] = Q("110");
  node_.status.allocatable = node_.status.capacity;
  Ready(true);
}

NodeBuilder& NodeBuilder::Capacity(
    std::initializer_list<std::pair<std::string, std::string>> capacity) {
  for (const auto& [k, v] : capacity) {
    node_.status.capacity[k] = Q(v);
  }
  node_.status.allocatable = node_.status.capacity;
  return *this;
}

NodeBuilder& NodeBuilder::Label(const std::string& key, const std::string& value) {
  node_.meta.labels[key] = value;
  return *this;
}

NodeBuilder& NodeBuilder::Taint(const std::string& key, const std::string& value,
                                api::TaintEffect effect) {
  node_.spec.taints.push_back(api::Taint{key, value, effect, std::nullopt});
  return *this;
}

NodeBuilder& NodeBuilder::Unschedulable() {
  node_.spec.unschedulable = true;
  return *this;
}

NodeBuilder& NodeBuilder::Ready(bool ready) {
  node_.status.conditions.clear();
  api::NodeCondition c;
  c.type = "Ready";
  c.status = ready ? api::ConditionStatus::kTrue : api::ConditionStatus::kFalse;
  c.reason = ready ? "KubeletReady" : "KubeletNotReady";
  node_.status.conditions.push_back(c);
  return *this;
}

api::NodeSelectorTerm Term(const std::string& key, api::SelectorOperator op,
                           std::initializer_list<std::string> values) {
  api::NodeSelectorTerm t;
  t.match_expressions.push_back(api::SelectorRequirement{key, op, values});
  return t;
}

api::NodeSelectorTerm FieldTerm(api::SelectorOperator op,
                                std::initializer_list<std::string> names) {
  api::NodeSelectorTerm t;
  t.match_fields.push_back(api::SelectorRequirement{"metadata.name", op, names});
  return t;
}

}  // namespace tidepool::testing
