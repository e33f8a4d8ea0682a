// SPDX-License-Identifier: LGPL-2.1-or-later
// bwrap grammar and each option's effect on the Spec. Error texts were checked against Debian's
// /usr/bin/bwrap 0.8.0 unless a comment says they come from the 0.11.1 contract.
#include <doctest/doctest.h>

#include <linux/capability.h>

#include "cli_test_util.hpp"

using namespace rf::test;
using rf::spec::EnvOp;
using rf::spec::OpKind;

TEST_CASE("no arguments, or options without a command, print the usage") {
  CHECK(parse({}).action == Action::Usage);
  CHECK(parse({"--unshare-pid"}).action == Action::Usage);
  CHECK(parse({"--bind", "/a", "/b"}).action == Action::Usage);
  CHECK(parse({"--"}).action == Action::Usage);
  CHECK(error_of(parse({"--unshare-pid"})).empty());
}

TEST_CASE("the first non-option word is the command; nothing after it is parsed") {
  auto p = parse({"--unshare-pid", "ls", "-l", "--bogus", "--"});
  CHECK(error_of(p).empty());
  CHECK(p.action == Action::Run);
  CHECK(p.spec.argv == Words{"ls", "-l", "--bogus", "--"});
  CHECK(p.spec.ns.pid);
}

TEST_CASE("-- ends the options, so the command may start with a dash") {
  auto p = parse({"--unshare-ipc", "--", "--weird", "x"});
  CHECK(p.action == Action::Run);
  CHECK(p.spec.argv == Words{"--weird", "x"});
  CHECK(parse({"--", "--"}).spec.argv == Words{"--"});
}

TEST_CASE("an empty word is a command (bwrap then fails in execvp)") {
  auto p = parse({""});
  CHECK(p.action == Action::Run);
  CHECK(p.spec.argv == Words{""});
}

TEST_CASE("unknown options") {
  CHECK(error_of(parse({"--bogus", "true"})) == "Unknown option --bogus");
  CHECK(error_of(parse({"-x"})) == "Unknown option -x");
  CHECK(error_of(parse({"-"})) == "Unknown option -");
  // No --opt=value form and no abbreviations.
  CHECK(error_of(parse({"--chdir=/tmp", "true"})) == "Unknown option --chdir=/tmp");
  CHECK(error_of(parse({"--unshare", "true"})) == "Unknown option --unshare");
  CHECK(error_of(parse({"--BIND", "a", "b", "true"})) == "Unknown option --BIND");
}

TEST_CASE("--help and --version act where they appear") {
  CHECK(parse({"--help"}).action == Action::Help);
  CHECK(parse({"--version"}).action == Action::Version);
  CHECK(parse({"--help", "--bogus"}).action == Action::Help);
  CHECK(error_of(parse({"--help", "--bogus"})).empty());
  CHECK(parse({"--unshare-pid", "--version", "--bogus"}).action == Action::Version);
  CHECK(error_of(parse({"--bogus", "--help"})) == "Unknown option --bogus");
  CHECK(error_of(parse({"--uid", "x", "--version"})) == "Invalid uid: x");
  // After the command they are arguments of the command.
  auto p = parse({"true", "--help"});
  CHECK(p.action == Action::Run);
  CHECK(p.spec.argv == Words{"true", "--help"});
}

TEST_CASE("bwrap mode defaults") {
  auto p = parse({"true"});
  CHECK(p.spec.bwrap_messages);
  CHECK_FALSE(p.spec.hide_launcher_argv);
  CHECK(p.spec.inherit_fds);
  CHECK_FALSE(p.level_prefix);
  CHECK(p.warnings.empty());
  CHECK(p.spec.fs_ops.empty());
}

