#include "common/actor_timers.h"

#include <utility>

namespace tidepool {

ActorTimers::ActorTimers(const Clock& clock, TimerService* executor)
    : own_(executor == nullptr ? std::make_unique<ThreadTimerService>(clock) : nullptr),
      executor_(executor) {}

ActorTimers::~ActorTimers() { Stop(); }

const Clock& ActorTimers::clock() const { return own_ ? own_->clock() : executor_->clock(); }

TimerService::TimerId ActorTimers::ScheduleAt(TimePoint at, Callback fn) {
  if (own_) return own_->ScheduleAt(at, std::move(fn));
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return 0;  // as a stopped ThreadTimerService: never runs
  // The executor's id is known only once it is scheduled; the callback reads it from here.
  auto id = std::make_shared<TimerId>(0);
  const TimerId scheduled = executor_->ScheduleAt(at, [this, id, fn = std::move(fn)] {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (pending_.erase(*id) == 0) return;  // cancelled meanwhile
    }
    fn();
  });
  *id = scheduled;
  pending_.insert(scheduled);
  return scheduled;
}

void ActorTimers::Cancel(TimerId id) {
  if (own_) {
    own_->Cancel(id);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_.erase(id) > 0) executor_->Cancel(id);
}

void ActorTimers::Post(Callback fn) {
  if (own_) {
    own_->Post(std::move(fn));
    return;
  }
  ScheduleAt(executor_->clock().Now(), std::move(fn));
}

void ActorTimers::Start() {
  if (own_) {
    own_->Start();
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = false;
}

void ActorTimers::Stop() {
  if (own_) {
    own_->Stop();
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  for (TimerId id : pending_) executor_->Cancel(id);
  pending_.clear();
}

size_t ActorTimers::Pending() const {
  if (own_) return own_->Pending();
  std::lock_guard<std::mutex> lock(mu_);
  return pending_.size();
}

}  // namespace tidepool
