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

TEST_CASE("jail rules") {
  Namespaces none;
  auto jailed = [](Jail jail) {
    Spec s = runnable();
    s.jail = jail;
    return s;
  };
  SUBCASE("the landlock and soft jails run a plain Spec") {
    CHECK(validate_jail(jailed(Jail::Landlock)));
    CHECK(validate_jail(jailed(Jail::Soft)));
    CHECK(validate_jail(jailed(Jail::Kernel)));
  }
  SUBCASE("landlock rules only in the landlock jail") {
    for (Jail jail : {Jail::Kernel, Jail::Soft}) {
      Spec s = jailed(jail);
      s.landlock_rules.push_back({"/usr", Spec::FsRule::Read, true});
      CHECK(message_of(s, none) ==
            std::string("landlock rules (the first for /usr) need the landlock jail: the ") +
                (jail == Jail::Kernel ? "kernel" : "soft") + " jail applies no filesystem ruleset");
      CHECK(validate_jail(s).error().message() == message_of(s, none));
      s.jail = Jail::Landlock;
      CHECK(validate_jail(s));
    }
  }
  SUBCASE("an exec allowlist exactly with shell off, in every jail") {
    for (Jail jail : {Jail::Kernel, Jail::Landlock, Jail::Soft}) {
      Spec s = jailed(jail);
      s.restrict_exec = true;
      CHECK(validate_jail(s).error().message() ==
            "shell off (restrict_exec) with no file allowed: not even the command could run");
      s.exec_allow = {"/usr/bin/true"};
      CHECK(validate_jail(s));
      s.restrict_exec = false;
      CHECK(validate_jail(s).error().message() ==
            "an exec allowlist (the first: /usr/bin/true) without shell off (restrict_exec) would not be "
            "enforced");
    }
  }
  SUBCASE("the loader guard: kernel jail, shell off, headers binfmt_misc can match, a pid 1") {
    Spec s = jailed(Jail::Kernel);
    s.restrict_exec = true;
    s.exec_allow = {"/usr/bin/true"};
    s.refuse_exec_headers = {
        std::string("\x7f"
                    "ELF",
                    4)};
    CHECK(validate_jail(s));
    Namespaces userpid;
    userpid.user = userpid.pid = true;
    CHECK(validate(s, userpid, kUser, kGroup));
    CHECK(validate(s, none, kUser, kGroup).error().message() ==
          "the loader guard needs a user and a PID namespace with a pid 1 of ringfence's own");
    s.refuse_exec_headers.push_back(std::string(129, 'x'));
    CHECK(validate_jail(s).error().message() ==
          "a loader guard's header of 129 bytes: binfmt_misc matches 1 to 128");
    s.refuse_exec_headers.pop_back();
    s.jail = Jail::Landlock;
    CHECK(validate_jail(s).error().message() ==
          "the loader guard (refuse_exec_headers) needs the kernel jail and shell off");
  }
  SUBCASE("the landlock and soft jails refuse what only the kernel jail does") {
    struct Case {
      const char* what;
      void (*set)(Spec&);
      const char* message;  // after "the soft jail cannot take "
    };
    const Case cases[] = {
        {"a namespace", [](Spec& s) { s.ns.net = true; }, "namespaces: it runs the command in the host's"},
        {"a -try namespace", [](Spec& s) { s.ns.cgroup_try = true; },
         "namespaces: it runs the command in the host's"},
        {"an fs op",
         [](Spec& s) {
           FsOp op;
           op.kind = OpKind::Tmpfs;
           op.dest = "/tmp";
           s.fs_ops.push_back(op);
         },
         "filesystem operations (the first at /tmp): it has no mount namespace to apply them in"},
        {"a uid", [](Spec& s) { s.uid = 0; },
         "a uid, gid or hostname: they need a user or UTS namespace of the sandbox's own"},
        {"a hostname", [](Spec& s) { s.hostname = "h"; },
         "a uid, gid or hostname: they need a user or UTS namespace of the sandbox's own"},
        {"a capability op",
         [](Spec& s) {
           s.cap_ops.push_back({true, 12});
         },
         "capability operations: it drops every capability"},
        {"proc masks", [](Spec& s) { s.proc_masks = true; },
         "proc_masks or the bounds of the root tmpfs: it mounts no /proc and no root"},
        {"a root size", [](Spec& s) { s.root_size = 1 << 20; },
         "proc_masks or the bounds of the root tmpfs: it mounts no /proc and no root"},
        {"late masks", [](Spec& s) { s.supervision.late_masks.patterns = {".env"}; },
         "masks for names created later: it mounts nothing to cover them with"},
        {"a bwrap fd", [](Spec& s) { s.sync_fd = Fd{3}; },
         "bwrap's descriptors (--sync-fd, --file FD, ...): they are bwrap mode's"},
        {"a seccomp fd", [](Spec& s) { s.seccomp_fd = Fd{3}; },
         "bwrap's descriptors (--sync-fd, --file FD, ...): they are bwrap mode's"},
        {"a lock file", [](Spec& s) { s.lock_files = {"/x"}; },
         "--lock-file, --as-pid-1 or the user namespace lockdown: they are bwrap mode's"},
        {"the userns lockdown", [](Spec& s) { s.assert_userns_disabled = true; },
         "--lock-file, --as-pid-1 or the user namespace lockdown: they are bwrap mode's"},
    };
    for (const auto& c : cases) {
      CAPTURE(c.what);
      Spec soft = jailed(Jail::Soft);
      c.set(soft);
      CHECK(validate_jail(soft).error().message() == std::string("the soft jail cannot take ") + c.message);
      CHECK(validate_jail(soft).error().code() == 0);
      Spec landlock = jailed(Jail::Landlock);
      c.set(landlock);
      CHECK(validate_jail(landlock).error().message() ==
            std::string("the landlock jail cannot take ") + c.message);
      Spec kernel = jailed(Jail::Kernel);
      c.set(kernel);
      CHECK(validate_jail(kernel));
    }
  }
  SUBCASE("validate runs the jail rules first") {
    Spec s;  // no command, and a bwrap lockdown error
    s.disable_userns = true;
    s.jail = Jail::Soft;
    s.ns.pid = true;
    CHECK(message_of(s, none) == "the soft jail cannot take namespaces: it runs the command in the host's");
  }
}
