// File: field_error.h
//
// Field-level validation errors in apimachinery's shape (k8s.io/apimachinery/pkg/util/validation/
// field): "spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: \"2\": must be
// equal to nvidia.com/gpu limit of 1".
#pragma once

#include <string>
#include <vector>

namespace tidepool::api {

struct FieldError {
  enum class Type { kInvalid, kRequired, kForbidden, kNotSupported, kDuplicate };
  Type type = Type::kInvalid;
  std::string field;
  std::string value;  // already rendered; empty for Required/Forbidden
  std::string detail;

  static FieldError Invalid(std::string field, std::string value, std::string detail);
  static FieldError Required(std::string field, std::string detail);
  static FieldError Forbidden(std::string field, std::string detail);

  // field.Error.Error(): "<field>: <Type>: <value>: <detail>".
  std::string ToString() const;
};

using FieldErrors = std::vector<FieldError>;

// utilerrors.NewAggregate(...).Error(): one error prints alone, several as "[e1, e2]".
std::string AggregateMessage(const FieldErrors& errors);

}  // namespace tidepool::api
