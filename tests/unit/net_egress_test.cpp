// SPDX-License-Identifier: LGPL-2.1-or-later
// net: the egress allowlist's decision: the floor before every pin, the user's rules, the
// sandbox's own loopback, pinned names at their ports, the relay on 80 and 443, datagrams, and
// the relay's check of the name a stream gives.
#include <doctest/doctest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "ringfence/net/egress.hpp"

using namespace rf::net;

namespace {

Address ip(const char* text, std::uint16_t port) {
  Address a = *parse_ip(text);
  a.port = port;
  return a;
}

Destination to(const char* text, std::uint16_t port) {
  Destination d;
  d.kind = DestinationKind::Inet;
  d.inet = ip(text, port);
  return d;
}

struct Fixture {
  Policy policy;
  std::vector<HostRule> hosts;
  PinTable pins;
  Fixture() {
    policy.default_verdict = Verdict::Deny;
    for (const char* h : {"allowed.test", "*.cdn.test:443", "meta.test"})
      hosts.push_back(*parse_host_rule(h));
    pins.add("allowed.test", {{ip("198.51.100.10", 0), 60, ""}, {ip("2001:db8::10", 0), 60, ""}}, 0);
    pins.add("a.cdn.test", {{ip("198.51.100.30", 0), 60, ""}}, 0);
    pins.add("meta.test", {{ip("169.254.169.254", 0), 60, ""}}, 0);
    // A name the sandbox could not have resolved through its resolver, pinned only to test
    // that host rules still decide: not allowed.
    pins.add("other.test", {{ip("198.51.100.20", 0), 60, ""}}, 0);
  }
  EgressDecision at(const char* addr, std::uint16_t port, bool stream = true) {
    return decide_egress(policy, hosts, pins, to(addr, port), {.stream = stream}, 1000);
  }
};

}  // namespace

TEST_CASE("egress: pinned allowed names are reached from the host, through the relay on 80 and 443") {
  Fixture f;
  auto d = f.at("198.51.100.10", 9000);
  CHECK(d.route == Route::Direct);
  CHECK(d.decision.verdict == Verdict::Allow);
  CHECK(d.names == std::vector<std::string>{"allowed.test"});
  CHECK(f.at("198.51.100.10", 443).route == Route::Relay);
  CHECK(f.at("198.51.100.10", 80).route == Route::Relay);
  CHECK(f.at("2001:db8::10", 443).route == Route::Relay);
  // The IPv4-mapped form of a pinned address is that address.
  CHECK(f.at("::ffff:198.51.100.10", 9000).route == Route::Direct);
  // A wildcard rule with a port: only that port.
  CHECK(f.at("198.51.100.30", 443).route == Route::Relay);
  auto wrong_port = f.at("198.51.100.30", 22);
  CHECK(wrong_port.route == Route::Refuse);
  CHECK(wrong_port.decision.error == ECONNREFUSED);
  CHECK(wrong_port.decision.name == "a.cdn.test");
  CHECK(wrong_port.decision.rule.find("port 22") != std::string::npos);
}

