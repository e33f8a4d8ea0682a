// SPDX-License-Identifier: LGPL-2.1-or-later
// File-system functions of the review layer: every one works relative to a directory fd and
// never follows a symbolic link.
#pragma once

#include <sys/stat.h>

#include <optional>
#include <string>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::review {

// Path order in which a directory comes right before what is in it ('/' sorts first).
bool path_less(const std::string& a, const std::string& b);
// The names in a directory (without "." and ".."); `fd` may be O_PATH.
base::Result<std::vector<std::string>> list_dir(int fd, const std::string& shown);
// Removes `name` in `dirfd`: a file or link unlinked, a directory emptied first, no link followed.
base::Status remove_tree_at(int dirfd, const std::string& name, const std::string& shown);
// openat2 beneath `root` with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS.
// `rel` "" or "." is the root itself. Errors keep the errno (ELOOP: a link on the way).
base::Result<base::UniqueFd> open_beneath(int root, const std::string& rel, int flags, mode_t mode = 0);
// The parent's fd (O_PATH, beneath root) and the last component of `rel`.
struct ParentRef {
  base::UniqueFd fd;
  std::string name;
};
base::Result<ParentRef> open_parent_beneath(int root, const std::string& rel);
// lstat of `rel` beneath root: nullopt when it (or a parent) does not exist. ELOOP (a link
// on the way) and ENOTDIR are errors.
base::Result<std::optional<struct stat>> lstat_beneath(int root, const std::string& rel);
// The target of the link `name` in `dirfd`.
base::Result<std::string> read_link_at(int dirfd, const std::string& name, const std::string& shown);
// The value of extended attribute `key` of `name` in `dirfd` (not following a link), or nullopt.
base::Result<std::optional<std::string>> xattr_at(int dirfd, const std::string& name, const std::string& key,
                                                  const std::string& shown);
// The names of its extended attributes.
base::Result<std::vector<std::string>> xattr_names_at(int dirfd, const std::string& name,
                                                      const std::string& shown);
// Whether two open regular files have the same bytes.
base::Result<bool> same_bytes(int a, int b, const std::string& shown);
// Opens the regular file `name` of `dirfd` for reading (O_NOFOLLOW, O_NONBLOCK).
base::Result<base::UniqueFd> open_file_at(int dirfd, const std::string& name, const std::string& shown);

}  // namespace rf::review
