// SPDX-License-Identifier: LGPL-2.1-or-later
// spec::validate and effective_namespaces: the cross-option rules, worded as bwrap words them.
#include <doctest/doctest.h>

#include "ringfence/spec/validate.hpp"

using namespace rf::spec;

namespace {

constexpr uid_t kUser = 1000;
constexpr gid_t kGroup = 1000;

Spec runnable() {
  Spec s;
  s.argv = {"true"};
  return s;
}

std::string message_of(const Spec& s, const Namespaces& ns, uid_t uid = kUser, gid_t gid = kGroup) {
  auto r = validate(s, ns, uid, gid);
  return r ? std::string() : r.error().message();
}

}  // namespace

TEST_CASE("effective_namespaces: unprivileged callers always get a user namespace") {
  Spec s = runnable();
  CHECK(effective_namespaces(s, kUser, true, true).user);
  CHECK_FALSE(effective_namespaces(s, 0, true, true).user);
}

TEST_CASE("effective_namespaces resolves the -try variants against the host") {
  Spec s = runnable();
  s.ns.user_try = true;
  s.ns.cgroup_try = true;
  Namespaces yes = effective_namespaces(s, 0, true, true);
  CHECK(yes.user);
  CHECK(yes.cgroup);
  CHECK_FALSE(yes.user_try);
  CHECK_FALSE(yes.cgroup_try);
  Namespaces no = effective_namespaces(s, 0, false, false);
  CHECK_FALSE(no.user);
  CHECK_FALSE(no.cgroup);
  CHECK_FALSE(no.user_try);
  CHECK_FALSE(no.cgroup_try);
}

TEST_CASE("effective_namespaces keeps the other flags as given") {
  Spec s = runnable();
  s.ns.pid = s.ns.net = s.ns.ipc = s.ns.uts = true;
  Namespaces ns = effective_namespaces(s, 0, true, true);
  CHECK(ns.pid);
  CHECK(ns.net);
  CHECK(ns.ipc);
  CHECK(ns.uts);
  CHECK_FALSE(ns.cgroup);
}

TEST_CASE("a plain runnable spec is valid") { CHECK(validate(runnable(), Namespaces{}, kUser, kGroup)); }

TEST_CASE("validate messages") {
  Namespaces none;
  Namespaces user;
  user.user = true;

  SUBCASE("no command") {
    Spec s;
    CHECK(message_of(s, none) == "No command specified");
    s.argv = {""};
    CHECK(message_of(s, none) == "No command specified");
  }
  SUBCASE("uid needs a user namespace unless it is the caller's") {
    Spec s = runnable();
    s.uid = 0;
    CHECK(message_of(s, none) == "Specifying --uid requires --unshare-user or --userns");
    CHECK(message_of(s, user).empty());
    s.uid = kUser;
    CHECK(message_of(s, none).empty());
  }
  SUBCASE("gid likewise") {
    Spec s = runnable();
    s.gid = 5;
    CHECK(message_of(s, none) == "Specifying --gid requires --unshare-user or --userns");
    CHECK(message_of(s, user).empty());
  }
  SUBCASE("hostname needs a UTS namespace") {
    Spec s = runnable();
    s.hostname = "box";
    CHECK(message_of(s, none) == "Specifying --hostname requires --unshare-uts");
    Namespaces uts;
    uts.uts = true;
    CHECK(message_of(s, uts).empty());
  }
  SUBCASE("as-pid-1 needs a PID namespace") {
    Spec s = runnable();
    s.as_pid_1 = true;
    CHECK(message_of(s, none) == "Specifying --as-pid-1 requires --unshare-pid");
    Namespaces pid;
    pid.pid = true;
    CHECK(message_of(s, pid).empty());
  }
  SUBCASE("file-system op checks") {
    Spec s = runnable();
    FsOp op;
    op.kind = OpKind::Dir;
    s.fs_ops.push_back(op);
    CHECK(message_of(s, none) == "empty destination path");
    s.fs_ops[0].dest = "/x";
    s.fs_ops[0].perms = 010000;
    CHECK(message_of(s, none) == "mode must be <= 07777");
    s.fs_ops[0].perms = 07777;
    CHECK(message_of(s, none).empty());
  }
  SUBCASE("passed fds must be real fd numbers") {
    Spec s = runnable();
    s.pass_fds = {3, -1};
    CHECK(message_of(s, none) == "Invalid fd: -1");
  }
  SUBCASE("the first failing rule is reported") {
    Spec s = runnable();
    s.uid = 0;
    s.hostname = "h";
    CHECK(message_of(s, none) == "Specifying --uid requires --unshare-user or --userns");
  }
}
