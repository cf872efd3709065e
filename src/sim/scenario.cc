#include "sim/scenario.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "api/codec/json_codec.h"
#include "api/codec/yaml.h"
#include "sim/duration.h"

namespace tidepool::sim {
namespace {

using nlohmann::json;
namespace emu = cloud::emulated;

// ---- Typed access with field paths -------------------------------------------------------------

std::string TypeName(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::string:
      return "string";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "value";
  }
}

std::string Describe(const json& j) {
  if (j.is_string()) {
    return "string " + j.dump();
  }
  if (j.is_number() || j.is_boolean()) {
    return TypeName(j) + " " + j.dump();
  }
  return TypeName(j);
}

Status Err(const std::string& path, const std::string& msg) {
  return InvalidArgumentError(path + ": " + msg);
}

std::string Join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

Status ExpectObject(const json& j, const std::string& path) {
  if (!j.is_object()) {
    return Err(path, "expected object, got " + Describe(j));
  }
  return OkStatus();
}

Status CheckKeys(const json& j, const std::string& path,
                 std::initializer_list<std::string_view> allowed) {
  TIDEPOOL_RETURN_IF_ERROR(ExpectObject(j, path));
  for (const auto& [k, v] : j.items()) {
    bool ok = false;
    for (std::string_view a : allowed) {
      ok = ok || a == k;
    }
    if (!ok) {
      std::string list;
      for (std::string_view a : allowed) {
        list += (list.empty() ? "" : ", ") + std::string(a);
      }
      return Err(Join(path, k), "unknown field (known: " + list + ")");
    }
  }
  return OkStatus();
}

StatusOr<std::string> GetString(const json& j, const std::string& path) {
  if (!j.is_string()) {
    return Err(path, "expected string, got " + Describe(j));
  }
  return j.get<std::string>();
}

StatusOr<int64_t> GetInt(const json& j, const std::string& path) {
  if (j.is_number_integer()) {
    return j.get<int64_t>();
  }
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (std::floor(d) == d && std::fabs(d) < 9e15) {
      return static_cast<int64_t>(d);
    }
  }
  return Err(path, "expected integer, got " + Describe(j));
}

StatusOr<int> GetSmallInt(const json& j, const std::string& path) {
  TIDEPOOL_ASSIGN_OR_RETURN(int64_t v, GetInt(j, path));
  if (v < -1000000000LL || v > 1000000000LL) {
    return Err(path, "value " + std::to_string(v) + " out of range");
  }
  return static_cast<int>(v);
}

StatusOr<double> GetNumber(const json& j, const std::string& path) {
  if (!j.is_number()) {
    return Err(path, "expected number, got " + Describe(j));
  }
  return j.get<double>();
}

StatusOr<bool> GetBool(const json& j, const std::string& path) {
  if (!j.is_boolean()) {
    return Err(path, "expected boolean, got " + Describe(j));
  }
  return j.get<bool>();
}

// A Go duration string ("10s", "1m30s"); the integer 0 is accepted too.
StatusOr<Duration> GetDuration(const json& j, const std::string& path) {
  if (j.is_number_integer() && j.get<int64_t>() == 0) {
    return Duration::zero();
  }
  if (!j.is_string()) {
    return Err(path, "expected a duration such as \"30s\" or \"10m\", got " + Describe(j));
  }
  auto d = ParseGoDuration(j.get<std::string>());
  if (!d.ok()) {
    return Err(path, std::string(d.status().message()));
  }
  if (*d < Duration::zero()) {
    return Err(path, "must not be negative");
  }
  return *d;
}

StatusOr<std::vector<std::string>> GetStringList(const json& j, const std::string& path) {
  std::vector<std::string> out;
  if (j.is_string()) {
    out.push_back(j.get<std::string>());
    return out;
  }
  if (!j.is_array()) {
    return Err(path, "expected array of strings, got " + Describe(j));
  }
  for (size_t i = 0; i < j.size(); ++i) {
    TIDEPOOL_ASSIGN_OR_RETURN(std::string s, GetString(j[i], Index(path, i)));
    out.push_back(std::move(s));
  }
  return out;
}

// ---- Sections ----------------------------------------------------------------------------------

