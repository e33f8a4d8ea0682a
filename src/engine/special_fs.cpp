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
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::engine {
namespace {

using base::Error;
using base::Status;

std::string in_newroot(const std::string& dest) { return "/newroot" + base::normalize("/" + dest); }

// Entries of a procfs that can change the host when writable: covered by a read-only bind
// of themselves (skipped when absent or not writable by us, as under Docker's masks).
constexpr const char* kProcCovers[] = {"sys", "sysrq-trigger", "irq", "bus"};

// With spec.proc_masks (native mode): entries that tell about the host or its users without
// changing anything, hidden behind an empty read-only file (or an empty read-only tmpfs for a
// directory): key names of the caller's keyrings, timer and scheduler state, kernel memory maps.
constexpr const char* kProcMasks[] = {"keys",         "key-users",     "timer_list",  "timer_stats",
                                      "sched_debug",  "latency_stats", "vmallocinfo", "slabinfo",
                                      "pagetypeinfo", "kcore",         "kpageflags",  "kpagecount",
                                      "kpagecgroup",  "acpi",          "scsi",        "asound"};

constexpr const char* kDevNodes[] = {"null", "zero", "full", "random", "urandom", "tty"};

struct DevLink {
  const char* name;
  const char* target;
};
constexpr DevLink kDevLinks[] = {
    {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
    {"fd", "/proc/self/fd"},      {"core", "/proc/kcore"},       {"ptmx", "pts/ptmx"},
};

// An empty file in a directory we made ourselves (so no symlink can stand there), to mount on.
base::Result<base::UniqueFd> make_file_at(int dir_fd, const char* name, const std::string& what) {
  int fd = ::openat(dir_fd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
  if (fd < 0) return base::errno_error(what);
  return base::UniqueFd(fd);
}

// The scratch tmpfs (the cwd root during setup, never visible afterwards) holds the empty file
// the masks bind.
Status mask_proc_entries_in_child(int proc_fd, int root_fd, const std::string& proc_dest) {
  const char* empty = "/proc-mask-empty";
  base::UniqueFd made(::open(empty, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444));
  if (!made.valid()) return base::errno_error("Can't create the empty file for /proc masks");
  made.reset();
  Status result;
  for (const char* entry : kProcMasks) {
    struct stat st {};
    if (::fstatat(proc_fd, entry, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // not in this kernel
    std::string sub = base::join(proc_dest, entry);
    auto target = open_in_root(root_fd, sub, O_PATH | O_NOFOLLOW);
    if (!target) continue;
    if (S_ISDIR(st.st_mode)) {
      if (::mount("tmpfs", fd_path(target->get()).c_str(), "tmpfs",
                  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=0,mode=0555") != 0) {
        result = base::errno_error("Can't hide " + in_newroot(sub));
        break;
      }
      continue;
    }
    if (auto s = bind_onto_in_child(
            empty, target->get(), root_fd, sub,
            MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, false);
        !s) {
      result = std::move(s);
      break;
    }
  }
  ::unlink(empty);
  return result;
}

// Shell off: a memfd is outside every Landlock hierarchy, so a copy of any program in one would
// run past the execute rule. vm.memfd_noexec is per PID namespace (it can only be raised below
// the host's): 2 makes every memfd of this one non-executable and refuses MFD_EXEC. Only the
// host's root may write it (sysctl files check the global uid), and kernels before 6.3 have no
// such setting: then it is left as it is, and the dry run says so.
Status refuse_memfd_exec(int proc_fd) {
  base::UniqueFd f(::openat(proc_fd, "sys/vm/memfd_noexec", O_WRONLY | O_CLOEXEC));
  if (!f.valid()) {
    if (errno == ENOENT || errno == EACCES) return {};
    return base::errno_error("shell off: cannot open /proc/sys/vm/memfd_noexec");
  }
  if (auto w = base::write_all(f.get(), "2"); !w)
    return w.error().reworded("shell off: cannot set vm.memfd_noexec: " + w.error().describe());
  return {};
}

}  // namespace

Status mount_proc_in_child(const ChildContext& ctx, int root_fd, int dir_fd, const spec::FsOp& op) {
  if (ctx.ns.pid || ctx.spec->pidns_fd) {  // our own pid namespace: a procfs of its own
    if (::mount("proc", fd_path(dir_fd).c_str(), "proc", MS_NOSUID | MS_NOEXEC | MS_NODEV, nullptr) != 0)
      return base::errno_error("Can't mount proc on " + in_newroot(op.dest));
  } else {
    // Without a PID namespace a new procfs would show the same pids: bind the host's.
    RF_TRY(bind_onto_in_child("/oldroot/proc", dir_fd, root_fd, op.dest, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                              true));
  }
  auto proc = open_in_root(root_fd, op.dest, O_PATH | O_DIRECTORY);
  if (!proc) return proc.error().reworded("Can't open " + op.dest);
  if (ctx.spec->restrict_exec && (ctx.ns.pid || ctx.spec->pidns_fd)) RF_TRY(refuse_memfd_exec(proc->get()));
  for (const char* entry : kProcCovers) {
    // The real ids decide, as access(2) does in bwrap: a non-zero sandbox uid cannot write
    // these entries after exec anyway. That test misses what a uid 0 mapped to the host's
    // root may still write without capabilities (sysctl entries check the owner's mode bits,
    // and /proc/sys itself answers EACCES to W_OK), so native mode covers them regardless.
    if (!ctx.spec->proc_masks && ::faccessat(proc->get(), entry, W_OK, 0) != 0) continue;
    if (::faccessat(proc->get(), entry, F_OK, AT_SYMLINK_NOFOLLOW) != 0) continue;
    std::string sub = base::join(op.dest, entry);
    auto target = open_in_root(root_fd, sub, O_PATH);
    if (!target) continue;
    RF_TRY(bind_onto_in_child(fd_path(proc->get()) + "/" + entry, target->get(), root_fd, sub,
                              MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true));
  }
  if (ctx.spec->proc_masks) RF_TRY(mask_proc_entries_in_child(proc->get(), root_fd, op.dest));
  return {};
}

Status mount_dev_in_child(const ChildContext& ctx, int root_fd, int dir_fd, const spec::FsOp& op) {
  std::string opts = "mode=0755" + tmpfs_bounds(op.size, op.inodes);
  if (::mount("tmpfs", fd_path(dir_fd).c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()) != 0)
    return base::errno_error("Can't mount tmpfs on " + in_newroot(op.dest));
  auto dev = open_in_root(root_fd, op.dest, O_PATH | O_DIRECTORY);
  if (!dev) return dev.error().reworded("Can't open " + op.dest);
  int dfd = dev->get();
  for (const char* node : kDevNodes) {
    std::string sub = base::join(op.dest, node);
    auto file = make_file_at(dfd, node, "Can't create file at " + sub);
    if (!file) return std::move(file.error());
    // Device access stays allowed on these binds (no nodev), setuid never.
    RF_TRY(bind_onto_in_child(std::string("/oldroot/dev/") + node, file->get(), root_fd, sub,
                              MOUNT_ATTR_NOSUID, false));
  }
  for (const auto& l : kDevLinks) {
    if (::symlinkat(l.target, dfd, l.name) != 0)
      return base::errno_error("Can't make symlink at " + base::join(op.dest, l.name));
  }
  if (::mkdirat(dfd, "shm", 0755) != 0) return base::errno_error("Can't mkdir " + base::join(op.dest, "shm"));
  std::string pts = base::join(op.dest, "pts");
  if (::mkdirat(dfd, "pts", 0755) != 0) return base::errno_error("Can't mkdir " + pts);
  base::UniqueFd pts_fd(::openat(dfd, "pts", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!pts_fd.valid() || ::mount("devpts", fd_path(pts_fd.get()).c_str(), "devpts", MS_NOSUID | MS_NOEXEC,
                                 "newinstance,ptmxmode=0666,mode=620") != 0)
    return base::errno_error("Can't mount devpts on " + in_newroot(pts));
  if (!ctx.console_tty.empty()) {
    std::string console = base::join(op.dest, "console");
    auto file = make_file_at(dfd, "console", "Can't create file at " + console);
    if (!file) return std::move(file.error());
    RF_TRY(bind_onto_in_child("/oldroot" + ctx.console_tty, file->get(), root_fd, console, MOUNT_ATTR_NOSUID,
                              false));
  }
  return {};
}

}  // namespace rf::engine
