// File: expander_test_util.h
//
// Test-only helpers shared by the expander tests: options built from a template node, a node
// count and the pods they would take, written in a line each.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "autoscaler/expander/expander.h"
#include "scheduler/framework/pod_info.h"
#include "testing/builders.h"

namespace tidepool::autoscaler::expander::test {

using Requests = std::initializer_list<std::pair<std::string, std::string>>;

// One pod with one container requesting `requests`.
inline scheduler::PodInfoConstSharedPtr PodWith(const std::string& name, Requests requests) {
  return scheduler::MakePodInfo(testing::MakePod(name).Container(requests).Ptr());
}

// `n` identical pods prefix-0 .. prefix-(n-1).
inline std::vector<scheduler::PodInfoConstSharedPtr> PodsWith(int n, const std::string& prefix,
                                                              Requests requests) {
  std::vector<scheduler::PodInfoConstSharedPtr> out;
  for (int i = 0; i < n; ++i) out.push_back(PodWith(prefix + "-" + std::to_string(i), requests));
  return out;
}

// A template node whose capacity and allocatable are `capacity`.
inline api::Node Template(const std::string& name, Requests capacity) {
  return testing::MakeNode(name).Capacity(capacity).Obj();
}

inline Option MakeOption(const std::string& id, int node_count,
                         std::vector<scheduler::PodInfoConstSharedPtr> pods,
                         api::Node template_node) {
  Option o;
  o.node_group_id = id;
  o.node_count = node_count;
  o.pods = std::move(pods);
  o.template_node = std::move(template_node);
  o.debug = id;
  return o;
}

// An option whose resources do not matter.
inline Option Named(const std::string& id, int pods = 1) {
  return MakeOption(id, 1, PodsWith(pods, id + "-pod", {{"cpu", "1"}}),
                    Template(id + "-node", {{"cpu", "4"}, {"memory", "16Gi"}}));
}

inline std::vector<const Option*> Ptrs(const std::vector<Option>& options) {
  std::vector<const Option*> out;
  for (const Option& o : options) out.push_back(&o);
  return out;
}

inline std::vector<std::string> Ids(const std::vector<const Option*>& options) {
  std::vector<std::string> out;
  for (const Option* o : options) out.push_back(o->node_group_id);
  return out;
}

// GCE shapes used across tests: n1-standard-4 with one T4, and a 48-cpu node with four T4s.
inline api::Node T4x1() {
  return Template("n1-standard-4-t4", {{"cpu", "4"}, {"memory", "15Gi"}, {"nvidia.com/gpu", "1"}});
}
inline api::Node T4x4() {
  return Template("n1-standard-48-t4x4",
                  {{"cpu", "48"}, {"memory", "180Gi"}, {"nvidia.com/gpu", "4"}});
}

}  // namespace tidepool::autoscaler::expander::test
