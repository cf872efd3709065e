// File: timer_service.h
//
// TimerService runs callbacks at points in time of the injected Clock. In `tidepool simulate`
// it is the discrete-event queue (time jumps to the next callback); in `tidepool up` a loop on
// the scaled real clock. Code that needs something to happen later (a VM finishing boot, a
// kubelet turning Ready) schedules it here and never sleeps.
//
// Callbacks due at the same time run in the order they were scheduled (a sequence number is
// the tie-breaker, never pointer values).
#pragma once

#include <cstdint>
#include <functional>

#include "common/clock.h"

namespace tidepool {

class TimerService {
 public:
  virtual ~TimerService() = default;

  using Callback = std::function<void()>;
  using TimerId = uint64_t;

  // Runs `fn` once the clock reaches `at` (at once, in order, if `at` is already past).
  // Returns an id for Cancel.
  virtual TimerId ScheduleAt(TimePoint at, Callback fn) = 0;
  // Cancels a pending callback; no effect if it ran or was cancelled already.
  virtual void Cancel(TimerId id) = 0;
  virtual const Clock& clock() const = 0;

  TimerId ScheduleAfter(Duration d, Callback fn) {
    return ScheduleAt(clock().Now() + d, std::move(fn));
  }
};

}  // namespace tidepool
