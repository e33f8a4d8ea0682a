// SPDX-License-Identifier: LGPL-2.1-or-later
// bind, listen and accept under the listen policy (spec::ListenPolicy). Every call works on a
// pidfd_getfd duplicate of the target's socket: the object inspected is the object used.
//
// Races, and what each answer leaves open:
//  - An inet bind is decided on the supervisor's copy of the address and performed here, on the
//    duplicate, with that copy: a thread rewriting the sockaddr meanwhile changes nothing.
//  - A unix path bind cannot be performed here (the path resolves in the target's mount
//    namespace, cwd and Landlock domain): it is left to the kernel, which reads the address
//    again, so a thread may have turned it into an abstract name (or re-pointed the fd number
//    at another socket). listen therefore decides on the name the kernel holds (getsockname on
//    the duplicate) and is performed here: such a socket never listens. And every unix path
//    bind is read back once bound (UnixBindCheck): an abstract name there stops the sandbox,
//    since a datagram socket needs no listen and a bound name is squatted.
//  - A unix accept may wait for a long time: it is left to the kernel too. With the network off
//    no inet socket of the sandbox can listen, so re-pointing the fd number gains nothing.
#include "listen_policy.hpp"

#include "egress.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "notif_target.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/net/decision.hpp"
#include "supervisor.hpp"

