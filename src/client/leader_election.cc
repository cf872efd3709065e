#include "client/leader_election.h"

#include <algorithm>

namespace tidepool::client {
namespace {

using nlohmann::json;

// leaderelection.JitterFactor.
constexpr double kJitterFactor = 1.2;

int64_t Seconds(Duration d) { return std::chrono::duration_cast<std::chrono::seconds>(d).count(); }

LeaderElectionRecord RecordFromSpec(const json& spec) {
  LeaderElectionRecord r;
  if (!spec.is_object()) return r;
  if (spec.contains("holderIdentity") && spec["holderIdentity"].is_string()) {
    r.holder_identity = spec["holderIdentity"].get<std::string>();
  }
  if (spec.contains("leaseDurationSeconds") && spec["leaseDurationSeconds"].is_number_integer()) {
    r.lease_duration_seconds = spec["leaseDurationSeconds"].get<int64_t>();
  }
  if (spec.contains("leaseTransitions") && spec["leaseTransitions"].is_number_integer()) {
    r.leader_transitions = spec["leaseTransitions"].get<int64_t>();
  }
  for (auto [key, dest] : {std::pair{"acquireTime", &r.acquire_time}, std::pair{"renewTime", &r.renew_time}}) {
    if (spec.contains(key) && spec[key].is_string()) {
      auto t = ParseRfc3339(spec[key].get<std::string>());
      if (t.ok()) *dest = *t;
    }
  }
  return r;
}

// resourcelock.LeaderElectionRecordToLeaseSpec.
json SpecFromRecord(const LeaderElectionRecord& r) {
  json spec = {{"holderIdentity", r.holder_identity},
               {"leaseDurationSeconds", r.lease_duration_seconds},
               {"leaseTransitions", r.leader_transitions}};
  if (r.acquire_time) spec["acquireTime"] = FormatMicroTime(*r.acquire_time);
  if (r.renew_time) spec["renewTime"] = FormatMicroTime(*r.renew_time);
  return spec;
}

}  // namespace

Status LeaderElector::ValidateConfig(const LeaderElectionConfig& c) {
  // leaderelection.NewLeaderElector's checks and texts.
  if (c.lease_duration <= c.renew_deadline) return InvalidArgumentError("leaseDuration must be greater than renewDeadline");
  if (std::chrono::duration<double>(c.renew_deadline).count() <=
      kJitterFactor * std::chrono::duration<double>(c.retry_period).count()) {
    return InvalidArgumentError("renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (c.lease_duration < std::chrono::seconds(1)) return InvalidArgumentError("leaseDuration must be greater than zero");
  if (c.renew_deadline <= Duration::zero()) return InvalidArgumentError("renewDeadline must be greater than zero");
  if (c.retry_period <= Duration::zero()) return InvalidArgumentError("retryPeriod must be greater than zero");
  if (c.identity.empty()) return InvalidArgumentError("Lock identity is empty");
  return OkStatus();
}

LeaderElector::LeaderElector(const RestClient& client, const Clock& clock, LeaderElectionConfig config,
                             log::Logger* logger)
    : client_(client),
      clock_(clock),
      config_(std::move(config)),
      logger_(logger),
      lease_path_(ResourcePath("coordination.k8s.io", "v1", "leases", config_.lease_namespace, config_.lease_name)),
      key_(config_.lease_namespace + "/" + config_.lease_name),
      random_(config_.seed) {}

LeaderElector::~LeaderElector() { Stop(); }

void LeaderElector::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) return;
    started_ = true;
  }
  thread_ = std::thread([this] { Run(); });
}

void LeaderElector::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool LeaderElector::IsLeader() const { return leading_.load(); }

std::string LeaderElector::GetLeader() const {
  std::lock_guard<std::mutex> lock(mu_);
  return leader_;
}

bool LeaderElector::Done() const { return done_.load(); }

uint64_t LeaderElector::renewals() const { return renewals_.load(); }

