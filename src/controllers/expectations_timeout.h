// File: expectations_timeout.h
//
// ExpectationsTimeout: how long the ReplicaSet, DaemonSet and Job controllers trust their record
// of the pods they created or deleted and have not yet seen in their informers before they count
// from the informer's cache again - kcm's controller.ExpectationsTimeout, 5 minutes.
//
// The 5 minutes are emulated time, divided by --speed in `up`; but what they wait out is the
// informers' lag, which is work on this machine and does not shrink with --speed. At 600x they
// were 0.5 s, less than the lag under load, and a ReplicaSet of 2,000 replicas made 40 pods too
// many (and the autoscaler nodes for them). So the wait is never shorter than `floor`, real time:
// 30 s, longer than any lag seen, and short enough that a creation the informer never shows (a
// pod created and deleted while its watch was being re-listed) holds the controller 30 real
// seconds rather than kcm's 5 minutes times the speed. Without --speed (and in `simulate`) the
// floor changes nothing.
#pragma once

#include <algorithm>
#include <chrono>

#include "common/clock.h"
#include "common/speed.h"

namespace tidepool::controllers {

struct ExpectationsTimeout {
  Duration timeout = std::chrono::minutes(5);  // emulated
  Duration floor = std::chrono::seconds(30);   // real

  Duration get() const { return std::max(timeout, floor); }

  template <typename F>
  void ForEachDuration(F&& f) {
    f("expectationsTimeout", timeout, TimeBase::kEmulated);
    f("expectationsTimeoutFloor", floor, TimeBase::kReal);
  }
};

}  // namespace tidepool::controllers
