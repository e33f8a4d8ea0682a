// SPDX-License-Identifier: LGPL-2.1-or-later
// The allow/deny decision for one destination, and the violation log line that records it.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "ringfence/net/destination.hpp"
#include "ringfence/net/embedded.hpp"
#include "ringfence/net/policy.hpp"

namespace rf::net {

struct Decision {
  Verdict verdict = Verdict::Deny;
  int error = 0;       // 0 when allowed; the errno to return when denied
  std::string rule;    // what decided: "metadata floor: 169.254.0.0/16 (...)", a rule's text, ...
  bool floor = false;  // the metadata floor decided
  std::optional<AlternateForm> via;  // the embedded form that decided, when it was not the literal
  bool by_default = false;           // no rule matched: the policy's default verdict decided
  std::string name;                  // the egress allowlist: the host name(s) the address was pinned to
};

// Precedence, first match wins:
//  1. a resolver exemption (port 53 of exactly a Policy::resolvers address);
//  2. the metadata floor, on the literal address and every alternate form: ECONNREFUSED;
//  3. the user rules, most specific first (see docs/network-policy.md): a denying rule gives
//     ECONNREFUSED; TCP Fast Open sends that would be allowed are refused with EOPNOTSUPP;
//  4. the default verdict.
// Unix paths are allowed (the filesystem decides); abstract names need an allow rule; other
// families are denied with EAFNOSUPPORT; no destination (disconnect, connected peer) is allowed.
Decision decide(const Policy& policy, const Destination& dest);

// One JSON object on one line, without a newline:
// {"time":"2026-01-02T03:04:05.123Z","pid":42,"syscall":"connect","family":"inet",
//  "address":"169.254.169.254","port":80,"rule":"metadata floor: ...","action":"deny",
//  "errno":"ECONNREFUSED"}
// plus "embedded":{"form":"nat64","address":"..."} when an alternate form decided, "name" when
// the egress allowlist knows the host name the address was asked for, and
// "address_hex" when a unix name is not valid UTF-8 (the "address" then has U+FFFD in it).
std::string format_violation_json(std::chrono::system_clock::time_point time, int pid,
                                  std::string_view syscall, const Destination& dest,
                                  const Decision& decision);

// A lookup the sandbox's resolver refused under the egress allowlist:
// {"time":"...","pid":42,"syscall":"dns","name":"secret.example","query_type":"TXT",
//  "rule":"...","action":"deny"} ("pid" only when the asking process is known).
std::string format_dns_violation_json(std::chrono::system_clock::time_point time, int pid,
                                      std::string_view name, std::string_view query_type,
                                      std::string_view rule);

// The line that ends a run's part of the violation log when it reaches its size limit:
// {"time":"...","action":"log-limit","limit_bytes":2097152,"message":"..."}; later denials
// of the run are counted, not logged.
std::string format_log_limit_json(std::chrono::system_clock::time_point time, std::size_t limit_bytes);

}  // namespace rf::net
