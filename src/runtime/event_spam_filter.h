// File: event_spam_filter.h
//
// EventSpamFilter: client-go's EventSourceObjectSpamFilter (tools/record/events_cache.go,
// v0.32), the last stage of every event recorder's EventCorrelator: events a source emits about
// one object (spam key: source component and host, the object's kind, namespace, name and uid,
// and the event's type) pass through a token bucket of 25 (defaultSpamBurst) refilled at one
// token every 300 s (defaultSpamQPS); an event finding no token is not written. Buckets are
// kept for the 4,096 most recently used keys (maxLruCacheEntries); a key that falls out starts
// with a full bucket again, as in client-go.
//
// So a pod the autoscaler cannot help gets at most 25 NotTriggerScaleUp writes, then one every
// 5 minutes (each carrying the count of the repeats in between: the recorder counts every
// repeat, as client-go's eventLogger does before the filter).
//
// Not thread-safe: the recorder's worker (or executor) alone calls it.
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

#include "common/clock.h"

namespace tidepool::runtime {

class EventSpamFilter {
 public:
  static constexpr int kBurst = 25;
  static constexpr double kQps = 1.0 / 300.0;
  static constexpr size_t kMaxKeys = 4096;

  // True when an event with spam key `key` at `now` may be written (takes a token).
  bool Allow(const std::string& key, TimePoint now);

  size_t keys() const { return buckets_.size(); }

 private:
  struct Bucket {
    double tokens = kBurst;
    TimePoint last{};
    std::list<std::string>::iterator lru;
  };
  std::unordered_map<std::string, Bucket> buckets_;
  std::list<std::string> lru_;  // most recently used first
};

}  // namespace tidepool::runtime
