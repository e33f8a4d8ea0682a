// SPDX-License-Identifier: LGPL-2.1-or-later
// Running the command: exec it directly, or (with a PID namespace and no --as-pid-1) spawn it
// as pid 2 and stay as pid 1, reaping orphans and reporting pid 2's status to the launcher.
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "steps.hpp"
#include "sync.hpp"

extern char** environ;

namespace rf::engine {
namespace {

struct ExecArgs {
  const ChildContext* ctx;
  char* const* argv;
  char* const* envp;
};

[[noreturn]] void exec_in_child(const ChildContext& ctx, char* const* argv, char* const* envp) {
  const spec::Spec& spec = *ctx.spec;
  if (spec.die_with_parent && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    report_and_exit_in_child(ctx.status_fd, Stage::DeathSignal, base::errno_error("prctl(PR_SET_PDEATHSIG)"));
  if (auto s = install_seccomp_in_child(ctx); !s) report_and_exit_in_child(ctx.status_fd, Stage::Seccomp, s.error());
  // execvp searches the PATH of the process's own environment.
  environ = const_cast<char**>(envp);
  ::execvp(argv[0], argv);
  report_and_exit_in_child(ctx.status_fd, Stage::Exec, base::errno_error(std::string("execvp ") + argv[0]));
}

int command_entry(void* p) {
  auto* a = static_cast<ExecArgs*>(p);
  exec_in_child(*a->ctx, a->argv, a->envp);
}

int encode_status(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 255;
}

}  // namespace

void run_command_in_child(const ChildContext& ctx, char* const* argv, char* const* envp) {
  if (!ctx.ns.pid || ctx.spec->as_pid_1) exec_in_child(ctx, argv, envp);

  // pid 2 shares our memory until it execs (CLONE_VM|CLONE_VFORK): no page-table copy, and we
  // resume only once it has exec'd or reported its failure.
  constexpr size_t kStack = 256 * 1024;
  void* stack = ::mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) report_and_exit_in_child(ctx.status_fd, Stage::Reaper, base::errno_error("mmap"));
  ExecArgs args{&ctx, argv, envp};
  pid_t cmd = ::clone(command_entry, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
  if (cmd < 0) report_and_exit_in_child(ctx.status_fd, Stage::Reaper, base::errno_error("Can't fork"));
  ::munmap(stack, kStack);

  // The reaper holds nothing worth attacking: no capabilities, not dumpable (so the payload,
  // running as the same uid, cannot ptrace it or read its memory), no fds but stdio and the
  // status pipe.
  drop_all_caps_in_child();
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  if (ctx.status_fd > 3) ::close_range(3, static_cast<unsigned>(ctx.status_fd - 1), 0);
  ::close_range(static_cast<unsigned>(ctx.status_fd + 1), ~0u, 0);
  if (ctx.spec->die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  // bwrap installs the caller's filters in its pid 1 too; callers' filters allow wait/write.
  if (auto s = install_seccomp_in_child(ctx); !s) {
    ::kill(cmd, SIGKILL);
  }

  int code = 255;
  bool reported = false;
  for (;;) {
    int st = 0;
    pid_t p = ::waitpid(-1, &st, 0);
    if (p < 0) {
      if (errno == EINTR) continue;
      break;  // ECHILD: nothing left to reap
    }
    if (p == cmd && !reported) {
      code = encode_status(st);
      send_exit_in_child(ctx.status_fd, code);
      ::close(ctx.status_fd);
      reported = true;
    }
  }
  _exit(code);
}

}  // namespace rf::engine
