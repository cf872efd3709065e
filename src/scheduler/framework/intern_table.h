// File: intern_table.h
//
// A process-wide table of immutable values shared by everything equal to them (PodClass for
// pods of one controller, NodeShape for nodes of one pool). Values are found by a key (a hash
// or fingerprint) and then compared in full by the caller's predicate, so two different values
// never merge, even when their keys collide. Entries are weak: a value removes itself (under
// the table's mutex) when its last holder goes. Tables are meant to live forever (allocated
// with new and never destroyed), so that holders in static storage may outlive everything else.
//   static auto* table = new InternTable<NodeShape, uint64_t>();
//   std::shared_ptr<const NodeShape> s = table->Intern(hash, same_as_node, make_from_node);
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace tidepool::scheduler {

template <typename Value, typename Key>
class InternTable {
 public:
  // The live value under `key` for which `same(const Value&)` holds; else `make()` (returning
  // a new Value*, called outside the mutex) inserted, unless another thread inserted an equal
  // value meanwhile, which is then returned instead.
  template <typename Same, typename Make>
  std::shared_ptr<const Value> Intern(const Key& key, const Same& same, const Make& make) {
    // Candidates locked below are released after the mutex, since releasing the last reference
    // runs the deleter, which takes the mutex.
    std::vector<std::shared_ptr<const Value>> seen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = by_key_.find(key);
      if (it != by_key_.end()) {
        for (const auto& [raw, weak] : it->second) {
          std::shared_ptr<const Value> v = weak.lock();
          if (v != nullptr && same(*v)) {
            return v;
          }
          seen.push_back(std::move(v));
        }
      }
    }
    const Value* fresh = make();
    std::shared_ptr<const Value> made(fresh, [this, key](const Value* p) { Release(key, p); });
    std::lock_guard<std::mutex> lock(mu_);
    auto& bucket = by_key_[key];
    for (const auto& [raw, weak] : bucket) {
      std::shared_ptr<const Value> other = weak.lock();
      if (other != nullptr && same(*other)) {
        seen.push_back(std::move(made));  // released after the mutex
        return other;
      }
      seen.push_back(std::move(other));
    }
    bucket.emplace_back(fresh, made);
    ++live_;
    return made;
  }

  size_t NumLive() {
    std::lock_guard<std::mutex> lock(mu_);
    return live_;
  }

 private:
  void Release(const Key& key, const Value* p) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = by_key_.find(key);
      if (it != by_key_.end()) {
        auto& v = it->second;
        for (size_t i = 0; i < v.size(); ++i) {
          if (v[i].first == p) {
            v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
            --live_;
            break;
          }
        }
        if (v.empty()) {
          by_key_.erase(it);
        }
      }
    }
    delete p;
  }

  std::mutex mu_;
  // Several entries per key only on a collision (or while a dying value awaits removal).
  std::map<Key, std::vector<std::pair<const Value*, std::weak_ptr<const Value>>>> by_key_;
  size_t live_ = 0;
};

}  // namespace tidepool::scheduler
