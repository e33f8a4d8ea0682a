// SPDX-License-Identifier: LGPL-2.1-or-later
// net: decode_destination against the kernel's rules: lengths, families, AF_UNSPEC on each
// socket type, IPv4 through dual-stack sockets, IPV6_V6ONLY, unix names, Fast Open, sendmsg.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "ringfence/net/destination.hpp"

using namespace rf::net;

namespace {

using Bytes = std::vector<std::uint8_t>;

template <typename T>
Bytes bytes_of(const T& s) {
  Bytes b(sizeof s);
  std::memcpy(b.data(), &s, sizeof s);
  return b;
}

Bytes sin4(const char* ip, std::uint16_t port, sa_family_t family = AF_INET) {
  sockaddr_in s{};
  s.sin_family = family;
  s.sin_port = htons(port);
  REQUIRE(inet_pton(AF_INET, ip, &s.sin_addr) == 1);
  return bytes_of(s);
}

Bytes sin6(const char* ip, std::uint16_t port, std::uint32_t scope = 0, sa_family_t family = AF_INET6) {
  sockaddr_in6 s{};
  s.sin6_family = family;
  s.sin6_port = htons(port);
  s.sin6_scope_id = scope;
  REQUIRE(inet_pton(AF_INET6, ip, &s.sin6_addr) == 1);
  return bytes_of(s);
}

// A sockaddr_un of `len` bytes holding `path` (abstract when it starts with NUL).
Bytes sun(const std::string& path, int len = -1, sa_family_t family = AF_UNIX) {
  sockaddr_un s{};
  s.sun_family = family;
  std::memcpy(s.sun_path, path.data(), std::min(path.size(), sizeof s.sun_path));
  Bytes b = bytes_of(s);
  b.resize(len < 0 ? offsetof(sockaddr_un, sun_path) + path.size() : static_cast<std::size_t>(len));
  return b;
}

struct Call_ {
  int domain = AF_INET;
  int type = SOCK_STREAM;
  Call call = Call::Connect;
  int flags = 0;
  bool v6only = false;
};

// `len` defaults to the size of the bytes.
rf::base::Result<Destination> decode(const Call_& c, const Bytes& b, std::optional<int> len = std::nullopt,
                                     bool present = true) {
  RawName n;
  n.call = c.call;
  n.flags = c.flags;
  n.present = present;
  n.length = len.value_or(static_cast<int>(b.size()));
  Bytes copy = b;
  copy.resize(name_copy_size(n.call, n.present, n.length));
  n.bytes = copy;
  return decode_destination(SocketInfo{c.domain, c.type, c.v6only}, n);
}

int error_of(const rf::base::Result<Destination>& r) {
  REQUIRE_FALSE(r);
  CHECK_FALSE(r.error().message().empty());
  return r.error().code();
}

std::string inet_of(const rf::base::Result<Destination>& r) {
  REQUIRE_MESSAGE(r, r.error().message());
  REQUIRE(r->kind == DestinationKind::Inet);
  return format_endpoint(r->inet);
}

NoDestination none_of(const rf::base::Result<Destination>& r) {
  REQUIRE_MESSAGE(r, r.error().message());
  REQUIRE(r->kind == DestinationKind::Unspec);
  return r->none;
}

const Call_ kTcp4{AF_INET, SOCK_STREAM, Call::Connect};
const Call_ kUdp4Send{AF_INET, SOCK_DGRAM, Call::Sendto};
const Call_ kTcp6{AF_INET6, SOCK_STREAM, Call::Connect};
const Call_ kUdp6Send{AF_INET6, SOCK_DGRAM, Call::Sendto};

}  // namespace

TEST_CASE("name_copy_size follows move_addr_to_kernel and __copy_msghdr") {
  CHECK(name_copy_size(Call::Connect, true, 16) == 16);
  CHECK(name_copy_size(Call::Connect, true, 129) == 0);
  CHECK(name_copy_size(Call::Connect, true, -1) == 0);
  CHECK(name_copy_size(Call::Sendto, false, 16) == 0);
  CHECK(name_copy_size(Call::Sendmsg, true, 4096) == 128);
  CHECK(name_copy_size(Call::Sendmsg, false, 16) == 0);
}

