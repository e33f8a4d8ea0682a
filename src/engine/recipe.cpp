// SPDX-License-Identifier: LGPL-2.1-or-later
// The child recipe's table, its runner and the tail (the command step). docs/architecture.md
// shows the same table.
#include "recipe.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <string>

#include "steps.hpp"
#include "supervise/supervisor.hpp"

extern char** environ;

namespace rf::engine {
namespace {

// The tail's steps.
base::Status tail_death_signal(RecipeState& st) {
  // A clone (pid 2) starts without it, and a change of credentials since clears it.
  if (st.ctx->spec->die_with_parent && ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    return base::errno_error("prctl(PR_SET_PDEATHSIG)");
  return {};
}

base::Status tail_rlimits(RecipeState& st) {
  for (const auto& l : st.ctx->spec->supervision.rlimits) {
    rlimit v{static_cast<rlim_t>(l.value), static_cast<rlim_t>(l.value)};
    if (::setrlimit(static_cast<__rlimit_resource>(l.resource), &v) != 0)
      return base::errno_error("setrlimit(" + std::to_string(l.resource) + ")");
  }
  return {};
}

base::Status tail_connect_filter(RecipeState& st) {
  RF_TRY(install_connect_filter_in_child(*st.ctx, st.resolver_udp, st.resolver_tcp));
  if (st.ctx->notify_sock >= 0) ::close(st.ctx->notify_sock);
  return {};
}

base::Status tail_seccomp(RecipeState& st) { return install_seccomp_in_child(*st.ctx); }

base::Status tail_exec(RecipeState& st) {
  if (st.ctx->spec->json_status_fd) send_exec_in_child(st.ctx->status_fd);
  if (st.exec_sigmask != nullptr) ::sigprocmask(SIG_SETMASK, st.exec_sigmask, nullptr);
  // execvp searches the PATH of the process's own environment.
  environ = st.envp.data();
  ::execvp(st.file, st.argv.data());
  return base::errno_error(std::string("execvp ") + st.file);
}

base::Status step_command(RecipeState& st) { run_command_in_child(st); }

const Step kRecipe[] = {
    {Stage::Dumpable, "dumpable", kKernel,
     "the id maps are written through /proc/self; pid 1 ends non-dumpable", step_dumpable},
    {Stage::Cgroup, "cgroup", kEveryLevel,
     "first, so that everything below and all the command starts is counted (the cgroup, or the PID "
     "namespace's pid_max)",
     step_cgroup},
    {Stage::Title, "process title", kKernel, "the launcher's command line is not for /proc/1/cmdline",
     step_title},
    {Stage::SignalMask, "signal mask", kEveryLevel,
     "the signals the launcher forwards are blocked there, not here", step_signal_mask},
    {Stage::DeathSignal, "death signal", kEveryLevel,
     "--die-with-parent, then a check that the launcher did not die before the prctl", step_death_signal},
    {Stage::PidNamespace, "pid namespace", kKernel,
     "--pidns: fork into it before anything else, so the launcher reports the final pid", step_pid_namespace},
    {Stage::SyncPoint, "sync point", kKernel,
     "the launcher writes the status fds (an outside tool the maps); after --pidns the death signal again",
     step_sync_point},
    {Stage::NoNewPrivs, "no_new_privs", kEveryLevel, "from here on no exec can gain privileges",
     step_no_new_privs},
    {Stage::Umask, "umask", kKernel, "setup creates files with exactly the modes asked for",
     step_setup_umask},
    {Stage::IdMaps, "uid/gid maps", kKernel, "files on the new root need a mapped fsuid", step_id_maps},
    {Stage::Loopback, "loopback", kKernel, "the network namespace is ours from clone", step_loopback},
    {Stage::NewRoot, "new root", kKernel, "a scratch tmpfs and a first pivot: the host moves to /oldroot",
     step_new_root},
    {Stage::FsOps, "filesystem", kKernel, "the ordered ops, every destination resolved inside the new root",
     step_fs_ops},
    {Stage::PivotRoot, "pivot_root", kKernel, "the final pivot; the host is detached", step_pivot_root},
    {Stage::LateMasks, "late masks", kKernel,
     "sync point 2, with masks: the root is complete; the launcher covers every masked name, then the "
     "command may start",
     step_late_masks},
    {Stage::ExecGuard, "loader guard", kKernel,
     "shell off: the ELF loader cannot run as a program; needs CAP_SYS_ADMIN in the namespace",
     step_exec_guard},
    {Stage::Hostname, "hostname", kKernel, "needs CAP_SYS_ADMIN in the UTS namespace, so before the drop",
     step_hostname},
    {Stage::UserNs2, "second user namespace", kKernel,
     "--userns2: entered once the root and hostname are done", step_userns2},
    {Stage::NestedUserNs, "nested user namespace", kKernel,
     "ends our capabilities over all made so far; --disable-userns caps the count first", step_nested_userns},
    {Stage::SwitchIds, "user ids", kKernel,
     "--userns: in a joined namespace the ids are switched, not mapped", step_switch_ids},
    {Stage::Capabilities, "capabilities", kEveryLevel,
     "bounding, then effective/permitted/inheritable, then ambient; the jails keep none", step_capabilities},
    {Stage::Landlock, "landlock", kLandlock, "the landlock level's filesystem ruleset, after no_new_privs",
     step_landlock},
    {Stage::LandlockExec, "exec allowlist", kEveryLevel,
     "shell off: only the command and its interpreters may be executed (Landlock)", step_exec_allowlist},
    {Stage::BlockFd, "block fd", kKernel, "--block-fd: everything is set up, nothing runs yet",
     step_block_fd},
    {Stage::Cwd, "working directory", kEveryLevel,
     "bwrap's chain: --chdir, the old cwd, $HOME, / (the jails: --chdir only); then PWD", step_cwd},
    {Stage::Session, "session", kEveryLevel,
     "setsid with --new-session; the kernel jail takes the caller's umask again", step_session},
    {Stage::Fds, "file descriptors", kEveryLevel, "a native Spec closes every fd it did not pass", step_fds},
    {Stage::Arguments, "arguments", kEveryLevel,
     "argv and envp now: pid 2 shares this memory and must not allocate", step_arguments},
    {Stage::Reaper, "pid 1", kKernel,
     "with a PID namespace, --sync-fd or --lock-file: take the locks, run the command as pid 2, reap",
     step_pid1},
    {Stage::Command, "command", kEveryLevel,
     "death signal, rlimits, connect filter, seccomp, exec: the filters never have to allow setup calls",
     step_command},
};

const Step kCommand[] = {
    {Stage::DeathSignal, "death signal", kEveryLevel, "a clone and a change of credentials clear it",
     tail_death_signal},
    {Stage::Limits, "resource limits", kEveryLevel, "the rlimits, set for the command alone", tail_rlimits},
    {Stage::ConnectFilter, "connect filter", kEveryLevel,
     "its hand-off needs pidfd_open and seccomp(), which a policy may deny", tail_connect_filter},
    {Stage::Seccomp, "seccomp", kEveryLevel, "the Spec's programs in order, last before the exec",
     tail_seccomp},
    {Stage::Exec, "exec", kEveryLevel, "returns only if it failed", tail_exec},
};

[[noreturn]] void run_steps(RecipeState& st, std::span<const Step> steps) {
  for (const Step& s : steps) {
    if (!runs_at(s, st.level)) continue;
    if (auto r = s.run(st); !r) fail_in_child(st, s.stage, r.error());
  }
  fail_in_child(st, Stage::Command, base::Error(0, "the command was not started"));
}

}  // namespace

const char* level_name(Level level) {
  switch (level) {
    case Level::Kernel: return "kernel";
    case Level::Landlock: return "landlock";
    case Level::Soft: return "soft";
  }
  return "?";
}

std::span<const Step> recipe_steps() { return kRecipe; }
std::span<const Step> command_steps() { return kCommand; }

void fail_in_child(const RecipeState& st, Stage stage, const base::Error& e) {
  report_and_exit_in_child(st.ctx->status_fd, stage, e);
}

void run_recipe_in_child(RecipeState& st) { run_steps(st, kRecipe); }
void run_command_in_child(RecipeState& st) { run_steps(st, kCommand); }

}  // namespace rf::engine
