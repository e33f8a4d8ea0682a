// SPDX-License-Identifier: LGPL-2.1-or-later
// The shipped catalog (whatever seccomp/ held at build time) loads and compiles; the constant and
// argument-width tables are sound.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <set>
#include <string>
#include <vector>

#include "constants.hpp"
#include "lowering.hpp"
#include "policy_test_util.hpp"

using namespace rf::policy;
using rf::test::error_of;

TEST_CASE("every catalog profile loads and compiles") {
  auto profiles = catalog_profiles();
  CHECK(std::is_sorted(profiles.begin(), profiles.end()));
  if (profiles.empty()) MESSAGE("the catalog has no profiles yet");
  for (const auto& name : profiles) {
    CAPTURE(name);
    CHECK(catalog_has("profiles/" + name + ".policy"));
    auto p = load(name);
    REQUIRE_MESSAGE(p.has_value(), error_of(p));
    CHECK(p->name == name);
    CHECK(!show(*p).empty());
    auto progs = compile(*p);
    REQUIRE_MESSAGE(progs.has_value(), (progs ? std::string() : progs.error().describe()));
    CHECK(!progs->empty());
    auto pfc = pseudo_code(*p);
    CHECK_MESSAGE(pfc.has_value(), (pfc ? std::string() : pfc.error().describe()));
  }
}

TEST_CASE("every catalog group loads into a profile of its own") {
  for (const auto& file : catalog_files()) {
    if (file.rfind("groups/", 0) != 0) continue;
    CAPTURE(file);
    auto p = load_text("@default errno ENOSYS\n@include " + file + "\n", "check.policy");
    CHECK_MESSAGE(p.has_value(), error_of(p));
  }
}

TEST_CASE("catalog lookups") {
  auto files = catalog_files();
  CHECK(std::is_sorted(files.begin(), files.end()));
  for (const auto& f : files) CHECK(catalog_has(f));
  CHECK_FALSE(catalog_has("no/such.policy"));
  CHECK(error_of(load("no-such-profile")).rfind("unknown profile \"no-such-profile\" (", 0) == 0);
  CHECK(error_of(load("/nonexistent/x.policy")).rfind("open /nonexistent/x.policy", 0) == 0);
}

TEST_CASE("constants come from the system headers") {
  using rf::policy::detail::lookup_constant;
  using rf::policy::detail::lookup_errno;
  CHECK(lookup_constant("TIOCSTI") == TIOCSTI);
  CHECK(lookup_constant("TIOCLINUX") == TIOCLINUX);
  CHECK(lookup_constant("TCGETS") == TCGETS);
  CHECK(lookup_constant("AF_VSOCK") == AF_VSOCK);
  CHECK(lookup_constant("AF_UNIX") == AF_UNIX);
  CHECK(lookup_constant("SOCK_CLOEXEC") == SOCK_CLOEXEC);
  CHECK(lookup_constant("CLONE_NEWTIME") == CLONE_NEWTIME);
  CHECK(lookup_constant("CLONE_NEWCGROUP") == CLONE_NEWCGROUP);
  CHECK(lookup_constant("CLONE_NEWUSER") == CLONE_NEWUSER);
  CHECK(lookup_constant("PR_SET_NO_NEW_PRIVS") == PR_SET_NO_NEW_PRIVS);
  CHECK(lookup_constant("PER_LINUX32") == PER_LINUX32);
  CHECK(lookup_constant("ADDR_NO_RANDOMIZE") == ADDR_NO_RANDOMIZE);
  CHECK(lookup_constant("UNAME26") == UNAME26);
  CHECK(lookup_constant("O_WRONLY") == O_WRONLY);
  CHECK(lookup_constant("F_SETFL") == F_SETFL);
  CHECK(lookup_constant("PROT_EXEC") == PROT_EXEC);
  CHECK(lookup_constant("MAP_FIXED") == MAP_FIXED);
  CHECK(lookup_constant("SIGKILL") == SIGKILL);
  CHECK(lookup_constant("EPERM") == EPERM);  // errno names are values too
  CHECK_FALSE(lookup_constant("AF_FOO").has_value());
  CHECK_FALSE(lookup_constant("").has_value());
  for (const char* e : {"EPERM",       "ENOENT",  "EACCES",          "EINVAL", "ENOSYS", "EAFNOSUPPORT",
                        "EOPNOTSUPP",  "ENOTSUP", "EPROTONOSUPPORT", "ESRCH",  "EBADF",  "ENOMEM",
                        "EBUSY",       "EEXIST",  "EFAULT",          "ENODEV", "EROFS",  "ECONNREFUSED",
                        "ENETUNREACH", "ENOTTY",  "ENXIO",           "EIO",    "EAGAIN"}) {
    CAPTURE(e);
    CHECK(lookup_errno(e).has_value());
  }
  CHECK(lookup_errno("ENOSYS") == ENOSYS);
  CHECK_FALSE(lookup_errno("AF_INET").has_value());
  CHECK(rf::policy::detail::errno_name(EWOULDBLOCK) == "EAGAIN");
  CHECK(rf::policy::detail::errno_name(EDEADLOCK) == "EDEADLK");
  CHECK(rf::policy::detail::errno_name(4000).empty());
}

