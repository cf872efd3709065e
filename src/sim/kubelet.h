// File: kubelet.h
//
// Kubelet: the emulated kubelet of one node, for the pods bound to it (the node's own
// registration and conditions are the emulated cloud's). What a person sees with
// `kubectl get pods -w` and `kubectl describe pod`:
//
//   bound        phase Pending, containers waiting "ContainerCreating", startTime;
//                events Pulling `Pulling image "<image>"` (or Pulled `Container image "<image>"
//                already present on machine` when the node has it)
//   +image_pull  Pulled `Successfully pulled image "<image>" in 4s (4s including waiting).
//                Image size: <n> bytes.`
//   +start_delay Created `Created container: <name>`, Started `Started container <name>`;
//                phase Running, containers ready
//   +run time    restartPolicy Never / OnFailure: containers terminated (Completed, exit 0),
//                phase Succeeded. restartPolicy Always: keeps running.
//   deletion     Killing `Stopping container <name>`; after `termination` (capped by the
//                grace period) the pod is removed from the store.
//
// The run time of a container comes from the annotation tidepool.dev/duration (a Go duration,
// for every container of the pod) or from a `sleep N` in its command and args (N in seconds,
// or with GNU sleep's s/m/h/d suffix; e.g. ["/bin/bash", "-c", "sleep 3600"]). A pod completes
// when its longest container does; a container without a known run time runs until deleted.
// Image sizes are a deterministic function of the image name.
//
// Every step is a timer on the TimerService; the kubelet writes only through the Store. Not
// thread-safe (single-threaded simulator).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "api/pod.h"
#include "common/speed.h"
#include "common/timer_service.h"
#include "sim/store.h"

namespace tidepool::sim {

inline constexpr std::string_view kDurationAnnotation = "tidepool.dev/duration";

struct KubeletOptions {
  // Binding -> Running: image pull, container creation and start.
  Duration start_delay = std::chrono::seconds(5);
  // The part of start_delay spent pulling an image the node does not have yet.
  Duration image_pull = std::chrono::seconds(4);
  // SIGTERM -> containers gone, at most the pod's grace period.
  Duration termination = std::chrono::seconds(2);

  // Every Duration member, once, by its config name (common/speed.h). Not options, so not
  // here: a container's run time (tidepool.dev/duration, `sleep N`) and the pod's grace
  // period are the pod's own (object time), which --speed leaves alone.
  template <typename F>
  void ForEachDuration(F&& f) {
    f("startDelay", start_delay, TimeBase::kEmulated);
    f("imagePull", image_pull, TimeBase::kEmulated);
    f("termination", termination, TimeBase::kEmulated);
  }
};

// The run time of one container, from the pod's annotation or the container's `sleep`;
// nullopt when unknown (runs until deleted). InvalidArgument for a bad annotation.
StatusOr<std::optional<Duration>> ContainerRunTime(const api::Pod& pod,
                                                   const api::Container& container);

class Kubelet {
 public:
  // `store` and `timers` must outlive the kubelet.
  Kubelet(std::string node_name, Store& store, TimerService& timers, KubeletOptions options = {});
  // Cancels pending timers.
  ~Kubelet();
  Kubelet(const Kubelet&) = delete;
  Kubelet& operator=(const Kubelet&) = delete;

  const std::string& node_name() const { return node_; }

  // Every change of a pod bound to this node (the world routes them by spec.nodeName).
  void OnPodChange(const PodChange& change);
  // The node is gone: cancels everything; pods are left to the pod garbage collector.
  void Stop();

  // Pods this kubelet is running or stopping.
  size_t NumPods() const { return pods_.size(); }

 private:
  enum class Stage { kStarting, kPulled, kRunning, kCompleted, kTerminating };
  struct PodState {
    Stage stage = Stage::kStarting;
    uint64_t token = 0;
    TimerService::TimerId timer = 0;
    bool timer_pending = false;
    TimePoint started;
  };
  using Step = void (Kubelet::*)(const std::string& key);

  void Schedule(const std::string& key, Duration after, Step step);
  void CancelTimer(PodState& s);
  void Start(const std::string& key);
  void FinishPulls(const std::string& key);
  void RunContainers(const std::string& key);
  void Complete(const std::string& key);
  void BeginTermination(const std::string& key);
  void Remove(const std::string& key);
  void Emit(const api::Pod& pod, std::string_view type, std::string_view reason,
            std::string message);

  // Constant after construction.
  const std::string node_;
  Store& store_;
  TimerService& timers_;
  const KubeletOptions options_;

  std::map<std::string, PodState, std::less<>> pods_;
  std::set<std::string, std::less<>> images_;   // present on the node
  std::set<std::string, std::less<>> pulling_;  // being pulled
  uint64_t next_token_ = 1;
};

}  // namespace tidepool::sim
