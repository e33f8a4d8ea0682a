// SPDX-License-Identifier: LGPL-2.1-or-later
// net: address, CIDR, port and target parsing (with the errors), formatting, containment.
#include <doctest/doctest.h>

#include <string>

#include "ringfence/net/address.hpp"

using namespace rf::net;

namespace {

Cidr cidr(const char* text) {
  auto c = parse_cidr(text);
  REQUIRE_MESSAGE(c, c.error().message());
  return *c;
}

Address ip(const char* text, std::uint16_t port = 0) {
  auto a = parse_ip(text);
  REQUIRE_MESSAGE(a, a.error().message());
  a->port = port;
  return *a;
}

std::string error_of(const rf::base::Result<NetTarget>& r) {
  REQUIRE_FALSE(r);
  return r.error().message();
}

}  // namespace

TEST_CASE("parse_ip reads strict IPv4 and IPv6 text") {
  CHECK(ip("10.1.2.3").v4_value() == 0x0a010203);
  CHECK(ip("10.1.2.3").family == Family::V4);
  auto v6 = ip("fd00:ec2::254");
  CHECK(v6.family == Family::V6);
  CHECK(v6.bytes[0] == 0xfd);
  CHECK(v6.bytes[3] == 0xc2);
  CHECK(v6.bytes[14] == 0x02);
  CHECK(v6.bytes[15] == 0x54);
  // Alternative IPv4 spellings are not addresses here (curl accepts them; rules do not).
  for (const char* bad :
       {"2852039166", "0xa9fea9fe", "0251.0376.0251.0376", "169.254.43518", "10.1.2", "10.1.2.3.4",
        "010.1.2.3", "256.1.1.1", " 10.1.2.3", "", "[::1]", "fe80::1%eth0", "::g", "1:2:3:4:5:6:7:8:9"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_ip(bad));
  }
  auto err = parse_ip("fe80::1%eth0");
  CHECK(err.error().message() == "bad IPv6 address \"fe80::1%eth0\": a scope id (%) is not allowed in rules");
  CHECK(parse_ip("10.1.2").error().message() ==
        "bad IPv4 address \"10.1.2\": expected four decimal numbers 0-255 separated by dots");
  CHECK(parse_ip(std::string("10.1.2.3\0x", 10)).error().message() ==
        "bad IPv4 address \"10.1.2.3\\x00x\": unexpected character");
}

TEST_CASE("parse_cidr: prefixes, hosts, host bits, mapped blocks") {
  auto c = cidr("10.0.0.0/8");
  CHECK(c.prefix == 8);
  CHECK(c.base.v4_value() == 0x0a000000);
  CHECK(cidr("10.1.2.3").prefix == 32);
  CHECK(cidr("fd00:ec2::254").prefix == 128);
  CHECK(cidr("2001:db8::/32").prefix == 32);
  CHECK(cidr("0.0.0.0/0").prefix == 0);
  CHECK(cidr("::/0").prefix == 0);
  // An IPv4-mapped block is the IPv4 block: it also matches plain IPv4 destinations.
  auto mapped = cidr("::ffff:10.0.0.0/104");
  CHECK(mapped.base.family == Family::V4);
  CHECK(mapped.prefix == 8);
  CHECK(mapped == c);
  CHECK(cidr("::ffff:169.254.169.254") == cidr("169.254.169.254"));
  CHECK(cidr("::ffff:0:0/96") == cidr("0.0.0.0/0"));
  CHECK(cidr("::/80").base.family == Family::V6);  // wider than the mapped space

  CHECK(parse_cidr("10.1.2.3/8").error().message() ==
        "bad address block \"10.1.2.3/8\": bits are set after the /8 prefix (did you mean 10.0.0.0/8?)");
  CHECK(parse_cidr("10.0.0.0/33").error().message() == "bad prefix length in \"10.0.0.0/33\": expected 0-32");
  CHECK(parse_cidr("2001:db8::/129").error().message() ==
        "bad prefix length in \"2001:db8::/129\": expected 0-128");
  for (const char* bad :
       {"10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8/8", "/8", "2001:db8::1/32"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_cidr(bad));
  }
}

TEST_CASE("Cidr::contains compares the prefix bits and the family") {
  auto net = cidr("10.0.0.0/8");
  CHECK(net.contains(ip("10.255.0.1")));
  CHECK_FALSE(net.contains(ip("11.0.0.0")));
  CHECK_FALSE(net.contains(ip("::a00:1")));  // other family
  auto odd = cidr("169.254.128.0/17");
  CHECK(odd.contains(ip("169.254.169.254")));
  CHECK_FALSE(odd.contains(ip("169.254.127.255")));
  auto ll = cidr("fe80::/10");
  CHECK(ll.contains(ip("fe80::1")));
  CHECK(ll.contains(ip("febf:ffff::1")));
  CHECK_FALSE(ll.contains(ip("fec0::1")));
  CHECK(cidr("0.0.0.0/0").contains(ip("1.2.3.4")));
  CHECK(cidr("::/0").contains(ip("2001:db8::1")));
}

