// File: pod_logs.h
//
// PodLogs: the containers' log streams that `kubectl logs [-f]` reads (the kubelet's side of
// pods/log). No container really runs in tidepool up, so what a container "prints" is written
// here by whoever plays it: the autoscaler's klog lines for the cluster-autoscaler pod, the
// emulated workloads' lines for theirs. Each stream keeps its last `max_bytes` of text; readers
// get whole lines. Each line is stamped with the clock's time when it was appended (the CRI log
// file's timestamp), so reads can be the kubelet's: `tailLines` of the kept lines, then only
// those at or after `since` (sinceSeconds / sinceTime), each prefixed with its RFC 3339 time
// with nanoseconds and a space when `timestamps`, the whole cut after `limit_bytes`.
// Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"

namespace tidepool::apiserver {

// What a read returns (kube's PodLogOptions, the kubelet's reading of them).
struct LogReadOptions {
  std::optional<int64_t> tail_lines;
  std::optional<TimePoint> since;
  bool timestamps = false;
  std::optional<int64_t> limit_bytes;
};

class PodLogs {
 public:
  // `clock` stamps the lines (null: the zero time); it must outlive the logs.
  explicit PodLogs(const Clock* clock = nullptr, size_t max_bytes_per_container = 4 << 20)
      : clock_(clock), max_bytes_(max_bytes_per_container) {}

  // Appends text (whole lines, each ending in '\n') to ns/pod/container's stream.
  void Append(std::string_view ns, std::string_view pod, std::string_view container,
              std::string_view text);
  // Marks the stream finished (the container terminated): followers return.
  void Finish(std::string_view ns, std::string_view pod, std::string_view container);
  // Forgets a pod's streams (the pod was deleted): followers return.
  void Remove(std::string_view ns, std::string_view pod);

  // What is there now, as `options` select it.
  std::string Read(std::string_view ns, std::string_view pod, std::string_view container,
                   const LogReadOptions& options) const;

  // Writes the current content (as Read), then every new line (since, timestamps and
  // limit_bytes applied to them too), until `write` returns false, `cancelled()` is true
  // (polled about once a second), the stream finishes or limit_bytes were written.
  void Follow(std::string_view ns, std::string_view pod, std::string_view container,
              const LogReadOptions& options, const std::function<bool(std::string_view)>& write,
              const std::function<bool()>& cancelled) const;

 private:
  struct Line {
    uint64_t offset;  // absolute offset of its first byte
    TimePoint at;
  };
  struct Stream {
    std::string text;
    uint64_t dropped = 0;    // bytes dropped from the front (so offsets stay absolute)
    std::deque<Line> lines;  // the kept lines' starts, oldest first
    bool finished = false;
  };
  static std::string Key(std::string_view ns, std::string_view pod, std::string_view container);
  // The index in s.lines of the first line a read starts at (tail_lines of the kept ones).
  static size_t FirstLine(const Stream& s, std::optional<int64_t> tail_lines);
  // Lines [from, end) of `s`, as `options` render them; `budget` (the bytes limit_bytes still
  // allows, when set) goes down by what is returned.
  static std::string Render(const Stream& s, size_t from, const LogReadOptions& options,
                            std::optional<int64_t>& budget);

  const Clock* clock_;
  size_t max_bytes_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, Stream, std::less<>> streams_;
};

}  // namespace tidepool::apiserver
