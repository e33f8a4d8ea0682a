// SPDX-License-Identifier: LGPL-2.1-or-later
// The thread behind one seccomp user notification, as the supervisor's handlers (connect and
// sends in connect_emulate.cpp, bind/listen/accept in listen_policy.cpp) see it: its memory and
// its fds, trusted only while the notification is still valid.
#pragma once

#include <linux/seccomp.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ringfence/base/unique_fd.hpp"
#include "supervisor.hpp"

namespace rf::engine {

struct NotifTarget {
  NotifTarget(Supervisor& s, const seccomp_notif& notif, int fail_closed_errno)
      : sup(s), n(notif), fail_closed(fail_closed_errno) {}

  Supervisor& sup;
  seccomp_notif n;  // a copy: a pending call outlives the receiving thread's buffer
  int fail_closed;  // what a call gets when it cannot be checked
  base::UniqueFd pidfd;
  bool leader_pidfd = false;  // no thread pidfds (before Linux 6.9): a pidfd of the leader

  [[nodiscard]] bool valid() const { return sup.still_valid(n.id); }
  [[nodiscard]] std::string proc(std::string_view what) const {
    return "/proc/" + std::to_string(n.pid) + "/" + std::string(what);
  }
  // Its memory, through process_vm_readv/writev: false unless all `len` bytes moved.
  bool read(std::uint64_t addr, void* out, std::size_t len) const;
  bool write(std::uint64_t addr, const void* in, std::size_t len) const;
  // A pidfd of the thread, checked against pid reuse. 0 or an errno.
  int open();
  // A duplicate of its fd `fd` (the object it points to NOW). 0, EBADF or fail_closed.
  int take(int fd, base::UniqueFd& out) const;
  // Whether its fd `fd` is close-on-exec (/proc/<tid>/fdinfo); false where it cannot be read.
  [[nodiscard]] bool cloexec(int fd) const;
};

}  // namespace rf::engine
