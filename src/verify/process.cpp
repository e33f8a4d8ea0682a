// SPDX-License-Identifier: LGPL-2.1-or-later
// The child runner: fork, exec, capture, deadline, stop signals. A child's process group is
// killed while the child is still a zombie (never after it is reaped: the number could then
// belong to someone else's group).
#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::verify {
namespace {

using base::UniqueFd;

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

sigset_t stop_set() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : kStopSignals) sigaddset(&s, sig);
  return s;
}

double now_s() { return static_cast<double>(base::monotonic_ns()) / 1e9; }

// The child has exited (a zombie, not reaped yet).
bool has_exited(pid_t pid) {
  siginfo_t si{};
  if (::waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOHANG | WNOWAIT) != 0) return errno == ECHILD;
  return si.si_pid == pid;
}

int reap(pid_t pid) {
  auto waited = base::wait_pid(pid);
  if (!waited) return -1;
  const int status = *waited;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Waits until the child is a zombie, at most `seconds`; true when it is.
bool wait_exited(pid_t pid, double seconds) {
  const double end = now_s() + seconds;
  while (!has_exited(pid)) {
    if (now_s() >= end) return false;
    ::usleep(20000);
  }
  return true;
}

// Ends the child and its group, reaps it, returns its exit code.
int stop_child(pid_t pid, int first_signal, double grace) {
  ::kill(-pid, first_signal);
  ::kill(pid, first_signal);
  if (first_signal != SIGKILL) (void)wait_exited(pid, grace);
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  return reap(pid);
}

bool read_some(int fd, std::string& into) {
  char buf[65536];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  if (into.size() < kMaxCapture)
    into.append(buf, std::min(static_cast<size_t>(n), kMaxCapture - into.size()));
  return true;
}

[[noreturn]] void exec_in_child(const char* const* argv, const char* const* envp, const char* cwd, int out,
                                int err, int report, pid_t parent, const sigset_t& mask) {
  ::setpgid(0, 0);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0 || ::dup2(devnull, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0 ||
      ::chdir(cwd) != 0) {
    int e = errno;
    (void)!::write(report, &e, sizeof e);
    ::_exit(127);
  }
  ::execve(argv[0], const_cast<char* const*>(argv), const_cast<char* const*>(envp));
  int e = errno;
  (void)!::write(report, &e, sizeof e);
  ::_exit(127);
}

}  // namespace

base::Result<SignalGuard> SignalGuard::make() {
  SignalGuard g;
  sigset_t s = stop_set();
  if (::sigprocmask(SIG_BLOCK, &s, &g.old_) != 0) return base::errno_error("sigprocmask");
  g.armed_ = true;
  g.fd_.reset(::signalfd(-1, &s, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!g.fd_.valid()) return base::errno_error("signalfd");
  return g;
}

SignalGuard::SignalGuard(SignalGuard&& o) noexcept
    : fd_(std::move(o.fd_)), old_(o.old_), armed_(std::exchange(o.armed_, false)), caught_(o.caught_) {}

SignalGuard::~SignalGuard() {
  if (armed_) ::sigprocmask(SIG_SETMASK, &old_, nullptr);
}

int SignalGuard::take() {
  signalfd_siginfo si{};
  while (::read(fd_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si))
    note(static_cast<int>(si.ssi_signo));
  return caught_;
}

base::Result<Captured> run_captured(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                                    const std::string& cwd, double timeout_seconds, SignalGuard& signals) {
  if (argv.empty()) return base::Error(EINVAL, "run_captured: empty argv");
  if (int sig = signals.take()) {
    Captured c;
    c.interrupted = sig;
    return c;
  }
  std::vector<const char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(a.c_str());
  cargv.push_back(nullptr);
  for (const auto& e : env) cenv.push_back(e.c_str());
  cenv.push_back(nullptr);
  int out_p[2], err_p[2], rep_p[2];
  if (::pipe2(out_p, O_CLOEXEC) != 0) return base::errno_error("pipe");
  UniqueFd out_r(out_p[0]), out_w(out_p[1]);
  if (::pipe2(err_p, O_CLOEXEC) != 0) return base::errno_error("pipe");
  UniqueFd err_r(err_p[0]), err_w(err_p[1]);
  if (::pipe2(rep_p, O_CLOEXEC) != 0) return base::errno_error("pipe");
  UniqueFd rep_r(rep_p[0]), rep_w(rep_p[1]);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return base::errno_error("fork for " + argv[0]);
  if (pid == 0)
    exec_in_child(cargv.data(), cenv.data(), cwd.c_str(), out_w.get(), err_w.get(), rep_w.get(), parent,
                  signals.old_mask());
  ::setpgid(pid, pid);  // also here, so that a kill(-pid) right away reaches it
  out_w.reset();
  err_w.reset();
  rep_w.reset();
  int exec_errno = 0;
  const ssize_t got = base::raw::read(rep_r.get(), &exec_errno, sizeof exec_errno);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    reap(pid);
    return base::Error(exec_errno, "cannot run " + argv[0] + (cwd.empty() ? "" : " in " + cwd));
  }
  ::fcntl(out_r.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(err_r.get(), F_SETFL, O_NONBLOCK);
  UniqueFd pidfd(base::raw::pidfd_open(pid, 0));  // none: polled instead
  Captured c;
  const double deadline = now_s() + timeout_seconds;
  double drain_until = 0;
  bool exited = false;
  while (true) {
    if (!exited && has_exited(pid)) {
      exited = true;
      ::kill(-pid, SIGKILL);  // anything the child left in its group; the zombie holds the number
      c.exit_code = reap(pid);
      drain_until = now_s() + 2;
    }
    if (exited && !out_r.valid() && !err_r.valid()) break;
    const double t = now_s();
    if (exited && t >= drain_until) break;
    if (!exited && t >= deadline) {
      c.timed_out = true;
      c.exit_code = stop_child(pid, SIGKILL, 0);
      break;
    }
    std::vector<pollfd> fds;
    fds.push_back({signals.fd(), POLLIN, 0});
    if (out_r.valid()) fds.push_back({out_r.get(), POLLIN, 0});
    if (err_r.valid()) fds.push_back({err_r.get(), POLLIN, 0});
    if (!exited && pidfd.valid()) fds.push_back({pidfd.get(), POLLIN, 0});
    double limit = exited ? drain_until - t : deadline - t;
    if (!pidfd.valid() && !exited) limit = std::min(limit, 0.05);
    int ms = static_cast<int>(limit * 1000) + 1;
    if (::poll(fds.data(), fds.size(), ms) < 0 && errno != EINTR) return base::errno_error("poll");
    if (int sig = signals.take()) {
      c.interrupted = sig;
      c.exit_code = exited ? c.exit_code : stop_child(pid, SIGTERM, 3);
      break;
    }
    if (out_r.valid() && !read_some(out_r.get(), c.out)) out_r.reset();
    if (err_r.valid() && !read_some(err_r.get(), c.err)) err_r.reset();
  }
  return c;
}

std::string tail_lines(const std::string& text, int lines) {
  std::vector<std::string> kept;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (line.find_first_not_of(" \t\r") != std::string::npos) kept.push_back(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  std::string out;
  for (size_t i = kept.size() > static_cast<size_t>(lines) ? kept.size() - lines : 0; i < kept.size(); ++i)
    out += (out.empty() ? "" : " | ") + kept[i];
  return out;
}

}  // namespace rf::verify
