// SPDX-License-Identifier: LGPL-2.1-or-later
// The sandbox's own terminal (spec.own_terminal: native mode with a new session, when the
// launcher's stdin is a terminal). A new session has no controlling terminal, so a shell there
// has no job control and a terminal's Ctrl-C reaches nothing; handing it the host's terminal
// back would let TIOCSTI push input into the host's shell. Instead the sandbox gets a pseudo
// terminal of its own: the child makes the pty's slave its controlling terminal (and its
// stdin, stdout and stderr where those were the host's terminal), and the launcher relays
// between the host's terminal, put in raw mode, and the pty's master, forwarding window-size
// changes. TIOCSTI on the slave only reaches the sandbox's own input.
#pragma once

#include <termios.h>

#include <atomic>
#include <memory>
#include <thread>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::engine {

class TerminalRelay {
public:
  // A pty with the host terminal's settings and size on its slave; null when stdin is not a
  // terminal (nothing to relay: the new session simply has none).
  static base::Result<std::unique_ptr<TerminalRelay>> open();
  ~TerminalRelay();
  TerminalRelay(const TerminalRelay&) = delete;
  TerminalRelay& operator=(const TerminalRelay&) = delete;

  // The slave, for the child (close-on-exec; the child installs it as fds 0-2 and its
  // controlling terminal).
  [[nodiscard]] int slave() const { return slave_.get(); }
  // After the clone: the launcher's slave closed, the host terminal raw, the relay running.
  base::Status start();
  // The sandbox has ended: what it still wrote is passed on, the relay stops and the host
  // terminal gets its settings back. Idempotent (also the destructor).
  void stop();

private:
  TerminalRelay() = default;
  void relay();

  base::UniqueFd master_, slave_, wake_, winch_;
  termios saved_{};
  bool raw_ = false;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace rf::engine
