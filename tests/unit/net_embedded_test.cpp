// SPDX-License-Identifier: LGPL-2.1-or-later
// net: the IPv4 addresses hidden in IPv6 ones (mapped, translated, compatible, NAT64, 6to4,
// Teredo) and the loopback meaning of unspecified destinations.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ringfence/net/embedded.hpp"

using namespace rf::net;

namespace {

Address ip(const char* text, std::uint16_t port = 0) {
  auto a = parse_ip(text);
  REQUIRE_MESSAGE(a, a.error().message());
  a->port = port;
  return *a;
}

// "nat64 169.254.169.254" for each form, in order.
std::vector<std::string> forms(const char* text) {
  std::vector<std::string> out;
  for (const auto& f : alternate_forms(ip(text, 80))) {
    CHECK(f.address.port == 80);
    out.push_back(std::string(embedding_name(f.via)) + " " + format_ip(f.address));
  }
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("plain addresses have no alternate form") {
  CHECK(forms("169.254.169.254").empty());
  CHECK(forms("10.1.2.3").empty());
  CHECK(forms("2001:db8::1").empty());
  CHECK(forms("fd00:ec2::254").empty());
  CHECK(forms("::1").empty());
  CHECK(forms("::ffff:0:0:0:1").empty());  // not translated: the fifth group is not zero
}

TEST_CASE("IPv4-mapped, IPv4-translated and IPv4-compatible addresses") {
  CHECK(forms("::ffff:169.254.169.254") == V{"ipv4-mapped 169.254.169.254"});
  CHECK(forms("::ffff:a9fe:a9fe") == V{"ipv4-mapped 169.254.169.254"});
  CHECK(forms("::ffff:0:a9fe:a9fe") == V{"ipv4-translated 169.254.169.254"});
  CHECK(forms("::169.254.169.254") == V{"ipv4-compatible 169.254.169.254"});
  CHECK(forms("::a9fe:a9fe") == V{"ipv4-compatible 169.254.169.254"});
  CHECK(forms("::2") == V{"ipv4-compatible 0.0.0.2"});
  CHECK(forms("::1:0") == V{"ipv4-compatible 0.1.0.0"});
}

TEST_CASE("NAT64: the well-known prefix and the local-use /48") {
  CHECK(forms("64:ff9b::a9fe:a9fe") == V{"nat64 169.254.169.254"});
  CHECK(forms("64:ff9b::169.254.169.254") == V{"nat64 169.254.169.254"});
  CHECK(forms("64:ff9b::1:a9fe:a9fe").empty());  // outside the /96
  // 64:ff9b:1::/48: one candidate per RFC 6052 layout (/48, /56, /64, /96).
  CHECK(forms("64:ff9b:1:a9fe:00a9:fe00::") == V{"nat64-local 169.254.169.254", "nat64-local 254.169.254.0",
                                                 "nat64-local 169.254.0.0", "nat64-local 0.0.0.0"});
  CHECK(forms("64:ff9b:1::a9fe:a9fe").back() == "nat64-local 169.254.169.254");
  CHECK(forms("64:ff9b:1:00a9:00fe:a9fe::")[1] == "nat64-local 169.254.169.254");
  CHECK(forms("64:ff9b:1:0:00a9:fea9:fe00:0")[2] == "nat64-local 169.254.169.254");
}

TEST_CASE("6to4 and Teredo") {
  CHECK(forms("2002:a9fe:a9fe::1") == V{"6to4 169.254.169.254"});
  CHECK(forms("2002:a9fe:a9fe:1234:5678::") == V{"6to4 169.254.169.254"});
  // Teredo 2001:0:SERVER:flags:port:~CLIENT (RFC 4380): the client IPv4 is stored inverted.
  CHECK(forms("2001:0:a9fe:a9fe::") == V{"teredo-server 169.254.169.254", "teredo-client 255.255.255.255"});
  CHECK(forms("2001:0:4136:e378:8000:63bf:5601:5601") ==
        V{"teredo-server 65.54.227.120", "teredo-client 169.254.169.254"});
  CHECK(forms("2001:1::1").empty());  // 2001:1::/32 is not Teredo
}

TEST_CASE("unspecified destinations reach this host") {
  CHECK(forms("0.0.0.0") == V{"loopback 127.0.0.1"});
  CHECK(forms("::") == V{"loopback ::1", "loopback 127.0.0.1"});
  CHECK(forms("::ffff:0.0.0.0") == V{"ipv4-mapped 0.0.0.0", "loopback 127.0.0.1"});
}

TEST_CASE("embedding names") {
  CHECK(embedding_name(Embedding::SixToFour) == "6to4");
  CHECK(embedding_name(Embedding::TeredoClient) == "teredo-client");
  CHECK(embedding_name(Embedding::Mapped) == "ipv4-mapped");
}
