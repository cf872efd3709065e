// File: field_error.h
//
// Field-level validation errors in apimachinery's shape (k8s.io/apimachinery/pkg/util/validation/
// field): "spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: \"2\": must be
// equal to nvidia.com/gpu limit of 1".
//
// `value` holds the bad value as field.Error.ErrorBody prints it. Invalid, NotSupported and
// Duplicate take a string and print it quoted (Go's %q); the *Raw factories take a value
// already rendered the way ErrorBody renders non-strings (%v of numbers and booleans: `-5`;
// %#v of maps and structs: `map[string]string{"app":"x"}`) and print it as it is.
#pragma once

#include <string>
#include <vector>

namespace tidepool::api {

struct FieldError {
  enum class Type {
    kInvalid,
    kRequired,
    kForbidden,
    kNotSupported,
    kDuplicate,
    kTooLong,
    kTooMany
  };
  Type type = Type::kInvalid;
  std::string field;
  std::string value;  // unquoted string or rendered value; empty for Required/Forbidden/TooLong
  std::string detail;
  bool quote = true;  // print `value` as a Go string (%q)

  static FieldError Invalid(std::string field, std::string value, std::string detail);
  // Invalid with a value rendered by the caller: InvalidRaw("spec.replicas", "-5", ...).
  static FieldError InvalidRaw(std::string field, std::string rendered, std::string detail);
  static FieldError Required(std::string field, std::string detail);
  static FieldError Forbidden(std::string field, std::string detail);
  // field.NotSupported: detail "supported values: \"a\", \"b\"" (none when `supported` is empty).
  static FieldError NotSupported(std::string field, std::string value,
                                 const std::vector<std::string>& supported);
  static FieldError NotSupportedRaw(std::string field, std::string rendered,
                                    const std::vector<std::string>& supported);
  static FieldError Duplicate(std::string field, std::string value);
  // field.TooLong: "Too long: must have at most <max_bytes> bytes" (the value is not printed).
  static FieldError TooLong(std::string field, long long max_bytes);
  // field.TooMany: "Too many: <actual>: must have at most <max> items".
  static FieldError TooMany(std::string field, long long actual, long long max);

  // field.Error.Error(): "<field>: <Type>: <value>: <detail>".
  std::string ToString() const;
};

using FieldErrors = std::vector<FieldError>;

// utilerrors.NewAggregate(...).Error(): one error prints alone, several as "[e1, e2]".
std::string AggregateMessage(const FieldErrors& errors);

}  // namespace tidepool::api
