// File: set_replace.h
//
// Inserting into a std::set whose elements carry their own key (a transparent comparator
// finds them by it), or replacing the element with the same key in place: the set's node is
// reused (extracted, given the new value, put back at the same place), so a replacement costs
// no allocation and no rebalancing search.
#pragma once

#include <iterator>
#include <utility>

namespace tidepool {

// Inserts `value`, or replaces the element whose key is `key` (the key of `value`).
template <typename Set, typename Key, typename Value>
void InsertOrReplace(Set& set, const Key& key, Value&& value) {
  auto it = set.find(key);
  if (it == set.end()) {
    set.insert(std::forward<Value>(value));
    return;
  }
  auto hint = std::next(it);
  auto node = set.extract(it);
  node.value() = std::forward<Value>(value);
  set.insert(hint, std::move(node));
}

}  // namespace tidepool
