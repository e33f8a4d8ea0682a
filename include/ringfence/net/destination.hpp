// SPDX-License-Identifier: LGPL-2.1-or-later
// Decoding a socket address copied out of a target process into the destination the kernel
// would really use, or the errno the kernel itself would return for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "ringfence/base/result.hpp"
#include "ringfence/net/address.hpp"

namespace rf::net {

// sizeof(struct sockaddr_storage): the kernel never copies more of an address than this.
inline constexpr std::size_t kMaxSockaddr = 128;

enum class Call : std::uint8_t {
  Connect,
  Sendto,
  Sendmsg,  // also each entry of sendmmsg
};

// The socket, as the supervisor reads it from the target's socket (getsockopt SO_DOMAIN,
// SO_TYPE, and IPV6_V6ONLY for AF_INET6).
struct SocketInfo {
  int domain = 0;  // AF_INET, AF_INET6, AF_UNIX, ...
  int type = 0;    // SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET (without flags)
  bool v6only = false;
};

// The address argument as the target passed it.
struct RawName {
  Call call = Call::Connect;
  int flags = 0;         // the send flags (MSG_FASTOPEN matters); 0 for connect
  bool present = false;  // the pointer was not NULL (connect's addr, sendto's dest_addr, msg_name)
  int length = 0;        // addrlen / msg_namelen, truncated to int as the kernel does
  std::span<const std::uint8_t> bytes;  // the first name_copy_size() bytes, copied once
};

// How many bytes of the name the supervisor must copy from the target (0 to kMaxSockaddr).
// Copy exactly this many; decode_destination fails with EFAULT if it gets fewer.
std::size_t name_copy_size(Call call, bool present, int length);

enum class DestinationKind : std::uint8_t {
  Inet,    // an IPv4 or IPv6 destination
  Unix,    // a unix socket path or abstract name
  Unspec,  // no destination: a disconnect, the connected peer, or an address the call ignores
  Other,   // a socket family this layer does not decode
};

enum class UnixForm : std::uint8_t { Path, Abstract };

enum class NoDestination : std::uint8_t {
  Disconnect,     // connect with AF_UNSPEC dissolves the association
  ConnectedPeer,  // a send without an address goes to the connected peer (if any)
  Ignored,        // the call ignores the address (TCP without MSG_FASTOPEN, unix stream sends)
};

struct Destination {
  DestinationKind kind = DestinationKind::Unspec;
  Address inet;           // Inet: as the kernel reads it (an IPv4-mapped address stays IPv6)
  bool fastopen = false;  // Inet: a TCP Fast Open send (MSG_FASTOPEN), which connects
  UnixForm unix_form = UnixForm::Path;
  std::string unix_name;  // Unix: the path, or the abstract name without its leading NUL
  NoDestination none = NoDestination::ConnectedPeer;  // Unspec
  int family = 0;                                     // Other: the socket's domain
};

// The destination of this call, or the kernel's own error for it (Error::code() is the errno:
// EINVAL for a bad length, EAFNOSUPPORT for a mismatched family, ENETUNREACH for IPv4 on an
// IPV6_V6ONLY socket, EOPNOTSUPP for Fast Open with AF_UNSPEC, EFAULT when bytes is short).
// Where socket types differ the decoding errs towards a destination: on an AF_INET datagram
// socket AF_UNSPEC is read as AF_INET (as UDP and raw sockets do).
base::Result<Destination> decode_destination(const SocketInfo& socket, const RawName& name);

}  // namespace rf::net
