// File: pod_logs.h
//
// PodLogs: the containers' log streams that `kubectl logs [-f]` reads (the kubelet's side of
// pods/log). No container really runs in tidepool up, so what a container "prints" is written
// here by whoever plays it: the autoscaler's klog lines for the cluster-autoscaler pod, the
// emulated workloads' lines for theirs. Each stream keeps its last `max_bytes` of text; readers
// get whole lines. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"

namespace tidepool::apiserver {

class PodLogs {
 public:
  explicit PodLogs(size_t max_bytes_per_container = 4 << 20) : max_bytes_(max_bytes_per_container) {}

  // Appends text (whole lines, each ending in '\n') to ns/pod/container's stream.
  void Append(std::string_view ns, std::string_view pod, std::string_view container,
              std::string_view text);
  // Marks the stream finished (the container terminated): followers return.
  void Finish(std::string_view ns, std::string_view pod, std::string_view container);
  // Forgets a pod's streams (the pod was deleted): followers return.
  void Remove(std::string_view ns, std::string_view pod);

  // What is there now; the last `tail_lines` lines when set.
  std::string Read(std::string_view ns, std::string_view pod, std::string_view container,
                   std::optional<int64_t> tail_lines) const;

  // Writes the current content (tail_lines as in Read), then every new append, until `write`
  // returns false, `cancelled()` is true (polled about once a second), or the stream finishes.
  void Follow(std::string_view ns, std::string_view pod, std::string_view container,
              std::optional<int64_t> tail_lines, const std::function<bool(std::string_view)>& write,
              const std::function<bool()>& cancelled) const;

 private:
  struct Stream {
    std::string text;
    uint64_t dropped = 0;  // bytes dropped from the front (so offsets stay absolute)
    bool finished = false;
  };
  static std::string Key(std::string_view ns, std::string_view pod, std::string_view container);
  static std::string Tail(const std::string& text, std::optional<int64_t> tail_lines);

  size_t max_bytes_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, Stream, std::less<>> streams_;
};

}  // namespace tidepool::apiserver