TEST_CASE("AF_INET connect: lengths, families, AF_UNSPEC disconnects") {
  CHECK(inet_of(decode(kTcp4, sin4("169.254.169.254", 80))) == "169.254.169.254:80");
  CHECK(error_of(decode(kTcp4, sin4("1.2.3.4", 80), 15)) == EINVAL);
  CHECK(error_of(decode(kTcp4, sin4("1.2.3.4", 80), 1)) == EINVAL);
  CHECK(error_of(decode(kTcp4, sin4("1.2.3.4", 80), 0)) == EINVAL);
  CHECK(error_of(decode(kTcp4, sin4("1.2.3.4", 80, AF_INET6))) == EAFNOSUPPORT);
  CHECK(none_of(decode(kTcp4, sin4("169.254.169.254", 80, AF_UNSPEC))) == NoDestination::Disconnect);
  CHECK(none_of(decode(kTcp4, sin4("1.2.3.4", 80, AF_UNSPEC), 2)) == NoDestination::Disconnect);
  // Longer than the struct is fine up to sockaddr_storage; beyond it the syscall refuses.
  Bytes big = sin4("1.2.3.4", 80);
  big.resize(128, 0xee);
  CHECK(inet_of(decode(kTcp4, big)) == "1.2.3.4:80");
  big.resize(129, 0xee);
  CHECK(error_of(decode(kTcp4, big)) == EINVAL);
  CHECK(error_of(decode(kTcp4, sin4("1.2.3.4", 80), -5)) == EINVAL);
  CHECK(error_of(decode(kTcp4, {}, 16, false)) == EFAULT);  // NULL pointer with a length
  Call_ udp = kTcp4;
  udp.type = SOCK_DGRAM;
  CHECK(none_of(decode(udp, sin4("169.254.169.254", 53, AF_UNSPEC))) == NoDestination::Disconnect);
  CHECK(error_of(decode(udp, sin4("1.2.3.4", 53, AF_UNIX))) == EAFNOSUPPORT);
}

TEST_CASE("AF_INET sendto: UDP reads AF_UNSPEC as AF_INET, TCP ignores the address") {
  // The AF_UNSPEC trick: udp_sendmsg sends to the address anyway.
  CHECK(inet_of(decode(kUdp4Send, sin4("169.254.169.254", 80, AF_UNSPEC))) == "169.254.169.254:80");
  CHECK(inet_of(decode(kUdp4Send, sin4("169.254.169.253", 53))) == "169.254.169.253:53");
  CHECK(error_of(decode(kUdp4Send, sin4("1.2.3.4", 53), 8)) == EINVAL);
  CHECK(error_of(decode(kUdp4Send, sin4("1.2.3.4", 53), 0)) == EINVAL);  // non-NULL, length 0
  CHECK(error_of(decode(kUdp4Send, sin4("1.2.3.4", 53, AF_INET6))) == EAFNOSUPPORT);
  CHECK(none_of(decode(kUdp4Send, {}, 0, false)) == NoDestination::ConnectedPeer);
  Call_ raw = kUdp4Send;
  raw.type = SOCK_RAW;
  CHECK(inet_of(decode(raw, sin4("169.254.169.254", 0, AF_UNSPEC))) == "169.254.169.254:0");
  CHECK(none_of(decode(raw, sin4("1.2.3.4", 0), 0)) == NoDestination::ConnectedPeer);

  Call_ tcp_send = kTcp4;
  tcp_send.call = Call::Sendto;
  CHECK(none_of(decode(tcp_send, sin4("169.254.169.254", 80))) == NoDestination::Ignored);
  CHECK(none_of(decode(tcp_send, sin4("1.2.3.4", 80), 3)) == NoDestination::Ignored);
}

TEST_CASE("TCP Fast Open sends are connects") {
  Call_ tfo{AF_INET, SOCK_STREAM, Call::Sendto, MSG_FASTOPEN};
  auto d = decode(tfo, sin4("169.254.169.254", 80));
  CHECK(inet_of(d) == "169.254.169.254:80");
  CHECK(d->fastopen);
  CHECK(error_of(decode(tfo, sin4("1.2.3.4", 80, AF_UNSPEC))) == EOPNOTSUPP);
  CHECK(error_of(decode(tfo, sin4("1.2.3.4", 80), 1)) == EINVAL);
  Call_ tfo6{AF_INET6, SOCK_STREAM, Call::Sendmsg, MSG_FASTOPEN | MSG_DONTWAIT};
  d = decode(tfo6, sin6("::ffff:169.254.169.254", 80));
  CHECK(inet_of(d) == "[::ffff:169.254.169.254]:80");
  CHECK(d->fastopen);
}

