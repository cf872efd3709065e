#include "controllers/work_queue.h"

#include <algorithm>

namespace tidepool::controllers {

WorkQueue::WorkQueue(const Clock& clock, SyncFn sync, std::function<bool()> ready, Duration poll)
    : clock_(clock), sync_(std::move(sync)), ready_(std::move(ready)), poll_(poll) {}

WorkQueue::~WorkQueue() { Stop(); }

void WorkQueue::Add(const std::string& key) { AddAt(key, clock_.Now()); }

void WorkQueue::AddAt(const std::string& key, TimePoint at) {
  {
    std::lock_guard<std::mutex> lock(mu_);
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
  }
  cv_.notify_all();
}

void WorkQueue::Start() { worker_ = std::thread([this] { Work(); }); }

void WorkQueue::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

size_t WorkQueue::Len() const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.size();
}

void WorkQueue::Work() {
  while (true) {
    // Asked outside mu_: informers take their own locks before calling Add.
    const bool ready = !ready_ || ready_();
    std::unique_lock<std::mutex> lock(mu_);
    if (stop_) return;
    if (order_.empty() || !ready) {
      cv_.wait_for(lock, order_.empty() ? std::max(poll_, Duration(std::chrono::seconds(1)))
                                        : poll_);
      continue;
    }
    const auto [at, key] = *order_.begin();
    const TimePoint now = clock_.Now();
    if (at > now) {
      cv_.wait_for(lock, std::min<Duration>(at - now, poll_));
      continue;
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
    lock.unlock();
    if (next.has_value()) AddAt(key, *next);
  }
}

}  // namespace tidepool::controllers
