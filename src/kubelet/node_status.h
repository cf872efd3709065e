// File: node_status.h
//
// What a node's kubelet publishes about the node itself, as JSON for the API (the pod side is
// status_json.h):
//   - the fields a kubelet adds to the Node it registers (pkg/kubelet/nodestatus/setters.go):
//     status.addresses (InternalIP from NodeIp, Hostname), status.daemonEndpoints (port
//     10250) and status.nodeInfo (ids derived from the name, GKE's COS image and versions);
//   - its Lease in kube-node-lease (pkg/kubelet/nodelease: holderIdentity = the node,
//     leaseDurationSeconds 40, owned by the Node so that it goes with it);
//   - the status heartbeat (every nodeStatusReportFrequency when nothing changed): a strategic
//     merge patch of nodes/<name>/status touching each condition's lastHeartbeatTime only;
//   - KWOK's node-initialize stage (kwok's kustomize/stage/node/fast) for nodes annotated
//     kwok.x-k8s.io/node=fake that are not Ready: the merge patch of their status that makes
//     them Ready nodes of the cluster (conditions, addresses, daemonEndpoints, nodeInfo, phase,
//     and KWOK's default capacity where the node has none).
// Pure functions of their arguments.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/emulated/node_style.h"
#include "common/clock.h"
#include "common/kube_version.h"

namespace tidepool::kubelet {

// The annotation KWOK manages nodes by (`--manage-nodes-with-annotation-selector`), as CA's
// and Karpenter's kwok providers set it.
inline constexpr std::string_view kKwokNodeAnnotation = "kwok.x-k8s.io/node";
inline constexpr std::string_view kKwokNodeAnnotationValue = "fake";

// The KWOK release whose stages KwokNodeInitializePatch follows ("kwok-<version>" in nodeInfo).
inline constexpr std::string_view kKwokVersion = "v0.7.0";
// The kubelet version emulated nodes report (GKE 1.32's).
inline constexpr std::string_view kKubeletVersion = kKubeGitVersion;
// pkg/kubelet: a Lease of 40 s, renewed every quarter of it.
inline constexpr int kNodeLeaseDurationSeconds = 40;

// [{"type":"InternalIP","address":NodeIp(name)},{"type":"Hostname","address":name}].
nlohmann::json NodeAddressesJson(std::string_view name);
// {"kubeletEndpoint":{"Port":10250}}.
nlohmann::json DaemonEndpointsJson();
// status.nodeInfo of an emulated node: machineID, systemUUID and bootID from the name; the
// image's versions from `system` (GKE's by default; kubeletVersion as kKubeletVersion).
nlohmann::json NodeInfoJson(std::string_view name, const cloud::emulated::NodeSystem& system =
                                                       cloud::emulated::GkeNodeStyle().System());

// The node's Lease, renewed at `renew`: owned by the Node (`node_uid`).
nlohmann::json NodeLeaseJson(std::string_view name, std::string_view node_uid, TimePoint renew);

// The types of the conditions `node` (a Node as JSON) has, in order.
std::vector<std::string> NodeConditionTypes(const nlohmann::json& node);
// The heartbeat patch at `now` of a node with conditions of these types:
// {"status":{"conditions":[{type, lastHeartbeatTime}...]}} (merged by type); null for none.
nlohmann::json NodeHeartbeatPatch(const std::vector<std::string>& condition_types, TimePoint now);

// True when `node` carries kwok.x-k8s.io/node=fake.
bool IsKwokNode(const nlohmann::json& node);
// The node's status.conditions (an array), or null.
const nlohmann::json* NodeConditions(const nlohmann::json& node);
// The node's Ready condition (an object), or null.
const nlohmann::json* NodeReadyCondition(const nlohmann::json& node);
// True when the node's Ready condition is True.
bool NodeReady(const nlohmann::json& node);
// What a running kubelet reports of a condition of `type` (its setters' status, reason and
// message: Ready True "KubeletReady", MemoryPressure, DiskPressure and PIDPressure False), with
// no times; null for another type.
nlohmann::json RunningKubeletCondition(std::string_view type);
// KWOK's node-initialize patch of `node`'s status at `now` (merge patch of nodes/<name>/status):
// Ready with MemoryPressure, DiskPressure, PIDPressure and NetworkUnavailable False, each
// transitioned at the node's creationTimestamp (or now); the node's addresses or NodeIp's;
// daemonEndpoints; phase Running; capacity and allocatable each kept, or KWOK's default
// (cpu 1k, memory 1Ti, pods 1M) when absent; a nodeInfo the node has, its empty fields filled
// as KWOK fills them (amd64, linux, "kwok-<version>").
nlohmann::json KwokNodeInitializePatch(const nlohmann::json& node, TimePoint now);

}  // namespace tidepool::kubelet
