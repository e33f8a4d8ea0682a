// SPDX-License-Identifier: LGPL-2.1-or-later
// The recipe's pid-1 step: start the command (pid 2 in a PID namespace, running the recipe's
// command step) and become its reaper (reaper_exec.cpp; or stay as one where that exec is not
// possible): reaping orphans, holding --lock-file locks and --sync-fd, and reporting the
// command's status to the launcher.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "recipe.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "steps.hpp"
#include "sync.hpp"

namespace rf::engine {
namespace {

// Pid 2: the command process, a clone sharing our memory until its exec. --sync-fd belongs to
// the reaper (only a command that is pid 1 itself keeps it, as in bwrap); then the tail.
int command_entry(void* p) {
  auto& st = *static_cast<RecipeState*>(p);
  // (The table is pid 1's too, shared memory until our exec: pid 1 keeps its own copy open.)
  if (const auto& fd = st.ctx->spec->sync_fd) st.ctx->fds->close(*fd);
  run_command_in_child(st);
}

// Native mode: the launcher passes the signals it forwards (and its timeout's SIGTERM) to us,
// pid 1; they are meant for the command.
volatile sig_atomic_t g_command = 0;

void pass_on(int sig) {
  if (g_command > 0) ::kill(g_command, sig);
}

void forward_to_command_in_child(pid_t cmd) {
  g_command = cmd;
  struct sigaction sa {};
  sa.sa_handler = pass_on;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::sigaction(sig, &sa, nullptr);
}

// --lock-file: read locks held by the reaper for the sandbox's lifetime, taken before the
// command starts.
base::Status take_locks(const spec::Spec& spec, std::vector<int>& fds) {
  for (const auto& path : spec.lock_files) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return base::errno_error("Unable to open lock file " + path);
    fds.push_back(fd);
    struct flock l {};
    l.l_type = F_RDLCK;
    l.l_whence = SEEK_SET;
    if (::fcntl(fd, F_SETLK, &l) != 0) return base::errno_error("Unable to lock file " + path);
  }
  return {};
}

}  // namespace

void close_fds_except_in_child(std::vector<int> keep, unsigned flags) {
  std::sort(keep.begin(), keep.end());
  unsigned from = 3;
  for (int k : keep) {
    if (k < 3 || static_cast<unsigned>(k) < from) continue;
    if (static_cast<unsigned>(k) > from) ::close_range(from, static_cast<unsigned>(k) - 1, flags);
    from = static_cast<unsigned>(k) + 1;
  }
  ::close_range(from, ~0u, flags);
}

base::Status step_pid1(RecipeState& st) {
  const ChildContext& ctx = *st.ctx;
  if (!ctx.reaper) return {};  // the command step runs the command in this process

  // The signals forwarded to the command are blocked from before it starts until the reaper
  // reads them (a blocked signal stays pending across exec); the command gets the mask back.
  const auto& sup = ctx.spec->supervision;
  const bool forward = sup.forward_signals || sup.timeout_ms;
  sigset_t fwd, before;
  sigemptyset(&fwd);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&fwd, sig);
  if (forward && ::sigprocmask(SIG_BLOCK, &fwd, &before) == 0) st.exec_sigmask = &before;

  std::vector<int> keep{ctx.status_fd};
  if (ctx.spec->sync_fd) keep.push_back(ctx.spec->sync_fd->num);
  if (st.exec_guard.valid()) keep.push_back(st.exec_guard.get());
  RF_TRY(take_locks(*ctx.spec, keep));

  // The command shares our memory until it execs (CLONE_VM|CLONE_VFORK): no page-table copy,
  // and we resume only once it has exec'd or reported its failure.
  constexpr size_t kStack = 256 * 1024;
  void* stack =
      ::mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return base::errno_error("mmap");
  pid_t cmd =
      ::clone(command_entry, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &st);
  if (cmd < 0) return base::errno_error("Can't fork for pid 1");
  ::munmap(stack, kStack);

  // The reaper holds nothing worth attacking: no capabilities, not dumpable (so the payload,
  // running as the same uid, cannot ptrace it or read its memory), no fds but stdio, the
  // status pipe, --sync-fd, the lock files and the loader guard.
  const bool exec_reaper = ctx.reaper_fd >= 0 && may_exec_reaper_in_child();
  drop_all_caps_in_child();
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  std::vector<int> open_fds = keep;
  if (exec_reaper) open_fds.push_back(ctx.reaper_fd);
  close_fds_except_in_child(open_fds, 0);
  if (ctx.spec->die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (exec_reaper) exec_reaper_in_child(ctx, cmd, forward, keep);  // returns only if it failed
  if (forward) {
    forward_to_command_in_child(cmd);
    ::sigprocmask(SIG_UNBLOCK, &fwd, nullptr);
  }
  // bwrap installs the caller's filters in its pid 1 too; callers' filters allow wait/write.
  if (auto s = install_seccomp_in_child(ctx); !s) ::kill(cmd, SIGKILL);

  int code = 255;
  bool reported = false;
  for (;;) {
    int ws = 0;
    pid_t p = base::raw::wait_pid(-1, &ws);
    if (p < 0) break;  // ECHILD: nothing left to reap
    if (p == cmd && !reported) {
      code = encode_wait_status(ws);
      send_exit_in_child(ctx.status_fd, code);
      ::close(ctx.status_fd);
      reported = true;
    }
  }
  _exit(code);
}

}  // namespace rf::engine
