#include "autoscaler/flags.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <variant>

#include "api/codec/config_fields.h"

namespace tidepool::autoscaler {
namespace {

using nlohmann::json;
namespace codec = api::codec;

using Nanos = std::chrono::nanoseconds;
// What a flag sets, and so how its value is read.
struct Ratio {
  double AutoscalingOptions::*field;
};
struct MinMaxField {
  MinMax AutoscalingOptions::*field;
};
struct GpuTotal {};
using Target = std::variant<Nanos AutoscalingOptions::*, int AutoscalingOptions::*,
                            bool AutoscalingOptions::*, std::string AutoscalingOptions::*, Ratio,
                            MinMaxField, GpuTotal>;

struct Flag {
  const char* name;
  Target target;
  const char* help;  // CA's description (cluster-autoscaler/main.go), shortened
};

const std::vector<Flag>& Table() {
  using O = AutoscalingOptions;
  static const std::vector<Flag> flags = {
      {"scan-interval", &O::scan_interval, "How often cluster is reevaluated for scale up or down"},
      {"batching-window", &O::batching_window,
       "tidepool: how long a loop waits for more changes after a new pending pod or node change"},
      {"expander", &O::expander,
       "Type of node group expander to be used in scale up: random, most-pods, least-waste, "
       "price, priority"},
      {"max-nodes-total", &O::max_nodes_total,
       "Maximum number of nodes in all node groups. Cluster autoscaler will not grow the cluster "
       "beyond this number (0: no limit)"},
      {"cores-total", MinMaxField{&O::cores_total},
       "Minimum and maximum number of cores in cluster, in the format <min>:<max>"},
      {"memory-total", MinMaxField{&O::memory_total_gib},
       "Minimum and maximum number of gigabytes of memory in cluster, in the format <min>:<max>"},
      {"gpu-total", GpuTotal{},
       "Minimum and maximum number of different GPUs in cluster, in the format "
       "<gpu_type>:<min>:<max>. Can be passed multiple times"},
      {"max-nodes-per-scaleup", &O::max_nodes_per_scaleup,
       "Max nodes added in a single scale-up (binpacking estimator limit)"},
      {"max-node-provision-time", &O::max_node_provision_time,
       "The default maximum time CA waits for node to be provisioned"},
      {"max-node-startup-time", &O::max_node_startup_time,
       "The maximum time from the moment the node is registered to the time the node is ready"},
      {"new-pod-scale-up-delay", &O::new_pod_scale_up_delay,
       "Pods less than this old will not be considered for scale-up"},
      {"unschedulable-pod-time-buffer", &O::unschedulable_pod_time_buffer,
       "tidepool: how long a loop waits after a pod became unschedulable before scaling up for it "
       "(CA hard-codes 2s)"},
      {"unschedulable-pod-with-gpu-time-buffer", &O::unschedulable_pod_with_gpu_time_buffer,
       "tidepool: the same for pods that request GPUs (CA hard-codes 30s)"},
      {"expendable-pods-priority-cutoff", &O::expendable_pods_priority_cutoff,
       "Pods with priority below cutoff will be expendable"},
      {"initial-node-group-backoff-duration", &O::initial_node_group_backoff_duration,
       "initialNodeGroupBackoffDuration is the duration of first backoff after a new node failed "
       "to start"},
      {"max-node-group-backoff-duration", &O::max_node_group_backoff_duration,
       "maxNodeGroupBackoffDuration is the maximum backoff duration for a NodeGroup after new "
       "nodes failed to start"},
      {"node-group-backoff-reset-timeout", &O::node_group_backoff_reset_timeout,
       "nodeGroupBackoffResetTimeout is the time after last failed scale-up when the backoff "
       "duration is reset"},
      {"scale-up-from-zero", &O::scale_up_from_zero,
       "Should CA scale up when there are 0 ready nodes"},
      {"scale-down-enabled", &O::scale_down_enabled, "Should CA scale down the cluster"},
      {"scale-down-delay-after-add", &O::scale_down_delay_after_add,
       "How long after scale up that scale down evaluation resumes"},
      {"scale-down-delay-after-delete", &O::scale_down_delay_after_delete,
       "How long after node deletion that scale down evaluation resumes, defaults to scanInterval"},
      {"scale-down-delay-after-failure", &O::scale_down_delay_after_failure,
       "How long after scale down failure that scale down evaluation resumes"},
      {"scale-down-unneeded-time", &O::scale_down_unneeded_time,
       "How long a node should be unneeded before it is eligible for scale down"},
      {"scale-down-unready-time", &O::scale_down_unready_time,
       "How long an unready node should be unneeded before it is eligible for scale down"},
      {"scale-down-utilization-threshold", Ratio{&O::scale_down_utilization_threshold},
       "The maximum value between the sum of cpu requests and sum of memory requests of all pods "
       "running on the node divided by node's corresponding allocatable resource, below which a "
       "node can be considered for scale down"},
      {"scale-down-gpu-utilization-threshold", Ratio{&O::scale_down_gpu_utilization_threshold},
       "Sum of gpu requests of all pods running on the node divided by node's allocatable "
       "resource, below which a node can be considered for scale down"},
      {"max-graceful-termination-sec", &O::max_graceful_termination_sec,
       "Maximum number of seconds CA waits for pod termination when trying to scale down a node"},
      {"daemonset-eviction-for-empty-nodes", &O::daemonset_eviction_for_empty_nodes,
       "DaemonSet pods will be gracefully terminated from empty nodes"},
      {"daemonset-eviction-for-occupied-nodes", &O::daemonset_eviction_for_occupied_nodes,
       "DaemonSet pods will be gracefully terminated from non-empty nodes"},
      {"max-scale-down-parallelism", &O::max_scale_down_parallelism,
       "Maximum number of nodes (both empty and needing drain) that can be deleted in parallel"},
      {"max-drain-parallelism", &O::max_drain_parallelism,
       "Maximum number of nodes needing drain, that can be drained and deleted in parallel"},
      {"skip-nodes-with-system-pods", &O::skip_nodes_with_system_pods,
       "If true cluster autoscaler will never delete nodes with pods from kube-system (except "
       "for DaemonSet or mirror pods)"},
      {"skip-nodes-with-local-storage", &O::skip_nodes_with_local_storage,
       "If true cluster autoscaler will never delete nodes with pods with local storage, e.g. "
       "EmptyDir or HostPath"},
      {"skip-nodes-with-custom-controller-pods", &O::skip_nodes_with_custom_controller_pods,
       "If true cluster autoscaler will never delete nodes with pods owned by custom controllers"},
      {"min-replica-count", &O::min_replica_count,
       "Minimum number or replicas that a replica set or replication controller should have to "
       "allow their pods deletion in scale down"},
      {"unremovable-node-recheck-timeout", &O::unremovable_node_recheck_timeout,
       "The timeout before we check again a node that couldn't be removed before"},
      {"ok-total-unready-count", &O::ok_total_unready_count,
       "Number of allowed unready nodes, irrespective of max-total-unready-percentage"},
      {"max-total-unready-percentage", &O::max_total_unready_percentage,
       "Maximum percentage of unready nodes in the cluster.  After this is exceeded, CA halts "
       "operations"},
      {"write-status-configmap", &O::write_status_configmap,
       "Should CA write status information to a configmap"},
      {"status-config-map-name", &O::status_config_map_name, "Status configmap name"},
  };
  return flags;
}

std::string_view StripDashes(std::string_view name) {
  while (!name.empty() && name.front() == '-') {
    name.remove_prefix(1);
  }
  return name;
}

const Flag* Find(std::string_view name) {
  name = StripDashes(name);
  for (const Flag& f : Table()) {
    if (name == f.name) {
      return &f;
    }
  }
  return nullptr;
}

StatusOr<MinMax> ParseMinMax(const json& v, const std::string& p) {
  TIDEPOOL_ASSIGN_OR_RETURN(std::string s, codec::GetString(v, p));
  const size_t colon = s.find(':');
  MinMax mm;
  auto parse = [](std::string_view text, int64_t& out) {
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end && !text.empty();
  };
  if (colon == std::string::npos || !parse(std::string_view(s).substr(0, colon), mm.min) ||
      !parse(std::string_view(s).substr(colon + 1), mm.max)) {
    return codec::FieldError(p, "expected \"<min>:<max>\", got \"" + s + "\"");
  }
  if (mm.min < 0 || mm.max < mm.min) {
    return codec::FieldError(p, "need 0 <= min <= max, got \"" + s + "\"");
  }
  return mm;
}

Status Set(AutoscalingOptions& o, const Flag& flag, const json& v, const std::string& p) {
  struct Visitor {
    AutoscalingOptions& o;
    const json& v;
    const std::string& p;
    Status operator()(Nanos AutoscalingOptions::*f) const {
      TIDEPOOL_ASSIGN_OR_RETURN(o.*f, codec::GetDuration(v, p));
      return OkStatus();
    }
    Status operator()(int AutoscalingOptions::*f) const {
      TIDEPOOL_ASSIGN_OR_RETURN(o.*f, codec::GetSmallInt(v, p));
      return OkStatus();
    }
    Status operator()(bool AutoscalingOptions::*f) const {
      TIDEPOOL_ASSIGN_OR_RETURN(o.*f, codec::GetBool(v, p));
      return OkStatus();
    }
    Status operator()(std::string AutoscalingOptions::*f) const {
      TIDEPOOL_ASSIGN_OR_RETURN(o.*f, codec::GetString(v, p));
      return OkStatus();
    }
    Status operator()(Ratio r) const {
      TIDEPOOL_ASSIGN_OR_RETURN(double d, codec::GetNumber(v, p));
      if (d < 0 || d > 1) {
        return codec::FieldError(p, "must be between 0 and 1");
      }
      o.*r.field = d;
      return OkStatus();
    }
    Status operator()(MinMaxField m) const {
      TIDEPOOL_ASSIGN_OR_RETURN(o.*m.field, ParseMinMax(v, p));
      return OkStatus();
    }
    Status operator()(GpuTotal) const {
      TIDEPOOL_ASSIGN_OR_RETURN(std::vector<std::string> items, codec::GetStringList(v, p));
      std::map<std::string, MinMax> totals;
      for (const std::string& s : items) {
        const size_t colon = s.find(':');
        if (colon == std::string::npos || colon == 0) {
          return codec::FieldError(p, "expected \"<gpu type>:<min>:<max>\", got \"" + s + "\"");
        }
        TIDEPOOL_ASSIGN_OR_RETURN(MinMax mm, ParseMinMax(json(s.substr(colon + 1)), p));
        totals[s.substr(0, colon)] = mm;
      }
      o.gpu_total = std::move(totals);
      return OkStatus();
    }
  };
  return std::visit(Visitor{o, v, p}, flag.target);
}

}  // namespace

const std::vector<FlagInfo>& AutoscalerFlags() {
  static const std::vector<FlagInfo> infos = [] {
    std::vector<FlagInfo> out;
    for (const Flag& f : Table()) {
      out.push_back(FlagInfo{f.name, f.help});
    }
    return out;
  }();
  return infos;
}

Status SetAutoscalerFlag(AutoscalingOptions& options, std::string_view name, const json& value,
                         const std::string& path) {
  const Flag* flag = Find(name);
  if (flag == nullptr) {
    return NotFoundError("unknown flag \"" + std::string(name) + "\"");
  }
  return Set(options, *flag, value, path);
}

Status SetAutoscalerFlagFromString(AutoscalingOptions& options, std::string_view name,
                                   std::string_view value) {
  const Flag* flag = Find(name);
  if (flag == nullptr) {
    return NotFoundError("unknown flag: --" + std::string(StripDashes(name)));
  }
  const std::string path = "--" + std::string(flag->name);
  const std::string text(value);
  // Typed like the config file's scalars: numbers and booleans as such, lists split on commas.
  json v = text;
  if (std::holds_alternative<int AutoscalingOptions::*>(flag->target)) {
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
      return codec::FieldError(path, "invalid value \"" + text + "\": expected an integer");
    }
    v = n;
  } else if (std::holds_alternative<bool AutoscalingOptions::*>(flag->target)) {
    // Go's strconv.ParseBool, as pflag reads booleans.
    static const std::vector<std::string_view> kTrue = {"1", "t", "T", "TRUE", "true", "True"};
    static const std::vector<std::string_view> kFalse = {"0", "f", "F", "FALSE", "false", "False"};
    if (std::find(kTrue.begin(), kTrue.end(), text) != kTrue.end()) {
      v = true;
    } else if (std::find(kFalse.begin(), kFalse.end(), text) != kFalse.end()) {
      v = false;
    } else {
      return codec::FieldError(path, "invalid value \"" + text + "\": expected true or false");
    }
  } else if (std::holds_alternative<Ratio>(flag->target)) {
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
      return codec::FieldError(path, "invalid value \"" + text + "\": expected a number");
    }
    v = d;
  } else if (std::holds_alternative<GpuTotal>(flag->target)) {
    v = json::array();
    size_t start = 0;
    while (start <= text.size()) {
      const size_t comma = std::min(text.find(',', start), text.size());
      if (comma > start) {
        v.push_back(text.substr(start, comma - start));
      }
      start = comma + 1;
    }
  }
  return Set(options, *flag, v, path);
}

Status ValidateAutoscalingOptions(const AutoscalingOptions& options, const std::string& path) {
  if (options.scan_interval <= Nanos::zero()) {
    return codec::FieldError(codec::JoinPath(path, "scan-interval"), "must be positive");
  }
  return OkStatus();
}

}  // namespace tidepool::autoscaler
