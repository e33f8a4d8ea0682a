// SPDX-License-Identifier: LGPL-2.1-or-later
// Loading profiles: includes, duplicates, cycles, @default, the always.policy refinement and
// show(), all from an in-memory catalog.
#include <doctest/doctest.h>

#include <cerrno>
#include <string>

#include "policy_test_util.hpp"

using namespace rf::policy;
using rf::test::error_of;
using rf::test::MemPolicies;

TEST_CASE("includes resolve in the catalog, with or without .policy") {
  MemPolicies m;
  m.catalog["groups/io.policy"] = "read\nwrite\n";
  m.catalog["groups/proc.policy"] = "@include groups/more.policy\ngetpid\n";
  m.catalog["groups/more.policy"] = "getppid: errno EPERM\n";
  m.catalog["profiles/p.policy"] = "@include groups/io\n@include groups/proc\n@default errno ENOSYS\n";
  auto p = m.load("p");
  REQUIRE_MESSAGE(p.has_value(), error_of(p));
  CHECK(p->name == "p");
  CHECK(p->origin == "seccomp/profiles/p.policy");
  CHECK(p->default_action == Action{ActionKind::Errno, ENOSYS});
  CHECK(p->default_loc.str() == "seccomp/profiles/p.policy:3");
  REQUIRE(p->rules.size() == 4);
  CHECK(p->rules[0].syscall == "getpid");  // sorted by name
  CHECK(p->rules[1].syscall == "getppid");
  CHECK(p->rules[1].loc.str() == "seccomp/groups/more.policy:1");
  CHECK(p->rules[3].syscall == "write");
  CHECK(p->rules[3].loc.str() == "seccomp/groups/io.policy:2");
  REQUIRE(find_rule(*p, "read") != nullptr);
  CHECK(find_rule(*p, "read")->action == Action{});
  CHECK(find_rule(*p, "mount") == nullptr);
}

TEST_CASE("a file included twice is read once") {
  MemPolicies m;
  m.catalog["groups/common.policy"] = "read\n";
  m.catalog["groups/a.policy"] = "@include groups/common\nwrite\n";
  m.catalog["groups/b.policy"] = "@include groups/common\nclose\n";
  auto p = m.load_text("@include groups/a\n@include groups/b\n@default kill\n");
  REQUIRE_MESSAGE(p.has_value(), error_of(p));
  CHECK(p->rules.size() == 3);
}

TEST_CASE("duplicate rules are errors, across files too") {
  MemPolicies m;
  m.catalog["groups/y.policy"] = "# y\nclose\n\n\n\n\nread\n";
  m.catalog["groups/x.policy"] = "write\n@include groups/y\n";
  CHECK(error_of(m.load_text("@default kill\n@include groups/x\nread: errno EPERM\n")) ==
        "test.policy:3: duplicate rule for read (first at seccomp/groups/y.policy:7)");
  CHECK(error_of(m.load_text("@default kill\nread\nread\n")) ==
        "test.policy:3: duplicate rule for read (first at test.policy:2)");
}

TEST_CASE("@default: exactly one, in the profile itself") {
  MemPolicies m;
  m.catalog["groups/g.policy"] = "read\n@default allow\n";
  CHECK(error_of(m.load_text("read\n")) == "test.policy: profile has no @default");
  CHECK(error_of(m.load_text("@default kill\n@default allow\n")) ==
        "test.policy:2: duplicate @default (first at test.policy:1)");
  CHECK(error_of(m.load_text("@default kill\n@include groups/g\n")) ==
        "seccomp/groups/g.policy:2: @default in an included file (only the profile sets it)");
}

