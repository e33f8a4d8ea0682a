// SPDX-License-Identifier: LGPL-2.1-or-later
// net: the decision. The metadata floor in every spelling of every address, resolver
// exemptions, rule precedence, port ranges, unix sockets, other families, TCP Fast Open.
#include <doctest/doctest.h>

#include <cerrno>
#include <string>

#include "ringfence/net/decision.hpp"

using namespace rf::net;

namespace {

Destination inet(const char* text, std::uint16_t port, std::uint32_t scope_id = 0) {
  auto a = parse_ip(text);
  REQUIRE_MESSAGE(a, a.error().message());
  Destination d;
  d.kind = DestinationKind::Inet;
  d.inet = *a;
  d.inet.port = port;
  d.inet.scope_id = scope_id;
  return d;
}

Destination abstract(const std::string& name) {
  Destination d;
  d.kind = DestinationKind::Unix;
  d.unix_form = UnixForm::Abstract;
  d.unix_name = name;
  return d;
}

Policy policy(const char* text) {
  auto p = parse_policy(text);
  REQUIRE_MESSAGE(p, p.error().message());
  return *p;
}

// Allows everything the user can allow: the floor must still hold.
const char* const kAllowAll =
    "allow *\nallow 169.254.0.0/16\nallow fe80::/10\nallow fd00:ec2::254\n"
    "allow ::/0\nallow 0.0.0.0/0\nallow 64:ff9b::/96\nallow 2002::/16\nallow 2001::/32";

bool allowed(const Policy& p, const Destination& d) { return decide(p, d).verdict == Verdict::Allow; }

}  // namespace

TEST_CASE("the floor denies every spelling of the metadata addresses, whatever the rules say") {
  for (const char* text : {"", kAllowAll}) {
    Policy p = policy(text);
    struct Case {
      const char* address;
      const char* rule;
    };
    const Case cases[] = {
        {"169.254.169.254", "169.254.0.0/16 (link-local, cloud metadata)"},
        {"169.254.170.2", "169.254.0.0/16 (link-local, cloud metadata)"},   // ECS task credentials
        {"169.254.170.23", "169.254.0.0/16 (link-local, cloud metadata)"},  // EKS Pod Identity
        {"::ffff:169.254.169.254", "169.254.0.0/16 (link-local, cloud metadata)"},
        {"::ffff:a9fe:a9fe", "169.254.0.0/16 (link-local, cloud metadata)"},
        {"::ffff:0:a9fe:a9fe", "169.254.0.0/16 (link-local, cloud metadata)"},
        {"::169.254.169.254", "169.254.0.0/16 (link-local, cloud metadata)"},
        {"64:ff9b::a9fe:a9fe", "169.254.0.0/16 (link-local, cloud metadata)"},
        {"64:ff9b:1::a9fe:a9fe", "169.254.0.0/16 (link-local, cloud metadata)"},
        {"64:ff9b:1:a9fe:a9:fe00::", "169.254.0.0/16 (link-local, cloud metadata)"},
        {"2002:a9fe:a9fe::1", "169.254.0.0/16 (link-local, cloud metadata)"},
        {"2001:0:a9fe:a9fe::1", "169.254.0.0/16 (link-local, cloud metadata)"},  // Teredo server
        {"2001:0:4136:e378:8000:63bf:5601:5601", "169.254.0.0/16 (link-local, cloud metadata)"},  // client
        {"fe80::a9fe:a9fe", "fe80::/10 (IPv6 link-local)"},
        {"fd00:ec2::254", "fd00:ec2::254 (AWS instance metadata over IPv6)"},
        {"fd00:ec2::253", "fd00:ec2::253 (AWS DNS resolver over IPv6)"},
        {"fd00:ec2::123", "fd00:ec2::123 (Amazon Time Sync over IPv6)"},
        {"fd00:ec2::23", "fd00:ec2::23 (EKS Pod Identity credentials over IPv6)"},
        {"100.100.100.200", "100.100.100.200 (Alibaba Cloud metadata)"},
        {"::ffff:100.100.100.200", "100.100.100.200 (Alibaba Cloud metadata)"},
        {"192.0.0.192", "192.0.0.192 (Oracle Cloud@Customer metadata)"},
        {"168.63.129.16", "168.63.129.16 (Azure WireServer)"},
        {"64:ff9b::a83f:8110", "168.63.129.16 (Azure WireServer)"},
    };
    for (const auto& c : cases) {
      CAPTURE(text);
      CAPTURE(c.address);
      auto d = decide(p, inet(c.address, 80));
      CHECK(d.verdict == Verdict::Deny);
      CHECK(d.error == ECONNREFUSED);
      CHECK(d.floor);
      CHECK(d.rule == std::string("metadata floor: ") + c.rule);
    }
  }
}

