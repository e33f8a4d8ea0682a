// SPDX-License-Identifier: LGPL-2.1-or-later
// Compiled programs, evaluated by a BPF interpreter the way the kernel runs them: argument
// widths, both architectures, bad architectures, the two-program lowering, and a randomised
// comparison of the filters against the language's own semantics.
#include <doctest/doctest.h>
#include <linux/audit.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <termios.h>

#include <cerrno>
#include <random>
#include <string>

#include "policy_test_util.hpp"

using namespace rf::policy;
using namespace rf::test;

namespace {

constexpr std::uint64_t kHigh = std::uint64_t{1} << 32;  // junk in the upper half

const char* const kAlways =
    "ioctl: arg1 != TIOCSTI && arg1 != TIOCLINUX; errno EPERM  # terminal injection\n"
    "socket: arg0 == AF_UNIX || arg0 == AF_INET || arg0 == AF_INET6 || arg0 == AF_NETLINK; errno EAFNOSUPPORT"
    "  # families\n"
    "clone: arg0 & CLONE_NEWNS|CLONE_NEWUSER|CLONE_NEWNET == 0; errno EPERM  # namespaces\n"
    "mount: errno EPERM  # the mount tree\n";

const char* const kProfile =
    "@default errno ENOSYS\n"
    "read\nwrite\nioctl\nsocket\nclone\ngetpid\nexit_group\n"
    "personality: arg0 == PER_LINUX || arg0 == PER_LINUX32 || arg0 == 0xffffffff; errno EPERM\n"
    "getppid: kill\nuname: log\n";

Policy load_ok(const MemPolicies& m, const std::string& text) {
  auto p = m.load_text(text);
  REQUIRE_MESSAGE(p.has_value(), error_of(p));
  return *p;
}

Policy standard() {
  MemPolicies m;
  m.catalog["deny/always.policy"] = kAlways;
  return load_ok(m, kProfile);
}

}  // namespace

TEST_CASE("programs: main first, then refine; whole sock_filter arrays") {
  Decider d(standard());
  REQUIRE(d.programs.size() == 2);
  CHECK(d.programs[0].role == "main");
  CHECK(d.programs[1].role == "refine");
  for (const auto& p : d.programs) CHECK(p.bytes.size() % 8 == 0);
  // Without a differing else-action (and with a default other than ENOSYS) one program does.
  Decider one(load_ok(MemPolicies{}, "@default errno EPERM\nread\nwrite: arg0 == 1 || arg0 == 2\n"));
  REQUIRE(one.programs.size() == 1);
  CHECK(one("write", {1}) == kRetAllow);
  CHECK(one("write", {3}) == ret_errno(EPERM));
  CHECK(one("read", {3}) == kRetAllow);
}

TEST_CASE("ioctl: the command is compared on its low 32 bits") {
  Decider d(standard());
  CHECK(d("ioctl", {0, TIOCSTI}) == ret_errno(EPERM));
  CHECK(d("ioctl", {0, TIOCSTI | kHigh}) == ret_errno(EPERM));
  CHECK(d("ioctl", {0, TIOCSTI | 0xffffffff00000000}) == ret_errno(EPERM));
  CHECK(d("ioctl", {0, TIOCLINUX | kHigh}) == ret_errno(EPERM));
  CHECK(d("ioctl", {0, TCGETS}) == kRetAllow);
  CHECK(d("ioctl", {0, TCGETS | kHigh}) == kRetAllow);
  CHECK(d("ioctl", {5, TIOCGWINSZ, 0x7ffd0000}) == kRetAllow);
}

TEST_CASE("socket: families outside the list get EAFNOSUPPORT, whatever the upper half") {
  Decider d(standard());
  CHECK(d("socket", {AF_VSOCK, SOCK_STREAM}) == ret_errno(EAFNOSUPPORT));
  CHECK(d("socket", {AF_PACKET, SOCK_RAW}) == ret_errno(EAFNOSUPPORT));
  CHECK(d("socket", {AF_INET, SOCK_STREAM}) == kRetAllow);
  CHECK(d("socket", {AF_INET | kHigh, SOCK_STREAM}) == kRetAllow);
  CHECK(d("socket", {AF_VSOCK | kHigh, SOCK_STREAM}) == ret_errno(EAFNOSUPPORT));
  CHECK(d("socket", {AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC}) == kRetAllow);
}

