// SPDX-License-Identifier: LGPL-2.1-or-later
// probe: its copy of the preset table (aim, network) agrees with the presets layer's.
#include <doctest/doctest.h>

#include "observations.hpp"
#include "ringfence/presets/presets.hpp"
#include "ringfence/probe/probe.hpp"

TEST_CASE("the probe's preset aims and network needs follow presets::all_presets()") {
  using rf::probe::Availability;
  rf::probe::Report r;
  for (const char* id : {"userns", "idmap", "mountns", "pidns_proc", "ipc_uts", "pivot_root", "no_new_privs",
                         "seccomp", "landlock", "seccomp_notify", "pidfd_getfd"})
    r.checks.push_back({id, id, Availability::Yes, "", "", "", ""});
  r.checks.push_back({"netns", "netns", Availability::No, "", "", "", ""});
  r.landlock_abi = 6;
  rf::probe::conclude(r);
  const auto& presets = rf::presets::all_presets();
  REQUIRE(r.presets.size() == presets.size());
  for (size_t i = 0; i < presets.size(); ++i) {
    const auto& want = presets[i];
    const auto& got = r.presets[i];
    CHECK(got.preset == want.id);
    CHECK(rf::probe::level_name(got.aim) == rf::presets::level_name(want.fs_jail));
    // Without a network namespace the presets that need one (network off, or an egress
    // allowlist) lose the kernel level.
    const bool lost = got.reached != got.aim;
    const bool own_netns = !want.network || !want.host_sets.empty();
    CHECK_MESSAGE(lost == (own_netns && want.fs_jail == rf::presets::Level::Kernel), want.id);
  }
}