TEST_CASE("missing values use bwrap's wording per option") {
  // From bwrap 0.8.0, except --argv0 and the overlay family (0.11.1 source texts).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--args", "--args takes an argument"},
      {"--argv0", "--argv0 takes one argument"},
      {"--chdir", "--chdir takes one argument"},
      {"--remount-ro", "--remount-ro takes one argument"},
      {"--setenv", "--setenv takes two arguments"},
      {"--unsetenv", "--unsetenv takes an argument"},
      {"--lock-file", "--lock-file takes an argument"},
      {"--sync-fd", "--sync-fd takes an argument"},
      {"--block-fd", "--block-fd takes an argument"},
      {"--userns-block-fd", "--userns-block-fd takes an argument"},
      {"--info-fd", "--info-fd takes an argument"},
      {"--json-status-fd", "--json-status-fd takes an argument"},
      {"--seccomp", "--seccomp takes an argument"},
      {"--add-seccomp-fd", "--add-seccomp-fd takes an argument"},
      {"--userns", "--userns takes an argument"},
      {"--userns2", "--userns2 takes an argument"},
      {"--pidns", "--pidns takes an argument"},
      {"--uid", "--uid takes an argument"},
      {"--gid", "--gid takes an argument"},
      {"--hostname", "--hostname takes an argument"},
      {"--cap-add", "--cap-add takes an argument"},
      {"--cap-drop", "--cap-drop takes an argument"},
      {"--perms", "--perms takes an argument"},
      {"--size", "--size takes an argument"},
      {"--chmod", "--chmod takes two arguments"},
      {"--file", "--file takes two arguments"},
      {"--bind-data", "--bind-data takes two arguments"},
      {"--ro-bind-data", "--ro-bind-data takes two arguments"},
      {"--symlink", "--symlink takes two arguments"},
      {"--bind-fd", "--bind-fd takes two arguments"},
      {"--ro-bind-fd", "--bind-fd takes two arguments"},
      {"--exec-label", "--exec-label takes an argument"},
      {"--file-label", "--file-label takes an argument"},
      {"--proc", "--proc takes an argument"},
      {"--dev", "--dev takes an argument"},
      {"--tmpfs", "--tmpfs takes an argument"},
      {"--mqueue", "--mqueue takes an argument"},
      {"--dir", "--dir takes an argument"},
      {"--bind", "--bind takes two arguments"},
      {"--bind-try", "--bind-try takes two arguments"},
      {"--dev-bind", "--dev-bind takes two arguments"},
      {"--dev-bind-try", "--dev-bind-try takes two arguments"},
      {"--ro-bind", "--ro-bind takes two arguments"},
      {"--ro-bind-try", "--ro-bind-try takes two arguments"},
      {"--overlay", "--overlay takes three arguments"},
      {"--tmp-overlay", "--tmp-overlay takes an argument"},
      {"--ro-overlay", "--ro-overlay takes an argument"},
      {"--overlay-src",
       "--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or "
       "--ro-overlay"},
  };
  for (const auto& c : cases) {
    const std::string& opt = c.first;  // not a structured binding: clang 14 cannot capture those
    CAPTURE(opt);
    CHECK(error_of(parse({opt})) == c.second);
  }
  // One value short of two or three.
  CHECK(error_of(parse({"--bind", "/a"})) == "--bind takes two arguments");
  CHECK(error_of(parse({"--overlay", "a", "b"})) == "--overlay takes three arguments");
  CHECK(error_of(parse({"--setenv", "A"})) == "--setenv takes two arguments");
}

TEST_CASE("values may look like options: they are taken as values") {
  auto p = parse({"--chdir", "--bogus", "--hostname", "--", "true"});
  CHECK(error_of(p).empty());
  CHECK(p.spec.chdir == "--bogus");
  CHECK(p.spec.hostname == "--");
  CHECK(p.spec.argv == Words{"true"});
}

TEST_CASE("namespace flags") {
  struct Case {
    const char* opt;
    bool rf::spec::Namespaces::*field;
  };
  const Case cases[] = {
      {"--unshare-user", &rf::spec::Namespaces::user},
      {"--unshare-user-try", &rf::spec::Namespaces::user_try},
      {"--unshare-ipc", &rf::spec::Namespaces::ipc},
      {"--unshare-pid", &rf::spec::Namespaces::pid},
      {"--unshare-net", &rf::spec::Namespaces::net},
      {"--unshare-uts", &rf::spec::Namespaces::uts},
      {"--unshare-cgroup", &rf::spec::Namespaces::cgroup},
      {"--unshare-cgroup-try", &rf::spec::Namespaces::cgroup_try},
  };
  for (const auto& c : cases) {
    CAPTURE(c.opt);
    auto p = parse({c.opt, "true"});
    REQUIRE(error_of(p).empty());
    CHECK(p.spec.ns.*c.field);
    int set = 0;
    for (const auto& other : cases) set += (p.spec.ns.*other.field) ? 1 : 0;
    CHECK(set == 1);
  }
}

