// SPDX-License-Identifier: LGPL-2.1-or-later
// Unwrapping IPv4 addresses embedded in IPv6 ones, and the loopback meaning of unspecified
// destinations (the kernel routes a connect to 0.0.0.0 or :: to this host).
#include "ringfence/net/embedded.hpp"

#include <algorithm>
#include <initializer_list>

namespace rf::net {

namespace {

using Bytes = std::array<std::uint8_t, 16>;

bool starts_with(const Bytes& b, std::initializer_list<std::uint8_t> prefix) {
  return std::equal(prefix.begin(), prefix.end(), b.begin());
}

bool zero_range(const Bytes& b, int from, int to) {
  return std::all_of(b.begin() + from, b.begin() + to, [](std::uint8_t x) { return x == 0; });
}

// IPv4 from four byte positions of an IPv6 address (RFC 6052 skips bits 64..71, the "u" octet).
Address v4_at(const Address& src, std::initializer_list<int> positions, bool invert = false) {
  Address v4;
  v4.port = src.port;
  int i = 0;
  for (int pos : positions) {
    auto byte = src.bytes[pos];
    v4.bytes[i++] = invert ? static_cast<std::uint8_t>(~byte) : byte;
  }
  return v4;
}

Address loopback_like(const Address& a) {
  if (a.family == Family::V4) return Address::v4(0x7f000001, a.port);
  Bytes one{};
  one[15] = 1;
  return Address::v6(one, a.port, a.scope_id);
}

void add_nat64_local(const Address& a, std::vector<AlternateForm>& out) {
  out.push_back({Embedding::Nat64Local, v4_at(a, {6, 7, 9, 10})});     // /48
  out.push_back({Embedding::Nat64Local, v4_at(a, {7, 9, 10, 11})});    // /56
  out.push_back({Embedding::Nat64Local, v4_at(a, {9, 10, 11, 12})});   // /64
  out.push_back({Embedding::Nat64Local, v4_at(a, {12, 13, 14, 15})});  // /96
}

void add_v4_forms(const Address& a, std::vector<AlternateForm>& out) {
  const Bytes& b = a.bytes;
  bool low96_zero = zero_range(b, 0, 12);
  if (zero_range(b, 0, 10) && b[10] == 0xff && b[11] == 0xff) {
    out.push_back({Embedding::Mapped, v4_at(a, {12, 13, 14, 15})});
  } else if (zero_range(b, 0, 8) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0) {
    out.push_back({Embedding::Translated, v4_at(a, {12, 13, 14, 15})});
  } else if (low96_zero && !(zero_range(b, 12, 15) && b[15] <= 1)) {  // not :: or ::1
    out.push_back({Embedding::Compatible, v4_at(a, {12, 13, 14, 15})});
  } else if (starts_with(b, {0x00, 0x64, 0xff, 0x9b}) && zero_range(b, 4, 12)) {
    out.push_back({Embedding::Nat64, v4_at(a, {12, 13, 14, 15})});
  } else if (starts_with(b, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01})) {
    add_nat64_local(a, out);
  } else if (starts_with(b, {0x20, 0x02})) {
    out.push_back({Embedding::SixToFour, v4_at(a, {2, 3, 4, 5})});
  } else if (starts_with(b, {0x20, 0x01, 0x00, 0x00})) {
    out.push_back({Embedding::TeredoServer, v4_at(a, {4, 5, 6, 7})});
    out.push_back({Embedding::TeredoClient, v4_at(a, {12, 13, 14, 15}, true)});
  }
}

}  // namespace

std::vector<AlternateForm> alternate_forms(const Address& a) {
  std::vector<AlternateForm> out;
  bool unspecified = std::all_of(a.bytes.begin(), a.bytes.end(), [](std::uint8_t x) { return x == 0; });
  if (unspecified) {
    out.push_back({Embedding::Loopback, loopback_like(a)});
    // A dual-stack socket bound to an IPv4-mapped address sends "::" to 127.0.0.1.
    if (a.family == Family::V6) out.push_back({Embedding::Loopback, Address::v4(0x7f000001, a.port)});
    return out;
  }
  if (a.family == Family::V4) return out;
  add_v4_forms(a, out);
  // ::ffff:0.0.0.0 reaches IPv4 0.0.0.0, which is this host again.
  bool direct = !out.empty() && (out[0].via == Embedding::Mapped || out[0].via == Embedding::Translated);
  if (direct && out[0].address.v4_value() == 0)
    out.push_back({Embedding::Loopback, Address::v4(0x7f000001, a.port)});
  return out;
}

std::string_view embedding_name(Embedding e) {
  switch (e) {
    case Embedding::Mapped: return "ipv4-mapped";
    case Embedding::Translated: return "ipv4-translated";
    case Embedding::Compatible: return "ipv4-compatible";
    case Embedding::Nat64: return "nat64";
    case Embedding::Nat64Local: return "nat64-local";
    case Embedding::SixToFour: return "6to4";
    case Embedding::TeredoServer: return "teredo-server";
    case Embedding::TeredoClient: return "teredo-client";
    case Embedding::Loopback: return "loopback";
  }
  return "unknown";
}

}  // namespace rf::net