namespace rf::engine {
namespace {

using spec::ListenPolicy;

// Anything that keeps the supervisor from checking a call refuses it.
constexpr int kFailClosed = EACCES;
constexpr int kRefused = EACCES;

using Call = NotifTarget;

// The socket the target's fd `fd` points to now, and its domain. 0 or an errno.
int take_socket(const Call& c, int fd, base::UniqueFd& out, int& domain) {
  if (int e = c.take(fd, out)) return e;
  socklen_t len = sizeof domain;
  if (::getsockopt(out.get(), SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0)
    return errno == ENOTSOCK ? ENOTSOCK : kFailClosed;
  return 0;
}

bool is_inet(int domain) { return domain == AF_INET || domain == AF_INET6; }

// An inet address as the kernel reads it for a socket of this domain: sin_addr, or sin6_addr
// (an IPv4-mapped address stays IPv6).
net::Destination inet_destination(int domain, const std::uint8_t* b) {
  net::Destination d;
  d.kind = net::DestinationKind::Inet;
  const auto port = static_cast<std::uint16_t>((b[2] << 8) | b[3]);
  if (domain == AF_INET) {
    std::uint32_t v;
    std::memcpy(&v, b + 4, sizeof v);
    d.inet = net::Address::v4(ntohl(v), port);
  } else {
    std::array<std::uint8_t, 16> a{};
    std::memcpy(a.data(), b + 8, a.size());
    std::uint32_t scope;
    std::memcpy(&scope, b + 24, sizeof scope);
    d.inet = net::Address::v6(a, port, scope);
  }
  return d;
}

// 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. 0.0.0.0 and :: are every address, not loopback.
bool is_loopback_bind(const net::Address& a) {
  const auto& b = a.bytes;
  if (a.family == net::Family::V4) return b[0] == 127;
  static constexpr std::uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(b.data(), mapped, sizeof mapped) == 0) return b[12] == 127;
  for (std::size_t i = 0; i < 15; ++i)
    if (b[i]) return false;
  return b[15] == 1;
}

net::Destination unix_destination(const std::uint8_t* b, std::size_t len) {
  net::Destination d;
  d.kind = net::DestinationKind::Unix;
  const std::size_t head = sizeof(sa_family_t);
  const bool abstract = len > head && b[head] == 0;
  d.unix_form = abstract ? net::UnixForm::Abstract : net::UnixForm::Path;
  const char* name = reinterpret_cast<const char*>(b + head + (abstract ? 1 : 0));
  std::size_t n = len > head + (abstract ? 1 : 0) ? len - head - (abstract ? 1 : 0) : 0;
  if (!abstract) n = ::strnlen(name, n);
  d.unix_name.assign(name, n);
  return d;
}

// The name the kernel gives a unix socket bound with an address of only sun_family: a NUL and
// five hex digits, chosen by the kernel (nobody else's name).
bool is_autobind_name(const sockaddr_storage& ss, socklen_t len) {
  if (len != sizeof(sa_family_t) + 6) return false;
  const char* p = reinterpret_cast<const sockaddr_un*>(&ss)->sun_path;
  if (p[0] != '\0') return false;
  for (int i = 1; i <= 5; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(p[i]))) return false;
  return true;
}

Reply refuse(const Call& c, const char* syscall_name, const net::Destination& d, std::string rule) {
  net::Decision dec;
  dec.verdict = net::Verdict::Deny;
  dec.error = kRefused;
  dec.rule = std::move(rule);
  c.sup.log_violation(net::format_violation_json(std::chrono::system_clock::now(), static_cast<int>(c.n.pid),
                                                 syscall_name, d, dec));
  return Reply{kRefused, 0};
}

std::string why(ListenPolicy p, const char* what) {
  return p == ListenPolicy::None
             ? std::string("network off: ") + what + " (the host's network is not the sandbox's)"
             : std::string("listen policy: ") + what + " (--allow-listen allows it)";
}

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

// Whether the socket lives in the supervisor's own network namespace: the namespaces' cookies
// (Linux 5.14), else the target's namespace against ours (a socket made elsewhere would need
// privileges the sandbox has not).
bool in_my_netns(int sock, const Call& c) {
  std::uint64_t theirs = 0, mine = 0;
  socklen_t len = sizeof theirs;
  if (::getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &theirs, &len) == 0) {
    base::UniqueFd own(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    len = sizeof mine;
    return own.valid() && ::getsockopt(own.get(), SOL_SOCKET, SO_NETNS_COOKIE, &mine, &len) == 0 &&
           theirs == mine;
  }
  struct stat a {
  }, b{};
  return ::stat(c.proc("ns/net").c_str(), &a) == 0 && ::stat("/proc/self/ns/net", &b) == 0 &&
         a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

// The lowest port the supervisor may bind for the target: net.ipv4.ip_unprivileged_port_start
// of the socket's network namespace when it is the supervisor's own, else none but 0 (another
// namespace's setting cannot be read without entering it).
int unprivileged_port_start(int sock, const Call& c) {
  if (!in_my_netns(sock, c)) return 65536;
  auto text = base::read_file("/proc/sys/net/ipv4/ip_unprivileged_port_start");
  return text ? std::atoi(text->c_str()) : 1024;
}

// The egress allowlist: the sandbox's sockets live in its own network namespace, where any
// address is its own; a socket the launcher connected lives on the host's and never serves.
constexpr const char* kHostSocket =
    "egress allowlist: a connection made on the host's network for the sandbox cannot be a server";

Reply do_bind(Call& c, ListenPolicy policy, bool egress, base::UniqueFd& recheck) {
  const auto& a = c.n.data.args;
  base::UniqueFd sock;
  int domain = 0;
  if (int e = take_socket(c, static_cast<int>(a[0]), sock, domain)) return {e, 0};
  // Other families (netlink, packet, ...) are not servers on the network: the kernel decides.
  if (!is_inet(domain) && domain != AF_UNIX) return {0, 0, true};
  const int len = static_cast<int>(a[2]);
  if (len < 0 || len > static_cast<int>(sizeof(sockaddr_storage))) return {EINVAL, 0};
  alignas(sockaddr_storage) std::array<std::uint8_t, sizeof(sockaddr_storage)> bytes{};
  if (!c.read(a[1], bytes.data(), static_cast<std::size_t>(len))) return {EFAULT, 0};
  if (!c.valid()) return {kFailClosed, 0};
  sa_family_t family;
  std::memcpy(&family, bytes.data(), sizeof family);
  if (domain == AF_UNIX && egress) return {0, 0, true};  // abstract names are the namespace's own
  if (domain == AF_UNIX) {
    // The kernel's own reading: an abstract name is sun_family AF_UNIX, more than sun_family,
    // and a NUL first; exactly sun_family is an autobind (a name the kernel picks).
    auto d = unix_destination(bytes.data(), static_cast<std::size_t>(len));
    if (family == AF_UNIX && d.unix_form == net::UnixForm::Abstract)
      return refuse(c, "bind", d, why(policy, "bind to an abstract unix name, shared with the host"));
    recheck = std::move(sock);  // what the kernel binds is checked once bound (UnixBindCheck)
    return {0, 0, true};
  }
  // Shorter than the family's sockaddr, or a family the socket refuses: the kernel's error.
  const bool v4 = domain == AF_INET;
  const int need = v4 ? static_cast<int>(sizeof(sockaddr_in)) : 24;  // SIN6_LEN_RFC2133
  const bool decided = len >= need && (v4 ? family == AF_INET || family == AF_UNSPEC : family == AF_INET6);
  if (decided && egress) {
    auto d = inet_destination(domain, bytes.data());
    if (in_my_netns(sock.get(), c)) return refuse(c, "bind", d, kHostSocket);
    // The sandbox cannot change its namespace's unprivileged start (no capability): 1024.
    if (d.inet.port != 0 && d.inet.port < 1024)
      return refuse(c, "bind", d, "listen policy: port " + std::to_string(d.inet.port) + " is privileged");
  } else if (decided) {
    auto d = inet_destination(domain, bytes.data());
    if (!is_loopback_bind(d.inet))
      return refuse(c, "bind", d, why(policy, "bind to an address other than loopback"));
    // The supervisor may have privileges the target has not: it binds no port below the
    // namespace's unprivileged start (the target gets the EACCES its own bind would).
    const int first = unprivileged_port_start(sock.get(), c);
    if (d.inet.port != 0 && d.inet.port < first)
      return refuse(c, "bind", d,
                    "listen policy: port " + std::to_string(d.inet.port) +
                        " is privileged (below net.ipv4.ip_unprivileged_port_start, " +
                        std::to_string(first) + ")");
  }
  if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(bytes.data()), static_cast<socklen_t>(len)) != 0)
    return {errno, 0};
  return {0, 0};
}

