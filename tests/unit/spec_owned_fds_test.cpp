// SPDX-License-Identifier: LGPL-2.1-or-later
// spec::OwnedFds and named_fds: the owner of the descriptors a Spec names by number.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include "ringfence/spec/owned_fds.hpp"

using namespace rf::spec;

namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) >= 0; }

// A fresh descriptor (of /dev/null), without O_CLOEXEC, as a caller's would be.
int open_null() { return ::open("/dev/null", O_RDONLY); }

}  // namespace

TEST_CASE("OwnedFds closes what it still holds, and what is taken is the taker's") {
  const int a = open_null(), b = open_null(), c = open_null();
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  REQUIRE(c >= 0);
  rf::base::UniqueFd kept;
  {
    OwnedFds fds;
    fds.adopt(Fd{a});
    fds.adopt(Fd{b});
    fds.adopt(Fd{c});
    fds.adopt(Fd{a});  // named twice: owned once
    fds.adopt(Fd{});   // no descriptor
    CHECK(fds.size() == 3);
    CHECK(fds.holds(Fd{a}));
    kept = fds.take(Fd{a});
    CHECK(kept.get() == a);
    CHECK_FALSE(fds.holds(Fd{a}));
    CHECK_FALSE(fds.take(Fd{a}).valid());  // consumed once
    fds.close(Fd{b});
    CHECK_FALSE(is_open(b));
    CHECK(is_open(c));
    CHECK(fds.size() == 1);
    OwnedFds moved = std::move(fds);
    CHECK(moved.holds(Fd{c}));
  }
  CHECK_FALSE(is_open(c));  // closed with the table
  CHECK(is_open(a));        // the taker's
}

TEST_CASE("named_fds lists every descriptor a Spec names, pass_fds aside") {
  Spec s;
  FsOp file;
  file.kind = OpKind::File;
  file.dest = "/f";
  file.fd = Fd{7};
  FsOp dir;
  dir.kind = OpKind::Dir;
  dir.dest = "/d";
  s.fs_ops = {file, dir};
  s.seccomp_fd = Fd{8};
  s.sync_fd = Fd{9};
  s.json_status_fd = Fd{10};
  s.pidns_fd = Fd{11};
  s.pass_fds = {Fd{12}};
  CHECK(named_fds(s) == std::vector<Fd>{Fd{7}, Fd{8}, Fd{9}, Fd{10}, Fd{11}});
  CHECK(named_fds(Spec{}).empty());
}
