// File: wire.cc
#include "apiserver/protobuf/wire.h"

#include <cstring>
#include <limits>
#include <string>

namespace tidepool::apiserver::protobuf {
namespace {

Status UnexpectedEof() { return InvalidArgumentError("unexpected EOF"); }

Status WrongWireType(const Field& f, std::string_view go_name) {
  return InvalidArgumentError(
      "proto: wrong wireType = " + std::to_string(static_cast<int>(f.type)) + " for field " +
      std::string(go_name));
}

}  // namespace

StatusOr<uint64_t> Reader::ReadVarint() {
  uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    if (shift >= 64) {
      return InvalidArgumentError("proto: integer overflow");
    }
    if (pos_ >= data_.size()) {
      return UnexpectedEof();
    }
    const auto b = static_cast<uint8_t>(data_[pos_++]);
    value |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (b < 0x80) {
      return value;
    }
  }
}

StatusOr<Field> Reader::Next() {
  TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t key, ReadVarint());
  // As gogo: the field number is the low 32 bits of key >> 3, as an int32; the error prints the
  // whole key as the "wire type".
  const auto number = static_cast<int32_t>(static_cast<uint32_t>(key >> 3));
  const auto type = static_cast<uint32_t>(key & 7);
  if (type == static_cast<uint32_t>(WireType::kEndGroup)) {
    return InvalidArgumentError("proto: " + std::string(message_) +
                                ": wiretype end group for non-group");
  }
  if (number <= 0) {
    return InvalidArgumentError("proto: " + std::string(message_) + ": illegal tag " +
                                std::to_string(number) + " (wire type " + std::to_string(key) +
                                ")");
  }
  Field f;
  f.number = static_cast<uint32_t>(number);
  f.type = static_cast<WireType>(type);
  switch (f.type) {
    case WireType::kVarint: {
      TIDEPOOL_ASSIGN_OR_RETURN(f.varint, ReadVarint());
      return f;
    }
    case WireType::kFixed64:
    case WireType::kFixed32: {
      const size_t n = f.type == WireType::kFixed64 ? 8 : 4;
      if (data_.size() - pos_ < n) {
        return UnexpectedEof();
      }
      for (size_t i = 0; i < n; ++i) {
        f.varint |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
      }
      pos_ += n;
      return f;
    }
    case WireType::kBytes: {
      TIDEPOOL_ASSIGN_OR_RETURN(const uint64_t len, ReadVarint());
      if (len > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return InvalidArgumentError("proto: negative length found during unmarshaling");
      }
      if (len > data_.size() - pos_) {
        return UnexpectedEof();
      }
      f.bytes = data_.substr(pos_, static_cast<size_t>(len));
      pos_ += static_cast<size_t>(len);
      return f;
    }
    default:
      return InvalidArgumentError("proto: illegal wireType " + std::to_string(type));
  }
}

StatusOr<std::string_view> BytesValue(const Field& f, std::string_view go_name) {
  if (f.type != WireType::kBytes) {
    return WrongWireType(f, go_name);
  }
  return f.bytes;
}

StatusOr<uint64_t> VarintValue(const Field& f, std::string_view go_name) {
  if (f.type != WireType::kVarint) {
    return WrongWireType(f, go_name);
  }
  return f.varint;
}

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void PutKey(std::string& out, uint32_t number, WireType type) {
  PutVarint(out, static_cast<uint64_t>(number) << 3 | static_cast<uint64_t>(type));
}

void PutVarintField(std::string& out, uint32_t number, uint64_t v) {
  PutKey(out, number, WireType::kVarint);
  PutVarint(out, v);
}

void PutBytesField(std::string& out, uint32_t number, std::string_view data) {
  PutKey(out, number, WireType::kBytes);
  PutVarint(out, data.size());
  out.append(data);
}

void PutDoubleField(std::string& out, uint32_t number, double v) {
  PutKey(out, number, WireType::kFixed64);
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  for (int i = 0; i < 8; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xFF);
}

}  // namespace tidepool::apiserver::protobuf
