#include "runtime/embedded_autoscaler.h"

#include <algorithm>
#include <utility>

#include "cluster/in_process_transport.h"

namespace tidepool::runtime {
namespace {

// CA's user agent (client-go's default for the binary): managedFields say cluster-autoscaler.
constexpr char kUserAgent[] = "cluster-autoscaler/v1.32.1 (linux/amd64) kubernetes/$Format";

}  // namespace

EmbeddedAutoscaler::EmbeddedAutoscaler(const autoscaler::AutoscalingOptions& options,
                                       const client::http::HttpTransport& api,
                                       cloud::CloudProvider& cloud, TimerService& timers,
                                       const Clock& real_clock, log::Logger& logger, uint64_t seed,
                                       client::SharedInformerFactory* informers,
                                       TimerService* executor)
    : options_(options),
      timers_(timers),
      real_clock_(real_clock),
      log_(logger),
      kube_(cluster::InProcessRestConfig(), real_clock,
            cluster::InProcessRestOptions(api, kUserAgent)),
      cache_(kube_, real_clock, &logger, seed, informers, executor),
      writer_(kube_, cache_),
      recorder_(kube_, real_clock, "cluster-autoscaler", &logger, executor),
      random_(seed),
      cloud_(cloud),
      executor_(executor) {}

StatusOr<std::unique_ptr<EmbeddedAutoscaler>> EmbeddedAutoscaler::Create(
    const autoscaler::AutoscalingOptions& options, const client::http::HttpTransport& api,
    cloud::CloudProvider& cloud, TimerService& timers, const Clock& real_clock, log::Logger& logger,
    uint64_t seed, client::SharedInformerFactory* informers, TimerService* executor) {
  if (executor != nullptr && informers == nullptr) {
    return InvalidArgumentError("an embedded autoscaler on an executor needs the informer factory");
  }
  std::unique_ptr<EmbeddedAutoscaler> a(new EmbeddedAutoscaler(
      options, api, cloud, timers, real_clock, logger, seed, informers, executor));
  TIDEPOOL_ASSIGN_OR_RETURN(a->engine_,
                            autoscaler::Autoscaler::Create(a->options_, a->cloud_, a->writer_,
                                                           a->recorder_, a->log_, a->random_));
  return a;
}

EmbeddedAutoscaler::~EmbeddedAutoscaler() { Stop(); }

void EmbeddedAutoscaler::Start() {
  if (started_) return;
  started_ = true;
  cache_.Start();
  ScheduleNext(timers_.clock().Now());
}

void EmbeddedAutoscaler::Stop() {
  if (!started_) return;
  started_ = false;
  if (scheduled_) timers_.Cancel(timer_);
  scheduled_ = false;
  cache_.Stop();
}

void EmbeddedAutoscaler::ScheduleNext(TimePoint at) {
  scheduled_ = true;
  timer_ = timers_.ScheduleAt(at, [this] {
    scheduled_ = false;
    RunLoop();
  });
}

bool EmbeddedAutoscaler::StatusChanged(const std::string& status) const {
  if (options_.status_heartbeat) return status != last_status_;
  // Without the first line, `time: ...` (autoscaler.h's StatusYaml).
  const auto body = [](std::string_view s) {
    const size_t nl = s.find('\n');
    return nl == std::string_view::npos ? s : s.substr(nl + 1);
  };
  return last_status_.empty() || body(status) != body(last_status_);
}

std::vector<std::tuple<std::string, uint64_t, int>> EmbeddedAutoscaler::CloudState() const {
  std::vector<std::tuple<std::string, uint64_t, int>> state;
  for (cloud::NodeGroup* g : cloud_.NodeGroups()) {
    const uint64_t version = g->NodesVersion();
    const StatusOr<int> target = g->TargetSize();
    if (version == 0 || !target.ok()) return {};
    state.emplace_back(g->Id(), version, *target);
  }
  return state;
}

bool EmbeddedAutoscaler::MaySkip(TimePoint now,
                                 const std::shared_ptr<const autoscaler::ClusterView>& view) const {
  return settled_view_ != nullptr && view == settled_view_ && now < settled_until_ &&
         CloudState() == settled_cloud_;
}

void EmbeddedAutoscaler::RunLoop() {
  const TimePoint now = timers_.clock().Now();
  if (!cache_.HasSynced()) {
    log_.V(1, "Waiting for the informers to sync");
    ScheduleNext(now + std::chrono::milliseconds(100));
    return;
  }
  ++loops_;
  const std::shared_ptr<const autoscaler::ClusterView> view = cache_.SharedView();
  if (MaySkip(now, view)) {
    ++skipped_loops_;
    engine_->SkipOnce(now);
  } else {
    RunEngine(now, view);
  }
  // CA starts the next loop a scan interval after this one started, or at once when this one
  // took longer (its loop trigger). The queue's clock stood still while the loop ran; the real
  // clock did not: a loop over 10,000 nodes can outlast a scan interval that --speed made 17 ms,
  // and scheduling from the queue's time then would queue loop after loop in the past, leaving
  // the world (VMs booting, shutdown) ever further behind the wall clock.
  ScheduleNext(std::max(now + options_.scan_interval, real_clock_.Now()));
}

void EmbeddedAutoscaler::RunEngine(TimePoint now,
                                   const std::shared_ptr<const autoscaler::ClusterView>& view) {
  Status s = engine_->RunOnce(now, *view);
  if (!s.ok()) log_.Error("Failed to run autoscaler loop", {{"err", s.ToString()}});
  settled_view_ = nullptr;
  const std::optional<TimePoint> until = engine_->SettledUntil();
  // Verbose logs (-v) print lines a later loop would differ in (e.g. the nodes it does not
  // simulate again before their recheck): every loop runs then.
  if (s.ok() && executor_ != nullptr && !options_.status_heartbeat && until.has_value() &&
      !log_.Enabled(1)) {
    settled_cloud_ = CloudState();
    settled_until_ = *until;
    if (!settled_cloud_.empty()) settled_view_ = view;
  }
  if (options_.write_status_configmap) {
    const std::string status = engine_->StatusYaml();
    if (!status.empty() && StatusChanged(status)) {
      Status w = WriteStatusConfigMap(kube_, "kube-system", options_.status_config_map_name,
                                      status, now);
      if (w.ok()) {
        last_status_ = status;
      } else {
        log_.Warning("Failed to write status configmap", {{"err", w.ToString()}});
      }
    }
  }
}

}  // namespace tidepool::runtime
