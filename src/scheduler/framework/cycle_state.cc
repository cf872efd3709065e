#include "scheduler/framework/cycle_state.h"

#include <atomic>

namespace tidepool::scheduler {

size_t CycleState::NextTypeId() {
  static std::atomic<size_t> next{0};
  return next.fetch_add(1);
}

}  // namespace tidepool::scheduler
