// SPDX-License-Identifier: LGPL-2.1-or-later
// --pidns: start the sandbox inside a given pid namespace, or in a new one under it. Both sides
// of the pid hand-off live here (the child forks its way in, the launcher learns the pid).
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "ringfence/base/fd_passing.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"
#include "steps.hpp"

namespace rf::engine {
namespace {

// The parent of the fork has done its part: it leaves, and its child is handed to the launcher
// (a subreaper) or, below a second pid namespace, to that namespace's init.
base::Status fork_intermediate_in_child() {
  pid_t pid = ::fork();
  if (pid < 0) return base::errno_error("Can't fork for --pidns");
  if (pid > 0) _exit(0);
  return {};
}

}  // namespace

base::Status enter_pid_namespace_in_child(const ChildContext& ctx) {
  if (::setns(ctx.spec->pidns_fd->num, CLONE_NEWPID) != 0) return base::errno_error("Setting pidns failed");
  RF_TRY(fork_intermediate_in_child());
  if (ctx.ns.pid) {  // --unshare-pid as well: a new namespace whose parent is the given one
    if (::unshare(CLONE_NEWPID) != 0) return base::errno_error("unshare pid ns");
    RF_TRY(fork_intermediate_in_child());
  }
  // The kernel checks the credentials against ours and rewrites the pid for the receiver.
  // (The child-safe send: it leaves errno set for the message.)
  const ucred cred{::getpid(), ::getuid(), ::getgid()};
  if (base::raw::send_fds(ctx.pid_sock, {}, &cred, 'p', MSG_NOSIGNAL) != 1)
    return base::errno_error("Can't send the sandbox pid to the launcher");
  ::close(ctx.pid_sock);
  return {};
}

base::Status make_pid_socket_from_parent(base::UniqueFd& launcher_end, base::UniqueFd& child_end) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return base::errno_error("socketpair");
  launcher_end.reset(sv[0]);
  child_end.reset(sv[1]);
  int on = 1;
  if (::setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
    return base::errno_error("setsockopt(SO_PASSCRED)");
  // The intermediate processes exit; their child must come to us to be waited for.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    return base::errno_error("prctl(PR_SET_CHILD_SUBREAPER)");
  return {};
}

base::Result<std::optional<pid_t>> receive_pid_from_parent(int sock, pid_t clone_pid, int intermediates) {
  char byte = 0;
  auto got = base::recv_fds(sock, &byte, 1, 0);
  std::optional<pid_t> pid;
  if (got && got->bytes == 1 && got->creds && got->creds->pid > 0) pid = got->creds->pid;
  if (!pid && got && got->bytes > 0) return base::Error(0, "Unexpected short read from pid socket");
  // The intermediates are (or become, as the first one exits) our children; they exit at once.
  // Without a pid something failed: reap whatever is ours, the status pipe says what happened.
  int st;
  (void)base::raw::wait_pid(clone_pid, &st);
  for (int i = 1; i < intermediates || !pid; ++i) {
    pid_t r = base::raw::wait_pid(-1, &st);
    if (r < 0) break;
    if (pid && r == *pid) return base::Error(0, "the sandbox ended during its setup");
  }
  return pid;
}

}  // namespace rf::engine
