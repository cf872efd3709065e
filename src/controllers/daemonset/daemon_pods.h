// File: daemon_pods.h
//
// What kube-controller-manager 1.32's DaemonSet controller decides per node and per pod,
// as pure functions (pkg/controller/daemon: daemon_controller.go NodeShouldRunDaemonPod /
// predicates, util/daemonset_util.go CreatePodTemplate / AddOrUpdateDaemonPodTolerations /
// ReplaceDaemonSetPodNodeNameNodeAffinity / GetTargetNodeName / IsPodUpdated):
//
//   - Every daemon pod tolerates, besides its template's tolerations:
//     node.kubernetes.io/not-ready and node.kubernetes.io/unreachable (Exists, NoExecute),
//     node.kubernetes.io/disk-pressure, memory-pressure, pid-pressure and unschedulable
//     (Exists, NoSchedule), and with hostNetwork also node.kubernetes.io/network-unavailable
//     (Exists, NoSchedule).
//   - A node should run the daemon pod when the template's nodeName (if any) is the node, its
//     nodeSelector and required node affinity admit the node, and no NoSchedule/NoExecute taint
//     is untolerated; a pod already there may continue running when only NoSchedule taints are
//     untolerated (a NoExecute one evicts it).
//   - A pod is made for a node from the template with the labels controller-revision-hash
//     and pod-template-generation added and the required node affinity replaced by one term
//     matchFields metadata.name In [node] (the scheduler binds it; nodeName stays empty).
//   - A pod belongs to the node of its nodeName, or, before it is bound, to the node its
//     matchFields metadata.name term names.
//   - A pod is up to date when its pod-template-generation label is the DaemonSet's template
//     generation or its controller-revision-hash label is the current hash.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "api/node.h"

namespace tidepool::controllers::daemonset {

inline constexpr char kRevisionHashLabel[] = "controller-revision-hash";
inline constexpr char kTemplateGenerationLabel[] = "pod-template-generation";
// The annotation the API server keeps spec.templateGeneration in (apps/v1).
inline constexpr char kTemplateGenerationAnnotation[] = "deprecated.daemonset.template.generation";

struct Placement {
  bool should_run = false;
  bool should_continue_running = false;
};

// The DaemonSet's pod template with the daemon tolerations and the two labels
// (util.CreatePodTemplate); `generation` empty leaves pod-template-generation out.
nlohmann::json DaemonPodTemplate(const nlohmann::json& ds, const std::string& hash,
                                 const std::string& generation);
// `tmpl` (DaemonPodTemplate's) pinned to `node` by node affinity.
nlohmann::json PinToNode(nlohmann::json tmpl, const std::string& node);
// A pod made from `tmpl`, decoded once for ShouldRun over every node of a sync (a template
// that does not decode places nowhere).
struct DaemonPodShape {
  std::optional<api::Pod> pod;
  std::string pinned;  // spec.nodeName of the template, when set
};
DaemonPodShape ShapeOf(const nlohmann::json& tmpl);
// NodeShouldRunDaemonPod for a pod of `shape`, or made from `tmpl`.
Placement ShouldRun(const DaemonPodShape& shape, const api::Node& node);
Placement ShouldRun(const nlohmann::json& tmpl, const api::Node& node);
// The node a daemon pod is for ("" when neither bound nor pinned).
std::string TargetNode(const nlohmann::json& pod);
// The revision hash of the DaemonSet's template (kcm's controller.ComputeHash form: FNV-1a
// 32 of the template and collisionCount, in the safe alphabet).
std::string TemplateHash(const nlohmann::json& ds);
// The DaemonSet's template generation: the deprecated.daemonset.template.generation
// annotation, else metadata.generation (this API server does not keep the annotation).
std::string TemplateGeneration(const nlohmann::json& ds);
// IsPodUpdated on the pod's labels.
bool IsUpdated(const api::Labels& pod_labels, const std::string& generation,
               const std::string& hash);
// intstr.GetScaledValueFromIntOrPercent(v, total, roundUp=true); `fallback` when absent,
// -1 when malformed.
int ScaledValue(const nlohmann::json& v, int total, int fallback);

}  // namespace tidepool::controllers::daemonset
