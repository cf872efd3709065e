// File: node.h
//
// The parts of v1.Node that scheduling and autoscaling read.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/pod.h"
#include "api/resource_list.h"
#include "api/taint.h"

namespace tidepool::api {

inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";
inline constexpr std::string_view kTaintNodeNotReady = "node.kubernetes.io/not-ready";

struct NodeCondition {
  std::string type;  // "Ready", "MemoryPressure", "DiskPressure", "PIDPressure", ...
  ConditionStatus status = ConditionStatus::kUnknown;
  std::string reason;
  std::string message;
  std::optional<TimePoint> last_heartbeat_time;
  std::optional<TimePoint> last_transition_time;
  friend bool operator==(const NodeCondition&, const NodeCondition&) = default;
};

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string provider_id;
  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  friend bool operator==(const NodeStatus&, const NodeStatus&) = default;
};

struct Node {
  ObjectMeta meta;
  NodeSpec spec;
  NodeStatus status;

  const std::string& Name() const { return meta.name; }
  const NodeCondition* FindCondition(std::string_view type) const;
  // The Ready condition is True.
  bool IsReady() const;
  friend bool operator==(const Node&, const Node&) = default;
};

using NodeConstSharedPtr = std::shared_ptr<const Node>;

}  // namespace tidepool::api
