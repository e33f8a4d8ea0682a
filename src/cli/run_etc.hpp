// SPDX-License-Identifier: LGPL-2.1-or-later
// The host's /etc entries that are not for everyone: what the kernel jail covers and the
// landlock level leaves out of its ruleset, in addition to the list of known secrets.
#pragma once

#include <string>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::cli {

struct PrivateEntries {
  std::vector<std::string> paths;  // files without o+r, directories without o+r or o+x
  bool truncated = false;          // the walk stopped at its entry budget or depth
};

// Walks `root` (the host's /etc) without following symlinks, at most kEtcScanLimit entries and
// 16 levels deep. File systems mounted below it are walked too: the sandbox's /etc holds them. A directory
// that is not world-readable and searchable is one entry (not entered), as is one this process cannot open.
// Symlinks and special files are skipped: a link's target in /etc is judged where it lies.
constexpr int kEtcScanLimit = 50000;
PrivateEntries private_entries(const std::string& root);
// Starts that walk of `root` on a thread of its own, so that it runs beside the rest of the
// start; the next private_entries(root) takes its result. end_private_entries_prefetch() waits
// for a walk nobody took and drops it: call it before the launcher forks or starts threads of
// its own.
void prefetch_private_entries(const std::string& root);
void end_private_entries_prefetch();
// The plan's "not enforced" note when the walk was truncated.
inline constexpr const char* kEtcTruncatedNote =
    "/etc: more than 50000 entries or 16 levels; what lies past them was not checked for entries "
    "that are not world-readable";
static_assert(kEtcScanLimit == 50000, "kEtcTruncatedNote names the limit");

// Where a file bound over `path` (the egress allowlist's /etc/resolv.conf) lands: `path` itself
// when it is not a link; else what the link resolves to (systemd-resolved's
// ../run/systemd/resolve/stub-resolv.conf, which the sandbox's own /run lacks: the bind makes
// it there), or, for a link to nothing, its target as written, made absolute from the link's
// directory. A missing `path` is an error that says why the file is needed.
base::Result<std::string> bind_target(const std::string& path);

}  // namespace rf::cli
