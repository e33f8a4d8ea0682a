// SPDX-License-Identifier: LGPL-2.1-or-later
// The egress allowlist in the launcher (see egress.hpp): the resolver's start, host sockets
// shaped like the target's, and the relay that checks a stream's first bytes.
#include "egress.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "ringfence/base/sys.hpp"
#include "ringfence/net/decision.hpp"
#include "ringfence/net/http_stream.hpp"

namespace rf::engine {

namespace {

constexpr int kInspectMs = 10000;               // the client names its host within this
constexpr std::size_t kInspectMax = 70 * 1024;  // a ClientHello of 64 KiB in its records
constexpr std::size_t kSpliceChunk = 1u << 16;  // the copy's buffer
constexpr int kPipeSize = 1 << 20;              // the splice's pipe, where the kernel allows it

// Options a client may set before connect that the host socket must have too: only those
// whose value differs from a fresh socket's are copied (a buffer size set by hand turns the
// kernel's autotuning off, so the defaults are never written).
struct IntOption {
  int level;
  int name;
  bool doubled;  // getsockopt reports twice what setsockopt took (SO_RCVBUF, SO_SNDBUF)
};
constexpr IntOption kIntOptions[] = {
    {SOL_SOCKET, SO_KEEPALIVE, false},       {SOL_SOCKET, SO_RCVBUF, true},
    {SOL_SOCKET, SO_SNDBUF, true},           {SOL_SOCKET, SO_PRIORITY, false},
    {SOL_SOCKET, SO_OOBINLINE, false},       {SOL_SOCKET, SO_RCVLOWAT, false},
    {IPPROTO_TCP, TCP_NODELAY, false},       {IPPROTO_TCP, TCP_KEEPIDLE, false},
    {IPPROTO_TCP, TCP_KEEPINTVL, false},     {IPPROTO_TCP, TCP_KEEPCNT, false},
    {IPPROTO_TCP, TCP_USER_TIMEOUT, false},  {IPPROTO_TCP, TCP_SYNCNT, false},
    {IPPROTO_TCP, TCP_NOTSENT_LOWAT, false}, {IPPROTO_TCP, TCP_QUICKACK, false},
};
constexpr IntOption kV4Options[] = {{IPPROTO_IP, IP_TOS, false}, {IPPROTO_IP, IP_TTL, false}};
constexpr IntOption kV6Options[] = {{IPPROTO_IPV6, IPV6_TCLASS, false},
                                    {IPPROTO_IPV6, IPV6_UNICAST_HOPS, false}};

template <typename T>
bool get_opt(int fd, int level, int name, T& value) {
  socklen_t len = sizeof value;
  return ::getsockopt(fd, level, name, &value, &len) == 0 && len == sizeof value;
}

void copy_differing(int from, int fresh, int to, const IntOption& o) {
  int want = 0, base = 0;
  if (!get_opt(from, o.level, o.name, want) || !get_opt(fresh, o.level, o.name, base) || want == base) return;
  const int value = o.doubled ? want / 2 : want;
  (void)::setsockopt(to, o.level, o.name, &value, sizeof value);
}

template <typename T>
void copy_struct(int from, int fresh, int to, int level, int name) {
  T want{}, base{};
  if (!get_opt(from, level, name, want) || !get_opt(fresh, level, name, base)) return;
  if (std::memcmp(&want, &base, sizeof want) == 0) return;
  (void)::setsockopt(to, level, name, &want, sizeof want);
}

void copy_options(int from, int to, int domain) {
  base::UniqueFd fresh(::socket(domain, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP));
  if (!fresh.valid()) return;
  for (const auto& o : kIntOptions) copy_differing(from, fresh.get(), to, o);
  if (domain == AF_INET)
    for (const auto& o : kV4Options) copy_differing(from, fresh.get(), to, o);
  if (domain == AF_INET6)
    for (const auto& o : kV6Options) copy_differing(from, fresh.get(), to, o);
  copy_struct<linger>(from, fresh.get(), to, SOL_SOCKET, SO_LINGER);
  copy_struct<timeval>(from, fresh.get(), to, SOL_SOCKET, SO_RCVTIMEO);
  copy_struct<timeval>(from, fresh.get(), to, SOL_SOCKET, SO_SNDTIMEO);
}

std::int64_t now_ms() { return base::monotonic_ms(); }

// Close with a reset: the peer sees ECONNRESET, not an orderly end that could pass for an
// answer.
void reset(base::UniqueFd& fd) {
  if (!fd.valid()) return;
  linger l{1, 0};
  (void)::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &l, sizeof l);
  fd.reset();
}

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// One direction until its end: splice through a pipe (read/write where splice is refused).
// Then the other side hears the end (or, after an error, both directions stop).
void pump(int in, int out) {
  int p[2] = {-1, -1};
  bool ok = true;
  if (::pipe2(p, O_CLOEXEC) == 0) {
    int size = ::fcntl(p[1], F_SETPIPE_SZ, kPipeSize);
    if (size <= 0) size = static_cast<int>(kSpliceChunk);
    for (;;) {
      ssize_t n = ::splice(in, nullptr, p[1], nullptr, static_cast<std::size_t>(size), SPLICE_F_MOVE);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EINVAL) break;  // not spliceable: the copy below
      if (n <= 0) {
        ok = n == 0;
        goto done;
      }
      while (n > 0) {
        ssize_t m = ::splice(p[0], nullptr, out, nullptr, static_cast<std::size_t>(n), SPLICE_F_MOVE);
        if (m < 0 && errno == EINTR) continue;
        if (m <= 0) {
          ok = false;
          goto done;
        }
        n -= m;
      }
    }
  }
  {
    char buf[kSpliceChunk];
    for (;;) {
      ssize_t n = ::recv(in, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ok = n == 0;
        break;
      }
      if (!write_all(out, buf, static_cast<std::size_t>(n))) {
        ok = false;
        break;
      }
    }
  }
done:
  if (p[0] >= 0) {
    ::close(p[0]);
    ::close(p[1]);
  }
  if (ok) {
    ::shutdown(out, SHUT_WR);
  } else {
    ::shutdown(in, SHUT_RDWR);
    ::shutdown(out, SHUT_RDWR);
  }
}