StatusOr<emu::FaultMatch> ParseMatch(const json& j, const std::string& path, bool slow_boot) {
  if (slow_boot) {
    TIDEPOOL_RETURN_IF_ERROR(CheckKeys(
        j, path, {"nodePool", "zone", "machineType", "accelerator", "probability", "extra"}));
  } else {
    TIDEPOOL_RETURN_IF_ERROR(
        CheckKeys(j, path, {"nodePool", "zone", "machineType", "accelerator", "probability"}));
  }
  emu::FaultMatch m;
  for (const auto& [k, v] : j.items()) {
    const std::string p = Join(path, k);
    if (k == "nodePool") {
      TIDEPOOL_ASSIGN_OR_RETURN(m.node_pool, GetString(v, p));
    } else if (k == "zone") {
      TIDEPOOL_ASSIGN_OR_RETURN(m.zone, GetString(v, p));
    } else if (k == "machineType") {
      TIDEPOOL_ASSIGN_OR_RETURN(m.machine_type, GetString(v, p));
    } else if (k == "accelerator") {
      TIDEPOOL_ASSIGN_OR_RETURN(m.accelerator, GetString(v, p));
    } else if (k == "probability") {
      TIDEPOOL_ASSIGN_OR_RETURN(m.probability, GetNumber(v, p));
      if (m.probability < 0 || m.probability > 1) {
        return Err(p, "must be between 0 and 1");
      }
    }
  }
  return m;
}

StatusOr<std::vector<emu::FaultMatch>> ParseMatches(const json& j, const std::string& path) {
  if (!j.is_array()) {
    return Err(path, "expected array, got " + Describe(j));
  }
  std::vector<emu::FaultMatch> out;
  for (size_t i = 0; i < j.size(); ++i) {
    TIDEPOOL_ASSIGN_OR_RETURN(emu::FaultMatch m, ParseMatch(j[i], Index(path, i), false));
    out.push_back(std::move(m));
  }
  return out;
}

StatusOr<emu::Faults> ParseFaults(const json& j, const std::string& path) {
  TIDEPOOL_RETURN_IF_ERROR(CheckKeys(
      j, path,
      {"stockout", "stockoutDelay", "gpuQuota", "neverRegisters", "slowBoot", "driverNeverReady"}));
  emu::Faults f;
  for (const auto& [k, v] : j.items()) {
    const std::string p = Join(path, k);
    if (k == "stockout") {
      TIDEPOOL_ASSIGN_OR_RETURN(f.stockout, ParseMatches(v, p));
    } else if (k == "stockoutDelay") {
      TIDEPOOL_ASSIGN_OR_RETURN(f.stockout_delay, GetDuration(v, p));
    } else if (k == "gpuQuota") {
      TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
      for (const auto& [metric, limit] : v.items()) {
        TIDEPOOL_ASSIGN_OR_RETURN(int64_t n, GetInt(limit, Join(p, metric)));
        if (n < 0) {
          return Err(Join(p, metric), "must not be negative");
        }
        f.gpu_quota[metric] = n;
      }
    } else if (k == "neverRegisters") {
      TIDEPOOL_ASSIGN_OR_RETURN(f.never_registers, ParseMatches(v, p));
    } else if (k == "driverNeverReady") {
      TIDEPOOL_ASSIGN_OR_RETURN(f.driver_never_ready, ParseMatches(v, p));
    } else if (k == "slowBoot") {
      if (!v.is_array()) {
        return Err(p, "expected array, got " + Describe(v));
      }
      for (size_t i = 0; i < v.size(); ++i) {
        const std::string ip = Index(p, i);
        TIDEPOOL_ASSIGN_OR_RETURN(emu::FaultMatch m, ParseMatch(v[i], ip, true));
        if (!v[i].contains("extra")) {
          return Err(Join(ip, "extra"), "required (the extra boot time, e.g. 60s)");
        }
        TIDEPOOL_ASSIGN_OR_RETURN(Duration extra, GetDuration(v[i]["extra"], Join(ip, "extra")));
        f.slow_boot.push_back(emu::SlowBoot{std::move(m), extra});
      }
    }
  }
  return f;
}

