// SPDX-License-Identifier: LGPL-2.1-or-later
// The special file systems: /proc (new procfs, sensitive entries covered read-only) and the
// minimal /dev (host device nodes bound in, a private devpts instance).
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "mounts.hpp"
#include "resolve.hpp"
#include "ringfence/base/paths.hpp"

namespace rf::engine {
namespace {

using base::Error;
using base::Status;

std::string in_newroot(const std::string& dest) { return "/newroot" + base::normalize("/" + dest); }

// Entries of a procfs that can change the host when writable: covered by a read-only bind
// of themselves (skipped when absent or not writable by us, as under Docker's masks).
constexpr const char* kProcCovers[] = {"sys", "sysrq-trigger", "irq", "bus"};

constexpr const char* kDevNodes[] = {"null", "zero", "full", "random", "urandom", "tty"};

struct DevLink {
  const char* name;
  const char* target;
};
constexpr DevLink kDevLinks[] = {
    {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
    {"fd", "/proc/self/fd"},      {"core", "/proc/kcore"},       {"ptmx", "pts/ptmx"},
};

Status make_file_at(int dir_fd, const char* name, mode_t mode, const std::string& what) {
  int fd = ::openat(dir_fd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0 && errno != EEXIST) return base::errno_error(what);
  if (fd >= 0) ::close(fd);
  return {};
}

}  // namespace

Status mount_proc_in_child(const ChildContext& ctx, int root_fd, const spec::FsOp& op) {
  auto d = open_in_root(root_fd, op.dest, O_PATH | O_DIRECTORY);
  if (!d) return Error(d.error().code(), "Can't mkdir " + op.dest);
  if (ctx.ns.pid) {
    if (::mount("proc", fd_path(d->get()).c_str(), "proc", MS_NOSUID | MS_NOEXEC | MS_NODEV, nullptr) != 0)
      return base::errno_error("Can't mount proc on " + in_newroot(op.dest));
  } else {
    // Without a PID namespace a new procfs would show the same pids: bind the host's.
    Status s = bind_onto_in_child("/proc", root_fd, op.dest, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true);
    if (!s) return s;
  }
  auto proc = open_in_root(root_fd, op.dest, O_PATH | O_DIRECTORY);
  if (!proc) return Error(proc.error().code(), "Can't open " + op.dest);
  for (const char* entry : kProcCovers) {
    // The real ids decide, as access(2) does in bwrap: a non-zero sandbox uid cannot write
    // these entries after exec anyway.
    if (::faccessat(proc->get(), entry, W_OK, 0) != 0) continue;
    std::string sub = base::join(op.dest, entry);
    std::string src = "/oldroot/proc/self/fd/" + std::to_string(proc->get()) + "/" + entry;
    auto target = open_in_root(root_fd, sub, O_PATH);
    if (!target) continue;
    if (::mount(src.c_str(), fd_path(target->get()).c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
      return base::errno_error("Can't bind mount " + in_newroot(sub));
    auto mounted = open_in_root(root_fd, sub, O_PATH);
    if (!mounted) return Error(mounted.error().code(), "Can't remount readonly on " + in_newroot(sub));
    Status s = add_mount_attrs(mounted->get(), MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true);
    if (!s && s.error().code() != EROFS)
      return Error(s.error().code(), "Can't remount readonly on " + in_newroot(sub));
  }
  return {};
}

Status mount_dev_in_child(const ChildContext& ctx, int root_fd, const spec::FsOp& op) {
  auto d = open_in_root(root_fd, op.dest, O_PATH | O_DIRECTORY);
  if (!d) return Error(d.error().code(), "Can't mkdir " + op.dest);
  if (::mount("tmpfs", fd_path(d->get()).c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    return base::errno_error("Can't mount tmpfs on " + in_newroot(op.dest));
  auto dev = open_in_root(root_fd, op.dest, O_PATH | O_DIRECTORY);
  if (!dev) return Error(dev.error().code(), "Can't open " + op.dest);
  int dfd = dev->get();
  for (const char* node : kDevNodes) {
    std::string sub = base::join(op.dest, node);
    Status s = make_file_at(dfd, node, 0444, "Can't create file at " + sub);
    if (!s) return s;
    // Device access stays allowed on these binds (no nodev), setuid never.
    s = bind_onto_in_child(std::string("/dev/") + node, root_fd, sub, MOUNT_ATTR_NOSUID, false);
    if (!s) return s;
  }
  for (const auto& l : kDevLinks) {
    if (::symlinkat(l.target, dfd, l.name) != 0 && errno != EEXIST)
      return base::errno_error("Can't make symlink at " + base::join(op.dest, l.name));
  }
  if (::mkdirat(dfd, "shm", 0755) != 0 && errno != EEXIST)
    return base::errno_error("Can't mkdir " + base::join(op.dest, "shm"));
  if (::mkdirat(dfd, "pts", 0755) != 0 && errno != EEXIST)
    return base::errno_error("Can't mkdir " + base::join(op.dest, "pts"));
  std::string pts = base::join(op.dest, "pts");
  auto pts_fd = open_in_root(root_fd, pts, O_PATH | O_DIRECTORY);
  if (!pts_fd) return Error(pts_fd.error().code(), "Can't mount devpts on " + in_newroot(pts));
  if (::mount("devpts", fd_path(pts_fd->get()).c_str(), "devpts", MS_NOSUID | MS_NOEXEC,
              "newinstance,ptmxmode=0666,mode=620") != 0)
    return base::errno_error("Can't mount devpts on " + in_newroot(pts));
  if (!ctx.console_tty.empty()) {
    std::string console = base::join(op.dest, "console");
    Status s = make_file_at(dfd, "console", 0444, "Can't create file at " + console);
    if (!s) return s;
    s = bind_onto_in_child(ctx.console_tty, root_fd, console, MOUNT_ATTR_NOSUID, false);
    if (!s) return s;
  }
  return {};
}

}  // namespace rf::engine
