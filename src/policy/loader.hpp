// SPDX-License-Identifier: LGPL-2.1-or-later
// Loading with the sources made explicit: the catalog and the file reader are parameters, so
// tests can load from memory exactly as the real thing loads from the binary and the disk.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "catalog.hpp"
#include "ringfence/base/result.hpp"
#include "ringfence/policy/policy.hpp"

namespace rf::policy::detail {

inline constexpr int kMaxIncludeDepth = 16;
inline constexpr int kMaxFiles = 256;
inline constexpr std::size_t kMaxTotalBytes = 4 << 20;  // all the files of one profile

// Reads a policy file from disk (at most kMaxFileBytes). A missing file must fail with
// ENOENT or ENOTDIR, so that an include can fall back to the catalog.
using FileReader = std::function<base::Result<std::string>(const std::string& path)>;

struct Sources {
  std::span<const CatalogEntry> catalog;
  FileReader read_file;
};

// The embedded catalog and the real file system.
Sources default_sources();

base::Result<Policy> load_from(const Sources& sources, std::string_view name_or_path);
base::Result<Policy> load_text_from(const Sources& sources, std::string_view text, std::string origin);

}  // namespace rf::policy::detail
