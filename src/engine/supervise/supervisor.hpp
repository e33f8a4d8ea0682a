// SPDX-License-Identifier: LGPL-2.1-or-later
// The connect policy's supervisor: a seccomp user-notification filter installed in the command
// process (connect, sendto with an address, sendmsg, sendmmsg; bind, listen and accept under the
// listen policy), the hand-off of its listener to the launcher, and the launcher's side that
// decides each call with the net layer and, when allowed, performs it itself on a duplicate of
// the target's socket.
#pragma once

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../context.hpp"
#include "connect_emulate.hpp"
#include "listen_policy.hpp"
#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/net/policy.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

// The user-notification program (x86_64): connect, sendto with a non-NULL destination, sendmsg
// and sendmmsg go to the supervisor; MSG_FASTOPEN on any send is refused with EOPNOTSUPP; the
// i386 and x32 forms of these calls are refused with ENOSYS. Built in the launcher. A listen
// policy other than Unrestricted also sends bind and listen to the supervisor (and, for None,
// accept and accept4), their i386 and x32 forms refused with ENOSYS. So does the egress
// allowlist (a socket the launcher connected lives on the host's network: it must not serve).
std::string connect_filter_program(spec::ListenPolicy listen, bool egress = false);

// Command process, just before its seccomp programs: install the program with a new listener
// and hand the listener to the launcher over ctx.notify_sock:
//   1. send a pidfd of ourselves (SCM_RIGHTS), while sendmsg is not yet filtered;
//   2. install the filter: from here on our sendmsg would wait for the supervisor;
//   3. write() the listener's fd number; the launcher takes it with pidfd_getfd;
//   4. read() the launcher's acknowledgement, then close the listener: it never exists inside
//      the sandbox once the command runs.
// Fails with a clear message where user notifications are unavailable.
// Under the egress allowlist, step 3 also writes the numbers of the sandbox's resolver sockets
// (resolver_udp, resolver_tcp: bound on its lo by the loopback step), which the launcher takes
// too; they are closed here once it has.
base::Status install_connect_filter_in_child(const ChildContext& ctx, int resolver_udp = -1,
                                             int resolver_tcp = -1);

// The launcher's side: a receiving thread and a bounded pool of workers.
//
// The receiving thread takes each notification, copies and decides it, and performs every call
// that cannot block at once: denials, sends (with MSG_DONTWAIT), connects on non-blocking
// sockets and to local destinations (bounded by a guard timer of kGuardMs). A call that has to
// wait (a blocking connect to another host, a blocking send into a full buffer, a local
// connect still waiting when the guard fires) goes to a worker, so one waiting call never
// holds up the others. Workers are started on demand, at most kMaxWorkers; beyond that a
// waiting connect gets one more try under the guard timer, then the call is refused with
// EAGAIN. A worker whose target is gone (killed while waiting) is interrupted by a signal.
// stop() (also the destructor) interrupts and joins every thread.
class Egress;

class Supervisor {
public:
  static constexpr int kMaxWorkers = 256;
  static constexpr int kGuardMs = 2;
  // The violation log: a run writes at most this much; a file of half of it or more is moved
  // to PATH.1 when a run opens it. The debug log shows at most kDebugPerSecond denials a second.
  static constexpr std::size_t kLogLimit = 2u << 20;
  static constexpr int kDebugPerSecond = 20;

  // Parses the rules (a bad rule is an error naming it) and opens the violation log.
  static base::Result<std::shared_ptr<Supervisor>> create(const spec::ConnectPolicy& policy);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // The launcher's end of the hand-off socket, polled until the listener is taken.
  void set_handoff(base::UniqueFd fd) { handoff_ = std::move(fd); }
  [[nodiscard]] int handoff_fd() const { return handoff_.get(); }
  // The hand-off socket is readable: take the listener, then start the receiving thread. An
  // error means the sandbox cannot be supervised (the command then fails its setup too).
  base::Status take_listener();
  // The sandbox has ended: interrupt and join every thread, close the listener. Idempotent.
  void stop();