TEST_CASE("clone: namespace flags refused, a fork-style clone allowed") {
  Decider d(standard());
  CHECK(d("clone", {CLONE_NEWUSER | SIGCHLD}) == ret_errno(EPERM));
  CHECK(d("clone", {CLONE_NEWNET}) == ret_errno(EPERM));
  CHECK(d("clone", {CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD}) == kRetAllow);
  CHECK(d("clone", {CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
                    CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID}) == kRetAllow);
  // The kernel keeps only the low 32 bits of the legacy clone's flags.
  CHECK(d("clone", {SIGCHLD | kHigh}) == kRetAllow);
  CHECK(d("clone", {CLONE_NEWUSER | kHigh}) == ret_errno(EPERM));
}

TEST_CASE("personality: listed personas only") {
  Decider d(standard());
  CHECK(d("personality", {0xffffffff}) == kRetAllow);
  CHECK(d("personality", {0xffffffff | 0xffffffff00000000}) == kRetAllow);
  CHECK(d("personality", {PER_LINUX}) == kRetAllow);
  CHECK(d("personality", {PER_LINUX32}) == kRetAllow);
  CHECK(d("personality", {static_cast<std::uint64_t>(PER_LINUX) | READ_IMPLIES_EXEC}) == ret_errno(EPERM));
}

TEST_CASE("unconditional actions and the default") {
  Decider d(standard());
  CHECK(d("read", {0, 0, 100}) == kRetAllow);
  CHECK(d("getuid") == ret_errno(ENOSYS));
  CHECK(d("mount") == ret_errno(EPERM));
  CHECK(d("getppid") == kRetKill);
  CHECK(d("uname") == kRetLog);
}

TEST_CASE("foreign architectures and x32 numbers are killed") {
  Decider d(standard());
  SeccompData x32;
  x32.arch = AUDIT_ARCH_X86_64;
  x32.nr =
      static_cast<std::int32_t>(0x40000000 | static_cast<std::uint32_t>(nr_of("getpid", AUDIT_ARCH_X86_64)));
  CHECK(action_name(run_all(d.programs, x32)) == "kill-process");
  SeccompData arm;
  arm.arch = AUDIT_ARCH_AARCH64;
  arm.nr = 172;  // getpid on arm64
  CHECK(action_name(run_all(d.programs, arm)) == "kill-process");
  SeccompData native;
  native.arch = arch_native();
  native.nr = nr_of("getpid", native.arch);
  CHECK(action_name(run_all(d.programs, native)) == "allow");
}

TEST_CASE("i386: rules mirror the native ones; socketcall and ipc answer ENOSYS") {
  if (arch_native() != AUDIT_ARCH_X86_64) return;
  const std::uint32_t i386 = arch_i386();
  Decider d(standard());
  CHECK(d("ioctl", {0, TIOCSTI}, i386) == ret_errno(EPERM));
  CHECK(d("ioctl", {0, TCGETS}, i386) == kRetAllow);
  CHECK(d("read", {}, i386) == kRetAllow);
  CHECK(d("getuid32", {}, i386) == ret_errno(ENOSYS));
  CHECK(d("mount", {}, i386) == ret_errno(EPERM));
  CHECK(d("getppid", {}, i386) == kRetKill);
  CHECK(d("socket", {AF_VSOCK, SOCK_STREAM}, i386) == ret_errno(EAFNOSUPPORT));
  CHECK(d("socket", {AF_UNIX, SOCK_STREAM}, i386) == kRetAllow);
  CHECK(d("clone", {CLONE_NEWUSER}, i386) == ret_errno(EPERM));
  CHECK(d("personality", {0xffffffff}, i386) == kRetAllow);
  for (std::uint64_t call = 0; call < 21; ++call) CHECK(d("socketcall", {call}, i386) == ret_errno(ENOSYS));
  CHECK(d("ipc", {23}, i386) == ret_errno(ENOSYS));
}

TEST_CASE("i386 socketcall is ENOSYS whatever the default") {
  if (arch_native() != AUDIT_ARCH_X86_64) return;
  for (const char* dflt : {"errno ENOSYS", "errno EPERM", "kill", "log", "allow"}) {
    CAPTURE(dflt);
    // socket's allowed families and accept4 become socketcall rules that cannot see the family.
    Decider d(load_ok(MemPolicies{}, std::string("@default ") + dflt +
                                         "\nsocket: arg0 == AF_UNIX\naccept4\nshmget\n"
                                         "socketpair: arg0 == AF_UNIX; errno EAFNOSUPPORT\n"));
    for (std::uint64_t call : {1, 8, 18}) CHECK(d("socketcall", {call, 0}, arch_i386()) == ret_errno(ENOSYS));
    CHECK(d("ipc", {23}, arch_i386()) == ret_errno(ENOSYS));
    CHECK(d("accept4", {}, arch_i386()) == kRetAllow);
    CHECK(d("socket", {AF_UNIX}, arch_i386()) == kRetAllow);
  }
}

