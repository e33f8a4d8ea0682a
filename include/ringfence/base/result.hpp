// SPDX-License-Identifier: LGPL-2.1-or-later
// Result<T> and Error: how every fallible function in the core reports failure (member names
// follow std::expected so a later move to C++23 only changes this file).
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace rf::base {

// An error: errno (0 when none applies) and a message made at the failure site
// ("mount proc on /newroot/proc"); callers prepend context with context().
class Error {
public:
  Error() = default;
  Error(int code, std::string message) : code_(code), message_(std::move(message)) {}

  [[nodiscard]] int code() const { return code_; }
  [[nodiscard]] const std::string& message() const { return message_; }
  // "message: strerror(code)" or just the message when code is 0.
  [[nodiscard]] std::string describe() const;
  // Prefix context: "while X: <message>" becomes "X: <message>".
  Error& context(const std::string& what) &;
  Error&& context(const std::string& what) &&;
  // The same errno under a new message (bwrap's fixed texts, a caller's wording), the old one
  // kept as the cause: describe() shows only the new message (bwrap's texts), and
  // describe_with_cause() adds " [cause]" when the message does not already contain it (what
  // native mode prints).
  [[nodiscard]] Error reworded(std::string message) const;
  [[nodiscard]] const std::string& cause() const { return cause_; }
  [[nodiscard]] std::string describe_with_cause() const;

  // What the caller asked for is itself wrong (an unknown name, a bad value, a missing file it
  // named), as opposed to a failure of the host or the sandbox: front ends give it their usage
  // exit code. Kept through reworded() and context().
  [[nodiscard]] static Error usage(std::string message) {
    Error e(0, std::move(message));
    e.usage_ = true;
    return e;
  }
  [[nodiscard]] Error as_usage() const {
    Error e = *this;
    e.usage_ = true;
    return e;
  }
  [[nodiscard]] bool is_usage() const { return usage_; }

private:
  int code_ = 0;
  std::string message_;
  std::string cause_;  // what the error said before it was reworded ("" when it was not)
  bool usage_ = false;
};

// An error that carries errno as it is now.
Error errno_error(std::string message);

template <typename E>
struct Unexpected {
  E error;
};
inline Unexpected<Error> unexpected(Error e) { return {std::move(e)}; }

template <typename T>
class [[nodiscard]] Result {
public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(Unexpected<Error> e) : v_(std::in_place_index<1>, std::move(e.error)) {}
  Result(Error e) : v_(std::in_place_index<1>, std::move(e)) {}

  [[nodiscard]] bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  Error& error() & { return std::get<1>(v_); }
  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
public:
  Result() = default;
  Result(Unexpected<Error> e) : ok_(false), err_(std::move(e.error)) {}
  Result(Error e) : ok_(false), err_(std::move(e)) {}

  [[nodiscard]] bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  void value() const {}
  Error& error() & { return err_; }
  const Error& error() const& { return err_; }
  Error&& error() && { return std::move(err_); }

private:
  bool ok_ = true;
  Error err_;
};

using Status = Result<void>;

}  // namespace rf::base

// Return early with the error of a failed Result.
#define RF_TRY(expr)                                                             \
  do {                                                                           \
    auto&& rf_try_r_ = (expr);                                                   \
    if (!rf_try_r_) return ::rf::base::unexpected(std::move(rf_try_r_).error()); \
  } while (0)

// Declare `var` from a Result's value, or return its error.
#define RF_TRY_ASSIGN(var, expr)                                                   \
  auto&& var##_rf_r_ = (expr);                                                     \
  if (!var##_rf_r_) return ::rf::base::unexpected(std::move(var##_rf_r_).error()); \
  auto var = std::move(var##_rf_r_).value()
