// File: pod_lifecycle.h
//
// PodLifecycle: the emulated kubelet of one node, for the pods bound to it (the node's own
// registration and conditions are the emulated cloud's), behind a KubeletHost: the kubelets of
// `tidepool up` and `tidepool simulate` (runtime/kube_kubelets.h, on the API). What a person
// sees with
// `kubectl get pods -w` and `kubectl describe pod`:
//
//   bound        phase Pending, containers waiting "ContainerCreating", startTime;
//                events Pulling `Pulling image "<image>"` (or Pulled `Container image "<image>"
//                already present on machine` when the node has it, unless the container's
//                imagePullPolicy is Always: pulled at every start and restart, as the kubelet's
//                shouldPullImage; Never with the image absent: Warning ErrImageNeverPull
//                `Container image "<image>" is not present with pull policy of Never`, the
//                container waiting with that reason, the pod Pending until another pod
//                brings the image to the node. Deviation: the pod's containers start
//                together, so its other containers wait too)
//   volumes      a volume some container mounts whose ConfigMap or Secret is missing (or lacks
//                an item's key), and is not optional, does not mount (the volume manager's
//                MountVolume.SetUp): Warning FailedMount `MountVolume.SetUp failed for volume "<v>"
//                : configmap "<n>" not found` (`secret "<n>" not found`, `configmap references
//                non-existent config key: <k>`, `references non-existent secret key: <k>`; a
//                projected volume's several errors as `[<e1>, <e2>]`), PodReadyToStartContainers
//                False, tried again after mountRetryInitial doubling to mountRetryMax (500 ms to
//                2m2s), no pull before every volume mounted
//   +image_pull  Pulled `Successfully pulled image "<image>" in 4s (4s including waiting).
//                Image size: <n> bytes.`
//   +start_delay Created `Created container: <name>`, Started `Started container <name>`;
//                phase Running, containers ready. Unless a container's environment reads a
//                ConfigMap or Secret that is missing, or a key it lacks (not optional; the
//                kubelet's makeEnvironmentVariables): Warning Failed `Error: configmap "<n>"
//                not found` (`secret "<n>" not found`, `couldn't find key <k> in ConfigMap
//                <ns>/<n>`, `... in Secret <ns>/<n>`), the container waiting
//                CreateContainerConfigError with that message, the pod Pending; the pod
//                worker tries again after configRetry (10 s: Pulled, then Created or Failed).
//                Deviation: the pod's other containers wait too (they start together), a
//                restart does not check again, and init containers are not checked (they do
//                not run: the pod's containers start at once)
//   +run time    the containers exit with the pod's exit code (below): terminated, reason
//                Completed (exit 0) or Error (any other code).
//                restartPolicy Never: phase Succeeded (exit 0) or Failed.
//                OnFailure (exit != 0) and Always (any exit): restarted as the kubelet does -
//                lastState.terminated keeps the run that ended; the first restart is at once,
//                later ones wait the kubelet's crash back-off (10 s doubling to 5 min; reset
//                when a run lasted more than twice the cap) as waiting `CrashLoopBackOff`
//                (`back-off 10s restarting failed container=<c> pod=<pod>_<ns>(<uid>)`, event
//                BackOff `Back-off restarting failed container <c> in pod <pod>_<ns>(<uid>)`);
//                restartCount counts the restarts; the phase stays Running.
//                OnFailure with exit 0: terminated Completed, phase Succeeded.
//   deletion     Killing `Stopping container <name>`; after `termination` (capped by the
//                grace period) the pod is removed from the store.
//
// The run time of a container comes from the annotation tidepool.dev/duration (a Go duration,
// for every container of the pod), else from its command and args, read as a shell would
// (`sh -c SCRIPT` is SCRIPT's commands, split outside quotes at ; && || | & and newlines,
// redirections left out, nothing after `exit`, a command after && or || run or skipped by the
// last status - `false`'s 1, any other command's 0):
//   - commands that all end at once - echo, printf, true, false, exit, date, printenv,
//     hostname, uname, pwd, whoami, id, ls, :, `env [NAME=VALUE] <one of those>`, nvidia-smi
//     (unless it loops: -l, --loop, dmon, pmon) - and sleeps: the sum of its sleeps (0
//     without): `kubectl create job x --image=busybox -- echo hi` completes;
//   - `while true` (or `while :`, `until false`), a sleep of unknown length (`sleep $D`,
//     `sleep infinity`): until deleted;
//   - otherwise (other loops, other programs) the sum of its `sleep N`s (N in seconds or with
//     GNU sleep's s/m/h/d suffix; e.g. ["/bin/bash", "-c", "sleep 3600"]), and without one
//     until deleted (the image's entrypoint, nginx, python, perl).
// A pod's containers end together, when its longest one does. The exit code comes from the
// annotation tidepool.dev/exit-code (an integer, for every container), else the script's
// `exit N` (e.g. ["sh", "-c", "sleep 60; exit 3"]), else 1 when its last command is `false`,
// else 0.
// Image sizes are a deterministic function of the image name.
//
// Every step is a timer on the TimerService; the kubelet reads and writes only through its
// KubeletHost. Not thread-safe: every call and timer on the TimerService's thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "api/pod.h"
#include "common/speed.h"
#include "common/timer_service.h"
#include "common/status_or.h"
#include "kubelet/pod_record.h"

