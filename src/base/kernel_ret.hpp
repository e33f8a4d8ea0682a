// SPDX-License-Identifier: LGPL-2.1-or-later
// How kernel.cpp and kernel_mount.cpp turn a syscall(2) result into the raw and checked forms.
#pragma once

#include <cerrno>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::base {

// syscall(2)'s -1/errno as -errno (errno left as it is).
inline int kernel_ret(long r) noexcept { return r < 0 ? -errno : static_cast<int>(r); }

inline Result<UniqueFd> fd_result(int r, const char* call) {
  if (r < 0) return Error(-r, call);
  return UniqueFd(r);
}

inline Status status_result(int r, const char* call) {
  if (r < 0) return Error(-r, call);
  return {};
}

}  // namespace rf::base
