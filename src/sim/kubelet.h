// File: kubelet.h
//
// Kubelet: the simulator's kubelet of one node - kubelet::PodLifecycle (kubelet/
// pod_lifecycle.h: what a pod goes through on a node, shared with `tidepool up`'s kubelets on
// the API) on sim::Store: it reads the store's pod records, writes Store::UpdatePodStatus,
// records events with source {kubelet, <node>} and ends with Store::RemovePod.
//
// Not thread-safe (single-threaded simulator).
#pragma once

#include <string>

#include "common/timer_service.h"
#include "kubelet/pod_lifecycle.h"
#include "sim/store.h"

namespace tidepool::sim {

using kubelet::ContainerExitCode;
using kubelet::ContainerRunTime;
using kubelet::kDurationAnnotation;
using kubelet::KubeletOptions;
using kubelet::kExitCodeAnnotation;

class Kubelet final : private kubelet::KubeletHost {
 public:
  // `store` and `timers` must outlive the kubelet.
  Kubelet(std::string node_name, Store& store, TimerService& timers, KubeletOptions options = {});
  Kubelet(const Kubelet&) = delete;
  Kubelet& operator=(const Kubelet&) = delete;

  const std::string& node_name() const { return pods_.node_name(); }

  // Every change of a pod bound to this node (the world routes them by spec.nodeName).
  void OnPodChange(const PodChange& change);
  // The node is gone: cancels everything; pods are left to the pod garbage collector.
  void Stop() { pods_.Stop(); }

  // Pods this kubelet is running or stopping.
  size_t NumPods() const { return pods_.NumPods(); }

 private:
  const PodRecord* GetPod(const std::string& key) const override;
  void UpdatePodStatus(const std::string& key, api::PodStatus status,
                       std::vector<ContainerStatus> containers) override;
  void Event(const api::Pod& pod, const std::string& node, std::string_view type,
             std::string_view reason, std::string message) override;
  void RemovePod(const std::string& key) override;

  Store& store_;
  kubelet::PodLifecycle pods_;
};

}  // namespace tidepool::sim