// listen: decided on the name the kernel holds for the socket, performed here.
Reply do_listen(Call& c, ListenPolicy policy, bool egress) {
  const auto& a = c.n.data.args;
  base::UniqueFd sock;
  int domain = 0;
  if (int e = take_socket(c, static_cast<int>(a[0]), sock, domain)) return {e, 0};
  sockaddr_storage ss{};
  socklen_t sl = sizeof ss;
  if (::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&ss), &sl) != 0) return {kFailClosed, 0};
  const auto* b = reinterpret_cast<const std::uint8_t*>(&ss);
  if (is_inet(domain) && egress) {
    if (in_my_netns(sock.get(), c)) return refuse(c, "listen", inet_destination(domain, b), kHostSocket);
  } else if (is_inet(domain)) {
    auto d = inet_destination(domain, b);
    if (policy == ListenPolicy::None)
      return refuse(c, "listen", d, why(policy, "listen on an inet socket, loopback included"));
    if (d.inet.port == 0 && !is_loopback_bind(d.inet))
      return refuse(c, "listen", d, why(policy, "listen on an unbound socket (it binds every address)"));
    if (!is_loopback_bind(d.inet))
      return refuse(c, "listen", d, why(policy, "listen on an address other than loopback"));
  } else if (domain == AF_UNIX && !egress && sl > sizeof(sa_family_t) && b[sizeof(sa_family_t)] == 0 &&
             !is_autobind_name(ss, sl)) {
    return refuse(c, "listen", unix_destination(b, sl),
                  why(policy, "listen on an abstract unix name, shared with the host"));
  }
  if (!c.valid()) return {kFailClosed, 0};
  if (::listen(sock.get(), static_cast<int>(a[1])) != 0) return {errno, 0};
  if (Egress* e = c.sup.egress(); e && e->shared_network() && is_inet(domain)) e->note_listener(sock.get());
  return {0, 0};
}