namespace tidepool::kubelet {

inline constexpr std::string_view kDurationAnnotation = "tidepool.dev/duration";
inline constexpr std::string_view kExitCodeAnnotation = "tidepool.dev/exit-code";

struct KubeletOptions {
  // Binding -> Running: image pull, container creation and start.
  Duration start_delay = std::chrono::seconds(5);
  // The part of start_delay spent pulling an image the node does not have yet.
  Duration image_pull = std::chrono::seconds(4);
  // SIGTERM -> containers gone, at most the pod's grace period.
  Duration termination = std::chrono::seconds(2);
  // The kubelet's crash back-off (pkg/kubelet: initial 10 s, doubling, capped at 5 min).
  Duration crash_backoff_initial = std::chrono::seconds(10);
  Duration crash_backoff_max = std::chrono::minutes(5);
  // The node's Lease is renewed this often (pkg/kubelet: a quarter of its 40 s, jittered by
  // 4 %), and its status reported at least this often when nothing changed
  // (nodeStatusReportFrequency). Wall-clock times: the Lease's renewTime and the conditions'
  // lastHeartbeatTime are stamped with the real time and read against it (kubectl, the node
  // lifecycle controller), so --speed does not divide them.
  Duration node_lease_renew_interval = std::chrono::seconds(10);
  Duration node_status_report_frequency = std::chrono::minutes(5);
  // Whether the Lease is renewed and the status reported periodically (the two intervals
  // above). Off, a kubelet writes its node's Lease and status heartbeat once, when it starts,
  // and never again. `up` renews (kubectl and any node lifecycle controller read them against
  // the wall clock); `simulate` does not by default (scenario `kubelet: {heartbeats: true}`):
  // nothing in it reads a heartbeat, and they are most of an idle cluster's writes (a Lease
  // every 10 s per node: 68 % of the CPU of 50 idle nodes simulated for 2 h).
  bool heartbeats = true;
  // A pod whose volumes do not mount is tried again after mount_retry_initial, doubling up to
  // mount_retry_max (the volume manager's exponential back-off, 500 ms to 2m2s); one whose
  // container environment cannot be made after config_retry (the pod worker's back-off).
  Duration mount_retry_initial = std::chrono::milliseconds(500);
  Duration mount_retry_max = std::chrono::seconds(122);
  Duration config_retry = std::chrono::seconds(10);

