// File: work_queue.h
//
// WorkQueue: the controllers' keyed, delayed work queue with one worker thread (client-go's
// workqueue as kube-controller-manager's controllers use it, reduced to what they need): a key
// is queued at most once, with the earliest time it was asked for; the worker takes due keys
// in (time, key) order - ties never depend on hash order - and calls `sync(key)`, whose answer
// is when to sync that key again, if ever (a conflict's retry, a minReadySeconds recheck, a
// progress deadline). A key added while its sync runs is synced again afterwards, so no
// change is lost. Nothing is synced before `ready()` (the informers' HasSynced) holds.
//
// Time: due times are the injected Clock's; waits are real-time condition-variable waits of
// at most `poll` (so a Clock that jumps, as `tidepool up --speed N`'s does, is noticed).
//
// Thread-safe: Add from any thread (informer handlers); Start/Stop from the owner's thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "common/clock.h"

namespace tidepool::controllers {

class WorkQueue {
 public:
  using SyncFn = std::function<std::optional<TimePoint>(const std::string& key)>;

  // `clock` must outlive the queue. `ready` may be empty (always ready).
  WorkQueue(const Clock& clock, SyncFn sync, std::function<bool()> ready,
            Duration poll = std::chrono::milliseconds(50));
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `key` now.
  void Add(const std::string& key);
  // Queues `key` at `at` (earlier of this and an already queued time).
  void AddAt(const std::string& key, TimePoint at);

  void Start();
  // Stops and joins the worker; a sync in progress finishes first. Idempotent.
  void Stop();

  // Keys queued (not counting one being synced).
  size_t Len() const;

 private:
  void Work();

  const Clock& clock_;
  SyncFn sync_;
  std::function<bool()> ready_;
  const Duration poll_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, TimePoint> due_by_key_;
  std::set<std::pair<TimePoint, std::string>> order_;
  std::string in_progress_;
  bool busy_ = false;
  // Asked for again while in progress: when.
  std::optional<TimePoint> again_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace tidepool::controllers
