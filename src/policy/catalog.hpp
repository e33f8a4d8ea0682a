// SPDX-License-Identifier: LGPL-2.1-or-later
// The policy catalog: {relative path, text} pairs, either the embedded copy of seccomp/ or an
// in-memory one for tests.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rf::policy::detail {

struct CatalogEntry {
  std::string_view path;  // relative to seccomp/, e.g. "groups/file_io.policy"
  std::string_view text;
};

// Generated at build time by tools/embed_policies.py.
std::span<const CatalogEntry> embedded_catalog();

inline constexpr std::string_view kCatalogPrefix = "seccomp/";
inline constexpr std::string_view kAlwaysPath = "deny/always.policy";
inline constexpr std::string_view kProfilesDir = "profiles/";
inline constexpr std::string_view kPolicySuffix = ".policy";

// Names of the catalog's profiles/*.policy (no subfolders), sorted.
std::vector<std::string> profile_names(std::span<const CatalogEntry> catalog);

const CatalogEntry* catalog_find(std::span<const CatalogEntry> catalog, std::string_view path);

}  // namespace rf::policy::detail