TEST_CASE("the floor covers link-local IPv6 with any scope id, and reports the embedded form") {
  Policy p = policy(kAllowAll);
  auto d = decide(p, inet("fe80::1", 80, 2));
  CHECK(d.verdict == Verdict::Deny);
  CHECK(d.floor);
  CHECK_FALSE(d.via);

  d = decide(p, inet("64:ff9b::a9fe:a9fe", 80));
  REQUIRE(d.via);
  CHECK(d.via->via == Embedding::Nat64);
  CHECK(format_ip(d.via->address) == "169.254.169.254");

  d = decide(p, inet("2001:0:4136:e378:8000:63bf:5601:5601", 80));
  REQUIRE(d.via);
  CHECK(d.via->via == Embedding::TeredoClient);
}

TEST_CASE("neighbours of the floor are not in it") {
  Policy p;
  for (const char* a : {"169.253.255.255", "169.255.0.0", "fec0::1", "fd00:ec2::255", "fd00:ec2::1:254",
                        "fd00:ec3::254", "100.100.100.201", "192.0.0.193", "168.63.129.17", "::ffff:1.2.3.4",
                        "64:ff9b::102:304", "2002:102:304::1"}) {
    CAPTURE(a);
    auto d = decide(p, inet(a, 80));
    CHECK(d.verdict == Verdict::Allow);
    CHECK(d.rule == "default: allow");
  }
}

TEST_CASE("a resolver exemption opens port 53 of exactly that address") {
  Policy p = policy("resolver 169.254.169.254\nresolver fd00:ec2::253");
  auto d = decide(p, inet("169.254.169.254", 53));
  CHECK(d.verdict == Verdict::Allow);
  CHECK(d.rule == "resolver: 169.254.169.254 port 53");
  CHECK(allowed(p, inet("::ffff:169.254.169.254", 53)));  // the same IPv4 destination
  CHECK(allowed(p, inet("fd00:ec2::253", 53)));
  CHECK_FALSE(allowed(p, inet("169.254.169.254", 80)));
  CHECK_FALSE(allowed(p, inet("169.254.169.253", 53)));
  CHECK_FALSE(allowed(p, inet("64:ff9b::a9fe:a9fe", 53)));  // other forms stay in the floor
  CHECK_FALSE(allowed(p, inet("2002:a9fe:a9fe::", 53)));
  // Allow rules never open the floor, not even for one port.
  Policy q = policy("allow 169.254.169.254:53\nallow fd00:ec2::254");
  CHECK(decide(q, inet("169.254.169.254", 53)).floor);
  CHECK(decide(q, inet("fd00:ec2::254", 80)).floor);
}

TEST_CASE("precedence: the longest prefix wins") {
  Policy p = policy("deny 10.0.0.0/8\nallow 10.1.2.3:443");
  CHECK(allowed(p, inet("10.1.2.3", 443)));
  CHECK(decide(p, inet("10.1.2.3", 443)).rule == "allow 10.1.2.3:443");
  auto d = decide(p, inet("10.1.2.3", 80));
  CHECK(d.verdict == Verdict::Deny);
  CHECK(d.error == ECONNREFUSED);
  CHECK(d.rule == "deny 10.0.0.0/8");
  CHECK_FALSE(d.floor);
  CHECK_FALSE(allowed(p, inet("10.1.2.4", 443)));
  CHECK(allowed(p, inet("11.0.0.1", 443)));  // the default

  Policy q = policy("allow 10.0.0.0/8\ndeny 10.1.0.0/16");
  CHECK(allowed(q, inet("10.2.0.1", 80)));
  CHECK_FALSE(allowed(q, inet("10.1.0.1", 80)));
  // Order does not matter.
  Policy r = policy("deny 10.1.0.0/16\nallow 10.0.0.0/8");
  CHECK_FALSE(allowed(r, inet("10.1.0.1", 80)));
}

