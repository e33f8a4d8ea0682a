// SPDX-License-Identifier: LGPL-2.1-or-later
// merge_programs: the single merged program decides every call exactly as the kernel decides
// with the separate programs installed, for the shipped profiles and for random arguments.
#include <doctest/doctest.h>
#include <linux/audit.h>

#include <random>

#include "policy_test_util.hpp"
#include "ringfence/policy/merge.hpp"

using namespace rf::test;

namespace {

void check_equivalent(const std::vector<rf::policy::Program>& programs, const std::string& merged,
                      std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  const std::uint64_t interesting[] = {0,       1,      2,          10,          16,
                                       40,      0x5412, 0x541c,     0x5437,      0x10000000,
                                       0x20000, 0x80,   0xffffffff, 0x100000000, 0xdead000000005412};
  const std::uint32_t arches[] = {arch_native(), arch_i386(), AUDIT_ARCH_AARCH64};
  for (int i = 0; i < 20000; ++i) {
    SeccompData d;
    d.arch = arches[rng() % 3];
    d.nr = static_cast<std::int32_t>(rng() % 3 == 0 ? rng() % 480
                                                    : (rng() % 2 ? rng() % 64 : 0x40000000 + rng() % 400));
    for (auto& a : d.args) a = rng() % 2 ? interesting[rng() % std::size(interesting)] : rng();
    std::uint32_t want = run_all(programs, d);
    std::uint32_t got = run_bpf(merged, d);
    if (want != got) {
      CAPTURE(d.nr);
      CAPTURE(d.arch);
      CAPTURE(d.args[0]);
      CAPTURE(d.args[1]);
      CHECK(action_name(got) == action_name(want));
      return;
    }
  }
}

}  // namespace

TEST_CASE("merge_programs: every catalog profile, the same decisions as its separate programs") {
  for (const auto& name : rf::policy::catalog_profiles()) {
    CAPTURE(name);
    auto p = rf::policy::load(name);
    REQUIRE(p);
    auto programs = rf::policy::compile(*p);
    REQUIRE(programs);
    REQUIRE(programs->size() == 2);  // the shipped profiles need a refine program
    auto merged = rf::policy::merge_programs(*programs);
    REQUIRE(merged);
    CHECK(merged->bytes.size() == (*programs)[0].bytes.size() + (*programs)[1].bytes.size());
    check_equivalent(*programs, merged->bytes, 42);
    // Targeted: a refine decision, a main decision, an allowed call.
    SeccompData ioctl_sti;
    ioctl_sti.arch = arch_native();
    ioctl_sti.nr = nr_of("ioctl", arch_native());
    ioctl_sti.args[1] = 0xdead000000005412;  // TIOCSTI with junk above
    CHECK(run_bpf(merged->bytes, ioctl_sti) == ret_errno(EPERM));
    SeccompData mount;
    mount.arch = arch_native();
    mount.nr = nr_of("mount", arch_native());
    CHECK(run_bpf(merged->bytes, mount) == ret_errno(EPERM));
    SeccompData getpid;
    getpid.arch = arch_native();
    getpid.nr = nr_of("getpid", arch_native());
    CHECK(run_bpf(merged->bytes, getpid) == kRetAllow);
  }
}

TEST_CASE("merge_programs: errors") {
  CHECK(!rf::policy::merge_programs({}));
  rf::policy::Program odd{"1234567", "main"};
  CHECK(!rf::policy::merge_programs({odd}));
  // A program returning the accumulator (not a constant) cannot be folded.
  rf::policy::Program ret_a{std::string("\x16\x00\x00\x00\x00\x00\x00\x00", 8), "main"};
  rf::policy::Program allow{std::string("\x06\x00\x00\x00\x00\x00\xff\x7f", 8), "refine"};
  CHECK(!rf::policy::merge_programs({ret_a, allow}));
  auto one = rf::policy::merge_programs({allow});
  REQUIRE(one);
  CHECK(one->bytes == allow.bytes);
  // Too long for the kernel.
  std::string big;
  for (int i = 0; i < 4000; ++i) big += allow.bytes;
  CHECK(!rf::policy::merge_programs({rf::policy::Program{big, "main"}, rf::policy::Program{big, "refine"}}));
}
