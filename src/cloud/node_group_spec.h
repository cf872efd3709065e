// File: node_group_spec.h
//
// NodeGroupSpec: a node group named on the command line with its size limits, the value of the
// Cluster Autoscaler's --nodes flag, "<min>:<max>:<name>" (CA's utils/dynamic SpecFromString,
// release 1.32, with scale to zero allowed as the GCE provider allows it). Providers say what a
// name means; for GKE it is a node pool, or one of its instance groups' URLs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"

namespace tidepool::cloud {

struct NodeGroupSpec {
  int min_size = 0;
  int max_size = 0;
  std::string name;
  friend bool operator==(const NodeGroupSpec&, const NodeGroupSpec&) = default;
};

// Parses "<min>:<max>:<name>" (the name may contain ':'); InvalidArgument with CA's texts:
//   "wrong nodes configuration: 1:2"
//   "failed to set min size: a, expected integer" / "failed to set max size: ..."
//   "invalid node group spec: min size must be >= 0" / "... max size must be greater or equal
//   to min size" / "... name must not be blank"
StatusOr<NodeGroupSpec> ParseNodeGroupSpec(std::string_view value);

// Every --nodes value; the first bad one is InvalidArgument with the text CA's GCE and AWS
// providers both give: "--nodes: failed to parse node group spec: <why>".
StatusOr<std::vector<NodeGroupSpec>> ParseNodeGroupSpecs(const std::vector<std::string>& values);

// "<min>:<max>:<name>", as CA's NodeGroupSpec.String().
std::string NodeGroupSpecString(const NodeGroupSpec& spec);

}  // namespace tidepool::cloud
