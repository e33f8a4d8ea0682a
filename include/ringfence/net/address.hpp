// SPDX-License-Identifier: LGPL-2.1-or-later
// IP addresses, CIDR blocks and port ranges as plain values, with the strict text forms that
// network rules use ("10.0.0.0/8:80-443", "[2001:db8::]/32:443").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ringfence/base/result.hpp"

namespace rf::net {

enum class Family : std::uint8_t { V4, V6 };

// One IPv4 or IPv6 address, in network byte order, with the destination port.
struct Address {
  Family family = Family::V4;
  std::array<std::uint8_t, 16> bytes{};  // IPv4 uses bytes[0..3]; the rest stays zero
  std::uint16_t port = 0;                // host byte order
  std::uint32_t scope_id = 0;            // IPv6 interface index (sin6_scope_id), 0 for IPv4

  static Address v4(std::uint32_t host_order, std::uint16_t port = 0);
  static Address v6(const std::array<std::uint8_t, 16>& bytes, std::uint16_t port = 0,
                    std::uint32_t scope_id = 0);
  // The IPv4 address as a host-order integer (only meaningful for Family::V4).
  [[nodiscard]] std::uint32_t v4_value() const;
  // Same address bits (port and scope ignored).
  [[nodiscard]] bool same_ip(const Address& other) const;

  friend bool operator==(const Address&, const Address&) = default;
};

// An inclusive port range; a single port has first == last.
struct PortRange {
  std::uint16_t first = 0;
  std::uint16_t last = 65535;

  [[nodiscard]] bool contains(std::uint16_t port) const { return port >= first && port <= last; }
  [[nodiscard]] std::uint32_t width() const { return std::uint32_t{last} - first; }
  friend bool operator==(const PortRange&, const PortRange&) = default;
};

// A CIDR block. The base has no bits set after the prefix (parse_cidr refuses them).
struct Cidr {
  Address base;
  std::uint8_t prefix = 32;

  [[nodiscard]] bool contains(const Address& a) const;
  friend bool operator==(const Cidr&, const Cidr&) = default;
};

// An address block with optional ports, as written in a rule. `net` is empty for "*" (any
// address of either family).
struct NetTarget {
  std::optional<Cidr> net;
  std::optional<PortRange> ports;
};

// "10.1.2.3", "2001:db8::1": a bare address (no port, no brackets, no scope id).
base::Result<Address> parse_ip(std::string_view text);
// "10.0.0.0/8", "10.1.2.3" (= /32), "2001:db8::/32", "fd00:ec2::254" (= /128). An IPv4-mapped
// block (::ffff:a.b.c.d/96+n) becomes the IPv4 block a.b.c.d/n, so it also covers plain IPv4.
base::Result<Cidr> parse_cidr(std::string_view text);
// "443", "80-443".
base::Result<PortRange> parse_ports(std::string_view text);
// A CIDR block with optional ports: "10.1.2.3:443", "10.0.0.0/8:80-443", "[::1]:443",
// "[2001:db8::]/32:443", "2001:db8::/32" (an unbracketed IPv6 block takes no port), "*", "*:25".
base::Result<NetTarget> parse_net_target(std::string_view text);

// "10.1.2.3", "2001:db8::1", "::ffff:169.254.169.254", "fe80::1%2" (the scope as a number).
std::string format_ip(const Address& a);
// format_ip plus the port: "10.1.2.3:443", "[2001:db8::1]:443".
std::string format_endpoint(const Address& a);
// "10.0.0.0/8"; a single host is written without a prefix ("10.1.2.3").
std::string format_cidr(const Cidr& c);
// "443", "80-443".
std::string format_ports(const PortRange& p);
// The inverse of parse_net_target.
std::string format_net_target(const NetTarget& t);

}  // namespace rf::net
