#include "sim/scenario.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "api/codec/config_fields.h"
#include "api/codec/json_codec.h"
#include "api/codec/yaml.h"
#include "api/ipv4_cidr.h"
#include "autoscaler/flags.h"
#include "cloud/aws/aws_catalog.h"
#include "common/duration.h"
#include "kubelet/pod_lifecycle.h"
#include "scheduler/plugins/packing/packing.h"
#include "sim/report.h"

namespace tidepool::sim {
namespace {

using nlohmann::json;
namespace emu = cloud::emulated;
using api::codec::CheckKeys;
using api::codec::Describe;
using api::codec::ExpectObject;
using api::codec::GetBool;
using api::codec::GetDuration;
using api::codec::GetInt;
using api::codec::GetNumber;
using api::codec::GetSmallInt;
using api::codec::GetString;
using api::codec::GetStringList;

Status Err(const std::string& path, const std::string& msg) {
  return api::codec::FieldError(path, msg);
}
std::string Join(const std::string& path, std::string_view key) {
  return api::codec::JoinPath(path, key);
}
std::string Index(const std::string& path, size_t i) { return api::codec::IndexPath(path, i); }

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
      CheckKeys(j, path, {"delays", "faults", "gpuBeforeDriver"}));
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
    }
  }
  return OkStatus();
}

