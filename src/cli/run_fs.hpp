// SPDX-License-Identifier: LGPL-2.1-or-later
// The filesystem steps of `ringfence run`'s plan, in the order plan_run calls them.
#pragma once

#include "ringfence/cli/native_run.hpp"

namespace rf::cli {

// /usr, the /bin-/lib* links or directories, /etc, /opt read-only; host secrets covered; new
// /proc, minimal /dev, private /tmp, /var/tmp, /run.
base::Status add_system_dirs(RunPlan& plan);
// size= of the kernel jail's writable scratch tmpfs mounts (/tmp, /var/tmp, /dev/shm, the
// writable agent directories): --limit tmpfs, else a quarter of memory; none for "unlimited".
std::optional<std::uint64_t> scratch_size(const RunPlan& plan);
// The throwaway HOME at the caller's home path (bound by prepare_home) and the agent's files.
base::Status add_home(RunPlan& plan, const presets::AgentProfile& agent);
// Soft jail: the agent's files for the throwaway HOME (directories linked, files copied).
base::Status add_soft_home(RunPlan& plan, const presets::AgentProfile& agent);
// The agent's list as it is on the host, for both jails. An entry inside an earlier directory
// of the list (`parent`, relative to HOME) is looked up below that directory without following
// a link: a link, an entry of the other kind or a missing file is left as the host has it
// (read-only in that directory); a missing writable directory is to be made (`make`). Copies
// go to plan.copies.
struct AgentItem {
  const presets::ConfigPath* config = nullptr;
  std::string host;    // its host path
  std::string parent;  // nested: the directory of the list it lies in; empty at the top
  bool make = false;
};
base::Result<std::vector<AgentItem>> agent_items(RunPlan& plan, const presets::AgentProfile& agent,
                                                 const std::string& real_home);
// The project at its own path, its git directory protected (protect_git).
base::Status add_project(RunPlan& plan, const RunOptions& opts);
// --bind / --ro-bind SRC[:DST]; no link in the project is followed at either end.
base::Status add_extra_binds(RunPlan& plan, const RunOptions& opts);
// The default masks and --mask: every matching name in the project, hidden.
base::Status add_project_masks(RunPlan& plan, const RunOptions& opts);
// --workspace: the project's view as built so far (masks, git protection) also at /workspace.
base::Status add_workspace(RunPlan& plan, const RunOptions& opts);

// run_git.cpp: .git a mount point (no rename, removal or replacement inside), its hooks, info,
// modules, worktrees, config, commondir (and config.worktree where used) read-only, missing
// directories made empty first; a link at any of them refuses the run.
base::Status protect_git(RunPlan& plan);
// The missing entries protect_git covers, made empty (by prepare_home, not in a dry run).
base::Status make_git_entries(RunPlan& plan);
// run_autorun.cpp: the files of the project host tools run later, as they are before the start
// (by prepare_home); autorun_warnings (native_run.hpp) compares after the run.
void scan_autorun(RunPlan& plan);
// run_shell.cpp: --shell off: the execute allowlist (Landlock), memfds made non-executable
// (vm.memfd_noexec for the host's root in the kernel jail, else a filter), what is not enforced.
base::Status restrict_shell(RunPlan& plan, const HostFacts& host);
// realpath(3) of a host path, refusing (ELOOP) to follow a link that lies in `tree`.
base::Result<std::string> host_path_nofollow_in(const std::string& path, const std::string& tree);

}  // namespace rf::cli
