#include "common/random.h"

#include <gtest/gtest.h>

#include <vector>

namespace tidepool {
namespace {

TEST(RandomTest, SameSeedSameSequence) {
  Random a(42), b(42), c(43);
  std::vector<uint64_t> va, vb, vc;
  for (int i = 0; i < 100; ++i) {
    va.push_back(a.Next());
    vb.push_back(b.Next());
    vc.push_back(c.Next());
  }
  EXPECT_EQ(va, vb);
  EXPECT_NE(va, vc);
}

TEST(RandomTest, SequenceIsPinned) {
  // The sequence for a seed is part of the replay contract: a change here changes every
  // recorded simulation.
  Random r(1);
  EXPECT_EQ(r.Next(), 0xb3f2af6d0fc710c5ULL);
}

TEST(RandomTest, UniformStaysInRangeAndCoversIt) {
  Random r(7);
  std::vector<int> hits(10, 0);
  for (int i = 0; i < 10000; ++i) {
    uint64_t v = r.Uniform(10);
    ASSERT_LT(v, 10u);
    ++hits[v];
  }
  for (int h : hits) {
    EXPECT_GT(h, 800);
    EXPECT_LT(h, 1200);
  }
  for (int i = 0; i < 1000; ++i) {
    double d = r.UniformDouble();
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
  }
  EXPECT_FALSE(r.Bernoulli(0));
  EXPECT_TRUE(r.Bernoulli(1));
}

}  // namespace
}  // namespace tidepool
