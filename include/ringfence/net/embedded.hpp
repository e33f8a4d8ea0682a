// SPDX-License-Identifier: LGPL-2.1-or-later
// The other addresses an IPv6 (or unspecified) destination really reaches: IPv4 embedded by
// mapping, translation, NAT64, 6to4 or Teredo, and the loopback that "0.0.0.0" and "::" mean.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ringfence/net/address.hpp"

namespace rf::net {

enum class Embedding : std::uint8_t {
  Mapped,        // ::ffff:a.b.c.d (RFC 4291): the kernel sends IPv4
  Translated,    // ::ffff:0:a.b.c.d (RFC 2765 SIIT)
  Compatible,    // ::a.b.c.d (RFC 4291, deprecated), not :: or ::1
  Nat64,         // 64:ff9b::a.b.c.d (RFC 6052 well-known prefix)
  Nat64Local,    // 64:ff9b:1::/48 (RFC 8215): every RFC 6052 layout that fits in it
  SixToFour,     // 2002:AABB:CCDD::/48 (RFC 3056): the relay's IPv4
  TeredoServer,  // 2001:0:AABB:CCDD:: (RFC 4380): the Teredo server
  TeredoClient,  // 2001:0:...:~AABB:~CCDD: the client's public IPv4, stored inverted
  Loopback,      // 0.0.0.0, ::, ::ffff:0.0.0.0 connect to this host
};

// A form the destination also denotes. `address` keeps the destination's port.
struct AlternateForm {
  Embedding via;
  Address address;
};

// Every other form of `a`, in the order of the enum; empty when it has none. An embedded
// 0.0.0.0 from mapping or translation also yields its loopback. 64:ff9b:1::/48 yields one IPv4
// for each prefix length an operator may use there (/48, /56, /64, /96): the address cannot say
// which, so a policy must accept them all.
std::vector<AlternateForm> alternate_forms(const Address& a);

// "ipv4-mapped", "nat64", "teredo-client", ...
std::string_view embedding_name(Embedding e);

}  // namespace rf::net