void LeaderElector::Logf(log::Level level, const std::string& msg) {
  if (logger_ == nullptr) return;
  logger_->Log(level, msg, {}, std::source_location::current());
}

bool LeaderElector::SleepUnlessStopped(Duration d) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, d, [this] { return stop_.load(); });
  return !stop_.load();
}

void LeaderElector::SetObserved(const LeaderElectionRecord& record, const std::string& raw) {
  observed_ = record;
  observed_raw_ = raw;
  observed_time_ = clock_.Now();
  bool changed = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (leader_ != record.holder_identity) {
      leader_ = record.holder_identity;
      changed = true;
    }
  }
  // maybeReportTransition.
  if (changed && config_.on_new_leader && !record.holder_identity.empty()) config_.on_new_leader(record.holder_identity);
}

bool LeaderElector::TryAcquireOrRenew() {
  const TimePoint now = clock_.Now();
  LeaderElectionRecord record;
  record.holder_identity = config_.identity;
  record.lease_duration_seconds = Seconds(config_.lease_duration);
  record.acquire_time = now;
  record.renew_time = now;

  RestRequest req;
  req.path = lease_path_;
  req.timeout = config_.renew_deadline;
  req.cancel = &stop_;

  auto update = [&](const LeaderElectionRecord& rec) -> RestResult {
    json lease = lease_;
    lease["spec"] = SpecFromRecord(rec);
    RestRequest put = req;
    put.method = "PUT";
    put.body = std::move(lease);
    return client_.Do(put);
  };

  const bool was_holder = !observed_raw_.empty() && observed_.holder_identity == config_.identity;
  // 1. Fast path: we hold a lease that has not expired; renew it without reading first.
  if (was_holder && observed_time_ + std::chrono::seconds(observed_.lease_duration_seconds) > now &&
      lease_.is_object()) {
    LeaderElectionRecord rec = record;
    rec.acquire_time = observed_.acquire_time;
    rec.leader_transitions = observed_.leader_transitions;
    RestResult r = update(rec);
    if (r.ok() && r.body.is_object()) {
      lease_ = std::move(r.body);
      SetObserved(rec, SpecFromRecord(rec).dump());
      return true;
    }
    Logf(log::Level::kError, "Failed to update lock optimistically: " + std::string(r.status.message()) +
                                 ", falling back to slow path");
  }

  // 2. Read the lease; create it when missing.
  RestResult got = client_.Do(req);
  if (!got.ok()) {
    if (got.http_status != 404) {
      Logf(log::Level::kError, "error retrieving resource lock " + key_ + ": " + std::string(got.status.message()));
      return false;
    }
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}},
                  {"spec", SpecFromRecord(record)}};
    RestRequest post = req;
    post.method = "POST";
    post.path = ResourcePath("coordination.k8s.io", "v1", "leases", config_.lease_namespace);
    post.body = std::move(lease);
    RestResult created = client_.Do(post);
    if (!created.ok() || !created.body.is_object()) {
      Logf(log::Level::kError, "error initially creating leader election record: " + std::string(created.status.message()));
      return false;
    }
    lease_ = std::move(created.body);
    SetObserved(record, SpecFromRecord(record).dump());
    return true;
  }
  if (!got.body.is_object()) return false;
  lease_ = std::move(got.body);
  const json spec = lease_.contains("spec") ? lease_["spec"] : json::object();
  const LeaderElectionRecord old = RecordFromSpec(spec);
  const std::string raw = SpecFromRecord(old).dump();
  if (raw != observed_raw_) SetObserved(old, raw);

  // 3. Someone else holds an unexpired lease (judged from when *we* observed it).
  const bool holder_is_us = old.holder_identity == config_.identity;
  if (!old.holder_identity.empty() && !holder_is_us &&
      observed_time_ + std::chrono::seconds(observed_.lease_duration_seconds) > now) {
    if (logger_ != nullptr) logger_->V(4, "lock is held by " + old.holder_identity + " and has not yet expired");
    return false;
  }

  // 4. Take it (or renew it).
  if (holder_is_us) {
    record.acquire_time = old.acquire_time;
    record.leader_transitions = old.leader_transitions;
  } else {
    record.leader_transitions = old.leader_transitions + 1;
  }
  RestResult r = update(record);
  if (!r.ok() || !r.body.is_object()) {
    Logf(log::Level::kError, "Failed to update lock: " + std::string(r.status.message()));
    return false;
  }
  lease_ = std::move(r.body);
  SetObserved(record, SpecFromRecord(record).dump());
  return true;
}

