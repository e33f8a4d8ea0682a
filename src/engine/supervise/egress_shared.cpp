// SPDX-License-Identifier: LGPL-2.1-or-later
// The egress allowlist on a shared network (spec::ConnectPolicy::shared_network: the landlock
// and soft levels, no network namespace of the sandbox's own): the launcher's resolver on its
// own loopback, the name DNS is rewritten to, and the sandbox's own servers, which its loopback
// connects may reach.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <array>
#include <cstring>
#include <string>
#include <string_view>

#include "egress.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::engine {

// The shared network's resolver: UDP and TCP on 127.0.0.1, one port for both.
base::Status Egress::start_shared_resolver() {
  for (int attempt = 0; attempt < 16; ++attempt) {
    base::UniqueFd udp(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    base::UniqueFd tcp(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!udp.valid() || !tcp.valid()) return base::errno_error("egress allowlist: the resolver's socket");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(udp.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      return base::errno_error("egress allowlist: binding the resolver to 127.0.0.1");
    socklen_t len = sizeof a;
    if (::getsockname(udp.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return base::errno_error("egress allowlist: the resolver's address");
    if (::bind(tcp.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      if (errno == EADDRINUSE) continue;  // the port is taken for TCP: another pair
      return base::errno_error("egress allowlist: binding the resolver's TCP socket to 127.0.0.1");
    }
    if (::listen(tcp.get(), 64) != 0) return base::errno_error("egress allowlist: the resolver's listen");
    resolver_port_ = ntohs(a.sin_port);
    return start_resolver(std::move(udp), std::move(tcp));
  }
  return base::Error(EADDRINUSE, "egress allowlist: no port on 127.0.0.1 free for both UDP and TCP");
}

int Egress::resolver_name(int domain, bool v6only, sockaddr_storage& out, socklen_t& len) const {
  out = {};
  if (domain == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&out);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a->sin_port = htons(resolver_port_);
    len = sizeof *a;
    return 0;
  }
  if (domain != AF_INET6 || v6only) return ECONNREFUSED;  // the resolver has no IPv6 address
  auto* a = reinterpret_cast<sockaddr_in6*>(&out);
  a->sin6_family = AF_INET6;
  a->sin6_addr.s6_addr[10] = a->sin6_addr.s6_addr[11] = 0xff;
  a->sin6_addr.s6_addr[12] = 127;
  a->sin6_addr.s6_addr[15] = 1;
  a->sin6_port = htons(resolver_port_);
  len = sizeof *a;
  return 0;
}

bool Egress::is_resolver(const net::Destination& d) const {
  if (d.kind != net::DestinationKind::Inet) return false;
  if (!shared_) return d.inet.port == 53 && net::format_ip(d.inet) == spec::kSandboxResolver;
  const net::Address ip = net::reached_ip(d.inet);
  return ip.port == resolver_port_ && ip.family == net::Family::V4 && ip.v4_value() == INADDR_LOOPBACK;
}

void Egress::note_listener(int sock) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  struct stat st {};
  if (::getsockname(sock, reinterpret_cast<sockaddr*>(&ss), &len) != 0 || ::fstat(sock, &st) != 0) return;
  net::Address a;
  if (ss.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
    a = net::Address::v4(ntohl(in->sin_addr.s_addr), ntohs(in->sin_port));
  } else if (ss.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    std::array<std::uint8_t, 16> b{};
    std::memcpy(b.data(), &in6->sin6_addr, 16);
    a = net::reached_ip(net::Address::v6(b, ntohs(in6->sin6_port)));
  } else {
    return;
  }
  std::lock_guard lock(mu_);
  if (listeners_.size() >= 4096) listeners_.erase(listeners_.begin(), listeners_.begin() + 2048);
  listeners_.emplace_back(a, static_cast<std::uint64_t>(st.st_ino));
}

namespace {

// The socket with inode `ino` is in the LISTEN state (/proc/net/tcp and tcp6: the fourth field
// is the state, 0A listening; the tenth the inode).
bool listening(std::uint64_t ino) {
  const std::string inode = std::to_string(ino);
  for (const char* file : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    auto text = base::read_file(file);
    if (!text) continue;
    std::size_t pos = text->find('\n');
    while (pos != std::string::npos && pos + 1 < text->size()) {
      const std::size_t next = text->find('\n', pos + 1);
      const std::string_view line(text->data() + pos + 1,
                                  (next == std::string::npos ? text->size() : next) - pos - 1);
      pos = next;
      std::string_view fields[10];
      std::size_t n = 0, i = 0;
      while (n < 10 && i < line.size()) {
        while (i < line.size() && line[i] == ' ') ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ') ++i;
        if (i > start) fields[n++] = line.substr(start, i - start);
      }
      if (n == 10 && fields[3] == "0A" && fields[9] == inode) return true;
    }
  }
  return false;
}

}  // namespace

bool Egress::sandbox_server(const net::Address& dest) const {
  const net::Address want = net::reached_ip(dest);
  std::vector<std::uint64_t> inodes;
  {
    std::lock_guard lock(mu_);
    for (const auto& [a, ino] : listeners_)
      if (a.family == want.family && a.bytes == want.bytes && a.port == want.port) inodes.push_back(ino);
  }
  for (auto ino : inodes)
    if (listening(ino)) return true;
  return false;
}

}  // namespace rf::engine
