#include "common/status.h"

#include <gtest/gtest.h>

#include "common/status_or.h"

namespace tidepool {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_TRUE(Status(StatusCode::kOk, "ignored").ok());
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s = InvalidArgumentError("quantities must match the regular expression");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "quantities must match the regular expression");
  EXPECT_EQ(s.ToString(), "INVALID_ARGUMENT: quantities must match the regular expression");
  Status copy = s;
  EXPECT_EQ(copy, s);
  EXPECT_EQ(s.WithPrefix("spec.containers[0]").message(),
            "spec.containers[0]: quantities must match the regular expression");
}

StatusOr<int> ParsePositive(int v) {
  if (v <= 0) {
    return OutOfRangeError("not positive");
  }
  return v;
}

StatusOr<int> Doubled(int v) {
  TIDEPOOL_ASSIGN_OR_RETURN(int x, ParsePositive(v));
  return 2 * x;
}

Status CheckBoth(int a, int b) {
  TIDEPOOL_RETURN_IF_ERROR(ParsePositive(a).status());
  TIDEPOOL_RETURN_IF_ERROR(ParsePositive(b).status());
  return OkStatus();
}

TEST(StatusOrTest, ValueAndErrorPropagate) {
  auto ok = Doubled(21);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 42);
  auto bad = Doubled(-1);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(CheckBoth(1, 2).ok());
  EXPECT_EQ(CheckBoth(1, 0).message(), "not positive");
}

TEST(StatusOrTest, OkStatusIsNotAValue) {
  StatusOr<int> s{OkStatus()};
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInternal);
}

TEST(StatusOrDeathTest, ValueOfErrorAborts) {
  StatusOr<int> s{NotFoundError("x")};
  EXPECT_DEATH((void)s.value(), "NOT_FOUND: x");
}

}  // namespace
}  // namespace tidepool
