// File: builders.h
//
// Small builders that keep test cases to a line or two (kube-scheduler's st.MakePod /
// st.MakeNode wrappers):
//   MakePod("p").Req("nvidia.com/gpu", "1").Toleration("nvidia.com/gpu", "present").Obj()
//   MakeNode("n1").Capacity({{"cpu", "4"}, {"memory", "15Gi"}}).Taint("k", "v").Obj()
// Quantities are given as strings and parsed with api::Quantity; a bad one aborts the test.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "api/node.h"
#include "api/pod.h"

namespace tidepool::testing {

api::Quantity Q(const std::string& s);
api::ResourceList Resources(std::initializer_list<std::pair<std::string, std::string>> list);

class PodBuilder {
 public:
  explicit PodBuilder(std::string name, std::string ns = "default");
  // Adds a container with these requests (and, for extended resources, equal limits).
  PodBuilder& Container(std::initializer_list<std::pair<std::string, std::string>> requests);
  PodBuilder& Req(const std::string& resource, const std::string& quantity);  // to container 0
  PodBuilder& Limit(const std::string& resource, const std::string& quantity);
  PodBuilder& InitContainer(std::initializer_list<std::pair<std::string, std::string>> requests,
                            bool sidecar = false);
  PodBuilder& Overhead(std::initializer_list<std::pair<std::string, std::string>> overhead);
  PodBuilder& Toleration(const std::string& key, const std::string& value,
                         api::TaintEffect effect = api::TaintEffect::kNoSchedule);
  PodBuilder& TolerationExists(const std::string& key,
                               api::TaintEffect effect = api::TaintEffect::kNone);
  PodBuilder& NodeSelector(const std::string& key, const std::string& value);
  PodBuilder& RequiredAffinity(api::NodeSelectorTerm term);  // adds an ORed term
  PodBuilder& PreferredAffinity(int32_t weight, api::NodeSelectorTerm term);
  PodBuilder& NodeName(const std::string& node);
  PodBuilder& Priority(int32_t p);
  PodBuilder& PreemptionPolicy(const std::string& policy);
  PodBuilder& OwnedBy(const std::string& kind, const std::string& name);
  // A volume `volume` of the persistentVolumeClaim `claim`.
  PodBuilder& Claim(const std::string& volume, const std::string& claim);

  api::Pod Obj() const;
  api::PodConstSharedPtr Ptr() const { return std::make_shared<const api::Pod>(Obj()); }

 private:
  api::Pod pod_;
};

class NodeBuilder {
 public:
  explicit NodeBuilder(std::string name);
  // Sets capacity and allocatable; "pods" defaults to 110.
  NodeBuilder& Capacity(std::initializer_list<std::pair<std::string, std::string>> capacity);
  NodeBuilder& Label(const std::string& key, const std::string& value);
  NodeBuilder& Taint(const std::string& key, const std::string& value,
                     api::TaintEffect effect = api::TaintEffect::kNoSchedule);
  NodeBuilder& Unschedulable();
  NodeBuilder& Ready(bool ready = true);

  api::Node Obj() const { return node_; }
  api::NodeConstSharedPtr Ptr() const { return std::make_shared<const api::Node>(node_); }

 private:
  api::Node node_;
};

inline PodBuilder MakePod(std::string name, std::string ns = "default") {
  return PodBuilder(std::move(name), std::move(ns));
}
inline NodeBuilder MakeNode(std::string name) { return NodeBuilder(std::move(name)); }

// A node selector term with one requirement.
api::NodeSelectorTerm Term(const std::string& key, api::SelectorOperator op,
                           std::initializer_list<std::string> values = {});
// A term with one matchFields metadata.name requirement.
api::NodeSelectorTerm FieldTerm(api::SelectorOperator op, std::initializer_list<std::string> names);

}  // namespace tidepool::testing
