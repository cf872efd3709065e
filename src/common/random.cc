#include "common/random.h"

#include "common/check.h"

namespace tidepool {
namespace {

uint64_t SplitMix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Random::Random(uint64_t seed) : seed_(seed) {
  uint64_t x = seed;
  for (auto& s : s_) {
    s = SplitMix64(x);
  }
}

uint64_t Random::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

uint64_t Random::Uniform(uint64_t n) {
  TIDEPOOL_CHECK(n > 0);
  // Rejection sampling: no modulo bias.
  const uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
  uint64_t v;
  do {
    v = Next();
  } while (v >= limit);
  return v % n;
}

double Random::UniformDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

bool Random::Bernoulli(double p) {
  if (p <= 0) {
    return false;
  }
  if (p >= 1) {
    return true;
  }
  return UniformDouble() < p;
}

uint64_t SubSeed(uint64_t seed, int index) {
  Random r(seed);
  uint64_t v = 0;
  for (int i = 0; i <= index; ++i) v = r.Next();
  return v;
}

}  // namespace tidepool