TEST_CASE("include errors: cycles, missing files, depth") {
  MemPolicies m;
  m.catalog["groups/a.policy"] = "read\n@include groups/b\n";
  m.catalog["groups/b.policy"] = "write\n\n@include groups/a\n";
  CHECK(error_of(m.load_text("@default kill\n@include groups/a\n")) ==
        "seccomp/groups/b.policy:3: @include cycle: seccomp/groups/a.policy -> seccomp/groups/b.policy -> "
        "seccomp/groups/a.policy");
  m.catalog["profiles/self.policy"] = "@default kill\n@include profiles/self\n";
  CHECK(error_of(m.load("self")) ==
        "seccomp/profiles/self.policy:2: @include cycle: seccomp/profiles/self.policy -> "
        "seccomp/profiles/self.policy");
  m.catalog["deny/always.policy"] = "mount: errno EPERM # no\n";
  CHECK(error_of(m.load_text("@default kill\n@include deny/always\n")) ==
        "test.policy:2: seccomp/deny/always.policy applies to every profile by itself; do not @include it");
  CHECK(error_of(m.load_text("@default kill\n\n@include groups/nope\n")) ==
        "test.policy:3: @include \"groups/nope\": not found in the catalog");
  CHECK(error_of(m.load_text("@default kill\n@include ../seccomp/groups/a\n")) ==
        "test.policy:2: @include \"../seccomp/groups/a\": not found in the catalog");
  for (int i = 0; i < 20; ++i)
    m.catalog["deep/" + std::to_string(i) + ".policy"] = "@include deep/" + std::to_string(i + 1) + "\n";
  CHECK(error_of(m.load_text("@default kill\n@include deep/0\n")) ==
        "seccomp/deep/15.policy:1: @include nested too deeply (limit 16)");
}

TEST_CASE("too many files") {
  MemPolicies m;
  std::string top = "@default kill\n";
  for (int i = 0; i < 300; ++i) {
    m.catalog["many/" + std::to_string(i) + ".policy"] = "# empty\n";
    top += "@include many/" + std::to_string(i) + "\n";
  }
  CHECK(error_of(m.load_text(top)) == "seccomp/many/255.policy: too many policy files (limit 256)");
  MemPolicies big;
  for (const char* g : {"a", "b", "c", "d", "e"})
    big.catalog[std::string("groups/") + g + ".policy"] = std::string(1000000, '\n');
  CHECK(error_of(big.load_text("@default kill\n@include groups/a\n@include groups/b\n@include groups/c\n"
                               "@include groups/d\n@include groups/e\n")) ==
        "seccomp/groups/e.policy: policy files too large in total (limit 4194304 bytes)");
}

TEST_CASE("a conditional rule without an action falls back to @default") {
  MemPolicies m;
  m.catalog["groups/g.policy"] = "write: arg0 == 1\n";
  auto p = m.load_text("@include groups/g\n@default errno EACCES\n");
  REQUIRE_MESSAGE(p.has_value(), error_of(p));
  CHECK(p->rules[0].action == Action{ActionKind::Errno, EACCES});
  CHECK(p->rules[0].expr_text == "arg0 == 1");
}

TEST_CASE("profiles by name, and by path with includes next to the file first") {
  MemPolicies m;
  m.catalog["profiles/a.policy"] = "@default kill\n";
  m.catalog["profiles/b.policy"] = "@default kill\n";
  m.catalog["groups/io.policy"] = "read\n";
  m.catalog["groups/net.policy"] = "socket\n";
  m.files["/etc/rf/my.policy"] = "@include groups/io\n@include groups/net\n@default kill\n";
  m.files["/etc/rf/groups/io.policy"] = "write\n";  // shadows the catalog's groups/io
  CHECK(error_of(m.load("nope")) == "unknown profile \"nope\" (profiles: a, b)");
  CHECK(error_of(MemPolicies{}.load("nope")) == "unknown profile \"nope\" (the catalog has no profiles)");
  auto p = m.load("/etc/rf/my.policy");
  REQUIRE_MESSAGE(p.has_value(), error_of(p));
  CHECK(p->name == "my");
  CHECK(p->origin == "/etc/rf/my.policy");
  REQUIRE(p->rules.size() == 2);
  CHECK(p->rules[0].syscall == "socket");
  CHECK(p->rules[0].loc.str() == "seccomp/groups/net.policy:1");
  CHECK(p->rules[1].syscall == "write");
  CHECK(p->rules[1].loc.str() == "/etc/rf/groups/io.policy:1");
  CHECK(error_of(m.load("/etc/rf/missing.policy")) == "open /etc/rf/missing.policy");
  m.files["/etc/rf/bad.policy"] = "@default kill\n@include nothere\n";
  CHECK(error_of(m.load("/etc/rf/bad.policy")) ==
        "/etc/rf/bad.policy:2: @include \"nothere\": not found next to the file or in the catalog");
}

namespace {

MemPolicies with_always(const std::string& always) {
  MemPolicies m;
  m.catalog["deny/always.policy"] = always;
  return m;
}

const char* const kAlways =
    "# header comment\n"
    "mount: errno EPERM   # changes the mount tree\n"
    "ioctl: arg1 != TIOCSTI; errno EPERM   # no terminal injection\n"
    "personality: arg0 == 0 || arg0 == 0xffffffff   # queries and PER_LINUX only\n";

}  // namespace

