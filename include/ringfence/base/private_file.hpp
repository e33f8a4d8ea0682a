// SPDX-License-Identifier: LGPL-2.1-or-later
// Files only this user could have written: caches read back at start (the probe's report,
// compiled seccomp programs). A directory or file that is not the caller's own, is open to
// others, or is a link is never used; writes are atomic (a temporary file, then rename).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::base {

// Creates `dir` (0700) if missing, with its missing parents when `parents`; opens it without
// following a link; refuses it unless it is owned by the effective uid and closed to others.
Result<UniqueFd> open_private_dir(const std::string& dir, bool parents = false);

struct PrivateRead {
  std::optional<std::string> content;  // set when the file was read
  std::string status;                  // "missing", "ignored (why)", or "read"
};
// Reads `name` in `dir_fd` (not through a link), only when it is a regular file of the
// effective uid, not writable by group or others, at most `max_size` bytes.
PrivateRead read_private_file(int dir_fd, const std::string& name, off_t max_size);

// Writes `name` in `dir_fd` atomically (0600; a temporary file fsynced, then renamed over it).
// `dir` names the directory in messages.
Status write_private_file(int dir_fd, const std::string& dir, const std::string& name,
                          std::string_view content);

}  // namespace rf::base
