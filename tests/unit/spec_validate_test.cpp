// SPDX-License-Identifier: LGPL-2.1-or-later
// spec::validate and effective_namespaces: the cross-option rules, worded as bwrap words them.
#include <doctest/doctest.h>

#include <optional>

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
    s.pass_fds = {rf::spec::Fd{3}, rf::spec::Fd{-1}};
    CHECK(message_of(s, none) == "Invalid fd: -1");
    CHECK(validate(s, none, kUser, kGroup).error().code() == 0);
  }
  SUBCASE("data ops need a content fd") {
    for (OpKind kind : {OpKind::File, OpKind::BindData, OpKind::RoBindData}) {
      Spec s = runnable();
      FsOp op;
      op.kind = kind;
      op.dest = "/x";
      s.fs_ops.push_back(op);
      CHECK(message_of(s, none) == "Invalid fd: -1");
      s.fs_ops[0].fd = rf::spec::Fd{0};
      CHECK(message_of(s, none).empty());
    }
  }
  SUBCASE("the single fds must be real fd numbers") {
    for (std::optional<rf::spec::Fd> Spec::*field :
         {&Spec::sync_fd, &Spec::block_fd, &Spec::info_fd, &Spec::json_status_fd}) {
      Spec s = runnable();
      s.*field = rf::spec::Fd{0};
      CHECK(message_of(s, none).empty());
      s.*field = rf::spec::Fd{-2};
      CHECK(message_of(s, none) == "Invalid fd: -2");
    }
    Spec s = runnable();
    s.userns_block_fd = rf::spec::Fd{-3};
    s.info_fd = rf::spec::Fd{4};
    CHECK(message_of(s, user) == "Invalid fd: -3");
  }
  SUBCASE("lock files and as-pid-1") {
    Spec s = runnable();
    s.lock_files = {"/x"};
    CHECK(message_of(s, none).empty());
    Namespaces pid;
    pid.pid = true;
    s.as_pid_1 = true;
    CHECK(message_of(s, pid) == "Specifying --as-pid-1 and --lock-file is not permitted");
    // The PID namespace rule comes first, as in bwrap.
    CHECK(message_of(s, none) == "Specifying --as-pid-1 requires --unshare-pid");
  }
  SUBCASE("--userns-block-fd needs a user namespace and --info-fd") {
    Spec s = runnable();
    s.userns_block_fd = rf::spec::Fd{5};
    CHECK(message_of(s, none) == "--userns-block-fd requires --unshare-user");
    CHECK(message_of(s, user) == "--userns-block-fd requires --info-fd");
    s.info_fd = rf::spec::Fd{6};
    CHECK(message_of(s, none) == "--userns-block-fd requires --unshare-user");
    CHECK(message_of(s, user).empty());
  }
  SUBCASE("--disable-userns needs a user namespace and no --userns-block-fd") {
    Spec s = runnable();
    s.disable_userns = true;
    // Without a namespace of its own it would lower the host's max_user_namespaces.
    CHECK(message_of(s, none) == "--disable-userns requires --unshare-user");
    CHECK(message_of(s, user).empty());
    s.userns_block_fd = rf::spec::Fd{5};
    s.info_fd = rf::spec::Fd{6};
    CHECK(message_of(s, user) == "--disable-userns is not compatible with  --userns-block-fd");
    CHECK(message_of(s, none) == "--userns-block-fd requires --unshare-user");
  }
  SUBCASE("--assert-userns-disabled needs nothing") {
    Spec s = runnable();
    s.assert_userns_disabled = true;
    CHECK(message_of(s, none).empty());
  }
  SUBCASE("the lockdown rules come before every other rule, as in bwrap") {
    Spec s;  // no command either
    s.disable_userns = true;
    s.uid = 0;
    s.hostname = "h";
    s.as_pid_1 = true;
    CHECK(message_of(s, none) == "--disable-userns requires --unshare-user");
    s.disable_userns = false;
    CHECK(message_of(s, none) == "No command specified");
  }
  SUBCASE("the first failing rule is reported") {
    Spec s = runnable();
    s.uid = 0;
    s.hostname = "h";
    CHECK(message_of(s, none) == "Specifying --uid requires --unshare-user or --userns");
  }
}

TEST_CASE("ops in a tree the sandbox can write") {
  Namespaces none;
  auto with = [](FsOp op) {
    Spec s = runnable();
    s.fs_ops.push_back(std::move(op));
    return s;
  };
  FsOp bind;
  bind.kind = OpKind::RoBind;
  bind.source = bind.dest = "/p/.git/hooks";
  bind.source_beneath = bind.dest_beneath = "/p";
  CHECK(message_of(with(bind), none).empty());
  FsOp outside = bind;
  outside.source = "/etc/passwd";
  CHECK(message_of(with(outside), none) == "/p/.git/hooks: /etc/passwd is not below /p");
  FsOp dest_out = bind;
  dest_out.dest = "/q/x";
  CHECK(message_of(with(dest_out), none) == "/q/x: not below /p");
  FsOp tmpfs;
  tmpfs.kind = OpKind::Tmpfs;
  tmpfs.dest = "/p/secrets";
  tmpfs.dest_beneath = "/p";
  CHECK(message_of(with(tmpfs), none).empty());
  tmpfs.source_beneath = "/p";
  CHECK_FALSE(message_of(with(tmpfs), none).empty());
  FsOp symlink;
  symlink.kind = OpKind::Symlink;
  symlink.source = "x";
  symlink.dest = "/p/link";
  symlink.dest_beneath = "/p";
  CHECK_FALSE(message_of(with(symlink), none).empty());
  FsOp both = bind;
  both.source_in_sandbox = true;
  CHECK_FALSE(message_of(with(both), none).empty());
}
