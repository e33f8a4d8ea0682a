// SPDX-License-Identifier: LGPL-2.1-or-later
// Addresses, CIDR blocks and port ranges: strict parsing (every error names the text and says why)
// and canonical formatting.
#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "ringfence/net/address.hpp"
#include "text.hpp"

namespace rf::net {

using base::Result;

namespace {

constexpr std::array<std::uint8_t, 12> kMappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

int max_prefix(Family f) { return f == Family::V4 ? 32 : 128; }

bool is_mapped(const Address& a) {
  return a.family == Family::V6 && std::equal(kMappedPrefix.begin(), kMappedPrefix.end(), a.bytes.begin());
}

// True when every bit of `a` after `prefix` is zero.
bool host_bits_clear(const Address& a, int prefix) {
  for (int bit = prefix; bit < max_prefix(a.family); ++bit)
    if (a.bytes[bit / 8] & (0x80u >> (bit % 8))) return false;
  return true;
}

Address masked(Address a, int prefix) {
  for (int bit = prefix; bit < max_prefix(a.family); ++bit)
    a.bytes[bit / 8] = static_cast<std::uint8_t>(a.bytes[bit / 8] & ~(0x80u >> (bit % 8)));
  return a;
}

// Decimal digits only (no sign, no spaces), at most max_digits of them.
std::optional<unsigned> parse_decimal(std::string_view s, std::size_t max_digits) {
  if (s.empty() || s.size() > max_digits) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v;
}

Result<Cidr> bracketed_target(std::string_view text, std::optional<PortRange>& ports) {
  auto close = text.find(']');
  if (close == std::string_view::npos)
    return base::Error(0, "bad address " + quote(text) + ": '[' without a closing ']'");
  std::string cidr_text(text.substr(1, close - 1));
  std::string_view rest = text.substr(close + 1);
  if (!rest.empty() && rest[0] == '/') {
    if (cidr_text.find('/') != std::string::npos)
      return base::Error(0, "bad address " + quote(text) + ": two prefix lengths");
    auto colon = rest.find(':');
    cidr_text += rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon);
  }
  if (!rest.empty() && rest[0] != ':')
    return base::Error(0, "bad address " + quote(text) + ": unexpected " + quote(rest) + " after ']'");
  if (cidr_text.find(':') == std::string::npos)
    return base::Error(0, "bad address " + quote(text) + ": brackets are only for IPv6 addresses");
  RF_TRY_ASSIGN(net, parse_cidr(cidr_text));
  if (!rest.empty()) {
    RF_TRY_ASSIGN(p, parse_ports(rest.substr(1)));
    ports = p;
  }
  return net;
}

}  // namespace

Address Address::v4(std::uint32_t host_order, std::uint16_t port) {
  Address a;
  a.family = Family::V4;
  a.bytes[0] = static_cast<std::uint8_t>(host_order >> 24);
  a.bytes[1] = static_cast<std::uint8_t>(host_order >> 16);
  a.bytes[2] = static_cast<std::uint8_t>(host_order >> 8);
  a.bytes[3] = static_cast<std::uint8_t>(host_order);
  a.port = port;
  return a;
}

Address Address::v6(const std::array<std::uint8_t, 16>& bytes, std::uint16_t port, std::uint32_t scope_id) {
  Address a;
  a.family = Family::V6;
  a.bytes = bytes;
  a.port = port;
  a.scope_id = scope_id;
  return a;
}

std::uint32_t Address::v4_value() const {
  return std::uint32_t{bytes[0]} << 24 | std::uint32_t{bytes[1]} << 16 | std::uint32_t{bytes[2]} << 8 |
         bytes[3];
}

bool Address::same_ip(const Address& other) const { return family == other.family && bytes == other.bytes; }

bool Cidr::contains(const Address& a) const {
  if (a.family != base.family) return false;
  int full = prefix / 8;
  if (!std::equal(base.bytes.begin(), base.bytes.begin() + full, a.bytes.begin())) return false;
  int rest = prefix % 8;
  if (rest == 0) return true;
  auto mask = static_cast<std::uint8_t>(0xffu << (8 - rest));
  return (a.bytes[full] & mask) == base.bytes[full];
}

Result<Address> parse_ip(std::string_view text) {
  bool v6 = text.find(':') != std::string_view::npos;
  const char* what = v6 ? "IPv6" : "IPv4";
  if (text.empty()) return base::Error(0, "empty address");
  if (text.find_first_of(std::string_view("%[] \t\0", 6)) != std::string_view::npos) {
    std::string why = text.find('%') != std::string_view::npos ? "a scope id (%) is not allowed in rules"
                                                               : "unexpected character";
    return base::Error(0, std::string("bad ") + what + " address " + quote(text) + ": " + why);
  }
  std::string z(text);
  Address a;
  a.family = v6 ? Family::V6 : Family::V4;
  if (inet_pton(v6 ? AF_INET6 : AF_INET, z.c_str(), a.bytes.data()) != 1) {
    if (std::count(text.begin(), text.end(), ':') == 1)
      return base::Error(0,
                         "bad address " + quote(text) + ": not an IP address (a port is not allowed here)");
    std::string why = v6 ? "not an IPv6 address" : "expected four decimal numbers 0-255 separated by dots";
    return base::Error(0, std::string("bad ") + what + " address " + quote(text) + ": " + why);
  }
  return a;
}

