// SPDX-License-Identifier: LGPL-2.1-or-later
// (c) of the supervisor's race notes: an AF_UNIX path is opened in the target's view, absolute
// paths inside its root (symlinks included, RESOLVE_IN_ROOT), relative ones beneath its cwd (a
// path climbing above the cwd is refused with EACCES). The kernel's write-permission check on
// the socket inode would run with the launcher's credentials, so the target's are checked here.
// Without a mount namespace (restrict_unix_paths) the socket's real place must be allowed.
#pragma once

#include <sys/un.h>

#include "notif_target.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/net/destination.hpp"

namespace rf::engine {

// 0, with the socket pinned in `pinned_fd` and `pinned_name` naming it ("/proc/self/fd/N"),
// or the errno for the target (a refusal of its place is logged).
int pin_unix_path(const NotifTarget& t, const net::Destination& dest, base::UniqueFd& pinned_fd,
                  sockaddr_un& pinned_name, const char* syscall_name);

}  // namespace rf::engine
