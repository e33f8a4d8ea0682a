// SPDX-License-Identifier: LGPL-2.1-or-later
// The sandbox's resolver (see resolver.hpp).
#include "resolver.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ringfence/base/sys.hpp"
#include "ringfence/net/dns.hpp"

namespace rf::engine {
namespace {

namespace dns = net::dns;

constexpr std::size_t kMaxMessage = 65535;

socklen_t to_sockaddr(const net::Address& a, sockaddr_storage& ss) {
  std::memset(&ss, 0, sizeof ss);
  const std::uint16_t port = htons(a.port ? a.port : 53);
  if (a.family == net::Family::V4) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&ss);
    sin->sin_family = AF_INET;
    sin->sin_port = port;
    std::memcpy(&sin->sin_addr, a.bytes.data(), 4);
    return sizeof *sin;
  }
  auto* sin6 = reinterpret_cast<sockaddr_in6*>(&ss);
  sin6->sin6_family = AF_INET6;
  sin6->sin6_port = port;
  std::memcpy(&sin6->sin6_addr, a.bytes.data(), 16);
  sin6->sin6_scope_id = a.scope_id;
  return sizeof *sin6;
}

std::uint16_t port_of(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_port);
  return 0;
}

std::uint16_t random_id() {
  std::uint16_t id = 0;
  if (::getrandom(&id, sizeof id, 0) != static_cast<ssize_t>(sizeof id))
    id = static_cast<std::uint16_t>(base::monotonic_ns());
  return id;
}

// Waits until fd is ready for `events` or the deadline passes.
bool wait_for(int fd, short events, std::int64_t deadline_ms) {
  for (;;) {
    const std::int64_t left = deadline_ms - base::monotonic_ms();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

base::UniqueFd connected_socket(const net::Address& to, int type, std::int64_t deadline_ms) {
  sockaddr_storage ss{};
  const socklen_t len = to_sockaddr(to, ss);
  base::UniqueFd fd(::socket(ss.ss_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return {};
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) == 0) return fd;
  if (errno != EINPROGRESS || !wait_for(fd.get(), POLLOUT, deadline_ms)) return {};
  int err = 0;
  socklen_t elen = sizeof err;
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &elen) != 0 || err != 0) return {};
  return fd;
}

// The upstream's answer to `msg` (whose id is `id`) for the question of `q`, or "" on a timeout,
// an error or an answer to another question.
bool answers(const std::string& resp, std::uint16_t id, const dns::Query& q) {
  auto r = dns::parse_response(resp);
  return r && r->id == id && r->name == q.name && r->qtype == q.qtype;
}

