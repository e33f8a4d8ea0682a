// SPDX-License-Identifier: LGPL-2.1-or-later
// Named constants a policy may use (errno names, AF_*, CLONE_*, ioctls, ...), taken from the
// system headers at compile time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace rf::policy::detail {

struct Constant {
  std::string_view name;
  std::uint64_t value;
};

// Any named constant, errno names included.
std::optional<std::uint64_t> lookup_constant(std::string_view name);
// Only errno names ("EPERM").
std::optional<int> lookup_errno(std::string_view name);
// The canonical name of an errno value ("EAGAIN", not "EWOULDBLOCK"), or "" when it has none.
std::string_view errno_name(int value);

std::span<const Constant> errno_constants();
std::span<const Constant> other_constants();

}  // namespace rf::policy::detail