TEST_CASE("--unshare-all sets the try variants of user and cgroup") {
  auto ns = parse({"--unshare-all", "true"}).spec.ns;
  CHECK(ns.user_try);
  CHECK(ns.ipc);
  CHECK(ns.pid);
  CHECK(ns.net);
  CHECK(ns.uts);
  CHECK(ns.cgroup_try);
  CHECK_FALSE(ns.user);
  CHECK_FALSE(ns.cgroup);
}

TEST_CASE("--share-net only undoes what came before it") {
  CHECK_FALSE(parse({"--unshare-all", "--share-net", "true"}).spec.ns.net);
  CHECK(parse({"--share-net", "--unshare-all", "true"}).spec.ns.net);
  CHECK_FALSE(parse({"--unshare-net", "--share-net", "true"}).spec.ns.net);
  CHECK(parse({"--share-net", "--unshare-net", "true"}).spec.ns.net);
  // It leaves the other namespaces alone.
  auto ns = parse({"--unshare-all", "--share-net", "true"}).spec.ns;
  CHECK(ns.pid);
  CHECK(ns.user_try);
}

TEST_CASE("--uid and --gid") {
  auto p = parse({"--uid", "0", "--gid", "4242", "true"});
  REQUIRE(error_of(p).empty());
  CHECK(p.spec.uid == 0u);
  CHECK(p.spec.gid == 4242u);
  CHECK(parse({"--uid", "2147483647", "true"}).spec.uid == 2147483647u);
  // bwrap uses strtol: leading blanks and '+' pass.
  CHECK(parse({"--uid", " 5", "true"}).spec.uid == 5u);
  CHECK(parse({"--gid", "+7", "true"}).spec.gid == 7u);
  for (const char* bad : {"abc", "-1", "12x", "", "0x10", "4294967295", "2147483648", "1 "}) {
    CAPTURE(bad);
    CHECK(error_of(parse({"--uid", bad, "true"})) == std::string("Invalid uid: ") + bad);
    CHECK(error_of(parse({"--gid", bad, "true"})) == std::string("Invalid gid: ") + bad);
  }
}

TEST_CASE("repeated single-value options: last wins, with bwrap's warning") {
  auto p = parse({"--chdir", "/a", "--chdir", "/b", "--hostname", "h1", "--hostname", "h2", "--uid", "1",
                  "--uid", "2", "--gid", "3", "--gid", "4", "true"});
  REQUIRE(error_of(p).empty());
  CHECK(p.spec.chdir == "/b");
  CHECK(p.spec.hostname == "h2");
  CHECK(p.spec.uid == 2u);
  CHECK(p.spec.gid == 4u);
  CHECK(p.warnings == Words{"Only the last --chdir option will take effect",
                            "Only the last --hostname option will take effect",
                            "Only the last --uid option will take effect",
                            "Only the last --gid option will take effect"});
  // Three times warns twice; a single use does not warn.
  CHECK(parse({"--chdir", "a", "--chdir", "b", "--chdir", "c", "true"}).warnings.size() == 2);
  CHECK(parse({"--chdir", "a", "true"}).warnings.empty());
}

TEST_CASE("the warning comes before the value is checked, and survives the error") {
  auto p = parse({"--uid", "1", "--uid", "x"});
  CHECK(p.warnings == Words{"Only the last --uid option will take effect"});
  CHECK(error_of(p) == "Invalid uid: x");
}