TEST_CASE("precedence: on equal prefixes ports beat no ports, narrow ranges beat wide ones, then deny") {
  Policy p = policy("deny 10.0.0.0/8\nallow 10.0.0.0/8:443");
  CHECK(allowed(p, inet("10.9.9.9", 443)));
  CHECK_FALSE(allowed(p, inet("10.9.9.9", 444)));

  Policy q = policy("deny 10.0.0.0/8:1-65535\nallow 10.0.0.0/8:443");
  CHECK(allowed(q, inet("10.9.9.9", 443)));
  CHECK_FALSE(allowed(q, inet("10.9.9.9", 80)));

  Policy tie = policy("allow 10.0.0.0/8:443\ndeny 10.0.0.0/8:443");
  auto d = decide(tie, inet("10.9.9.9", 443));
  CHECK(d.verdict == Verdict::Deny);
  CHECK(d.rule == "deny 10.0.0.0/8:443");
  Policy tie2 = policy("deny 10.0.0.0/8:443\nallow 10.0.0.0/8:443");
  CHECK_FALSE(allowed(tie2, inet("10.9.9.9", 443)));

  // A port range matches inclusively.
  Policy range = policy("default deny\nallow 10.0.0.0/8:80-443");
  CHECK(allowed(range, inet("10.0.0.1", 80)));
  CHECK(allowed(range, inet("10.0.0.1", 443)));
  CHECK_FALSE(allowed(range, inet("10.0.0.1", 79)));
  CHECK_FALSE(allowed(range, inet("10.0.0.1", 444)));
}

TEST_CASE("precedence: '*' is the least specific, an IPv4 block beats the IPv6 block embedding it") {
  Policy p = policy("deny *:25\nallow 192.0.2.0/24");
  CHECK(allowed(p, inet("192.0.2.1", 25)));
  CHECK_FALSE(allowed(p, inet("198.51.100.1", 25)));
  CHECK_FALSE(allowed(p, inet("2001:db8::1", 25)));

  Policy q = policy("allow 64:ff9b::/96\ndeny 10.0.0.0/8");
  CHECK_FALSE(allowed(q, inet("64:ff9b::a01:203", 80)));
  CHECK(allowed(q, inet("64:ff9b::102:304", 80)));
  Policy r = policy("default deny\nallow 64:ff9b::a01:203");
  CHECK(allowed(r, inet("64:ff9b::a01:203", 80)));  // /128 beats the embedded IPv4's default
}

TEST_CASE("IPv4 rules apply to every embedded form; each reached address must be allowed") {
  Policy deny_private = policy("deny 10.0.0.0/8\ndeny 192.168.0.0/16");
  for (const char* a :
       {"::ffff:10.1.2.3", "::ffff:0:a01:203", "::10.1.2.3", "64:ff9b::10.1.2.3", "64:ff9b:1::a01:203",
        "2002:a01:203::1", "2001:0:a01:203::", "2001:0:102:304::f5fe:fdfc"}) {
    CAPTURE(a);
    auto d = decide(deny_private, inet(a, 443));
    CHECK(d.verdict == Verdict::Deny);
    CHECK(d.rule == "deny 10.0.0.0/8");
    CHECK(d.via);
  }
  Policy only = policy("default deny\nallow 1.2.3.4:443");
  CHECK(allowed(only, inet("::ffff:1.2.3.4", 443)));
  CHECK(allowed(only, inet("64:ff9b::102:304", 443)));
  auto d = decide(only, inet("64:ff9b::102:304", 443));
  REQUIRE(d.via);
  CHECK(d.via->via == Embedding::Nat64);
  // Teredo reaches both the server and the client: allowing one is not enough.
  CHECK_FALSE(allowed(only, inet("2001:0:102:304::", 443)));
  // Mapped rules are IPv4 rules.
  Policy mapped = policy("deny ::ffff:10.0.0.0/104");
  CHECK_FALSE(allowed(mapped, inet("10.1.2.3", 80)));
}

