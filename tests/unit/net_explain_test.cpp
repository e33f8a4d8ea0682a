// SPDX-License-Identifier: LGPL-2.1-or-later
// net: the violation log explained: each class of refusal names the flag that allows it (or
// says nothing does), and lines that are no denial are not explained.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "ringfence/net/decision.hpp"
#include "ringfence/net/explain.hpp"

using namespace rf::net;

namespace {

std::string line(const char* addr, std::uint16_t port, std::string rule, std::string name = {},
                 const char* call = "connect") {
  Destination d;
  d.kind = DestinationKind::Inet;
  d.inet = *parse_ip(addr);
  d.inet.port = port;
  Decision dec;
  dec.error = 111;
  dec.rule = std::move(rule);
  dec.name = std::move(name);
  return format_violation_json(std::chrono::system_clock::now(), 42, call, d, dec);
}

std::string explained(const std::string& l) {
  auto e = explain_violation(l);
  REQUIRE(e);
  return explanation_line(*e);
}

}  // namespace

TEST_CASE("explain: every class names what was refused and the flag that allows it") {
  CHECK(explained(
            line("203.0.113.5", 443, "egress allowlist: no allowed host name resolved to this address")) ==
        "refused connect to 203.0.113.5:443 (not in --allow-host: no allowed name resolved to it); to allow: "
        "--allow-host NAME (the host's name), or --allow-net 203.0.113.5:443");
  CHECK(explained(line("198.51.100.10", 80, "egress allowlist: port 80 is not allowed for a.test,b.test",
                       "a.test,b.test"))
            .find("to allow: --allow-host a.test:80") != std::string::npos);
  CHECK(explained(line("198.51.100.10", 443,
                       "egress allowlist: the stream names other.test, which is not allowed on port 443"))
            .find("to allow: --allow-host other.test") != std::string::npos);
  CHECK(explained(line("2001:db8::1", 9000, "deny *"))
            .find("[2001:db8::1]:9000 (the network is off); to allow: --network on") != std::string::npos);
  CHECK(explained(line("203.0.113.9", 80, "deny 203.0.113.0/24")).find("remove that rule") !=
        std::string::npos);
  CHECK(
      explained(
          line("127.0.0.1", 8080,
               "egress allowlist: the host's loopback (the sandbox shares the host's network at this level)"))
          .find("to allow: --allow-net 127.0.0.1:8080") != std::string::npos);
  CHECK(explained(line("198.51.100.10", 53, "egress allowlist: only TCP leaves the sandbox (UDP reaches ...)",
                       "", "sendto"))
            .find("refused sendto to 198.51.100.10:53 (UDP") != std::string::npos);
  CHECK(explained(line("127.0.0.1", 80,
                       "listen policy: bind to an address other than loopback (--allow-listen allows it)", "",
                       "bind"))
            .find("to allow: --allow-listen") != std::string::npos);
  // The floor: nothing allows it, and the name that led there is said.
  const std::string floor = explained(line(
      "169.254.169.254", 80, "metadata floor: 169.254.0.0/16 (link-local, cloud metadata)", "meta.test"));
  CHECK(floor.find("though meta.test resolved to it") != std::string::npos);
  CHECK(floor.find("nothing allows it") != std::string::npos);
  CHECK(floor.find("to allow") == std::string::npos);
  // A refused lookup.
  const std::string dns = format_dns_violation_json(std::chrono::system_clock::now(), 7, "x.evil.test", "TXT",
                                                    "egress allowlist: not an allowed name");
  CHECK(explained(dns) ==
        "refused the lookup of x.evil.test (TXT: not in --allow-host); to allow: --allow-host x.evil.test");
  // One kind per class: the hint is shown once per kind.
  CHECK(explain_violation(line("203.0.113.5", 443, "deny *"))->kind ==
        explain_violation(line("198.51.100.7", 80, "deny *"))->kind);
  CHECK(explain_violation(line("203.0.113.5", 443, "deny *"))->kind !=
        explain_violation(line("203.0.113.5", 443, "deny 203.0.113.0/24"))->kind);
}

TEST_CASE("explain: lines that are no denial, and text that is no log line, are not explained") {
  CHECK_FALSE(explain_violation(format_log_limit_json(std::chrono::system_clock::now(), 1024)));
  CHECK_FALSE(explain_violation("not json"));
  CHECK_FALSE(explain_violation("[1,2]"));
  CHECK_FALSE(explain_violation("{\"action\":\"allow\",\"rule\":\"x\"}"));
  // An unknown rule is still said as it is.
  CHECK(explained("{\"action\":\"deny\",\"syscall\":\"connect\",\"rule\":\"something new\"}") ==
        "refused connect to an address (something new)");
}
