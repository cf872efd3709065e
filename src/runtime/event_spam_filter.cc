#include "runtime/event_spam_filter.h"

#include <algorithm>
#include <chrono>

namespace tidepool::runtime {

bool EventSpamFilter::Allow(const std::string& key, TimePoint now) {
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    if (buckets_.size() >= kMaxKeys) {
      buckets_.erase(lru_.back());
      lru_.pop_back();
    }
    lru_.push_front(key);
    Bucket b;
    b.last = now;
    b.lru = lru_.begin();
    it = buckets_.emplace(key, b).first;
  } else {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
  }
  Bucket& b = it->second;
  // golang.org/x/time/rate: tokens accrue at kQps up to the burst; time never runs backwards.
  if (now > b.last) {
    const double elapsed = std::chrono::duration<double>(now - b.last).count();
    b.tokens = std::min<double>(kBurst, b.tokens + elapsed * kQps);
    b.last = now;
  }
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

}  // namespace tidepool::runtime
