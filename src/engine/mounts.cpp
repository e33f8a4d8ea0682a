// SPDX-License-Identifier: LGPL-2.1-or-later
// The new root and the ordered filesystem ops (bwrap semantics, in-root resolution).
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "mounts.hpp"
#include "resolve.hpp"
#include "ringfence/base/mountinfo.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::engine {
namespace {

using base::Error;
using base::Status;
using base::UniqueFd;
using spec::FsOp;
using spec::OpKind;

// Where the scratch tmpfs goes: a directory every host has; it is hidden by the pivot.
constexpr const char* kBaseCandidates[] = {"/tmp", "/var/tmp", "/mnt", "/run"};

Error fail(const std::string& what) { return base::errno_error(what); }

std::string octal(mode_t m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%#o", static_cast<unsigned>(m));
  return buf;
}

// Mode for parent directories created on the way to an op's destination: group and other
// bits that the op's own mode withholds are withheld from the parents too.
mode_t parent_mode_for(const FsOp& op) {
  mode_t m = 0755;
  if (op.perms) {
    if ((*op.perms & 0070) == 0) m &= ~0070u;
    if ((*op.perms & 0007) == 0) m &= ~0007u;
  }
  return m;
}

// Fallback for kernels without mount_setattr: remount every mount at or below `path`.
Status remount_tree_classic(const std::string& path, unsigned long ms_flags, bool recursive) {
  auto text = base::read_file("/oldroot/proc/self/mountinfo");
  if (!text) return std::move(text.error());
  auto mounts = base::parse_mountinfo(*text);
  if (!mounts) return std::move(mounts.error());
  for (const auto& m : *mounts) {
    if (m.mount_point != path && !(recursive && base::is_under(m.mount_point, path))) continue;
    unsigned long keep = 0;
    if (m.has_option("ro")) keep |= MS_RDONLY;
    if (m.has_option("nosuid")) keep |= MS_NOSUID;
    if (m.has_option("nodev")) keep |= MS_NODEV;
    if (m.has_option("noexec")) keep |= MS_NOEXEC;
    if (::mount("none", m.mount_point.c_str(), nullptr, MS_REMOUNT | MS_BIND | keep | ms_flags, nullptr) != 0 &&
        !(errno == EACCES && m.mount_point != path))
      return fail("remount " + m.mount_point);
  }
  return {};
}

}  // namespace

Status add_mount_attrs(int fd, unsigned long attrs, bool recursive) {
  if (attrs == 0) return {};
  mount_attr a{};
  a.attr_set = attrs;
  unsigned flags = AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0u);
  if (::mount_setattr(fd, "", flags, &a, sizeof a) == 0) return {};
  if (errno != ENOSYS) return fail("mount_setattr");
  char target[4096];
  ssize_t n = ::readlink(fd_path(fd).c_str(), target, sizeof target - 1);
  if (n < 0) return fail("readlink " + fd_path(fd));
  target[n] = 0;
  unsigned long ms = ((attrs & MOUNT_ATTR_RDONLY) ? MS_RDONLY : 0) | ((attrs & MOUNT_ATTR_NOSUID) ? MS_NOSUID : 0) |
                     ((attrs & MOUNT_ATTR_NODEV) ? MS_NODEV : 0);
  return remount_tree_classic(target, ms, recursive);
}

