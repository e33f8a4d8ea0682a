// SPDX-License-Identifier: LGPL-2.1-or-later
// One notification of the connect policy: copy the arguments out of the target, decide, and
// perform an allowed call on a duplicate socket. The receiving thread starts every call and
// finishes those that cannot block; a call that has to wait (a blocking connect still in its
// handshake, a blocking send into a full buffer) is finished by a worker.
#pragma once

#include <linux/seccomp.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

namespace rf::engine {

class Supervisor;

// The answer for the target: error (an errno, 0 for success) or the call's return value.
struct Reply {
  int error = 0;
  std::int64_t value = 0;
  bool proceed = false;  // let the kernel run the target's own call (SECCOMP_USER_NOTIF_FLAG_CONTINUE)
};

// A call that was decided and allowed but has to block: its copies, its duplicate socket and
// how far it got.
struct PendingCall;
struct PendingCallDeleter {
  void operator()(PendingCall* p) const;
};
using PendingPtr = std::unique_ptr<PendingCall, PendingCallDeleter>;

// Receiving thread: copy, decide, and try the call without blocking (sends with MSG_DONTWAIT,
// connects on non-blocking sockets or to local destinations under the supervisor's guard
// timer). Returns the answer, or nothing with `pending` set when the call has to wait.
std::optional<Reply> start_call(Supervisor& sup, const seccomp_notif& n, PendingPtr& pending);

// A worker: finish a pending call, blocking as the target's own call would. After an EINTR
// (the supervisor interrupts a worker whose target is gone, or when it stops) `give_up` is
// asked whether to stop; otherwise the call goes on where it was.
Reply finish_call(PendingCall& call, const std::function<bool()>& give_up);

// The notification a pending call answers.
std::uint64_t pending_id(const PendingCall& call);

// The answer when no worker can take a pending call: a connect is tried once more under the
// guard timer (it may well complete at once); otherwise what was already sent (part of a stream
// send, the first entries of a sendmmsg), else EAGAIN.
Reply overflow_reply(PendingCall& call);

}  // namespace rf::engine
