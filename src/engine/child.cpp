// SPDX-License-Identifier: LGPL-2.1-or-later
// THE child recipe: one flat list of steps from clone to exec, each with why it sits where it
// does. Any failure is reported once over the status pipe as {stage, errno, message}.
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "cgroup.hpp"
#include "child.hpp"
#include "mounts.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "steps.hpp"
#include "sync.hpp"

namespace rf::engine {
namespace {

// The launcher is gone when its end of the status pipe has no reader any more.
bool launcher_gone(int status_fd) {
  pollfd p{status_fd, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

base::Status set_cwd(const ChildContext& ctx, std::string& pwd) {
  const auto& dir = ctx.spec->chdir;
  if (dir) {
    if (::chdir(dir->c_str()) != 0) return base::errno_error("Can't chdir to " + *dir);
    pwd = *dir;
  } else if (!ctx.old_cwd.empty() && ::chdir(ctx.old_cwd.c_str()) == 0) {
    pwd = ctx.old_cwd;
  } else if (!ctx.home.empty() && ::chdir(ctx.home.c_str()) == 0) {
    pwd = ctx.home;
  } else {
    pwd = "/";
  }
  return {};
}

}  // namespace

void run_child(const ChildContext& ctx) {
  const spec::Spec& spec = *ctx.spec;
  const int out = ctx.status_fd;
  auto check = [out](Stage stage, const base::Status& s) {
    if (!s) report_and_exit_in_child(out, stage, s.error());
  };

  // 0. Dumpable again when the launcher was before it sealed itself (and the clone did not
  //    start so): the id maps below are written through /proc/self, which a non-dumpable
  //    process of an unprivileged caller may not open for writing. Pid 1 ends non-dumpable.
  if (ctx.restore_dumpable) ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  // 0. Into the sandbox's cgroup first, so everything below and all the command starts is
  //    counted (--limit memory/pids/cpu).
  check(Stage::Limits, join_cgroups_in_child(ctx.cgroup_procs_fds));
  // Native mode: the launcher's command line (its --env values among it) is not for the sandbox
  // to read in /proc/1/cmdline; this clone's copy of it is blanked (the command execs anyway).
  if (ctx.argv_area_len > 0 && program_invocation_name != nullptr) {
    static const char kTitle[] = "ringfence-init";
    std::size_t n = ctx.argv_area_len;
    std::memset(program_invocation_name, 0, n);
    std::memcpy(program_invocation_name, kTitle, std::min(n - 1, sizeof kTitle - 1));
  }
  // 0. The signals the launcher forwards are blocked there; not here.
  if (ctx.restore_sigmask) ::sigprocmask(SIG_SETMASK, &ctx.sigmask, nullptr);
  // 0. Die with the launcher when asked; re-check afterwards, as it may already be gone.
  if (spec.die_with_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
      report_and_exit_in_child(out, Stage::DeathSignal, base::errno_error("prctl(PR_SET_PDEATHSIG)"));
    if (launcher_gone(out)) _exit(1);
  }
  // 0a. --pidns: fork into the given pid namespace before anything else, so the launcher can
  //     report the final pid at sync point 1.
  if (spec.pidns_fd) enter_pid_namespace_in_child(ctx);
  // 0b. Sync point 1: wait while the launcher writes the status fds (and an outside tool the
  //     id maps, with --userns-block-fd). Those fds are the launcher's, not the command's.
  //     The status fds are closed first: a caller may read the info fd to EOF before it
  //     releases us. (--userns-block-fd stays open, as in bwrap.)
  if (ctx.go_fd >= 0) {
    for (const auto& fd : {spec.info_fd, spec.json_status_fd})
      if (fd) ::close(*fd);
    char b;
    ssize_t n;
    while ((n = ::read(ctx.go_fd, &b, 1)) < 0 && errno == EINTR) {}
    if (n != 1) _exit(1);  // the launcher failed (and reports) or is gone
    ::close(ctx.go_fd);
  }
  // 0c. After --pidns forks the death signal is gone (fork clears it) and our parent is now
  //     the launcher, which has reaped the intermediates: set it again.
  if (spec.pidns_fd && spec.die_with_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
      report_and_exit_in_child(out, Stage::DeathSignal, base::errno_error("prctl(PR_SET_PDEATHSIG)"));
    if (launcher_gone(out)) _exit(1);
  }
  // 1. no_new_privs first: from here on no exec can gain privileges (setuid, file caps).
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    report_and_exit_in_child(out, Stage::Capabilities, base::errno_error("prctl(PR_SET_NO_NEW_PRIVS)"));
  // 2. Setup creates files with exactly the modes asked for; the caller's umask returns at 9.
  ::umask(0);
  // 3. Maps before any mount: files on the new root need a mapped fsuid.
  check(Stage::IdMaps, write_id_maps_in_child(ctx));
  base::UniqueFd host_proc;  // for the nested maps, written after the host is detached
  if (ctx.nested_userns) {
    host_proc.reset(::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!host_proc.valid()) report_and_exit_in_child(out, Stage::IdMaps, base::errno_error("open /proc"));
  }
  // 4. Loopback: the network namespace is ours from clone.
  if (ctx.ns.net) check(Stage::Loopback, loopback_up_in_child());
  // 5. The new root: scratch tmpfs and first pivot (host at /oldroot), ops, final pivot.
  check(Stage::NewRoot, prepare_root_in_child(spec.root_size, spec.root_inodes));
  check(Stage::FsOps, apply_ops_in_child(ctx));
  check(Stage::PivotRoot, finish_root_in_child());
  // 6. Hostname: the UTS namespace is ours; needs CAP_SYS_ADMIN, so before the drop.
  if (spec.hostname && ::sethostname(spec.hostname->data(), spec.hostname->size()) != 0)
    report_and_exit_in_child(out, Stage::Hostname,
                             base::errno_error("Can't set hostname to " + *spec.hostname));
  // 6a. --userns2: a namespace prepared by the caller (typically nested in --userns), entered
  //     once the root and hostname are done: our capabilities there do not reach those.
  if (spec.userns2_fd && ::setns(*spec.userns2_fd, CLONE_NEWUSER) != 0)
    report_and_exit_in_child(out, Stage::Namespaces, base::errno_error("Setting userns2 failed"));
  // 6b. The nested user namespace last among the privileged steps: it ends our capabilities
  //     over everything made so far (mounts, network, hostname). --disable-userns first caps
  //     the count of namespaces under the outer one, which the inner one can never raise.
  if (spec.disable_userns) check(Stage::IdMaps, limit_user_namespaces_in_child(host_proc.get()));
  if (ctx.nested_userns) {
    check(Stage::IdMaps, enter_nested_userns_in_child(ctx, host_proc.get()));
    host_proc.reset();
  }
  if (spec.disable_userns || spec.assert_userns_disabled)
    check(Stage::IdMaps, check_userns_disabled_in_child());
  // 6c. In a joined user namespace (--userns) the ids are switched, not mapped.
  if (spec.userns_fd) check(Stage::IdMaps, switch_ids_in_child(ctx));
  // 7. Capabilities: bounding, then effective/permitted/inheritable, then ambient.
  check(Stage::Capabilities, drop_caps_in_child(ctx));
  // 7a. Shell off: Landlock restricts execution to the command and its interpreters.
  check(Stage::Capabilities, restrict_exec_in_child(ctx));
  // 7b. --block-fd: everything is set up but nothing runs yet.
  if (spec.block_fd) {
    char b;
    while (::read(*spec.block_fd, &b, 1) < 0 && errno == EINTR) {}
    ::close(*spec.block_fd);
  }
  // 8. Working directory (bwrap's fallback chain) and PWD.
  std::string pwd;
  check(Stage::Cwd, set_cwd(ctx, pwd));
  // 9. Session and umask, just before the command is started.
  if (spec.new_session && ::setsid() < 0)
    report_and_exit_in_child(out, Stage::Session, base::errno_error("setsid"));
  ::umask(ctx.umask);
  // 10. Fds: everything of ours is O_CLOEXEC; a native Spec closes all that was not passed.
  if (!spec.inherit_fds) {
    std::vector<int> keep = spec.pass_fds;
    keep.push_back(out);
    close_fds_except_in_child(keep, CLOSE_RANGE_CLOEXEC);
  }
  // 11. Build argv/envp now: pid 2 shares this memory and must not allocate.
  std::vector<std::string> env = ctx.env;
  env.push_back("PWD=" + pwd);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  if (spec.argv0) args[0] = *spec.argv0;  // the file to run stays spec.argv[0]
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // 12. Seccomp and exec (directly, or as pid 2 under our reaper).
  run_command_in_child(ctx, spec.argv[0].c_str(), argv.data(), envp.data());
}

}  // namespace rf::engine
