// SPDX-License-Identifier: LGPL-2.1-or-later
// libFuzzer target for the net layer. Input: 4 header bytes (socket, call, flags, length) and the
// sockaddr bytes, decoded and decided; the whole input is also parsed as a rule and a policy.
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/net/decision.hpp"
#include "ringfence/net/dns.hpp"
#include "ringfence/net/hosts.hpp"
#include "ringfence/net/http_stream.hpp"

namespace {

using namespace rf::net;

constexpr int kDomains[] = {AF_INET, AF_INET6, AF_UNIX, 40 /* AF_VSOCK */};
constexpr int kTypes[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET};
constexpr Call kCalls[] = {Call::Connect, Call::Sendto, Call::Sendmsg, Call::Sendmsg};

// A policy with every kind of rule, so decisions walk every path.
const Policy& fixed_policy() {
  static const Policy p = *parse_policy(
      "deny 10.0.0.0/8\nallow 10.1.2.3:443\nallow 64:ff9b::/96\ndeny *:25\nallow [2001:db8::]/32:80-443\n"
      "deny 127.0.0.0/8\nallow unix-abstract:@/tmp/.X11-unix/X0\nresolver 169.254.169.254\ndefault deny");
  return p;
}

void check_decision(const Destination& d, const Decision& dec) {
  if ((dec.verdict == Verdict::Deny) != (dec.error != 0)) __builtin_trap();
  if (dec.rule.empty()) __builtin_trap();
  if (dec.floor && dec.verdict != Verdict::Deny) __builtin_trap();
  if (d.kind == DestinationKind::Other && dec.verdict != Verdict::Deny) __builtin_trap();
  if (d.kind == DestinationKind::Inet) {
    bool literal_floor = false;
    for (const auto& e : metadata_floor()) literal_floor = literal_floor || e.net.contains(d.inet);
    // Nothing but a resolver exemption (port 53) lets a floor address through.
    if (literal_floor && dec.verdict == Verdict::Allow && d.inet.port != 53) __builtin_trap();
  }
  auto line = format_violation_json(std::chrono::system_clock::time_point{}, 1, "connect", d, dec);
  if (line.empty() || line.front() != '{' || line.back() != '}') __builtin_trap();
  for (char c : line)
    if (static_cast<unsigned char>(c) < 0x20) __builtin_trap();
}

void check_destination(const Destination& d) {
  if (d.kind != DestinationKind::Inet) return;
  if (d.inet.family == Family::V4) {
    if (d.inet.scope_id != 0) __builtin_trap();
    if (!std::all_of(d.inet.bytes.begin() + 4, d.inet.bytes.end(), [](std::uint8_t b) { return b == 0; }))
      __builtin_trap();
  }
  for (const auto& f : alternate_forms(d.inet))
    if (f.address.port != d.inet.port) __builtin_trap();
}

void fuzz_decode(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return;
  SocketInfo s{kDomains[data[0] & 3], kTypes[(data[0] >> 2) & 3], ((data[0] >> 4) & 1) != 0};
  RawName n;
  n.call = kCalls[(data[0] >> 5) & 3];
  n.flags = (data[1] & 1) ? MSG_FASTOPEN : 0;
  n.present = (data[1] & 2) == 0;
  n.length = static_cast<std::int16_t>(data[2] | data[3] << 8);
  std::vector<std::uint8_t> bytes(data + 4, data + size);
  // Bit 2: the copy came up short (as after a fault); otherwise exactly what the supervisor copies.
  std::size_t want = name_copy_size(n.call, n.present, n.length);
  if ((data[1] & 4) == 0 || bytes.size() > want) bytes.resize(want);
  n.bytes = bytes;
  auto d = decode_destination(s, n);
  if (!d) {
    if (d.error().code() == 0 || d.error().message().empty()) __builtin_trap();
    return;
  }
  check_destination(*d);
  check_decision(*d, decide(fixed_policy(), *d));
  check_decision(*d, decide(Policy{}, *d));
}

void fuzz_text(std::string_view text) {
  if (auto r = parse_rule(text)) {
    auto canonical = format_rule(*r);
    auto again = parse_rule(canonical);
    if (!again) __builtin_trap();
    if (again->verdict != r->verdict || again->kind != r->kind || again->net != r->net ||
        again->ports != r->ports || again->name != r->name)
      __builtin_trap();
    if (format_rule(*again) != canonical) __builtin_trap();
  } else if (r.error().message().empty()) {
    __builtin_trap();
  }
  if (auto p = parse_policy(text)) {
    Destination d;
    d.kind = DestinationKind::Inet;
    d.inet = Address::v4(0xa9fea9fe, 80);  // 169.254.169.254:80
    if (decide(*p, d).verdict != Verdict::Deny) __builtin_trap();
  }
}

// The egress allowlist's parsers: DNS messages (a reply built for every query must parse as a
// response with the same question), host rules, and the names in a stream's first bytes.
void fuzz_egress(std::string_view in) {
  if (auto q = rf::net::dns::parse_query(in)) {
    auto r = rf::net::dns::parse_response(rf::net::dns::reply(in, *q, rf::net::dns::kNxDomain));
    if (!r || r->name != q->name || r->id != q->id || !r->answers.empty()) __builtin_trap();
  }
  if (auto r = rf::net::dns::parse_response(in)) (void)rf::net::dns::addresses_for(*r, r->name);
  if (auto h = parse_host_rule(in)) {
    if (!name_matches(*h, h->wildcard ? "x." + h->name : h->name)) __builtin_trap();
  }
  (void)tls_server_name(in);
  (void)http_host(in);
  // The relay's request stream: fed whole or byte by byte, the same heads pass, the same bytes
  // go on, and nothing goes on that is not part of what was fed.
  rf::net::HttpRequestStream whole, bytewise;
  auto all = whole.feed(in);
  std::string forward;
  std::vector<std::string> names;
  bool refused = false;
  for (std::size_t i = 0; i < in.size() && !refused; ++i) {
    auto s = bytewise.feed(in.substr(i, 1));
    forward += s.forward;
    names.insert(names.end(), s.names.begin(), s.names.end());
    refused = !s.refusal.empty();
  }
  if (all.refusal.empty() != !refused) __builtin_trap();
  if (all.forward != forward || all.names != names) __builtin_trap();
  if (all.forward.size() > in.size() || in.substr(0, all.forward.size()) != all.forward) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_decode(data, size);
  fuzz_text(std::string_view(reinterpret_cast<const char*>(data), size));
  fuzz_egress(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
