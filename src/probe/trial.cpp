// SPDX-License-Identifier: LGPL-2.1-or-later
// The throwaway child: fork, let the trial report its steps over a pipe, wait with a deadline,
// and kill the child's whole process group whatever happened, so nothing a trial starts (or
// leaves hanging) survives it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "observations.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::probe {
namespace {

long long now_ms() { return base::monotonic_ms(); }

std::string signal_text(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
}

[[noreturn]] void run_child(TrialBody body, int fd, pid_t parent) {
  ::setpgid(0, 0);
  // A trial must never outlive the probe, even if the probe itself is killed.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (::getppid() != parent) ::_exit(1);
  // The caller's handlers are not the trial's: a crash must end the trial, not run them (and
  // the trials wait for their own children, so SIGCHLD must not be ignored).
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  StepWriter w(fd);
  body(w);
  ::_exit(0);
}

// Reads the report pipe until EOF or the deadline; returns false on timeout.
bool read_report(int fd, long long deadline, std::string& text) {
  for (;;) {
    long long left = deadline - now_ms();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return false;
    if (n < 0) return true;  // nothing more will come
    char buf[4096];
    ssize_t k = base::raw::read(fd, buf, sizeof buf);
    if (k <= 0) return true;
    text.append(buf, static_cast<size_t>(k));
  }
}

// Waits (without reaping) for the child to exit until the deadline; returns false on timeout.
bool wait_exit(pid_t pid, long long deadline) {
  for (;;) {
    siginfo_t info{};
    int rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0 && info.si_pid == pid) return true;
    if (rc < 0 && errno != EINTR) return true;  // ECHILD: nothing left to wait for
    if (now_ms() >= deadline) return false;
    ::usleep(1000);
  }
}

}  // namespace

void StepWriter::line(std::string_view state, std::string_view step, int err, std::string_view note) {
  std::string s;
  s.reserve(64 + note.size());
  s.append(state).append("\t").append(step).append("\t").append(std::to_string(err)).append("\t");
  for (char c : note.substr(0, 400)) s += (c == '\n' || c == '\t') ? ' ' : c;
  s += '\n';
  // One write per line: lines from a trial's own children never interleave (< PIPE_BUF).
  (void)base::raw::write(fd_, s.data(), s.size());
}

void StepWriter::begin(std::string_view step) { line("b", step, 0, {}); }
void StepWriter::ok(std::string_view step, std::string_view note) { line("o", step, 0, note); }
void StepWriter::fail(std::string_view step, int err, std::string_view note) { line("f", step, err, note); }

bool StepWriter::result(std::string_view step, int rc, std::string_view note) {
  if (rc == 0) {
    ok(step, note);
    return true;
  }
  fail(step, errno, note);
  return false;
}

std::vector<Step> parse_steps(std::string_view text) {
  std::vector<Step> steps;
  for (const auto& ln : base::split(text, '\n')) {
    auto f = base::split(ln, '\t');
    if (f.size() < 4 || f[0].size() != 1 || f[1].empty()) continue;
    Step::State state = f[0] == "o"   ? Step::State::Ok
                        : f[0] == "f" ? Step::State::Failed
                                      : Step::State::Begun;
    if (f[0] != "o" && f[0] != "f" && f[0] != "b") continue;
    int err = std::atoi(f[2].c_str());
    std::string note = f[3];
    for (size_t i = 4; i < f.size(); ++i) note += " " + f[i];
    Step* existing = nullptr;
    for (auto& s : steps)
      if (s.name == f[1]) existing = &s;
    if (existing && existing->state == Step::State::Begun) {
      existing->state = state;
      existing->err = err;
      existing->note = note;
    } else if (!existing || state != Step::State::Begun) {
      steps.push_back({state, f[1], err, note});
    }
  }
  return steps;
}

const Step* TrialResult::find(std::string_view name) const {
  const Step* found = nullptr;
  for (const auto& s : steps)
    if (s.name == name) found = &s;
  return found;
}

bool TrialResult::ok(std::string_view name) const {
  const Step* s = find(name);
  return s && s->state == Step::State::Ok;
}

TrialResult run_trial(TrialBody body, int timeout_ms) {
  TrialResult r;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) {
    r.failure = std::string("pipe2: ") + std::strerror(errno);
    return r;
  }
  base::UniqueFd rd(p[0]), wr(p[1]);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.failure = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) run_child(body, wr.get(), parent);
  ::setpgid(pid, pid);  // also done by the child: whichever runs first
  wr.reset();
  const long long deadline = now_ms() + timeout_ms;
  std::string text;
  bool finished = read_report(rd.get(), deadline, text) && wait_exit(pid, deadline);
  // The leader is not reaped yet, so its group id cannot have been reused: kill the group
  // (grandchildren the trial left behind), then reap.
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  int status = 0;
  const pid_t w = base::raw::wait_pid(pid, &status);
  r.steps = parse_steps(text);
  if (!finished) {
    r.timed_out = true;
    r.failure = "timed out after " + std::to_string(timeout_ms) + " ms";
  } else if (w == pid && WIFSIGNALED(status)) {
    r.failure = "the trial process was killed by " + signal_text(WTERMSIG(status));
  } else if (w == pid && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    r.failure = "the trial process exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return r;
}

}  // namespace rf::probe