TEST_CASE("unspecified destinations are this host: loopback rules apply") {
  Policy p = policy("deny 127.0.0.0/8\ndeny ::1");
  CHECK_FALSE(allowed(p, inet("0.0.0.0", 8080)));
  CHECK_FALSE(allowed(p, inet("::", 8080)));
  CHECK_FALSE(allowed(p, inet("::ffff:0.0.0.0", 8080)));
  Policy only_v4 = policy("deny 127.0.0.0/8");
  CHECK_FALSE(allowed(only_v4, inet("::", 8080)));  // "::" may reach 127.0.0.1 too
  CHECK(allowed(Policy{}, inet("0.0.0.0", 8080)));
}

TEST_CASE("default deny") {
  Policy p = policy("default deny\nallow 192.0.2.0/24:443");
  auto d = decide(p, inet("198.51.100.7", 443));
  CHECK(d.verdict == Verdict::Deny);
  CHECK(d.error == ECONNREFUSED);
  CHECK(d.rule == "default: deny");
  CHECK(allowed(p, inet("192.0.2.9", 443)));
}

TEST_CASE("TCP Fast Open sends are refused even where a connect would be allowed") {
  Policy p;
  Destination d = inet("192.0.2.1", 443);
  d.fastopen = true;
  auto r = decide(p, d);
  CHECK(r.verdict == Verdict::Deny);
  CHECK(r.error == EOPNOTSUPP);
  d = inet("169.254.169.254", 80);
  d.fastopen = true;
  r = decide(p, d);
  CHECK(r.floor);
  CHECK(r.error == ECONNREFUSED);
}

TEST_CASE("unix sockets: paths are left to the filesystem, abstract names need an allow rule") {
  Destination path;
  path.kind = DestinationKind::Unix;
  path.unix_form = UnixForm::Path;
  path.unix_name = "/run/user/1000/bus";
  CHECK(allowed(Policy{}, path));

  auto d = decide(Policy{}, abstract("/tmp/.X11-unix/X0"));
  CHECK(d.verdict == Verdict::Deny);
  CHECK(d.error == ECONNREFUSED);
  CHECK(d.rule == "unix abstract sockets are denied unless a rule allows them");

  Policy x11 = policy("allow unix-abstract:@/tmp/.X11-unix/X0");
  CHECK(allowed(x11, abstract("/tmp/.X11-unix/X0")));
  CHECK_FALSE(allowed(x11, abstract("/tmp/.X11-unix/X1")));
  CHECK_FALSE(allowed(x11, abstract(std::string("/tmp/.X11-unix/X0\0", 18))));  // another name

  Policy all = policy("allow unix-abstract:*\ndeny unix-abstract:@canary");
  CHECK(allowed(all, abstract("anything")));
  CHECK_FALSE(allowed(all, abstract("canary")));
  Policy tie = policy("allow unix-abstract:@x\ndeny unix-abstract:@x");
  CHECK_FALSE(allowed(tie, abstract("x")));
  Policy named = policy("deny unix-abstract:*\nallow unix-abstract:@x");
  CHECK(allowed(named, abstract("x")));
  // Address rules never match unix sockets, and the IP default does not apply to them.
  CHECK_FALSE(allowed(policy("allow *"), abstract("x")));
}

TEST_CASE("no destination is allowed; other families are denied") {
  Destination none;
  none.kind = DestinationKind::Unspec;
  none.none = NoDestination::Disconnect;
  auto d = decide(policy("default deny"), none);
  CHECK(d.verdict == Verdict::Allow);
  CHECK(d.rule == "no destination: disconnect");

  Destination other;
  other.kind = DestinationKind::Other;
  other.family = 40;  // AF_VSOCK
  d = decide(Policy{}, other);
  CHECK(d.verdict == Verdict::Deny);
  CHECK(d.error == EAFNOSUPPORT);
  CHECK(d.rule == "address family 40 is not allowed");
}