std::string kind_refusal(const net::StreamName& s, bool tls) {
  using K = net::StreamName::Kind;
  switch (s.kind) {
    case K::NoName: return "egress allowlist: a TLS ClientHello without a server name (SNI)";
    case K::Other:
      return tls ? "egress allowlist: port 443 carries only TLS (the first bytes were no ClientHello)"
                 : "egress allowlist: port 80 carries only HTTP/1 (the first bytes were no request)";
    case K::Malformed:
      return tls ? "egress allowlist: a malformed ClientHello"
                 : "egress allowlist: a malformed HTTP request head";
    case K::NeedMore: return "egress allowlist: the stream named no host in its first bytes";
    case K::Name: break;
  }
  return {};
}

}  // namespace

struct Egress::Conn {
  base::UniqueFd client;    // the relay's end of the target's loopback connection
  base::UniqueFd upstream;  // the launcher's connection to the destination
  net::Address dest;
  int pid = 0;
  std::thread inspect, back;
  std::atomic<int> done{0};  // threads that ended (1: refused, or the first; 2: both)
  bool spliced = false;
};

base::Result<std::unique_ptr<Egress>> Egress::create(const spec::ConnectPolicy& cp, Log log) {
  std::unique_ptr<Egress> e(new Egress());
  for (const auto& text : cp.allow_hosts) {
    auto rule = net::parse_host_rule(text);
    if (!rule) return base::Error(EINVAL, "allowed host '" + text + "': " + rule.error().message());
    e->hosts_.push_back(std::move(*rule));
  }
  for (const auto& text : cp.resolvers) {
    auto addr = net::parse_ip(text);
    if (!addr) return base::Error(EINVAL, "DNS resolver '" + text + "': " + addr.error().message());
    e->upstreams_.push_back(*addr);
  }
  e->pins_ = std::make_shared<net::PinTable>();
  e->log_ = std::move(log);
  if (cp.shared_network) {
    e->shared_ = true;
    RF_TRY(e->start_shared_resolver());
  }
  return e;
}

Egress::~Egress() { stop(); }

base::Status Egress::start_resolver(base::UniqueFd udp, base::UniqueFd tcp) {
  Resolver::Config c;
  c.hosts = hosts_;
  c.upstreams = upstreams_;
  c.pins = pins_;
  c.log = [this](const std::string& name, const std::string& qtype, const std::string& why,
                 std::uint16_t port) {
    int pid = 0;
    {
      std::lock_guard lock(mu_);
      for (auto it = clients_.rbegin(); it != clients_.rend() && port; ++it)
        if (it->first == port) {
          pid = it->second;
          break;
        }
    }
    if (log_)
      log_(net::format_dns_violation_json(std::chrono::system_clock::now(), pid, name, qtype,
                                          "egress allowlist: " + why));
  };
  auto r = Resolver::start(std::move(c), std::move(udp), std::move(tcp));
  if (!r) return r.error().reworded("egress allowlist: the sandbox's resolver: " + r.error().message());
  resolver_ = std::move(*r);
  return {};
}

