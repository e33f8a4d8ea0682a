// SPDX-License-Identifier: LGPL-2.1-or-later
// Applying a change set to its project (all of it or some paths; risky changes only when asked),
// refused as a whole on a conflict; or committing it to a new branch instead (docs/review.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/review/changes.hpp"
#include "ringfence/review/store.hpp"

namespace rf::review {

// The changes at or below one of `paths` (relative to the project; "" or "." is all), with the
// added directories that hold them. A path that selects nothing is an Error::usage.
base::Result<std::vector<Change>> select_changes(const std::vector<Change>& changes,
                                                 const std::vector<std::string>& paths);

struct ApplyOptions {
  bool include_risky = false;
  std::vector<std::string> paths;  // empty: everything
};

struct ApplyResult {
  std::vector<std::string> conflicts;  // "PATH: why"; when not empty, nothing was written
  std::vector<Change> applied;
  std::vector<Change> already;        // the project already has them as the change set does
  std::vector<Change> skipped_risky;  // left out (no --include-risky)
  bool marked_applied = false;        // a full apply: meta.json says "applied": true
};

// Checks every selected change against the project first (a path touched on the host at or
// after the run started, there when the change adds it, or of another type than the change
// expects is a conflict, and any conflict refuses the whole apply), then writes: relative to
// the project's directory fd, parents opened with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, each
// file through a temporary file in its directory and a rename, modes kept (setuid/setgid only
// with include_risky), links kept, hard links of the change set kept as hard links.
base::Result<ApplyResult> apply(const ChangeSet& cs, const std::vector<Change>& changes,
                                const ApplyOptions& opt);

struct BranchResult {
  std::string commit;
  std::vector<Change> committed;
  std::vector<Change> skipped;  // risky ones, and whatever is under .git or is not a file or link
};

// Commits the (non-risky, non-.git) changes on a new branch `branch` made from meta.git_head,
// with git plumbing and a temporary index; the working tree and the current branch are left
// alone, and an existing branch is refused. git runs with hooks and fsmonitor off and without
// the system configuration.
base::Result<BranchResult> commit_to_branch(const ChangeSet& cs, const std::vector<Change>& changes,
                                            const std::string& branch);

// For CreateInfo::git_head: the commit HEAD names when `project_realpath` is the top of a git
// work tree (git run as commit_to_branch runs it), else nullopt (no repository, no commit yet).
std::optional<std::string> read_git_head(const std::string& project_realpath);

// An open directory fd of the change set's upper directory and of its project (checked: the
// project is still the directory the run saw).
struct OpenedChangeSet {
  base::UniqueFd upper;
  base::UniqueFd project;
};
base::Result<OpenedChangeSet> open_trees(const ChangeSet& cs, int project_flags);

}  // namespace rf::review