namespace {

Status op_bind(const ChildContext&, int root_fd, const ResolvedOp& r) {
  const FsOp& op = r.op;
  unsigned long attrs = MOUNT_ATTR_NOSUID;
  if (op.kind != OpKind::DevBind) attrs |= MOUNT_ATTR_NODEV;
  if (op.kind == OpKind::RoBind) attrs |= MOUNT_ATTR_RDONLY;
  // The mount point: a directory for a directory source, else an empty file (parents 0755).
  if (r.source_is_dir) {
    auto d = mkdir_p_in_root(root_fd, op.dest, 0755);
    if (!d) return Error(d.error().code(), "Can't mkdir " + op.dest);
  } else {
    auto parent = mkdir_p_in_root(root_fd, base::parent(op.dest), 0755);
    if (!parent) return Error(parent.error().code(), "Can't mkdir parents for " + op.dest);
    auto last = base::components(op.dest);
    std::string name = last.empty() ? "." : last.back();
    int fd = ::openat(parent->get(), name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
    if (fd >= 0) {
      ::close(fd);
    } else if (errno != EEXIST) {
      return fail("Can't create file at " + op.dest);
    }
  }
  return bind_onto_in_child(r.host_source, root_fd, op.dest, attrs, true);
}

Status op_tmpfs(int root_fd, const FsOp& op) {
  mode_t mode = op.perms.value_or(0755);
  auto d = mkdir_p_in_root(root_fd, op.dest, parent_mode_for(op));
  if (!d) return Error(d.error().code(), "Can't mkdir " + op.dest);
  std::string opts = "mode=" + octal(mode);
  if (op.size) opts += ",size=" + std::to_string(*op.size);
  if (::mount("tmpfs", fd_path(d->get()).c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()) != 0)
    return fail("Can't mount tmpfs on /newroot" + base::normalize("/" + op.dest));
  return {};
}

Status op_mqueue(int root_fd, const FsOp& op) {
  auto d = mkdir_p_in_root(root_fd, op.dest, 0755);
  if (!d) return Error(d.error().code(), "Can't mkdir " + op.dest);
  if (::mount("mqueue", fd_path(d->get()).c_str(), "mqueue", 0, nullptr) != 0)
    return fail("Can't mount mqueue on /newroot" + base::normalize("/" + op.dest));
  return {};
}

Status op_dir(int root_fd, const FsOp& op) {
  auto parent = mkdir_p_in_root(root_fd, base::parent(op.dest), parent_mode_for(op));
  if (!parent) return Error(parent.error().code(), "Can't mkdir " + op.dest);
  auto comps = base::components(op.dest);
  if (comps.empty()) return {};
  if (::mkdirat(parent->get(), comps.back().c_str(), op.perms.value_or(0755)) != 0 && errno != EEXIST)
    return fail("Can't mkdir " + op.dest);
  // An existing entry must be (or lead in-root to) a directory.
  auto d = open_in_root(root_fd, op.dest, O_PATH | O_DIRECTORY);
  if (!d) return Error(d.error().code(), "Can't mkdir " + op.dest);
  return {};
}

Status op_symlink(int root_fd, const FsOp& op) {
  auto parent = mkdir_p_in_root(root_fd, base::parent(op.dest), 0755);
  if (!parent) return Error(parent.error().code(), "Can't make symlink at " + op.dest);
  auto comps = base::components(op.dest);
  std::string name = comps.empty() ? "." : comps.back();
  if (::symlinkat(op.source.c_str(), parent->get(), name.c_str()) == 0) return {};
  if (errno != EEXIST) return fail("Can't make symlink at " + op.dest);
  // Idempotent: an existing link with exactly this target is fine (bwrap >= 0.9).
  char target[4096];
  ssize_t n = ::readlinkat(parent->get(), name.c_str(), target, sizeof target - 1);
  if (n < 0)
    return Error(0, "Can't make symlink at " + op.dest + ": destination exists and is not a symlink");
  target[n] = 0;
  if (op.source != target)
    return Error(0, "Can't make symlink at " + op.dest + ": existing destination is " + target);
  return {};
}

Status op_chmod(int root_fd, const FsOp& op) {
  mode_t mode = op.perms.value_or(0);
  std::string what = "Can't chmod " + octal(mode) + " " + op.dest;
  auto fd = open_in_root(root_fd, op.dest, O_PATH);
  if (!fd) return Error(fd.error().code(), what);
  if (::chmod(fd_path(fd->get()).c_str(), mode) != 0) return fail(what);
  return {};
}

Status op_remount_ro(int root_fd, const FsOp& op) {
  std::string what = "Can't remount readonly on /newroot" + base::normalize("/" + op.dest);
  auto fd = open_in_root(root_fd, op.dest, O_PATH);
  if (!fd) return Error(fd.error().code(), what + ": realpath(destination)");
  Status s = add_mount_attrs(fd->get(), MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false);
  if (!s) return Error(s.error().code(), what);
  return {};
}

}  // namespace

Status bind_onto_in_child(const std::string& host_path, int root_fd, const std::string& dest, unsigned long attrs,
                          bool recursive) {
  std::string src = "/oldroot" + host_path;
  std::string what = "Can't bind mount " + src + " on /newroot" + base::normalize("/" + dest);
  auto target = open_in_root(root_fd, dest, O_PATH);
  if (!target) return Error(target.error().code(), what);
  if (::mount(src.c_str(), fd_path(target->get()).c_str(), nullptr, MS_BIND | (recursive ? MS_REC : 0), nullptr) != 0)
    return fail(what);
  // Re-open: the old fd still names the directory underneath the new mount.
  auto mounted = open_in_root(root_fd, dest, O_PATH);
  if (!mounted) return Error(mounted.error().code(), what);
  Status s = add_mount_attrs(mounted->get(), attrs, recursive);
  if (!s) return Error(s.error().code(), what + ": " + s.error().message());
  return {};
}

Status prepare_root_in_child() {
  // Host mounts propagate in, nothing we do propagates out.
  if (::mount(nullptr, "/", nullptr, MS_SLAVE | MS_REC, nullptr) != 0) return fail("Failed to make / slave");
  const char* base_dir = nullptr;
  for (const char* cand : kBaseCandidates) {
    if (::mount("tmpfs", cand, "tmpfs", MS_NODEV | MS_NOSUID, nullptr) == 0) {
      base_dir = cand;
      break;
    }
    if (errno != ENOENT && errno != ENOTDIR) return fail(std::string("Failed to mount tmpfs on ") + cand);
  }
  if (base_dir == nullptr) return fail("Failed to mount tmpfs: no base directory");
  if (::chdir(base_dir) != 0) return fail(std::string("chdir ") + base_dir);
  if (::mkdir("newroot", 0755) != 0) return fail("Creating newroot failed");
  if (::mount("newroot", "newroot", nullptr, MS_BIND | MS_REC, nullptr) != 0)
    return fail("setting up newroot bind");
  if (::mkdir("oldroot", 0755) != 0) return fail("Creating oldroot failed");
  if (syscall(SYS_pivot_root, base_dir, "oldroot") != 0) return fail("pivot_root");
  if (::chdir("/") != 0) return fail("chdir / (after pivot)");
  return {};
}

Status apply_ops_in_child(const ChildContext& ctx) {
  for (const auto& r : ctx.ops) {
    if (r.skip) continue;
    // Opened per op: an earlier op may have mounted over the root itself (--bind / /), and a
    // stale fd would resolve in the directory underneath.
    auto root = base::open_fd("/newroot", O_PATH | O_DIRECTORY);
    if (!root) return std::move(root.error());
    int rfd = root->get();
    const FsOp& op = r.op;
    Status s;
    switch (op.kind) {
      case OpKind::Bind:
      case OpKind::RoBind:
      case OpKind::DevBind: s = op_bind(ctx, rfd, r); break;
      case OpKind::RemountRo: s = op_remount_ro(rfd, op); break;
      case OpKind::Tmpfs: s = op_tmpfs(rfd, op); break;
      case OpKind::Proc: s = mount_proc_in_child(ctx, rfd, op); break;
      case OpKind::Dev: s = mount_dev_in_child(ctx, rfd, op); break;
      case OpKind::Mqueue: s = op_mqueue(rfd, op); break;
      case OpKind::Dir: s = op_dir(rfd, op); break;
      case OpKind::Symlink: s = op_symlink(rfd, op); break;
      case OpKind::Chmod: s = op_chmod(rfd, op); break;
    }
    if (!s) return s;
  }
  return {};
}

Status finish_root_in_child() {
  // The host tree must not stay reachable: make it private (so the detach does not propagate
  // back to the host) and detach it lazily.
  if (::mount("oldroot", "/oldroot", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return fail("Failed to make old root rprivate");
  if (::umount2("/oldroot", MNT_DETACH) != 0) return fail("unmount old root");
  // Second pivot: /newroot becomes "/", the scratch tmpfs is stacked under it and detached.
  if (::chdir("/newroot") != 0) return fail("chdir /newroot");
  if (syscall(SYS_pivot_root, ".", ".") != 0) return fail("pivot_root(/newroot)");
  if (::umount2(".", MNT_DETACH) != 0) return fail("unmount old root");
  if (::chdir("/") != 0) return fail("chdir /");
  return {};
}

}  // namespace rf::engine