Status ParseCloud(const json& j, const std::string& path, emu::EmulatedCloudOptions& c) {
  TIDEPOOL_RETURN_IF_ERROR(
      CheckKeys(j, path, {"delays", "faults", "gpuBeforeDriver", "taintNotReady"}));
  for (const auto& [k, v] : j.items()) {
    const std::string p = Join(path, k);
    if (k == "delays") {
      TIDEPOOL_RETURN_IF_ERROR(CheckKeys(
          v, p,
          {"provisioning", "registration", "kubeletReady", "driver", "deletion", "spotExtra"}));
      for (const auto& [dk, dv] : v.items()) {
        TIDEPOOL_ASSIGN_OR_RETURN(Duration d, GetDuration(dv, Join(p, dk)));
        if (dk == "provisioning") {
          c.delays.provisioning = d;
        } else if (dk == "registration") {
          c.delays.registration = d;
        } else if (dk == "kubeletReady") {
          c.delays.kubelet_ready = d;
        } else if (dk == "driver") {
          c.delays.driver = d;
        } else if (dk == "deletion") {
          c.delays.deletion = d;
        } else {
          c.delays.spot_extra = d;
        }
      }
    } else if (k == "faults") {
      TIDEPOOL_ASSIGN_OR_RETURN(c.faults, ParseFaults(v, p));
    } else if (k == "gpuBeforeDriver") {
      TIDEPOOL_ASSIGN_OR_RETURN(std::string s, GetString(v, p));
      if (s == "absent") {
        c.gpu_before_driver = emu::GpuResourceBeforeDriver::kAbsent;
      } else if (s == "zeroAllocatable") {
        c.gpu_before_driver = emu::GpuResourceBeforeDriver::kZeroAllocatable;
      } else {
        return Err(p, "expected \"absent\" or \"zeroAllocatable\", got \"" + s + "\"");
      }
    } else if (k == "taintNotReady") {
      TIDEPOOL_ASSIGN_OR_RETURN(c.taint_not_ready, GetBool(v, p));
    }
  }
  return OkStatus();
}

Status ParseKubelet(const json& j, const std::string& path, KubeletOptions& o) {
  TIDEPOOL_RETURN_IF_ERROR(CheckKeys(j, path, {"startDelay", "imagePull", "termination"}));
  for (const auto& [k, v] : j.items()) {
    TIDEPOOL_ASSIGN_OR_RETURN(Duration d, GetDuration(v, Join(path, k)));
    if (k == "startDelay") {
      o.start_delay = d;
    } else if (k == "imagePull") {
      o.image_pull = d;
    } else {
      o.termination = d;
    }
  }
  if (o.image_pull > o.start_delay) {
    return Err(Join(path, "imagePull"),
               "must not exceed startDelay (" + FormatGoDuration(o.start_delay) + ")");
  }
  return OkStatus();
}

StatusOr<autoscaler::MinMax> ParseMinMax(const json& v, const std::string& p) {
  TIDEPOOL_ASSIGN_OR_RETURN(std::string s, GetString(v, p));
  const size_t colon = s.find(':');
  autoscaler::MinMax mm;
  try {
    if (colon == std::string::npos) {
      throw std::invalid_argument("no colon");
    }
    size_t used = 0;
    mm.min = std::stoll(s.substr(0, colon), &used);
    if (used != colon) {
      throw std::invalid_argument("junk");
    }
    mm.max = std::stoll(s.substr(colon + 1), &used);
    if (used != s.size() - colon - 1) {
      throw std::invalid_argument("junk");
    }
  } catch (const std::exception&) {
    return Err(p, "expected \"<min>:<max>\", got \"" + s + "\"");
  }
  if (mm.min < 0 || mm.max < mm.min) {
    return Err(p, "need 0 <= min <= max, got \"" + s + "\"");
  }
  return mm;
}