Status ParseKubelet(const json& j, const std::string& path, kubelet::KubeletOptions& o) {
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

Status ParseAutoscaler(const json& j, const std::string& path, WorldOptions& w) {
  if (j.is_boolean()) {
    w.autoscaler = j.get<bool>();
    return OkStatus();
  }
  if (!j.is_object()) {
    return Err(path,
               "expected false, true or a map of cluster-autoscaler flags, got " + Describe(j));
  }
  for (const auto& [k, v] : j.items()) {
    const std::string flag = k.rfind("--", 0) == 0 ? k.substr(2) : k;
    if (flag == "enabled") {
      TIDEPOOL_ASSIGN_OR_RETURN(w.autoscaler, GetBool(v, Join(path, k)));
      continue;
    }
    if (flag == "v") {
      TIDEPOOL_ASSIGN_OR_RETURN(w.autoscaler_verbosity, GetSmallInt(v, Join(path, k)));
      continue;
    }
    Status s = autoscaler::SetAutoscalerFlag(w.autoscaling, flag, v, Join(path, k));
    if (s.code() == StatusCode::kNotFound) {
      return Err(path, "unknown flag \"" + k + "\"");
    }
    TIDEPOOL_RETURN_IF_ERROR(s);
  }
  return autoscaler::ValidateAutoscalingOptions(w.autoscaling, path);
}

StatusOr<emu::NodePoolSpec> ParseNodePool(const json& j, const std::string& path) {
  TIDEPOOL_RETURN_IF_ERROR(
      CheckKeys(j, path,
                {"name", "machineType", "accelerator", "minNodes", "maxNodes", "enableAutoscaling",
                 "initialNodeCount", "taints", "labels", "spot", "zones", "diskSizeGb"}));
  emu::NodePoolSpec spec;
  spec.disk_size_gb = 0;  // the cloud's default unless given
  std::optional<bool> autoscaling;
  bool has_limits = false;
  for (const auto& [k, v] : j.items()) {
    const std::string p = Join(path, k);
    if (k == "name") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.name, GetString(v, p));
    } else if (k == "machineType") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.machine_type, GetString(v, p));
    } else if (k == "accelerator") {
      TIDEPOOL_RETURN_IF_ERROR(
          CheckKeys(v, p, {"type", "count", "gpuSharingStrategy", "maxSharedClientsPerGpu"}));
      emu::Accelerator a;
      if (!v.contains("type")) {
        return Err(Join(p, "type"), "required, e.g. nvidia-tesla-t4");
      }
      TIDEPOOL_ASSIGN_OR_RETURN(a.type, GetString(v["type"], Join(p, "type")));
      a.count = 1;
      if (v.contains("count")) {
        TIDEPOOL_ASSIGN_OR_RETURN(a.count, GetSmallInt(v["count"], Join(p, "count")));
      }
      // gcloud's --accelerator gpu-sharing-strategy=time-sharing|mps,max-shared-clients-per-gpu=N.
      if (v.contains("gpuSharingStrategy")) {
        const std::string q = Join(p, "gpuSharingStrategy");
        TIDEPOOL_ASSIGN_OR_RETURN(std::string strategy, GetString(v["gpuSharingStrategy"], q));
        if (strategy != "time-sharing" && strategy != "mps") {
          return Err(q, "must be time-sharing or mps, got \"" + strategy + "\"");
        }
        a.sharing = strategy == "mps" ? "MPS" : "TIME_SHARING";
        if (!v.contains("maxSharedClientsPerGpu")) {
          return Err(Join(p, "maxSharedClientsPerGpu"), "required with gpuSharingStrategy");
        }
        TIDEPOOL_ASSIGN_OR_RETURN(
            a.max_shared_clients,
            GetSmallInt(v["maxSharedClientsPerGpu"], Join(p, "maxSharedClientsPerGpu")));
      } else if (v.contains("maxSharedClientsPerGpu")) {
        return Err(Join(p, "gpuSharingStrategy"), "required with maxSharedClientsPerGpu");
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

// tidepool.dev/duration (kubelet/pod_lifecycle.h) on a Pod or a workload's pod template: a
// value that is not a duration would make the pod run forever, so the scenario is refused.
Status CheckDurationAnnotations(const json& doc, const std::string& path) {
  const auto check = [&](const json& meta, const std::string& meta_path) -> Status {
    if (!meta.is_object()) return OkStatus();
    const auto ann = meta.find("annotations");
    if (ann == meta.end() || !ann->is_object()) return OkStatus();
    const auto v = ann->find(std::string(kubelet::kDurationAnnotation));
    if (v == ann->end()) return OkStatus();
    const std::string p =
        meta_path + ".annotations[" + std::string(kubelet::kDurationAnnotation) + "]";
    if (!v->is_string() || !ParseGoDuration(v->get<std::string>()).ok()) {
      return Err(p, "must be a duration, e.g. 30m, got " + Describe(*v));
    }
    return OkStatus();
  };
  if (doc.contains("metadata"))
    TIDEPOOL_RETURN_IF_ERROR(check(doc["metadata"], Join(path, "metadata")));
  // Deployments, ReplicaSets, Jobs, ...: spec.template; CronJobs: spec.jobTemplate.spec.template.
  const json* spec = doc.contains("spec") && doc["spec"].is_object() ? &doc["spec"] : nullptr;
  std::string spec_path = Join(path, "spec");
  if (spec != nullptr && spec->contains("jobTemplate") && (*spec)["jobTemplate"].is_object() &&
      (*spec)["jobTemplate"].contains("spec") && (*spec)["jobTemplate"]["spec"].is_object()) {
    spec = &(*spec)["jobTemplate"]["spec"];
    spec_path += ".jobTemplate.spec";
  }
  if (spec != nullptr && spec->contains("template") && (*spec)["template"].is_object() &&
      (*spec)["template"].contains("metadata")) {
    return check((*spec)["template"]["metadata"], spec_path + ".template.metadata");
  }
  return OkStatus();
}

// `file`: the manifest file the documents come from, empty for inline manifests. A document of
// a file that is not an object is described as kubectl describes it, without its content (the
// file may be anything, e.g. `apply: ../../etc/passwd`). What kubectl checks before sending
// (apiVersion, kind and metadata.name present) is checked here; the API server validates the
// rest when the action runs.
StatusOr<std::vector<std::string>> CheckManifests(const std::vector<json>& docs,
                                                  const std::string& path,
                                                  const std::string& file = "") {
  std::vector<std::string> manifests;
  for (size_t i = 0; i < docs.size(); ++i) {
    const json& d = docs[i];
    const std::string p = docs.size() > 1 ? Index(path, i) : path;
    if (!d.is_object() && !file.empty()) {
      // kubectl 1.32's text for a document that is not an object (its validation hint about
      // --validate=false left out: a scenario has no such flag).
      return Err(p, "error validating \"" + file +
                        "\": error validating data: invalid object to validate");
    }
    if (!d.is_object()) {
      return Err(p, "expected a manifest, got " + Describe(d));
    }
    for (const char* key : {"apiVersion", "kind"}) {
      const auto k = d.find(key);
      if (k == d.end()) return Err(Join(p, key), "required");
      if (!k->is_string() || k->get_ref<const std::string&>().empty()) {
        return Err(Join(p, key), "expected a non-empty string, got " + Describe(*k));
      }
    }
    const auto meta = d.find("metadata");
    const bool named = meta != d.end() && meta->is_object() && meta->contains("name") &&
                       (*meta)["name"].is_string() &&
                       !(*meta)["name"].get_ref<const std::string&>().empty();
    if (!named) {
      return Err(Join(p, "metadata.name"), "required (a manifest names its object)");
    }
    // What kubectl reads itself (its last-applied annotation, its selectors) must be there as
    // maps of strings.
    for (const char* key : {"labels", "annotations"}) {
      const auto it = meta->find(key);
      if (it == meta->end()) continue;
      const json& m = *it;
      bool ok = m.is_object();
      if (ok) {
        for (const auto& [k, v] : m.items()) ok &= v.is_string();
      }
      if (!ok) {
        return Err(Join(Join(p, "metadata"), key), "expected a map of strings, got " + Describe(m));
      }
    }
    TIDEPOOL_RETURN_IF_ERROR(CheckDurationAnnotations(d, p));
    // Invalid UTF-8 (a YAML scalar may carry it) is replaced, never thrown.
    manifests.push_back(d.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  if (manifests.empty()) {
    return Err(path, "no manifests");
  }
  return manifests;
}

std::string JoinPath(const std::string& dir, const std::string& file) {
  if (file.empty() || file.front() == '/' || dir.empty()) {
    return file;
  }
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

// kubectl's TYPE/NAME argument ("pod/p", "deployment/web") into `a`.
Status ParseTypeAndName(const std::string& what, const std::string& path, const std::string& tool,
                        ScenarioAction& a) {
  const size_t slash = what.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == what.size() ||
      what.find('/', slash + 1) != std::string::npos) {
    return Err(path, "expected <type>/<name> (as " + tool +
                         " takes it, e.g. pod/p or deployment/web), got \"" + what + "\"");
  }
  a.resource_type = what.substr(0, slash);
  a.name = what.substr(slash + 1);
  return OkStatus();
}

StatusOr<ScenarioAction> ParseAction(const json& j, const std::string& path,
                                     const std::string& base_dir) {
  TIDEPOOL_RETURN_IF_ERROR(
      CheckKeys(j, path,
                {"at", "apply", "as", "delete", "scale", "namespace", "resize", "autoscaling",
                 "createNodePool", "deleteNodePool", "faults"}));
  ScenarioAction a;
  if (!j.contains("at")) {
    return Err(Join(path, "at"), "required (the time since the start, e.g. 30s)");
  }
  TIDEPOOL_ASSIGN_OR_RETURN(a.at, GetDuration(j["at"], Join(path, "at")));
  int actions = 0;
  for (const char* k : {"apply", "delete", "scale", "resize", "autoscaling", "createNodePool",
                        "deleteNodePool", "faults"}) {
    actions += j.contains(k) ? 1 : 0;
  }
  if (actions != 1) {
    return Err(path,
               "needs exactly one action (apply, delete, scale, resize, autoscaling, "
               "createNodePool, deleteNodePool, faults), found " +
                   std::to_string(actions));
  }
  if (j.contains("as") && !j.contains("apply")) {
    return Err(Join(path, "as"), "only with apply");
  }
  if (j.contains("namespace") && !j.contains("delete") && !j.contains("scale")) {
    return Err(Join(path, "namespace"), "only with delete or scale");
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
        // kubectl: "error parsing <file>: error converting YAML to JSON: yaml: line 3: ...".
        return Err(p, "error parsing " + a.source + ": error converting YAML to JSON: " +
                          std::string(docs.status().message()));
      }
      TIDEPOOL_ASSIGN_OR_RETURN(a.manifests, CheckManifests(*docs, p, a.source));
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
      TIDEPOOL_ASSIGN_OR_RETURN(a.manifests, CheckManifests(docs, p));
    } else {
      return Err(p, "expected a manifest file path or an inline manifest, got " + Describe(v));
    }
  } else if (j.contains("delete")) {
    const std::string p = Join(path, "delete");
    a.kind = ScenarioAction::Kind::kDelete;
    TIDEPOOL_ASSIGN_OR_RETURN(std::string what, GetString(j["delete"], p));
    TIDEPOOL_RETURN_IF_ERROR(ParseTypeAndName(what, p, "kubectl delete", a));
  } else if (j.contains("scale")) {
    const json& v = j["scale"];
    const std::string p = Join(path, "scale");
    a.kind = ScenarioAction::Kind::kScale;
    TIDEPOOL_RETURN_IF_ERROR(CheckKeys(v, p, {"resource", "replicas"}));
    if (!v.contains("resource") || !v.contains("replicas")) {
      return Err(p, "needs resource (e.g. deployment/web) and replicas");
    }
    TIDEPOOL_ASSIGN_OR_RETURN(std::string what, GetString(v["resource"], Join(p, "resource")));
    TIDEPOOL_RETURN_IF_ERROR(ParseTypeAndName(what, Join(p, "resource"), "kubectl scale", a));
    TIDEPOOL_ASSIGN_OR_RETURN(a.replicas, GetSmallInt(v["replicas"], Join(p, "replicas")));
    if (a.replicas < 0) return Err(Join(p, "replicas"), "must be non-negative");
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
  if (a.kind == ScenarioAction::Kind::kDelete || a.kind == ScenarioAction::Kind::kScale) {
    a.namespace_ = "default";
    if (j.contains("namespace")) {
      TIDEPOOL_ASSIGN_OR_RETURN(a.namespace_, GetString(j["namespace"], Join(path, "namespace")));
    }
  }
  return a;
}

StatusOr<TraceOptions> ParseTraceSection(const json& j, const std::string& path,
                                         const std::string& base_dir) {
  TIDEPOOL_RETURN_IF_ERROR(CheckKeys(j, path,
                                     {"file", "format", "timeScale", "sample", "loadFactor",
                                      "namespace", "gpuModels", "classes", "nodes", "sharedGpus"}));
  TraceOptions o;
  for (const auto& [k, v] : j.items()) {
    const std::string p = Join(path, k);
    if (k == "file") {
      TIDEPOOL_ASSIGN_OR_RETURN(std::string file, GetString(v, p));
      if (file.empty()) return Err(p, "must not be empty");
      o.file = JoinPath(base_dir, file);
    } else if (k == "format") {
      TIDEPOOL_ASSIGN_OR_RETURN(o.format, GetString(v, p));
      if (o.format != "dlrm" && o.format != "openb" && o.format != "csv") {
        return Err(p, "unknown format \"" + o.format + "\" (known: dlrm, openb, csv)");
      }
    } else if (k == "timeScale") {
      TIDEPOOL_ASSIGN_OR_RETURN(o.time_scale, GetNumber(v, p));
      if (!(o.time_scale > 0)) return Err(p, "must be positive");
    } else if (k == "sample") {
      TIDEPOOL_ASSIGN_OR_RETURN(o.sample, GetNumber(v, p));
      if (!(o.sample > 0 && o.sample <= 1)) return Err(p, "must be in (0, 1]");
    } else if (k == "loadFactor") {
      TIDEPOOL_ASSIGN_OR_RETURN(o.load_factor, GetNumber(v, p));
      if (!(o.load_factor >= 1 && o.load_factor <= 100)) return Err(p, "must be in [1, 100]");
    } else if (k == "namespace") {
      TIDEPOOL_ASSIGN_OR_RETURN(o.namespace_, GetString(v, p));
    } else if (k == "nodes") {
      TIDEPOOL_ASSIGN_OR_RETURN(std::string file, GetString(v, p));
      if (file.empty()) return Err(p, "must not be empty");
      o.nodes_file = JoinPath(base_dir, file);
    } else if (k == "classes") {
      TIDEPOOL_ASSIGN_OR_RETURN(o.classes, GetStringList(v, p));
    } else if (k == "sharedGpus") {
      TIDEPOOL_ASSIGN_OR_RETURN(o.shared_gpus, GetBool(v, p));
    } else {
      if (!v.is_object()) return Err(p, "expected a map of GPU model to accelerator, got " +
                                            Describe(v));
      for (const auto& [model, acc] : v.items()) {
        TIDEPOOL_ASSIGN_OR_RETURN(o.gpu_models[model], GetString(acc, Join(p, model)));
      }
    }
  }
  if (o.file.empty()) return Err(Join(path, "file"), "required");
  return o;
}

StatusOr<PlacementSpec> ParsePlacement(const json& j, const std::string& path) {
  TIDEPOOL_RETURN_IF_ERROR(CheckKeys(j, path, {"policies", "seeds", "tune"}));
  PlacementSpec spec;
  for (const auto& [k, v] : j.items()) {
    const std::string p = Join(path, k);
    if (k == "policies") {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.policies, GetStringList(v, p));
      for (size_t i = 0; i < spec.policies.size(); ++i) {
        const auto& known = PlacementPolicies();
        if (std::find(known.begin(), known.end(), spec.policies[i]) == known.end()) {
          return Err(Index(p, i), "unknown policy \"" + spec.policies[i] +
                                      "\" (known: Random, DotProd, GpuClustering, GpuPacking, "
                                      "BestFit, FGD)");
        }
      }
    } else if (k == "seeds") {
      if (!v.is_array()) return Err(p, "expected array, got " + Describe(v));
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number_integer() || (!v[i].is_number_unsigned() && v[i].get<int64_t>() < 0)) {
          return Err(Index(p, i), "expected a non-negative integer, got " + Describe(v[i]));
        }
        spec.seeds.push_back(v[i].get<uint64_t>());
      }
    } else {
      TIDEPOOL_ASSIGN_OR_RETURN(spec.tune, GetNumber(v, p));
      if (!(spec.tune >= 0.01 && spec.tune <= 10)) return Err(p, "must be in [0.01, 10]");
    }
  }
  return spec;
}

