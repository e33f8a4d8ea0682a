// SPDX-License-Identifier: LGPL-2.1-or-later
// The filesystem steps of `ringfence run`'s plan, in the order plan_run calls them. These are
// the host paths planning looks at (plan_host_paths): system directories, /etc, the agent's
// list, the project's masks and .git, bind sources. They read no environment: the caller's
// home is plan.home_inside (HostSnapshot::home), the working directory the snapshot's.
#pragma once

#include "ringfence/cli/native_run.hpp"

namespace rf::cli {

// The names the plan's files use unqualified.
using base::Error;
using base::Status;
using spec::FsOp;
using spec::OpKind;

// /usr, the /bin-/lib* links or directories, /etc, /opt read-only; host secrets covered; new
// /proc, minimal /dev, private /tmp, /var/tmp, /run.
base::Status add_system_dirs(RunPlan& plan);
// size= of the kernel jail's writable scratch tmpfs mounts (/tmp, /var/tmp, /dev/shm, the
// writable agent directories): --limit tmpfs, else a quarter of memory; none for "unlimited".
std::optional<std::uint64_t> scratch_size(const RunPlan& plan);
// The throwaway HOME at the caller's home path (bound by ThrowawayHome::prepare) and the agent's files.
base::Status add_home(RunPlan& plan, const presets::AgentProfile& agent);
// Soft jail: the agent's files for the throwaway HOME (directories linked, files copied).
base::Status add_soft_home(RunPlan& plan, const presets::AgentProfile& agent);
// The agent's list as it is on the host (run_agent.cpp), one walk for the kernel and the
// landlock levels: each entry with what becomes of it. An entry inside an earlier directory of
// the list (`parent`, relative to HOME) is looked up below that directory without following a
// link: a link or an entry of the other kind is left as the host has it (read-only in that
// directory, with a note), a missing one is skipped, a missing writable directory is made
// before the start. A top-level entry is granted as its access says, or copied (a regular
// file to copy); missing, it is skipped when optional and refuses the run when not.
enum class AgentDecision { Grant, Make, Copy, Skip, LeftAsIs };
struct AgentItem {
  const presets::ConfigPath* config = nullptr;
  std::string host;    // its host path
  std::string parent;  // nested: the directory of the list it lies in; empty at the top
  AgentDecision decision = AgentDecision::Skip;
  std::string note;  // LeftAsIs: why, for plan.notes
  bool writable() const;
  std::string below() const;  // its path below `parent` (below HOME at the top)
};
base::Result<std::vector<AgentItem>> walk_agent_config(const presets::AgentProfile& agent,
                                                       const std::string& real_home);
// The walk with what both levels do alike: copies to plan.copies, notes to plan.notes, the
// directories to make to plan.agent_make; what is left to grant (Grant and Make), in order.
base::Result<std::vector<AgentItem>> agent_grants(RunPlan& plan, const presets::AgentProfile& agent,
                                                  const std::string& real_home);
// The project at its own path, its git directory protected (protect_git).
base::Status add_project(RunPlan& plan, const RunOptions& opts);
// --bind / --ro-bind SRC[:DST]; no link in the project is followed at either end.
base::Status add_extra_binds(RunPlan& plan, const RunOptions& opts, const std::string& cwd);
// The default masks and --mask: every matching name in the project, hidden.
base::Status add_project_masks(RunPlan& plan, const RunOptions& opts);
// --workspace: the project's view as built so far (masks, git protection) also at /workspace.
base::Status add_workspace(RunPlan& plan, const RunOptions& opts);

// run_git.cpp: .git a mount point (no rename, removal or replacement inside), its hooks, info,
// modules, worktrees, config, commondir (and config.worktree where used) read-only, missing
// directories made empty first; a link at any of them refuses the run. A .git file (a linked
// worktree's or a submodule's) is read-only, and the git directories it leads to (checked by
// check_git_dir) are bound at their own paths with the same protection.
base::Status protect_git(RunPlan& plan);
// The directory a gitfile's text ("gitdir: PATH\n") names, as written.
base::Result<std::string> parse_gitfile(std::string_view text);
// A git directory a gitfile or a commondir names (relative to `from`), normalized: refused unless
// every component is no link, it is a directory owned by `owner` with a HEAD, and it is neither /
// nor holds the home or the project. `what` names the file that named it, for messages.
base::Result<std::string> check_git_dir(const std::string& given, const std::string& from, uid_t owner,
                                        const std::string& project, const std::string& home,
                                        const std::string& what);
// The missing entries protect_git covers, made empty (by ThrowawayHome::prepare, not in a dry run).
base::Status make_git_entries(RunPlan& plan);
// run_autorun.cpp: the files of the project host tools run later, as they are before the start
// (by ThrowawayHome::prepare); autorun_warnings (native_run.hpp) compares after the run.
void scan_autorun(RunPlan& plan);
// That scan of `project` started on a thread, beside the mask walk; scan_autorun takes it.
// end_autorun_prefetch() waits for one nobody took (a dry run) and drops it.
void prefetch_autorun(const std::string& project);
void end_autorun_prefetch();
// run_shell.cpp: --shell off: the execute allowlist (Landlock), memfds made non-executable
// (vm.memfd_noexec for the host's root in the kernel jail, else a filter), what is not enforced.
base::Status restrict_shell(RunPlan& plan, const HostFacts& host, const HostSnapshot& snapshot);
// realpath(3) of a host path (a relative one from `cwd`), refusing (ELOOP) to follow a link
// that lies in `tree`.
base::Result<std::string> host_path_nofollow_in(const std::string& path, const std::string& tree,
                                                const std::string& cwd);

}  // namespace rf::cli
