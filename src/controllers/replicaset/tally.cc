#include "controllers/replicaset/tally.h"

#include <cassert>
#include <utility>

namespace tidepool::controllers::replicaset {

void Tally::Counts::Add(const Counts& other) {
  replicas += other.replicas;
  fully_labeled += other.fully_labeled;
  ready += other.ready;
  available += other.available;
  if (other.recheck.has_value() && (!recheck.has_value() || *other.recheck < *recheck)) {
    recheck = other.recheck;
  }
}

Tally::Entry Tally::EntryOf(const PodFacts& pod) const {
  Entry e;
  e.matches = params_.selector.has_value() && params_.selector->Matches(pod.labels);
  e.counted = e.matches && pod.Active();
  if (e.counted) {
    e.fully_labeled = template_selector_.Matches(pod.labels);
    e.available_at = pod.AvailableAt(params_.min_ready);
  }
  return e;
}

void Tally::Add(const Entry& e, int sign) {
  if (!e.counted) return;
  replicas_ += sign;
  if (e.fully_labeled) fully_labeled_ += sign;
  if (e.pod->ready) ready_ += sign;
  if (!e.available_at.has_value()) return;
  if (*e.available_at <= last_now_) {
    available_ += sign;
  } else if (sign > 0) {
    pending_.insert(*e.available_at);
  } else {
    // Due after last_now_ when it was added, and CountsAt moves only what is due by then.
    auto it = pending_.find(*e.available_at);
    assert(it != pending_.end());
    pending_.erase(it);
  }
}

void Tally::Set(const std::string& key, PodFactsPtr pod) {
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    Add(it->second, -1);
    unmatched_.erase(key);
    entries_.erase(it);
  }
  if (pod == nullptr) return;
  Entry e = EntryOf(*pod);
  e.pod = std::move(pod);
  Add(e, +1);
  if (!e.matches && e.pod->Active()) unmatched_.emplace(key, e.pod);
  entries_.emplace(key, std::move(e));
}

Tally::Counts Tally::CountsAt(TimePoint now) {
  if (now < last_now_) {  // counted afresh from an earlier time
    available_ = 0;
    pending_.clear();
    last_now_ = TimePoint::min();
    for (const auto& [key, e] : entries_) {
      if (!e.counted || !e.available_at.has_value()) continue;
      if (*e.available_at <= last_now_) {
        ++available_;
      } else {
        pending_.insert(*e.available_at);
      }
    }
  }
  while (!pending_.empty() && *pending_.begin() <= now) {
    ++available_;
    pending_.erase(pending_.begin());
  }
  last_now_ = now;
  Counts c{replicas_, fully_labeled_, ready_, available_, std::nullopt};
  if (!pending_.empty()) c.recheck = *pending_.begin();
  return c;
}

Tally::Counts Tally::CountsOf(const PodFacts& pod, TimePoint now) const {
  const Entry e = EntryOf(pod);
  Counts c;
  if (!e.counted) return c;
  c.replicas = 1;
  c.fully_labeled = e.fully_labeled ? 1 : 0;
  c.ready = pod.ready ? 1 : 0;
  if (e.available_at.has_value()) {
    if (*e.available_at <= now) {
      c.available = 1;
    } else {
      c.recheck = e.available_at;
    }
  }
  return c;
}

std::vector<PodFactsPtr> Tally::Unmatched() const {
  std::vector<PodFactsPtr> out;
  out.reserve(unmatched_.size());
  for (const auto& [key, p] : unmatched_) out.push_back(p);
  return out;
}

std::vector<PodFactsPtr> Tally::Active() const {
  std::vector<PodFactsPtr> out;
  out.reserve(static_cast<size_t>(replicas_));
  for (const auto& [key, e] : entries_) {
    if (e.counted) out.push_back(e.pod);
  }
  return out;
}

}  // namespace tidepool::controllers::replicaset