void Egress::stop() {
  if (stopping_.exchange(true)) return;
  if (resolver_) resolver_->stop();
  std::list<std::unique_ptr<Conn>> conns;
  {
    std::lock_guard lock(mu_);
    conns.swap(conns_);
    for (auto& c : conns) {
      ::shutdown(c->client.get(), SHUT_RDWR);
      ::shutdown(c->upstream.get(), SHUT_RDWR);
    }
  }
  for (auto& c : conns) {
    if (c->inspect.joinable()) c->inspect.join();
    if (c->back.joinable()) c->back.join();
  }
}

net::EgressDecision Egress::decide(const net::Policy& policy, const net::Destination& dest, bool stream,
                                   bool datagram_connect) const {
  const bool own = shared_ && stream && dest.kind == net::DestinationKind::Inet &&
                   net::is_loopback(dest.inet) && sandbox_server(dest.inet);
  return net::decide_egress(policy, hosts_, *pins_, dest,
                            {.stream = stream,
                             .datagram_connect = datagram_connect,
                             .shared_network = shared_,
                             .sandbox_server = own},
                            now_ms());
}

int Egress::host_socket(int like, bool nonblocking, base::UniqueFd& out) const {
  int domain = 0;
  if (!get_opt(like, SOL_SOCKET, SO_DOMAIN, domain)) return ECONNREFUSED;
  base::UniqueFd s(
      ::socket(domain, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), IPPROTO_TCP));
  if (!s.valid())
    return errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM ? errno : ECONNREFUSED;
  if (domain == AF_INET6) {
    int v6only = 0;
    (void)get_opt(like, IPPROTO_IPV6, IPV6_V6ONLY, v6only);
    (void)::setsockopt(s.get(), IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
  }
  copy_options(like, s.get(), domain);
  out = std::move(s);
  return 0;
}

bool Egress::installed(int fd) const {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  std::lock_guard lock(mu_);
  return std::find(installed_.begin(), installed_.end(), static_cast<std::uint64_t>(st.st_ino)) !=
         installed_.end();
}

void Egress::note_installed(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return;
  std::lock_guard lock(mu_);
  if (installed_.size() >= 65536) installed_.erase(installed_.begin(), installed_.begin() + 32768);
  installed_.push_back(static_cast<std::uint64_t>(st.st_ino));
}

void Egress::note_resolver_client(int sock, int pid) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(sock, reinterpret_cast<sockaddr*>(&ss), &len) != 0 || ss.ss_family != AF_INET) return;
  const std::uint16_t port = ntohs(reinterpret_cast<const sockaddr_in*>(&ss)->sin_port);
  if (port == 0) return;
  std::lock_guard lock(mu_);
  if (!clients_.empty() && clients_.back() == std::pair<std::uint16_t, int>{port, pid}) return;
  if (clients_.size() >= 1024) clients_.erase(clients_.begin(), clients_.begin() + 512);
  clients_.emplace_back(port, pid);
}

void Egress::reap_locked() {
  for (auto it = conns_.begin(); it != conns_.end();) {
    Conn& c = **it;
    if (c.done.load() >= (c.spliced ? 2 : 1)) {
      if (c.inspect.joinable()) c.inspect.join();
      if (c.back.joinable()) c.back.join();
      it = conns_.erase(it);
    } else {
      ++it;
    }
  }
}

