// File: world.h
//
// World: the simulated cluster, wired the way architecture.md's one direction of data says:
//
//   Store --watch--> SchedulerLoop (snapshot --> scheduler --bind--> Store)
//     |          \--> Kubelets (bound pods --> pod status, events --> Store)
//     \--> ClusterView --> Autoscaler --resize/delete--> EmulatedCloud --Node--> Store
//
// everything on one EventQueue (virtual time) and one seed.
//
// Time. The clock starts `warmup` (1 h) before `start`: the initial node pools (GKE's
// default-pool and friends) are created then and have booted, registered and turned Ready by
// the time the scenario begins, as in a cluster that already exists. The timeline and the
// autoscaler start at `start`; ages on node lines show the warm-up.
//
// The autoscaler (when enabled) runs RunOnce every scan_interval from `start`, and sooner,
// batching_window after a pod fails to schedule or a node changes. Its ClusterView is built
// from the store (nodes by name; scheduled = non-terminal pods bound to a node; pending =
// non-terminal pods without a node). It logs through a log::Logger on the simulated clock
// whose lines go to the timeline; its events and taints go to the store.
//
// Pods bound to a node that disappears are removed (the pod garbage collector).
//
// Not thread-safe (single-threaded simulator).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/pod.h"
#include "autoscaler/core/autoscaler.h"
#include "autoscaler/options.h"
#include "cloud/emulated/emulated_cloud.h"
#include "common/log.h"
#include "common/random.h"
#include "common/speed.h"
#include "common/status_or.h"
#include "scheduler/scheduler.h"
#include "common/event_queue.h"
#include "sim/kubelet.h"
#include "sim/scheduler_loop.h"
#include "sim/store.h"
#include "sim/timeline.h"

namespace tidepool::sim {

struct WorldOptions {
  uint64_t seed = 1;
  std::string project = "tidepool-local";
  std::string cluster = "tidepool";
  std::string zone = "us-central1-a";
  // The scenario's time zero (timeline stamps count from it).
  TimePoint start = SimulatedClock::kDefaultStart;
  // How long before `start` the initial node pools are created.
  Duration warmup = std::chrono::hours(1);
  // Created during the warm-up, in order; not when cloud.journal holds a cloud already (it is
  // restored instead, EmulatedCloud::Restore, and its pending steps run during the warm-up
  // when they are due before `start`).
  std::vector<cloud::emulated::NodePoolSpec> node_pools;
  // `logger` is set by the world.
  cloud::emulated::EmulatedCloudOptions cloud;
  // Where the cloud's VMs register their nodes: the world's store when null (`simulate`), the
  // API in `tidepool up` (kubelet/api_node_sink.h; the world's store then holds no nodes).
  // Must outlive the world.
  cloud::emulated::NodeSink* node_sink = nullptr;
  KubeletOptions kubelet;
  SchedulerLoopOptions scheduler;
  // false: the world runs no scheduler; another one binds its pods (`tidepool up`'s, over the
  // API: runtime/kube_scheduler.h).
  bool run_scheduler = true;
  // false: the world runs no kubelets; others run its nodes' pods (`tidepool up`'s, on the API:
  // runtime/kube_kubelets.h). The world's pod garbage collector still removes the pods of a
  // node that is gone.
  bool run_kubelets = true;
  bool autoscaler = true;
  autoscaler::AutoscalingOptions autoscaling;
  // klog verbosity of the autoscaler (--v).
  int autoscaler_verbosity = 0;

  // Every Duration member, here and in the components' options, once (common/speed.h). The
  // warm-up is the cluster's history before `start`, run at once and never waited for; it is
  // emulated time all the same (under --speed the initial nodes are `warmup / speed` old).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("warmup", warmup, TimeBase::kEmulated);
    cloud.ForEachDuration(WithPrefix("cloud.", f));
    kubelet.ForEachDuration(WithPrefix("kubelet.", f));
    scheduler.ForEachDuration(WithPrefix("scheduler.", f));
    autoscaling.ForEachDuration(WithPrefix("autoscaler.", f));
  }
};

