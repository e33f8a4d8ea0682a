// SPDX-License-Identifier: LGPL-2.1-or-later
// Checked system-call helpers: EINTR retry and errno turned into an Error naming the call and path.
#pragma once

#include <sys/types.h>

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

// Parse a non-negative decimal fd like bwrap's strtol check (no junk, no sign).
bool parse_fd(std::string_view s, int& out);

}  // namespace rf::base
