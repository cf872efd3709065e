#include "apiserver/pod_logs.h"

#include <chrono>
#include <cstdio>

namespace tidepool::apiserver {
namespace {

// Go's time.RFC3339Nano in UTC, as the kubelet stamps lines: trailing zeros of the fraction
// dropped ("2026-12-03T17:49:12.5Z", "2026-12-03T17:49:12Z").
std::string Rfc3339Nano(TimePoint t) {
  std::string s = FormatRfc3339(t);  // "...:SSZ"
  const int64_t nanos =
      (t.time_since_epoch() - std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()))
          .count();
  if (nanos == 0) return s;
  char frac[16];
  std::snprintf(frac, sizeof(frac), ".%09lld", static_cast<long long>(nanos));
  std::string f = frac;
  while (f.back() == '0') f.pop_back();
  s.insert(s.size() - 1, f);
  return s;
}

}  // namespace

std::string PodLogs::Key(std::string_view ns, std::string_view pod, std::string_view container) {
  std::string k(ns);
  k += '/';
  k += pod;
  k += '/';
  k += container;
  return k;
}

size_t PodLogs::FirstLine(const Stream& s, std::optional<int64_t> tail_lines) {
  if (!tail_lines) return 0;
  if (*tail_lines <= 0) return s.lines.size();
  const size_t n = static_cast<size_t>(*tail_lines);
  return s.lines.size() > n ? s.lines.size() - n : 0;
}

std::string PodLogs::Render(const Stream& s, size_t from, const LogReadOptions& options,
                            std::optional<int64_t>& budget) {
  std::string out;
  for (size_t i = from; i < s.lines.size(); ++i) {
    if (budget && *budget <= 0) break;
    const Line& line = s.lines[i];
    if (options.since && line.at < *options.since) continue;
    const uint64_t end = i + 1 < s.lines.size() ? s.lines[i + 1].offset : s.dropped + s.text.size();
    std::string piece;
    if (options.timestamps) piece = Rfc3339Nano(line.at) + " ";
    piece.append(s.text, line.offset - s.dropped, end - line.offset);
    if (budget && static_cast<int64_t>(piece.size()) > *budget) piece.resize(*budget);
    if (budget) *budget -= static_cast<int64_t>(piece.size());
    out += piece;
  }
  return out;
}

void PodLogs::Append(std::string_view ns, std::string_view pod, std::string_view container,
                     std::string_view text) {
  const TimePoint now = clock_ != nullptr ? clock_->Now() : TimePoint{};
  std::lock_guard<std::mutex> lock(mu_);
  Stream& s = streams_[Key(ns, pod, container)];
  // A line starts where the text ended on a newline (or at the very start).
  uint64_t at = s.dropped + s.text.size();
  bool line_start = s.text.empty() || s.text.back() == '\n';
  for (size_t i = 0; i < text.size(); ++i) {
    if (line_start) s.lines.push_back({at + i, now});
    line_start = text[i] == '\n';
  }
  s.text.append(text);
  if (s.text.size() > max_bytes_) {
    size_t cut = s.text.size() - max_bytes_;
    const size_t nl = s.text.find('\n', cut);
    cut = nl == std::string::npos ? s.text.size() : nl + 1;
    s.text.erase(0, cut);
    s.dropped += cut;
    while (!s.lines.empty() && s.lines.front().offset < s.dropped) s.lines.pop_front();
  }
  cv_.notify_all();
}

void PodLogs::Finish(std::string_view ns, std::string_view pod, std::string_view container) {
  std::lock_guard<std::mutex> lock(mu_);
  streams_[Key(ns, pod, container)].finished = true;
  cv_.notify_all();
}

void PodLogs::Remove(std::string_view ns, std::string_view pod) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string prefix = std::string(ns) + "/" + std::string(pod) + "/";
  for (auto it = streams_.lower_bound(prefix);
       it != streams_.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
    it = streams_.erase(it);
  }
  cv_.notify_all();
}

std::string PodLogs::Read(std::string_view ns, std::string_view pod, std::string_view container,
                          const LogReadOptions& options) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(Key(ns, pod, container));
  if (it == streams_.end()) return "";
  std::optional<int64_t> budget = options.limit_bytes;
  return Render(it->second, FirstLine(it->second, options.tail_lines), options, budget);
}

void PodLogs::Follow(std::string_view ns, std::string_view pod, std::string_view container,
                     const LogReadOptions& options,
                     const std::function<bool(std::string_view)>& write,
                     const std::function<bool()>& cancelled) const {
  const std::string key = Key(ns, pod, container);
  std::optional<int64_t> budget = options.limit_bytes;
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t offset = 0;  // absolute: everything before it was written (or skipped)
  {
    auto it = streams_.find(key);
    std::string first;
    if (it != streams_.end()) {
      first = Render(it->second, FirstLine(it->second, options.tail_lines), options, budget);
      offset = it->second.dropped + it->second.text.size();
    }
    lock.unlock();
    if (!first.empty() && !write(first)) return;
    lock.lock();
  }
  while (true) {
    if (budget && *budget <= 0) return;
    auto it = streams_.find(key);
    std::string chunk;
    bool finished = false;
    if (it != streams_.end()) {
      const Stream& s = it->second;
      const uint64_t end = s.dropped + s.text.size();
      if (end > offset) {
        size_t from = 0;
        while (from < s.lines.size() && s.lines[from].offset < offset) ++from;
        chunk = Render(s, from, options, budget);
        offset = end;
      }
      finished = s.finished;
    } else if (offset > 0) {
      finished = true;  // the pod went away
    }
    if (!chunk.empty()) {
      lock.unlock();
      if (!write(chunk)) return;
      lock.lock();
      continue;
    }
    if (finished) return;
    lock.unlock();
    if (cancelled()) return;
    lock.lock();
    // A transport-level wait on the condition variable's own clock, not emulated time.
    cv_.wait_for(lock, std::chrono::seconds(1));
  }
}

}  // namespace tidepool::apiserver
