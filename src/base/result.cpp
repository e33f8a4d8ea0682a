// SPDX-License-Identifier: LGPL-2.1-or-later
// Error formatting and construction.
#include <cstring>

#include "ringfence/base/result.hpp"

namespace rf::base {

std::string Error::describe() const {
  if (code_ == 0) return message_;
  return message_ + ": " + std::strerror(code_);
}

Error& Error::context(const std::string& what) & {
  message_ = what + ": " + message_;
  return *this;
}

Error&& Error::context(const std::string& what) && {
  message_ = what + ": " + message_;
  return std::move(*this);
}

Error Error::reworded(std::string message) const {
  Error e(code_, std::move(message));
  e.cause_ = cause_.empty() ? message_ : message_ + " (" + cause_ + ")";
  e.usage_ = usage_;
  return e;
}

std::string Error::describe_with_cause() const {
  std::string d = describe();
  // Only when it adds something: a rewording often repeats the old message already.
  if (!cause_.empty() && message_.find(cause_) == std::string::npos) d += " [" + cause_ + "]";
  return d;
}

Error errno_error(std::string message) { return Error(errno, std::move(message)); }

}  // namespace rf::base
