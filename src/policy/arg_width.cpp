// SPDX-License-Identifier: LGPL-2.1-or-later
// Which syscall arguments the kernel reads as 32-bit (int, unsigned int, pid_t, umode_t...).
// Compares on these ignore the upper half, so junk there can neither dodge nor trip a rule.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "lowering.hpp"
#include "ringfence/policy/policy.hpp"

namespace rf::policy {

namespace {

struct Narrow {
  std::string_view syscall;
  std::uint8_t args;  // bit N set: argN is 32-bit
};

constexpr std::uint8_t a(int n) { return static_cast<std::uint8_t>(1u << n); }

// Sorted by name (checked by a unit test). Taken from the kernel's SYSCALL_DEFINE parameter
// types. clone is here because the kernel keeps only the low 32 bits of its flags; argument
// types of long, unsigned long, size_t and pointers stay 64-bit.
constexpr std::array kNarrow = {
    Narrow{"accept4", a(0) | a(3)},
    Narrow{"arch_prctl", a(0)},
    Narrow{"bind", a(0) | a(2)},
    Narrow{"bpf", a(0) | a(2)},
    Narrow{"chmod", a(1)},
    Narrow{"clone", a(0)},
    Narrow{"connect", a(0) | a(2)},
    Narrow{"creat", a(1)},
    Narrow{"dup2", a(0) | a(1)},
    Narrow{"dup3", a(0) | a(1) | a(2)},
    Narrow{"epoll_create1", a(0)},
    Narrow{"eventfd2", a(0) | a(1)},
    Narrow{"fchmod", a(0) | a(1)},
    Narrow{"fchmodat", a(0) | a(2)},
    Narrow{"fchmodat2", a(0) | a(2) | a(3)},
    Narrow{"fcntl", a(0) | a(1)},
    Narrow{"flock", a(0) | a(1)},
    Narrow{"fsconfig", a(0) | a(1) | a(4)},
    Narrow{"fsmount", a(0) | a(1) | a(2)},
    Narrow{"fsopen", a(1)},
    Narrow{"get_robust_list", a(0)},
    Narrow{"getpgid", a(0)},
    Narrow{"getrandom", a(2)},
    Narrow{"getsid", a(0)},
    Narrow{"getsockopt", a(0) | a(1) | a(2)},
    Narrow{"inotify_init1", a(0)},
    Narrow{"ioctl", a(0) | a(1)},
    Narrow{"ioprio_set", a(0) | a(1) | a(2)},
    Narrow{"kcmp", a(0) | a(1) | a(2)},
    Narrow{"keyctl", a(0)},
    Narrow{"kill", a(0) | a(1)},
    Narrow{"listen", a(0) | a(1)},
    Narrow{"madvise", a(2)},
    Narrow{"memfd_create", a(1)},
    Narrow{"mknod", a(1) | a(2)},
    Narrow{"mknodat", a(0) | a(2) | a(3)},
    Narrow{"mount_setattr", a(0) | a(2)},
    Narrow{"move_mount", a(0) | a(2) | a(4)},
    Narrow{"open", a(1) | a(2)},
    Narrow{"open_tree", a(0) | a(2)},
    Narrow{"openat", a(0) | a(2) | a(3)},
    Narrow{"perf_event_open", a(1) | a(2) | a(3)},
    Narrow{"personality", a(0)},
    Narrow{"pidfd_getfd", a(0) | a(1) | a(2)},
    Narrow{"pidfd_open", a(0) | a(1)},
    Narrow{"pidfd_send_signal", a(0) | a(1) | a(3)},
    Narrow{"pipe2", a(1)},
    Narrow{"prctl", a(0)},
    Narrow{"prlimit64", a(0) | a(1)},
    Narrow{"process_madvise", a(0) | a(3) | a(4)},
    Narrow{"process_vm_readv", a(0)},
    Narrow{"process_vm_writev", a(0)},
    Narrow{"reboot", a(0) | a(1) | a(2)},
    Narrow{"rt_sigaction", a(0)},
    Narrow{"rt_sigprocmask", a(0)},
    Narrow{"rt_sigqueueinfo", a(0) | a(1)},
    Narrow{"rt_tgsigqueueinfo", a(0) | a(1) | a(2)},
    Narrow{"sched_getaffinity", a(0)},
    Narrow{"sched_setaffinity", a(0)},
    Narrow{"seccomp", a(0) | a(1)},
    Narrow{"setgid", a(0)},
    Narrow{"setns", a(0) | a(1)},
    Narrow{"setpgid", a(0) | a(1)},
    Narrow{"setpriority", a(0) | a(1) | a(2)},
    Narrow{"setregid", a(0) | a(1)},
    Narrow{"setresgid", a(0) | a(1) | a(2)},
    Narrow{"setresuid", a(0) | a(1) | a(2)},
    Narrow{"setreuid", a(0) | a(1)},
    Narrow{"setsockopt", a(0) | a(1) | a(2) | a(4)},
    Narrow{"setuid", a(0)},
    Narrow{"shutdown", a(0) | a(1)},
    Narrow{"socket", a(0) | a(1) | a(2)},
    Narrow{"socketpair", a(0) | a(1) | a(2)},
    Narrow{"syslog", a(0) | a(2)},
    Narrow{"tgkill", a(0) | a(1) | a(2)},
    Narrow{"timerfd_create", a(0) | a(1)},
    Narrow{"tkill", a(0) | a(1)},
    Narrow{"umask", a(0)},
    Narrow{"umount2", a(1)},
    Narrow{"userfaultfd", a(0)},
    Narrow{"wait4", a(0) | a(2)},
    Narrow{"waitid", a(0) | a(1) | a(3)},
};

}  // namespace

int arg_width(std::string_view syscall, int arg) {
  if (arg < 0 || arg > 5) return 64;
  auto it = std::lower_bound(kNarrow.begin(), kNarrow.end(), syscall,
                             [](const Narrow& n, std::string_view s) { return n.syscall < s; });
  if (it == kNarrow.end() || it->syscall != syscall) return 64;
  return (it->args & a(arg)) != 0 ? 32 : 64;
}

namespace detail {

bool narrow_table_sorted() {
  return std::is_sorted(kNarrow.begin(), kNarrow.end(),
                        [](const Narrow& x, const Narrow& y) { return x.syscall < y.syscall; });
}

}  // namespace detail

}  // namespace rf::policy
