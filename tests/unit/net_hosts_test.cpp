// SPDX-License-Identifier: LGPL-2.1-or-later
// net: host rules (names, wildcards, ports) and the names in a stream's first bytes: the SNI of a
// TLS ClientHello (split over records, cut short, two names) and the Host of an HTTP request
// (absolute-form targets, two Host headers).
#include <doctest/doctest.h>

#include <string>

#include "ringfence/net/hosts.hpp"

using namespace rf::net;
using namespace std::string_literals;
using K = StreamName::Kind;

namespace {

std::string u8(unsigned v) { return std::string(1, static_cast<char>(v)); }
std::string u16(unsigned v) { return u8(v >> 8) + u8(v & 0xFF); }
std::string u24(unsigned v) { return u8(v >> 16) + u16(v & 0xFFFF); }

std::string sni_ext(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& n : names) list += u8(0) + u16(static_cast<unsigned>(n.size())) + n;
  const std::string body = u16(static_cast<unsigned>(list.size())) + list;
  return u16(0) + u16(static_cast<unsigned>(body.size())) + body;
}

std::string hello(const std::string& extensions) {
  std::string h = u16(0x0303) + std::string(32, 'r') + u8(0) + u16(2) + u16(0x1301) + u8(1) + u8(0);
  if (!extensions.empty()) h += u16(static_cast<unsigned>(extensions.size())) + extensions;
  return u8(1) + u24(static_cast<unsigned>(h.size())) + h;
}

std::string records(const std::string& hs, std::size_t chunk = 16384) {
  std::string out;
  for (std::size_t at = 0; at < hs.size(); at += chunk) {
    const std::string part = hs.substr(at, chunk);
    out += u8(22) + u16(0x0301) + u16(static_cast<unsigned>(part.size())) + part;
  }
  return out;
}

}  // namespace

TEST_CASE("host rules: names, wildcards and ports") {
  auto r = parse_host_rule("API.Anthropic.com.");
  REQUIRE(r);
  CHECK(r->name == "api.anthropic.com");
  CHECK(host_allowed({*r}, "api.anthropic.com", 443));
  CHECK_FALSE(host_allowed({*r}, "x.api.anthropic.com"));
  CHECK_FALSE(host_allowed({*r}, "api.anthropic.com.evil.test"));
  auto w = parse_host_rule("*.npmjs.org:443");
  REQUIRE(w);
  CHECK(w->wildcard);
  CHECK(host_allowed({*w}, "registry.npmjs.org", 443));
  CHECK(host_allowed({*w}, "a.b.npmjs.org", 443));
  CHECK_FALSE(host_allowed({*w}, "npmjs.org", 443));  // the suffix itself is not under it
  CHECK_FALSE(host_allowed({*w}, "evilnpmjs.org", 443));
  CHECK_FALSE(host_allowed({*w}, "registry.npmjs.org", 80));
  CHECK(host_allowed({*w}, "registry.npmjs.org"));  // no port asked: the name alone
  auto range = parse_host_rule("git.test:8000-8010");
  REQUIRE(range);
  CHECK(host_allowed({*range}, "git.test", 8005));
  CHECK_FALSE(host_allowed({*range}, "git.test", 8011));
  for (const char* bad : {"", "*", "*.com", "a..b", "a b.test", "a.test:0", "a.test:x", "*.", "-:1",
                          "a.test/x", "[::1]", "\xC3\xA9.test"})
    CHECK_MESSAGE(!parse_host_rule(bad), std::string(bad));
}

