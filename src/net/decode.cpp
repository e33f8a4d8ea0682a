// SPDX-License-Identifier: LGPL-2.1-or-later
// sockaddr decoding with the kernel's own rules (net/socket.c, net/ipv4/{af_inet,udp,raw,
// datagram,tcp_ipv4}.c, net/ipv6/{udp,raw,datagram,tcp_ipv6}.c, net/unix/af_unix.c): which
// lengths and families each call accepts, and which it reads as another family.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ringfence/net/destination.hpp"

namespace rf::net {

using base::Result;

namespace {

constexpr int kFamilyLen = 2;                     // sizeof(sa_family_t)
constexpr int kSockaddrIn = 16;                   // sizeof(struct sockaddr_in)
constexpr int kSin6LenRfc2133 = 24;               // sockaddr_in6 before sin6_scope_id
constexpr int kSockaddrIn6 = 28;                  // sizeof(struct sockaddr_in6)
constexpr int kSockaddrUn = sizeof(sockaddr_un);  // 110
constexpr int kMaxLen = static_cast<int>(kMaxSockaddr);

static_assert(sizeof(sockaddr_storage) == kMaxSockaddr);
static_assert(sizeof(sockaddr_in) == kSockaddrIn && sizeof(sockaddr_in6) == kSockaddrIn6);

// The name after the generic syscall layer (move_addr_to_kernel, __copy_msghdr).
struct Name {
  bool present = false;
  int len = 0;
  std::span<const std::uint8_t> b;

