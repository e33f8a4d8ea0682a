// SPDX-License-Identifier: LGPL-2.1-or-later
// The mount API, pivot_root and Landlock (see kernel.hpp).
#include <linux/landlock.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel_ret.hpp"
#include "ringfence/base/kernel.hpp"

namespace rf::base {

namespace raw {

int open_tree(int dirfd, const char* path, unsigned flags) noexcept {
  return kernel_ret(::syscall(SYS_open_tree, dirfd, path, flags));
}

int move_mount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path,
               unsigned flags) noexcept {
  return kernel_ret(::syscall(SYS_move_mount, from_dirfd, from_path, to_dirfd, to_path, flags));
}

int fsopen(const char* fs_name, unsigned flags) noexcept {
  return kernel_ret(::syscall(SYS_fsopen, fs_name, flags));
}

int fsconfig(int fs_fd, unsigned cmd, const char* key, const void* value, int aux) noexcept {
  return kernel_ret(::syscall(SYS_fsconfig, fs_fd, cmd, key, value, aux));
}

int fsmount(int fs_fd, unsigned flags, unsigned attr_flags) noexcept {
  return kernel_ret(::syscall(SYS_fsmount, fs_fd, flags, attr_flags));
}

int fspick(int dirfd, const char* path, unsigned flags) noexcept {
  return kernel_ret(::syscall(SYS_fspick, dirfd, path, flags));
}

int mount_setattr(int dirfd, const char* path, unsigned flags, const mount_attr* attr,
                  std::size_t size) noexcept {
  return kernel_ret(::syscall(SYS_mount_setattr, dirfd, path, flags, attr, size));
}

int pivot_root(const char* new_root, const char* put_old) noexcept {
  return kernel_ret(::syscall(SYS_pivot_root, new_root, put_old));
}

int landlock_abi() noexcept {
  return kernel_ret(::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION));
}

int landlock_create_ruleset(const void* attr, std::size_t size, std::uint32_t flags) noexcept {
  return kernel_ret(::syscall(SYS_landlock_create_ruleset, attr, size, flags));
}

int landlock_add_rule(int ruleset_fd, int rule_type, const void* rule_attr, std::uint32_t flags) noexcept {
  return kernel_ret(::syscall(SYS_landlock_add_rule, ruleset_fd, rule_type, rule_attr, flags));
}

int landlock_restrict_self(int ruleset_fd, std::uint32_t flags) noexcept {
  return kernel_ret(::syscall(SYS_landlock_restrict_self, ruleset_fd, flags));
}

}  // namespace raw

Result<UniqueFd> open_tree(int dirfd, const char* path, unsigned flags) {
  return fd_result(raw::open_tree(dirfd, path, flags), "open_tree");
}

Status move_mount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path, unsigned flags) {
  return status_result(raw::move_mount(from_dirfd, from_path, to_dirfd, to_path, flags), "move_mount");
}

Result<UniqueFd> fsopen(const char* fs_name, unsigned flags) {
  return fd_result(raw::fsopen(fs_name, flags), "fsopen");
}

Status fsconfig(int fs_fd, unsigned cmd, const char* key, const void* value, int aux) {
  return status_result(raw::fsconfig(fs_fd, cmd, key, value, aux), "fsconfig");
}

Result<UniqueFd> fsmount(int fs_fd, unsigned flags, unsigned attr_flags) {
  return fd_result(raw::fsmount(fs_fd, flags, attr_flags), "fsmount");
}

Result<UniqueFd> fspick(int dirfd, const char* path, unsigned flags) {
  return fd_result(raw::fspick(dirfd, path, flags), "fspick");
}

Status mount_setattr(int dirfd, const char* path, unsigned flags, const mount_attr& attr) {
  return status_result(raw::mount_setattr(dirfd, path, flags, &attr, sizeof attr), "mount_setattr");
}

Status pivot_root(const char* new_root, const char* put_old) {
  return status_result(raw::pivot_root(new_root, put_old), "pivot_root");
}

Result<int> landlock_abi() {
  int r = raw::landlock_abi();
  if (r < 0) return Error(-r, "landlock_create_ruleset(LANDLOCK_CREATE_RULESET_VERSION)");
  return r;
}

Result<UniqueFd> landlock_create_ruleset(const void* attr, std::size_t size, std::uint32_t flags) {
  return fd_result(raw::landlock_create_ruleset(attr, size, flags), "landlock_create_ruleset");
}

Status landlock_add_rule(int ruleset_fd, int rule_type, const void* rule_attr, std::uint32_t flags) {
  return status_result(raw::landlock_add_rule(ruleset_fd, rule_type, rule_attr, flags), "landlock_add_rule");
}

Status landlock_restrict_self(int ruleset_fd, std::uint32_t flags) {
  return status_result(raw::landlock_restrict_self(ruleset_fd, flags), "landlock_restrict_self");
}

}  // namespace rf::base
