// File: status_or.h
//
// StatusOr<T> holds either a T or a non-OK Status (abseil's shape; std::expected is C++23).
// Accessing the value of an error StatusOr is a programming error and aborts.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <type_traits>
#include <utility>

#include "common/status.h"

namespace tidepool {

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // REQUIRES: !status.ok().
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) {
      status_ = Status(StatusCode::kInternal, "StatusOr constructed from an OK status");
    }
  }
  StatusOr(const T& value) : value_(value) {}        // NOLINT
  StatusOr(T&& value) : value_(std::move(value)) {}  // NOLINT
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, T> &&
                                        !std::is_same_v<std::decay_t<U>, Status> &&
                                        !std::is_same_v<std::decay_t<U>, StatusOr<T>>>>
  StatusOr(U&& value) : value_(T(std::forward<U>(value))) {}  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }

  const T& value() const& {
    CheckOk();
    return *value_;
  }
  T& value() & {
    CheckOk();
    return *value_;
  }
  T&& value() && {
    CheckOk();
    return std::move(*value_);
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  void CheckOk() const {
    if (!status_.ok()) {
      std::fprintf(stderr, "StatusOr::value() on error: %s\n", status_.ToString().c_str());
      std::abort();
    }
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace tidepool

#define TIDEPOOL_CONCAT_INNER_(a, b) a##b
#define TIDEPOOL_CONCAT_(a, b) TIDEPOOL_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define TIDEPOOL_RETURN_IF_ERROR(expr)                 \
  do {                                                 \
    ::tidepool::Status tidepool_status_ = (expr);      \
    if (!tidepool_status_.ok()) return tidepool_status_; \
  } while (0)

// `lhs` = value of `rexpr` (a StatusOr), or returns its error. Expands into several
// statements; it cannot be the body of an unbraced if.
#define TIDEPOOL_ASSIGN_OR_RETURN(lhs, rexpr) \
  TIDEPOOL_ASSIGN_OR_RETURN_IMPL_(TIDEPOOL_CONCAT_(tidepool_statusor_, __LINE__), lhs, rexpr)
#define TIDEPOOL_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                    \
  if (!tmp.ok()) return std::move(tmp).status();         \
  lhs = std::move(tmp).value()
