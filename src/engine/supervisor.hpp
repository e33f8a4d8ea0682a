// SPDX-License-Identifier: LGPL-2.1-or-later
// The connect policy's supervisor: a seccomp user-notification filter installed in the command
// process (connect, sendto with an address, sendmsg, sendmmsg), the hand-off of its listener to
// the launcher, and the launcher's side that decides each call with the net layer and, when
// allowed, performs it itself on a duplicate of the target's socket.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "context.hpp"
#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/net/policy.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

// The user-notification program (x86_64): connect, sendto with a non-NULL destination, sendmsg
// and sendmmsg go to the supervisor; MSG_FASTOPEN on any send is refused with EOPNOTSUPP; the
// i386 and x32 forms of these calls are refused with ENOSYS. Built in the launcher.
std::string connect_filter_program();

// Command process, just before its seccomp programs: install the program with a new listener
// and hand the listener to the launcher over ctx.notify_sock:
//   1. send a pidfd of ourselves (SCM_RIGHTS), while sendmsg is not yet filtered;
//   2. install the filter: from here on our sendmsg would wait for the supervisor;
//   3. write() the listener's fd number; the launcher takes it with pidfd_getfd;
//   4. read() the launcher's acknowledgement, then close the listener: it never exists inside
//      the sandbox once the command runs.
// Fails with a clear message where user notifications are unavailable.
base::Status install_connect_filter_in_child(const ChildContext& ctx);

// The launcher's side. Owned through shared_ptr: each notification is served by its own worker
// thread (a blocking connect must not stall the others), which keeps the supervisor alive.
class Supervisor : public std::enable_shared_from_this<Supervisor> {
 public:
  // Parses the rules (a bad rule is an error naming it) and opens the violation log.
  static base::Result<std::shared_ptr<Supervisor>> create(const spec::ConnectPolicy& policy);

  // The launcher's end of the hand-off socket, polled until the listener is taken.
  void set_handoff(base::UniqueFd fd) { handoff_ = std::move(fd); }
  [[nodiscard]] int handoff_fd() const { return handoff_.get(); }
  [[nodiscard]] int listener_fd() const { return hung_up_ ? -1 : listener_.get(); }
  // The hand-off socket is readable: take the listener. An error means the sandbox cannot be
  // supervised (the command then fails its setup too).
  base::Status take_listener();
  // The listener is readable: receive one notification and start its worker. On POLLHUP (no
  // process of the sandbox is left under the filter) the listener is closed.
  void serve_one(short revents);

  // Used by the workers.
  const net::Policy& policy() const { return policy_; }
  void log_violation(const std::string& line);
  void respond(std::uint64_t id, int error, std::int64_t value);
  [[nodiscard]] bool still_valid(std::uint64_t id) const;

 private:
  Supervisor() = default;
  net::Policy policy_;
  base::UniqueFd log_;
  std::mutex log_mu_;
  base::UniqueFd handoff_;
  base::UniqueFd target_pidfd_;  // the command, between hand-off steps 1 and 3
  base::UniqueFd listener_;
  bool hung_up_ = false;
  std::atomic<int> workers_{0};
};

// Launcher, before clone: the supervisor, the hand-off socket (the command's end in child_end
// and ctx.notify_sock) and the filter in ctx.
base::Status prepare_supervisor(const spec::ConnectPolicy& policy, ChildContext& ctx,
                                std::shared_ptr<Supervisor>& out, base::UniqueFd& child_end);

}  // namespace rf::engine