Status ParseAutoscaler(const json& j, const std::string& path, WorldOptions& w) {
  if (j.is_boolean()) {
    w.autoscaler = j.get<bool>();
    return OkStatus();
  }
  if (!j.is_object()) {
    return Err(path,
               "expected false, true or a map of cluster-autoscaler flags, got " + Describe(j));
  }
  autoscaler::AutoscalingOptions& o = w.autoscaling;
  using Setter = std::function<Status(const json&, const std::string&)>;
  auto dur = [](std::chrono::nanoseconds& field) -> Setter {
    return [&field](const json& v, const std::string& p) -> Status {
      TIDEPOOL_ASSIGN_OR_RETURN(field, GetDuration(v, p));
      return OkStatus();
    };
  };
  auto integer = [](int& field) -> Setter {
    return [&field](const json& v, const std::string& p) -> Status {
      TIDEPOOL_ASSIGN_OR_RETURN(field, GetSmallInt(v, p));
      return OkStatus();
    };
  };
  auto boolean = [](bool& field) -> Setter {
    return [&field](const json& v, const std::string& p) -> Status {
      TIDEPOOL_ASSIGN_OR_RETURN(field, GetBool(v, p));
      return OkStatus();
    };
  };
  auto ratio = [](double& field) -> Setter {
    return [&field](const json& v, const std::string& p) -> Status {
      TIDEPOOL_ASSIGN_OR_RETURN(field, GetNumber(v, p));
      if (field < 0 || field > 1) {
        return Err(p, "must be between 0 and 1");
      }
      return OkStatus();
    };
  };
  const std::map<std::string, Setter> flags = {
      {"enabled", boolean(w.autoscaler)},
      {"v", integer(w.autoscaler_verbosity)},
      {"scan-interval", dur(o.scan_interval)},
      {"batching-window", dur(o.batching_window)},
      {"expander",
       [&o](const json& v, const std::string& p) -> Status {
         TIDEPOOL_ASSIGN_OR_RETURN(o.expander, GetString(v, p));
         return OkStatus();
       }},
      {"max-nodes-total", integer(o.max_nodes_total)},
      {"cores-total",
       [&o](const json& v, const std::string& p) -> Status {
         TIDEPOOL_ASSIGN_OR_RETURN(o.cores_total, ParseMinMax(v, p));
         return OkStatus();
       }},
      {"memory-total",
       [&o](const json& v, const std::string& p) -> Status {
         TIDEPOOL_ASSIGN_OR_RETURN(o.memory_total_gib, ParseMinMax(v, p));
         return OkStatus();
       }},
      {"gpu-total",
       [&o](const json& v, const std::string& p) -> Status {
         TIDEPOOL_ASSIGN_OR_RETURN(std::vector<std::string> items, GetStringList(v, p));
         o.gpu_total.clear();
         for (const std::string& s : items) {
           const size_t colon = s.find(':');
           if (colon == std::string::npos || colon == 0) {
             return Err(p, "expected \"<gpu type>:<min>:<max>\", got \"" + s + "\"");
           }
           TIDEPOOL_ASSIGN_OR_RETURN(autoscaler::MinMax mm,
                                     ParseMinMax(json(s.substr(colon + 1)), p));
           o.gpu_total[s.substr(0, colon)] = mm;
         }
         return OkStatus();
       }},
      {"max-nodes-per-scaleup", integer(o.max_nodes_per_scaleup)},
      {"max-node-provision-time", dur(o.max_node_provision_time)},
      {"max-node-startup-time", dur(o.max_node_startup_time)},
      {"new-pod-scale-up-delay", dur(o.new_pod_scale_up_delay)},
      {"expendable-pods-priority-cutoff", integer(o.expendable_pods_priority_cutoff)},
      {"initial-node-group-backoff-duration", dur(o.initial_node_group_backoff_duration)},
      {"max-node-group-backoff-duration", dur(o.max_node_group_backoff_duration)},
      {"node-group-backoff-reset-timeout", dur(o.node_group_backoff_reset_timeout)},
      {"scale-up-from-zero", boolean(o.scale_up_from_zero)},
      {"scale-down-enabled", boolean(o.scale_down_enabled)},
      {"scale-down-delay-after-add", dur(o.scale_down_delay_after_add)},
      {"scale-down-delay-after-delete", dur(o.scale_down_delay_after_delete)},
      {"scale-down-delay-after-failure", dur(o.scale_down_delay_after_failure)},
      {"scale-down-unneeded-time", dur(o.scale_down_unneeded_time)},
      {"scale-down-unready-time", dur(o.scale_down_unready_time)},
      {"scale-down-utilization-threshold", ratio(o.scale_down_utilization_threshold)},
      {"scale-down-gpu-utilization-threshold", ratio(o.scale_down_gpu_utilization_threshold)},
      {"max-graceful-termination-sec", integer(o.max_graceful_termination_sec)},
      {"max-scale-down-parallelism", integer(o.max_scale_down_parallelism)},
      {"max-drain-parallelism", integer(o.max_drain_parallelism)},
      {"skip-nodes-with-system-pods", boolean(o.skip_nodes_with_system_pods)},
      {"skip-nodes-with-local-storage", boolean(o.skip_nodes_with_local_storage)},
      {"skip-nodes-with-custom-controller-pods", boolean(o.skip_nodes_with_custom_controller_pods)},
      {"ok-total-unready-count", integer(o.ok_total_unready_count)},
      {"max-total-unready-percentage", integer(o.max_total_unready_percentage)},
      {"write-status-configmap", boolean(o.write_status_configmap)},
      {"status-config-map-name",
       [&o](const json& v, const std::string& p) -> Status {
         TIDEPOOL_ASSIGN_OR_RETURN(o.status_config_map_name, GetString(v, p));
         return OkStatus();
       }},
  };
  for (const auto& [k, v] : j.items()) {
    std::string flag = k;
    if (flag.rfind("--", 0) == 0) {
      flag = flag.substr(2);
    }
    auto it = flags.find(flag);
    if (it == flags.end()) {
      return Err(path, "unknown flag \"" + k + "\"");
    }
    TIDEPOOL_RETURN_IF_ERROR(it->second(v, Join(path, k)));
  }
  if (o.scan_interval <= Duration::zero()) {
    return Err(Join(path, "scan-interval"), "must be positive");
  }
  return OkStatus();
}

