// SPDX-License-Identifier: LGPL-2.1-or-later
// The egress allowlist's decision (see egress.hpp).
#include "ringfence/net/egress.hpp"

#include <algorithm>
#include <cerrno>

namespace rf::net {

namespace {

bool stream_port_inspected(std::uint16_t port) { return port == 443 || port == 80; }

constexpr const char* kOnlyTcp =
    "egress allowlist: only TCP leaves the sandbox (UDP reaches its own loopback and resolver only)";

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

EgressDecision refuse(std::string rule, std::string name = {}) {
  EgressDecision e;
  e.decision.verdict = Verdict::Deny;
  e.decision.error = ECONNREFUSED;
  e.decision.rule = std::move(rule);
  e.decision.name = std::move(name);
  return e;
}

}  // namespace

Address reached_ip(const Address& a) {
  for (const auto& f : alternate_forms(a))
    if (f.via == Embedding::Mapped) return f.address;
  return a;
}

bool is_loopback(const Address& address) {
  const Address a = reached_ip(address);
  const auto& b = a.bytes;
  if (a.family == Family::V4) return b[0] == 127 || a.v4_value() == 0;
  for (std::size_t i = 0; i < 15; ++i)
    if (b[i]) return false;
  return b[15] <= 1;  // :: and ::1
}

EgressDecision decide_egress(const Policy& policy, const std::vector<HostRule>& hosts, const PinTable& pins,
                             const Destination& dest, const EgressCall& call, std::int64_t now_ms) {
  const bool stream = call.stream;
  const bool datagram_connect = call.datagram_connect;
  EgressDecision e;
  e.decision = decide(policy, dest);
  if (dest.kind != DestinationKind::Inet) {
    e.route = e.decision.verdict == Verdict::Allow ? Route::Sandbox : Route::Refuse;
    return e;
  }
  const Address ip = reached_ip(dest.inet);
  if (!e.decision.by_default) {  // the floor or a rule decided
    if (e.decision.verdict == Verdict::Deny) {
      e.decision.name = joined(pins.names_for(ip, now_ms));  // an allowed name into the floor
      return e;
    }
    if (!stream && !is_loopback(ip) && !datagram_connect) return refuse(kOnlyTcp);
    if (!stream && call.shared_network && !is_loopback(ip)) {  // never routed from a namespace of its own
      e = refuse(kOnlyTcp);
      e.decision.error = ENETUNREACH;
      return e;
    }
    e.route = stream ? Route::Direct : Route::Sandbox;
    return e;
  }
  if (call.shared_network && ip.port == 53) {
    e.decision.verdict = Verdict::Allow;
    e.decision.error = 0;
    e.decision.rule = "DNS: the sandbox's resolver";
    e.route = Route::Resolver;
    return e;
  }
  if (call.shared_network && is_loopback(ip)) {
    if (!stream || !call.sandbox_server)
      return refuse(
          "egress allowlist: the host's loopback (the sandbox shares the host's network at this level)");
    e.decision.verdict = Verdict::Allow;
    e.decision.error = 0;
    e.decision.rule = "loopback: a server of the sandbox's own";
    e.route = Route::Sandbox;
    return e;
  }
  if (is_loopback(ip)) {
    e.decision.verdict = Verdict::Allow;
    e.decision.error = 0;
    e.decision.rule = "loopback: the sandbox's own";
    e.route = Route::Sandbox;
    return e;
  }
  const std::vector<std::string> pinned = pins.names_for(ip, now_ms);
  std::vector<std::string> allowed;
  for (const auto& n : pinned)
    if (host_allowed(hosts, n, ip.port)) allowed.push_back(n);
  if (allowed.empty()) {
    if (pinned.empty()) return refuse("egress allowlist: no allowed host name resolved to this address");
    return refuse(
        "egress allowlist: port " + std::to_string(ip.port) + " is not allowed for " + joined(pinned),
        joined(pinned));
  }
  if (!stream && !datagram_connect) return refuse(kOnlyTcp, joined(allowed));
  if (!stream && call.shared_network) {  // the connect sends nothing; the sends after it would
    auto r = refuse(kOnlyTcp, joined(allowed));
    r.decision.error = ENETUNREACH;
    return r;
  }
  e.decision.verdict = Verdict::Allow;
  e.decision.error = 0;
  e.decision.rule = "egress allowlist: " + joined(allowed);
  e.decision.name = joined(allowed);
  e.route = !stream ? Route::Sandbox : stream_port_inspected(ip.port) ? Route::Relay : Route::Direct;
  e.names = std::move(allowed);
  return e;
}

std::string stream_name_refusal(const std::vector<HostRule>& hosts, const PinTable& pins, const Address& dest,
                                std::string_view name, std::int64_t now_ms) {
  const Address ip = reached_ip(dest);
  if (!host_allowed(hosts, name, ip.port))
    return "egress allowlist: the stream names " + std::string(name) + ", which is not allowed on port " +
           std::to_string(ip.port);
  const auto pinned = pins.names_for(ip, now_ms);
  if (std::find(pinned.begin(), pinned.end(), name) == pinned.end())
    return "egress allowlist: the stream names " + std::string(name) +
           ", which the sandbox's resolver did not resolve to this address";
  return {};
}

}  // namespace rf::net
