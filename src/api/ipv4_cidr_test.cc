#include "api/ipv4_cidr.h"

#include <gtest/gtest.h>

namespace tidepool::api {
namespace {

TEST(Ipv4CidrTest, Parse) {
  struct Case {
    std::string text;
    std::string want;  // ToString, or the error message
    uint64_t size = 0;
  };
  const std::vector<Case> cases = {
      {"34.118.224.0/20", "34.118.224.0/20", 4096},
      {"10.0.0.0/24", "10.0.0.0/24", 256},
      {"10.100.7.9/16", "10.100.0.0/16", 65536},  // host bits cleared, as net.ParseCIDR
      {"0.0.0.0/0", "0.0.0.0/0", uint64_t{1} << 32},
      {"1.2.3.4/32", "1.2.3.4/32", 1},
      {"10.0.0.0", "invalid CIDR address: 10.0.0.0"},
      {"10.0.0.0/33", "invalid CIDR address: 10.0.0.0/33"},
      {"10.0.0.0/-1", "invalid CIDR address: 10.0.0.0/-1"},
      {"10.0.0.0/08", "invalid CIDR address: 10.0.0.0/08"},
      {"10.0.0/8", "invalid CIDR address: 10.0.0/8"},
      {"10.0.0.0/", "invalid CIDR address: 10.0.0.0/"},
      {"fd00::/108", "invalid CIDR address: fd00::/108"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    auto got = Ipv4Cidr::Parse(c.text);
    if (c.size == 0) {
      ASSERT_FALSE(got.ok());
      EXPECT_EQ(got.status().message(), c.want);
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->ToString(), c.want);
    EXPECT_EQ(got->size(), c.size);
  }
}

TEST(Ipv4CidrTest, ServiceRangeAddresses) {
  auto r = Ipv4Cidr::ParseServiceRange("10.0.0.0/24");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Ipv4String(r->Address(1)), "10.0.0.1");
  EXPECT_TRUE(r->Contains(*ParseIpv4("10.0.0.255")));
  EXPECT_FALSE(r->Contains(*ParseIpv4("10.0.1.0")));
  EXPECT_FALSE(r->Contains(*ParseIpv4("9.255.255.255")));
  auto small = Ipv4Cidr::ParseServiceRange("10.0.0.0/29");
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.status().message(),
            "specified service range is too small: the mask must be <= 28");
  auto big = Ipv4Cidr::ParseServiceRange("10.0.0.0/11");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(),
            "specified service range is too large; for 32-bit addresses, the mask must be >= 12");
}

}  // namespace
}  // namespace tidepool::api