TEST_CASE("tls: the SNI of a ClientHello, whole, split over records, or cut short") {
  const std::string hs = hello(u16(0x002b) + u16(3) + u8(2) + u16(0x0304) + sni_ext({"Allowed.TEST"}));
  const std::string wire = records(hs);
  auto n = tls_server_name(wire);
  CHECK(n.kind == K::Name);
  CHECK(n.name == "allowed.test");
  // Split into records of 7 bytes each: the hello is gathered first.
  n = tls_server_name(records(hs, 7));
  CHECK(n.kind == K::Name);
  CHECK(n.name == "allowed.test");
  for (std::size_t cut : {0ul, 1ul, 4ul, 5ul, 20ul, wire.size() - 1})
    CHECK_MESSAGE(tls_server_name(wire.substr(0, cut)).kind == K::NeedMore, cut);
  CHECK(tls_server_name(records(hello(""))).kind == K::NoName);
  CHECK(tls_server_name(records(hello(u16(0x002b) + u16(3) + u8(2) + u16(0x0304)))).kind == K::NoName);
}

TEST_CASE("tls: two names, two server_name extensions, bad lengths and other records are not a name") {
  CHECK(tls_server_name(records(hello(sni_ext({"allowed.test", "evil.test"})))).kind == K::Malformed);
  CHECK(tls_server_name(records(hello(sni_ext({"allowed.test"}) + sni_ext({"evil.test"})))).kind ==
        K::Malformed);
  CHECK(tls_server_name(records(hello(sni_ext({"bad name.test"})))).kind == K::Malformed);
  // An extension block whose length is off by one.
  std::string hs = hello(sni_ext({"allowed.test"}));
  hs[hs.size() - sni_ext({"allowed.test"}).size() - 1] ^= 1;
  CHECK(tls_server_name(records(hs)).kind == K::Malformed);
  // A ServerHello (type 2), an alert record in the middle, not TLS at all.
  std::string server = hello(sni_ext({"allowed.test"}));
  server[0] = 2;
  CHECK(tls_server_name(records(server)).kind == K::Malformed);
  const std::string two = records(hello(sni_ext({"allowed.test"})), 20);
  std::string mixed = two.substr(0, 25) + u8(21) + u16(0x0303) + u16(2) + "\x02\x28"s + two.substr(25);
  CHECK(tls_server_name(mixed).kind == K::Malformed);
  CHECK(tls_server_name("GET / HTTP/1.1\r\n").kind == K::Other);
  CHECK(tls_server_name("\x16\x07\x01\x00\x10"s).kind == K::Other);  // not a TLS record version
}

TEST_CASE("http: the Host of a request, its port removed") {
  auto n = http_host("GET /x HTTP/1.1\r\nUser-Agent: t\r\nHOST:  Allowed.Test:8080 \r\n\r\nbody");
  CHECK(n.kind == K::Name);
  CHECK(n.name == "allowed.test");
  CHECK(http_host("GET / HTTP/1.1\r\nHost: allowed.test\r\n").kind == K::NeedMore);
  CHECK(http_host("GE").kind == K::NeedMore);
  CHECK(http_host("GET / HTTP/1.0\r\n\r\n").kind == K::NoName);
  n = http_host("GET http://allowed.test/p HTTP/1.1\r\n\r\n");
  CHECK(n.kind == K::Name);
  CHECK(n.name == "allowed.test");
  CHECK(http_host("\x16\x03\x01"s).kind == K::Other);
  CHECK(http_host("SSH-2.0-OpenSSH_9.2\r\n").kind == K::Other);
}

TEST_CASE("http: fronting by a second Host or an absolute target naming another host is refused") {
  CHECK(http_host("GET / HTTP/1.1\r\nHost: allowed.test\r\nHost: evil.test\r\n\r\n").kind == K::Malformed);
  CHECK(http_host("GET http://evil.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n").kind == K::Malformed);
  CHECK(http_host("GET http://user@evil.test:80/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n").kind ==
        K::Malformed);
  CHECK(http_host("GET / HTTP/1.1\r\nbroken line\r\n\r\n").kind == K::Malformed);
  CHECK(http_host("GET / HTTP/1.1\r\nHost: a b\r\n\r\n").kind == K::Malformed);
  CHECK(http_host("GET / HTTP/1.1\r\nX: " + std::string(17000, 'a')).kind == K::Malformed);
}