TEST_CASE("i386 arguments arrive zero-extended: 64-bit compares see only the low half") {
  if (arch_native() != AUDIT_ARCH_X86_64) return;
  Decider d(load_ok(MemPolicies{},
                    "@default errno EPERM\n"
                    "read: arg2 != 0x100000005; kill\n"          // always true on i386
                    "write: arg2 == 0x100000005 || arg2 == 7\n"  // only 7 on i386
                    "mmap: arg2 & PROT_EXEC == 0; errno EACCES\n"));
  CHECK(d("read", {0, 0, 5}, arch_i386()) == kRetAllow);
  CHECK(d("read", {0, 0, 0x100000005}) == kRetKill);
  CHECK(d("read", {0, 0, 5}) == kRetAllow);
  CHECK(d("write", {0, 0, 5}, arch_i386()) == ret_errno(EPERM));
  CHECK(d("write", {0, 0, 7}, arch_i386()) == kRetAllow);
  CHECK(d("write", {0, 0, 0x100000005}) == kRetAllow);
  CHECK(d("write", {0, 0, 5}) == ret_errno(EPERM));
  CHECK(d("mmap", {0, 4096, 5}) == ret_errno(EACCES));
  CHECK(d("mmap", {0, 4096, 1}) == kRetAllow);
  CHECK(d("mmap2", {0, 4096, 5}, arch_i386()) == ret_errno(EPERM));  // mmap2 is not named
  // i386's mmap is old_mmap, whose one argument points to a struct: the condition counts as false.
  CHECK(d("mmap", {0, 4096, 1}, arch_i386()) == ret_errno(EACCES));
}

TEST_CASE("pseudo_code shows every program") {
  auto pfc = pseudo_code(standard());
  REQUIRE_MESSAGE(pfc.has_value(), error_of(pfc));
  CHECK(pfc->find("# program 1: main\n") != std::string::npos);
  CHECK(pfc->find("# program 2: refine\n") != std::string::npos);
  CHECK(pfc->find("filter for syscall \"socketcall\"") != std::string::npos);
  CHECK(pfc->find("action KILL_PROCESS") != std::string::npos);
}

namespace {

// The language's meaning of an atom, straight from the definition.
bool holds(const Atom& a, std::uint64_t x, int width) {
  const std::uint64_t full = width == 64 ? ~std::uint64_t{0} : 0xffffffff;
  x &= full;
  switch (a.op) {
    case CmpOp::Eq: return x == a.value;
    case CmpOp::Ne: return x != a.value;
    case CmpOp::AnyBit: return (x & a.mask) != 0;
    case CmpOp::MaskedEq: return (x & a.mask) == a.value;
    case CmpOp::MaskedNe: return (x & a.mask) != a.value;
    case CmpOp::In: return (x & ~a.mask & full) == 0;
  }
  return false;
}

bool holds(const Rule& r, const std::array<std::uint64_t, 6>& args) {
  for (const auto& term : r.expr.terms) {
    bool all = true;
    for (const auto& a : term)
      all = all && holds(a, args[static_cast<std::size_t>(a.arg)], arg_width(r.syscall, a.arg));
    if (all) return true;
  }
  return false;
}

std::string random_atom(std::mt19937_64& rng, int arg, bool narrow, const std::vector<std::uint64_t>& pool) {
  auto pick = [&] {
    std::uint64_t v = pool[rng() % pool.size()];
    return narrow ? v & 0xffffffff : v;
  };
  std::string a = "arg" + std::to_string(arg);
  char buf[64];
  switch (rng() % 6) {
    case 0: std::snprintf(buf, sizeof buf, " == 0x%llx", static_cast<unsigned long long>(pick())); break;
    case 1: std::snprintf(buf, sizeof buf, " != 0x%llx", static_cast<unsigned long long>(pick())); break;
    case 2: std::snprintf(buf, sizeof buf, " & 0x%llx", static_cast<unsigned long long>(pick() | 1)); break;
    case 3: {
      std::uint64_t m = pick() | 0x10;
      std::snprintf(buf, sizeof buf, " & 0x%llx == 0x%llx", static_cast<unsigned long long>(m),
                    static_cast<unsigned long long>(pick() & m));
      break;
    }
    case 4: {
      std::uint64_t m = pick() | 0x3;
      std::snprintf(buf, sizeof buf, " & 0x%llx != 0x%llx", static_cast<unsigned long long>(m),
                    static_cast<unsigned long long>(pick() & m));
      break;
    }
    default: std::snprintf(buf, sizeof buf, " in 0x%llx", static_cast<unsigned long long>(pick())); break;
  }
  return a + buf;
}

std::array<std::uint64_t, 6> random_args(std::mt19937_64& rng, const std::vector<std::uint64_t>& pool,
                                         bool i386) {
  std::array<std::uint64_t, 6> args{};
  for (auto& x : args) {
    switch (rng() % 4) {
      case 0: x = pool[rng() % pool.size()]; break;
      case 1: x = pool[rng() % pool.size()] | (rng() & 0xffffffff00000000); break;
      case 2: x = pool[rng() % pool.size()] ^ (std::uint64_t{1} << (rng() % 64)); break;
      default: x = rng(); break;
    }
    if (i386) x &= 0xffffffff;
  }
  return args;
}

}  // namespace