TEST_CASE("AF_INET6 connect: lengths, families, mapped addresses and V6ONLY") {
  CHECK(inet_of(decode(kTcp6, sin6("fd00:ec2::254", 80))) == "[fd00:ec2::254]:80");
  CHECK(inet_of(decode(kTcp6, sin6("fd00:ec2::254", 80), 24)) == "[fd00:ec2::254]:80");  // RFC 2133 size
  CHECK(error_of(decode(kTcp6, sin6("fd00:ec2::254", 80), 23)) == EINVAL);
  auto scoped = decode(kTcp6, sin6("fe80::1", 80, 7));
  CHECK(inet_of(scoped) == "[fe80::1%7]:80");
  CHECK(inet_of(decode(kTcp6, sin6("fe80::1", 80, 7), 24)) == "[fe80::1]:80");  // no room for the scope
  // A sockaddr_in6 labelled AF_INET: TCP refuses it.
  CHECK(error_of(decode(kTcp6, sin6("::1", 80, 0, AF_INET))) == EAFNOSUPPORT);
  CHECK(error_of(decode(kTcp6, sin4("169.254.169.254", 80))) == EINVAL);  // 16 < 24
  CHECK(none_of(decode(kTcp6, sin6("::1", 80, 0, AF_UNSPEC))) == NoDestination::Disconnect);
  CHECK(inet_of(decode(kTcp6, sin6("::ffff:169.254.169.254", 80))) == "[::ffff:169.254.169.254]:80");
  Call_ v6only = kTcp6;
  v6only.v6only = true;
  CHECK(error_of(decode(v6only, sin6("::ffff:169.254.169.254", 80))) == ENETUNREACH);
  CHECK(inet_of(decode(v6only, sin6("2001:db8::1", 443))) == "[2001:db8::1]:443");
}

TEST_CASE("AF_INET6 datagram connect: a sockaddr_in connects a dual-stack socket to IPv4") {
  Call_ udp6{AF_INET6, SOCK_DGRAM, Call::Connect};
  CHECK(inet_of(decode(udp6, sin4("169.254.169.254", 53))) == "169.254.169.254:53");
  CHECK(error_of(decode(udp6, sin4("169.254.169.254", 53), 12)) == EINVAL);
  udp6.v6only = true;
  CHECK(error_of(decode(udp6, sin4("169.254.169.254", 53))) == EAFNOSUPPORT);
  CHECK(error_of(decode(udp6, sin6("::ffff:1.2.3.4", 53))) == ENETUNREACH);
}

TEST_CASE("AF_INET6 UDP sendto: AF_INET is IPv4, AF_UNSPEC is no address, others EINVAL") {
  CHECK(inet_of(decode(kUdp6Send, sin4("169.254.169.254", 80))) == "169.254.169.254:80");
  CHECK(error_of(decode(kUdp6Send, sin4("169.254.169.254", 80), 15)) == EINVAL);
  CHECK(none_of(decode(kUdp6Send, sin6("fd00:ec2::254", 80, 0, AF_UNSPEC))) == NoDestination::ConnectedPeer);
  CHECK(error_of(decode(kUdp6Send, sin6("::1", 80, 0, AF_UNIX))) == EINVAL);
  CHECK(error_of(decode(kUdp6Send, sin6("::1", 80), 1)) == EINVAL);
  CHECK(error_of(decode(kUdp6Send, sin6("::1", 80), 20)) == EINVAL);
  CHECK(inet_of(decode(kUdp6Send, sin6("::ffff:169.254.169.254", 53))) == "[::ffff:169.254.169.254]:53");
  Call_ v6only = kUdp6Send;
  v6only.v6only = true;
  CHECK(error_of(decode(v6only, sin4("169.254.169.254", 80))) == ENETUNREACH);
  CHECK(error_of(decode(v6only, sin6("::ffff:169.254.169.254", 80))) == ENETUNREACH);
  // Raw IPv6 sockets read family 0 as AF_INET6.
  Call_ raw6{AF_INET6, SOCK_RAW, Call::Sendto};
  CHECK(inet_of(decode(raw6, sin6("fd00:ec2::254", 0, 0, AF_UNSPEC))) == "[fd00:ec2::254]:0");
  CHECK(error_of(decode(raw6, sin4("169.254.169.254", 0))) == EINVAL);
  CHECK(error_of(decode(raw6, sin6("::1", 0, 0, AF_INET))) == EAFNOSUPPORT);
}

