// File: status_json.h
//
// How an emulated kubelet's state reads in the API: the addresses a GKE node and its pods get
// (deterministic from names: nodes in 10.128.0.0/20, GKE's default subnet; pods in the node's
// /24 of 10.4.0.0/14), a container's v1.ContainerStatus (state, lastState, containerd
// containerID, the image's digest as imageID), and the status a kubelet writes for a pod (the
// merge patch of pods/<name>/status: phase, conditions, startTime, reason, message, hostIP(s),
// podIP(s), containerStatuses; nominatedNodeName is the scheduler's and is left alone), and
// the other way: a pod's container statuses as a kubelet keeps them, read from its JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kubelet/pod_record.h"

namespace tidepool::kubelet {

// FNV-1a 64 of `s` (the seed of every generated id and address).
uint64_t Fnv(std::string_view s);
// The last `digits` hex digits of `v`.
std::string Hex(uint64_t v, int digits);
std::string NodeIp(std::string_view node);
// `pod` is "<namespace>/<name>".
std::string PodIp(std::string_view node, std::string_view pod);

// A container's status; `spec_container` is the pod's container of that name (its image).
nlohmann::json ContainerStatusJson(const ContainerStatus& c, const nlohmann::json& spec_container,
                                   std::string_view pod_uid);

// The container statuses of a pod's JSON (status.containerStatuses), as ContainerStatusJson
// writes them: state (waiting with reason and message, running, terminated with exit code,
// reason and times), ready, restartCount, lastState.terminated. Lenient: a missing or
// ill-typed field reads as its zero value; a time that does not parse is left unset.
std::vector<ContainerStatus> ContainerStatusesFromJson(const nlohmann::json& pod);

// The merge patch a kubelet sends for `rec` (the pod with the status to write and its
// containers): {"status": {...}}; fields the status does not have are null (removed).
nlohmann::json PodStatusPatch(const PodRecord& rec);

}  // namespace tidepool::kubelet
