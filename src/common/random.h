// File: random.h
//
// A small, seeded pseudo-random generator (xoshiro256** seeded through splitmix64). Every random
// draw in tidepool goes through an injected Random so that runs replay exactly for one seed. The
// sequence depends only on the seed, on every platform (std:: distributions are not portable,
// so none are used). Not thread-safe.
#pragma once

#include <cstdint>

namespace tidepool {

class Random {
 public:
  explicit Random(uint64_t seed);

  uint64_t seed() const { return seed_; }
  // Uniform over all 64-bit values.
  uint64_t Next();
  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n);
  // Uniform in [0, 1).
  double UniformDouble();
  // True with probability p (clamped to [0, 1]).
  bool Bernoulli(double p);

 private:
  uint64_t seed_;
  uint64_t s_[4];
};

// The `index`-th of the independent streams derived from one seed (the index-th draw of
// Random(seed)): the cloud's, the autoscaler's, ... of one run.
uint64_t SubSeed(uint64_t seed, int index);

}  // namespace tidepool