// accept, network off: no inet socket may serve; a unix accept is the kernel's (it may wait).
Reply do_accept(Call& c, ListenPolicy policy) {
  base::UniqueFd sock;
  int domain = 0;
  if (int e = take_socket(c, static_cast<int>(c.n.data.args[0]), sock, domain)) return {e, 0};
  if (!is_inet(domain) || policy != ListenPolicy::None) return {0, 0, true};
  sockaddr_storage ss{};
  socklen_t sl = sizeof ss;
  if (::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&ss), &sl) != 0) return {kFailClosed, 0};
  return refuse(c, c.n.data.nr == SYS_accept ? "accept" : "accept4",
                inet_destination(domain, reinterpret_cast<const std::uint8_t*>(&ss)),
                why(policy, "accept on an inet socket, loopback included"));
}

}  // namespace

bool is_server_call(long nr) {
  return nr == SYS_bind || nr == SYS_listen || nr == SYS_accept || nr == SYS_accept4;
}

Reply serve_server_call(Supervisor& sup, const seccomp_notif& n, base::UniqueFd& recheck) {
  Call c(sup, n, kFailClosed);
  if (int e = c.open()) return {e, 0};
  const ListenPolicy policy = sup.listen_policy();
  // The allowlist on the sandbox's own network namespace; on the host's (shared), the servers
  // are the level's business as without it (the filter sends bind and listen here anyway).
  const bool own_egress = sup.egress() != nullptr && !sup.egress()->shared_network();
  if (!own_egress && policy == ListenPolicy::Unrestricted) return {0, 0, true};
  switch (n.data.nr) {
    case SYS_bind: return do_bind(c, policy, own_egress, recheck);
    case SYS_listen: return do_listen(c, policy, own_egress);
    default: return do_accept(c, policy);
  }
}

UnixBindCheck::UnixBindCheck(std::function<void(pid_t, const net::Destination&, const std::string&)> breach)
    : breach_(std::move(breach)) {}

UnixBindCheck::~UnixBindCheck() { stop(); }

void UnixBindCheck::add(base::UniqueFd sock, pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_ || breached_) return;
  pending_.push_back({std::move(sock), pid, base::monotonic_ms() + kWindowMs});
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  cv_.notify_one();
}

void UnixBindCheck::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

void UnixBindCheck::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (pending_.empty()) {
      cv_.wait(lock);
      continue;
    }
    const std::int64_t now = base::monotonic_ms();
    std::optional<std::pair<pid_t, net::Destination>> found;
    for (std::size_t i = 0; i < pending_.size();) {
      Entry& e = pending_[i];
      sockaddr_storage ss{};
      socklen_t sl = sizeof ss;
      const bool read = ::getsockname(e.sock.get(), reinterpret_cast<sockaddr*>(&ss), &sl) == 0;
      const bool bound = read && sl > sizeof(sa_family_t);
      if (bound && reinterpret_cast<const sockaddr_un*>(&ss)->sun_path[0] == '\0' &&
          !is_autobind_name(ss, sl) && !breached_ && !found)
        found.emplace(e.pid, unix_destination(reinterpret_cast<const std::uint8_t*>(&ss), sl));
      if (bound || !read || now >= e.deadline_ms) {
        pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
    if (found) {
      breached_ = true;
      pending_.clear();
      // The callback takes the supervisor's locks: never with ours held (add() runs under theirs).
      lock.unlock();
      std::string name = found->second.unix_name;
      while (!name.empty() && name.back() == '\0') name.pop_back();  // the rest of sun_path
      std::string shown;
      for (unsigned char ch : name) {
        if (ch >= 0x20 && ch < 0x7f) {
          shown += static_cast<char>(ch);
        } else {
          static const char hex[] = "0123456789abcdef";
          shown += "\\x";
          shown += hex[ch >> 4];
          shown += hex[ch & 15];
        }
      }
      breach_(found->first, found->second,
              "the sandbox was stopped: a unix socket was bound to the abstract name @" + shown +
                  " (the address was rewritten after the listen policy's check)");
      lock.lock();
      continue;
    }
    if (!pending_.empty()) cv_.wait_for(lock, std::chrono::microseconds(50));
  }
}

}  // namespace rf::engine