TEST_CASE("constant names are unique") {
  std::set<std::string_view> names;
  for (const auto& c : rf::policy::detail::errno_constants()) CHECK(names.insert(c.name).second);
  for (const auto& c : rf::policy::detail::other_constants()) {
    CAPTURE(c.name);
    CHECK(names.insert(c.name).second);
  }
  CHECK(names.size() > 500);
}

TEST_CASE("argument widths") {
  CHECK(rf::policy::detail::narrow_table_sorted());
  CHECK(arg_width("ioctl", 1) == 32);
  CHECK(arg_width("ioctl", 2) == 64);
  CHECK(arg_width("socket", 0) == 32);
  CHECK(arg_width("socket", 2) == 32);
  CHECK(arg_width("clone", 0) == 32);
  CHECK(arg_width("clone", 1) == 64);
  CHECK(arg_width("prctl", 0) == 32);
  CHECK(arg_width("prctl", 1) == 64);
  CHECK(arg_width("personality", 0) == 32);
  CHECK(arg_width("fcntl", 1) == 32);
  CHECK(arg_width("setsockopt", 1) == 32);
  CHECK(arg_width("getsockopt", 2) == 32);
  CHECK(arg_width("kill", 1) == 32);
  CHECK(arg_width("tgkill", 2) == 32);
  CHECK(arg_width("keyctl", 0) == 32);
  CHECK(arg_width("ptrace", 0) == 64);
  CHECK(arg_width("mmap", 2) == 64);
  CHECK(arg_width("unshare", 0) == 64);
  CHECK(arg_width("read", 0) == 64);
  CHECK(arg_width("nosuchcall", 0) == 64);
  CHECK(arg_width("ioctl", 6) == 64);
}

