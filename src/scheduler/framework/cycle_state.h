// File: cycle_state.h
//
// CycleState carries what plugins compute for one pod in one scheduling cycle (PreFilter's
// request vector, parsed affinity, ...). Keys are types, not strings: Read<T>() returns T* with
// no casts at the call site (kube-scheduler's string-keyed CycleState forces a cast per read).
// Not thread-safe; one CycleState per cycle.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace tidepool::scheduler {

class CycleState {
 public:
  struct Data {
    virtual ~Data() = default;
  };

  template <typename T>
  void Write(std::unique_ptr<T> value) {
    size_t id = TypeId<T>();
    if (slots_.size() <= id) {
      slots_.resize(id + 1);
    }
    slots_[id] = std::move(value);
  }

  // The value written for T in this cycle, or nullptr.
  template <typename T>
  const T* Read() const {
    size_t id = TypeId<T>();
    return id < slots_.size() ? static_cast<const T*>(slots_[id].get()) : nullptr;
  }
  template <typename T>
  T* Mutable() {
    size_t id = TypeId<T>();
    return id < slots_.size() ? static_cast<T*>(slots_[id].get()) : nullptr;
  }

  void Clear() { slots_.clear(); }

 private:
  static size_t NextTypeId();
  template <typename T>
  static size_t TypeId() {
    static const size_t id = NextTypeId();
    return id;
  }

  std::vector<std::unique_ptr<Data>> slots_;
};

}  // namespace tidepool::scheduler
