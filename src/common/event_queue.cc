#include "common/event_queue.h"

#include "common/check.h"

namespace tidepool {

TimerService::TimerId EventQueue::ScheduleAt(TimePoint at, Callback fn) {
  if (at < clock_.Now()) {
    at = clock_.Now();
  }
  const uint64_t seq = next_seq_++;
  queue_.emplace(Key{at, seq}, std::move(fn));
  due_.emplace(seq, at);
  return seq;
}

void EventQueue::Cancel(TimerId id) {
  auto it = due_.find(id);
  if (it == due_.end()) {
    return;
  }
  queue_.erase(Key{it->second, id});
  due_.erase(it);
}

std::optional<TimePoint> EventQueue::NextEventTime() const {
  if (queue_.empty()) {
    return std::nullopt;
  }
  return queue_.begin()->first.first;
}

bool EventQueue::Step() {
  if (queue_.empty()) {
    return false;
  }
  auto it = queue_.begin();
  const Key key = it->first;
  Callback fn = std::move(it->second);
  queue_.erase(it);
  due_.erase(key.second);
  clock_.AdvanceTo(key.first);
  ++executed_;
  fn();
  return true;
}

size_t EventQueue::RunUntil(TimePoint until) {
  TIDEPOOL_CHECK(until >= clock_.Now());
  size_t n = 0;
  while (!queue_.empty() && queue_.begin()->first.first <= until) {
    Step();
    ++n;
  }
  clock_.AdvanceTo(until);
  return n;
}

size_t EventQueue::RunUntilIdle(size_t max_events) {
  size_t n = 0;
  while (n < max_events && Step()) {
    ++n;
  }
  return n;
}

}  // namespace tidepool
