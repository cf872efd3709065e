// File: speed.h
//
// `tidepool up --speed N` divides every emulated duration by N. Each options struct that owns
// Duration members declares all of them once, beside the members, in one member template:
//
//   struct KubeletOptions {
//     Duration start_delay = std::chrono::seconds(5);
//     ...
//     template <typename F>
//     void ForEachDuration(F&& f) {
//       f("startDelay", start_delay, TimeBase::kEmulated);
//       ...
//     }
//   };
//
// and a struct that holds other options structs visits them through their own ForEachDuration
// (WithPrefix names them "cloud.delays.provisioning"). `f` is called as
// f(std::string_view name, Duration& value, TimeBase base), in declaration order.
//
// TimeBase says what a duration measures:
//   kEmulated  time inside the emulated cluster: VM boot and deletion, kubelet steps, the
//              scheduler's backoffs, the autoscaler's intervals and timeouts, event TTL.
//              --speed divides it.
//   kReal      a real-world deadline or interval between tidepool and real programs (HTTP
//              timeouts, watch bookmarks sent to real clients, leader election against a real
//              cluster), or a wait for this machine's own work to be seen (the floor of the
//              controllers' expectations timeouts: their informers' lag). Never divided: the
//              other side keeps real time, and this machine's work does not speed up with
//              --speed.
//
// DivideEmulatedDurations(options, speed) is the one function that applies --speed; it is
// used on every options struct `tidepool up` builds (runtime/up_options.h), and
// runtime/up_options_test.cc checks, with an enumeration of the structs' members that does not
// go through ForEachDuration (Boost.PFR), that no Duration member is missing from a visitor.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include "common/clock.h"

namespace tidepool {

enum class TimeBase {
  kEmulated,  // divided by --speed
  kReal,      // never divided
};

// d / speed, rounded to the nearest nanosecond. REQUIRES: speed > 0.
inline Duration DivideDuration(Duration d, double speed) {
  return Duration(static_cast<Duration::rep>(std::llround(static_cast<double>(d.count()) / speed)));
}

// Divides every kEmulated duration `options.ForEachDuration` lists by `speed` (1: no change).
// REQUIRES: speed > 0.
template <typename Options>
void DivideEmulatedDurations(Options& options, double speed) {
  options.ForEachDuration([speed](std::string_view, Duration& d, TimeBase base) {
    if (base == TimeBase::kEmulated) {
      d = DivideDuration(d, speed);
    }
  });
}

// Wraps a ForEachDuration visitor so that the names it sees start with `prefix` (e.g.
// "kubelet."). Both must outlive the wrapper.
template <typename F>
auto WithPrefix(std::string_view prefix, F& f) {
  return [prefix, &f](std::string_view name, Duration& d, TimeBase base) {
    std::string full(prefix);
    full += name;
    f(std::string_view(full), d, base);
  };
}

}  // namespace tidepool
