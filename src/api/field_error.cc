#include "api/field_error.h"

namespace tidepool::api {

FieldError FieldError::Invalid(std::string field, std::string value, std::string detail) {
  return FieldError{Type::kInvalid, std::move(field), std::move(value), std::move(detail)};
}
FieldError FieldError::Required(std::string field, std::string detail) {
  return FieldError{Type::kRequired, std::move(field), "", std::move(detail)};
}
FieldError FieldError::Forbidden(std::string field, std::string detail) {
  return FieldError{Type::kForbidden, std::move(field), "", std::move(detail)};
}

std::string FieldError::ToString() const {
  std::string out = field + ": ";
  switch (type) {
    case Type::kInvalid:
      out += "Invalid value: \"" + value + "\"";
      break;
    case Type::kRequired:
      out += "Required value";
      break;
    case Type::kForbidden:
      out += "Forbidden";
      break;
    case Type::kNotSupported:
      out += "Unsupported value: \"" + value + "\"";
      break;
    case Type::kDuplicate:
      out += "Duplicate value: \"" + value + "\"";
      break;
  }
  if (!detail.empty()) {
    out += ": " + detail;
  }
  return out;
}

std::string AggregateMessage(const FieldErrors& errors) {
  if (errors.size() == 1) {
    return errors[0].ToString();
  }
  std::string out = "[";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += errors[i].ToString();
  }
  out += "]";
  return out;
}

}  // namespace tidepool::api
