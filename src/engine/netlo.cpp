// SPDX-License-Identifier: LGPL-2.1-or-later
// The new network namespace, made in parallel with the mount set-up: creating one is the
// largest kernel cost of a start (0.3-0.5 ms), so a short-lived helper process creates it and
// brings "lo" up while the child builds the root, and the child joins it afterwards.
#include <fcntl.h>
#include <linux/sched.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ringfence/base/unique_fd.hpp"
#include "steps.hpp"
#include "sync.hpp"

namespace rf::engine {
namespace {

// The helper's pid inside a new PID namespace: explicit and out of the way, so the command
// still gets pid 2 (an explicit pid does not move the namespace's allocation cursor).
constexpr pid_t kHelperPid = 299;

}  // namespace

base::Status loopback_up_in_child() {
  base::UniqueFd s(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) return base::errno_error("loopback: Failed to create socket");
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(s.get(), SIOCGIFFLAGS, &ifr) != 0) return base::errno_error("loopback: Failed to read flags of lo");
  if ((ifr.ifr_flags & IFF_UP) != 0) return {};
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
  if (::ioctl(s.get(), SIOCSIFFLAGS, &ifr) != 0) return base::errno_error("loopback: Failed to bring up lo");
  return {};
}

namespace {

[[noreturn]] void netns_helper(int status_fd, int slot, int proc_fd) {
  if (::unshare(CLONE_NEWNET) != 0)
    report_and_exit_in_child(status_fd, Stage::Loopback, base::errno_error("Creating new namespace failed"));
  if (auto s = loopback_up_in_child(); !s) report_and_exit_in_child(status_fd, Stage::Loopback, s.error());
  // Through a /proc fd opened before the fork: the child's pivot_root may already have moved
  // our root away from the host's tree.
  int fd = ::openat(proc_fd, "self/ns/net", O_RDONLY | O_CLOEXEC);
  // The fd table is shared: put the namespace where the child reserved a slot for it.
  if (fd < 0 || ::dup3(fd, slot, O_CLOEXEC) < 0)
    report_and_exit_in_child(status_fd, Stage::Loopback, base::errno_error("open /proc/self/ns/net"));
  _exit(0);
}

pid_t clone_helper(bool explicit_pid) {
  clone_args args{};
  args.flags = CLONE_FILES;
  args.exit_signal = SIGCHLD;
  pid_t tid = kHelperPid;
  if (explicit_pid) {
    args.set_tid = reinterpret_cast<__u64>(&tid);
    args.set_tid_size = 1;
  }
  long pid = syscall(SYS_clone3, &args, sizeof args);
  if (pid < 0 && explicit_pid && errno != ENOSYS) return clone_helper(false);
  if (pid < 0 && errno == ENOSYS) pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  return static_cast<pid_t>(pid);
}

}  // namespace

base::Result<NetnsJob> start_netns_in_child(const ChildContext& ctx) {
  NetnsJob job;
  job.slot = ::fcntl(ctx.status_fd, F_DUPFD_CLOEXEC, 0);
  if (job.slot < 0) return base::errno_error("fcntl(F_DUPFD_CLOEXEC)");
  // Both fds stay open until the join: the fd table is shared, a close here closes it there.
  job.proc = ::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (job.proc < 0) return base::errno_error("open /proc");
  job.pid = clone_helper(ctx.ns.pid);
  if (job.pid < 0) return base::errno_error("Can't fork");
  if (job.pid == 0) netns_helper(ctx.status_fd, job.slot, job.proc);
  return job;
}

base::Status join_netns_in_child(const NetnsJob& job) {
  int st = 0;
  while (::waitpid(job.pid, &st, 0) < 0)
    if (errno != EINTR) return base::errno_error("waitpid");
  // A failed helper has already reported its error on the shared status pipe.
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) _exit(1);
  ::close(job.proc);
  if (::setns(job.slot, CLONE_NEWNET) != 0) return base::errno_error("setns(CLONE_NEWNET)");
  ::close(job.slot);
  return {};
}

}  // namespace rf::engine
