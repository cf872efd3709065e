// File: pod_fingerprint.h
//
// A 128-bit fingerprint of what makes two pods interchangeable for scheduling: their labels and
// every modeled field of their spec (of volumes, the claims they name). Pods with equal
// fingerprints are treated as equal by the autoscaler's pod equivalence groups (CA compares labels
// with DeepEqual and specs with PodSpecSemanticallyEqual); computing it once per pod, instead of
// comparing specs on every loop, is what keeps grouping 10,000 pending pods under a millisecond.
// Two independent 64-bit hashes over a length-prefixed canonical encoding: the chance that two
// different pods collide is about 2^-128.
#pragma once

#include <cstdint>
#include <string_view>

#include "api/pod.h"

namespace tidepool::api {

struct PodFingerprint {
  uint64_t a = 0;
  uint64_t b = 0;
  friend bool operator==(const PodFingerprint&, const PodFingerprint&) = default;
};

PodFingerprint SchedulingFingerprint(const Pod& pod);
// The fingerprint `pod` would have with spec.nodeName set to `node_name`, without copying it.
PodFingerprint SchedulingFingerprintWithNodeName(const Pod& pod, std::string_view node_name);

}  // namespace tidepool::api
