// File: pod_record.h
//
// A pod as a kubelet keeps it: the immutable object plus the states of its containers, which
// api::PodStatus does not model (v1.ContainerStatus, the parts `kubectl get pods` and
// `kubectl describe pod` show). The kubelets (runtime/kube_kubelets.h) keep what they last wrote in
// it; the timeline reads pods in it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/pod.h"
#include "common/clock.h"

namespace tidepool::kubelet {

// A container's state as the kubelet reports it (the parts of v1.ContainerStatus that
// `kubectl get pods` shows).
struct ContainerStatus {
  enum class State { kWaiting, kRunning, kTerminated };
  std::string name;
  State state = State::kWaiting;
  std::string reason;  // waiting: "ContainerCreating"; terminated: "Completed", "Error"
  int32_t exit_code = 0;
  bool ready = false;
  int32_t restart_count = 0;
  std::optional<TimePoint> started_at;
  std::optional<TimePoint> finished_at;
  // waiting: CrashLoopBackOff's "back-off 10s restarting failed container=..." text.
  std::string message;
  // The previous run's end (lastState.terminated), once the container was restarted.
  struct Terminated {
    int32_t exit_code = 0;
    std::string reason;  // "Completed", "Error"
    TimePoint started_at;
    TimePoint finished_at;
    friend bool operator==(const Terminated&, const Terminated&) = default;
  };
  std::optional<Terminated> last_terminated;
  friend bool operator==(const ContainerStatus&, const ContainerStatus&) = default;
};

// A stored pod: the immutable object plus its container statuses (which api::PodStatus does
// not model).
struct PodRecord {
  api::PodConstSharedPtr pod;
  std::vector<ContainerStatus> containers;
};

}  // namespace tidepool::kubelet
