// File: thread_timer_service.h
//
// ThreadTimerService: a TimerService with a thread of its own, for an actor of `tidepool up`
// that runs beside the others (the scheduler): informer handlers on their threads hand work
// to it with Post() or ScheduleAt(), and every callback runs on the service's one thread, so
// the actor's state needs no lock.
//
// Order: callbacks run in (time, sequence) order; Post() runs a callback as soon as possible,
// after everything posted or due before it (a Post's time is never earlier than the previous
// Post's, so two posts from one thread run in the order they were made).
//
// Time: due times are the injected Clock's; waits are real-time condition-variable waits of at
// most `poll`, so a clock that is not the OS's (a test's SimulatedClock) is noticed.
//
// Thread-safe: ScheduleAt, Post, Cancel from any thread, the service's own included (a
// callback may schedule more). Start/Stop from the owner's thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "common/timer_service.h"

namespace tidepool {

class ThreadTimerService final : public TimerService {
 public:
  // `clock` must outlive the service.
  explicit ThreadTimerService(const Clock& clock, Duration poll = std::chrono::milliseconds(50));
  ~ThreadTimerService() override;  // Stop()
  ThreadTimerService(const ThreadTimerService&) = delete;
  ThreadTimerService& operator=(const ThreadTimerService&) = delete;

  TimerId ScheduleAt(TimePoint at, Callback fn) override;
  void Cancel(TimerId id) override;
  const Clock& clock() const override { return clock_; }

  // Runs `fn` on the service's thread as soon as possible, in posting order.
  void Post(Callback fn);

  // Starts the thread. REQUIRES: at most once.
  void Start();
  // Lets a callback in progress finish, drops the rest and joins. Idempotent.
  void Stop();

  // Callbacks queued (tests).
  size_t Pending() const;

 private:
  void Run();

  const Clock& clock_;
  const Duration poll_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // (due time, sequence) -> callback; the sequence is the id.
  std::map<std::pair<TimePoint, TimerId>, Callback> timers_;
  std::map<TimerId, TimePoint> due_;  // id -> due time, for Cancel
  TimerId next_id_ = 1;
  TimePoint last_post_{};
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace tidepool