Result<Cidr> parse_cidr(std::string_view text) {
  auto slash = text.find('/');
  RF_TRY_ASSIGN(addr, parse_ip(text.substr(0, slash)));
  int max = max_prefix(addr.family);
  int prefix = max;
  if (slash != std::string_view::npos) {
    auto p = parse_decimal(text.substr(slash + 1), 3);
    if (!p || static_cast<int>(*p) > max)
      return base::Error(0, "bad prefix length in " + quote(text) + ": expected 0-" + std::to_string(max));
    prefix = static_cast<int>(*p);
  }
  if (!host_bits_clear(addr, prefix))
    return base::Error(0, "bad address block " + quote(text) + ": bits are set after the /" +
                              std::to_string(prefix) + " prefix (did you mean " +
                              format_cidr(Cidr{masked(addr, prefix), static_cast<std::uint8_t>(prefix)}) +
                              "?)");
  if (is_mapped(addr) && prefix >= 96) {
    Address v4;  // Family::V4, all zero
    std::copy(addr.bytes.begin() + 12, addr.bytes.end(), v4.bytes.begin());
    return Cidr{v4, static_cast<std::uint8_t>(prefix - 96)};
  }
  return Cidr{addr, static_cast<std::uint8_t>(prefix)};
}

Result<PortRange> parse_ports(std::string_view text) {
  auto dash = text.find('-');
  auto first = parse_decimal(text.substr(0, dash), 5);
  auto last = dash == std::string_view::npos ? first : parse_decimal(text.substr(dash + 1), 5);
  if (!first || !last || *first > 65535 || *last > 65535)
    return base::Error(0, "bad port " + quote(text) + ": expected a port 0-65535 or a range like 80-443");
  if (*first > *last)
    return base::Error(0, "bad port range " + quote(text) + ": the first port is above the last");
  return PortRange{static_cast<std::uint16_t>(*first), static_cast<std::uint16_t>(*last)};
}

Result<NetTarget> parse_net_target(std::string_view text) {
  NetTarget t;
  if (text.empty()) return base::Error(0, "empty address");
  if (text == "*") return t;
  if (text.substr(0, 2) == "*:") {
    RF_TRY_ASSIGN(p, parse_ports(text.substr(2)));
    t.ports = p;
    return t;
  }
  if (text[0] == '[') {
    RF_TRY_ASSIGN(net, bracketed_target(text, t.ports));
    t.net = net;
    return t;
  }
  auto colons = std::count(text.begin(), text.end(), ':');
  std::string_view cidr_text = text;
  if (colons == 1) {
    auto colon = text.find(':');
    cidr_text = text.substr(0, colon);
    RF_TRY_ASSIGN(p, parse_ports(text.substr(colon + 1)));
    t.ports = p;
  }
  RF_TRY_ASSIGN(net, parse_cidr(cidr_text));
  t.net = net;
  return t;
}

std::string format_ip(const Address& a) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(a.family == Family::V4 ? AF_INET : AF_INET6, a.bytes.data(), buf, sizeof buf);
  std::string out(buf);
  if (a.family == Family::V6 && a.scope_id != 0) out += "%" + std::to_string(a.scope_id);
  return out;
}

std::string format_endpoint(const Address& a) {
  if (a.family == Family::V4) return format_ip(a) + ":" + std::to_string(a.port);
  return "[" + format_ip(a) + "]:" + std::to_string(a.port);
}

std::string format_cidr(const Cidr& c) {
  Address base = c.base;
  base.port = 0;
  base.scope_id = 0;
  std::string out = format_ip(base);
  if (c.prefix != max_prefix(base.family)) out += "/" + std::to_string(c.prefix);
  return out;
}

std::string format_ports(const PortRange& p) {
  if (p.first == p.last) return std::to_string(p.first);
  return std::to_string(p.first) + "-" + std::to_string(p.last);
}

std::string format_net_target(const NetTarget& t) {
  if (!t.net) return t.ports ? "*:" + format_ports(*t.ports) : "*";
  if (!t.ports) return format_cidr(*t.net);
  if (t.net->base.family == Family::V4) return format_cidr(*t.net) + ":" + format_ports(*t.ports);
  Cidr host{t.net->base, 128};
  std::string out = "[" + format_cidr(host) + "]";
  if (t.net->prefix != 128) out += "/" + std::to_string(t.net->prefix);
  return out + ":" + format_ports(*t.ports);
}

}  // namespace rf::net
