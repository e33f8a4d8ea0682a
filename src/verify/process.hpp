// SPDX-License-Identifier: LGPL-2.1-or-later
// Running a helper (ringfence run, rf-attack) as a child in its own process group, its stdout and
// stderr captured, under a deadline; SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to verify stop the
// child and are reported, so that the caller can still clean up.
#pragma once

#include <signal.h>

#include <string>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::verify {

// Blocks the stop signals and receives them on a signalfd while it lives; the old mask comes back
// at destruction (a signal still pending is then delivered as usual).
class SignalGuard {
public:
  static base::Result<SignalGuard> make();
  SignalGuard(SignalGuard&& o) noexcept;
  SignalGuard& operator=(SignalGuard&&) = delete;
  SignalGuard(const SignalGuard&) = delete;
  ~SignalGuard();

  [[nodiscard]] int fd() const { return fd_.get(); }
  [[nodiscard]] const sigset_t& old_mask() const { return old_; }
  // A stop signal received so far (read from the signalfd without waiting), or 0.
  int take();
  // The first stop signal received, remembered.
  [[nodiscard]] int caught() const { return caught_; }
  void note(int sig) {
    if (!caught_) caught_ = sig;
  }

private:
  SignalGuard() = default;
  base::UniqueFd fd_;
  sigset_t old_{};
  bool armed_ = false;
  int caught_ = 0;
};

struct Captured {
  int exit_code = -1;  // the exit status, or 128 + signal
  std::string out;     // stdout (cut at kMaxCapture)
  std::string err;     // stderr (cut at kMaxCapture)
  bool timed_out = false;
  int interrupted = 0;  // the stop signal that ended the wait (the child was then killed)
};

inline constexpr size_t kMaxCapture = 8u << 20;

// Runs argv[0] (a path) with env in cwd, stdin from /dev/null. The child is its own process
// group leader, dies with verify (PDEATHSIG), and its group is killed when it ends, when the
// deadline passes (timed_out) or when a stop signal arrives (interrupted). An error: it could
// not be started (the message names the program and the errno).
base::Result<Captured> run_captured(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                                    const std::string& cwd, double timeout_seconds, SignalGuard& signals);

// The last non-empty lines of a program's stderr, for an error message.
std::string tail_lines(const std::string& text, int lines);

}  // namespace rf::verify