TEST_CASE("environment operations keep their order") {
  auto p = parse({"--setenv", "A", "1", "--clearenv", "--unsetenv", "B", "--setenv", "C", "", "true"});
  REQUIRE(error_of(p).empty());
  const auto& e = p.spec.env_ops;
  REQUIRE(e.size() == 4);
  CHECK(e[0].kind == EnvOp::Kind::Set);
  CHECK(e[0].name == "A");
  CHECK(e[0].value == "1");
  CHECK(e[1].kind == EnvOp::Kind::Clear);
  CHECK(e[2].kind == EnvOp::Kind::Unset);
  CHECK(e[2].name == "B");
  CHECK(e[3].name == "C");
  CHECK(e[3].value.empty());
}

TEST_CASE("names setenv(3) refuses fail at parse time, as in bwrap") {
  CHECK(error_of(parse({"--setenv", "A=B", "c", "true"})) == "setenv failed");
  CHECK(error_of(parse({"--setenv", "", "c", "true"})) == "setenv failed");
  CHECK(error_of(parse({"--unsetenv", "A=B", "true"})) == "unsetenv failed");
  CHECK(error_of(parse({"--unsetenv", "", "true"})) == "unsetenv failed");
  CHECK(error_of(parse({"--setenv", "A", "x=y", "true"})).empty());
}

TEST_CASE("bind family: kind, try flag, paths kept as given") {
  struct Case {
    const char* opt;
    OpKind kind;
    bool try_;
  };
  const Case cases[] = {{"--bind", OpKind::Bind, false},        {"--bind-try", OpKind::Bind, true},
                        {"--dev-bind", OpKind::DevBind, false}, {"--dev-bind-try", OpKind::DevBind, true},
                        {"--ro-bind", OpKind::RoBind, false},   {"--ro-bind-try", OpKind::RoBind, true}};
  for (const auto& c : cases) {
    CAPTURE(c.opt);
    auto p = parse({c.opt, "rel/src/", "//dst/./x", "true"});
    REQUIRE(error_of(p).empty());
    REQUIRE(p.spec.fs_ops.size() == 1);
    const auto& op = p.spec.fs_ops[0];
    CHECK(op.kind == c.kind);
    CHECK(op.allow_missing == c.try_);
    CHECK(op.source == "rel/src/");
    CHECK(op.dest == "//dst/./x");
    CHECK_FALSE(op.perms);
    CHECK_FALSE(op.size);
  }
}

TEST_CASE("file-system operations keep command-line order") {
  auto p =
      parse({"--ro-bind",    "/usr",     "/usr",        "--proc", "/proc",  "--dev",     "/dev",    "--tmpfs",
             "/tmp",         "--mqueue", "/dev/mqueue", "--dir",  "/run/x", "--symlink", "usr/lib", "/lib",
             "--remount-ro", "/usr",     "--chmod",     "0700",   "/run/x", "true"});
  REQUIRE(error_of(p).empty());
  const auto& ops = p.spec.fs_ops;
  REQUIRE(ops.size() == 9);
  const OpKind kinds[] = {OpKind::RoBind, OpKind::Proc,    OpKind::Dev,       OpKind::Tmpfs, OpKind::Mqueue,
                          OpKind::Dir,    OpKind::Symlink, OpKind::RemountRo, OpKind::Chmod};
  const char* dests[] = {"/usr", "/proc", "/dev", "/tmp", "/dev/mqueue", "/run/x", "/lib", "/usr", "/run/x"};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    CAPTURE(i);
    CHECK(ops[i].kind == kinds[i]);
    CHECK(ops[i].dest == dests[i]);
  }
  CHECK(ops[6].source == "usr/lib");  // the link target, literal
  CHECK(ops[8].perms == 0700u);
  CHECK_FALSE(ops[3].perms);  // --tmpfs without --perms: the engine's default (0755)
  CHECK_FALSE(ops[5].perms);
}

TEST_CASE("--chmod parses its mode like bwrap (strtoul base 8, <= 07777)") {
  CHECK(parse({"--chmod", "07777", "/x", "true"}).spec.fs_ops.at(0).perms == 07777u);
  CHECK(parse({"--chmod", "0", "/x", "true"}).spec.fs_ops.at(0).perms == 0u);
  CHECK(parse({"--chmod", "755", "/x", "true"}).spec.fs_ops.at(0).perms == 0755u);
  CHECK(parse({"--chmod", " 7", "/x", "true"}).spec.fs_ops.at(0).perms == 7u);
  CHECK(parse({"--chmod", "+7", "/x", "true"}).spec.fs_ops.at(0).perms == 7u);
  for (const char* bad : {"999", "010000", "abc", "", "7z", "-7", "0x7", "8"}) {
    CAPTURE(bad);
    CHECK(error_of(parse({"--chmod", bad, "/x", "true"})) == "--chmod takes an octal argument <= 07777");
  }
}

