// File: registry.h
//
// A Registry maps plugin names to factories. The one list of in-tree plugins is
// scheduler/plugins/registry.h's NewInTreeRegistry(); no plugin registers itself.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "common/status_or.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/plugin_args.h"

namespace tidepool::scheduler {

using PluginFactory = std::function<StatusOr<PluginPtr>(const PluginArgs& args)>;
using Registry = std::map<std::string, PluginFactory, std::less<>>;

// A scheduling profile: which plugins run at each extension point, in order, with score
// weights.
struct Profile {
  std::string scheduler_name = "default-scheduler";
  std::vector<std::string> pre_filter;
  std::vector<std::string> filter;
  std::vector<std::string> post_filter;
  std::vector<std::string> pre_score;
  std::vector<std::pair<std::string, int64_t>> score;
  std::vector<std::string> reserve;
  PluginArgs args;
};

// kube-scheduler 1.32's default profile, restricted to the plugins tidepool implements, in the
// default order (pkg/scheduler/apis/config/v1/default_plugins.go): filters NodeUnschedulable,
// NodeName, TaintToleration, NodeAffinity, NodeResourcesFit, VolumeBinding (its PreFilter
// too); scores TaintToleration (3),
// NodeAffinity (2), NodeResourcesFit (1), NodeResourcesBalancedAllocation (1); PostFilter
// DefaultPreemption.
Profile DefaultProfile();

}  // namespace tidepool::scheduler
