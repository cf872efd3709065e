#include "apiserver/pod_logs.h"

#include <chrono>

namespace tidepool::apiserver {

std::string PodLogs::Key(std::string_view ns, std::string_view pod, std::string_view container) {
  std::string k(ns);
  k += '/';
  k += pod;
  k += '/';
  k += container;
  return k;
}

std::string PodLogs::Tail(const std::string& text, std::optional<int64_t> tail_lines) {
  if (!tail_lines) return text;
  if (*tail_lines <= 0) return "";
  size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  int64_t n = 0;
  while (pos > 0) {
    if (text[pos - 1] == '\n' && ++n == *tail_lines) break;
    --pos;
  }
  return text.substr(pos);
}

void PodLogs::Append(std::string_view ns, std::string_view pod, std::string_view container,
                     std::string_view text) {
  std::lock_guard<std::mutex> lock(mu_);
  Stream& s = streams_[Key(ns, pod, container)];
  s.text.append(text);
  if (s.text.size() > max_bytes_) {
    size_t cut = s.text.size() - max_bytes_;
    const size_t nl = s.text.find('\n', cut);
    cut = nl == std::string::npos ? s.text.size() : nl + 1;
    s.text.erase(0, cut);
    s.dropped += cut;
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
                          std::optional<int64_t> tail_lines) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(Key(ns, pod, container));
  if (it == streams_.end()) return "";
  return Tail(it->second.text, tail_lines);
}

void PodLogs::Follow(std::string_view ns, std::string_view pod, std::string_view container,
                     std::optional<int64_t> tail_lines,
                     const std::function<bool(std::string_view)>& write,
                     const std::function<bool()>& cancelled) const {
  const std::string key = Key(ns, pod, container);
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t offset = 0;  // absolute
  {
    auto it = streams_.find(key);
    std::string first;
    if (it != streams_.end()) {
      first = Tail(it->second.text, tail_lines);
      offset = it->second.dropped + it->second.text.size();
    }
    lock.unlock();
    if (!first.empty() && !write(first)) return;
    lock.lock();
  }
  while (true) {
    auto it = streams_.find(key);
    std::string chunk;
    bool finished = false;
    if (it != streams_.end()) {
      const Stream& s = it->second;
      const uint64_t end = s.dropped + s.text.size();
      if (end > offset) {
        const uint64_t from = offset < s.dropped ? 0 : offset - s.dropped;
        chunk = s.text.substr(from);
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