TEST_CASE("sendmsg: no name for NULL or length 0, long names are clamped") {
  Call_ udp{AF_INET, SOCK_DGRAM, Call::Sendmsg};
  CHECK(none_of(decode(udp, sin4("169.254.169.254", 80), 0)) == NoDestination::ConnectedPeer);
  CHECK(none_of(decode(udp, sin4("169.254.169.254", 80), 16, false)) == NoDestination::ConnectedPeer);
  Bytes big = sin4("169.254.169.254", 80);
  big.resize(128);
  CHECK(inet_of(decode(udp, big, 100000)) == "169.254.169.254:80");
  CHECK(error_of(decode(udp, big, -1 - 0x7fffffff)) == EINVAL);
  // The supervisor could not read the bytes: the kernel would fault too.
  RawName n;
  n.call = Call::Sendmsg;
  n.present = true;
  n.length = 16;
  Bytes part = sin4("1.2.3.4", 80);
  part.resize(8);
  n.bytes = part;
  auto r = decode_destination(SocketInfo{AF_INET, SOCK_DGRAM, false}, n);
  CHECK(error_of(r) == EFAULT);
}

TEST_CASE("AF_UNIX: paths, abstract names, lengths, AF_UNSPEC, stream sends") {
  Call_ stream{AF_UNIX, SOCK_STREAM, Call::Connect};
  auto d = decode(stream, sun("/run/user/1000/bus"));
  REQUIRE(d);
  CHECK(d->kind == DestinationKind::Unix);
  CHECK(d->unix_form == UnixForm::Path);
  CHECK(d->unix_name == "/run/user/1000/bus");
  // sizeof(sockaddr_un) as the length: the path ends at its NUL.
  d = decode(stream, sun("/tmp/sock", sizeof(sockaddr_un)));
  REQUIRE(d);
  CHECK(d->unix_name == "/tmp/sock");
  // Abstract: everything after the leading NUL up to the length, NULs included.
  d = decode(stream, sun(std::string("\0/tmp/.X11-unix/X0", 18)));
  REQUIRE(d);
  CHECK(d->unix_form == UnixForm::Abstract);
  CHECK(d->unix_name == "/tmp/.X11-unix/X0");
  d = decode(stream, sun(std::string("\0x", 2), 6));
  REQUIRE(d);
  CHECK(d->unix_name == std::string("x\0\0", 3));
  d = decode(stream, sun(std::string("\0", 1)));
  REQUIRE(d);
  CHECK(d->unix_name.empty());
  // Unnamed (the family alone), too long, or the wrong family: EINVAL.
  CHECK(error_of(decode(stream, sun(""), 2)) == EINVAL);
  CHECK(error_of(decode(stream, sun("/x"), 111)) == EINVAL);
  CHECK(error_of(decode(stream, sun("/x", -1, AF_INET))) == EINVAL);
  CHECK(error_of(decode(stream, sun("/x", -1, AF_UNSPEC))) == EINVAL);

  Call_ dgram{AF_UNIX, SOCK_DGRAM, Call::Connect};
  CHECK(none_of(decode(dgram, sun("/x", -1, AF_UNSPEC))) == NoDestination::Disconnect);
  CHECK(error_of(decode(dgram, sun("/x"), 1)) == EINVAL);
  dgram.call = Call::Sendto;
  CHECK(decode(dgram, sun(std::string("\0canary", 7)))->unix_name == "canary");
  CHECK(none_of(decode(dgram, sun("/x"), 0)) == NoDestination::ConnectedPeer);
  CHECK(error_of(decode(dgram, sun("/x", -1, AF_UNSPEC))) == EINVAL);

  Call_ stream_send{AF_UNIX, SOCK_STREAM, Call::Sendto};
  CHECK(none_of(decode(stream_send, sun(std::string("\0canary", 7)))) == NoDestination::Ignored);
  Call_ seqpacket{AF_UNIX, SOCK_SEQPACKET, Call::Sendmsg};
  CHECK(none_of(decode(seqpacket, sun(std::string("\0canary", 7)))) == NoDestination::Ignored);
  seqpacket.call = Call::Connect;
  CHECK(decode(seqpacket, sun(std::string("\0canary", 7)))->unix_form == UnixForm::Abstract);
}

TEST_CASE("other socket families are reported, not decoded") {
  Call_ vsock{40, SOCK_STREAM, Call::Connect};  // AF_VSOCK
  Bytes b(16, 0);
  auto d = decode(vsock, b);
  REQUIRE(d);
  CHECK(d->kind == DestinationKind::Other);
  CHECK(d->family == 40);
  vsock.call = Call::Sendto;
  CHECK(none_of(decode(vsock, b, 0, false)) == NoDestination::ConnectedPeer);
}