StatusOr<emu::NodePoolSpec> ParseNodePool(const json& j, const std::string& path) {
  TIDEPOOL_RETURN_IF_ERROR(
      CheckKeys(j, path,
                {"name", "machineType", "accelerator", "minNodes", "maxNodes", "enableAutoscaling",
                 "initialNodeCount", "taints", "labels", "spot", "zones", "diskSizeGb"}));
  emu::NodePoolSpec spec;
  std::optional<bool> autoscaling;
  bool has_limits = false;
  for (const auto& [k, v] : j.items()) {
    const std::string p = Join(path, k);
    if (k == "name") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.name, GetString(v, p));
    } else if (k == "machineType") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.machine_type, GetString(v, p));
    } else if (k == "accelerator") {
      TIDEPOOL_RETURN_IF_ERROR(CheckKeys(v, p, {"type", "count"}));
      emu::Accelerator a;
      if (!v.contains("type")) {
        return Err(Join(p, "type"), "required, e.g. nvidia-tesla-t4");
      }
      TIDEPOOL_ASSIGN_OR_RETURN(a.type, GetString(v["type"], Join(p, "type")));
      a.count = 1;
      if (v.contains("count")) {
        TIDEPOOL_ASSIGN_OR_RETURN(a.count, GetSmallInt(v["count"], Join(p, "count")));
      }
      spec.accelerator = a;
    } else if (k == "minNodes") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.min_nodes, GetSmallInt(v, p));
      has_limits = true;
    } else if (k == "maxNodes") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.max_nodes, GetSmallInt(v, p));
      has_limits = true;
    } else if (k == "enableAutoscaling") {
      TIDEPOOL_ASSIGN_OR_RETURN(bool b, GetBool(v, p));
      autoscaling = b;
    } else if (k == "initialNodeCount") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.initial_node_count, GetSmallInt(v, p));
    } else if (k == "taints") {
      TIDEPOOL_ASSIGN_OR_RETURN(std::vector<std::string> taints, GetStringList(v, p));
      for (size_t i = 0; i < taints.size(); ++i) {
        auto t = api::Taint::Parse(taints[i]);
        if (!t.ok()) {
          return Err(Index(p, i), std::string(t.status().message()));
        }
        spec.taints.push_back(*t);
      }
    } else if (k == "labels") {
      TIDEPOOL_RETURN_IF_ERROR(ExpectObject(v, p));
      for (const auto& [lk, lv] : v.items()) {
        if (lv.is_string()) {
          spec.labels[lk] = lv.get<std::string>();
        } else if (lv.is_number() || lv.is_boolean()) {
          spec.labels[lk] = lv.dump();
        } else {
          return Err(Join(p, lk), "expected string, got " + Describe(lv));
        }
      }
    } else if (k == "spot") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.spot, GetBool(v, p));
    } else if (k == "zones") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.zones, GetStringList(v, p));
    } else if (k == "diskSizeGb") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.disk_size_gb, GetInt(v, p));
    }
  }
  if (spec.name.empty()) {
    return Err(Join(path, "name"), "required");
  }
  if (spec.machine_type.empty()) {
    return Err(Join(path, "machineType"), "required, e.g. n1-standard-4");
  }
  spec.autoscaling = autoscaling.value_or(has_limits);
  if (spec.autoscaling && spec.initial_node_count < spec.min_nodes) {
    spec.initial_node_count = spec.min_nodes;
  }
  return spec;
}