TEST_CASE("shipped profiles: no set-ID modes, no source routes, only plain personas") {
  using rf::test::Decider;
  using rf::test::kRetAllow;
  using rf::test::ret_errno;
  constexpr std::uint64_t kJunk = 0xdead000000000000;
  for (const char* name : {"default", "strict"}) {
    CAPTURE(name);
    auto p = load(name);
    REQUIRE_MESSAGE(p.has_value(), error_of(p));
    Decider d(*p);
    std::vector<std::uint32_t> arches{0};
    if (rf::test::arch_native() == AUDIT_ARCH_X86_64) arches.push_back(rf::test::arch_i386());
    for (std::uint32_t arch : arches) {
      CAPTURE(arch);
      for (std::uint64_t bits :
           {std::uint64_t{S_ISUID}, std::uint64_t{S_ISGID}, std::uint64_t{S_ISUID | S_ISGID}}) {
        CAPTURE(bits);
        const std::uint64_t mode = 0755 | bits;
        CHECK(d("chmod", {0, mode}, arch) == ret_errno(EPERM));
        CHECK(d("fchmod", {3, mode}, arch) == ret_errno(EPERM));
        CHECK(d("fchmodat", {3, 0, mode}, arch) == ret_errno(EPERM));
        CHECK(d("fchmodat2", {3, 0, mode, 0}, arch) == ret_errno(EPERM));
        CHECK(d("open", {0, O_CREAT | O_WRONLY, mode}, arch) == ret_errno(EPERM));
        CHECK(d("openat", {3, 0, O_CREAT | O_WRONLY, mode}, arch) == ret_errno(EPERM));
        CHECK(d("creat", {0, mode}, arch) == ret_errno(EPERM));
        CHECK(d("mknod", {0, S_IFREG | mode, 0}, arch) == ret_errno(EPERM));
        CHECK(d("mknodat", {3, 0, S_IFREG | mode, 0}, arch) == ret_errno(EPERM));
      }
      CHECK(d("chmod", {0, 0755}, arch) == kRetAllow);
      CHECK(d("chmod", {0, 01777}, arch) == kRetAllow);
      CHECK(d("fchmodat", {3, 0, 0644, 0}, arch) == kRetAllow);
      CHECK(d("openat", {3, 0, O_CREAT | O_WRONLY, 0666}, arch) == kRetAllow);
      CHECK(d("mknod", {0, S_IFIFO | 0644, 0}, arch) == kRetAllow);
      CHECK(d("mkdir", {0, 06777}, arch) == kRetAllow);  // the kernel drops set-ID bits of mkdir itself
      CHECK(d("openat2", {3, 0, 0, 24}, arch) == ret_errno(ENOSYS));
      for (int opt : {IPV6_RTHDR, IPV6_2292RTHDR, IPV6_2292PKTOPTIONS})
        CHECK(d("setsockopt", {3, IPPROTO_IPV6, static_cast<std::uint64_t>(opt), 0, 24}, arch) ==
              ret_errno(EPERM));
      CHECK(d("setsockopt", {3, IPPROTO_IP, IP_OPTIONS, 0, 8}, arch) == ret_errno(EPERM));
      CHECK(d("setsockopt", {3, IPPROTO_IPV6, IPV6_V6ONLY, 0, 4}, arch) == kRetAllow);
      CHECK(d("setsockopt", {3, IPPROTO_IP, IP_TOS, 0, 4}, arch) == kRetAllow);
      CHECK(d("setsockopt", {3, SOL_SOCKET, IPV6_RTHDR, 0, 4}, arch) == kRetAllow);
      for (std::uint64_t persona :
           {std::uint64_t{ADDR_NO_RANDOMIZE}, std::uint64_t{PER_LINUX32} | ADDR_NO_RANDOMIZE,
            std::uint64_t{READ_IMPLIES_EXEC}, std::uint64_t{MMAP_PAGE_ZERO},
            std::uint64_t{ADDR_COMPAT_LAYOUT}, std::uint64_t{UNAME26} | ADDR_NO_RANDOMIZE})
        CHECK(d("personality", {persona}, arch) == ret_errno(EPERM));
      for (std::uint64_t persona :
           {std::uint64_t{PER_LINUX}, std::uint64_t{PER_LINUX32}, std::uint64_t{UNAME26},
            std::uint64_t{UNAME26} | PER_LINUX32, std::uint64_t{0xffffffff}})
        CHECK(d("personality", {persona}, arch) == kRetAllow);
    }
    // The kernel reads modes, levels and option names in 32 bits or less: junk above cannot hide them.
    CHECK(d("chmod", {0, (0755 | S_ISUID) | kJunk}) == ret_errno(EPERM));
    CHECK(d("chmod", {0, 0755 | kJunk}) == kRetAllow);
    CHECK(d("setsockopt", {3, IPPROTO_IPV6 | kJunk, IPV6_RTHDR | kJunk, 0, 24}) == ret_errno(EPERM));
    CHECK(d("personality", {ADDR_NO_RANDOMIZE | kJunk}) == ret_errno(EPERM));
  }
}
