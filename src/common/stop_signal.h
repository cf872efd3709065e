// File: stop_signal.h
//
// StopSignal: a flag any thread raises once (Stop) and the waits it cuts short (SleepFor): the
// interruptible pauses of the live cloud providers (operation polls, retry back-offs) that a
// shutdown must not sit out.
//
// Thread-safe.
#pragma once

#include <condition_variable>
#include <mutex>

#include "common/clock.h"

namespace tidepool {

class StopSignal {
 public:
  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    cv_.notify_all();
  }
  // Waits `d`; false when stopped before or during the wait.
  bool SleepFor(Duration d) {
    std::unique_lock<std::mutex> lock(mu_);
    return !cv_.wait_for(lock, d, [this] { return stopped_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;  // guarded by mu_
};

}  // namespace tidepool
