// File: set_replace.h
//
// std::set whose elements carry their own key (a transparent comparator finds them by it):
// inserting, or replacing the element with the same key in place (the set's node is reused:
// extracted, given the new value, put back at the same place, so a replacement costs no
// allocation and no rebalancing search), and erasing by key.
#pragma once

#include <iterator>
#include <utility>

namespace tidepool {

// Replaces the element at `it` with `value`, which has the same key: the node is extracted,
// given the new value and put back at the same place.
template <typename Set, typename Value>
void ReplaceAt(Set& set, typename Set::iterator it, Value&& value) {
  auto hint = std::next(it);
  auto node = set.extract(it);
  node.value() = std::forward<Value>(value);
  set.insert(hint, std::move(node));
}

// Inserts `value`, or replaces the element whose key is `key` (the key of `value`).
template <typename Set, typename Key, typename Value>
void InsertOrReplace(Set& set, const Key& key, Value&& value) {
  auto it = set.find(key);
  if (it == set.end()) {
    set.insert(std::forward<Value>(value));
  } else {
    ReplaceAt(set, it, std::forward<Value>(value));
  }
}

// Erases the element whose key is `key`, if any (std::set's erase by a transparent key is
// C++23).
template <typename Set, typename Key>
void EraseKey(Set& set, const Key& key) {
  if (auto it = set.find(key); it != set.end()) set.erase(it);
}

}  // namespace tidepool
