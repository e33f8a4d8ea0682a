// SPDX-License-Identifier: LGPL-2.1-or-later
// The sandbox environment, rebuilt from an allowlist: the host's variables pass only by name
// (a fixed list, the agent's own, explicit --env); everything else is dropped.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/presets/agents.hpp"

namespace rf::presets {

// Exact names that always pass (HOME is not among them: it is always set to the sandbox home).
const std::vector<std::string>& env_allowlist();
// Prefixes that always pass ("LC_").
const std::vector<std::string>& env_allowlist_prefixes();

// A valid variable name: [A-Za-z_][A-Za-z0-9_]*.
bool valid_env_name(std::string_view name);
// Whether a name looks like a credential: one of its '_'-separated words is KEY, TOKEN, SECRET,
// PASSWORD, ... An agent's prefix never passes such a name; its profile lists its keys by name.
bool looks_like_credential(std::string_view name);

// Check one --env item: "NAME" (pass from the host) or "NAME=VALUE" (set).
base::Status check_env_arg(std::string_view item);

// The sandbox environment ("K=V", sorted by name). host_env: the launcher's environ ("K=V";
// items without '=' are ignored; the first of duplicate names wins). extra: --env items, in
// order (a later one wins; "K" passes K from the host when it is there, "K=V" sets it; they
// pass even what the allowlist drops). HOME is always `home`.
std::vector<std::string> build_environment(const std::vector<std::string>& host_env,
                                           const AgentProfile& agent, const std::vector<std::string>& extra,
                                           const std::string& home);

// The names of the host variables build_environment drops (sorted, no duplicates; names only,
// never values). HOME is not listed: it is replaced, not dropped.
std::vector<std::string> dropped_variables(const std::vector<std::string>& host_env,
                                           const AgentProfile& agent, const std::vector<std::string>& extra);

// With the network off: the variables that tell package managers so, and make them fail at
// once from what they have cached instead of retrying (npm's offline mode, cargo's
// net.offline, GOPROXY=off, pip without retries, uv's offline mode).
const std::vector<std::pair<std::string, std::string>>& offline_variables();

}  // namespace rf::presets