std::string ask_udp(const net::Address& to, const std::string& msg, std::uint16_t id, const dns::Query& q,
                    std::int64_t deadline_ms) {
  base::UniqueFd fd = connected_socket(to, SOCK_DGRAM, deadline_ms);
  if (!fd.valid() ||
      ::send(fd.get(), msg.data(), msg.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(msg.size()))
    return {};
  std::string buf(kMaxMessage, '\0');
  while (wait_for(fd.get(), POLLIN, deadline_ms)) {
    const ssize_t n = ::recv(fd.get(), buf.data(), buf.size(), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return {};
    std::string resp = buf.substr(0, static_cast<std::size_t>(n));
    if (answers(resp, id, q)) return resp;  // anything else (a late or forged answer) is dropped
  }
  return {};
}

bool read_exact(int fd, char* at, std::size_t n, std::int64_t deadline_ms) {
  while (n > 0) {
    if (!wait_for(fd, POLLIN, deadline_ms)) return false;
    const ssize_t got = ::read(fd, at, n);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return false;
    at += got;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

bool write_exact(int fd, const std::string& data, std::int64_t deadline_ms) {
  std::size_t done = 0;
  while (done < data.size()) {
    if (!wait_for(fd, POLLOUT, deadline_ms)) return false;
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string framed(const std::string& msg) {
  std::string out;
  out += static_cast<char>(msg.size() >> 8);
  out += static_cast<char>(msg.size() & 0xFF);
  return out + msg;
}

// One length-prefixed message from a stream, or "" (closed, timed out, or empty).
std::string read_framed(int fd, std::int64_t deadline_ms) {
  unsigned char len[2];
  if (!read_exact(fd, reinterpret_cast<char*>(len), 2, deadline_ms)) return {};
  std::string msg(static_cast<std::size_t>(len[0] << 8 | len[1]), '\0');
  if (msg.empty() || !read_exact(fd, msg.data(), msg.size(), deadline_ms)) return {};
  return msg;
}

std::string ask_tcp(const net::Address& to, const std::string& msg, std::uint16_t id, const dns::Query& q,
                    std::int64_t deadline_ms) {
  base::UniqueFd fd = connected_socket(to, SOCK_STREAM, deadline_ms);
  if (!fd.valid() || !write_exact(fd.get(), framed(msg), deadline_ms)) return {};
  std::string resp = read_framed(fd.get(), deadline_ms);
  return answers(resp, id, q) ? resp : std::string();
}

std::string type_name(std::uint16_t t) {
  switch (t) {
    case dns::kTypeA: return "A";
    case dns::kTypeAaaa: return "AAAA";
    case dns::kTypeCname: return "CNAME";
    case dns::kTypeAny: return "ANY";
    case 16: return "TXT";
    case 15: return "MX";
    case 33: return "SRV";
    case 65: return "HTTPS";
    default: return "TYPE" + std::to_string(t);
  }
}

}  // namespace

std::string Resolver::answer(const Config& config, std::string_view query, std::uint16_t client_port) {
  auto q = dns::parse_query(query);
  if (!q) return {};
  auto refuse = [&](std::uint8_t rcode, const std::string& why) {
    if (config.log) config.log(q->name, type_name(q->qtype), why, client_port);
    return dns::reply(query, *q, rcode);
  };
  if (q->qclass != dns::kClassIn) return refuse(dns::kRefused, "not of class IN");
  if (q->qtype == dns::kTypeAny) return refuse(dns::kRefused, "ANY queries are not answered");
  if (!net::host_allowed(config.hosts, q->name)) return refuse(dns::kNxDomain, "not an allowed host");
  const std::uint16_t id = random_id();
  const std::string out = dns::forwarded_query(id, *q);
  for (const auto& up : config.upstreams) {
    const std::int64_t deadline = base::monotonic_ms() + config.timeout_ms;
    std::string resp = ask_udp(up, out, id, *q, deadline);
    if (!resp.empty()) {
      if (auto r = dns::parse_response(resp); r && r->truncated) {
        std::string whole = ask_tcp(up, out, id, *q, base::monotonic_ms() + config.timeout_ms);
        if (!whole.empty()) resp = std::move(whole);
      }
    }
    if (resp.empty()) continue;
    auto r = dns::parse_response(resp);
    if (!r) continue;
    if (config.pins) config.pins->add(q->name, dns::addresses_for(*r, q->name), base::monotonic_ms());
    return dns::client_answer(resp, *r, query, *q);
  }
  return dns::reply(query, *q, dns::kServFail);
}

base::Result<std::unique_ptr<Resolver>> Resolver::start(Config config, base::UniqueFd udp,
                                                        base::UniqueFd tcp) {
  std::unique_ptr<Resolver> r(new Resolver());
  r->config_ = std::move(config);
  r->udp_ = std::move(udp);
  r->tcp_ = std::move(tcp);
  r->wake_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!r->wake_.valid()) return base::errno_error("eventfd (the resolver's wake-up)");
  Resolver* self = r.get();
  r->thread_ = std::thread([self] { self->serve(); });
  return r;
}

Resolver::~Resolver() { stop(); }

void Resolver::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  const std::uint64_t one = 1;
  (void)!::write(wake_.get(), &one, sizeof one);
  thread_.join();
}

void Resolver::serve() {
  std::string buf(kMaxMessage, '\0');
  while (!stopping_) {
    pollfd fds[3] = {{udp_.get(), POLLIN, 0}, {tcp_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[2].revents) return;
    if (fds[0].revents & POLLIN) {
      sockaddr_storage from{};
      socklen_t flen = sizeof from;
      const ssize_t n = ::recvfrom(udp_.get(), buf.data(), buf.size(), MSG_DONTWAIT,
                                   reinterpret_cast<sockaddr*>(&from), &flen);
      if (n > 0) {
        const std::string_view query(buf.data(), static_cast<std::size_t>(n));
        std::string reply = answer(config_, query, port_of(from));
        // A client without EDNS takes 512 bytes over UDP: a longer answer is cut to its header and
        // question with TC set, and the client asks again over TCP.
        if (auto q = dns::parse_query(query); q && reply.size() > 512 && query.size() == q->question_end) {
          reply.resize(q->question_end);
          reply[2] = static_cast<char>(reply[2] | 0x02);
          for (std::size_t i = 6; i < 12; ++i) reply[i] = 0;
        }
        if (!reply.empty())
          (void)::sendto(udp_.get(), reply.data(), reply.size(), MSG_DONTWAIT | MSG_NOSIGNAL,
                         reinterpret_cast<sockaddr*>(&from), flen);
      }
    }
    if (fds[1].revents & POLLIN) {
      sockaddr_storage from{};
      socklen_t flen = sizeof from;
      base::UniqueFd conn(
          ::accept4(tcp_.get(), reinterpret_cast<sockaddr*>(&from), &flen, SOCK_CLOEXEC | SOCK_NONBLOCK));
      if (conn.valid()) serve_stream(conn.get(), port_of(from));
    }
  }
}

// One client on a stream: queries answered in turn until it closes or is idle for the timeout.
void Resolver::serve_stream(int fd, std::uint16_t client_port) {
  for (int served = 0; served < 64 && !stopping_; ++served) {
    const std::string q = read_framed(fd, base::monotonic_ms() + config_.timeout_ms);
    if (q.empty()) return;
    const std::string reply = answer(config_, q, client_port);
    if (reply.empty() || !write_exact(fd, framed(reply), base::monotonic_ms() + config_.timeout_ms)) return;
  }
}

}  // namespace rf::engine
