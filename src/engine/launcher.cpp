// SPDX-License-Identifier: LGPL-2.1-or-later
// The kernel jail's side of the launch (launch_phases.hpp): prepare everything the child needs,
// clone3 into the new namespaces, the launcher's step at sync point 1; and the engine's entry
// point. The child writes its own id maps, so the launcher never has to hand off to it on the
// common path.
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "child.hpp"
#include "context.hpp"
#include "launch_phases.hpp"
#include "overlay.hpp"
#include "resolve.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/log.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/engine/launch.hpp"
#include "ringfence/spec/validate.hpp"
#include "status_fd.hpp"
#include "steps.hpp"
#include "sync.hpp"

extern char** environ;

namespace rf::engine {
namespace {

using base::Error;
using base::Result;
using base::Status;

// seal_launcher ran: 1 when the launcher was dumpable before (its clones restore that).
int dumpable_before_seal = -1;

bool userns_available() {
  if (::access("/proc/self/ns/user", F_OK) != 0) return false;
  auto max = base::read_file("/proc/sys/user/max_user_namespaces");
  if (max && std::atol(max->c_str()) == 0) return false;
  return true;
}

}  // namespace

std::vector<std::string> final_environment(const spec::Spec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  auto erase = [&env](const std::string& name) {
    std::erase_if(env,
                  [&](const std::string& kv) { return kv.compare(0, name.size() + 1, name + "=") == 0; });
  };
  for (const auto& op : spec.env_ops) {
    switch (op.kind) {
      case spec::EnvOp::Kind::Clear: env.clear(); break;
      case spec::EnvOp::Kind::Unset: erase(op.name); break;
      case spec::EnvOp::Kind::Set:
        erase(op.name);
        env.push_back(op.name + "=" + op.value);
        break;
    }
  }
  erase("PWD");  // set by the child to the final working directory
  return env;
}

namespace {

std::string env_value(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& kv : env)
    if (kv.compare(0, name.size() + 1, name + "=") == 0) return kv.substr(name.size() + 1);
  return {};
}

// A source in a tree the sandbox can write, looked at without following a link: its stat, or
// nothing when it is missing.
Result<std::optional<struct stat>> look_beneath(const spec::FsOp& op) {
  const std::string& top = op.source_beneath;
  if (!base::is_under(op.source, top))
    return base::Error(EINVAL, "Can't find source path " + op.source + ": not below " + top);
  base::UniqueFd dir(::open(top.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return base::errno_error("Can't find source path " + op.source + ": " + top);
  std::string rel = op.source == top ? "" : op.source.substr(top == "/" ? 1 : top.size() + 1);
  auto fd = open_beneath(dir.get(), rel, O_PATH | O_NOFOLLOW);
  if (!fd && fd.error().code() == ENOENT) return std::optional<struct stat>();
  if (!fd && fd.error().code() == ELOOP)
    return base::Error(ELOOP, "Can't bind " + op.source + ": a path below " + top +
                                  " leads through a symbolic link (links in a tree the sandbox can "
                                  "write are not followed)");
  if (!fd) return fd.error().reworded("Can't find source path " + op.source);
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return base::errno_error("Can't find source path " + op.source);
  if (S_ISLNK(st.st_mode))
    return base::Error(ELOOP, "Can't bind " + op.source +
                                  ": it is a symbolic link (links in a tree the sandbox can write "
                                  "are not followed)");
  return std::optional<struct stat>(st);
}

// Bind sources are resolved as the caller, on the host's view, before clone (bwrap does the
// same before its pivot, so FUSE mounts of the caller work).
Status resolve_sources(const spec::Spec& spec, spec::OwnedFds& fds, std::vector<ResolvedOp>& out) {
  for (const auto& op : spec.fs_ops) {
    ResolvedOp r;
    r.op = op;
    bool is_bind =
        op.kind == spec::OpKind::Bind || op.kind == spec::OpKind::RoBind || op.kind == spec::OpKind::DevBind;
    if (is_bind && op.source_in_sandbox) {
      // Bound from the new root by the child, which sees what it is.
    } else if (is_bind && !op.source_beneath.empty()) {
      auto found = look_beneath(op);
      if (!found) return std::move(found.error());
      if (!*found && op.allow_missing) {
        r.skip = true;
        out.push_back(std::move(r));
        continue;
      }
      if (!*found) return base::Error(ENOENT, "Can't find source path " + op.source);
      const struct stat& st = **found;
      r.host_source = op.source;
      r.source_is_dir = S_ISDIR(st.st_mode);
      r.source_dev = st.st_dev;
      r.source_ino = st.st_ino;
    } else if (is_bind && op.fd.valid()) {
      // --bind-fd: the fd is the source; its path is only for messages.
      char buf[PATH_MAX];
      struct stat st {};
      if (::realpath(op.source.c_str(), buf) == nullptr || ::fstat(op.fd.num, &st) != 0)
        return base::errno_error("Can't find source path " + op.source);
      r.host_source = buf;
      r.source_is_dir = S_ISDIR(st.st_mode);
      r.source_dev = st.st_dev;
      r.source_ino = st.st_ino;
    } else if (is_bind) {
      char buf[PATH_MAX];
      if (::realpath(op.source.c_str(), buf) == nullptr) {
        if (errno == ENOENT && op.allow_missing) {
          r.skip = true;
          out.push_back(std::move(r));
          continue;
        }
        return base::errno_error("Can't find source path " + op.source);
      }
      struct stat st {};
      if (::stat(buf, &st) != 0) return base::errno_error("Can't find source path " + op.source);
      r.host_source = buf;
      r.source_is_dir = S_ISDIR(st.st_mode);
    }
    if (op.kind == spec::OpKind::Overlay || op.kind == spec::OpKind::TmpOverlay ||
        op.kind == spec::OpKind::RoOverlay)
      RF_TRY(resolve_overlay_sources(r));
    if ((op.kind == spec::OpKind::File || op.kind == spec::OpKind::BindData ||
         op.kind == spec::OpKind::RoBindData) &&
        !op.empty) {
      // Read once here and closed, as bwrap consumes these fds; the child writes the copy.
      base::UniqueFd fd = fds.take(op.fd);
      auto data = base::read_all(fd.get());
      if (!data) return data.error().reworded("Can't write data to file " + op.dest);
      r.data = std::move(*data);
    }
    out.push_back(std::move(r));
  }
  return {};
}

unsigned long long clone_flags(const spec::Spec& spec, const spec::Namespaces& ns) {
  unsigned long long f = CLONE_NEWNS;
  if (ns.user) f |= CLONE_NEWUSER;
  if (ns.ipc) f |= CLONE_NEWIPC;
  if (ns.pid && !spec.pidns_fd) f |= CLONE_NEWPID;  // with --pidns the child makes it, inside
  if (ns.net) f |= CLONE_NEWNET;
  if (ns.uts) f |= CLONE_NEWUTS;
  if (ns.cgroup) f |= CLONE_NEWCGROUP;
  return f;
}

// Fork-style clone into new namespaces: clone3 where the kernel has it, else clone.
// After seal_launcher a clone would start non-dumpable, yet the child writes its own id maps
// through /proc/self and the launcher opens its namespaces in /proc/PID/ns from the first
// moment: with a new PID namespace (the launcher is not in the sandbox's /proc) the launcher is
// dumpable again for the instant of the clone, so the child starts as it would have before.
pid_t clone_into(unsigned long long flags) {
  const bool unseal = dumpable_before_seal == 1 && (flags & CLONE_NEWPID) != 0;
  if (unseal) ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  pid_t pid = base::raw::clone_fork(flags);  // -errno on failure, errno set
  if (pid != 0 && unseal) {
    const int saved = errno;
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    errno = saved;
  }
  return pid;
}

Error clone_error(int err, const spec::Namespaces& ns, bool privileged) {
  if (err == EINVAL && ns.user)
    return Error(
        0,
        "Creating new namespace failed, likely because the kernel does not support user namespaces.  "
        "bwrap must be installed setuid on such systems.");
  if (err == EPERM && !privileged)
    return Error(0,
                 "No permissions to creating new namespace, likely because the kernel does not allow "
                 "non-privileged user namespaces. See <https://deb.li/bubblewrap> or "
                 "<file:///usr/share/doc/bubblewrap/README.Debian.gz>.");
  if (err == ENOSPC)
    return Error(0,
                 "Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded "
                 "(ENOSPC)");
  return Error(err, "Creating new namespace failed");
}

// The parent's one step while the child waits at its first sync point: bwrap's status
// outputs, and --userns-block-fd (an outside tool writes the id maps meanwhile).
Status parent_step(const spec::Spec& spec, spec::OwnedFds& fds, const ChildContext& ctx, pid_t pid,
                   int go_fd) {
  RF_TRY_ASSIGN(ids, namespace_ids_from_parent(pid, ctx.ns));
  if (spec.info_fd) {
    base::UniqueFd info = fds.take(*spec.info_fd);
    if (auto w = base::write_all(info.get(), status_json(pid, ids, true)); !w)
      return w.error().reworded("Write to info_fd");
  }
  if (spec.json_status_fd)  // bwrap words a failure here as for the info fd
    if (auto w = base::write_all(spec.json_status_fd->num, status_json(pid, ids, false)); !w)
      return w.error().reworded("Write to info_fd");
  if (spec.userns_block_fd) {
    base::UniqueFd block = fds.take(*spec.userns_block_fd);
    char b;
    (void)base::raw::read(block.get(), &b, 1);
  }
  if (auto w = base::write_all(go_fd, "g"); !w) return w.error().reworded("Can't release the child");
  return {};
}

}  // namespace

Status seal_launcher() {
  // The block's bounds are fields 50 and 51 of /proc/self/stat (env_start, env_end); the
  // command name (field 2) may hold spaces and parentheses, so fields are counted after the
  // last ')'.
  RF_TRY_ASSIGN(stat, base::read_file("/proc/self/stat"));
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return Error(EINVAL, "/proc/self/stat: unexpected format");
  std::vector<unsigned long> fields;  // from field 3 on
  const char* p = stat.c_str() + close + 1;
  while (*p) {
    char* end = nullptr;
    while (*p == ' ') ++p;
    if (!*p || *p == '\n') break;
    unsigned long v = std::strtoul(p, &end, 10);
    if (end == p) v = 0, end = const_cast<char*>(p) + 1;  // the state letter
    while (*end && *end != ' ') ++end;
    fields.push_back(v);
    p = end;
  }
  if (fields.size() < 49) return Error(EINVAL, "/proc/self/stat has no env_start/env_end (Linux < 3.5)");
  const unsigned long start = fields[50 - 3], end = fields[51 - 3];
  ::clearenv();
  if (end > start) std::memset(reinterpret_cast<void*>(start), 0, end - start);
  const int before = ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return base::errno_error("prctl(PR_SET_DUMPABLE, 0)");
  dumpable_before_seal = before;
  return {};
}

// ---- the kernel jail's phases (launch_phases.hpp) ------------------------------------------

Status Launch::prepare_kernel() {
  const spec::Spec& spec = spec_;
  ChildContext& ctx = ctx_;
  ctx.real_uid = ::getuid();
  ctx.real_gid = ::getgid();
  ctx.privileged = ctx.real_uid == 0;
  // Host probes only where an answer changes something (each costs system calls).
  bool want_cgroup = spec.ns.cgroup || spec.ns.cgroup_try;
  bool have_cgroupns = want_cgroup && ::access("/proc/self/ns/cgroup", F_OK) == 0;
  bool have_userns = spec.ns.user_try && ctx.privileged && userns_available();
  ctx.ns = spec::effective_namespaces(spec, ctx.real_uid, have_userns, have_cgroupns);
  if (spec.ns.cgroup && !have_cgroupns)
    return Error(0, "Cannot create new cgroup namespace because the kernel does not support it");
  RF_TRY(spec::validate(spec, ctx.ns, ctx.real_uid, ctx.real_gid));
  ctx.sandbox_uid = spec.uid.value_or(ctx.real_uid);
  ctx.sandbox_gid = spec.gid.value_or(ctx.real_gid);
  bool has_dev = std::any_of(spec.fs_ops.begin(), spec.fs_ops.end(),
                             [](const spec::FsOp& op) { return op.kind == spec::OpKind::Dev; });
  // Setup runs as uid/gid 0 of the first user namespace when devpts needs them (bwrap's rule),
  // and a nested one maps the sandbox ids; --disable-userns nests too (to lock the limit).
  // (Not with --userns-block-fd: the outside tool's maps are final.)
  ctx.devpts_ids =
      ctx.ns.user && has_dev && (ctx.sandbox_uid != 0 || ctx.sandbox_gid != 0) && !spec.userns_block_fd;
  ctx.nested_userns = ctx.devpts_ids || spec.disable_userns;
  // (--pidns: the final process waits until the launcher has reaped the intermediates.)
  const bool want_late_masks = !spec.supervision.late_masks.patterns.empty() &&
                               !spec.supervision.late_masks.host_dir.empty() && ctx.ns.user;
  ctx.parent_step =
      spec.info_fd || spec.json_status_fd || spec.userns_block_fd || spec.pidns_fd || want_late_masks;
  ctx.reaper = !spec.as_pid_1 && (ctx.ns.pid || spec.sync_fd || !spec.lock_files.empty());
  ctx.env = final_environment(spec);
  ctx.restore_dumpable = dumpable_before_seal == 1 && !ctx.ns.pid;
  if (spec.hide_launcher_argv)
    if (auto cmdline = base::read_file("/proc/self/cmdline")) ctx.argv_area_len = cmdline->size();
  ctx.home = env_value(ctx.env, "HOME");
  RF_TRY(resolve_sources(spec, fds_, ctx.ops));
  ctx.seccomp = spec.seccomp;
  if (spec.seccomp_fd) {
    base::UniqueFd fd = fds_.take(*spec.seccomp_fd);
    auto data = base::read_all(fd.get());
    if (!data) return data.error().reworded("Can't read seccomp data");
    // Each classic-BPF instruction (struct sock_filter) is 8 bytes.
    if (data->size() % 8 != 0) return Error(0, "Invalid seccomp data, must be multiple of 8");
    ctx.seccomp.push_back({std::move(*data)});
  }
  if (char cwd[PATH_MAX]; ::getcwd(cwd, sizeof cwd) != nullptr) ctx.old_cwd = cwd;
  for (const auto& op : spec.fs_ops)
    if (op.kind == spec::OpKind::Dev && ::isatty(1))
      if (const char* tty = ::ttyname(1)) ctx.console_tty = tty;
  if (ctx.privileged) ctx.caller_caps = caller_effective_caps_from_parent();
  ctx.umask = ::umask(0);
  ::umask(ctx.umask);

  // Sync point 1 (the child waits for the parent) only where the parent has a step to do.
  int pipefd[2];
  if (ctx.parent_step) {
    if (::pipe2(pipefd, O_CLOEXEC) != 0) return base::errno_error("pipe2");
    go_rd_.reset(pipefd[0]);
    go_wr_.reset(pipefd[1]);
    ctx.go_fd = go_rd_.get();
  }
  // Sync point 2 (the root is complete; the launcher covers every masked name) only with late
  // masks: other starts keep their speed.
  if (want_late_masks) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return base::errno_error("socketpair");
    masks_sync_.reset(sv[0]);
    masks_sync_child_.reset(sv[1]);
    ctx.masks_sync_fd = masks_sync_child_.get();
  }
  if (spec.pidns_fd) {
    RF_TRY(make_pid_socket_from_parent(pid_rd_, pid_wr_));
    ctx.pid_sock = pid_wr_.get();
  }
  // The launcher dies with its caller too, so the chain caller -> launcher -> sandbox holds:
  // by a death signal (bwrap's way: it fires when the parent *thread* exits), or in native mode
  // by watching the parent process.
  if (spec.die_with_parent && !spec.supervision.watch_parent_process &&
      prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    return base::errno_error("prctl(PR_SET_PDEATHSIG)");
  return {};
}

Status Launch::spawn_kernel() {
  const spec::Spec& spec = spec_;
  // --userns: the launcher joins the caller's namespace before clone, so the child starts
  // there with all capabilities in it; no maps are written (the namespace has them).
  if (spec.userns_fd && ::setns(spec.userns_fd->num, CLONE_NEWUSER) != 0) {
    if (errno == EINVAL)
      return Error(0,
                   "Joining the specified user namespace failed, it might not be a descendant of the current "
                   "user namespace.");
    return base::errno_error("Joining specified user namespace failed");
  }
  // The reaper program pid 1 becomes once the command runs (reaper_exec.cpp).
  reaper_fd_.reset(ctx_.reaper ? make_reaper_memfd_from_parent() : -1);
  ctx_.reaper_fd = reaper_fd_.get();
  pid_t pid = clone_into(clone_flags(spec, ctx_.ns));
  if (pid < 0) return clone_error(errno, ctx_.ns, ctx_.privileged);
  if (pid == 0) {
    status_rd_.reset();
    go_wr_.reset();
    pid_rd_.reset();
    masks_sync_.reset();
    supervision_->in_child();
    run_child(ctx_);
  }
  clone_pid_ = pid;
  reaper_fd_.reset();
  go_rd_.reset();
  pid_wr_.reset();
  masks_sync_child_.reset();
  return {};
}

Status Launch::sync_kernel() {
  const spec::Spec& spec = spec_;
  // The child waits at sync point 1 (with late masks it does): its namespaces are opened now.
  if (ctx_.parent_step) RF_TRY(supervision_->start_late_masks(clone_pid_));
  // --userns2: the launcher follows the sandbox into that namespace, as bwrap's monitor does.
  if (spec.userns2_fd && ::setns(spec.userns2_fd->num, CLONE_NEWUSER) != 0)
    return base::errno_error("Setting userns2 failed");
  if (spec.pidns_fd) {
    // From here on pid_ is the sandbox process (bwrap's child-pid); below a second pid
    // namespace it is the child of that namespace's parent's init, not ours.
    RF_TRY_ASSIGN(got, receive_pid_from_parent(pid_rd_.get(), clone_pid_, ctx_.ns.pid ? 2 : 1));
    if (!got) {  // the failure is on the status pipe, for the watch to report
      pid_known_ = false;
      return {};
    }
    pid_ = *got;
    ours_ = !ctx_.ns.pid;
  }
  // The fds the sandbox side consumes are not the launcher's to keep: a caller waiting for EOF
  // on --sync-fd must not wait for us.
  for (const auto& fd : {spec.sync_fd, spec.block_fd})
    if (fd) fds_.close(*fd);
  for (const auto& op : spec.fs_ops)  // --bind-fd sources
    if (op.kind == spec::OpKind::Bind || op.kind == spec::OpKind::RoBind) fds_.close(op.fd);
  if (ctx_.parent_step) {
    Status s = parent_step(spec, fds_, ctx_, pid_, go_wr_.get());
    go_wr_.reset();
    RF_TRY(std::move(s));
  }
  RF_TRY(supervision_->move_into_cgroup(clone_pid_));
  return sync_masks();
}

// Sync point 2: the child says its root is complete; the watch covers every masked name the
// project holds now (and every one that moved meanwhile), then one byte lets the child go on
// to its command. A child that failed before (end of file) reports that on the status pipe.
Status Launch::sync_masks() {
  if (!masks_sync_.valid()) return {};
  char b = 0;
  ssize_t n;
  while ((n = ::read(masks_sync_.get(), &b, 1)) < 0 && errno == EINTR) {}
  if (n != 1) {
    masks_sync_.reset();
    return {};
  }
  RF_TRY(supervision_->late_masks_before_start());
  ssize_t w;
  while ((w = ::send(masks_sync_.get(), "g", 1, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
  masks_sync_.reset();
  if (w != 1) return base::errno_error("Can't release the child after the masks");
  return {};
}

Result<Outcome> run_sandbox(const spec::Spec& spec, spec::OwnedFds& fds) {
  for (spec::Fd fd : spec::named_fds(spec))
    if (!fds.holds(fd))
      return Error(EBADF, "the sandbox's description names fd " + std::to_string(fd.num) +
                              ", which was not handed to the launcher with it");
  Launch run(spec, fds);
  RF_TRY(run.prepare());
  RF_TRY(run.spawn());
  RF_TRY(run.sync());
  return run.watch();
}

Result<int> launch(const spec::Spec& spec, spec::OwnedFds& fds) {
  RF_TRY_ASSIGN(out, run_sandbox(spec, fds));
  return out.code;
}

}  // namespace rf::engine
