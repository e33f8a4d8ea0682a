// SPDX-License-Identifier: LGPL-2.1-or-later
// The compiled programs installed in a real (forked) process: the kernel must answer as the
// interpreter in policy_compile_test.cpp predicts. Needs no privileges (no_new_privs is set).
#include <doctest/doctest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>

#include "policy_test_util.hpp"

using namespace rf::test;

namespace {

constexpr long kUnsupported = -4242;

// What one call returned: its result, or -errno.
long outcome(long r) { return r < 0 ? -errno : r; }

[[noreturn]] void child(const std::vector<rf::policy::Program>& programs, int fd) {
  std::array<long, 8> out{};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) out[0] = kUnsupported;
  for (const auto& p : programs) {
    sock_fprog prog{static_cast<unsigned short>(p.bytes.size() / sizeof(sock_filter)),
                    reinterpret_cast<sock_filter*>(const_cast<char*>(p.bytes.data()))};
    if (out[0] == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) out[0] = kUnsupported;
  }
  if (out[0] == 0) {
    const long high = 1L << 32;
    out[0] = outcome(syscall(SYS_ioctl, -1, TIOCSTI, 0));
    out[1] = outcome(syscall(SYS_ioctl, -1, TIOCSTI | high, 0));
    out[2] = outcome(syscall(SYS_ioctl, -1, TCGETS, 0));
    out[3] = outcome(syscall(SYS_socket, AF_NETLINK, SOCK_RAW, 0));
    long s = syscall(SYS_socket, AF_UNIX | high, SOCK_STREAM, 0);
    out[4] = s >= 0 ? 0 : -errno;
    if (s >= 0) syscall(SYS_close, s);
    out[5] = outcome(syscall(SYS_getppid));
    out[6] = outcome(syscall(SYS_getuid));
    out[7] = outcome(syscall(SYS_personality, 0xffffffffL));
  }
  syscall(SYS_write, fd, out.data(), sizeof out);
  syscall(SYS_exit_group, 0);
  __builtin_unreachable();
}

}  // namespace

TEST_CASE("the kernel agrees with the compiled decisions") {
  MemPolicies m;
  auto p = m.load_text(
      "@default errno ENOSYS\n"
      "write\nexit_group\nclose\n"
      "prctl\n"  // installs the second program under the first
      "ioctl: arg1 != TIOCSTI; errno EPERM\n"
      "socket: arg0 == AF_UNIX || arg0 == AF_INET; errno EAFNOSUPPORT\n"
      "getppid: errno EACCES\n"
      "personality: arg0 == 0xffffffff\n");
  REQUIRE_MESSAGE(p.has_value(), error_of(p));
  Decider d(*p);
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) child(d.programs, fds[1]);
  close(fds[1]);
  std::array<long, 8> out{};
  ssize_t n = read(fds[0], out.data(), sizeof out);
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE_MESSAGE(WIFEXITED(status), "child status " << status);
  REQUIRE(n == static_cast<ssize_t>(sizeof out));
  if (out[0] == kUnsupported) {
    MESSAGE("seccomp filters cannot be installed here; skipped");
    return;
  }
  CHECK(out[0] == -EPERM);
  CHECK(out[1] == -EPERM);  // the kernel reads the low 32 bits: still TIOCSTI, still refused
  CHECK(out[2] == -EBADF);  // allowed through to the kernel
  CHECK(out[3] == -EAFNOSUPPORT);
  CHECK(out[4] == 0);  // AF_UNIX with junk above: allowed, and the kernel makes the socket
  CHECK(out[5] == -EACCES);
  CHECK(out[6] == -ENOSYS);
  CHECK(out[7] >= 0);
}