  // Every Duration member, once, by its config name (common/speed.h). Not options, so not
  // here: a container's run time (tidepool.dev/duration, `sleep N`) and the pod's grace
  // period are the pod's own (object time), which --speed leaves alone.
  template <typename F>
  void ForEachDuration(F&& f) {
    f("startDelay", start_delay, TimeBase::kEmulated);
    f("imagePull", image_pull, TimeBase::kEmulated);
    f("termination", termination, TimeBase::kEmulated);
    f("crashBackoffInitial", crash_backoff_initial, TimeBase::kEmulated);
    f("crashBackoffMax", crash_backoff_max, TimeBase::kEmulated);
    f("mountRetryInitial", mount_retry_initial, TimeBase::kEmulated);
    f("mountRetryMax", mount_retry_max, TimeBase::kEmulated);
    f("configRetry", config_retry, TimeBase::kEmulated);
    f("nodeLeaseRenewInterval", node_lease_renew_interval, TimeBase::kReal);
    f("nodeStatusReportFrequency", node_status_report_frequency, TimeBase::kReal);
  }
};

// The run time of one container, from the pod's annotation or the container's `sleep`;
// nullopt when unknown (runs until deleted). InvalidArgument for a bad annotation.
StatusOr<std::optional<Duration>> ContainerRunTime(const api::Pod& pod,
                                                   const api::Container& container);

// The exit code of one container: the pod's annotation, else the first `exit N` of its
// command and args, else 0. InvalidArgument for an annotation that is not an int32.
StatusOr<int32_t> ContainerExitCode(const api::Pod& pod, const api::Container& container);

// What a kubelet finds of a ConfigMap (the keys of its data and binaryData) or a Secret (of its
// data).
struct ConfigObject {
  std::set<std::string, std::less<>> data;
  std::set<std::string, std::less<>> binary_data;
  friend bool operator==(const ConfigObject&, const ConfigObject&) = default;
};

// What a kubelet reads and writes: the cluster's store in `simulate`, the API in `up`.
class KubeletHost {
 public:
  virtual ~KubeletHost() = default;
  // The ConfigMap or Secret `name` of namespace `ns`; null when there is none.
  virtual const ConfigObject* FindConfig(api::ConfigReference::Kind kind, std::string_view ns,
                                         std::string_view name) const = 0;
  // The pod as it is now, with its containers' states as last written; null when it is gone.
  virtual const PodRecord* GetPod(const std::string& key) const = 0;
  // The pod's status (phase, conditions, startTime) and its containers' states.
  virtual void UpdatePodStatus(const std::string& key, api::PodStatus status,
                               std::vector<ContainerStatus> containers) = 0;
  // An event about `pod` from the kubelet of `node` (source {kubelet, node}).
  virtual void Event(const api::Pod& pod, const std::string& node, std::string_view type,
                     std::string_view reason, std::string message) = 0;
  // The containers are gone: the final removal (the kubelet's DELETE with grace period 0).
  virtual void RemovePod(const std::string& key) = 0;
};

// The error of a container's environment (makeEnvironmentVariables: the first reference, in
// envFrom-then-env order, that `host` cannot satisfy); empty when there is none.
std::string EnvConfigError(const KubeletHost& host, const api::Pod& pod,
                           const api::Container& container);
// The mount error of a volume (MountVolume.SetUp's error: one message, or a projected
// volume's several as "[a, b]"); empty when it mounts.
std::string MountError(const KubeletHost& host, const api::Pod& pod, const api::Volume& volume);

class PodLifecycle {
 public:
  enum class Change { kAdded, kModified, kDeleted };

  // `host` and `timers` must outlive the kubelet.
  PodLifecycle(std::string node_name, KubeletHost& host, TimerService& timers,
               KubeletOptions options = {});
  // Cancels pending timers.
  ~PodLifecycle();
  PodLifecycle(const PodLifecycle&) = delete;
  PodLifecycle& operator=(const PodLifecycle&) = delete;

  const std::string& node_name() const { return node_; }

