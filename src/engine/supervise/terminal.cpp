// SPDX-License-Identifier: LGPL-2.1-or-later
// The sandbox's own terminal (see terminal.hpp).
#include "terminal.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rf::engine {

namespace {

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      pollfd pf{fd, POLLOUT, 0};
      (void)::poll(&pf, 1, 100);
      continue;
    }
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

void copy_size(int from, int to) {
  winsize ws{};
  if (::ioctl(from, TIOCGWINSZ, &ws) == 0) (void)::ioctl(to, TIOCSWINSZ, &ws);
}

}  // namespace

base::Result<std::unique_ptr<TerminalRelay>> TerminalRelay::open() {
  // Not a terminal, or not in its foreground (raw mode from the background would stop us with
  // SIGTTOU): nothing to relay.
  if (!::isatty(STDIN_FILENO) || ::tcgetpgrp(STDIN_FILENO) != ::getpgrp())
    return std::unique_ptr<TerminalRelay>();
  std::unique_ptr<TerminalRelay> t(new TerminalRelay());
  t->master_.reset(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!t->master_.valid()) return base::errno_error("the sandbox's terminal: posix_openpt");
  if (::grantpt(t->master_.get()) != 0 || ::unlockpt(t->master_.get()) != 0)
    return base::errno_error("the sandbox's terminal: unlockpt");
  char name[128];
  if (::ptsname_r(t->master_.get(), name, sizeof name) != 0)
    return base::errno_error("the sandbox's terminal: ptsname");
  t->slave_.reset(::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!t->slave_.valid()) return base::errno_error(std::string("the sandbox's terminal: open ") + name);
  if (::tcgetattr(STDIN_FILENO, &t->saved_) != 0)
    return base::errno_error("the sandbox's terminal: tcgetattr");
  (void)::tcsetattr(t->slave_.get(), TCSANOW, &t->saved_);
  copy_size(STDIN_FILENO, t->slave_.get());
  t->wake_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!t->wake_.valid()) return base::errno_error("the sandbox's terminal: eventfd");
  // Window-size changes: SIGWINCH read from a signalfd. The caller blocks it in every thread
  // (the child gets the caller's mask back).
  sigset_t winch;
  sigemptyset(&winch);
  sigaddset(&winch, SIGWINCH);
  t->winch_.reset(::signalfd(-1, &winch, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!t->winch_.valid()) return base::errno_error("the sandbox's terminal: signalfd");
  return t;
}

TerminalRelay::~TerminalRelay() { stop(); }

base::Status TerminalRelay::start() {
  slave_.reset();
  termios raw = saved_;
  ::cfmakeraw(&raw);
  if (::tcsetattr(STDIN_FILENO, TCSANOW, &raw) != 0)
    return base::errno_error("the sandbox's terminal: raw mode on the host's terminal");
  raw_ = true;
  thread_ = std::thread([this] { relay(); });
  return {};
}

void TerminalRelay::relay() {
  char buf[16384];
  bool input = true;
  for (;;) {
    pollfd fds[4] = {{master_.get(), POLLIN, 0},
                     {input ? STDIN_FILENO : -1, POLLIN, 0},
                     {winch_.get(), POLLIN, 0},
                     {wake_.get(), POLLIN, 0}};
    if (::poll(fds, 4, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::read(master_.get(), buf, sizeof buf);
      if (n > 0) {
        (void)write_all(STDOUT_FILENO, buf, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        return;  // EIO: the sandbox closed its last descriptor of the terminal
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n > 0) {
        (void)write_all(master_.get(), buf, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        input = false;
      }
    }
    if (fds[2].revents & POLLIN) {
      signalfd_siginfo si{};
      while (::read(winch_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {}
      copy_size(STDIN_FILENO, master_.get());
    }
    if (fds[3].revents & POLLIN) {
      // Stopping: what the sandbox wrote last is passed on, then the relay ends.
      const int fl = ::fcntl(master_.get(), F_GETFL);
      (void)::fcntl(master_.get(), F_SETFL, fl | O_NONBLOCK);
      for (;;) {
        const ssize_t n = ::read(master_.get(), buf, sizeof buf);
        if (n <= 0) break;
        (void)write_all(STDOUT_FILENO, buf, static_cast<std::size_t>(n));
      }
      return;
    }
  }
}

void TerminalRelay::stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) {
    const std::uint64_t one = 1;
    (void)!::write(wake_.get(), &one, sizeof one);
    thread_.join();
  }
  if (raw_) (void)::tcsetattr(STDIN_FILENO, TCSADRAIN, &saved_);
  raw_ = false;
}

}  // namespace rf::engine
