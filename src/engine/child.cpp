// SPDX-License-Identifier: LGPL-2.1-or-later
// The steps of the child recipe (recipe.cpp holds the table and its order): those of the kernel
// jail and those every level shares. Each returns a Status; the recipe reports a failure once.
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "child.hpp"
#include "mounts.hpp"
#include "recipe.hpp"
#include "steps.hpp"
#include "supervise/cgroup.hpp"

namespace rf::engine {
namespace {

// The launcher is gone when its end of the status pipe has no reader any more.
bool launcher_gone(int status_fd) {
  pollfd p{status_fd, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

// The death signal, and a check that the launcher did not die before it was set.
base::Status arm_death_signal(int status_fd) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) return base::errno_error("prctl(PR_SET_PDEATHSIG)");
  if (launcher_gone(status_fd)) return base::Error(0, "the launcher is gone");
  return {};
}

const spec::Spec& spec_of(const RecipeState& st) { return *st.ctx->spec; }

}  // namespace

void run_child(const ChildContext& ctx) {
  RecipeState st;
  st.ctx = &ctx;
  st.level = Level::Kernel;
  run_recipe_in_child(st);
}

base::Status step_dumpable(RecipeState& st) {
  // Dumpable again when the launcher was before it sealed itself (and the clone did not start
  // so): a non-dumpable process of an unprivileged caller may not open /proc/self for writing.
  if (st.ctx->restore_dumpable) ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  return {};
}

// The PID namespace's pid_max (Linux 6.14+): a sysctl of the writer's own PID namespace, through
// whichever proc instance, so the host's /proc serves before the new root is made. Pid 1 sets it
// before anything in the namespace forks.
base::Status set_pidns_pid_max(std::uint64_t value) {
  static const char kPath[] = "/proc/sys/kernel/pid_max";
  const std::string text = std::to_string(value);
  const int fd = ::open(kPath, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return base::errno_error(std::string("pids limit: cannot open ") + kPath);
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size()))
    return base::Error(
        n < 0 ? err : EIO,
        std::string("pids limit: cannot set the PID namespace's pid_max to ") + text + " (" + kPath + ")");
  return {};
}

base::Status step_cgroup(RecipeState& st) {
  if (const auto& m = spec_of(st).supervision.pidns_pid_max) RF_TRY(set_pidns_pid_max(*m));
  return join_cgroups_in_child(st.ctx->cgroup_procs_fds);
}

base::Status step_title(RecipeState& st) {
  // Native mode: the launcher's command line (its --env values among it) is blanked in this
  // clone's copy (the command execs anyway).
  const std::size_t n = st.ctx->argv_area_len;
  if (n > 0 && program_invocation_name != nullptr) {
    static const char kTitle[] = "ringfence-init";
    std::memset(program_invocation_name, 0, n);
    std::memcpy(program_invocation_name, kTitle, std::min(n - 1, sizeof kTitle - 1));
  }
  return {};
}

base::Status step_signal_mask(RecipeState& st) {
  if (st.ctx->restore_sigmask) ::sigprocmask(SIG_SETMASK, &st.ctx->sigmask, nullptr);
  return {};
}

base::Status step_death_signal(RecipeState& st) {
  if (!spec_of(st).die_with_parent) return {};
  return arm_death_signal(st.ctx->status_fd);
}

base::Status step_pid_namespace(RecipeState& st) {
  if (!spec_of(st).pidns_fd) return {};
  return enter_pid_namespace_in_child(*st.ctx);
}

base::Status step_sync_point(RecipeState& st) {
  const ChildContext& ctx = *st.ctx;
  const spec::Spec& spec = *ctx.spec;
  // The status fds are the launcher's, not the command's, and are closed first: a caller may
  // read the info fd to EOF before it releases us. (--userns-block-fd stays open, as in bwrap.)
  if (ctx.go_fd >= 0) {
    for (const auto& fd : {spec.info_fd, spec.json_status_fd})
      if (fd) ctx.fds->close(*fd);
    char b;
    ssize_t n;
    while ((n = ::read(ctx.go_fd, &b, 1)) < 0 && errno == EINTR) {}
    // The launcher failed (and reports that itself) or is gone.
    if (n < 0) return base::errno_error("reading the launcher's go-ahead");
    if (n != 1) return base::Error(0, "the launcher ended before the sandbox was released");
    ::close(ctx.go_fd);
  }
  // After the --pidns forks the death signal is gone (fork clears it) and our parent is now
  // the launcher, which has reaped the intermediates: set it again.
  if (spec.pidns_fd && spec.die_with_parent) return arm_death_signal(ctx.status_fd);
  return {};
}

base::Status step_no_new_privs(RecipeState&) {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return base::errno_error("prctl(PR_SET_NO_NEW_PRIVS)");
  return {};
}

base::Status step_setup_umask(RecipeState&) {
  ::umask(0);  // the caller's umask returns with the session step
  return {};
}

base::Status step_id_maps(RecipeState& st) {
  RF_TRY(write_id_maps_in_child(*st.ctx));
  if (st.ctx->nested_userns) {  // for the nested maps, written after the host is detached
    st.host_proc.reset(::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!st.host_proc.valid()) return base::errno_error("open /proc");
  }
  return {};
}

base::Status step_loopback(RecipeState& st) {
  if (!st.ctx->ns.net) return {};
  RF_TRY(loopback_up_in_child());
  if (st.ctx->spec->supervision.connect.allow_hosts.empty()) return {};
  return resolver_sockets_in_child(st.resolver_udp, st.resolver_tcp);
}

