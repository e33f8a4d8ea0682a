// SPDX-License-Identifier: LGPL-2.1-or-later
// The network connect policy as data: user rules ("allow 10.1.2.3:443", "deny 10.0.0.0/8",
// "allow unix-abstract:@/tmp/.X11-unix/X0"), a default verdict, and the metadata floor.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/net/address.hpp"

namespace rf::net {

enum class Verdict : std::uint8_t { Allow, Deny };

enum class RuleKind : std::uint8_t {
  Inet,          // an IPv4/IPv6 block (or any address: "*") with optional ports
  UnixAbstract,  // an abstract unix socket name (or any: "unix-abstract:*")
};

struct Rule {
  Verdict verdict = Verdict::Deny;
  RuleKind kind = RuleKind::Inet;
  std::optional<Cidr> net;          // Inet: empty for "*" (any address of either family)
  std::optional<PortRange> ports;   // Inet: empty for every port
  std::optional<std::string> name;  // UnixAbstract: the name without the leading NUL; empty for "*"
  std::string text;                 // the rule as written (trimmed), for messages and logs
};

// The policy decide() applies. The metadata floor is not part of it: decide() always applies
// it first, so no policy value can switch it off.
struct Policy {
  std::vector<Rule> rules;
  Verdict default_verdict = Verdict::Allow;  // for IP destinations no rule matches
  // DNS resolvers that sit inside the floor (GCE: 169.254.169.254, AWS: 169.254.169.253 and
  // fd00:ec2::253, Azure: 168.63.129.16): only port 53 of exactly this address is let through.
  std::vector<Address> resolvers;
};

// One entry of the metadata floor: always denied with ECONNREFUSED, in every embedded form.
struct FloorEntry {
  Cidr net;
  std::string_view reason;
};

// The floor, in a fixed order (the first match is reported).
std::span<const FloorEntry> metadata_floor();

// "allow TARGET" or "deny TARGET". TARGET is one of
//   10.0.0.0/8, 10.1.2.3:443, 10.0.0.0/8:80-443, 2001:db8::/32, [::1]:443, [2001:db8::]/32:443,
//   * or *:PORTS (any address),
//   unix-abstract:@NAME (NAME after '@' is the abstract name; \\ and \xNN escape bytes),
//   unix-abstract:* (every abstract name).
base::Result<Rule> parse_rule(std::string_view text);

// One directive per line; blank lines and lines starting with '#' are ignored:
//   allow TARGET | deny TARGET   a rule (parse_rule)
//   default allow | default deny the verdict when no rule matches (once at most)
//   resolver ADDRESS             let port 53 of ADDRESS through the floor
// Errors say "line N: ...".
base::Result<Policy> parse_policy(std::string_view text);

// The canonical text of a rule; parse_rule gives the same rule back (text aside).
std::string format_rule(const Rule& r);

}  // namespace rf::net
