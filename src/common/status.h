// File: status.h
//
// Status is tidepool's error value. No exception crosses a module boundary: every fallible
// function returns [[nodiscard]] Status or StatusOr<T>. The shape follows leveldb's Status
// (a success costs one null pointer) with abseil's canonical codes. How to choose a code:
//   - kUnavailable        the caller can retry just the failing call;
//   - kAborted            retry at a higher level (e.g. a resourceVersion conflict, HTTP 409);
//   - kFailedPrecondition do not retry until the system state is fixed;
//   - kInvalidArgument    the input itself is wrong (HTTP 422 Invalid for API objects);
//   - kNotFound / kAlreadyExists as in Kubernetes' StatusReasonNotFound / AlreadyExists.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace tidepool {

enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// Returns the canonical name of `code`, e.g. "INVALID_ARGUMENT".
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  // Success.
  Status() noexcept = default;
  Status(StatusCode code, std::string_view message);

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept = default;
  Status& operator=(Status&& other) noexcept = default;

  static Status Ok() { return Status(); }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  // The message without the code; empty on success.
  std::string_view message() const;
  // "OK" or "INVALID_ARGUMENT: <message>".
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>". Success stays success.
  Status WithPrefix(std::string_view prefix) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  std::unique_ptr<Rep> rep_;
};

inline Status OkStatus() { return Status(); }
Status InvalidArgumentError(std::string_view message);
Status NotFoundError(std::string_view message);
Status AlreadyExistsError(std::string_view message);
Status FailedPreconditionError(std::string_view message);
Status AbortedError(std::string_view message);
Status OutOfRangeError(std::string_view message);
Status InternalError(std::string_view message);
Status UnavailableError(std::string_view message);
Status UnimplementedError(std::string_view message);
Status ResourceExhaustedError(std::string_view message);

}  // namespace tidepool
