// File: actor_timers.h
//
// ActorTimers: the TimerService an actor of `tidepool up` / `tidepool simulate` runs its work on,
// following the executor convention (an actor's constructor takes an optional
// `TimerService* executor`; /work/notes/executor-convention.md):
//   - without an executor: a ThreadTimerService of its own (thread_timer_service.h): one
//     thread, started by Start(), joined by Stop() - exactly what the actor had before;
//   - with one: the executor itself, no thread. Start() and Stop() never wait: Stop() cancels
//     every callback scheduled through this object that has not run yet and drops what is
//     scheduled after it (as a stopped ThreadTimerService never runs anything again), so no
//     callback of a stopped or destroyed actor runs later on the executor; Start() lets
//     callbacks be scheduled again. Callbacks scheduled before Start() are handed to the
//     executor at once (they run whenever the executor runs them).
// Post() runs a callback as soon as possible, after what was posted before it:
// ThreadTimerService::Post, or ScheduleAt(the executor's now) (an executor runs callbacks due
// at the same time in scheduling order).
//
// Thread-safe as the service under it is: ScheduleAt/Post/Cancel from any thread with a
// ThreadTimerService (its own or an injected one); with an EventQueue everything happens on
// its one thread. Start/Stop from the owner's thread.
#pragma once

#include <memory>
#include <mutex>
#include <set>

#include "common/thread_timer_service.h"
#include "common/timer_service.h"

namespace tidepool {

class ActorTimers final : public TimerService {
 public:
  // `clock` (the own service's clock; unused with an executor, whose clock is the executor's)
  // and `executor` (when not null) must outlive this object.
  ActorTimers(const Clock& clock, TimerService* executor);
  ~ActorTimers() override;  // Stop()
  ActorTimers(const ActorTimers&) = delete;
  ActorTimers& operator=(const ActorTimers&) = delete;

  TimerId ScheduleAt(TimePoint at, Callback fn) override;
  void Cancel(TimerId id) override;
  const Clock& clock() const override;

  void Post(Callback fn);

  // Own thread: starts it (at most once). Executor: allows scheduling again after Stop().
  void Start();
  // Own thread: lets a callback in progress finish, drops the rest and joins. Executor:
  // cancels what is pending, drops what comes later. Idempotent.
  void Stop();

  // True when the work runs on a thread of its own (no executor was injected).
  bool threaded() const { return own_ != nullptr; }
  // Callbacks scheduled and not run yet (tests).
  size_t Pending() const;

 private:
  std::unique_ptr<ThreadTimerService> own_;  // without an executor
  TimerService* const executor_;
  mutable std::mutex mu_;      // guards pending_ and stopped_ (executor mode)
  std::set<TimerId> pending_;  // the executor's ids of callbacks not run yet
  bool stopped_ = false;
};

}  // namespace tidepool