void LeaderElector::Release() {
  // leaderelection.release: only when we hold it; an empty holder and a 1 s duration let the
  // next candidate take over at once.
  if (observed_.holder_identity != config_.identity || !lease_.is_object()) return;
  const TimePoint now = clock_.Now();
  LeaderElectionRecord rec;
  rec.lease_duration_seconds = 1;
  rec.renew_time = now;
  rec.acquire_time = now;
  rec.leader_transitions = observed_.leader_transitions;
  json lease = lease_;
  lease["spec"] = SpecFromRecord(rec);
  RestRequest put;
  put.method = "PUT";
  put.path = lease_path_;
  put.body = std::move(lease);
  put.timeout = config_.renew_deadline;
  RestResult r = client_.Do(put);
  if (!r.ok()) {
    Logf(log::Level::kError, "Failed to release lock: " + std::string(r.status.message()));
    return;
  }
  if (r.body.is_object()) lease_ = std::move(r.body);
  SetObserved(rec, SpecFromRecord(rec).dump());
  Logf(log::Level::kInfo, "successfully released lease " + key_);
}

void LeaderElector::Run() {
  const Status valid = ValidateConfig(config_);
  if (!valid.ok()) {
    Logf(log::Level::kError, "leader election: " + std::string(valid.message()));
    done_.store(true);
    return;
  }
  // acquire(): wait.JitterUntil(RetryPeriod, JitterFactor 1.2, sliding).
  Logf(log::Level::kInfo, "attempting to acquire leader lease " + key_ + "...");
  bool acquired = false;
  while (!stop_.load()) {
    if (TryAcquireOrRenew()) {
      acquired = true;
      break;
    }
    const double f = 1.0 + random_.UniformDouble() * kJitterFactor;
    if (!SleepUnlessStopped(std::chrono::duration_cast<Duration>(config_.retry_period * f))) break;
  }
  if (!acquired) {
    done_.store(true);
    return;
  }
  Logf(log::Level::kInfo, "successfully acquired lease " + key_);
  ++renewals_;
  leading_.store(true);
  if (config_.on_started_leading) config_.on_started_leading();

  // renew(): every RetryPeriod, retry until RenewDeadline has passed without a success.
  while (!stop_.load()) {
    if (!SleepUnlessStopped(config_.retry_period)) break;
    const TimePoint deadline = clock_.Now() + config_.renew_deadline;
    bool renewed = false;
    while (!stop_.load()) {
      if (TryAcquireOrRenew()) {
        renewed = true;
        break;
      }
      const TimePoint now = clock_.Now();
      if (now >= deadline) break;
      if (!SleepUnlessStopped(std::min<Duration>(config_.retry_period, deadline - now))) break;
      if (clock_.Now() >= deadline) break;
    }
    if (stop_.load()) break;
    if (!renewed) {
      Logf(log::Level::kInfo, "failed to renew lease " + key_ + ": timed out waiting for the condition");
      break;
    }
    ++renewals_;
    if (logger_ != nullptr) logger_->V(5, "successfully renewed lease " + key_);
  }
  if (stop_.load() && config_.release_on_cancel) Release();
  leading_.store(false);
  if (config_.on_stopped_leading) config_.on_stopped_leading();
  done_.store(true);
}

}  // namespace tidepool::client
