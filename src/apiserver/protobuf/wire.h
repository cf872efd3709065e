// File: wire.h
//
// The protobuf wire format (https://protobuf.dev/programming-guides/encoding/), just enough to
// write fields (the Put* functions below) and to read the proto2 messages of Kubernetes'
// generated.proto files as their gogo-generated Go Unmarshal methods read them:
//   - a field is a varint key (number << 3 | wire type) and a value: a varint (type 0), 8 or 4
//     little-endian bytes (types 1 and 5, read as a number into Field::varint), or a varint
//     length and that many bytes (type 2: strings, bytes, embedded messages, map entries);
//   - groups (types 3 and 4) do not occur in Kubernetes' messages and are errors;
//   - the caller decides what a field number means; unknown fields are skipped by ignoring them,
//     as gogo's skipGenerated does.
// Errors are InvalidArgument with the texts of gogo's generated code, so a client sees what
// kube-apiserver would have said: "unexpected EOF" (a value runs past the end),
// "proto: integer overflow" (a varint longer than 10 bytes),
// "proto: negative length found during unmarshaling", "proto: ConfigMap: illegal tag 0 (wire
// type 0)", "proto: ConfigMap: wiretype end group for non-group", "proto: illegal wireType 6",
// and, from the typed accessors, "proto: wrong wireType = 0 for field Name".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status_or.h"

namespace tidepool::apiserver::protobuf {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kBytes = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// One field as read from the wire. The value is in `varint` (types 0, 1, 5) or `bytes` (type 2,
// a view into the reader's input).
struct Field {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t varint = 0;
  std::string_view bytes;
};

// Reads the fields of one message, front to back. Not thread-safe; views into `data`, which
// must outlive the reader and the Fields it returns.
class Reader {
 public:
  // `message` names the message in errors ("ObjectMeta"), as gogo's texts do.
  Reader(std::string_view data, std::string_view message) : data_(data), message_(message) {}

  bool Done() const { return pos_ >= data_.size(); }

  // The next field. REQUIRES: !Done().
  StatusOr<Field> Next();

 private:
  StatusOr<uint64_t> ReadVarint();

  std::string_view data_;
  std::string_view message_;
  size_t pos_ = 0;
};

// The value of `f` if it has the expected wire type, else InvalidArgument
// "proto: wrong wireType = <type> for field <go_name>" (`go_name` is the Go field name, "Name").
StatusOr<std::string_view> BytesValue(const Field& f, std::string_view go_name);
StatusOr<uint64_t> VarintValue(const Field& f, std::string_view go_name);

// The writer: fields appended to `out` (a varint key, then the value).
void PutVarint(std::string& out, uint64_t v);
void PutKey(std::string& out, uint32_t number, WireType type);
void PutVarintField(std::string& out, uint32_t number, uint64_t v);
// Type 2: strings, bytes and embedded messages (`data` is the message's encoding).
void PutBytesField(std::string& out, uint32_t number, std::string_view data);
// Type 1: a double's IEEE 754 bits, little-endian.
void PutDoubleField(std::string& out, uint32_t number, double v);

}  // namespace tidepool::apiserver::protobuf