TEST_CASE("--cap-add and --cap-drop go through libcap's names") {
  auto p = parse({"--cap-add", "CAP_NET_ADMIN", "--cap-drop", "cap_kill", "--cap-add", "Cap_Chown",
                  "--cap-add", "all", "--cap-drop", "aLL", "--cap-add", "5", "true"});
  REQUIRE(error_of(p).empty());
  const auto& c = p.spec.cap_ops;
  REQUIRE(c.size() == 6);
  CHECK((c[0].add && c[0].cap == CAP_NET_ADMIN));
  CHECK((!c[1].add && c[1].cap == CAP_KILL));
  CHECK((c[2].add && c[2].cap == CAP_CHOWN));
  CHECK((c[3].add && c[3].cap == -1));
  CHECK((!c[4].add && c[4].cap == -1));
  CHECK((c[5].add && c[5].cap == 5));  // libcap also takes numbers
  for (const char* bad : {"kill", "CAP_BOGUS", "", "64", "-1", " 5", "cap_last_cap"}) {
    CAPTURE(bad);
    CHECK(error_of(parse({"--cap-add", bad, "true"})) == std::string("unknown cap: ") + bad);
    CHECK(error_of(parse({"--cap-drop", bad, "true"})) == std::string("unknown cap: ") + bad);
  }
}

TEST_CASE("process flags") {
  auto p = parse({"--new-session", "--die-with-parent", "--as-pid-1", "true"});
  CHECK(p.spec.new_session);
  CHECK(p.spec.die_with_parent);
  CHECK(p.spec.as_pid_1);
  auto q = parse({"true"});
  CHECK_FALSE(q.spec.new_session);
  CHECK_FALSE(q.spec.die_with_parent);
  CHECK_FALSE(q.spec.as_pid_1);
}

TEST_CASE("--level-prefix (0.11.0) is reported to the caller") {
  auto p = parse({"--level-prefix", "true"});
  CHECK(error_of(p).empty());
  CHECK(p.level_prefix);
  // It is kept even when a later option fails, so that error gets the prefix too.
  auto q = parse({"--level-prefix", "--bogus"});
  CHECK(q.level_prefix);
  CHECK(error_of(q) == "Unknown option --bogus");
}

TEST_CASE("--userns2 and --pidns: fds, last one wins with bwrap's warning") {
  auto p = parse({"--userns2", "3", "--pidns", "0", "true"});
  CHECK(error_of(p).empty());
  CHECK(p.spec.userns2_fd == rf::spec::Fd{3});
  CHECK(p.spec.pidns_fd == rf::spec::Fd{0});  // fd 0 is a valid fd (bwrap 0.11.1 stopped ignoring it)
  auto q = parse({"--pidns", "3", "--pidns", "4", "--userns2", "5", "--userns2", "6", "true"});
  CHECK(q.spec.pidns_fd == rf::spec::Fd{4});
  CHECK(q.spec.userns2_fd == rf::spec::Fd{6});
  CHECK(q.warnings == Words{"Only the last --pidns option will take effect",
                            "Only the last --userns2 option will take effect"});
  CHECK(error_of(parse({"--pidns", "x3", "true"})) == "Invalid fd: x3");
  CHECK(error_of(parse({"--userns2", "-1", "true"})) == "Invalid fd: -1");
}

TEST_CASE("SELinux labels: refused as by a bwrap built without SELinux") {
  // Debian's bwrap 0.8.0 prints exactly this, at parse time, whatever follows.
  CHECK(error_of(parse({"--exec-label", "system_u:object_r:x_t:s0", "true"})) ==
        "labeling not supported on this system");
  CHECK(error_of(parse({"--file-label", "l", "--bogus"})) == "labeling not supported on this system");
}