TEST_CASE("egress: addresses no allowed name resolved to are refused, the floor before every pin") {
  Fixture f;
  auto unpinned = f.at("198.51.100.99", 443);
  CHECK(unpinned.route == Route::Refuse);
  CHECK(unpinned.decision.error == ECONNREFUSED);
  CHECK(unpinned.decision.name.empty());
  auto other = f.at("198.51.100.20", 80);  // pinned, but to a name no rule allows
  CHECK(other.route == Route::Refuse);
  CHECK(other.decision.name == "other.test");
  auto meta = f.at("169.254.169.254", 80);  // an allowed name resolving into the floor
  CHECK(meta.route == Route::Refuse);
  CHECK(meta.decision.floor);
  CHECK(meta.decision.name == "meta.test");  // the log names the allowed name behind it
  CHECK(f.at("::ffff:169.254.169.254", 80).route == Route::Refuse);
  // Expired pins no longer allow anything.
  CHECK(decide_egress(f.policy, f.hosts, f.pins, to("198.51.100.10", 9000), {}, 400'000).route ==
        Route::Refuse);
}

TEST_CASE("egress: loopback stays in the sandbox; the user's rules decide first") {
  Fixture f;
  CHECK(f.at("127.0.0.1", 8080).route == Route::Sandbox);
  CHECK(f.at("127.0.0.53", 53, false).route == Route::Sandbox);
  CHECK(f.at("::1", 8080).route == Route::Sandbox);
  CHECK(f.at("0.0.0.0", 8080).route == Route::Sandbox);
  f.policy.rules.push_back(*parse_rule("allow 203.0.113.0/24:5432"));
  f.policy.rules.push_back(*parse_rule("allow 127.0.0.1:11434"));
  f.policy.rules.push_back(*parse_rule("deny 198.51.100.10:9000"));
  CHECK(f.at("203.0.113.7", 5432).route == Route::Direct);
  CHECK(f.at("203.0.113.7", 5433).route == Route::Refuse);
  CHECK(f.at("127.0.0.1", 11434).route == Route::Direct);  // named by a rule: the host's loopback
  CHECK(f.at("198.51.100.10", 9000).route == Route::Refuse);
  CHECK(f.at("198.51.100.10", 443).route == Route::Relay);
  // Datagrams leave only for the sandbox's own loopback.
  CHECK(f.at("203.0.113.7", 5432, false).route == Route::Refuse);
  auto udp = f.at("198.51.100.10", 443, false);
  CHECK(udp.route == Route::Refuse);
  CHECK(udp.decision.rule.find("only TCP") != std::string::npos);
  // A datagram connect sends nothing: to an allowed address it stays in the sandbox (where
  // nothing is routed); to any other it is refused.
  auto dc = decide_egress(f.policy, f.hosts, f.pins, to("198.51.100.10", 443),
                          {.stream = false, .datagram_connect = true}, 1000);
  CHECK(dc.route == Route::Sandbox);
  CHECK(decide_egress(f.policy, f.hosts, f.pins, to("198.51.100.99", 443),
                      {.stream = false, .datagram_connect = true}, 1000)
            .route == Route::Refuse);
  CHECK(decide_egress(f.policy, f.hosts, f.pins, to("169.254.169.254", 80),
                      {.stream = false, .datagram_connect = true}, 1000)
            .route == Route::Refuse);
}

TEST_CASE("egress: a shared network (landlock level): DNS to the resolver, the host's loopback refused") {
  Fixture f;
  auto shared = [&f](const char* addr, std::uint16_t port, bool stream = true, bool dconnect = false) {
    return decide_egress(f.policy, f.hosts, f.pins, to(addr, port),
                         {.stream = stream, .datagram_connect = dconnect, .shared_network = true}, 1000);
  };
  // Port 53 anywhere, UDP or TCP, connect or send: the launcher's resolver answers.
  CHECK(shared("198.51.100.53", 53, false).route == Route::Resolver);
  CHECK(shared("198.51.100.53", 53, true).route == Route::Resolver);
  CHECK(shared("127.0.0.53", 53, false, true).route == Route::Resolver);
  CHECK(shared("2001:db8::53", 53, false).route == Route::Resolver);
  // The floor still comes first.
  CHECK(shared("169.254.169.254", 53, false).route == Route::Refuse);
  CHECK(shared("::ffff:169.254.169.254", 53, true).route == Route::Refuse);
  // The loopback is the host's here: refused, unless a rule names it.
  for (const char* lo : {"127.0.0.1", "::1", "0.0.0.0", "::ffff:127.0.0.1", "127.1.2.3"}) {
    INFO(lo);
    auto d = shared(lo, 8080);
    CHECK(d.route == Route::Refuse);
    CHECK(d.decision.error == ECONNREFUSED);
    CHECK(shared(lo, 8080, false).route == Route::Refuse);
  }
  // A server of the sandbox's own on the loopback: its streams only.
  auto own = [&f](const char* addr, std::uint16_t port, bool stream) {
    return decide_egress(f.policy, f.hosts, f.pins, to(addr, port),
                         {.stream = stream, .shared_network = true, .sandbox_server = true}, 1000);
  };
  CHECK(own("127.0.0.1", 8080, true).route == Route::Sandbox);
  CHECK(own("127.0.0.1", 8080, false).route == Route::Refuse);
  CHECK(own("169.254.169.254", 80, true).route == Route::Refuse);  // the floor before all
  f.policy.rules.push_back(*parse_rule("allow 127.0.0.1:11434"));
  CHECK(shared("127.0.0.1", 11434).route == Route::Direct);
  // Allowed names as before; a datagram connect to them is ENETUNREACH, not performed.
  CHECK(shared("198.51.100.10", 443).route == Route::Relay);
  CHECK(shared("198.51.100.10", 9000).route == Route::Direct);
  auto dc = shared("198.51.100.10", 443, false, true);
  CHECK(dc.route == Route::Refuse);
  CHECK(dc.decision.error == ENETUNREACH);
  CHECK(shared("198.51.100.10", 443, false).route == Route::Refuse);
  CHECK(shared("198.51.100.20", 443).route == Route::Refuse);
  // Without a shared network port 53 elsewhere is only an address like any other.
  CHECK(f.at("198.51.100.53", 53, false).route == Route::Refuse);
}

TEST_CASE("egress: the relay takes only an allowed name pinned to the very address") {
  Fixture f;
  CHECK(stream_name_refusal(f.hosts, f.pins, ip("198.51.100.10", 443), "allowed.test", 1000).empty());
  CHECK(stream_name_refusal(f.hosts, f.pins, ip("::ffff:198.51.100.10", 443), "allowed.test", 1000).empty());
  // Fronting: the address is allowed.test's, the name another.
  CHECK_FALSE(stream_name_refusal(f.hosts, f.pins, ip("198.51.100.10", 443), "other.test", 1000).empty());
  // An allowed name, but not at this address.
  CHECK_FALSE(stream_name_refusal(f.hosts, f.pins, ip("198.51.100.30", 443), "allowed.test", 1000).empty());
  // An allowed name at its address, but not on this port.
  CHECK_FALSE(stream_name_refusal(f.hosts, f.pins, ip("198.51.100.30", 80), "a.cdn.test", 1000).empty());
}