  // Used while serving calls.
  const net::Policy& policy() const { return policy_; }
  [[nodiscard]] spec::ListenPolicy listen_policy() const { return listen_; }
  // restrict_unix_paths: whether a unix socket at this path (the launcher's view) may be reached.
  [[nodiscard]] bool unix_path_allowed(const std::string& path) const;
  void log_violation(const std::string& line);
  // A unix path bind the kernel performed (listen_policy.hpp, UnixBindCheck), checked once bound.
  void check_unix_bind(base::UniqueFd sock, pid_t pid);
  // Called (once, from a supervisor thread) when the sandbox broke the policy in a way that
  // cannot be refused afterwards; set before the listener is taken. breach() says what happened.
  void set_on_breach(std::function<void()> stop_sandbox);
  [[nodiscard]] std::string breach() const;
  void respond(std::uint64_t id, int error, std::int64_t value);
  // Install `src` in the target as its fd `number` (replacing what is there), close-on-exec as
  // asked, before the call is answered. 0 or an errno.
  int install_fd(std::uint64_t id, int src, int number, bool cloexec);
  // The egress allowlist, or null.
  [[nodiscard]] Egress* egress() const { return egress_.get(); }
  // Let the kernel run the target's call as it made it (never for a decision on its arguments).
  void respond_continue(std::uint64_t id);
  [[nodiscard]] bool still_valid(std::uint64_t id) const;
  // The receiving thread: bound the next call to kGuardMs (it then fails with EINTR). false
  // when there is no guard timer (such calls then go to a worker).
  bool arm_guard();
  void disarm_guard();

private:
  struct Worker;
  Supervisor() = default;
  void receive_loop();
  void serve(const seccomp_notif& n);
  bool dispatch(PendingPtr& call);  // takes the call only when a worker will finish it
  void worker_loop(Worker& w);
  void sweep();
  static void* receive_main(void* self);
  static void* worker_main(void* w);

  net::Policy policy_;
  std::unique_ptr<Egress> egress_;
  spec::ListenPolicy listen_ = spec::ListenPolicy::Unrestricted;
  bool restrict_unix_paths_ = false;
  std::vector<std::string> unix_path_allow_;
  // The violation log and the debug log's rate limit.
  std::mutex log_mu_;
  std::string run_id_;  // "PID-MS": every line of this run carries it
  bool hints_ = false;
  std::vector<std::string> hinted_kinds_;  // under log_mu_
  base::UniqueFd log_;
  std::string log_path_;
  std::size_t log_written_ = 0;
  bool log_full_ = false;
  std::uint64_t log_dropped_ = 0;
  std::int64_t debug_window_ = 0;
  int debug_shown_ = 0;
  std::uint64_t debug_suppressed_ = 0;

  base::UniqueFd handoff_;
  base::UniqueFd target_pidfd_;  // the command, between hand-off steps 1 and 3
  base::UniqueFd listener_;
  base::UniqueFd wake_;  // eventfd: stop() wakes the receiving thread
  std::atomic<bool> stopping_{false};
  bool receiving_ = false;
  pthread_t receiver_{};
  timer_t guard_{};
  bool have_guard_ = false;

  // UnixBindCheck and the breach. breach_mu_ guards these.
  mutable std::mutex breach_mu_;
  std::shared_ptr<UnixBindCheck> unix_binds_;
  std::function<void()> on_breach_;
  std::string breach_;

  // The pool. mu_ guards everything below.
  mutable std::mutex mu_;
  std::condition_variable cv_;       // workers wait for calls
  std::condition_variable idle_cv_;  // stop() waits for workers to leave
  std::deque<PendingPtr> queue_;
  std::vector<std::unique_ptr<Worker>> workers_;
  int idle_ = 0;
  int alive_ = 0;
  int busy_ = 0;
};

// Launcher, before clone: the supervisor, the hand-off socket (the command's end in child_end
// and ctx.notify_sock) and the filter in ctx.
base::Status prepare_supervisor(const spec::ConnectPolicy& policy, ChildContext& ctx,
                                std::shared_ptr<Supervisor>& out, base::UniqueFd& child_end);

}  // namespace rf::engine
