// File: work_queue.h
//
// WorkQueue: the controllers' keyed, delayed work queue (client-go's workqueue as
// kube-controller-manager's controllers use it, reduced to what they need): a key is queued at
// most once, with the earliest time it was asked for; due keys are synced in (time, key) order
// - ties never depend on hash order - by `sync(key)`, whose answer is when to sync that key
// again, if ever (a conflict's retry, a minReadySeconds recheck, a progress deadline). A key
// added while its sync runs is synced again afterwards, so no change is lost. Nothing is
// synced before `ready()` (the informers' HasSynced) holds: while it does not, the queue looks
// again every `poll`.
//
// Where syncs run: as callbacks of a TimerService (common/timer_service.h), one due key per
// callback (so other work on the same executor runs between two keys). With an injected
// `executor` (`tidepool simulate`'s EventQueue; a controller's own service shared by its
// queues) they run on it; without one the queue owns a ThreadTimerService - one worker thread
// per queue, started by Start(). Nothing is synced before Start().
//
// Time: due times are the Clock's (with an executor, the executor's clock: `clock` should be
// executor->clock()). Without an executor, waits are the ThreadTimerService's real-time waits
// of at most `poll`, so a clock that jumps is noticed.
//
// Thread-safe: Add/AddAt/Len from any thread (informer handlers); Start/Stop from the owner's
// thread. With an injected executor, Add/AddAt call its ScheduleAt/Cancel: from its thread when
// it is not thread-safe (an EventQueue); Stop() never waits (a sync in progress is the
// executor's to finish: the queue must outlive the executor's callbacks, e.g. stop the
// executor first). Without one, Stop() joins the worker; a sync in progress finishes first.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "common/clock.h"
#include "common/thread_timer_service.h"
#include "common/timer_service.h"

namespace tidepool::controllers {

class WorkQueue {
 public:
  using SyncFn = std::function<std::optional<TimePoint>(const std::string& key)>;

  // `clock` (and `executor` when given) must outlive the queue. `ready` may be empty (always
  // ready).
  WorkQueue(const Clock& clock, SyncFn sync, std::function<bool()> ready,
            Duration poll = std::chrono::milliseconds(50), TimerService* executor = nullptr);
  ~WorkQueue();  // Stop()
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `key` now.
  void Add(const std::string& key);
  // Queues `key` at `at` (earlier of this and an already queued time).
  void AddAt(const std::string& key, TimePoint at);

  // Starts syncing (and the worker thread, without an executor). REQUIRES: at most once.
  void Start();
  // Stops syncing: nothing is synced after it returns (see the file comment for a sync in
  // progress). Idempotent.
  void Stop();

  // Keys queued (not counting one being synced).
  size_t Len() const;

 private:
  // A TimerService callback: syncs the first due key, if any, and schedules the next one.
  void Pump(uint64_t generation);
  // Under mu_: makes sure a pump runs at `at` at the latest.
  void ScheduleLocked(TimePoint at);
  void AddAtLocked(const std::string& key, TimePoint at);

  const Clock& clock_;
  SyncFn sync_;
  std::function<bool()> ready_;
  const Duration poll_;
  // Without an injected executor: the queue's own (declared before timers_).
  std::unique_ptr<ThreadTimerService> own_timers_;
  TimerService* const timers_;

  mutable std::mutex mu_;
  std::map<std::string, TimePoint> due_by_key_;
  std::set<std::pair<TimePoint, std::string>> order_;
  std::string in_progress_;
  bool busy_ = false;
  // Asked for again while in progress: when.
  std::optional<TimePoint> again_;
  bool started_ = false;
  bool stop_ = false;
  // The pump scheduled on timers_ (its time, id and generation), if any. A pump whose
  // generation is not this one's was cancelled too late (it had begun) and does nothing.
  struct ScheduledPump {
    TimePoint at;
    TimerService::TimerId id = 0;
    uint64_t generation = 0;
  };
  std::optional<ScheduledPump> pump_;
  uint64_t generation_ = 0;
};

}  // namespace tidepool::controllers
