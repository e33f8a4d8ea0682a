// SPDX-License-Identifier: LGPL-2.1-or-later
// The policy line syntax: rules, actions, expressions, values, and every parse error with its
// file:line.
#include <doctest/doctest.h>
#include <sched.h>
#include <sys/ioctl.h>

#include <string>

#include "parser.hpp"
#include "policy_test_util.hpp"

using namespace rf::policy;
using rf::policy::detail::Line;
using rf::policy::detail::parse_policy;

namespace {

// The single line of a one-line text, or a failed test.
Line one(const std::string& text) {
  auto r = parse_policy(text, "t.policy");
  REQUIRE_MESSAGE(r.has_value(), rf::test::error_of(r));
  REQUIRE(r->size() == 1);
  return (*r)[0];
}

std::string err(const std::string& text) { return rf::test::error_of(parse_policy(text, "t.policy")); }

}  // namespace

TEST_CASE("bare names, actions and comments") {
  auto r = parse_policy(
      "# a comment\n\nread\n  write  # trailing\nmount: errno EPERM\nptrace: kill\n"
      "uname: log\nclose: allow\n",
      "t.policy");
  REQUIRE(r.has_value());
  REQUIRE(r->size() == 6);
  const auto& l = *r;
  CHECK(l[0].line == 3);
  CHECK(l[0].rule.syscall == "read");
  CHECK(l[0].rule.action == Action{ActionKind::Allow, 0});
  CHECK(l[1].rule.comment == "trailing");
  CHECK(l[2].rule.action == Action{ActionKind::Errno, EPERM});
  CHECK(l[3].rule.action == Action{ActionKind::Kill, 0});
  CHECK(l[4].rule.action == Action{ActionKind::Log, 0});
  CHECK(l[5].rule.action == Action{ActionKind::Allow, 0});
  for (const auto& x : l) CHECK(x.rule.expr.empty());
}

TEST_CASE("directives") {
  Line inc = one("@include groups/file_io   # why");
  CHECK(inc.kind == Line::Kind::Include);
  CHECK(inc.include == "groups/file_io");
  Line d = one("@default errno 38");
  CHECK(d.kind == Line::Kind::Default);
  CHECK(d.action == Action{ActionKind::Errno, 38});
  CHECK(one("@default kill").action == Action{ActionKind::Kill, 0});
}

TEST_CASE("a condition with and without an else-action") {
  Line l = one("ioctl: arg1 != TIOCSTI && arg1 != TIOCLINUX; errno EPERM");
  CHECK(l.rule.expr_text == "arg1 != TIOCSTI && arg1 != TIOCLINUX");
  CHECK(l.rule.action == Action{ActionKind::Errno, EPERM});
  REQUIRE(l.rule.expr.terms.size() == 1);
  REQUIRE(l.rule.expr.terms[0].size() == 2);
  CHECK(l.rule.expr.terms[0][0] == Atom{1, CmpOp::Ne, 0, TIOCSTI});
  CHECK(l.rule.expr.terms[0][1] == Atom{1, CmpOp::Ne, 0, TIOCLINUX});
  Line e = one("write:arg0==1||arg0==2");
  CHECK_FALSE(e.rule.action.has_value());
  CHECK(e.rule.expr_text == "arg0 == 1 || arg0 == 2");
}

TEST_CASE("&& binds tighter than ||") {
  Line l = one("read: arg0 == 1 || arg0 == 2 && arg1 == 3 || arg2 == 4");
  const auto& t = l.rule.expr.terms;
  REQUIRE(t.size() == 3);
  CHECK(t[0] == std::vector<Atom>{{0, CmpOp::Eq, 0, 1}});
  CHECK(t[1] == std::vector<Atom>{{0, CmpOp::Eq, 0, 2}, {1, CmpOp::Eq, 0, 3}});
  CHECK(t[2] == std::vector<Atom>{{2, CmpOp::Eq, 0, 4}});
}

TEST_CASE("masked compares and constants joined with |") {
  Line l = one("clone: arg0 & CLONE_NEWNS|CLONE_NEWUSER == 0; errno EPERM");
  CHECK(l.rule.expr_text == "arg0 & CLONE_NEWNS|CLONE_NEWUSER == 0");
  CHECK(l.rule.expr.terms[0][0] == Atom{0, CmpOp::MaskedEq, CLONE_NEWNS | CLONE_NEWUSER, 0});
  CHECK(one("clone: arg0 & CLONE_NEWUSER").rule.expr.terms[0][0] == Atom{0, CmpOp::AnyBit, CLONE_NEWUSER, 0});
  CHECK(one("mmap: arg2 & 7 != 4").rule.expr.terms[0][0] == Atom{2, CmpOp::MaskedNe, 7, 4});
  CHECK(one("mmap: arg2 in 3").rule.expr.terms[0][0] == Atom{2, CmpOp::In, 3, 0});
  CHECK(one("read: arg0 == 1 | 2 | 0x10").rule.expr.terms[0][0].value == 0x13);
}