TEST_CASE("randomised: the filters decide exactly what the expressions say") {
  std::mt19937_64 rng(20240611);
  const std::vector<std::uint64_t> pool = {0,
                                           1,
                                           2,
                                           3,
                                           5,
                                           0x10,
                                           0x12,
                                           0x5412,
                                           0x80000000,
                                           0xffffffff,
                                           0x100000000,
                                           0xffffffff00000000,
                                           0x8000000000000000,
                                           ~0ULL};
  const bool has_i386 = arch_native() == AUDIT_ARCH_X86_64;
  int compared = 0;
  for (int round = 0; round < 72; ++round) {
    // ioctl: arg0 and arg1 are 32-bit, the rest 64-bit; read: all 64-bit.
    const char* syscall = round % 2 == 0 ? "ioctl" : "read";
    std::string expr;
    int terms = 1 + static_cast<int>(rng() % 3);
    for (int t = 0; t < terms; ++t) {
      int atoms = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < atoms; ++i) {
        int arg = static_cast<int>(rng() % 3);
        std::string atom = random_atom(rng, arg, arg_width(syscall, arg) == 32, pool);
        expr += (i == 0 ? (t == 0 ? "" : " || ") : " && ") + atom;
      }
    }
    // Defaults and else-actions in every combination: the same as the default (main only), or
    // another one (refine), the kill and log actions included.
    static const char* const kDefaults[] = {"errno EPERM", "kill", "log"};
    static const std::uint32_t kDefaultRets[] = {ret_errno(EPERM), kRetKill, kRetLog};
    static const char* const kElses[] = {"", "; errno EACCES", "; kill", "; log"};
    static const std::uint32_t kElseRets[] = {0, ret_errno(EACCES), kRetKill, kRetLog};
    const std::size_t di = static_cast<std::size_t>(round) % 3, ei = static_cast<std::size_t>(round / 3) % 4;
    std::string text =
        std::string("@default ") + kDefaults[di] + "\n" + syscall + ": " + expr + kElses[ei] + "\n";
    CAPTURE(text);
    MemPolicies m;
    auto p = m.load_text(text);
    if (!p) {
      CHECK_MESSAGE(error_of(p).find("too complex") != std::string::npos, error_of(p));
      continue;
    }
    Decider d(*p);
    const Rule& rule = p->rules.at(0);
    const std::uint32_t denied = ei == 0 ? kDefaultRets[di] : kElseRets[ei];
    for (int probe = 0; probe < 300; ++probe) {
      const bool i386 = has_i386 && probe % 3 == 0;
      auto args = random_args(rng, pool, i386);
      std::string shown = i386 ? "i386" : "native";
      for (auto x : args) shown += " " + std::to_string(x);
      CAPTURE(shown);
      std::uint32_t want = holds(rule, args) ? kRetAllow : denied;
      CHECK(d(syscall, args, i386 ? arch_i386() : 0) == want);
      // Where main does not allow, its answer is the pair's: the programs may be folded into one.
      SeccompData data;
      data.arch = i386 ? arch_i386() : arch_native();
      data.nr = nr_of(syscall, data.arch);
      data.args = args;
      std::uint32_t main = run_bpf(d.programs[0].bytes, data);
      if (main != kRetAllow) CHECK(run_all(d.programs, data) == main);
      ++compared;
    }
  }
  CHECK(compared > 10000);
}
