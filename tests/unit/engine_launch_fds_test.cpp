// SPDX-License-Identifier: LGPL-2.1-or-later
// The launch owns no descriptor it was not handed: a Spec naming one outside its OwnedFds is
// refused before anything runs. And it leaves the calling process as it found it.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/prctl.h>

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

// The launch changes the calling process for its duration (forwarded signals blocked, SIGCHLD
// at its default, the subreaper flag at the soft level) and puts every piece back, after a run
// and after a failed one.
TEST_CASE("the caller's process state is put back after a launch") {
  sigset_t mask, before_mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGUSR1);
  REQUIRE(::sigprocmask(SIG_SETMASK, &mask, &before_mask) == 0);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  struct sigaction before_chld {};
  REQUIRE(::sigaction(SIGCHLD, &ign, &before_chld) == 0);
  REQUIRE(::prctl(PR_SET_PDEATHSIG, SIGUSR2, 0, 0, 0) == 0);

  auto check_state = [](const char* when) {
    sigset_t now;
    ::sigprocmask(SIG_SETMASK, nullptr, &now);
    CHECK_MESSAGE(sigismember(&now, SIGUSR1) == 1, when);
    CHECK_MESSAGE(sigismember(&now, SIGINT) == 0, when);  // blocked while the sandbox ran
    CHECK_MESSAGE(sigismember(&now, SIGTERM) == 0, when);
    struct sigaction chld {};
    ::sigaction(SIGCHLD, nullptr, &chld);
    const bool ignored = chld.sa_handler == SIG_IGN;
    CHECK_MESSAGE(ignored, when);
    int death = 0, subreaper = 0;
    ::prctl(PR_GET_PDEATHSIG, &death, 0, 0, 0);
    ::prctl(PR_GET_CHILD_SUBREAPER, &subreaper, 0, 0, 0);
    CHECK_MESSAGE(death == SIGUSR2, when);
    CHECK_MESSAGE(subreaper == 0, when);
  };

  Spec s;
  s.jail = Jail::Soft;
  s.argv = {"/bin/true"};
  s.supervision.forward_signals = true;
  OwnedFds none;
  auto r = rf::engine::run_sandbox(s, none);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
  CHECK(r->code == 0);
  check_state("after a run");
  s.argv = {"/nonexistent/rf-no-such-command"};
  r = rf::engine::run_sandbox(s, none);
  CHECK((!r || r->code != 0));
  check_state("after a failed run");

  ::prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
  ::sigaction(SIGCHLD, &before_chld, nullptr);
  ::sigprocmask(SIG_SETMASK, &before_mask, nullptr);
}