int Egress::relay(base::UniqueFd upstream, const net::Address& dest, int pid, int like, bool nonblocking,
                  base::UniqueFd& out) {
  int domain = 0;
  if (!get_opt(like, SOL_SOCKET, SO_DOMAIN, domain)) return ECONNREFUSED;
  base::UniqueFd side;
  if (int e = host_socket(like, false, side)) return e;
  std::lock_guard lock(mu_);
  if (stopping_.load()) return ECONNREFUSED;
  reap_locked();
  // The relay's listener, on the host's loopback; the target's end connects to it from here
  // and the accepted end is checked to be exactly that connection.
  auto listener = [&](bool v6) -> int {
    base::UniqueFd& l = v6 ? listen6_ : listen4_;
    if (l.valid()) return l.get();
    base::UniqueFd s(::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!s.valid()) return -1;
    sockaddr_storage ss{};
    socklen_t len;
    if (v6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
      a->sin6_family = AF_INET6;
      a->sin6_addr = in6addr_loopback;
      len = sizeof *a;
    } else {
      auto* a = reinterpret_cast<sockaddr_in*>(&ss);
      a->sin_family = AF_INET;
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      len = sizeof *a;
    }
    if (::bind(s.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0 || ::listen(s.get(), 128) != 0) return -1;
    l = std::move(s);
    return l.get();
  };
  int v6only = 0;
  if (domain == AF_INET6) (void)get_opt(side.get(), IPPROTO_IPV6, IPV6_V6ONLY, v6only);
  int lfd = domain == AF_INET6 ? listener(true) : -1;
  if (lfd < 0) {
    if (domain == AF_INET6 && v6only) return ECONNREFUSED;  // no ::1 and no way to reach 127.0.0.1
    lfd = listener(false);
  }
  if (lfd < 0) return ECONNREFUSED;
  sockaddr_storage at{};
  socklen_t at_len = sizeof at;
  if (::getsockname(lfd, reinterpret_cast<sockaddr*>(&at), &at_len) != 0) return ECONNREFUSED;
  if (domain == AF_INET6 && at.ss_family == AF_INET) {  // 127.0.0.1 as an IPv4-mapped address
    sockaddr_in v4;
    std::memcpy(&v4, &at, sizeof v4);
    auto* a = reinterpret_cast<sockaddr_in6*>(&at);
    std::memset(a, 0, sizeof *a);
    a->sin6_family = AF_INET6;
    a->sin6_port = v4.sin_port;
    a->sin6_addr.s6_addr[10] = a->sin6_addr.s6_addr[11] = 0xff;
    std::memcpy(&a->sin6_addr.s6_addr[12], &v4.sin_addr, 4);
    at_len = sizeof *a;
  }
  if (::connect(side.get(), reinterpret_cast<sockaddr*>(&at), at_len) != 0) return ECONNREFUSED;
  sockaddr_storage mine{};
  socklen_t mine_len = sizeof mine;
  if (::getsockname(side.get(), reinterpret_cast<sockaddr*>(&mine), &mine_len) != 0) return ECONNREFUSED;
  base::UniqueFd client;
  for (int tries = 0; tries < 64 && !client.valid(); ++tries) {
    pollfd p{lfd, POLLIN, 0};
    if (::poll(&p, 1, 1000) <= 0) return ECONNREFUSED;
    sockaddr_storage peer{};
    socklen_t peer_len = sizeof peer;
    base::UniqueFd got(::accept4(lfd, reinterpret_cast<sockaddr*>(&peer), &peer_len, SOCK_CLOEXEC));
    if (!got.valid()) continue;
    // Another process of the host may connect to the listener too: only ours is taken.
    if (peer_len == mine_len && std::memcmp(&peer, &mine, mine_len) == 0) client = std::move(got);
  }
  if (!client.valid()) return ECONNREFUSED;
  if (nonblocking) {
    const int fl = ::fcntl(side.get(), F_GETFL);
    if (fl < 0 || ::fcntl(side.get(), F_SETFL, fl | O_NONBLOCK) != 0) return ECONNREFUSED;
  }
  auto c = std::make_unique<Conn>();
  c->client = std::move(client);
  c->upstream = std::move(upstream);
  c->dest = dest;
  c->pid = pid;
  Conn* raw = c.get();
  c->inspect = std::thread([this, raw] { inspect_and_splice(*raw); });
  conns_.push_back(std::move(c));
  out = std::move(side);
  return 0;
}

void Egress::refuse_stream(Conn& c, const char* what, std::string rule, const std::string& name,
                           bool let_answers_finish) {
  net::Destination d;
  d.kind = net::DestinationKind::Inet;
  d.inet = c.dest;
  net::Decision dec;
  dec.verdict = net::Verdict::Deny;
  dec.error = ECONNRESET;
  dec.rule = std::move(rule);
  dec.name = name;
  if (log_) log_(net::format_violation_json(std::chrono::system_clock::now(), c.pid, what, d, dec));
  std::lock_guard lock(mu_);  // stop() shuts these down under it
  if (!c.spliced) {
    reset(c.client);
    reset(c.upstream);
    return;
  }
  if (let_answers_finish) {
    ::shutdown(c.upstream.get(), SHUT_WR);
    ::shutdown(c.client.get(), SHUT_RD);
    return;
  }
  // The other direction's thread still uses both: they end now and close when it is joined.
  for (int fd : {c.client.get(), c.upstream.get()}) {
    linger l{1, 0};
    (void)::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::shutdown(fd, SHUT_RDWR);
  }
}

void Egress::start_back(Conn& c) {
  std::lock_guard lock(mu_);
  c.spliced = true;
  c.back = std::thread([&c] {
    pump(c.upstream.get(), c.client.get());
    c.done.fetch_add(1);
  });
}

// Port 80: every request head on the connection, not only the first, names an allowed host
// pinned to the address; the client's bytes go on through here, the server's are spliced.
void Egress::relay_http(Conn& c) {
  net::HttpRequestStream requests;
  const std::int64_t deadline = now_ms() + kInspectMs;
  bool first = true;
  char buf[16384];
  for (;;) {
    if (first) {
      const std::int64_t left = deadline - now_ms();
      pollfd p{c.client.get(), POLLIN, 0};
      const int r = left > 0 ? ::poll(&p, 1, static_cast<int>(left)) : 0;
      if (r < 0 && errno == EINTR) continue;
      if (r == 0)
        return refuse_stream(c, "http", "egress allowlist: plain HTTP: no request head within 10 s", {},
                             false);
      if (r < 0) break;
    }
    const ssize_t n = ::recv(c.client.get(), buf, sizeof buf, first ? MSG_DONTWAIT : 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      if (n == 0) {
        ::shutdown(c.upstream.get(), SHUT_WR);
      } else {
        ::shutdown(c.upstream.get(), SHUT_RDWR);
        ::shutdown(c.client.get(), SHUT_RDWR);
      }
      break;
    }
    auto step = requests.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    // What goes on: the checked bytes up to the first head whose name is refused.
    std::string refusal, named;
    std::size_t upto = step.forward.size(), heads = step.names.size();
    for (std::size_t i = 0; i < step.names.size(); ++i) {
      refusal = net::stream_name_refusal(hosts_, *pins_, c.dest, step.names[i], now_ms());
      if (!refusal.empty()) {
        named = step.names[i];
        upto = step.starts[i];
        heads = i;
        break;
      }
    }
    if (refusal.empty()) refusal = step.refusal;
    if (upto > 0 && !write_all(c.upstream.get(), step.forward.data(), upto)) {
      ::shutdown(c.client.get(), SHUT_RDWR);
      break;
    }
    if (first && heads > 0) {
      first = false;
      start_back(c);
    }
    if (!refusal.empty()) {
      // Before any request went on: both reset. After: the server answers what it was sent,
      // then the connection ends; the refused head and all after it never reach it.
      refuse_stream(c, "http", std::move(refusal), named, !first);
      return;
    }
  }
}

void Egress::inspect_and_splice(Conn& c) {
  const bool tls = c.dest.port == 443;
  if (!tls) {
    relay_http(c);
    c.done.fetch_add(1);
    return;
  }
  std::string head;
  net::StreamName seen;
  const std::int64_t deadline = now_ms() + kInspectMs;
  char buf[16384];
  while (seen.kind == net::StreamName::Kind::NeedMore && head.size() < kInspectMax) {
    const std::int64_t left = deadline - now_ms();
    pollfd p{c.client.get(), POLLIN, 0};
    const int r = left > 0 ? ::poll(&p, 1, static_cast<int>(left)) : 0;
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    const ssize_t n = ::recv(c.client.get(), buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {  // the client left before naming anything: nothing was sent on
      ::shutdown(c.upstream.get(), SHUT_RDWR);
      c.done = 1;
      return;
    }
    head.append(buf, static_cast<std::size_t>(n));
    seen = net::tls_server_name(head);
  }
  std::string refusal = seen.kind == net::StreamName::Kind::Name
                            ? net::stream_name_refusal(hosts_, *pins_, c.dest, seen.name, now_ms())
                            : kind_refusal(seen, tls);
  if (!refusal.empty()) {
    refuse_stream(c, "tls", std::move(refusal), seen.name, false);
    c.done = 1;
    return;
  }
  if (!write_all(c.upstream.get(), head.data(), head.size())) {
    ::shutdown(c.client.get(), SHUT_RDWR);
    c.done = 1;
    return;
  }
  start_back(c);
  pump(c.client.get(), c.upstream.get());
  c.done.fetch_add(1);
}

}  // namespace rf::engine