  // Every change of a pod bound to this node (the caller routes them by spec.nodeName); for
  // kDeleted the last state.
  void OnPod(Change change, const api::PodConstSharedPtr& pod);
  // The node is gone: cancels everything; pods are left to the pod garbage collector.
  void Stop();

  // Pods this kubelet is running or stopping.
  size_t NumPods() const { return pods_.size(); }

 private:
  enum class Stage { kStarting, kPulled, kRunning, kBackOff, kCompleted, kTerminating };
  struct PodState {
    Stage stage = Stage::kStarting;
    uint64_t token = 0;
    TimerService::TimerId timer = 0;
    bool timer_pending = false;
    TimePoint started;
    // Crash back-off: exits since the last reset, and the current run's start.
    int32_t crashes = 0;
    TimePoint run_started;
    // The images this start is pulling (Pulling emitted): each gets its Pulled when the pull
    // ends, even if another pod's pull of the same image ended first.
    std::set<std::string> pulling;
    // The volume manager's back-off while a volume does not mount.
    Duration mount_backoff{};
  };
  using Step = void (PodLifecycle::*)(const std::string& key);

  void Schedule(const std::string& key, Duration after, Step step);
  void CancelTimer(PodState& s);
  // The first sync: Pending status, then Mount's check (and Pull when the volumes mount).
  void Start(const std::string& key);
  // Some volumes do not mount (`unmounted`, FailedMounts'): FailedMount for each, Mount again
  // after `backoff`; false when every volume mounted.
  bool RetryMounts(const std::string& key, const api::Pod& pod,
                   const std::vector<std::string>& unmounted, Duration backoff);
  // The volumes mount again after a failure: PodReadyToStartContainers, then Pull.
  void Mount(const std::string& key);
  // "MountVolume.SetUp failed ..." for each volume that does not mount.
  std::vector<std::string> FailedMounts(const api::Pod& pod) const;
  // The containers waiting to be created: ContainerCreating, or, once the volumes are
  // `mounted`, ErrImageNeverPull for an image it may not pull.
  std::vector<ContainerStatus> WaitingContainers(const api::Pod& pod, bool mounted) const;
  // Images: ErrImageNeverPull, or Pulling / Pulled, then FinishPulls or RunContainers.
  void Pull(const std::string& key);
  void FinishPulls(const std::string& key);
  // A container's environment cannot be made (EnvConfigError): Failed events, the containers
  // waiting CreateContainerConfigError, Pull again after config_retry; true then.
  bool ConfigFailed(const std::string& key, const PodRecord& rec);
  void RunContainers(const std::string& key);
  // Schedules Exit after the pod's run time, when every container's is known.
  void ScheduleExit(const std::string& key, const api::Pod& pod);
  // The containers end (kubelet.h's file comment): terminal phase or a restart.
  void Exit(const std::string& key);
  // After a crash (and its back-off): containers whose imagePullPolicy is Always are pulled
  // again (Pulling, then Restart after image_pull); Restart at once when none is.
  void RestartPulling(const std::string& key);
  void Restart(const std::string& key);
  // Pulled "Successfully pulled image ..." (image_pull's duration, the image's size).
  void EmitPulled(const api::Pod& pod, const std::string& image);

  void BeginTermination(const std::string& key);
  void Remove(const std::string& key);
  void Emit(const api::Pod& pod, std::string_view type, std::string_view reason,
            std::string message);

  // Constant after construction.
  const std::string node_;
  KubeletHost& host_;
  TimerService& timers_;
  const KubeletOptions options_;

  std::map<std::string, PodState, std::less<>> pods_;
  std::set<std::string, std::less<>> images_;   // present on the node
  std::set<std::string, std::less<>> pulling_;  // being pulled
  // Pods waiting with ErrImageNeverPull, started again when an image arrives.
  std::set<std::string, std::less<>> never_waiting_;
  uint64_t next_token_ = 1;
};

}  // namespace tidepool::kubelet