base::Status step_new_root(RecipeState& st) {
  return prepare_root_in_child(spec_of(st).root_size, spec_of(st).root_inodes);
}

base::Status step_fs_ops(RecipeState& st) { return apply_ops_in_child(*st.ctx); }

base::Status step_pivot_root(RecipeState&) { return finish_root_in_child(); }

base::Status step_late_masks(RecipeState& st) {
  const int fd = st.ctx->masks_sync_fd;
  if (fd < 0) return {};
  ssize_t n;
  while ((n = ::send(fd, "r", 1, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
  if (n != 1) return base::errno_error("telling the launcher that the root is complete");
  char b;
  while ((n = ::read(fd, &b, 1)) < 0 && errno == EINTR) {}
  // The launcher failed (and reports that itself) or is gone.
  if (n < 0) return base::errno_error("reading the launcher's go-ahead after the masks");
  if (n != 1) return base::Error(0, "the launcher ended before the masks were in place");
  ::close(fd);
  return {};
}

base::Status step_hostname(RecipeState& st) {
  const auto& h = spec_of(st).hostname;
  if (h && ::sethostname(h->data(), h->size()) != 0) return base::errno_error("Can't set hostname to " + *h);
  return {};
}

base::Status step_userns2(RecipeState& st) {
  const auto& fd = spec_of(st).userns2_fd;
  if (fd && ::setns(fd->num, CLONE_NEWUSER) != 0) return base::errno_error("Setting userns2 failed");
  return {};
}

base::Status step_nested_userns(RecipeState& st) {
  const spec::Spec& spec = spec_of(st);
  if (spec.disable_userns) RF_TRY(limit_user_namespaces_in_child(st.host_proc.get()));
  if (st.ctx->nested_userns) {
    RF_TRY(enter_nested_userns_in_child(*st.ctx, st.host_proc.get()));
    st.host_proc.reset();
  }
  if (spec.disable_userns || spec.assert_userns_disabled) RF_TRY(check_userns_disabled_in_child());
  return {};
}

base::Status step_switch_ids(RecipeState& st) {
  return spec_of(st).userns_fd ? switch_ids_in_child(*st.ctx) : base::Status{};
}

base::Status step_capabilities(RecipeState& st) {
  if (st.level == Level::Kernel) return drop_caps_in_child(*st.ctx);
  return drop_every_capability_in_child();
}

base::Status step_landlock(RecipeState& st) { return restrict_fs_in_child(*st.ctx); }

base::Status step_exec_allowlist(RecipeState& st) { return restrict_exec_in_child(*st.ctx); }

base::Status step_block_fd(RecipeState& st) {
  if (const auto& fd = spec_of(st).block_fd) {
    base::UniqueFd block = st.ctx->fds->take(*fd);
    char b;
    while (::read(block.get(), &b, 1) < 0 && errno == EINTR) {}
  }
  return {};
}

base::Status step_cwd(RecipeState& st) {
  const ChildContext& ctx = *st.ctx;
  const auto& dir = ctx.spec->chdir;
  if (dir) {
    if (::chdir(dir->c_str()) != 0) return base::errno_error("Can't chdir to " + *dir);
    st.pwd = *dir;
  } else if (st.level != Level::Kernel) {
    // The jails stay in the launcher's directory and add no PWD.
  } else if (!ctx.old_cwd.empty() && ::chdir(ctx.old_cwd.c_str()) == 0) {
    st.pwd = ctx.old_cwd;
  } else if (!ctx.home.empty() && ::chdir(ctx.home.c_str()) == 0) {
    st.pwd = ctx.home;
  } else {
    st.pwd = "/";
  }
  return {};
}

base::Status step_session(RecipeState& st) {
  if (spec_of(st).new_session && ::setsid() < 0) return base::errno_error("setsid");
  if (const int pty = st.ctx->terminal_slave; pty >= 0) {
    if (::ioctl(pty, TIOCSCTTY, 0) != 0) return base::errno_error("the sandbox's terminal: TIOCSCTTY");
    for (int fd = 0; fd <= 2; ++fd)
      if (::isatty(fd) && ::dup2(pty, fd) < 0) return base::errno_error("the sandbox's terminal: dup2");
  }
  if (st.level == Level::Kernel) ::umask(st.ctx->umask);
  return {};
}

base::Status step_fds(RecipeState& st) {
  // Everything of ours is O_CLOEXEC; a native Spec closes all that was not passed.
  const spec::Spec& spec = spec_of(st);
  if (!spec.inherit_fds) {
    std::vector<int> keep;
    for (spec::Fd fd : spec.pass_fds) keep.push_back(fd.num);
    keep.push_back(st.ctx->status_fd);
    close_fds_except_in_child(keep, CLOSE_RANGE_CLOEXEC);
  }
  return {};
}

base::Status step_arguments(RecipeState& st) {
  const spec::Spec& spec = spec_of(st);
  st.env = st.ctx->env;
  if (!st.pwd.empty()) st.env.push_back("PWD=" + st.pwd);
  for (auto& e : st.env) st.envp.push_back(e.data());
  st.envp.push_back(nullptr);
  st.args = spec.argv;
  if (spec.argv0) st.args[0] = *spec.argv0;  // the file to run stays spec.argv[0]
  for (auto& a : st.args) st.argv.push_back(a.data());
  st.argv.push_back(nullptr);
  st.file = spec.argv[0].c_str();
  return {};
}

}  // namespace rf::engine
