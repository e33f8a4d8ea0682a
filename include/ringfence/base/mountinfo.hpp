// SPDX-License-Identifier: LGPL-2.1-or-later
// Pure parser for /proc/<pid>/mountinfo (proc(5)); fuzzed, used by tests and diagnostics.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::base {

struct MountEntry {
  int id = 0;
  int parent_id = 0;
  unsigned major = 0;
  unsigned minor = 0;
  std::string root;         // root of the mount within its file system (octal escapes decoded)
  std::string mount_point;  // decoded
  std::string options;      // per-mount options, e.g. "ro,nosuid,nodev"
  std::vector<std::string> optional_fields;  // "shared:N", "master:N", ...
  std::string fs_type;
  std::string source;
  std::string super_options;

  [[nodiscard]] bool has_option(std::string_view opt) const;
};

// Parse a whole mountinfo text; the error names the line number.
Result<std::vector<MountEntry>> parse_mountinfo(std::string_view text);
// Decode mountinfo's \NNN octal escapes.
std::string unescape_mountinfo(std::string_view s);

}  // namespace rf::base
