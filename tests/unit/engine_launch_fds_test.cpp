// SPDX-License-Identifier: LGPL-2.1-or-later
// The launch owns no descriptor it was not handed: a Spec naming one outside its OwnedFds is
// refused before anything runs.
#include <doctest/doctest.h>

#include "ringfence/engine/launch.hpp"

using namespace rf::spec;

TEST_CASE("a Spec naming an fd its table does not hold is refused") {
  Spec s;
  s.argv = {"true"};
  s.sync_fd = Fd{987};
  OwnedFds none;
  auto r = rf::engine::run_sandbox(s, none);
  REQUIRE_FALSE(r);
  CHECK(r.error().message() ==
        "the sandbox's description names fd 987, which was not handed to the launcher with it");
  s.jail = Jail::Soft;  // the other jails too
  CHECK_FALSE(rf::engine::launch(s, none));
}
