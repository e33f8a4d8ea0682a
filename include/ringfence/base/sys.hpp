// SPDX-License-Identifier: LGPL-2.1-or-later
// Checked system-call helpers: EINTR retry and errno turned into an Error naming the call and path.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::base {

// Read everything from fd until EOF.
Result<std::string> read_all(int fd);
// Read a whole file (small files: /proc, /sys).
Result<std::string> read_file(const std::string& path);
// Write all of data (retrying short writes and EINTR).
Status write_all(int fd, std::string_view data);
// Write data to an existing file (e.g. /proc/self/uid_map).
Status write_file(const std::string& path, std::string_view data);
// open(2) with O_CLOEXEC added; the error names the path.
Result<UniqueFd> open_fd(const std::string& path, int flags, mode_t mode = 0);

// CLOCK_MONOTONIC, in nanoseconds and in milliseconds (async-signal-safe).
std::int64_t monotonic_ns() noexcept;
std::int64_t monotonic_ms() noexcept;

// Child-safe forms (no allocation; see kernel.hpp): the result, or -errno with errno left set.
namespace raw {
// One read(2) / write(2), retried on EINTR.
ssize_t read(int fd, void* buf, std::size_t len) noexcept;
ssize_t write(int fd, const void* buf, std::size_t len) noexcept;
// All of len bytes, short writes and EINTR retried: 0, or -errno (-EIO when write returns 0).
int write_all(int fd, const void* data, std::size_t len) noexcept;
}  // namespace raw

// Parse a non-negative decimal fd like bwrap's strtol check (no junk, no sign).
bool parse_fd(std::string_view s, int& out);

}  // namespace rf::base
