// File: queue_executor.h
//
// QueueExecutor: runs a closure on the thread that owns `tidepool up`'s event queue (the
// emulated cloud and the embedded autoscaler's loop live there and are single-threaded), for
// front-ends served from other threads - the GKE API's node-pool calls, CA's externalgrpc
// calls. Run() blocks until the closure has run. Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>

namespace tidepool::runtime {

class QueueExecutor {
 public:
  // From any thread but the queue's: queues `fn` and waits for the queue's thread to run it.
  void Run(std::function<void()> fn) {
    std::packaged_task<void()> task(std::move(fn));
    std::future<void> done = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
    }
    queued_.notify_one();
    done.wait();
  }

  // On the queue's thread: runs everything queued. Returns how many ran.
  size_t RunPending() {
    std::deque<std::packaged_task<void()>> tasks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks.swap(tasks_);
    }
    for (auto& t : tasks) t();
    return tasks.size();
  }

  // On the queue's thread: blocks up to `timeout` for a closure to be queued (its idle wait).
  void WaitForWork(std::chrono::steady_clock::duration timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    queued_.wait_for(lock, timeout, [this] { return !tasks_.empty(); });
  }

 private:
  std::mutex mu_;
  std::condition_variable queued_;
  std::deque<std::packaged_task<void()>> tasks_;
};

}  // namespace tidepool::runtime
