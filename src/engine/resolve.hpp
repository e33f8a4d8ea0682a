// SPDX-License-Identifier: LGPL-2.1-or-later
// Path resolution confined to the new root: every destination is looked up relative to the
// root's fd as if it were "/", so no symlink (absolute, "..", or magic) leads out of it.
#pragma once

#include <sys/types.h>

#include <string>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::engine {

// Open `path` (absolute or relative, taken relative to the root) under root_fd, following
// symlinks in-root only. `flags` are open(2) flags (O_CLOEXEC is added).
base::Result<base::UniqueFd> open_in_root(int root_fd, const std::string& path, int flags);

// Open `rel` below dir_fd without following any symbolic link (a trailing one is returned
// itself with O_PATH | O_NOFOLLOW, for the caller to refuse) and without leaving dir_fd: for
// paths in a tree the sandbox can write, where a link may have been planted. openat2
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or a walk of O_NOFOLLOW opens where the kernel lacks it.
base::Result<base::UniqueFd> open_beneath(int dir_fd, const std::string& rel, int flags);

// Make every directory of `path` (in-root); new ones get `mode`. Returns an O_PATH fd of the
// last one. Errors name `path` as the user wrote it.
base::Result<base::UniqueFd> mkdir_p_in_root(int root_fd, const std::string& path, mode_t mode);

// "/oldroot/proc/self/fd/N": a path that mount(2) and chmod(2) follow to exactly fd's object.
std::string fd_path(int fd);

}  // namespace rf::engine
