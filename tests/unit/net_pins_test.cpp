// SPDX-License-Identifier: LGPL-2.1-or-later
// net: the pin table: TTLs raised to the floor and capped, expiry, one address shared by two
// names, IPv4-mapped and plain addresses kept apart, and the size bound.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ringfence/net/pins.hpp"

using namespace rf::net;

namespace {

Address ip(const char* text) { return *parse_ip(text); }

std::vector<dns::Pin> pins(std::initializer_list<const char*> addrs, std::uint32_t ttl) {
  std::vector<dns::Pin> out;
  for (const char* a : addrs) out.push_back({ip(a), ttl, ""});
  return out;
}

}  // namespace

TEST_CASE("pins: an answer is pinned for its TTL, at least the floor and at most the cap") {
  PinTable t(PinTable::Limits{10, 100, 64});
  t.add("allowed.test", pins({"198.51.100.7", "2001:db8::7"}, 1), 0);
  CHECK(t.names_for(ip("198.51.100.7"), 9'999) == std::vector<std::string>{"allowed.test"});
  CHECK(t.names_for(ip("2001:db8::7"), 9'999) == std::vector<std::string>{"allowed.test"});
  CHECK(t.names_for(ip("198.51.100.7"), 10'000).empty());  // the floor, then gone
  t.add("long.test", pins({"198.51.100.8"}, 1'000'000), 0);
  CHECK_FALSE(t.names_for(ip("198.51.100.8"), 99'999).empty());
  CHECK(t.names_for(ip("198.51.100.8"), 100'000).empty());  // capped
  // The port of an address looked up does not matter; another address is not pinned.
  Address with_port = ip("198.51.100.8");
  with_port.port = 443;
  t.add("long.test", pins({"198.51.100.8"}, 50), 200'000);
  CHECK(t.names_for(with_port, 200'001) == std::vector<std::string>{"long.test"});
  CHECK(t.names_for(ip("198.51.100.9"), 200'001).empty());
  CHECK(t.names_for(ip("::ffff:198.51.100.8"), 200'001).empty());
}

TEST_CASE("pins: one address shared by two names gives both, in the order pinned; a refresh extends") {
  PinTable t(PinTable::Limits{10, 100, 64});
  t.add("b.test", pins({"198.51.100.1"}, 20), 0);
  t.add("a.test", pins({"198.51.100.1"}, 50), 0);
  CHECK(t.names_for(ip("198.51.100.1"), 1) == std::vector<std::string>{"b.test", "a.test"});
  CHECK(t.names_for(ip("198.51.100.1"), 30'000) == std::vector<std::string>{"a.test"});
  t.add("b.test", pins({"198.51.100.1"}, 90), 40'000);
  CHECK(t.size() == 2);
  CHECK(t.names_for(ip("198.51.100.1"), 100'000) == std::vector<std::string>{"b.test"});
}

TEST_CASE("pins: the table keeps at most max_entries, dropping those that expire first") {
  PinTable t(PinTable::Limits{1, 1000, 3});
  t.add("one.test", pins({"198.51.100.1"}, 10), 0);
  t.add("two.test", pins({"198.51.100.2"}, 30), 0);
  t.add("three.test", pins({"198.51.100.3"}, 20), 0);
  t.add("four.test", pins({"198.51.100.4"}, 40), 0);
  CHECK(t.size() == 3);
  CHECK(t.names_for(ip("198.51.100.1"), 1).empty());
  CHECK_FALSE(t.names_for(ip("198.51.100.4"), 1).empty());
}