StatusOr<std::vector<api::Pod>> DecodePods(const std::vector<json>& docs, const std::string& path) {
  std::vector<api::Pod> pods;
  for (size_t i = 0; i < docs.size(); ++i) {
    const json& d = docs[i];
    const std::string p = docs.size() > 1 ? Index(path, i) : path;
    if (!d.is_object()) {
      return Err(p, "expected a Pod manifest, got " + Describe(d));
    }
    const std::string kind = d.value("kind", "");
    if (kind != "Pod") {
      return Err(p, "only Pod manifests can be applied, got kind \"" + kind + "\"");
    }
    auto pod = api::codec::PodFromJson(d);
    if (!pod.ok()) {
      return Err(p, std::string(pod.status().message()));
    }
    pods.push_back(std::move(*pod));
  }
  if (pods.empty()) {
    return Err(path, "no manifests");
  }
  return pods;
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return NotFoundError("open " + path + ": no such file or directory");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string JoinPath(const std::string& dir, const std::string& file) {
  if (file.empty() || file.front() == '/' || dir.empty()) {
    return file;
  }
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

StatusOr<ScenarioAction> ParseAction(const json& j, const std::string& path,
                                     const std::string& base_dir) {
  TIDEPOOL_RETURN_IF_ERROR(
      CheckKeys(j, path,
                {"at", "apply", "as", "delete", "namespace", "resize", "autoscaling",
                 "createNodePool", "deleteNodePool", "faults"}));
  ScenarioAction a;
  if (!j.contains("at")) {
    return Err(Join(path, "at"), "required (the time since the start, e.g. 30s)");
  }
  TIDEPOOL_ASSIGN_OR_RETURN(a.at, GetDuration(j["at"], Join(path, "at")));
  int actions = 0;
  for (const char* k :
       {"apply", "delete", "resize", "autoscaling", "createNodePool", "deleteNodePool", "faults"}) {
    actions += j.contains(k) ? 1 : 0;
  }
  if (actions != 1) {
    return Err(path,
               "needs exactly one action (apply, delete, resize, autoscaling, "
               "createNodePool, deleteNodePool, faults), found " +
                   std::to_string(actions));
  }
  if (j.contains("as") && !j.contains("apply")) {
    return Err(Join(path, "as"), "only with apply");
  }
  if (j.contains("namespace") && !j.contains("delete")) {
    return Err(Join(path, "namespace"), "only with delete");
  }
  if (j.contains("apply")) {
    const json& v = j["apply"];
    const std::string p = Join(path, "apply");
    a.kind = ScenarioAction::Kind::kApply;
    if (v.is_string()) {
      if (j.contains("as")) {
        return Err(Join(path, "as"), "only for inline manifests");
      }
      a.source = v.get<std::string>();
      auto text = ReadFile(JoinPath(base_dir, a.source));
      if (!text.ok()) {
        return Err(p, std::string(text.status().message()));
      }
      auto docs = api::codec::ParseYamlDocuments(*text);
      if (!docs.ok()) {
        return Err(p, a.source + ": " + std::string(docs.status().message()));
      }
      TIDEPOOL_ASSIGN_OR_RETURN(a.pods, DecodePods(*docs, p));
    } else if (v.is_object() || v.is_array()) {
      a.source = "-";
      if (j.contains("as")) {
        TIDEPOOL_ASSIGN_OR_RETURN(a.source, GetString(j["as"], Join(path, "as")));
      }
      std::vector<json> docs;
      if (v.is_array()) {
        docs.assign(v.begin(), v.end());
      } else {
        docs.push_back(v);
      }
      TIDEPOOL_ASSIGN_OR_RETURN(a.pods, DecodePods(docs, p));
    } else {
      return Err(p, "expected a manifest file path or an inline Pod manifest, got " + Describe(v));
    }
  } else if (j.contains("delete")) {
    const std::string p = Join(path, "delete");
    a.kind = ScenarioAction::Kind::kDeletePod;
    TIDEPOOL_ASSIGN_OR_RETURN(std::string what, GetString(j["delete"], p));
    const size_t slash = what.find('/');
    const std::string kind = slash == std::string::npos ? "" : what.substr(0, slash);
    if (kind != "pod" && kind != "pods" && kind != "po") {
      return Err(p, "expected pod/<name>, got \"" + what + "\"");
    }
    a.name = what.substr(slash + 1);
    if (a.name.empty() || a.name.find('/') != std::string::npos) {
      return Err(p, "expected pod/<name>, got \"" + what + "\"");
    }
    a.namespace_ = "default";
    if (j.contains("namespace")) {
      TIDEPOOL_ASSIGN_OR_RETURN(a.namespace_, GetString(j["namespace"], Join(path, "namespace")));
    }
  } else if (j.contains("resize")) {
    const json& v = j["resize"];
    const std::string p = Join(path, "resize");
    a.kind = ScenarioAction::Kind::kResize;
    TIDEPOOL_RETURN_IF_ERROR(CheckKeys(v, p, {"nodePool", "nodeCount"}));
    if (!v.contains("nodePool") || !v.contains("nodeCount")) {
      return Err(p, "needs nodePool and nodeCount");
    }
    TIDEPOOL_ASSIGN_OR_RETURN(a.name, GetString(v["nodePool"], Join(p, "nodePool")));
    TIDEPOOL_ASSIGN_OR_RETURN(a.node_count, GetSmallInt(v["nodeCount"], Join(p, "nodeCount")));
  } else if (j.contains("autoscaling")) {
    const json& v = j["autoscaling"];
    const std::string p = Join(path, "autoscaling");
    a.kind = ScenarioAction::Kind::kAutoscaling;
    TIDEPOOL_RETURN_IF_ERROR(CheckKeys(v, p, {"nodePool", "enabled", "minNodes", "maxNodes"}));
    if (!v.contains("nodePool")) {
      return Err(Join(p, "nodePool"), "required");
    }
    TIDEPOOL_ASSIGN_OR_RETURN(a.name, GetString(v["nodePool"], Join(p, "nodePool")));
    if (v.contains("enabled")) {
      TIDEPOOL_ASSIGN_OR_RETURN(a.enabled, GetBool(v["enabled"], Join(p, "enabled")));
    }
    if (v.contains("minNodes")) {
      TIDEPOOL_ASSIGN_OR_RETURN(a.min_nodes, GetSmallInt(v["minNodes"], Join(p, "minNodes")));
    }
    if (v.contains("maxNodes")) {
      TIDEPOOL_ASSIGN_OR_RETURN(a.max_nodes, GetSmallInt(v["maxNodes"], Join(p, "maxNodes")));
    }
  } else if (j.contains("createNodePool")) {
    a.kind = ScenarioAction::Kind::kCreateNodePool;
    TIDEPOOL_ASSIGN_OR_RETURN(a.pool,
                              ParseNodePool(j["createNodePool"], Join(path, "createNodePool")));
  } else if (j.contains("deleteNodePool")) {
    a.kind = ScenarioAction::Kind::kDeleteNodePool;
    TIDEPOOL_ASSIGN_OR_RETURN(a.name, GetString(j["deleteNodePool"], Join(path, "deleteNodePool")));
  } else {
    a.kind = ScenarioAction::Kind::kFaults;
    TIDEPOOL_ASSIGN_OR_RETURN(a.faults, ParseFaults(j["faults"], Join(path, "faults")));
  }
  return a;
}

Status ParseTop(const json& root, const std::string& base_dir, Scenario& sc) {
  TIDEPOOL_RETURN_IF_ERROR(CheckKeys(
      root, "",
      {"seed", "cluster", "autoscaler", "kubelet", "cloud", "nodePools", "timeline", "runFor"}));
  WorldOptions& w = sc.world;
  bool has_run_for = false;
  for (const auto& [k, v] : root.items()) {
    if (k == "seed") {
      if (!v.is_number_integer() ||
          (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0)) {
        return Err(k, "expected a non-negative integer, got " + Describe(v));
      }
      w.seed = v.get<uint64_t>();
    } else if (k == "cluster") {
      TIDEPOOL_RETURN_IF_ERROR(CheckKeys(v, k, {"project", "name", "zone"}));
      for (const auto& [ck, cv] : v.items()) {
        TIDEPOOL_ASSIGN_OR_RETURN(std::string s, GetString(cv, Join(k, ck)));
        if (s.empty()) {
          return Err(Join(k, ck), "must not be empty");
        }
        (ck == "project" ? w.project : ck == "name" ? w.cluster : w.zone) = s;
      }
    } else if (k == "autoscaler") {
      TIDEPOOL_RETURN_IF_ERROR(ParseAutoscaler(v, k, w));
    } else if (k == "kubelet") {
      TIDEPOOL_RETURN_IF_ERROR(ParseKubelet(v, k, w.kubelet));
    } else if (k == "cloud") {
      TIDEPOOL_RETURN_IF_ERROR(ParseCloud(v, k, w.cloud));
    } else if (k == "nodePools") {
      if (!v.is_array()) {
        return Err(k, "expected array, got " + Describe(v));
      }
      for (size_t i = 0; i < v.size(); ++i) {
        TIDEPOOL_ASSIGN_OR_RETURN(emu::NodePoolSpec spec, ParseNodePool(v[i], Index(k, i)));
        for (const emu::NodePoolSpec& other : w.node_pools) {
          if (other.name == spec.name) {
            return Err(Index(k, i) + ".name", "duplicate node pool \"" + spec.name + "\"");
          }
        }
        w.node_pools.push_back(std::move(spec));
      }
    } else if (k == "timeline") {
      if (!v.is_array()) {
        return Err(k, "expected array, got " + Describe(v));
      }
      for (size_t i = 0; i < v.size(); ++i) {
        TIDEPOOL_ASSIGN_OR_RETURN(ScenarioAction a, ParseAction(v[i], Index(k, i), base_dir));
        sc.timeline.push_back(std::move(a));
      }
    } else if (k == "runFor") {
      TIDEPOOL_ASSIGN_OR_RETURN(sc.run_for, GetDuration(v, k));
      if (sc.run_for <= Duration::zero()) {
        return Err(k, "must be positive");
      }
      has_run_for = true;
    }
  }
  if (!has_run_for) {
    return Err("runFor", "required (how long to simulate, e.g. 35m)");
  }
  if (w.node_pools.empty()) {
    return Err("nodePools", "required (at least the cluster's default-pool)");
  }
  return OkStatus();
}

}  // namespace

StatusOr<Scenario> ParseScenario(std::string_view yaml, const std::string& path,
                                 const std::string& base_dir) {
  auto docs = api::codec::ParseYamlDocuments(yaml);
  if (!docs.ok()) {
    return InvalidArgumentError(path + ": " + std::string(docs.status().message()));
  }
  if (docs->size() != 1) {
    return InvalidArgumentError(path + ": expected one YAML document, got " +
                                std::to_string(docs->size()));
  }
  Scenario sc;
  sc.path = path;
  Status s = ParseTop(docs->front(), base_dir, sc);
  if (!s.ok()) {
    return Status(s.code(), path + ": " + std::string(s.message()));
  }
  return sc;
}

StatusOr<Scenario> LoadScenario(const std::string& path) {
  TIDEPOOL_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  return ParseScenario(text, path, dir);
}

StatusOr<std::unique_ptr<World>> RunScenario(const Scenario& scenario,
                                             std::optional<Duration> until) {
  TIDEPOOL_ASSIGN_OR_RETURN(std::unique_ptr<World> world, World::Create(scenario.world));
  World* w = world.get();
  for (const ScenarioAction& a : scenario.timeline) {
    auto action = std::make_shared<const ScenarioAction>(a);
    w->queue().ScheduleAt(w->start() + a.at, [w, action] {
      switch (action->kind) {
        case ScenarioAction::Kind::kApply:
          (void)w->ApplyPods(action->pods, action->source);
          break;
        case ScenarioAction::Kind::kDeletePod:
          (void)w->DeletePod(action->namespace_, action->name);
          break;
        case ScenarioAction::Kind::kCreateNodePool:
          (void)w->CreateNodePool(action->pool);
          break;
        case ScenarioAction::Kind::kDeleteNodePool:
          (void)w->DeleteNodePool(action->name);
          break;
        case ScenarioAction::Kind::kResize:
          (void)w->ResizeNodePool(action->name, action->node_count);
          break;
        case ScenarioAction::Kind::kAutoscaling:
          (void)w->SetNodePoolAutoscaling(action->name, action->enabled, action->min_nodes,
                                          action->max_nodes);
          break;
        case ScenarioAction::Kind::kFaults:
          w->SetFaults(action->faults);
          break;
      }
    });
  }
  w->RunUntil(w->start() + until.value_or(scenario.run_for));
  w->recorder().RecordSummary(scenario.world.seed);
  return world;
}

}  // namespace tidepool::sim
