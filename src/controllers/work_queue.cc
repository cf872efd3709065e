#include "controllers/work_queue.h"

#include <algorithm>

namespace tidepool::controllers {

WorkQueue::WorkQueue(const Clock& clock, SyncFn sync, std::function<bool()> ready, Duration poll,
                     TimerService* executor)
    : clock_(clock),
      sync_(std::move(sync)),
      ready_(std::move(ready)),
      poll_(poll),
      own_timers_(executor == nullptr ? std::make_unique<ThreadTimerService>(clock, poll)
                                      : nullptr),
      timers_(executor != nullptr ? executor : own_timers_.get()) {}

WorkQueue::~WorkQueue() { Stop(); }

void WorkQueue::Add(const std::string& key) { AddAt(key, clock_.Now()); }

void WorkQueue::AddAt(const std::string& key, TimePoint at) {
  std::lock_guard<std::mutex> lock(mu_);
  AddAtLocked(key, at);
}

void WorkQueue::AddAtLocked(const std::string& key, TimePoint at) {
  if (busy_ && key == in_progress_) {
    again_ = again_.has_value() ? std::min(*again_, at) : at;
    return;
  }
  auto [it, inserted] = due_by_key_.emplace(key, at);
  if (!inserted) {
    if (at >= it->second) return;
    order_.erase({it->second, key});
    it->second = at;
  }
  order_.emplace(at, key);
  ScheduleLocked(at);
}

void WorkQueue::ScheduleLocked(TimePoint at) {
  if (!started_ || stop_) return;
  if (pump_.has_value()) {
    if (pump_->at <= at) return;
    timers_->Cancel(pump_->id);
  }
  const uint64_t generation = ++generation_;
  // The callback needs mu_, held here: it cannot run before pump_ is set.
  const TimerService::TimerId id =
      timers_->ScheduleAt(at, [this, generation] { Pump(generation); });
  pump_ = ScheduledPump{at, id, generation};
}

void WorkQueue::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
    if (!order_.empty()) ScheduleLocked(order_.begin()->first);
  }
  if (own_timers_ != nullptr) own_timers_->Start();
}

void WorkQueue::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
    if (pump_.has_value()) timers_->Cancel(pump_->id);
    pump_.reset();
  }
  // Lets a sync in progress finish, then joins (not under mu_: the sync's end takes it).
  if (own_timers_ != nullptr) own_timers_->Stop();
}

size_t WorkQueue::Len() const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.size();
}

void WorkQueue::Pump(uint64_t generation) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!pump_.has_value() || pump_->generation != generation) return;  // superseded
    pump_.reset();
    if (stop_ || order_.empty()) return;
  }
  // Asked outside mu_: informers take their own locks before calling Add.
  const bool ready = !ready_ || ready_();
  std::unique_lock<std::mutex> lock(mu_);
  if (stop_ || order_.empty()) return;
  const TimePoint now = clock_.Now();
  if (!ready) {
    ScheduleLocked(now + poll_);
    return;
  }
  const auto [at, key] = *order_.begin();
  if (at > now) {
    ScheduleLocked(at);
    return;
  }
  order_.erase(order_.begin());
  due_by_key_.erase(key);
  busy_ = true;
  in_progress_ = key;
  again_.reset();
  lock.unlock();
  std::optional<TimePoint> next = sync_(key);
  lock.lock();
  busy_ = false;
  in_progress_.clear();
  if (again_.has_value()) next = next.has_value() ? std::min(*next, *again_) : again_;
  again_.reset();
  if (next.has_value()) AddAtLocked(key, *next);
  if (!order_.empty()) ScheduleLocked(order_.begin()->first);
}

}  // namespace tidepool::controllers
