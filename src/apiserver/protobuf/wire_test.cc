// File: wire_test.cc
//
// Tests for the protobuf wire reader: every wire type, and gogo's error texts for malformed
// input.
#include "apiserver/protobuf/wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tidepool::apiserver::protobuf {
namespace {

using std::string_literals::operator""s;

TEST(WireReaderTest, ReadsEachWireType) {
  struct Case {
    std::string name;
    std::string data;
    uint32_t number;
    WireType type;
    uint64_t varint;
    std::string bytes;
  };
  const std::vector<Case> cases = {
      {"one-byte varint", "\x08\x05"s, 1, WireType::kVarint, 5, ""},
      {"multi-byte varint (300)", "\x10\xac\x02"s, 2, WireType::kVarint, 300, ""},
      {"ten-byte varint (-1 as int64)", "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s, 1,
       WireType::kVarint, ~uint64_t{0}, ""},
      {"fixed64 is little-endian", "\x09\x01\x02\x03\x04\x05\x06\x07\x08"s, 1, WireType::kFixed64,
       0x0807060504030201, ""},
      {"fixed32 is little-endian", "\x0d\x01\x02\x03\x04"s, 1, WireType::kFixed32, 0x04030201, ""},
      {"length-delimited", "\x12\x03mig"s, 2, WireType::kBytes, 0, "mig"},
      {"empty length-delimited", "\x1a\x00"s, 3, WireType::kBytes, 0, ""},
      {"two-byte key (field 17)", "\x8a\x01\x01x"s, 17, WireType::kBytes, 0, "x"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Reader r(tc.data, "Test");
    ASSERT_FALSE(r.Done());
    auto f = r.Next();
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_EQ(f->number, tc.number);
    EXPECT_EQ(f->type, tc.type);
    EXPECT_EQ(f->varint, tc.varint);
    EXPECT_EQ(f->bytes, tc.bytes);
    EXPECT_TRUE(r.Done());
  }
}

TEST(WireReaderTest, ReadsFieldsInOrder) {
  const std::string data = "\x0a\x02v1\x12\x09\x43onfigMap\x18\x01"s;
  Reader r(data, "Test");
  std::vector<uint32_t> numbers;
  while (!r.Done()) {
    auto f = r.Next();
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    numbers.push_back(f->number);
  }
  EXPECT_EQ(numbers, (std::vector<uint32_t>{1, 2, 3}));
}

TEST(WireReaderTest, MalformedInputIsInvalidArgumentWithGogoTexts) {
  struct Case {
    std::string name;
    std::string data;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"truncated key", "\x80"s, "unexpected EOF"},
      {"truncated varint value", "\x08\xff"s, "unexpected EOF"},
      {"varint longer than 10 bytes", "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s,
       "proto: integer overflow"},
      {"length past the end", "\x12\x05mig"s, "unexpected EOF"},
      {"length that is negative as int64", "\x12\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s,
       "proto: negative length found during unmarshaling"},
      {"truncated fixed64", "\x09\x01\x02"s, "unexpected EOF"},
      {"truncated fixed32", "\x0d\x01"s, "unexpected EOF"},
      {"field number 0", "\x00\x01"s, "proto: Test: illegal tag 0 (wire type 0)"},
      {"field number 0, the whole key printed", "\x02\x00"s,
       "proto: Test: illegal tag 0 (wire type 2)"},
      {"field number negative as int32", "\xf8\xff\xff\xff\x7f"s,
       "proto: Test: illegal tag -1 (wire type 34359738360)"},
      {"end group without a group", "\x0c"s, "proto: Test: wiretype end group for non-group"},
      {"start group", "\x0b"s, "proto: illegal wireType 3"},
      {"wire type 6", "\x0e"s, "proto: illegal wireType 6"},
      {"wire type 7", "\x0f"s, "proto: illegal wireType 7"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Reader r(tc.data, "Test");
    auto f = r.Next();
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(f.status().message(), tc.want);
  }
}

TEST(WireReaderTest, TypedAccessorsCheckTheWireType) {
  Field varint{.number = 1, .type = WireType::kVarint, .varint = 7};
  Field bytes{.number = 1, .type = WireType::kBytes, .bytes = "abc"};
  EXPECT_EQ(*VarintValue(varint, "Generation"), 7u);
  EXPECT_EQ(*BytesValue(bytes, "Name"), "abc");
  EXPECT_EQ(BytesValue(varint, "Name").status().message(),
            "proto: wrong wireType = 0 for field Name");
  EXPECT_EQ(VarintValue(bytes, "Generation").status().message(),
            "proto: wrong wireType = 2 for field Generation");
  EXPECT_EQ(VarintValue(bytes, "Generation").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tidepool::apiserver::protobuf