TEST_CASE("always.policy: every rule needs a reason, and it may only narrow") {
  CHECK(error_of(with_always("mount: errno EPERM # ok\n\nbpf: errno EPERM\n").load_text("@default kill\n")) ==
        "seccomp/deny/always.policy:3: missing reason comment for bpf (end the line with # and why)");
  CHECK(error_of(with_always("bpf: errno EPERM #\n").load_text("@default kill\n")) ==
        "seccomp/deny/always.policy:1: missing reason comment for bpf (end the line with # and why)");
  CHECK(error_of(with_always("read # why\n").load_text("@default kill\n")) ==
        "seccomp/deny/always.policy:1: always.policy may only deny or condition read, not allow it");
  CHECK(error_of(with_always("@include groups/x\n").load_text("@default kill\n")) ==
        "seccomp/deny/always.policy:1: @include is not allowed in always.policy");
  CHECK(error_of(with_always("@default kill\n").load_text("@default kill\n")) ==
        "seccomp/deny/always.policy:1: @default is not allowed in always.policy");
  CHECK(error_of(with_always("bpf: kill # a\nbpf: kill # b\n").load_text("@default kill\n")) ==
        "seccomp/deny/always.policy:2: duplicate rule for bpf (first at seccomp/deny/always.policy:1)");
}

TEST_CASE("always.policy refines a profile") {
  MemPolicies m = with_always(kAlways);
  m.catalog["groups/g.policy"] = "read\nioctl\n";
  auto p = m.load_text("@include groups/g\n@default errno ENOSYS\npersonality: log\n");
  REQUIRE_MESSAGE(p.has_value(), error_of(p));
  // mount: added (unconditional); ioctl: the always condition replaces the plain allow;
  // personality: replaces the log (an allow that logs), else-action from @default.
  const Rule* mount = find_rule(*p, "mount");
  REQUIRE(mount != nullptr);
  CHECK(mount->from_always);
  CHECK(mount->reason == "changes the mount tree");
  CHECK(mount->action == Action{ActionKind::Errno, EPERM});
  const Rule* ioctl = find_rule(*p, "ioctl");
  REQUIRE(ioctl != nullptr);
  CHECK(ioctl->from_always);
  CHECK(ioctl->expr_text == "arg1 != TIOCSTI");
  CHECK(ioctl->loc.str() == "seccomp/deny/always.policy:3");
  CHECK(ioctl->refines.str() == "seccomp/groups/g.policy:2");
  const Rule* pers = find_rule(*p, "personality");
  REQUIRE(pers != nullptr);
  CHECK(pers->action == Action{ActionKind::Errno, ENOSYS});
  CHECK(pers->refines.str() == "test.policy:3");
  CHECK(!find_rule(*p, "read")->from_always);
}

TEST_CASE("always.policy conflicts name both places and the reason") {
  MemPolicies m = with_always(kAlways);
  m.catalog["groups/g.policy"] = "read\n\nmount\n";
  CHECK(
      error_of(m.load_text("@default kill\n@include groups/g\n")) ==
      "seccomp/groups/g.policy:3: mount is denied by seccomp/deny/always.policy:2 (changes the mount tree); "
      "remove this rule");
  CHECK(error_of(m.load_text("@default kill\nmount: errno EPERM\n")) ==
        "test.policy:2: mount is denied by seccomp/deny/always.policy:2 (changes the mount tree); remove "
        "this rule");
  CHECK(error_of(with_always("uname: log # audit it\n").load_text("@default kill\nuname\n")) ==
        "test.policy:2: uname is always logged by seccomp/deny/always.policy:1 (audit it); remove this rule");
  CHECK(error_of(m.load_text("@default kill\nioctl: arg1 != 5; errno EPERM\n")) ==
        "test.policy:2: ioctl already has a condition in seccomp/deny/always.policy:3 (no terminal "
        "injection); a "
        "profile cannot add its own");
}

