// SPDX-License-Identifier: LGPL-2.1-or-later
// net: rule and policy text (parsing, errors, canonical form) and the metadata floor table.
#include <doctest/doctest.h>

#include <string>

#include "ringfence/net/policy.hpp"

using namespace rf::net;

namespace {

Rule rule(const char* text) {
  auto r = parse_rule(text);
  REQUIRE_MESSAGE(r, r.error().message());
  return *r;
}

std::string rule_error(const std::string& text) {
  auto r = parse_rule(text);
  REQUIRE_FALSE(r);
  return r.error().message();
}

std::string policy_error(const char* text) {
  auto p = parse_policy(text);
  REQUIRE_FALSE(p);
  return p.error().message();
}

}  // namespace

TEST_CASE("parse_rule: address rules") {
  auto r = rule("allow 10.1.2.3:443");
  CHECK(r.verdict == Verdict::Allow);
  CHECK(r.kind == RuleKind::Inet);
  CHECK(format_cidr(*r.net) == "10.1.2.3");
  CHECK(r.ports == PortRange{443, 443});
  CHECK(r.text == "allow 10.1.2.3:443");

  r = rule("  deny\t10.0.0.0/8  ");
  CHECK(r.verdict == Verdict::Deny);
  CHECK(format_cidr(*r.net) == "10.0.0.0/8");
  CHECK_FALSE(r.ports);
  CHECK(r.text == "deny\t10.0.0.0/8");

  r = rule("deny *:25");
  CHECK_FALSE(r.net);
  CHECK(r.ports == PortRange{25, 25});

  r = rule("allow [2001:db8::]/32:443");
  CHECK(format_cidr(*r.net) == "2001:db8::/32");
}

TEST_CASE("parse_rule: abstract unix socket rules") {
  auto r = rule("allow unix-abstract:@/tmp/.X11-unix/X0");
  CHECK(r.kind == RuleKind::UnixAbstract);
  CHECK(r.name == "/tmp/.X11-unix/X0");
  r = rule("allow unix-abstract:*");
  CHECK(r.kind == RuleKind::UnixAbstract);
  CHECK_FALSE(r.name);
  r = rule("deny unix-abstract:@with\\x00nul\\\\and\\x20space");
  CHECK(r.name == std::string("with\0nul\\and space", 18));
  r = rule("allow unix-abstract:@");
  CHECK(r.name == "");
}

TEST_CASE("parse_rule: errors quote the rule and say what is wrong") {
  CHECK(rule_error("permit 10.0.0.0/8") ==
        "bad rule \"permit 10.0.0.0/8\": expected 'allow' or 'deny' first");
  CHECK(rule_error("allow") == "bad rule \"allow\": no destination after 'allow'");
  CHECK(rule_error("") == "bad rule \"\": expected 'allow' or 'deny' first");
  CHECK(rule_error("deny 10.1.2.3/8") ==
        "bad rule \"deny 10.1.2.3/8\": bad address block \"10.1.2.3/8\": bits are set after the /8 prefix "
        "(did you mean 10.0.0.0/8?)");
  CHECK(rule_error("allow 10.0.0.0/8 extra") ==
        "bad rule \"allow 10.0.0.0/8 extra\": unexpected text after the destination");
  CHECK(rule_error("allow unix-abstract:foo") ==
        "bad rule \"allow unix-abstract:foo\": expected unix-abstract:@NAME or unix-abstract:* (the name "
        "starts with '@')");
  CHECK(rule_error("allow unix-abstract:@bad\\q") ==
        "bad rule \"allow unix-abstract:@bad\\\\q\": bad escape in the socket name (use \\\\ or \\xNN)");
  CHECK(rule_error("allow 10.0.0.1:99999") ==
        "bad rule \"allow 10.0.0.1:99999\": bad port \"99999\": expected a port 0-65535 or a range like "
        "80-443");
  CHECK(rule_error("Allow 10.0.0.1") == "bad rule \"Allow 10.0.0.1\": expected 'allow' or 'deny' first");
}

TEST_CASE("format_rule is canonical and parses back to the same rule") {
  for (const char* text : {"allow 10.1.2.3:443", "deny 10.0.0.0/8", "allow [2001:db8::]/32:443", "deny *",
                           "deny *:25-26", "allow unix-abstract:*", "allow unix-abstract:@/tmp/.X11-unix/X0",
                           "deny unix-abstract:@a\\x20b\\\\c\\x00"}) {
    CAPTURE(text);
    Rule r = rule(text);
    CHECK(format_rule(r) == text);
    Rule again = rule(format_rule(r).c_str());
    CHECK(again.net == r.net);
    CHECK(again.ports == r.ports);
    CHECK(again.name == r.name);
  }
  CHECK(format_rule(rule("deny ::ffff:10.0.0.0/104")) == "deny 10.0.0.0/8");
}

TEST_CASE("parse_policy: directives, comments and line numbers in errors") {
  auto p = parse_policy(
      "# no private networks\n"
      "default deny\n"
      "\n"
      "allow 10.1.2.3:443\r\n"
      "deny 10.0.0.0/8\n"
      "   # indented comment\n"
      "resolver 169.254.169.253\n"
      "allow unix-abstract:@/tmp/.X11-unix/X0");
  REQUIRE_MESSAGE(p, p.error().message());
  CHECK(p->default_verdict == Verdict::Deny);
  REQUIRE(p->rules.size() == 3);
  CHECK(p->rules[0].text == "allow 10.1.2.3:443");
  CHECK(p->rules[1].text == "deny 10.0.0.0/8");
  CHECK(p->rules[2].kind == RuleKind::UnixAbstract);
  REQUIRE(p->resolvers.size() == 1);
  CHECK(format_ip(p->resolvers[0]) == "169.254.169.253");

  auto empty = parse_policy("");
  REQUIRE(empty);
  CHECK(empty->default_verdict == Verdict::Allow);
  CHECK(empty->rules.empty());

  CHECK(policy_error("allow 10.0.0.1\ndefault maybe\n") ==
        "line 2: bad default \"maybe\": expected 'default allow' or 'default deny'");
  CHECK(policy_error("default deny\ndefault allow") == "line 2: a second 'default' line");
  CHECK(policy_error("\n\nresolver 169.254.169.253:53") ==
        "line 3: bad address \"169.254.169.253:53\": not an IP address (a port is not allowed here)");
  CHECK(policy_error("deny 10.0.0.0/33") ==
        "line 1: bad rule \"deny 10.0.0.0/33\": bad prefix length in \"10.0.0.0/33\": expected 0-32");
}

TEST_CASE("the metadata floor lists each address once, with a reason") {
  auto floor = metadata_floor();
  REQUIRE(floor.size() == 9);
  std::vector<std::string> nets;
  for (const auto& e : floor) {
    CHECK_FALSE(e.reason.empty());
    nets.push_back(format_cidr(e.net));
  }
  CHECK(nets == std::vector<std::string>{"169.254.0.0/16", "fe80::/10", "fd00:ec2::254", "fd00:ec2::253",
                                         "fd00:ec2::123", "fd00:ec2::23", "100.100.100.200", "192.0.0.192",
                                         "168.63.129.16"});
}