class World final : public StoreObserver {
 public:
  // Builds the world, creates the initial node pools and runs the warm-up up to `start`.
  // InvalidArgument (with the pool's name) when a node pool is refused by the cloud; the
  // autoscaler's own errors as it returns them.
  static StatusOr<std::unique_ptr<World>> Create(WorldOptions options);
  ~World() override;
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  const WorldOptions& options() const { return options_; }
  EventQueue& queue() { return queue_; }
  Store& store() { return store_; }
  cloud::emulated::EmulatedCloud& cloud() { return *cloud_; }
  // REQUIRES: options().run_scheduler.
  const SchedulerLoop& scheduler_loop() const { return *loop_; }
  Timeline& timeline() { return timeline_; }
  // The autoscaler's and the emulated cloud's loggers (to add sinks, e.g. a pod's log).
  log::Logger& autoscaler_log() { return autoscaler_log_; }
  log::Logger& cloud_log() { return cloud_log_; }
  TimelineRecorder& recorder() { return *recorder_; }
  // nullptr when the autoscaler is off.
  autoscaler::Autoscaler* autoscaler() { return autoscaler_.get(); }
  uint64_t autoscaler_loops() const { return autoscaler_loops_; }
  TimePoint Now() const { return queue_.Now(); }
  TimePoint start() const { return options_.start; }

  // ---- Actions (kubectl / gcloud), effective now and shown on the timeline ----

  // kubectl apply of a Pod: defaults and validation as the API server applies them, then
  // create. `source` is what the timeline shows after `kubectl apply -f` ("-" for inline).
  // InvalidArgument `The Pod "x" is invalid: ...`; AlreadyExists.
  Status ApplyPod(api::Pod pod, const std::string& source);
  // One `kubectl apply -f` of several pods (a multi-document file); the first error is returned
  // after every pod was tried, as kubectl does.
  Status ApplyPods(std::vector<api::Pod> pods, const std::string& source);
  // kubectl delete pod. NotFound `pods "x" not found`.
  Status DeletePod(const std::string& namespace_, const std::string& name);
  // gcloud container node-pools create / delete, clusters resize, node-pools update
  // --enable-autoscaling.
  Status CreateNodePool(cloud::emulated::NodePoolSpec spec);
  Status DeleteNodePool(const std::string& name);
  Status ResizeNodePool(const std::string& name, int node_count);
  Status SetNodePoolAutoscaling(const std::string& name, bool enabled, int min_nodes,
                                int max_nodes);

  // Replaces the cloud's faults (for instances requested from now on).
  void SetFaults(cloud::emulated::Faults faults);

  // Runs the simulation up to `t` (>= Now()).
  void RunUntil(TimePoint t) { queue_.RunUntil(t); }
  void RunFor(Duration d) { queue_.RunUntil(queue_.Now() + d); }

  // The autoscaler's view of the cluster now.
  autoscaler::ClusterView BuildClusterView();

  void OnNodeChange(const NodeChange& change) override;
  void OnPodChange(const PodChange& change) override;

 private:
  explicit World(WorldOptions options);
  Status Init();
  void StartAutoscaler();
  void RequestAutoscalerRun(TimePoint at);
  void RunAutoscaler();
  void Action(const std::string& command);
  void Output(const std::string& line);
  Status CreateOnePod(api::Pod pod, const std::string& source);

  WorldOptions options_;
  EventQueue queue_;
  Store store_;
  Random cloud_random_;
  Random autoscaler_random_;
  log::Logger cloud_log_;
  log::Logger autoscaler_log_;
  Timeline timeline_;
  std::unique_ptr<cloud::emulated::EmulatedCloud> cloud_;
  std::unique_ptr<TimelineRecorder> recorder_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::unique_ptr<SchedulerLoop> loop_;
  std::map<std::string, std::unique_ptr<Kubelet>, std::less<>> kubelets_;
  std::unique_ptr<autoscaler::Autoscaler> autoscaler_;
  bool autoscaler_started_ = false;
  bool in_autoscaler_ = false;  // changes made by RunOnce itself do not re-trigger it
  std::optional<TimePoint> autoscaler_at_;
  TimerService::TimerId autoscaler_timer_ = 0;
  uint64_t autoscaler_loops_ = 0;
  // PodInfos for the ClusterView, reused while the pod object is unchanged.
  // The store's pod object beside its PodInfo: the PodInfo does not keep the object.
  std::map<std::string, std::pair<api::PodConstSharedPtr, scheduler::PodInfoConstSharedPtr>,
           std::less<>>
      view_infos_;
};

}  // namespace tidepool::sim
