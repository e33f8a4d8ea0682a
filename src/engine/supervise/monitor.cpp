// SPDX-License-Identifier: LGPL-2.1-or-later
// monitor(): one loop over the status pipe, plus (native mode) a signalfd, the parent's pidfd
// and a deadline. bwrap mode only blocks on the pipe, as bwrap does.
#include "monitor.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "../status_fd.hpp"
#include "../sync.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/log.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "supervisor.hpp"

namespace rf::engine {
namespace {

using base::Error;
using base::Result;

std::uint64_t now_ms() { return static_cast<std::uint64_t>(base::monotonic_ms()); }

// What one record (or EOF) on the status pipe means.
struct Step {
  enum class Kind { More, Exec, Done, Failed, ExecFailed, Eof } kind = Kind::More;
  int code = 0;
  Error error;
};

Step read_step(const Watch& w) {
  Record r;
  ssize_t n;
  do {
    n = ::read(w.status_rd, &r, sizeof r);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof r)) {
    if (r.kind == Record::kExec) return {Step::Kind::Exec, 0, {}};
    if (r.kind == Record::kExit) return {Step::Kind::Done, r.status, {}};
    if (r.kind == Record::kError) {
      (void)wait_child(w.pid);
      // Native mode: everything was set up, only the exec failed: the shells' codes.
      if (!w.bwrap_messages && r.stage == static_cast<std::int32_t>(Stage::Exec)) {
        r.message[sizeof r.message - 1] = '\0';
        return {Step::Kind::ExecFailed, r.err == ENOENT || r.err == ENOTDIR ? 127 : 126,
                Error(r.err, r.message)};
      }
      return {Step::Kind::Failed, 0, error_from_record(r, w.bwrap_messages)};
    }
  }
  // EOF: the command was exec'd (no reaper) and has ended, or the child died. Native mode keeps
  // watching (signals, timeout) until it really has ended.
  if (w.supervision && w.ours) return {Step::Kind::Eof, 0, {}};
  if (!w.ours)
    return {Step::Kind::Failed, 0,
            Error(0, "the sandbox's pid 1 ended without reporting the command's status")};
  auto st = wait_child(w.pid);
  if (!st) return {Step::Kind::Failed, 0, st.error()};
  return {Step::Kind::Done, *st, {}};
}

// A signal sent to the launcher by a process goes to the command. One from the terminal (the
// kernel) reached the command's process group already, unless the command has its own session.
void forward_signal(const Watch& w) {
  signalfd_siginfo si{};
  while (::read(w.signal_fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    bool from_process = static_cast<int>(si.ssi_code) <= 0;  // SI_USER, SI_QUEUE, SI_TKILL...
    if (from_process || w.new_session) ::kill(w.pid, static_cast<int>(si.ssi_signo));
  }
}

// Native mode: poll until the pipe has something, forwarding signals and enforcing the
// timeout and the parent watch meanwhile, and the connect policy's listener hand-off (the
// supervisor's own threads serve the notifications). Returns false when the sandbox had to be
// killed.
bool wait_readable(const Watch& w, int fd, Outcome& out, std::uint64_t& deadline, bool& terminating) {
  const spec::Supervision& sup = *w.supervision;
  for (;;) {
    Supervisor* sv = w.supervisor;
    pollfd fds[4] = {{fd, POLLIN, 0},
                     {w.signal_fd, POLLIN, 0},
                     {w.parent_fd, POLLIN, 0},
                     {sv ? sv->handoff_fd() : -1, POLLIN, 0}};
    int timeout = -1;
    if (deadline) {
      std::uint64_t now = now_ms();
      timeout = deadline > now ? static_cast<int>(std::min<std::uint64_t>(deadline - now, 1u << 30)) : 0;
    }
    int n = ::poll(fds, 4, timeout);
    if (n < 0 && errno == EINTR) continue;
    if (fds[3].revents) {
      // Without the listener the command cannot be supervised: it fails its own setup on the
      // missing acknowledgement and reports that on the status pipe.
      if (auto s = sv->take_listener(); !s) {
        base::log::debug("connect policy: " + s.error().describe());
        sv->set_handoff({});
      }
    }
    if (fds[2].revents) {  // the process that started us is gone: so is the sandbox
      out.parent_exited = true;
      ::kill(w.pid, SIGKILL);
      return false;
    }
    if (fds[1].revents) forward_signal(w);
    if (fds[0].revents) return true;
    if (deadline && now_ms() >= deadline) {
      out.timed_out = true;
      if (terminating) {
        ::kill(w.pid, SIGKILL);
        return false;
      }
      terminating = true;  // ask first: SIGTERM to the command (through pid 1), then SIGKILL
      ::kill(w.pid, SIGTERM);
      deadline = now_ms() + sup.kill_grace_ms;
    }
  }
}

}  // namespace

Result<int> wait_child(pid_t pid) {
  RF_TRY_ASSIGN(st, base::wait_pid(pid));
  return encode_wait_status(st);
}

Result<Outcome> monitor(const Watch& w) {
  Outcome out;
  bool execd = false;
  bool terminating = false;
  std::uint64_t deadline = 0;
  if (w.supervision && w.supervision->timeout_ms) deadline = now_ms() + *w.supervision->timeout_ms;
  auto killed = [&w, &out]() -> Result<Outcome> {
    auto st = w.ours ? wait_child(w.pid) : Result<int>(128 + SIGKILL);
    out.code = st ? *st : 128 + SIGKILL;
    return out;
  };
  for (;;) {
    if (w.supervision && !wait_readable(w, w.status_rd, out, deadline, terminating)) return killed();
    Step step = read_step(w);
    if (step.kind == Step::Kind::Eof) {
      // The command runs with nothing of ours open: watch its pidfd instead of the pipe.
      base::UniqueFd pidfd(base::raw::pidfd_open(w.pid, 0));
      if (pidfd.valid() && !wait_readable(w, pidfd.get(), out, deadline, terminating)) return killed();
      auto st = wait_child(w.pid);
      if (!st) return st.error();
      out.code = *st;
      break;
    }
    if (step.kind == Step::Kind::Exec) {
      execd = true;
      continue;
    }
    if (step.kind == Step::Kind::Failed) return step.error;
    if (step.kind == Step::Kind::ExecFailed) {
      out.code = step.code;
      out.exec_failure = step.error.describe();
      break;
    }
    if (step.kind == Step::Kind::Done) {
      out.code = step.code;
      break;
    }
  }
  if (w.json_fd >= 0 && execd) (void)base::write_all(w.json_fd, exit_code_json(out.code));
  // Native mode: the command is done, and nothing else of the sandbox may outlive us.
  if (w.supervision && w.reaper && w.ours) {
    ::kill(w.pid, SIGKILL);
    (void)wait_child(w.pid);
  }
  return out;
}

base::Result<WatchFds> open_watch_fds(const spec::Supervision& sup, sigset_t& old_mask, bool& blocked) {
  WatchFds out;
  if (sup.watch_parent_process && ::getppid() != 1) {
    auto fd = base::pidfd_open(::getppid());
    if (!fd) return fd.error().reworded("pidfd_open(parent)");
    out.parent = std::move(*fd);
  }
  if (sup.forward_signals) {
    sigset_t fwd;
    sigemptyset(&fwd);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&fwd, sig);
    if (::sigprocmask(SIG_BLOCK, &fwd, &old_mask) != 0) return base::errno_error("sigprocmask");
    blocked = true;
    out.signals.reset(::signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!out.signals.valid()) return base::errno_error("signalfd");
  }
  return out;
}

}  // namespace rf::engine
