// The only file in tidepool that reads the operating system's clock.
#include "common/clock.h"

namespace tidepool {

TimePoint RealClock::Now() const {
  return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
}

}  // namespace tidepool
