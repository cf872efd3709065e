// File: embedded_autoscaler.h
//
// EmbeddedAutoscaler: the cluster autoscaler of `tidepool up` - the engine and cluster side of
// `tidepool autoscale` (KubeClusterCache's informers, KubeClusterWriter's taints and evictions,
// KubeEventRecorder's events, CA's status ConfigMap), over the API server of the same process
// (cluster::InProcessTransport) instead of a socket, and the emulated cloud's provider instead
// of GKE's REST API. So what it reads is what kubectl sees, and every write it makes is an API
// request: an eviction goes through the eviction subresource and its PodDisruptionBudget check,
// a taint through an update with optimistic concurrency, an event through the events API.
//
// Loop: CA's - RunOnce every scan_interval on the caller's timer service (the emulated cloud's
// queue, so that the cloud provider is called on the cloud's thread and --speed applies),
// after the informers have synced (checked every 100 ms of the timer service's clock until
// they have: never a blocking wait); the status ConfigMap written when its text changes.
// With an executor (`tidepool simulate`), without status heartbeats and without verbose logs
// (-v 0), a loop is skipped (Autoscaler::SkipOnce) when the last loop run was settled until a
// later time (Autoscaler::SettledUntil: nothing that time alone changes before then) and
// neither the informers' view nor the cloud (every group's NodesVersion and target size; a
// cloud that tells no version is never skipped) changed since: it would have logged, written
// and decided nothing new, so the timeline is the same as with every loop run. A replay of a
// month is mostly such loops (bench/README.md, "Trace replay").
//
// Threads: Start, Stop and the loop run on the timer service's thread (thread-compatible).
// Without an executor the cache's informers (KubeClusterCache) and the event recorder
// (KubeEventRecorder) have threads of their own. With an executor (`tidepool simulate`, where
// it is the same queue as `timers`) nothing makes a thread: the informers are driven (the
// autoscaler neither starts nor stops them, and every one of them, the workload controllers'
// included, comes from `informers`), and events are posted by callbacks on the executor.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "autoscaler/core/autoscaler.h"
#include "autoscaler/options.h"
#include "client/http/http_client.h"
#include "client/rest_client.h"
#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/random.h"
#include "common/timer_service.h"
#include "runtime/kube_cluster.h"

namespace tidepool::runtime {

class EmbeddedAutoscaler {
 public:
  // Every reference must outlive the autoscaler. `real_clock` stamps events and drives the
  // informers' back-off; `timers` (and `logger`'s clock) are the emulated cluster's, which
  // `tidepool up` runs on the same timeline as `real_clock` (the world is advanced to
  // real_clock.Now()): a loop that took longer than the scan interval is followed by the next
  // at real_clock.Now(). `informers`, when set, provides the cache's informers (shared).
  // `executor`, when set, selects the executor mode (see "Threads"; requires `informers`).
  static StatusOr<std::unique_ptr<EmbeddedAutoscaler>> Create(
      const autoscaler::AutoscalingOptions& options, const client::http::HttpTransport& api,
      cloud::CloudProvider& cloud, TimerService& timers, const Clock& real_clock,
      log::Logger& logger, uint64_t seed, client::SharedInformerFactory* informers = nullptr,
      TimerService* executor = nullptr);
  ~EmbeddedAutoscaler();

  // Starts the informers and schedules the first loop now.
  void Start();
  // Cancels the next loop and stops the informers.
  void Stop();

  // Loops run or skipped; of them, skipped (see "Loop").
  uint64_t loops() const { return loops_; }
  uint64_t skipped_loops() const { return skipped_loops_; }

 private:
  EmbeddedAutoscaler(const autoscaler::AutoscalingOptions& options,
                     const client::http::HttpTransport& api, cloud::CloudProvider& cloud,
                     TimerService& timers, const Clock& real_clock, log::Logger& logger,
                     uint64_t seed, client::SharedInformerFactory* informers,
                     TimerService* executor);
  void RunLoop();
  // One loop that is not skipped: the engine's RunOnce, whether it settled, the status ConfigMap.
  void RunEngine(TimePoint now, const std::shared_ptr<const autoscaler::ClusterView>& view);
  void ScheduleNext(TimePoint at);
  // Whether `status` is to be written (options_.status_heartbeat).
  bool StatusChanged(const std::string& status) const;
  // What the cloud answers that a settled loop depends on: each group's id, NodesVersion and
  // target size; empty when a group tells no version (never skip then).
  std::vector<std::tuple<std::string, uint64_t, int>> CloudState() const;
  // Whether the loop at `now` may be skipped (see "Loop").
  bool MaySkip(TimePoint now, const std::shared_ptr<const autoscaler::ClusterView>& view) const;

  const autoscaler::AutoscalingOptions options_;
  TimerService& timers_;
  const Clock& real_clock_;
  log::Logger& log_;
  client::RestClient kube_;
  KubeClusterCache cache_;
  KubeClusterWriter writer_;
  KubeEventRecorder recorder_;
  Random random_;
  cloud::CloudProvider& cloud_;
  std::unique_ptr<autoscaler::Autoscaler> engine_;
  std::string last_status_;
  TimerService::TimerId timer_ = 0;
  bool scheduled_ = false;
  bool started_ = false;
  uint64_t loops_ = 0;
  uint64_t skipped_loops_ = 0;
  TimerService* const executor_;
  // The view and cloud state of the last loop run, kept while it ran settled.
  std::shared_ptr<const autoscaler::ClusterView> settled_view_;
  std::vector<std::tuple<std::string, uint64_t, int>> settled_cloud_;
  TimePoint settled_until_;
};

}  // namespace tidepool::runtime