TEST_CASE("numbers: decimal, hex, octal") {
  CHECK(one("read: arg0 == 10").rule.expr.terms[0][0].value == 10);
  CHECK(one("read: arg0 == 0x1F").rule.expr.terms[0][0].value == 31);
  CHECK(one("read: arg0 == 017").rule.expr.terms[0][0].value == 15);
  CHECK(one("read: arg0 == 0").rule.expr.terms[0][0].value == 0);
  CHECK(one("read: arg0 == 0xffffffffffffffff").rule.expr.terms[0][0].value == ~0ULL);
  CHECK(err("read: arg0 == 08") == "t.policy:1: bad number \"08\"");
  CHECK(err("read: arg0 == 0x") == "t.policy:1: bad number \"0x\"");
  CHECK(err("read: arg0 == 0x10000000000000000") == "t.policy:1: bad number \"0x10000000000000000\"");
  CHECK(err("read: arg0 == 12ab") == "t.policy:1: bad number \"12ab\"");
}

TEST_CASE("CRLF line ends are accepted") {
  auto r = parse_policy("read\r\nwrite: errno EPERM\r\n", "t.policy");
  REQUIRE(r.has_value());
  CHECK(r->size() == 2);
}

TEST_CASE("errors name the file, the line and the word") {
  CHECK(err("read\n\nfoo\n") == "t.policy:3: unknown syscall \"foo\"");
  CHECK(err("socket: arg0 == AF_FOO; errno EPERM") == "t.policy:1: unknown constant \"AF_FOO\"");
  CHECK(err("mount: errno EFOO") == "t.policy:1: unknown errno \"EFOO\"");
  CHECK(err("mount: errno AF_INET") == "t.policy:1: unknown errno \"AF_INET\"");
  CHECK(err("mount: errno 0") == "t.policy:1: errno 0 is out of range (1 to 4094)");
  CHECK(err("mount: errno 4095") == "t.policy:1: errno 4095 is out of range (1 to 4094)");
  CHECK(one("mount: errno 4094").rule.action == Action{ActionKind::Errno, 4094});
  CHECK(err("mount: errno") ==
        "t.policy:1: expected an errno name or number after \"errno\", got end of line");
  CHECK(err("mount: deny") == "t.policy:1: expected an argument (arg0 to arg5), got \"deny\"");
  CHECK(err("read: arg6 == 1") == "t.policy:1: no argument \"arg6\" (syscalls have arg0 to arg5)");
  CHECK(err("read: arg0 > 1") == "t.policy:1: unexpected \">\"");
  CHECK(err("read: arg0 1") == "t.policy:1: expected \"==\", \"!=\", \"&\" or \"in\" after arg0, got \"1\"");
  CHECK(err("read errno EPERM") == "t.policy:1: expected \":\" after read, got \"errno\"");
  CHECK(err("read:") == "t.policy:1: expected an action or a condition after \"read:\"");
  CHECK(err("read: allow now") == "t.policy:1: unexpected \"now\" after the action");
  CHECK(err("read: arg0 == 1 errno EPERM") ==
        "t.policy:1: unexpected \"errno\" after the condition (expected \";\" and an action, \"&&\" or "
        "\"||\")");
  CHECK(err("read: arg0 == 1;") ==
        "t.policy:1: expected an action (allow, errno NAME, kill, log), got end of line");
  CHECK(err("read: arg0 == 1 &&") == "t.policy:1: expected an argument (arg0 to arg5), got end of line");
  CHECK(err("read: arg0 & 0") == "t.policy:1: mask 0 in arg0 & 0: no bit can ever be set");
  CHECK(err("read: arg0 & 3 == 4") == "t.policy:1: value 0x4 has bits outside the mask 0x3");
  CHECK(err("@frobnicate x") == "t.policy:1: unknown directive \"@frobnicate\"");
  CHECK(err("@include") == "t.policy:1: @include needs a path");
  CHECK(err("@include a b") == "t.policy:1: bad @include path \"a b\"");
  CHECK(err("@default") == "t.policy:1: expected an action (allow, errno NAME, kill, log), got end of line");
  CHECK(err("123: allow") == "t.policy:1: expected a syscall name, got \"123\"");
}

TEST_CASE("32-bit arguments reject values with upper bits") {
  CHECK(err("ioctl: arg1 == 0x100000000; errno EPERM") ==
        "t.policy:1: value 0x100000000 does not fit the 32-bit argument arg1 of ioctl");
  CHECK(err("socket: arg0 & 0xffffffff00000000") ==
        "t.policy:1: value 0xffffffff00000000 does not fit the 32-bit argument arg0 of socket");
  CHECK(one("ioctl: arg2 == 0x100000000").rule.expr.terms[0][0].value == 0x100000000ULL);  // arg2 is 64-bit
}

TEST_CASE("bytes and sizes the parser refuses") {
  CHECK(err(std::string("read\nwr\x01ite\n")) == "t.policy:2: unexpected byte 0x01");
  CHECK(err(std::string("read\0\n", 6)) == "t.policy:1: unexpected byte 0x00");
  CHECK(err("read: arg0 == 1 # caf\xc3\xa9\n").empty());  // UTF-8 in a comment is fine
  CHECK(err("read # bad \x7f") == "t.policy:1: unexpected byte 0x7f");
  CHECK(err("r\xc3\xa9\n") == "t.policy:1: unexpected byte 0xc3");
  CHECK(err("read\n" + std::string(5000, ' ') + "\n") ==
        "t.policy:2: line too long (5000 bytes, limit 4096)");
  CHECK(err(std::string(2 << 20, '\n')) == "t.policy: file too large (2097152 bytes, limit 1048576)");
}
