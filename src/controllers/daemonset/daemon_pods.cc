#include "controllers/daemonset/daemon_pods.h"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "api/taint.h"
#include "controllers/history/controller_history.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"

namespace tidepool::controllers::daemonset {
namespace {

using nlohmann::json;

std::string Str(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

// AddOrUpdateTolerationInPodSpec: appended unless an equal toleration is there.
void AddToleration(json& spec, const char* key, const char* effect) {
  json& tols = spec["tolerations"];
  if (!tols.is_array()) tols = json::array();
  for (const json& t : tols) {
    if (Str(t, "key") == key && Str(t, "operator") == "Exists" && Str(t, "effect") == effect &&
        Str(t, "value").empty()) {
      return;
    }
  }
  tols.push_back({{"key", key}, {"operator", "Exists"}, {"effect", effect}});
}

}  // namespace

json DaemonPodTemplate(const json& ds, const std::string& hash, const std::string& generation) {
  json tmpl = json::object();
  if (ds.contains("spec") && ds["spec"].contains("template")) tmpl = ds["spec"]["template"];
  if (!tmpl["metadata"].is_object()) tmpl["metadata"] = json::object();
  if (!tmpl["spec"].is_object()) tmpl["spec"] = json::object();
  json& spec = tmpl["spec"];
  AddToleration(spec, "node.kubernetes.io/not-ready", "NoExecute");
  AddToleration(spec, "node.kubernetes.io/unreachable", "NoExecute");
  AddToleration(spec, "node.kubernetes.io/disk-pressure", "NoSchedule");
  AddToleration(spec, "node.kubernetes.io/memory-pressure", "NoSchedule");
  AddToleration(spec, "node.kubernetes.io/pid-pressure", "NoSchedule");
  AddToleration(spec, "node.kubernetes.io/unschedulable", "NoSchedule");
  if (spec.value("hostNetwork", false)) {
    AddToleration(spec, "node.kubernetes.io/network-unavailable", "NoSchedule");
  }
  json& labels = tmpl["metadata"]["labels"];
  if (!labels.is_object()) labels = json::object();
  if (!generation.empty()) labels[kTemplateGenerationLabel] = generation;
  if (!hash.empty()) labels[kRevisionHashLabel] = hash;
  return tmpl;
}

json PinToNode(json tmpl, const std::string& node) {
  json& spec = tmpl["spec"];
  json& affinity = spec["affinity"];
  if (!affinity.is_object()) affinity = json::object();
  json& na = affinity["nodeAffinity"];
  if (!na.is_object()) na = json::object();
  // ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become this one term.
  na["requiredDuringSchedulingIgnoredDuringExecution"] = {
      {"nodeSelectorTerms",
       json::array({{{"matchFields", json::array({{{"key", "metadata.name"},
                                                   {"operator", "In"},
                                                   {"values", json::array({node})}}})}}})}};
  return tmpl;
}

DaemonPodShape ShapeOf(const json& tmpl) {
  DaemonPodShape shape;
  shape.pinned = tmpl.contains("spec") ? Str(tmpl["spec"], "nodeName") : "";
  StatusOr<api::Pod> pod = api::codec::PodFromJson(
      {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "daemon"}}},
       {"spec", tmpl.contains("spec") ? tmpl["spec"] : json::object()}});
  if (pod.ok()) shape.pod = std::move(*pod);
  return shape;
}

Placement ShouldRun(const json& tmpl, const api::Node& node) {
  return ShouldRun(ShapeOf(tmpl), node);
}

Placement ShouldRun(const DaemonPodShape& shape, const api::Node& node) {
  if (!shape.pinned.empty() && shape.pinned != node.meta.name) return {};
  if (!shape.pod.has_value()) return {};
  const api::Pod* pod = &*shape.pod;
  if (!scheduler::plugins::RequiredNodeAffinityMatches(*pod, node)) return {};
  const std::vector<api::Taint>& taints = node.spec.taints;
  const auto& tols = pod->spec.tolerations;
  if (api::UntoleratedDoNotScheduleTaint(taints, tols) == nullptr) return {true, true};
  const api::Taint* evicting = api::FindMatchingUntoleratedTaint(
      taints, tols, [](const api::Taint& t) { return t.effect == api::TaintEffect::kNoExecute; });
  return {false, evicting == nullptr};
}

std::string TargetNode(const json& pod) {
  if (!pod.contains("spec")) return "";
  const json& spec = pod["spec"];
  if (std::string n = Str(spec, "nodeName"); !n.empty()) return n;
  // GetTargetNodeName: the matchFields metadata.name In [one value] term.
  const json* terms = nullptr;
  if (spec.contains("affinity") && spec["affinity"].contains("nodeAffinity")) {
    const json& req = spec["affinity"]["nodeAffinity"];
    if (req.contains("requiredDuringSchedulingIgnoredDuringExecution")) {
      const json& r = req["requiredDuringSchedulingIgnoredDuringExecution"];
      if (r.contains("nodeSelectorTerms")) terms = &r["nodeSelectorTerms"];
    }
  }
  if (terms == nullptr || !terms->is_array()) return "";
  for (const json& term : *terms) {
    if (!term.contains("matchFields")) continue;
    for (const json& f : term["matchFields"]) {
      if (Str(f, "key") == "metadata.name" && Str(f, "operator") == "In" &&
          f.contains("values") && f["values"].is_array() && f["values"].size() == 1 &&
          f["values"][0].is_string()) {
        return f["values"][0].get<std::string>();
      }
    }
  }
  return "";
}

std::string TemplateHash(const json& ds) {
  const json* spec = ds.contains("spec") ? &ds["spec"] : nullptr;
  const json tmpl =
      spec != nullptr && spec->contains("template") ? (*spec)["template"] : json::object();
  std::optional<int32_t> collisions;
  if (ds.contains("status") && ds["status"].contains("collisionCount") &&
      ds["status"]["collisionCount"].is_number_integer()) {
    collisions = ds["status"]["collisionCount"].get<int32_t>();
  }
  return history::ComputeHash(tmpl, collisions);
}

std::string TemplateGeneration(const json& ds) {
  if (!ds.contains("metadata")) return "";
  const json& m = ds["metadata"];
  if (m.contains("annotations")) {
    if (std::string g = Str(m["annotations"], kTemplateGenerationAnnotation); !g.empty()) return g;
  }
  if (m.contains("generation") && m["generation"].is_number_integer()) {
    return std::to_string(m["generation"].get<int64_t>());
  }
  return "";
}

bool IsUpdated(const api::Labels& labels, const std::string& generation, const std::string& hash) {
  auto g = labels.find(kTemplateGenerationLabel);
  auto h = labels.find(kRevisionHashLabel);
  const bool generation_matches = !generation.empty() && g != labels.end() && g->second == generation;
  const bool hash_matches = !hash.empty() && h != labels.end() && h->second == hash;
  return generation_matches || hash_matches;
}

int ScaledValue(const json& v, int total, int fallback) {
  if (v.is_null()) return fallback;
  if (v.is_number_integer()) return v.get<int>();
  if (!v.is_string()) return -1;
  std::string s = v.get<std::string>();
  if (s.empty() || s.back() != '%') return -1;
  s.pop_back();
  char* end = nullptr;
  const long pct = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != '\0') return -1;
  return static_cast<int>(std::ceil(static_cast<double>(pct) * total / 100.0));
}

}  // namespace tidepool::controllers::daemonset