TEST_CASE("parse_ports: single ports and inclusive ranges") {
  CHECK(*parse_ports("443") == PortRange{443, 443});
  CHECK(*parse_ports("80-443") == PortRange{80, 443});
  CHECK(*parse_ports("0-65535") == PortRange{0, 65535});
  CHECK(parse_ports("443-80").error().message() ==
        "bad port range \"443-80\": the first port is above the last");
  CHECK(parse_ports("65536").error().message() ==
        "bad port \"65536\": expected a port 0-65535 or a range like 80-443");
  for (const char* bad : {"", "-", "80-", "-80", "http", "+1", "1 ", "000000443", "1-2-3"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_ports(bad));
  }
  CHECK(PortRange{80, 443}.contains(80));
  CHECK(PortRange{80, 443}.contains(443));
  CHECK_FALSE(PortRange{80, 443}.contains(444));
}

TEST_CASE("parse_net_target: every written form") {
  auto t = parse_net_target("10.1.2.3:443");
  REQUIRE(t);
  CHECK(t->net == cidr("10.1.2.3"));
  CHECK(t->ports == PortRange{443, 443});

  t = parse_net_target("10.0.0.0/8:80-443");
  REQUIRE(t);
  CHECK(t->net == cidr("10.0.0.0/8"));
  CHECK(t->ports == PortRange{80, 443});

  t = parse_net_target("[::1]:443");
  REQUIRE(t);
  CHECK(t->net == cidr("::1"));
  CHECK(t->ports == PortRange{443, 443});

  t = parse_net_target("[2001:db8::]/32:443");
  REQUIRE(t);
  CHECK(t->net == cidr("2001:db8::/32"));
  CHECK(t->ports == PortRange{443, 443});

  t = parse_net_target("[2001:db8::/32]:443");
  REQUIRE(t);
  CHECK(t->net == cidr("2001:db8::/32"));

  t = parse_net_target("2001:db8::/32");
  REQUIRE(t);
  CHECK(t->net == cidr("2001:db8::/32"));
  CHECK_FALSE(t->ports);

  t = parse_net_target("[fd00:ec2::254]");
  REQUIRE(t);
  CHECK_FALSE(t->ports);

  t = parse_net_target("*");
  REQUIRE(t);
  CHECK_FALSE(t->net);
  CHECK_FALSE(t->ports);

  t = parse_net_target("*:25");
  REQUIRE(t);
  CHECK_FALSE(t->net);
  CHECK(t->ports == PortRange{25, 25});
}

TEST_CASE("parse_net_target: errors name the text and the reason") {
  CHECK(error_of(parse_net_target("[::1")) == "bad address \"[::1\": '[' without a closing ']'");
  CHECK(error_of(parse_net_target("[10.1.2.3]:80")) ==
        "bad address \"[10.1.2.3]:80\": brackets are only for IPv6 addresses");
  CHECK(error_of(parse_net_target("[::1]x")) == "bad address \"[::1]x\": unexpected \"x\" after ']'");
  CHECK(error_of(parse_net_target("[::1/64]/64")) == "bad address \"[::1/64]/64\": two prefix lengths");
  CHECK(error_of(parse_net_target("10.1.2.3:http")) ==
        "bad port \"http\": expected a port 0-65535 or a range like 80-443");
  CHECK(error_of(parse_net_target("")) == "empty address");
  // An unbracketed IPv6 address cannot carry a port: "::1:443" is the address ::1:443.
  auto t = parse_net_target("::1:443");
  REQUIRE(t);
  CHECK_FALSE(t->ports);
  CHECK(t->net->base.bytes[13] == 0x01);
  CHECK(t->net->base.bytes[14] == 0x04);
}

TEST_CASE("formatting is canonical and round-trips") {
  CHECK(format_ip(ip("10.1.2.3")) == "10.1.2.3");
  CHECK(format_ip(ip("2001:DB8:0:0::1")) == "2001:db8::1");
  CHECK(format_ip(ip("::ffff:169.254.169.254")) == "::ffff:169.254.169.254");
  auto scoped = ip("fe80::1");
  scoped.scope_id = 2;
  CHECK(format_ip(scoped) == "fe80::1%2");
  CHECK(format_endpoint(ip("10.1.2.3", 443)) == "10.1.2.3:443");
  CHECK(format_endpoint(ip("::1", 443)) == "[::1]:443");
  CHECK(format_cidr(cidr("10.0.0.0/8")) == "10.0.0.0/8");
  CHECK(format_cidr(cidr("10.1.2.3")) == "10.1.2.3");
  CHECK(format_ports(PortRange{80, 443}) == "80-443");
  CHECK(format_ports(PortRange{53, 53}) == "53");
  for (const char* text : {"10.0.0.0/8:80-443", "10.1.2.3:443", "[::1]:443", "[2001:db8::]/32:443",
                           "2001:db8::/32", "fd00:ec2::254", "*", "*:25", "0.0.0.0/0"}) {
    CAPTURE(text);
    auto t = parse_net_target(text);
    REQUIRE(t);
    CHECK(format_net_target(*t) == text);
  }
}
