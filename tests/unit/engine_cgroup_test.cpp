// SPDX-License-Identifier: LGPL-2.1-or-later
// locate_cgroups: this process's group in each hierarchy, from /proc/self/cgroup and mountinfo.
#include <doctest/doctest.h>

#include "supervise/cgroup.hpp"

using rf::engine::CgroupHome;
using rf::engine::locate_cgroups;

namespace {

const char* kHybridMountinfo =
    "30 25 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:4 - tmpfs tmpfs ro,mode=755\n"
    "31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec shared:5 - cgroup2 cgroup2 rw\n"
    "33 30 0:29 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec shared:7 - cgroup cgroup rw,memory\n"
    "34 30 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec shared:8 - cgroup cgroup rw,cpu,cpuacct\n"
    "35 30 0:31 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec shared:9 - cgroup cgroup rw,pids\n";

const CgroupHome* find(const std::vector<CgroupHome>& v, int version, const std::string& controller) {
  for (const auto& h : v)
    if (h.version == version && h.controller == controller) return &h;
  return nullptr;
}

}  // namespace

TEST_CASE("v2 only: the unified group under the cgroup2 mount") {
  auto r = locate_cgroups("0::/user.slice/user-1000.slice/session-2.scope\n",
                          "40 30 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
  REQUIRE(r);
  REQUIRE(r->size() == 1);
  CHECK(r->front().version == 2);
  CHECK(r->front().dir == "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope");
}

TEST_CASE("hybrid: each v1 controller's group, co-mounted controllers resolved, v2 root") {
  auto r = locate_cgroups("9:pids:/ci\n4:memory:/ci/job\n3:cpu,cpuacct:/\n0::/\n", kHybridMountinfo);
  REQUIRE(r);
  REQUIRE(find(*r, 1, "pids"));
  CHECK(find(*r, 1, "pids")->dir == "/sys/fs/cgroup/pids/ci");
  CHECK(find(*r, 1, "memory")->dir == "/sys/fs/cgroup/memory/ci/job");
  CHECK(find(*r, 1, "cpu")->dir == "/sys/fs/cgroup/cpu,cpuacct");
  CHECK(find(*r, 2, "")->dir == "/sys/fs/cgroup/unified");
}

TEST_CASE("a mount whose root is not above our path (another cgroup namespace) is not used") {
  auto r =
      locate_cgroups("0::/other/group\n", "40 30 0:27 /container /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  REQUIRE(r);
  CHECK(r->empty());
  r = locate_cgroups("0::/container/job\n", "40 30 0:27 /container /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  REQUIRE(r);
  REQUIRE(r->size() == 1);
  CHECK(r->front().dir == "/sys/fs/cgroup/job");
}

TEST_CASE("unmounted hierarchies and unreachable paths are left out; junk is an error") {
  auto r = locate_cgroups("5:memory:/x\n0::/\n", "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n");
  REQUIRE(r);
  CHECK(r->empty());
  r = locate_cgroups("0::(unreachable)/x\n", kHybridMountinfo);
  REQUIRE(r);
  CHECK(r->empty());
  CHECK_FALSE(locate_cgroups("garbage\n", kHybridMountinfo));
}
