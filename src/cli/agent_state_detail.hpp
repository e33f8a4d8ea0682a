// SPDX-License-Identifier: LGPL-2.1-or-later
// What the agent state's subcommand shares with its planning (agent_state.cpp): opening a state
// directory with its checks, reading a file below one without following a link, and sizes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/cli/agent_state.hpp"

namespace rf::cli::agent_state_detail {

// What the first use copies, and its bounds (kStateCopyMaxBytes, kStateCopyMaxEntries).
struct CopyBudget {
  std::uint64_t bytes = 0, entries = 0, skipped = 0;
  // One more entry of `size` bytes at `path`: an error past a bound.
  base::Status charge(std::uint64_t size, const std::string& path);
};

// The host's entries of the agent (the plan's list, those the host has) copied below `to`:
// regular files, directories, links that stay inside; the rest skipped and counted. The names
// copied, relative to the home.
base::Result<std::vector<std::string>> copy_host_entries(const AgentStatePlan& s, int to, CopyBudget& budget);
// `rel` below the open directory `dir`, no link followed (`make`: its directories made, 0700).
base::Result<base::UniqueFd> open_below(int dir, const std::string& rel, const std::string& shown, bool make);

// The plan's state directory: every directory from the state root down checked (the user's
// own, writable by no one else, reached without a link); made 0700 where missing with `make`.
base::Result<base::UniqueFd> open_state_dir(const AgentStatePlan& s, uid_t uid, bool make);
// "1.5 MiB".
std::string size_text(std::uint64_t bytes);
// A regular file below `dir` (no link followed), or nothing when it is not there.
base::Result<std::optional<std::string>> read_below(int dir, const std::string& rel,
                                                    const std::string& shown);

}  // namespace rf::cli::agent_state_detail
