// SPDX-License-Identifier: LGPL-2.1-or-later
// Lookups in the policy catalog, and the public view of the embedded one.
#include <algorithm>
#include <string>
#include <vector>

#include "catalog.hpp"
#include "ringfence/policy/policy.hpp"

namespace rf::policy {

namespace detail {

const CatalogEntry* catalog_find(std::span<const CatalogEntry> catalog, std::string_view path) {
  for (const auto& e : catalog)
    if (e.path == path) return &e;
  return nullptr;
}

std::vector<std::string> profile_names(std::span<const CatalogEntry> catalog) {
  std::vector<std::string> out;
  for (const auto& e : catalog) {
    std::string_view p = e.path;
    if (p.size() <= kProfilesDir.size() + kPolicySuffix.size() ||
        p.substr(0, kProfilesDir.size()) != kProfilesDir ||
        p.substr(p.size() - kPolicySuffix.size()) != kPolicySuffix)
      continue;
    p = p.substr(kProfilesDir.size(), p.size() - kProfilesDir.size() - kPolicySuffix.size());
    if (p.find('/') == std::string_view::npos) out.emplace_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace detail

std::vector<std::string> catalog_profiles() { return detail::profile_names(detail::embedded_catalog()); }

bool catalog_has(std::string_view relpath) {
  return detail::catalog_find(detail::embedded_catalog(), relpath) != nullptr;
}

std::vector<std::string> catalog_files() {
  std::vector<std::string> out;
  for (const auto& e : detail::embedded_catalog()) out.emplace_back(e.path);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace rf::policy
