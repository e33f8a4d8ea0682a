// SPDX-License-Identifier: LGPL-2.1-or-later
// Named sets of host rules for the egress allowlist (`ringfence run --allow-hosts npm,pypi`, the
// profile file's `allow_host_sets`): the names a package manager or forge reaches, and no more.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::presets {

struct HostSet {
  std::string name;                // "npm"
  std::string title;               // "the npm registry (npm, yarn classic, pnpm)"
  std::vector<std::string> hosts;  // host rules, net::parse_host_rule's syntax
};

// npm, pypi, github, crates, go, debian (in this order).
const std::vector<HostSet>& all_host_sets();
// By name. The error names the closest set within two edits ("did you mean npm?") and lists the
// valid names.
base::Result<HostSet> host_set_by_name(std::string_view name);

}  // namespace rf::presets
