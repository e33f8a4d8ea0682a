// SPDX-License-Identifier: LGPL-2.1-or-later
// The sandbox's resolver against a fake nameserver on 127.0.0.1 (loopback only; the addresses in
// its answers are documentation ranges and never contacted): allowed names forwarded and pinned,
// other names answered here and never seen upstream, no byte of the client's message but its
// question carried (case, EDNS options), truncated answers fetched over TCP, and the UDP and TCP
// service of a started resolver.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ringfence/base/sys.hpp"
#include "ringfence/net/dns.hpp"
#include "supervise/resolver.hpp"

using namespace rf;
using namespace std::string_literals;
namespace dns = rf::net::dns;

namespace {

std::string u16(unsigned v) { return {static_cast<char>(v >> 8), static_cast<char>(v & 0xFF)}; }

std::string query(unsigned id, const std::string& name, unsigned type = dns::kTypeA,
                  const std::string& extra = "", unsigned ar = 0) {
  return u16(id) + u16(0x0100) + u16(1) + u16(0) + u16(0) + u16(ar) + std::string([&] {
           std::string w;
           std::size_t at = 0;
           while (at <= name.size()) {
             std::size_t dot = name.find('.', at);
             if (dot == std::string::npos) dot = name.size();
             w += static_cast<char>(dot - at);
             w += name.substr(at, dot - at);
             at = dot + 1;
           }
           return w + std::string(1, '\0');
         }()) +
         u16(type) + u16(dns::kClassIn) + extra;
}

// A UDP and a listening TCP socket on 127.0.0.1, both on one free port (in `a`).
void loopback_pair(int& udp, int& tcp, sockaddr_in& a) {
  udp = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  a = sockaddr_in{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(udp, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  ::getsockname(udp, reinterpret_cast<sockaddr*>(&a), &len);
  tcp = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  REQUIRE(::bind(tcp, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::listen(tcp, 8) == 0);
}

// A nameserver for the test zone: allowed.test A 198.51.100.7 (TTL 60) through a CNAME from
// www.allowed.test; big.test has a long answer, truncated over UDP. Every query it gets is kept.
struct FakeServer {
  int udp = -1, tcp = -1;
  std::uint16_t port = 0;
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<std::string> seen;
  std::thread thread;

  FakeServer() {
    sockaddr_in a{};
    loopback_pair(udp, tcp, a);
    port = ntohs(a.sin_port);
    thread = std::thread([this] { loop(); });
  }
  ~FakeServer() {
    stop = true;
    thread.join();
    ::close(udp);
    ::close(tcp);
  }
  std::vector<std::string> queries() {
    std::lock_guard l(mu);
    return seen;
  }

  std::string respond(const std::string& q, bool over_tcp) {
    auto parsed = dns::parse_query(q);
    if (!parsed) return {};
    std::string head = q.substr(0, 2) + u16(0x8180) + u16(1);
    const std::string question = q.substr(12, parsed->question_end - 12);
    auto rr = [](const std::string& owner, unsigned type, const std::string& data) {
      return owner + u16(type) + u16(1) + "\0\0\0\x3c"s + u16(static_cast<unsigned>(data.size())) + data;
    };
    if (parsed->name == "www.allowed.test") {
      const std::string target =
          "\x07"
          "allowed\x04test\0"s;
      const std::size_t at = 12 + question.size() + 12;
      const std::string ptr = {static_cast<char>(0xC0), static_cast<char>(at)};
      return head + u16(2) + u16(0) + u16(0) + question + rr("\xC0\x0C", dns::kTypeCname, target) +
             rr(ptr, dns::kTypeA, "\xC6\x33\x64\x07");
    }
    if (parsed->name == "allowed.test")
      return head + u16(1) + u16(0) + u16(0) + question + rr("\xC0\x0C", dns::kTypeA, "\xC6\x33\x64\x07");
    if (parsed->name == "big.test") {
      if (!over_tcp) {
        std::string tc = head + u16(0) + u16(0) + u16(0) + question;
        tc[2] = static_cast<char>(tc[2] | 0x02);
        return tc;
      }
      std::string out = head + u16(40) + u16(0) + u16(0) + question;
      for (unsigned i = 0; i < 40; ++i)
        out += rr("\xC0\x0C", dns::kTypeA, "\xC6\x33\x64"s + static_cast<char>(i));
      return out;
    }
    std::string nx = head + u16(0) + u16(0) + u16(0) + question;
    nx[3] = static_cast<char>(0x83);
    return nx;
  }

  void loop() {
    while (!stop) {
      pollfd p[2] = {{udp, POLLIN, 0}, {tcp, POLLIN, 0}};
      if (::poll(p, 2, 50) <= 0) continue;
      char buf[4096];
      if (p[0].revents & POLLIN) {
        sockaddr_in from{};
        socklen_t fl = sizeof from;
        ssize_t n = ::recvfrom(udp, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &fl);
        if (n <= 0) continue;
        std::string q(buf, static_cast<std::size_t>(n));
        {
          std::lock_guard l(mu);
          seen.push_back(q);
        }
        std::string r = respond(q, false);
        ::sendto(udp, r.data(), r.size(), 0, reinterpret_cast<sockaddr*>(&from), fl);
      }
      if (p[1].revents & POLLIN) {
        int c = ::accept4(tcp, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) continue;
        unsigned char len[2];
        if (::recv(c, len, 2, MSG_WAITALL) == 2) {
          std::string q(static_cast<std::size_t>(len[0] << 8 | len[1]), '\0');
          if (::recv(c, q.data(), q.size(), MSG_WAITALL) == static_cast<ssize_t>(q.size())) {
            {
              std::lock_guard l(mu);
              seen.push_back(q);
            }
            std::string r = respond(q, true);
            std::string framed = u16(static_cast<unsigned>(r.size())) + r;
            ::send(c, framed.data(), framed.size(), MSG_NOSIGNAL);
          }
        }
        ::close(c);
      }
    }
  }
};

engine::Resolver::Config config(const FakeServer& s, std::vector<std::string>* log) {
  engine::Resolver::Config c;
  for (const char* h : {"allowed.test", "www.allowed.test", "big.test"})
    c.hosts.push_back(*net::parse_host_rule(h));
  c.upstreams = {net::Address::v4(0x7f000001, s.port)};
  c.pins = std::make_shared<net::PinTable>();
  c.log = [log](const std::string& name, const std::string& qtype, const std::string& why, std::uint16_t) {
    log->push_back("dns: " + name + " " + qtype + " refused: " + why);
  };
  c.timeout_ms = 1000;
  return c;
}

}  // namespace

TEST_CASE("resolver: an allowed name is forwarded and pinned; the answer is the client's") {
  FakeServer up;
  std::vector<std::string> log;
  auto c = config(up, &log);
  const std::string q = query(0x4242, "WWW.Allowed.test");
  const std::string a = engine::Resolver::answer(c, q);
  auto r = dns::parse_response(a);
  REQUIRE(r);
  CHECK(r->id == 0x4242);
  CHECK(a.substr(12, q.size() - 12) == q.substr(12));  // the question as the client wrote it
  CHECK(dns::addresses_for(*r, "www.allowed.test").size() == 1);
  CHECK(c.pins->names_for(*net::parse_ip("198.51.100.7"), rf::base::monotonic_ms()) ==
        std::vector<std::string>{"www.allowed.test"});
  CHECK(log.empty());
  // Upstream saw our own query: another id, the name in lowercase.
  auto seen = up.queries();
  REQUIRE(seen.size() == 1);
  auto fwd = dns::parse_query(seen[0]);
  REQUIRE(fwd);
  CHECK(fwd->id != 0x4242);
  CHECK(seen[0].find("WWW") == std::string::npos);
}

TEST_CASE("resolver: other names, ANY and other classes never leave; each refusal is logged") {
  FakeServer up;
  std::vector<std::string> log;
  auto c = config(up, &log);
  auto r = dns::parse_response(engine::Resolver::answer(c, query(1, "c2VjcmV0.evil.test", 16)));
  REQUIRE(r);
  CHECK(r->rcode == dns::kNxDomain);
  r = dns::parse_response(engine::Resolver::answer(c, query(2, "allowed.test", dns::kTypeAny)));
  REQUIRE(r);
  CHECK(r->rcode == dns::kRefused);
  // A subdomain of an allowed name is another name.
  r = dns::parse_response(engine::Resolver::answer(c, query(3, "x.allowed.test")));
  REQUIRE(r);
  CHECK(r->rcode == dns::kNxDomain);
  CHECK(up.queries().empty());  // the nameserver never heard of them
  REQUIRE(log.size() == 3);
  CHECK(log[0] == "dns: c2vjcmv0.evil.test TXT refused: not an allowed host");
  CHECK(log[1] == "dns: allowed.test ANY refused: ANY queries are not answered");
  CHECK(engine::Resolver::answer(c, "garbage").empty());
}

TEST_CASE("resolver: EDNS options and extra records of the client are not forwarded") {
  FakeServer up;
  std::vector<std::string> log;
  auto c = config(up, &log);
  // An OPT record carrying a 32-byte option (data a client could smuggle out).
  const std::string option = u16(65001) + u16(32) + std::string(32, 'S');
  const std::string opt =
      "\0"s + u16(41) + u16(4096) + u16(0) + u16(0) + u16(static_cast<unsigned>(option.size())) + option;
  auto r = dns::parse_response(engine::Resolver::answer(c, query(9, "allowed.test", dns::kTypeA, opt, 1)));
  REQUIRE(r);
  CHECK(r->rcode == dns::kNoError);
  auto seen = up.queries();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].find("SSSS") == std::string::npos);
}

TEST_CASE("resolver: a truncated answer is fetched again over TCP") {
  FakeServer up;
  std::vector<std::string> log;
  auto c = config(up, &log);
  auto r = dns::parse_response(engine::Resolver::answer(c, query(5, "big.test")));
  REQUIRE(r);
  CHECK_FALSE(r->truncated);
  CHECK(r->answers.size() == 40);
  CHECK(up.queries().size() == 2);
}

TEST_CASE("resolver: a started resolver serves UDP and TCP clients, and stops") {
  FakeServer up;
  std::vector<std::string> log;
  auto c = config(up, &log);
  int udp = -1, tcp = -1;
  sockaddr_in a{};
  loopback_pair(udp, tcp, a);
  auto res = engine::Resolver::start(c, base::UniqueFd(udp), base::UniqueFd(tcp));
  REQUIRE(res);

  int cu = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  REQUIRE(::connect(cu, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  const std::string q = query(77, "allowed.test");
  REQUIRE(::send(cu, q.data(), q.size(), 0) == static_cast<ssize_t>(q.size()));
  pollfd p{cu, POLLIN, 0};
  REQUIRE(::poll(&p, 1, 3000) == 1);
  char buf[4096];
  ssize_t n = ::recv(cu, buf, sizeof buf, 0);
  REQUIRE(n > 0);
  auto r = dns::parse_response(std::string(buf, static_cast<std::size_t>(n)));
  REQUIRE(r);
  CHECK(r->id == 77);
  CHECK(r->answers.size() == 1);
  ::close(cu);

  int ct = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(::connect(ct, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  const std::string framed = u16(static_cast<unsigned>(q.size())) + q;
  REQUIRE(::send(ct, framed.data(), framed.size(), 0) == static_cast<ssize_t>(framed.size()));
  unsigned char l2[2];
  REQUIRE(::recv(ct, l2, 2, MSG_WAITALL) == 2);
  std::string body(static_cast<std::size_t>(l2[0] << 8 | l2[1]), '\0');
  REQUIRE(::recv(ct, body.data(), body.size(), MSG_WAITALL) == static_cast<ssize_t>(body.size()));
  r = dns::parse_response(body);
  REQUIRE(r);
  CHECK(r->id == 77);
  ::close(ct);
  (*res)->stop();
}
