#include "api/field_error.h"

#include "common/go_quote.h"

namespace tidepool::api {

FieldError FieldError::Invalid(std::string field, std::string value, std::string detail) {
  return FieldError{Type::kInvalid, std::move(field), std::move(value), std::move(detail)};
}
FieldError FieldError::InvalidRaw(std::string field, std::string rendered, std::string detail) {
  FieldError e{Type::kInvalid, std::move(field), std::move(rendered), std::move(detail)};
  e.quote = false;
  return e;
}
namespace {
std::string SupportedValues(const std::vector<std::string>& supported) {
  if (supported.empty()) return "";
  std::string out = "supported values: ";
  for (size_t i = 0; i < supported.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(supported[i]);
  }
  return out;
}
}  // namespace
FieldError FieldError::NotSupported(std::string field, std::string value,
                                    const std::vector<std::string>& supported) {
  return FieldError{Type::kNotSupported, std::move(field), std::move(value),
                    SupportedValues(supported)};
}
FieldError FieldError::NotSupportedRaw(std::string field, std::string rendered,
                                       const std::vector<std::string>& supported) {
  FieldError e = NotSupported(std::move(field), std::move(rendered), supported);
  e.quote = false;
  return e;
}
FieldError FieldError::Duplicate(std::string field, std::string value) {
  return FieldError{Type::kDuplicate, std::move(field), std::move(value), ""};
}
FieldError FieldError::TooLong(std::string field, long long max_bytes) {
  return FieldError{Type::kTooLong, std::move(field), "",
                    "must have at most " + std::to_string(max_bytes) + " bytes"};
}
FieldError FieldError::TooMany(std::string field, long long actual, long long max) {
  FieldError e{Type::kTooMany, std::move(field), std::to_string(actual),
               "must have at most " + std::to_string(max) + " items"};
  e.quote = false;
  return e;
}
FieldError FieldError::Required(std::string field, std::string detail) {
  return FieldError{Type::kRequired, std::move(field), "", std::move(detail)};
}
FieldError FieldError::Forbidden(std::string field, std::string detail) {
  return FieldError{Type::kForbidden, std::move(field), "", std::move(detail)};
}

std::string FieldError::ToString() const {
  std::string out = field + ": ";
  const std::string shown = quote ? GoQuote(value) : value;  // %q, or rendered by the caller
  switch (type) {
    case Type::kInvalid:
      out += "Invalid value: " + shown;
      break;
    case Type::kRequired:
      out += "Required value";
      break;
    case Type::kForbidden:
      out += "Forbidden";
      break;
    case Type::kNotSupported:
      out += "Unsupported value: " + shown;
      break;
    case Type::kDuplicate:
      out += "Duplicate value: " + shown;
      break;
    case Type::kTooLong:
      out += "Too long";
      break;
    case Type::kTooMany:
      out += "Too many: " + value;
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