TEST_CASE("always.policy never widens what a profile or its default denies") {
  MemPolicies m = with_always(kAlways);
  // ioctl denied by the profile: stays denied, the always condition does not allow it back.
  auto p = m.load_text("@default errno ENOSYS\nioctl: errno EACCES\n");
  REQUIRE_MESSAGE(p.has_value(), error_of(p));
  CHECK(find_rule(*p, "ioctl")->action == Action{ActionKind::Errno, EACCES});
  CHECK(!find_rule(*p, "ioctl")->from_always);
  // ioctl unnamed and the default denies: no rule, the default applies.
  p = m.load_text("@default errno ENOSYS\n");
  REQUIRE(p.has_value());
  CHECK(find_rule(*p, "ioctl") == nullptr);
  CHECK(find_rule(*p, "mount") != nullptr);
  // The default allows: the always condition applies to the unnamed ioctl.
  p = m.load_text("@default allow\n");
  REQUIRE(p.has_value());
  REQUIRE(find_rule(*p, "ioctl") != nullptr);
  CHECK(find_rule(*p, "ioctl")->from_always);
  CHECK(find_rule(*p, "personality")->action == Action{});  // its else-action is the default
}

TEST_CASE("show() lists the default and one line per syscall") {
  MemPolicies m = with_always(kAlways);
  m.catalog["groups/g.policy"] = "read\nioctl\nwrite: arg0 == 1 || arg0 == 2\n";
  auto p = m.load_text("@include groups/g\n@default errno ENOSYS\nclone: arg0 & 0x10000000 == 0; errno 1\n",
                       "p.policy");
  REQUIRE_MESSAGE(p.has_value(), error_of(p));
  CHECK(show(*p) ==
        "# policy p (p.policy)\n"
        "@default errno ENOSYS  # p.policy:2\n"
        "clone: arg0 & 0x10000000 == 0; errno EPERM  # p.policy:3\n"
        "ioctl: arg1 != TIOCSTI; errno EPERM  # seccomp/deny/always.policy:3 (replaces "
        "seccomp/groups/g.policy:2): "
        "no terminal injection\n"
        "mount: errno EPERM  # seccomp/deny/always.policy:2: changes the mount tree\n"
        "read: allow  # seccomp/groups/g.policy:1\n"
        "write: arg0 == 1 || arg0 == 2; errno ENOSYS  # seccomp/groups/g.policy:3\n");
}

TEST_CASE("show() output is itself a flat policy with the same decisions") {
  MemPolicies m;
  m.catalog["groups/g.policy"] =
      "read\nwrite: arg0 == 1 || arg0 == 2 && arg1 & 3\nmount: errno 4000\nptrace: kill\n";
  auto p = m.load_text("@include groups/g\n@default log\n");
  REQUIRE(p.has_value());
  auto again = m.load_text(show(*p));
  REQUIRE_MESSAGE(again.has_value(), error_of(again));
  REQUIRE(again->rules.size() == p->rules.size());
  for (std::size_t i = 0; i < p->rules.size(); ++i) {
    CHECK(again->rules[i].syscall == p->rules[i].syscall);
    CHECK(again->rules[i].expr_text == p->rules[i].expr_text);
    CHECK(again->rules[i].action == p->rules[i].action);
  }
  CHECK(to_string(Action{ActionKind::Errno, 4000}) == "errno 4000");
  CHECK(to_string(Action{ActionKind::Errno, EAGAIN}) == "errno EAGAIN");
  CHECK(to_string(Action{ActionKind::Errno, ENOTSUP}) == "errno EOPNOTSUPP");
}

TEST_CASE("an expression beyond the chain limit is too complex, at its line") {
  MemPolicies m;
  // With the else-action equal to the default, the allowed set itself is emitted: the
  // product of three 64-bit "not equal" sets.
  CHECK(error_of(m.load_text("@default errno EPERM\n\nread: arg0 != 1 && arg1 != 1 && arg2 != 1\n"))
            .rfind("test.policy:3: expression too complex for read (", 0) == 0);
  // The same with another else-action only needs the (small) complement.
  CHECK(error_of(m.load_text("@default errno EPERM\nread: arg0 != 1 && arg1 != 1 && arg2 != 1; kill\n"))
            .empty());
  // The complement of a disjunction of equalities on several arguments is such a product too.
  CHECK(error_of(m.load_text("@default kill\nread: arg0 == 1 || arg1 == 1 || arg2 == 1; errno 1\n"))
            .rfind("test.policy:2: expression too complex for read (", 0) == 0);
  CHECK(error_of(m.load_text("@default kill\nread: arg0 & 0xffff && arg1 & 0xffff && arg2 & 0xffff\n"))
            .rfind("test.policy:2: expression too complex for read (", 0) == 0);
}