  [[nodiscard]] int family() const {
    std::uint16_t f = 0;
    std::memcpy(&f, b.data(), sizeof f);  // callers check len >= kFamilyLen first
    return f;
  }
};

base::Error kernel_error(int code, const std::string& message) { return base::Error(code, message); }

std::string len_text(int len) { return "address length " + std::to_string(len); }

Destination none(NoDestination why) {
  Destination d;
  d.kind = DestinationKind::Unspec;
  d.none = why;
  return d;
}

Destination inet(const Address& a) {
  Destination d;
  d.kind = DestinationKind::Inet;
  d.inet = a;
  return d;
}

Address read_in(const Name& n) {
  Address a;
  a.port = static_cast<std::uint16_t>(n.b[2] << 8 | n.b[3]);
  std::copy(n.b.begin() + 4, n.b.begin() + 8, a.bytes.begin());
  return a;
}

Address read_in6(const Name& n) {
  Address a;
  a.family = Family::V6;
  a.port = static_cast<std::uint16_t>(n.b[2] << 8 | n.b[3]);
  std::copy(n.b.begin() + 8, n.b.begin() + 24, a.bytes.begin());
  if (n.len >= kSockaddrIn6) std::memcpy(&a.scope_id, n.b.data() + 24, sizeof a.scope_id);
  return a;
}

bool is_mapped(const Address& a) {
  static constexpr std::uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::equal(std::begin(kPrefix), std::end(kPrefix), a.bytes.begin());
}

Result<Name> generic_name(const RawName& raw) {
  Name n;
  switch (raw.call) {
    case Call::Connect:
      if (raw.length < 0 || raw.length > kMaxLen)
        return kernel_error(EINVAL, len_text(raw.length) + " is outside 0..128");
      if (!raw.present && raw.length > 0)
        return kernel_error(EFAULT, "NULL address with " + len_text(raw.length));
      n = {true, raw.length, {}};
      break;
    case Call::Sendto:
      if (!raw.present) return n;
      if (raw.length < 0 || raw.length > kMaxLen)
        return kernel_error(EINVAL, len_text(raw.length) + " is outside 0..128");
      n = {true, raw.length, {}};
      break;
    case Call::Sendmsg:
      // __copy_msghdr: no name when msg_name is NULL or msg_namelen is 0; longer is clamped.
      if (!raw.present) return n;
      if (raw.length < 0) return kernel_error(EINVAL, "negative msg_namelen " + std::to_string(raw.length));
      if (raw.length == 0) return n;
      n = {true, std::min(raw.length, kMaxLen), {}};
      break;
  }
  if (raw.bytes.size() < static_cast<std::size_t>(n.len))
    return kernel_error(EFAULT, "only " + std::to_string(raw.bytes.size()) + " of " + std::to_string(n.len) +
                                    " address bytes could be read");
  n.b = raw.bytes.first(static_cast<std::size_t>(n.len));
  return n;
}

// connect() on AF_INET: __inet_stream_connect/inet_dgram_connect, then tcp_v4_connect or
// __ip4_datagram_connect (the same checks in the same order).
Result<Destination> inet4_connect(const Name& n) {
  if (n.len < kFamilyLen) return kernel_error(EINVAL, len_text(n.len) + " holds no family");
  if (n.family() == AF_UNSPEC) return none(NoDestination::Disconnect);
  if (n.len < kSockaddrIn) return kernel_error(EINVAL, len_text(n.len) + " is shorter than sockaddr_in (16)");
  if (n.family() != AF_INET)
    return kernel_error(EAFNOSUPPORT, "family " + std::to_string(n.family()) + " on an AF_INET socket");
  return inet(read_in(n));
}

// sendto/sendmsg on an AF_INET datagram socket: udp_sendmsg accepts AF_UNSPEC as AF_INET;
// raw_sendmsg accepts any family 0 and treats an empty name as none.
Result<Destination> inet4_send(const SocketInfo& s, const Name& n) {
  if (s.type == SOCK_RAW && n.len == 0) return none(NoDestination::ConnectedPeer);
  if (n.len < kSockaddrIn) return kernel_error(EINVAL, len_text(n.len) + " is shorter than sockaddr_in (16)");
  if (n.family() != AF_INET && n.family() != AF_UNSPEC)
    return kernel_error(EAFNOSUPPORT, "family " + std::to_string(n.family()) + " on an AF_INET socket");
  return inet(read_in(n));
}

// An IPv4 destination reached through a dual-stack AF_INET6 socket (sockaddr_in given).
Result<Destination> inet6_as_v4(const SocketInfo& s, const Name& n, int v6only_error) {
  if (s.v6only) return kernel_error(v6only_error, "IPv4 destination on an IPV6_V6ONLY socket");
  if (n.len < kSockaddrIn) return kernel_error(EINVAL, len_text(n.len) + " is shorter than sockaddr_in (16)");
  return inet(read_in(n));
}

Result<Destination> inet6_native(const SocketInfo& s, const Name& n) {
  Address a = read_in6(n);
  if (is_mapped(a) && s.v6only)
    return kernel_error(ENETUNREACH, "IPv4-mapped destination on an IPV6_V6ONLY socket");
  return inet(a);
}

// connect() on AF_INET6: tcp_v6_connect refuses AF_INET; ip6_datagram_connect connects a
// dual-stack socket to IPv4 with it. An IPv4-mapped destination is IPv4 unless IPV6_V6ONLY.
Result<Destination> inet6_connect(const SocketInfo& s, const Name& n) {
  if (n.len < kFamilyLen) return kernel_error(EINVAL, len_text(n.len) + " holds no family");
  if (n.family() == AF_UNSPEC) return none(NoDestination::Disconnect);
  if (s.type != SOCK_STREAM && n.family() == AF_INET) return inet6_as_v4(s, n, EAFNOSUPPORT);
  if (n.len < kSin6LenRfc2133)
    return kernel_error(EINVAL, len_text(n.len) + " is shorter than sockaddr_in6 (24 without the scope id)");
  if (n.family() != AF_INET6)
    return kernel_error(EAFNOSUPPORT, "family " + std::to_string(n.family()) + " on an AF_INET6 socket");
  return inet6_native(s, n);
}

// sendto/sendmsg on an AF_INET6 datagram socket. udpv6_sendmsg hands a sockaddr_in to the IPv4
// code, and reads AF_UNSPEC as "no address"; rawv6_sendmsg reads family 0 as AF_INET6.
Result<Destination> inet6_send(const SocketInfo& s, const Name& n) {
  if (s.type == SOCK_DGRAM) {
    if (n.len < kFamilyLen) return kernel_error(EINVAL, len_text(n.len) + " holds no family");
    switch (n.family()) {
      case AF_INET: return inet6_as_v4(s, n, ENETUNREACH);
      case AF_UNSPEC: return none(NoDestination::ConnectedPeer);
      case AF_INET6: break;
      default: return kernel_error(EINVAL, "family " + std::to_string(n.family()) + " on an AF_INET6 socket");
    }
    if (n.len < kSin6LenRfc2133)
      return kernel_error(EINVAL,
                          len_text(n.len) + " is shorter than sockaddr_in6 (24 without the scope id)");
    return inet6_native(s, n);
  }
  if (n.len < kSin6LenRfc2133)
    return kernel_error(EINVAL, len_text(n.len) + " is shorter than sockaddr_in6 (24 without the scope id)");
  if (n.family() != AF_UNSPEC && n.family() != AF_INET6)
    return kernel_error(EAFNOSUPPORT, "family " + std::to_string(n.family()) + " on an AF_INET6 socket");
  return inet6_native(s, n);
}

Result<Destination> decode_inet(const SocketInfo& s, const RawName& raw, const Name& n) {
  if (!n.present) return none(NoDestination::ConnectedPeer);
  bool v6 = s.domain == AF_INET6;
  if (raw.call != Call::Connect && s.type == SOCK_STREAM) {
    // tcp_sendmsg ignores the name unless MSG_FASTOPEN makes the send a connect.
    if (!(raw.flags & MSG_FASTOPEN)) return none(NoDestination::Ignored);
    if (n.len >= kFamilyLen && n.family() == AF_UNSPEC)
      return kernel_error(EOPNOTSUPP, "TCP Fast Open to an AF_UNSPEC address");
    RF_TRY_ASSIGN(d, v6 ? inet6_connect(s, n) : inet4_connect(n));
    d.fastopen = true;
    return d;
  }
  if (raw.call == Call::Connect) return v6 ? inet6_connect(s, n) : inet4_connect(n);
  return v6 ? inet6_send(s, n) : inet4_send(s, n);
}

// unix_validate_addr: more than the family, at most sizeof(sockaddr_un), family AF_UNIX.
Result<Destination> unix_name(const Name& n) {
  if (n.len <= kFamilyLen || n.len > kSockaddrUn)
    return kernel_error(EINVAL, len_text(n.len) + " is outside 3..110 for a unix socket");
  if (n.family() != AF_UNIX)
    return kernel_error(EINVAL, "family " + std::to_string(n.family()) + " on an AF_UNIX socket");
  Destination d;
  d.kind = DestinationKind::Unix;
  auto path = n.b.subspan(kFamilyLen);
  if (path[0] == 0) {
    d.unix_form = UnixForm::Abstract;
    d.unix_name.assign(path.begin() + 1, path.end());
  } else {
    d.unix_form = UnixForm::Path;
    d.unix_name.assign(path.begin(), std::find(path.begin(), path.end(), std::uint8_t{0}));
  }
  return d;
}

Result<Destination> decode_unix(const SocketInfo& s, const RawName& raw, const Name& n) {
  if (!n.present) return none(NoDestination::ConnectedPeer);
  bool connection = s.type == SOCK_STREAM || s.type == SOCK_SEQPACKET;
  if (raw.call == Call::Connect) {
    if (connection) return unix_name(n);
    // unix_dgram_connect: AF_UNSPEC dissolves the association.
    if (n.len < kFamilyLen) return kernel_error(EINVAL, len_text(n.len) + " holds no family");
    if (n.family() == AF_UNSPEC) return none(NoDestination::Disconnect);
    return unix_name(n);
  }
  // Stream sends refuse a name (EISCONN/EOPNOTSUPP) and seqpacket sends drop it.
  if (connection) return none(NoDestination::Ignored);
  if (n.len == 0) return none(NoDestination::ConnectedPeer);
  return unix_name(n);
}

}  // namespace

std::size_t name_copy_size(Call call, bool present, int length) {
  if (!present || length <= 0) return 0;
  if (call == Call::Sendmsg) return static_cast<std::size_t>(std::min(length, kMaxLen));
  return length > kMaxLen ? 0 : static_cast<std::size_t>(length);
}

Result<Destination> decode_destination(const SocketInfo& socket, const RawName& name) {
  RF_TRY_ASSIGN(n, generic_name(name));
  switch (socket.domain) {
    case AF_INET:
    case AF_INET6: return decode_inet(socket, name, n);
    case AF_UNIX: return decode_unix(socket, name, n);
    default: break;
  }
  if (!n.present) return none(NoDestination::ConnectedPeer);
  Destination d;
  d.kind = DestinationKind::Other;
  d.family = socket.domain;
  return d;
}

}  // namespace rf::net
