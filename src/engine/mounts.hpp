// SPDX-License-Identifier: LGPL-2.1-or-later
// The new root: scratch tmpfs, pivot so the host sits at /oldroot, the ordered filesystem
// ops under /newroot, then the final pivot and detach of the host.
#pragma once

#include "context.hpp"
#include "ringfence/base/result.hpp"

namespace rf::engine {

// "/" rslave, scratch tmpfs, /newroot and /oldroot, first pivot_root.
base::Status prepare_root_in_child(std::optional<std::uint64_t> root_size,
                                   std::optional<std::uint64_t> root_inodes);
// Every FsOp in order, destinations resolved in-root.
base::Status apply_ops_in_child(const ChildContext& ctx);
// Detach the host (/oldroot) and pivot into /newroot.
base::Status finish_root_in_child();

// ",size=N,nr_inodes=M" for the bounds that are set (empty when neither is).
std::string tmpfs_bounds(std::optional<std::uint64_t> size, std::optional<std::uint64_t> inodes);

// One op (mounts.cpp dispatches; the special file systems live in special_fs.cpp).
// dir_fd is the (existing) destination directory.
base::Status mount_proc_in_child(const ChildContext& ctx, int root_fd, int dir_fd, const spec::FsOp& op);
base::Status mount_dev_in_child(const ChildContext& ctx, int root_fd, int dir_fd, const spec::FsOp& op);

// Add MOUNT_ATTR_* bits to the mount rooted at fd (and its submounts when recursive), with
// mount_setattr or, on kernels without it, a remount of each mount from mountinfo.
base::Status add_mount_attrs(int fd, unsigned long attrs, bool recursive);

// Bind src (a path as the child sees it now: the host under /oldroot, or an fd path) onto
// target_fd (the in-root mount point of dest), then add attributes (MOUNT_ATTR_*) to the new
// mount and, when recursive, to every submount.
base::Status bind_onto_in_child(const std::string& src, int target_fd, int root_fd, const std::string& dest,
                                unsigned long attrs, bool recursive);

}  // namespace rf::engine
