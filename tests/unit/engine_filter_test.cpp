// SPDX-License-Identifier: LGPL-2.1-or-later
// connect_filter_program: which calls go to the supervisor under each listen policy, run on a
// small interpreter of the classic-BPF instructions the program uses.
#include <doctest/doctest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "supervise/supervisor.hpp"

using rf::engine::connect_filter_program;
using rf::spec::ListenPolicy;

namespace {

constexpr unsigned kX32 = 0x40000000u;

// The program's answer for one call (SECCOMP_RET_* with its data).
unsigned run(const std::string& prog, unsigned arch, unsigned nr, std::uint64_t arg3 = 0,
             std::uint64_t arg4 = 0) {
  seccomp_data d{};
  d.arch = arch;
  d.nr = static_cast<int>(nr);
  d.args[3] = arg3;
  d.args[4] = arg4;
  unsigned char bytes[sizeof d];
  std::memcpy(bytes, &d, sizeof d);
  const auto* code = reinterpret_cast<const sock_filter*>(prog.data());
  const std::size_t n = prog.size() / sizeof(sock_filter);
  unsigned acc = 0;
  for (std::size_t pc = 0; pc < n; ++pc) {
    const sock_filter& f = code[pc];
    switch (f.code) {
      case BPF_LD | BPF_W | BPF_ABS: std::memcpy(&acc, bytes + f.k, sizeof acc); break;
      case BPF_JMP | BPF_JEQ | BPF_K: pc += acc == f.k ? f.jt : f.jf; break;
      case BPF_JMP | BPF_JGE | BPF_K: pc += acc >= f.k ? f.jt : f.jf; break;
      case BPF_JMP | BPF_JSET | BPF_K: pc += (acc & f.k) ? f.jt : f.jf; break;
      case BPF_RET | BPF_K: return f.k;
      default: throw std::runtime_error("unexpected instruction " + std::to_string(f.code));
    }
  }
  throw std::runtime_error("ran off the end");
}

constexpr unsigned kNotify = SECCOMP_RET_USER_NOTIF;
constexpr unsigned kAllow = SECCOMP_RET_ALLOW;
constexpr unsigned kNoSys = SECCOMP_RET_ERRNO | ENOSYS;

}  // namespace

TEST_CASE("connect filter: servers go to the supervisor only where the listen policy limits them") {
  const std::string open = connect_filter_program(ListenPolicy::Unrestricted);
  const std::string loopback = connect_filter_program(ListenPolicy::LoopbackOnly);
  const std::string none = connect_filter_program(ListenPolicy::None);
  for (const auto* p : {&open, &loopback, &none}) {
    CHECK(run(*p, AUDIT_ARCH_X86_64, SYS_connect) == kNotify);
    CHECK(run(*p, AUDIT_ARCH_X86_64, SYS_sendto) == kAllow);  // no destination
    CHECK(run(*p, AUDIT_ARCH_X86_64, SYS_sendto, 0, 0x1000) == kNotify);
    CHECK(run(*p, AUDIT_ARCH_X86_64, SYS_read) == kAllow);
    CHECK(run(*p, AUDIT_ARCH_I386, 362) == kNoSys);  // i386 connect
  }
  for (unsigned nr : {unsigned{SYS_bind}, unsigned{SYS_listen}, unsigned{SYS_accept}, unsigned{SYS_accept4}})
    CHECK(run(open, AUDIT_ARCH_X86_64, nr) == kAllow);
  CHECK(run(open, AUDIT_ARCH_X86_64, kX32 | 49) == kAllow);
  CHECK(run(open, AUDIT_ARCH_I386, 361) == kAllow);

  CHECK(run(loopback, AUDIT_ARCH_X86_64, SYS_bind) == kNotify);
  CHECK(run(loopback, AUDIT_ARCH_X86_64, SYS_listen) == kNotify);
  CHECK(run(loopback, AUDIT_ARCH_X86_64, SYS_accept) == kAllow);
  CHECK(run(loopback, AUDIT_ARCH_X86_64, SYS_accept4) == kAllow);
  CHECK(run(loopback, AUDIT_ARCH_X86_64, kX32 | 49) == kNoSys);
  CHECK(run(loopback, AUDIT_ARCH_X86_64, kX32 | 50) == kNoSys);
  CHECK(run(loopback, AUDIT_ARCH_X86_64, kX32 | 43) == kAllow);

  for (unsigned nr : {unsigned{SYS_bind}, unsigned{SYS_listen}, unsigned{SYS_accept}, unsigned{SYS_accept4}})
    CHECK(run(none, AUDIT_ARCH_X86_64, nr) == kNotify);
  for (unsigned nr : {43u, 49u, 50u, 288u}) CHECK(run(none, AUDIT_ARCH_X86_64, kX32 | nr) == kNoSys);
  for (const auto* p : {&loopback, &none})
    for (unsigned nr : {361u, 363u, 364u}) CHECK(run(*p, AUDIT_ARCH_I386, nr) == kNoSys);
}
