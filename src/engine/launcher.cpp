// SPDX-License-Identifier: LGPL-2.1-or-later
// The parent side: prepare everything the child needs, clone3 into the new namespaces, then
// read the status pipe and wait. The child writes its own id maps, so the parent never has to
// hand off to it on the common path.
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "child.hpp"
#include "context.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/engine/launch.hpp"
#include "ringfence/spec/validate.hpp"
#include "steps.hpp"
#include "sync.hpp"

extern char** environ;

namespace rf::engine {
namespace {

using base::Error;
using base::Result;
using base::Status;

bool userns_available() {
  if (::access("/proc/self/ns/user", F_OK) != 0) return false;
  auto max = base::read_file("/proc/sys/user/max_user_namespaces");
  if (max && std::atol(max->c_str()) == 0) return false;
  return true;
}

std::vector<std::string> final_environment(const spec::Spec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  auto erase = [&env](const std::string& name) {
    std::erase_if(env, [&](const std::string& kv) { return kv.compare(0, name.size() + 1, name + "=") == 0; });
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

std::string env_value(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& kv : env)
    if (kv.compare(0, name.size() + 1, name + "=") == 0) return kv.substr(name.size() + 1);
  return {};
}

// Bind sources are resolved as the caller, on the host's view, before clone (bwrap does the
// same before its pivot, so FUSE mounts of the caller work).
Status resolve_sources(const spec::Spec& spec, std::vector<ResolvedOp>& out) {
  for (const auto& op : spec.fs_ops) {
    ResolvedOp r;
    r.op = op;
    bool is_bind = op.kind == spec::OpKind::Bind || op.kind == spec::OpKind::RoBind || op.kind == spec::OpKind::DevBind;
    if (is_bind) {
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
    if (op.kind == spec::OpKind::File || op.kind == spec::OpKind::BindData || op.kind == spec::OpKind::RoBindData) {
      // Read once here and closed, as bwrap consumes these fds; the child writes the copy.
      base::UniqueFd fd(op.fd);
      auto data = base::read_all(fd.get());
      if (!data) return base::Error(data.error().code(), "Can't write data to file " + op.dest);
      r.data = std::move(*data);
    }
    out.push_back(std::move(r));
  }
  return {};
}

unsigned long long clone_flags(const spec::Namespaces& ns) {
  unsigned long long f = CLONE_NEWNS;
  if (ns.user) f |= CLONE_NEWUSER;
  if (ns.ipc) f |= CLONE_NEWIPC;
  if (ns.pid) f |= CLONE_NEWPID;
  // CLONE_NEWNET is left to the child's helper (netlo.cpp), which overlaps it with the mounts.
  if (ns.uts) f |= CLONE_NEWUTS;
  if (ns.cgroup) f |= CLONE_NEWCGROUP;
  return f;
}

// Fork-style clone into new namespaces: clone3 where the kernel has it, else clone.
pid_t clone_into(unsigned long long flags) {
  clone_args args{};
  args.flags = flags;
  args.exit_signal = SIGCHLD;
  long pid = syscall(SYS_clone3, &args, sizeof args);
  if (pid < 0 && errno == ENOSYS) pid = syscall(SYS_clone, static_cast<unsigned long>(flags) | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  return static_cast<pid_t>(pid);
}

Error clone_error(int err, const spec::Namespaces& ns, bool privileged) {
  if (err == EINVAL && ns.user)
    return Error(0, "Creating new namespace failed, likely because the kernel does not support user namespaces.  "
                    "bwrap must be installed setuid on such systems.");
  if (err == EPERM && !privileged)
    return Error(0, "No permissions to creating new namespace, likely because the kernel does not allow "
                    "non-privileged user namespaces. See <https://deb.li/bubblewrap> or "
                    "<file:///usr/share/doc/bubblewrap/README.Debian.gz>.");
  if (err == ENOSPC)
    return Error(0, "Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded "
                    "(ENOSPC)");
  return Error(err, "Creating new namespace failed");
}

int encode_status(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 255;
}

Result<int> wait_child(pid_t pid) {
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) return base::errno_error("waitpid");
  }
  return encode_status(st);
}

// Read the status pipe: a setup error, pid 2's exit status from the reaper, or EOF (exec'd).
Result<int> monitor(pid_t pid, int fd) {
  Record r;
  ssize_t n;
  do {
    n = ::read(fd, &r, sizeof r);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof r) && r.kind == Record::kExit) return r.status;
  if (n == static_cast<ssize_t>(sizeof r) && r.kind == Record::kError) {
    (void)wait_child(pid);
    r.message[sizeof r.message - 1] = 0;
    return Error(r.err, r.message);
  }
  return wait_child(pid);
}

}  // namespace

Result<int> launch(const spec::Spec& spec) {
  ChildContext ctx;
  ctx.spec = &spec;
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
  ctx.nested_userns = ctx.ns.user && has_dev && (ctx.sandbox_uid != 0 || ctx.sandbox_gid != 0);
  ctx.env = final_environment(spec);
  ctx.home = env_value(ctx.env, "HOME");
  RF_TRY(resolve_sources(spec, ctx.ops));
  if (char cwd[PATH_MAX]; ::getcwd(cwd, sizeof cwd) != nullptr) ctx.old_cwd = cwd;
  for (const auto& op : spec.fs_ops)
    if (op.kind == spec::OpKind::Dev && ::isatty(1))
      if (const char* tty = ::ttyname(1)) ctx.console_tty = tty;
  if (ctx.privileged) ctx.caller_caps = caller_effective_caps_from_parent();
  ctx.umask = ::umask(0);
  ::umask(ctx.umask);

  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return base::errno_error("pipe2");
  base::UniqueFd rd(pipefd[0]), wr(pipefd[1]);
  ctx.status_fd = wr.get();

  // The launcher dies with its caller too, so the chain caller -> launcher -> sandbox holds.
  if (spec.die_with_parent && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    return base::errno_error("prctl(PR_SET_PDEATHSIG)");
  // A caller that ignores SIGCHLD (Erlang) would make waitpid lose the status.
  ::signal(SIGCHLD, SIG_DFL);

  pid_t pid = clone_into(clone_flags(ctx.ns));
  if (pid < 0) return clone_error(errno, ctx.ns, ctx.privileged);
  if (pid == 0) {
    rd.reset();
    run_child(ctx);
  }
  wr.reset();
  return monitor(pid, rd.get());
}

}  // namespace rf::engine
