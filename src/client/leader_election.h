// File: leader_election.h
//
// LeaderElector: client-go's leaderelection (v0.32) on a coordination.k8s.io/v1 Lease, as the
// Cluster Autoscaler uses it (kube-system/cluster-autoscaler; LeaseDuration 15 s, RenewDeadline
// 10 s, RetryPeriod 2 s).
//
// Protocol (tryAcquireOrRenew, every RetryPeriod):
//   - no Lease: create it with us as holder (acquireTime = renewTime = now, leaseTransitions 0);
//   - the Lease record changed since we last looked: remember it and the local time we saw it
//     ("observedTime": expiry is judged with our own clock from when we observed the record,
//     never from the remote renewTime, so clock skew does not matter);
//   - held by someone else and observedTime + leaseDurationSeconds is still in the future: wait;
//   - otherwise update it (PUT with the resourceVersion we read, so a 409 means someone else
//     wrote first and we lost this round): holder us, renewTime now, acquireTime kept when we
//     already held it, else now with leaseTransitions + 1.
// Acquire retries with jitter (wait.JitterUntil(RetryPeriod, 1.2)). Once leading, it renews
// every RetryPeriod; if no renewal succeeds within RenewDeadline it logs "failed to renew lease
// ns/name: timed out waiting for the condition" and stops leading (OnStoppedLeading). Stop()
// while leading releases the lease when release_on_cancel (ReleaseOnCancel: holderIdentity "",
// leaseDurationSeconds 1, the transitions kept), then calls OnStoppedLeading.
// After leadership is lost the elector's thread ends, as client-go's Run returns (CA then
// exits); IsLeader() is false and Done() true. Times are MicroTime (RFC 3339, 6 digits).
//
// Callbacks run on the elector's thread: OnStartedLeading after the lease is acquired,
// OnStoppedLeading when leadership ends (lost or Stop()), OnNewLeader whenever the observed
// holder changes. They must not call Stop().
//
// Thread-safe: IsLeader/GetLeader from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "client/rest_client.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/random.h"

namespace tidepool::client {

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name = "cluster-autoscaler";
  // Unique per candidate, e.g. "<hostname>_<uuid>". REQUIRED.
  std::string identity;
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  bool release_on_cancel = true;
  // Seed of the acquire retry jitter.
  uint64_t seed = 1;

  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(const std::string& identity)> on_new_leader;
};

// A Lease's spec as leaderelection's LeaderElectionRecord.
struct LeaderElectionRecord {
  std::string holder_identity;
  int64_t lease_duration_seconds = 0;
  std::optional<TimePoint> acquire_time;
  std::optional<TimePoint> renew_time;
  int64_t leader_transitions = 0;
};

class LeaderElector {
 public:
  // `client`, `clock` must outlive the elector; `logger` may be null.
  // REQUIRES: lease_duration > renew_deadline > retry_period * 1.2 (client-go's checks;
  // violated configs are logged and the elector never starts).
  LeaderElector(const RestClient& client, const Clock& clock, LeaderElectionConfig config,
                log::Logger* logger = nullptr);
  ~LeaderElector();  // Stop()
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // InvalidArgument when the config violates client-go's checks (the texts of
  // NewLeaderElector: "leaseDuration must be greater than renewDeadline", ...).
  static Status ValidateConfig(const LeaderElectionConfig& config);

  // Starts the elector's thread. REQUIRES: at most once.
  void Start();
  // Stops promptly; releases the lease if leading and release_on_cancel; joins. Idempotent.
  void Stop();

  bool IsLeader() const;
  // The holder we last observed ("" when none).
  std::string GetLeader() const;
  // True once the elector's thread has finished (lost leadership or stopped).
  bool Done() const;

  // Successful acquisitions and renewals so far (tests, metrics).
  uint64_t renewals() const;

 private:
  void Run();
  // One round; true when we hold the lease afterwards.
  bool TryAcquireOrRenew();
  void Release();
  bool SleepUnlessStopped(Duration d);
  void SetObserved(const LeaderElectionRecord& record, const std::string& raw);
  void Logf(log::Level level, const std::string& msg);

  // Constant after construction.
  const RestClient& client_;
  const Clock& clock_;
  const LeaderElectionConfig config_;
  log::Logger* const logger_;
  const std::string lease_path_;
  const std::string key_;  // "ns/name"

  // Only the elector's thread touches these.
  Random random_;
  nlohmann::json lease_;          // the Lease last read or written
  std::string observed_raw_;      // its spec, as compared between reads
  TimePoint observed_time_{};
  LeaderElectionRecord observed_;

  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> leading_{false};
  std::atomic<bool> done_{false};
  std::atomic<uint64_t> renewals_{0};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string leader_;  // protected by mu_
  bool started_ = false;
};
using LeaderElectorPtr = std::unique_ptr<LeaderElector>;

}  // namespace tidepool::client