Status ParseTop(const json& root, const std::string& base_dir, ScenarioUse use, Scenario& sc) {
  TIDEPOOL_RETURN_IF_ERROR(
      CheckKeys(root, "",
                {"seed", "cluster", "autoscaler", "kubelet", "cloud", "nodePools", "timeline",
                 "runFor", "heartbeats", "trace", "placement", "scheduler"}));
  WorldOptions& w = sc.world;
  // A simulation writes no heartbeats unless asked (`heartbeats: true`).
  bool heartbeats = use != ScenarioUse::kSimulation;
  bool has_run_for = false;
  for (const auto& [k, v] : root.items()) {
    if (k == "seed") {
      if (!v.is_number_integer() ||
          (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0)) {
        return Err(k, "expected a non-negative integer, got " + Describe(v));
      }
      w.seed = v.get<uint64_t>();
    } else if (k == "cluster") {
      TIDEPOOL_RETURN_IF_ERROR(
          CheckKeys(v, k, {"project", "name", "zone", "cloud", "servicesIpv4Cidr"}));
      for (const auto& [ck, cv] : v.items()) {
        TIDEPOOL_ASSIGN_OR_RETURN(std::string s, GetString(cv, Join(k, ck)));
        if (s.empty()) {
          return Err(Join(k, ck), "must not be empty");
        }
        if (ck == "servicesIpv4Cidr") {
          auto range = api::Ipv4Cidr::ParseServiceRange(s);
          if (!range.ok()) return Err(Join(k, ck), std::string(range.status().message()));
          w.service_range = range->ToString();
          continue;
        }
        if (ck == "cloud") {
          if (s != "gke" && s != "aws") return Err(Join(k, ck), "must be gke or aws, not " + s);
          if (s == "aws") cloud::aws::UseEks(w.cloud);
          continue;
        }
        (ck == "project" ? w.project : ck == "name" ? w.cluster : w.zone) = s;
      }
    } else if (k == "autoscaler") {
      TIDEPOOL_RETURN_IF_ERROR(ParseAutoscaler(v, k, w));
    } else if (k == "trace") {
      TIDEPOOL_ASSIGN_OR_RETURN(sc.trace, ParseTraceSection(v, k, base_dir));
    } else if (k == "scheduler") {
      TIDEPOOL_RETURN_IF_ERROR(CheckKeys(v, k, {"packing"}));
      for (const auto& [sk, sv] : v.items()) {
        TIDEPOOL_ASSIGN_OR_RETURN(std::string policy, GetString(sv, Join(k, sk)));
        auto profile = scheduler::plugins::PackingProfile(policy, {});
        if (!profile.ok()) return Err(Join(k, sk), std::string(profile.status().message()));
        w.scheduler.profile = *profile;
        w.autoscaling.scheduler_profile = *std::move(profile);
      }
    } else if (k == "placement") {
      TIDEPOOL_ASSIGN_OR_RETURN(sc.placement, ParsePlacement(v, k));
    } else if (k == "heartbeats") {
      TIDEPOOL_ASSIGN_OR_RETURN(heartbeats, GetBool(v, k));
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
  w.kubelet.heartbeats = heartbeats;
  w.autoscaling.status_heartbeat = heartbeats;
  if (use == ScenarioUse::kClusterConfig && sc.trace.has_value()) {
    return Err("trace", "not supported by tidepool up (use tidepool simulate)");
  }
  if (use == ScenarioUse::kClusterConfig && !sc.timeline.empty()) {
    return Err("timeline",
               "not supported by tidepool up (use kubectl and gcloud, or tidepool "
               "simulate)");
  }
  if (use == ScenarioUse::kClusterConfig && w.scheduler.profile.score.size() == 1 &&
      w.scheduler.profile.score[0].first == "FGD") {
    return Err("scheduler.packing",
               "FGD is not supported by tidepool up (its typical pods come from a simulation's "
               "trace)");
  }
  if (sc.placement.has_value()) {
    if (use == ScenarioUse::kClusterConfig) {
      return Err("placement", "not supported by tidepool up (use tidepool simulate)");
    }
    if (!sc.trace.has_value() || sc.trace->nodes_file.empty()) {
      return Err("placement", "needs trace.file and trace.nodes (the trace's own nodes)");
    }
    if (!sc.timeline.empty()) {
      return Err("timeline", "not supported with placement (pods arrive from the trace)");
    }
    return OkStatus();
  }
  if (!has_run_for && use == ScenarioUse::kSimulation) {
    return Err("runFor", "required (how long to simulate, e.g. 35m)");
  }
  // An action after the end would silently never run: the scenario is refused instead.
  for (size_t i = 0; i < sc.timeline.size(); ++i) {
    if (sc.timeline[i].at > sc.run_for) {
      return Err(Join(Index("timeline", i), "at"),
                 FormatGoDuration(sc.timeline[i].at) + " is after runFor (" +
                     FormatGoDuration(sc.run_for) +
                     "): the action would never run (move it earlier or raise runFor)");
    }
  }
  if (w.node_pools.empty()) {
    return Err("nodePools", "required (at least the cluster's default-pool)");
  }
  return OkStatus();
}

}  // namespace

StatusOr<Scenario> ParseScenario(std::string_view yaml, const std::string& path,
                                 const std::string& base_dir, ScenarioUse use) {
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
  Status s = ParseTop(docs->front(), base_dir, use, sc);
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

}  // namespace tidepool::sim
