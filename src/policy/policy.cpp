// SPDX-License-Identifier: LGPL-2.1-or-later
// The public entry points for loading, backed by the embedded catalog and the file system.
#include <algorithm>

#include "loader.hpp"
#include "ringfence/policy/policy.hpp"

namespace rf::policy {

std::string SourceLoc::str() const { return line > 0 ? file + ":" + std::to_string(line) : file; }

const Rule* find_rule(const Policy& policy, std::string_view syscall) {
  auto it = std::lower_bound(policy.rules.begin(), policy.rules.end(), syscall,
                             [](const Rule& r, std::string_view s) { return r.syscall < s; });
  return it != policy.rules.end() && it->syscall == syscall ? &*it : nullptr;
}

Result<Policy> load(std::string_view name_or_path) {
  return detail::load_from(detail::default_sources(), name_or_path);
}

Result<Policy> load_text(std::string_view text, std::string origin) {
  return detail::load_text_from(detail::default_sources(), text, std::move(origin));
}

}  // namespace rf::policy
