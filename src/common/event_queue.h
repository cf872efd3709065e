// File: event_queue.h
//
// EventQueue: the discrete-event simulator's TimerService. It owns a SimulatedClock and a queue
// of callbacks ordered by (due time, sequence number): callbacks due at the same time run in the
// order they were scheduled, never in pointer or hash order, so a run replays exactly. Running
// a callback first moves the clock to its due time (time jumps from event to event; nothing
// sleeps). A callback may schedule and cancel others, including at the current time; those run
// after every callback already queued for that time.
//
// Not thread-safe: the simulator is single-threaded by design.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "common/clock.h"
#include "common/timer_service.h"

namespace tidepool {

class EventQueue final : public TimerService {
 public:
  explicit EventQueue(TimePoint start = SimulatedClock::kDefaultStart) : clock_(start) {}
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  // TimerService. A time in the past is treated as "now": the callback runs after the ones
  // already due. Ids are never reused (the sequence number is the id).
  TimerId ScheduleAt(TimePoint at, Callback fn) override;
  void Cancel(TimerId id) override;
  const Clock& clock() const override { return clock_; }

  TimePoint Now() const { return clock_.Now(); }
  // The due time of the next pending callback; nullopt when the queue is empty.
  std::optional<TimePoint> NextEventTime() const;
  bool Empty() const { return queue_.empty(); }
  size_t Size() const { return queue_.size(); }
  // Number of callbacks run so far.
  uint64_t executed() const { return executed_; }

  // Runs the next callback (advancing the clock to its time). False if the queue was empty.
  bool Step();
  // Runs every callback due at or before `until` (including those scheduled meanwhile), then
  // advances the clock to `until`. Returns the number of callbacks run. REQUIRES: until >= Now().
  size_t RunUntil(TimePoint until);
  // Runs callbacks until the queue is empty or `max_events` have run. Returns the number run;
  // the queue is non-empty afterwards iff the limit stopped it (e.g. a periodic timer).
  size_t RunUntilIdle(size_t max_events);

 private:
  using Key = std::pair<TimePoint, uint64_t>;  // (due time, sequence number)

  SimulatedClock clock_;
  std::map<Key, Callback> queue_;
  std::unordered_map<TimerId, TimePoint> due_;  // pending ids -> due time (lookup only)
  uint64_t next_seq_ = 1;
  uint64_t executed_ = 0;
};

}  // namespace tidepool
