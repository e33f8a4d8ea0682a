// SPDX-License-Identifier: LGPL-2.1-or-later
// One notification of the connect policy, served start to finish in a worker thread: copy the
// arguments out of the target, decide, and perform an allowed call on a duplicate socket.
#pragma once

#include <linux/seccomp.h>

#include <cstdint>

namespace rf::engine {

class Supervisor;

// The answer for the target: error (an errno, 0 for success) or the call's return value.
struct Reply {
  int error = 0;
  std::int64_t value = 0;
};

Reply serve_notification(Supervisor& sup, const seccomp_notif& n);

}  // namespace rf::engine
