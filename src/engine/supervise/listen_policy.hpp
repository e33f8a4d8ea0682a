// SPDX-License-Identifier: LGPL-2.1-or-later
// The listen policy's calls in the supervisor: bind, listen and (network off) accept. The
// socket is always a pidfd_getfd duplicate, inspected and used as one object; an inet bind is
// performed by the supervisor with its own copy of the address; a listen is performed by it
// after the socket's bound name, read from the kernel, was checked.
#pragma once

#include <linux/seccomp.h>

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "connect_emulate.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/net/destination.hpp"

namespace rf::engine {

class Supervisor;

// bind, listen, accept or accept4: the calls the listen policy sends to the supervisor.
bool is_server_call(long nr);

// Decide one of them (refusals are EACCES, logged) and answer it: performed here, refused, or
// left to the kernel (Reply::proceed) where only the target can perform it: a unix path bind
// resolves in the target's filesystem view, a unix accept may wait. For a unix path bind left
// to the kernel, `recheck` gets the duplicate of the socket, for UnixBindCheck.
Reply serve_server_call(Supervisor& sup, const seccomp_notif& n, base::UniqueFd& recheck);

// After a unix path bind the kernel performed: the name it bound, read once the socket is
// bound (for at most kWindowMs). The kernel read the address again after the check, so a thread
// of the target may have turned the path into an abstract name: such a socket would receive
// datagrams from the host's processes, or squat a host service's name. Then `breach` is called
// (once) with the offending pid, the name bound and a line saying what happened; the caller
// stops the sandbox. One thread, started with the first socket.
class UnixBindCheck {
public:
  static constexpr int kWindowMs = 50;
  explicit UnixBindCheck(std::function<void(pid_t, const net::Destination&, const std::string&)> breach);
  ~UnixBindCheck();
  UnixBindCheck(const UnixBindCheck&) = delete;
  UnixBindCheck& operator=(const UnixBindCheck&) = delete;
  void add(base::UniqueFd sock, pid_t pid);
  void stop();

private:
  struct Entry {
    base::UniqueFd sock;
    pid_t pid = 0;
    std::int64_t deadline_ms = 0;
  };
  void loop();

  std::function<void(pid_t, const net::Destination&, const std::string&)> breach_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> pending_;
  bool stopping_ = false;
  bool breached_ = false;
  std::thread thread_;
};

}  // namespace rf::engine
