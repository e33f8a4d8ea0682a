// SPDX-License-Identifier: LGPL-2.1-or-later
// Removing a directory tree that someone else filled: no symlink followed, no other file system
// entered, modes that refuse listing or emptying fixed first (as the owner may), any depth.
#pragma once

#include <string>
#include <vector>

namespace rf::base {

// Removes `path` and everything below it. Works on directory fds (openat with O_NOFOLLOW and
// O_DIRECTORY, unlinkat): a symlink is removed, never followed; a directory on another file
// system is left alone; a directory whose mode refuses us reading, searching or writing it gets
// mode 0700 before it is entered. Holds one descriptor at a time, whatever the depth. Returns
// one line per entry that could not be removed ("PATH: reason"); empty when all is gone (or
// `path` did not exist).
std::vector<std::string> remove_tree(const std::string& path);

}  // namespace rf::base
