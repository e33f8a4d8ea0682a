// SPDX-License-Identifier: LGPL-2.1-or-later
// The egress allowlist's decision for one destination: the connect policy (the metadata floor,
// the user's rules) first, then the host rules over the addresses the sandbox's resolver pinned.
// An allowed destination also says where the connection is made: on the sandbox's own loopback,
// or by the launcher on the host's network (directly, or through the relay that reads the
// stream's first bytes: the TLS server name on port 443, the HTTP Host on port 80).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/net/decision.hpp"
#include "ringfence/net/destination.hpp"
#include "ringfence/net/hosts.hpp"
#include "ringfence/net/pins.hpp"
#include "ringfence/net/policy.hpp"

namespace rf::net {

enum class Route : std::uint8_t {
  Refuse,    // decision.error says how
  Sandbox,   // the sandbox's own network namespace (its loopback, or no destination at all)
  Direct,    // the launcher connects from the host's network and hands the socket in
  Relay,     // the same, through the relay, which checks the stream's first bytes
  Resolver,  // DNS where the sandbox shares the host's network: sent to the launcher's resolver
};

// The call being decided.
struct EgressCall {
  bool stream = true;             // a stream socket (else a datagram socket)
  bool datagram_connect = false;  // a datagram socket's connect: it sends nothing yet
  // The sandbox shares the launcher's network namespace (the landlock level): its loopback is
  // the host's, and its DNS goes wherever the host's resolv.conf says.
  bool shared_network = false;
  // Shared network: the destination is a loopback address where a socket of the sandbox's own
  // listens (the supervisor saw it listen), so the connection stays between its processes.
  bool sandbox_server = false;
};

struct EgressDecision {
  Route route = Route::Refuse;
  Decision decision;
  std::vector<std::string> names;  // Direct/Relay by the pins: the allowed names pinned to it
};

// A loopback destination: 127.0.0.0/8, ::1, the IPv4-mapped 127/8, and the unspecified
// addresses (a connect to 0.0.0.0 or :: reaches this host).
bool is_loopback(const Address& a);

// The address a connection really goes to: an IPv4-mapped IPv6 address is its IPv4 address.
Address reached_ip(const Address& a);

// Precedence, first match wins:
//  1. decide(): the metadata floor, then a rule of the policy (`allow` rules: Direct for a
//     stream socket, even for a loopback address, which is then the host's; a datagram socket
//     stays on the sandbox's loopback; `deny` rules refuse);
//  2. no rule: a loopback address stays in the sandbox (Sandbox); other destinations that
//     are not inet (unix, none) follow decide();
//  3. an address pinned to a name the host rules allow at this port: for a stream socket,
//     Relay on ports 80 and 443, else Direct; a datagram socket is refused (only the
//     sandbox's resolver is reached by UDP), except for its connect (`datagram_connect`),
//     which sends nothing: it stays in the sandbox, where nothing is routed (ENETUNREACH;
//     getaddrinfo sorts its answers that way);
//  4. anything else is refused with ECONNREFUSED, naming the pinned names where known.
// With a shared network (no network namespace of the sandbox's own), after 1: port 53 at any
// address goes to the launcher's resolver (Resolver), a loopback address is the host's and is
// refused (unless a stream connect to a server of the sandbox's own: Sandbox), and a datagram connect to an
// allowed address is refused with ENETUNREACH (nothing would be routed in a namespace of the sandbox's own
// either). `policy.default_verdict` must be Deny. The decision's `name` lists the pinned names.
EgressDecision decide_egress(const Policy& policy, const std::vector<HostRule>& hosts, const PinTable& pins,
                             const Destination& dest, const EgressCall& call, std::int64_t now_ms);

// The relay's check: `name` (from the stream) is allowed by the host rules at `dest`'s port
// and pinned to `dest`'s address now. Empty when allowed, else why not.
std::string stream_name_refusal(const std::vector<HostRule>& hosts, const PinTable& pins, const Address& dest,
                                std::string_view name, std::int64_t now_ms);

}  // namespace rf::net
