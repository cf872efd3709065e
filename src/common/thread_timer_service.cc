#include "common/thread_timer_service.h"

#include <algorithm>

namespace tidepool {

ThreadTimerService::ThreadTimerService(const Clock& clock, Duration poll)
    : clock_(clock), poll_(poll) {}

ThreadTimerService::~ThreadTimerService() { Stop(); }

TimerService::TimerId ThreadTimerService::ScheduleAt(TimePoint at, Callback fn) {
  std::lock_guard<std::mutex> lock(mu_);
  const TimerId id = next_id_++;
  timers_.emplace(std::make_pair(at, id), std::move(fn));
  due_.emplace(id, at);
  cv_.notify_one();
  return id;
}

void ThreadTimerService::Post(Callback fn) {
  std::lock_guard<std::mutex> lock(mu_);
  last_post_ = std::max(last_post_, clock_.Now());
  const TimerId id = next_id_++;
  timers_.emplace(std::make_pair(last_post_, id), std::move(fn));
  due_.emplace(id, last_post_);
  cv_.notify_one();
}

void ThreadTimerService::Cancel(TimerId id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = due_.find(id);
  if (it == due_.end()) return;
  timers_.erase(std::make_pair(it->second, id));
  due_.erase(it);
}

void ThreadTimerService::Start() {
  thread_ = std::thread([this] { Run(); });
}

void ThreadTimerService::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  timers_.clear();
  due_.clear();
}

size_t ThreadTimerService::Pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return timers_.size();
}

void ThreadTimerService::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (timers_.empty()) {
      cv_.wait_for(lock, poll_);
      continue;
    }
    auto first = timers_.begin();
    const TimePoint now = clock_.Now();
    if (first->first.first > now) {
      cv_.wait_for(lock, std::min<Duration>(first->first.first - now, poll_));
      continue;
    }
    Callback fn = std::move(first->second);
    due_.erase(first->first.second);
    timers_.erase(first);
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace tidepool
