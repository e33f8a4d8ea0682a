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

Error errno_error(std::string message) { return Error(errno, std::move(message)); }
Error make_error(std::string message, int code) { return Error(code, std::move(message)); }

}  // namespace rf::base
