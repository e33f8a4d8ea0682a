// SPDX-License-Identifier: LGPL-2.1-or-later
// What a change set changes: the overlay's upper directory compared with the project (its
// lower directory), entry by entry, each change classified as risky or not (docs/review.md).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/review/store.hpp"

namespace rf::review {

// File times come from the kernel's coarse clock, which may lag CLOCK_REALTIME by a tick: a
// time within this much before a baseline counts as after it (a false conflict is safe, a
// missed one is not).
inline constexpr std::int64_t kClockSlackNs = 50'000'000;

enum class ChangeKind { Added, Modified, Deleted, TypeChanged, ModeChanged };
// "added", "modified", "deleted", "type-changed", "mode-changed".
const char* kind_name(ChangeKind k);

struct Change {
  std::string path;  // relative to the project
  ChangeKind kind = ChangeKind::Added;
  bool risky = false;
  std::string reason;  // the risky class ("" when not risky)
  // What apply and the diff need: st_mode of the project's entry before (0: none) and of the
  // change set's entry after (0: deleted), and the upper entry's inode (hard links).
  mode_t old_mode = 0;
  mode_t new_mode = 0;
  std::string link_target;  // new_mode is a symlink: its target
  std::uint64_t upper_ino = 0;
  nlink_t upper_nlink = 0;
};

// Compares the change set's upper directory with its project. Refuses (an Error naming the
// entry) an upper directory that uses an overlay feature it does not understand (redirect,
// metacopy) and a project that is no longer the directory the run saw.
base::Result<std::vector<Change>> scan(const ChangeSet& cs);
// The same on two open directories (upper, lower): the comparison itself.
base::Result<std::vector<Change>> scan_dirs(int upper_fd, int lower_fd,
                                            const std::vector<std::string>& masked,
                                            const std::string& project_realpath);

struct Summary {
  std::size_t added = 0, modified = 0, deleted = 0, risky = 0;
  // "3 added, 1 modified, 0 deleted, 1 risky" (type and mode changes count as modified).
  [[nodiscard]] std::string text() const;
};
Summary summarize(const std::vector<Change>& changes);

// The risky class of an entry at `path` (relative) whose new st_mode is `mode` (0: deleted)
// and, for a link, `link_target`; "" when it is not risky.
std::string risky_reason(const std::string& path, mode_t mode, const std::string& link_target,
                         const std::string& project_realpath);
// Whether a link at `path` (relative) with this target resolves outside the project, lexically.
bool link_leaves_project(const std::string& path, const std::string& target,
                         const std::string& project_realpath);

// After a run without review: the risky entries of the project whose ctime is at or after
// `since_ns` (CLOCK_REALTIME ns). Walks the whole tree without following links and prunes
// nothing; a directory is reported only when it was made after `since_ns`. Unreadable
// directories are passed over.
std::vector<Change> risky_changes_since(int project_dirfd, std::int64_t since_ns);

}  // namespace rf::review
