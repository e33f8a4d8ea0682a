// SPDX-License-Identifier: LGPL-2.1-or-later
// connect, sendto, sendmsg and sendmmsg performed by the supervisor for the target: the
// arguments are copied once, decided with the net layer, and an allowed call runs on a
// pidfd_getfd duplicate of the target's socket with the supervisor's copy (see the race notes
// at the top of supervisor.cpp). The receiving thread tries each call without blocking; a call
// that has to wait is finished by a worker, from where the first try left it.
#include "connect_emulate.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <signal.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "egress.hpp"
#include "notif_target.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/net/decision.hpp"
#include "ringfence/net/egress.hpp"
#include "supervisor.hpp"
#include "unix_pin.hpp"

namespace rf::engine {
namespace {

constexpr std::size_t kMaxData = 1u << 20;      // per call; more is a short write (streams) or EMSGSIZE
constexpr std::size_t kMaxControl = 64 * 1024;  // the kernel's optmem limit is far lower
constexpr std::size_t kMaxIov = 1024;           // UIO_MAXIOV
// Anything that keeps the supervisor from checking a call fails it: closed, never open.
constexpr int kFailClosed = ECONNREFUSED;

// The notifying thread (notif_target.hpp).
struct Target : NotifTarget {
  Target(Supervisor& s, const seccomp_notif& notif) : NotifTarget(s, notif, kFailClosed) {}
};

net::SocketInfo socket_info(int fd, int& err) {
  net::SocketInfo s;
  socklen_t len = sizeof(int);
  if (::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &s.domain, &len) != 0 ||
      ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &s.type, &(len = sizeof(int))) != 0) {
    err = errno == ENOTSOCK ? ENOTSOCK : kFailClosed;
    return s;
  }
  int v6only = 0;
  if (s.domain == AF_INET6 && ::getsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &(len = sizeof(int))) == 0)
    s.v6only = v6only != 0;
  err = 0;
  return s;
}

// The destination address as copied, and what the supervisor really passes to the kernel.
struct Name {
  std::array<std::uint8_t, net::kMaxSockaddr> bytes{};
  std::size_t size = 0;
  net::RawName raw;
  net::Destination dest;
  sockaddr_un pinned_name{};  // AF_UNIX path: "/proc/self/fd/N" for the pinned socket inode
  base::UniqueFd pinned;
  net::Route route = net::Route::Sandbox;  // the egress allowlist: where the connection is made
  [[nodiscard]] const sockaddr* addr() const {
    if (pinned.valid()) return reinterpret_cast<const sockaddr*>(&pinned_name);
    return size ? reinterpret_cast<const sockaddr*>(bytes.data()) : nullptr;
  }
  [[nodiscard]] socklen_t len() const {
    if (pinned.valid())
      return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + std::strlen(pinned_name.sun_path) + 1);
    return static_cast<socklen_t>(size);
  }
};

// Copy the name, decode and decide. 0 when allowed (with an AF_UNIX path pinned), else the
// errno for the target; a denial is logged.
int check_name(Target& t, const net::SocketInfo& si, net::Call call, int flags, std::uint64_t addr,
               int length, Name& name, const char* syscall_name) {
  name.size = net::name_copy_size(call, addr != 0, length);
  if (!t.read(addr, name.bytes.data(), name.size)) return EFAULT;
  name.raw = {call, flags, addr != 0, length, std::span<const std::uint8_t>(name.bytes.data(), name.size)};
  auto dest = net::decode_destination(si, name.raw);
  if (!dest) return dest.error().code() ? dest.error().code() : EINVAL;
  name.dest = *dest;
  net::Decision d;
  if (dest->kind == net::DestinationKind::Other && si.domain == AF_NETLINK) {
    d.verdict = net::Verdict::Allow;  // the kernel or another netlink socket: not the network
  } else if (const Egress* egress = t.sup.egress()) {
    const bool stream = si.type == SOCK_STREAM;
    auto e = egress->decide(t.sup.policy(), *dest, stream, !stream && call == net::Call::Connect);
    d = std::move(e.decision);
    name.route = e.route;
    if (e.route == net::Route::Resolver) {  // the shared network's DNS: to the launcher's resolver
      sockaddr_storage to{};
      socklen_t to_len = 0;
      if (int err = egress->resolver_name(si.domain, si.v6only, to, to_len)) {
        d.verdict = net::Verdict::Deny;
        d.error = err;
        d.rule = "egress allowlist: DNS on a v6-only socket (the resolver has an IPv4 address only)";
      } else {
        std::memcpy(name.bytes.data(), &to, to_len);
        name.size = to_len;
      }
    }
  } else {
    d = net::decide(t.sup.policy(), *dest);
  }
  if (d.verdict == net::Verdict::Deny) {
    t.sup.log_violation(net::format_violation_json(std::chrono::system_clock::now(),
                                                   static_cast<int>(t.n.pid), syscall_name, *dest, d));
    return d.error ? d.error : ECONNREFUSED;
  }
  if (dest->kind == net::DestinationKind::Unix && dest->unix_form == net::UnixForm::Path &&
      !dest->unix_name.empty())
    return pin_unix_path(t, name.dest, name.pinned, name.pinned_name, syscall_name);
  return 0;
}

// The data of one send, copied: at most kMaxData bytes (a short write on a stream socket; a
// larger datagram is refused with EMSGSIZE, as the kernel would refuse most of them).
int copy_data(const Target& t, const net::SocketInfo& si, std::span<const iovec> user,
              std::vector<std::string>& bufs) {
  std::size_t total = 0;
  for (const iovec& v : user) {
    std::size_t take = v.iov_len;
    if (total + take > kMaxData) {
      if (si.type != SOCK_STREAM) return EMSGSIZE;
      take = kMaxData - total;
    }
    if (take == 0) continue;
    bufs.emplace_back(take, '\0');
    if (!t.read(reinterpret_cast<std::uint64_t>(v.iov_base), bufs.back().data(), take)) return EFAULT;
    total += take;
  }
  return 0;
}

// One message of sendto, sendmsg or sendmmsg, copied whole: name, data and control
// (SCM_RIGHTS fds are duplicated from the target; SCM_CREDENTIALS is refused: the launcher
// cannot send the target's credentials, and its own would be a lie). Source routes are refused
// too: an IPv6 routing header (IPV6_RTHDR, IPV6_2292RTHDR) or IPv4 options (IP_RETOPTS, where a
// loose or strict source route lives) make the kernel address the packet to the header's hop,
// not to the destination decided here. setsockopt's sticky forms are refused by seccomp.
struct Message {
  Name name;
  std::vector<std::string> bufs;
  std::string control;
  std::vector<base::UniqueFd> fds;
  [[nodiscard]] std::size_t size() const {
    std::size_t n = 0;
    for (const auto& b : bufs) n += b.size();
    return n;
  }
};

// Ancillary data that can send the message to another address than its name's: what it is, or
// nullptr.
const char* routes_elsewhere(const cmsghdr& c) {
  if (c.cmsg_level == IPPROTO_IPV6 && c.cmsg_type == IPV6_RTHDR) return "IPV6_RTHDR";
  if (c.cmsg_level == IPPROTO_IPV6 && c.cmsg_type == IPV6_2292RTHDR) return "IPV6_2292RTHDR";
  if (c.cmsg_level == IPPROTO_IP && c.cmsg_type == IP_RETOPTS) return "IP_RETOPTS";
  return nullptr;
}

int copy_control(const Target& t, const msghdr& user, Message& m, const char*& route) {
  if (!user.msg_control || user.msg_controllen == 0) return 0;
  if (user.msg_controllen > kMaxControl) return ENOBUFS;
  m.control.assign(user.msg_controllen, '\0');
  if (!t.read(reinterpret_cast<std::uint64_t>(user.msg_control), m.control.data(), m.control.size()))
    return EFAULT;
  msghdr mh{};
  mh.msg_control = m.control.data();
  mh.msg_controllen = m.control.size();
  for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_len < sizeof(cmsghdr)) return EINVAL;
    if ((route = routes_elsewhere(*c)) != nullptr) return EPERM;
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_CREDENTIALS) return EPERM;
    if (c->cmsg_type != SCM_RIGHTS) continue;
    std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      base::UniqueFd dup;
      if (t.take(fd, dup) != 0) return EBADF;
      int mine = dup.get();
      std::memcpy(CMSG_DATA(c) + i * sizeof(int), &mine, sizeof mine);
      m.fds.push_back(std::move(dup));
    }
  }
  return 0;
}

int prepare_message(Target& t, const net::SocketInfo& si, const msghdr& user, int flags, Message& m,
                    const char* call) {
  if (int e = check_name(t, si, net::Call::Sendmsg, flags, reinterpret_cast<std::uint64_t>(user.msg_name),
                         static_cast<int>(user.msg_namelen), m.name, call))
    return e;
  if (user.msg_iovlen > kMaxIov) return EMSGSIZE;
  std::vector<iovec> uiov(user.msg_iovlen);
  if (!t.read(reinterpret_cast<std::uint64_t>(user.msg_iov), uiov.data(), uiov.size() * sizeof(iovec)))
    return EFAULT;
  if (int e = copy_data(t, si, uiov, m.bufs)) return e;
  const char* route = nullptr;
  const int e = copy_control(t, user, m, route);
  if (route) {
    net::Decision d;
    d.error = e;
    d.rule = std::string("source route: an ") + route + " control message";
    t.sup.log_violation(net::format_violation_json(std::chrono::system_clock::now(),
                                                   static_cast<int>(t.n.pid), call, m.name.dest, d));
  }
  return e;
}

// A TCP socket in the CLOSE state (never connected, failed, or disconnected with AF_UNSPEC).
bool closed_tcp(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return true;
  return info.tcpi_state == TCP_CLOSE;
}

// A destination the kernel reaches without leaving this host: a connect to it completes (or
// fails) at once unless the listener's backlog is full, which the guard timer covers.
bool is_local(const net::Destination& d) {
  if (d.kind == net::DestinationKind::Unix) return true;
  if (d.kind != net::DestinationKind::Inet) return false;
  const auto& b = d.inet.bytes;
  if (d.inet.family == net::Family::V4) return b[0] == 127 || d.inet.v4_value() == 0;
  static constexpr std::uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(b.data(), mapped, 12) == 0) return b[12] == 127 || (b[12] | b[13] | b[14] | b[15]) == 0;
  for (std::size_t i = 0; i < 15; ++i)
    if (b[i]) return false;
  return b[15] <= 1;  // :: (this host) and ::1
}

}  // namespace

// A decided, allowed call and how far it got. The receiving thread makes it; a worker
// finishes it when it has to block.
struct PendingCall {
  PendingCall(Supervisor& sup, const seccomp_notif& n) : t(sup, n), nr(static_cast<long>(n.data.nr)) {}
  Target t;
  base::UniqueFd sock;
  net::SocketInfo si;
  long nr = 0;
  int flags = 0;          // the target's send flags
  bool blocking = false;  // the target's call would wait: no O_NONBLOCK on the socket, no MSG_DONTWAIT
  Name name;              // connect
  std::vector<std::unique_ptr<Message>> msgs;  // sends: one, or sendmmsg's entries
  std::size_t next = 0;                        // the message being sent
  std::size_t offset = 0;  // bytes of it already sent (a stream socket takes part of a send)
  std::int64_t sent = 0;   // sendmmsg: entries sent
  std::int64_t bytes = 0;  // sendto/sendmsg: bytes sent
  int stop_error = 0;      // sendmmsg: the entry after the prepared ones failed with this
  bool started = false;    // connect: the receiving thread's try was interrupted
  // The egress allowlist, a connect made from the host's network: `sock` is then the
  // launcher's socket, `target_sock` the duplicate of the target's.
  base::UniqueFd target_sock;
  bool target_nonblocking = false;
};

void PendingCallDeleter::operator()(PendingCall* p) const { delete p; }

std::uint64_t pending_id(const PendingCall& c) { return c.t.n.id; }

namespace {

// Send messages from c.next on. may_block: as the target asked (else with MSG_DONTWAIT, and
// nothing is returned when the target's call would have to wait).
std::optional<Reply> send_messages(PendingCall& c, bool may_block, const std::function<bool()>* give_up) {
  const bool stream = c.si.type == SOCK_STREAM;
  int err = 0;
  while (c.next < c.msgs.size()) {
    Message& m = *c.msgs[c.next];
    std::vector<iovec> iov;
    std::size_t skip = c.offset;
    for (auto& b : m.bufs) {
      if (skip >= b.size()) {
        skip -= b.size();
        continue;
      }
      iov.push_back({b.data() + skip, b.size() - skip});
      skip = 0;
    }
    msghdr h{};
    h.msg_name = const_cast<sockaddr*>(m.name.addr());
    h.msg_namelen = m.name.len();
    h.msg_iov = iov.data();
    h.msg_iovlen = iov.size();
    if (c.offset == 0 && !m.control.empty()) {  // the fds went with the first part
      h.msg_control = m.control.data();
      h.msg_controllen = m.control.size();
    }
    const int fl = c.flags | MSG_NOSIGNAL | (may_block ? 0 : MSG_DONTWAIT);
    ssize_t r = ::sendmsg(c.sock.get(), &h, fl);
    if (r < 0) {
      const int e = errno;
      if (!may_block && c.blocking && (e == EAGAIN || e == EWOULDBLOCK)) return std::nullopt;
      if (may_block && e == EINTR && !(*give_up)()) continue;
      err = e;
      break;
    }
    c.offset += static_cast<std::size_t>(r);
    if (stream && c.blocking && c.offset < m.size()) {  // a blocking send sends it all
      if (!may_block) return std::nullopt;
      if ((*give_up)()) break;
      continue;
    }
    if (c.nr == SYS_sendmmsg) {
      const std::uint64_t at = c.t.n.data.args[1] + c.next * sizeof(mmsghdr);
      unsigned len = static_cast<unsigned>(c.offset);
      (void)c.t.write(at + offsetof(mmsghdr, msg_len), &len, sizeof len);
    }
    c.bytes = static_cast<std::int64_t>(c.offset);
    c.offset = 0;
    ++c.sent;
    ++c.next;
  }
  if (c.nr == SYS_sendmmsg) {
    // The first refused or failed entry ends the batch; the count sent so far is the answer
    // (its error is lost, as in the kernel).
    if (c.sent > 0) return Reply{0, c.sent};
    return Reply{err ? err : c.stop_error, 0};
  }
  if (c.offset > 0) return Reply{0, static_cast<std::int64_t>(c.offset)};  // part of a blocking send
  if (err) return Reply{err, 0};
  return Reply{0, c.bytes};
}

// Connect without waiting: on a socket the kernel would not wait on, or to a local
// destination, bounded by the guard timer. Nothing returned: a worker finishes it.
std::optional<Reply> connect_now(PendingCall& c) {
  const bool may_wait = c.blocking && (c.si.type == SOCK_STREAM || c.si.type == SOCK_SEQPACKET) &&
                        c.name.dest.kind != net::DestinationKind::Unspec;
  if (may_wait && !is_local(c.name.dest)) return std::nullopt;
  // A non-blocking socket may be made blocking by another thread of the target at any time, so
  // every try on a stream socket is bounded; without a guard, such tries go to a worker.
  const bool stream = c.si.type == SOCK_STREAM || c.si.type == SOCK_SEQPACKET;
  const bool guarded = stream && c.t.sup.arm_guard();
  if (stream && !guarded) return std::nullopt;
  int r = ::connect(c.sock.get(), c.name.addr(), c.name.len());
  const int e = errno;
  if (guarded) c.t.sup.disarm_guard();
  if (r == 0) return Reply{0, 0};
  if (e == EINTR) {  // the guard fired: the kernel goes on with the handshake, a worker waits for it
    c.started = true;
    return std::nullopt;
  }
  return Reply{e, 0};
}

// A worker: connect as the target would, waiting. Repeated after an interruption, connect
// waits for the handshake already under way, as the kernel's own restart does.
Reply connect_wait(PendingCall& c, const std::function<bool()>& give_up) {
  for (;;) {
    if (::connect(c.sock.get(), c.name.addr(), c.name.len()) == 0) return {0, 0};
    const int e = errno;
    if (e == EINTR && !give_up()) {
      c.started = true;
      continue;
    }
    // A repeat sees EALREADY only while the handshake runs, and then waits; EISCONN after the
    // receiving thread's try means that try connected.
    if (e == EISCONN && c.started) return {0, 0};
    return {e == EINTR ? kFailClosed : e, 0};
  }
}

// Copy and decide a connect. An answer, or the call ready in `c`.
std::optional<Reply> prepare_connect(PendingCall& c) {
  const auto& a = c.t.n.data.args;
  if (int e = c.t.take(static_cast<int>(a[0]), c.sock)) return Reply{e, 0};
  int err = 0;
  c.si = socket_info(c.sock.get(), err);
  if (err) return Reply{err, 0};
  if (int e = check_name(c.t, c.si, net::Call::Connect, 0, a[1], static_cast<int>(a[2]), c.name, "connect"))
    return Reply{e, 0};
  if (!c.t.sup.egress()) return std::nullopt;
  // The sandbox's own loopback is not reachable on a socket of the host's network (one the
  // launcher connected before, closed since): there it would be the host's loopback.
  if (c.name.route == net::Route::Sandbox && c.name.dest.kind == net::DestinationKind::Inet &&
      c.t.sup.egress()->installed(c.sock.get())) {
    net::Decision d;
    d.error = ECONNREFUSED;
    d.rule = "egress allowlist: the sandbox's loopback on a socket connected before on the host's network";
    c.t.sup.log_violation(net::format_violation_json(std::chrono::system_clock::now(),
                                                     static_cast<int>(c.t.n.pid), "connect", c.name.dest, d));
    return Reply{ECONNREFUSED, 0};
  }
  if (c.name.route != net::Route::Direct && c.name.route != net::Route::Relay) return std::nullopt;
  Egress& egress = *c.t.sup.egress();
  // A socket made here and installed before, still connected or connecting: connecting it
  // again is the kernel's answer (EISCONN, EALREADY). Once closed it is replaced like any other.
  if (egress.installed(c.sock.get()) && !closed_tcp(c.sock.get())) {
    c.name.route = net::Route::Sandbox;
    return std::nullopt;
  }
  const int fl = ::fcntl(c.sock.get(), F_GETFL);
  if (fl < 0) return Reply{kFailClosed, 0};
  c.target_nonblocking = (fl & O_NONBLOCK) != 0;
  // The relay's upstream connects as a blocking call (a worker waits for it) whatever the
  // target asked: the target gets its end only once the server took the connection.
  base::UniqueFd host;
  const bool nonblocking = c.name.route == net::Route::Direct && c.target_nonblocking;
  if (int e = egress.host_socket(c.sock.get(), nonblocking, host)) return Reply{e, 0};
  c.target_sock = std::move(c.sock);
  c.sock = std::move(host);
  return std::nullopt;
}

// The egress allowlist: once the launcher's connection is made (or, non-blocking, under way),
// the target's fd number gets it: the socket itself, or its end of the relay.
Reply complete_egress(PendingCall& c, Reply r) {
  if (!c.target_sock.valid() || c.nr != SYS_connect) return r;
  const int number = static_cast<int>(c.t.n.data.args[0]);
  const bool cloexec = c.t.cloexec(number);
  if (c.name.route == net::Route::Direct) {
    if (r.error != 0 && r.error != EINPROGRESS) return r;
    if (int e = c.t.sup.install_fd(c.t.n.id, c.sock.get(), number, cloexec)) return Reply{e, 0};
    return r;
  }
  if (r.error != 0) return r;
  base::UniqueFd side;
  if (int e = c.t.sup.egress()->relay(std::move(c.sock), c.name.dest.inet, static_cast<int>(c.t.n.pid),
                                      c.target_sock.get(), c.target_nonblocking, side))
    return Reply{e, 0};
  if (int e = c.t.sup.install_fd(c.t.n.id, side.get(), number, cloexec)) return Reply{e, 0};
  return r;
}

std::optional<Reply> prepare_sends(PendingCall& c) {
  const auto& a = c.t.n.data.args;
  c.flags = static_cast<int>(c.nr == SYS_sendmsg ? a[2] : a[3]);
  if (int e = c.t.take(static_cast<int>(a[0]), c.sock)) return Reply{e, 0};
  int err = 0;
  c.si = socket_info(c.sock.get(), err);
  if (err) return Reply{err, 0};
  if (c.nr == SYS_sendto) {
    auto m = std::make_unique<Message>();
    if (int e = check_name(c.t, c.si, net::Call::Sendto, c.flags, a[4], static_cast<int>(a[5]), m->name,
                           "sendto"))
      return Reply{e, 0};
    iovec user{reinterpret_cast<void*>(a[1]), static_cast<std::size_t>(a[2])};
    if (int e = copy_data(c.t, c.si, std::span<const iovec>(&user, 1), m->bufs)) return Reply{e, 0};
    c.msgs.push_back(std::move(m));
  } else if (c.nr == SYS_sendmsg) {
    msghdr user{};
    if (!c.t.read(a[1], &user, sizeof user)) return Reply{EFAULT, 0};
    auto m = std::make_unique<Message>();
    if (int e = prepare_message(c.t, c.si, user, c.flags, *m, "sendmsg")) return Reply{e, 0};
    c.msgs.push_back(std::move(m));
  } else {
    // sendmmsg: entries are copied and decided in order up to the first refused or failed one
    // (or kMaxData bytes in all); those before it are sent.
    const std::size_t vlen = std::min<std::size_t>(static_cast<unsigned>(a[2]), kMaxIov);
    std::size_t total = 0;
    for (std::size_t i = 0; i < vlen && total < kMaxData; ++i) {
      mmsghdr user{};
      auto m = std::make_unique<Message>();
      int e = c.t.read(a[1] + i * sizeof(mmsghdr), &user, sizeof user) ? 0 : EFAULT;
      if (!e) e = prepare_message(c.t, c.si, user.msg_hdr, c.flags, *m, "sendmmsg");
      if (e) {
        c.stop_error = e;
        break;
      }
      total += m->size();
      c.msgs.push_back(std::move(m));
    }
  }
  return std::nullopt;
}

// The kernel raises SIGPIPE in the sender; ours was suppressed, so raise it in the target.
// The egress allowlist: a socket that reached the sandbox's resolver names its process there.
Reply finish_reply(const PendingCall& c, Reply r) {
  if (c.nr != SYS_connect && r.error == EPIPE && !(c.flags & MSG_NOSIGNAL))
    (void)base::raw::pidfd_send_signal(c.t.pidfd.get(), SIGPIPE, nullptr, 0);
  if (Egress* egress = c.t.sup.egress(); egress && (r.error == 0 || r.error == EINPROGRESS)) {
    const net::Destination& d = c.nr == SYS_connect ? c.name.dest
                                : c.msgs.empty()    ? c.name.dest
                                                    : c.msgs[0]->name.dest;
    const net::Route route = c.nr == SYS_connect ? c.name.route
                             : c.msgs.empty()    ? c.name.route
                                                 : c.msgs[0]->name.route;
    if (route == net::Route::Resolver || egress->is_resolver(d))
      egress->note_resolver_client(c.sock.get(), static_cast<int>(c.t.n.pid));
  }
  return r;
}

}  // namespace

Reply overflow_reply(PendingCall& c) {
  if (c.nr == SYS_connect && c.t.sup.arm_guard()) {
    int r = ::connect(c.sock.get(), c.name.addr(), c.name.len());
    const int e = errno;
    c.t.sup.disarm_guard();
    if (r == 0 || (e == EISCONN && c.started)) return complete_egress(c, {0, 0});
    if (e != EINTR && e != EALREADY) return {e, 0};
  }
  if (c.nr == SYS_sendmmsg && c.sent > 0) return {0, c.sent};
  if (c.nr != SYS_connect && c.offset > 0) return {0, static_cast<std::int64_t>(c.offset)};
  return {EAGAIN, 0};
}

std::optional<Reply> start_call(Supervisor& sup, const seccomp_notif& n, PendingPtr& pending) {
  PendingPtr c(new PendingCall(sup, n));
  if (c->nr != SYS_connect && c->nr != SYS_sendto && c->nr != SYS_sendmsg && c->nr != SYS_sendmmsg)
    return Reply{ENOSYS, 0};
  if (int e = c->t.open()) return Reply{e, 0};
  auto early = c->nr == SYS_connect ? prepare_connect(*c) : prepare_sends(*c);
  if (early) return finish_reply(*c, *early);
  // Everything was read: from here on only the copies are used. Still the target's call?
  if (!c->t.valid()) return Reply{kFailClosed, 0};
  const int fl = ::fcntl(c->sock.get(), F_GETFL);
  if (fl < 0) return Reply{kFailClosed, 0};
  c->blocking = !(fl & O_NONBLOCK) && !(c->flags & MSG_DONTWAIT);
  auto now = c->nr == SYS_connect ? connect_now(*c) : send_messages(*c, false, nullptr);
  if (now) return finish_reply(*c, complete_egress(*c, *now));
  pending = std::move(c);
  return std::nullopt;
}

Reply finish_call(PendingCall& c, const std::function<bool()>& give_up) {
  if (give_up()) return {kFailClosed, 0};
  if (c.nr == SYS_connect) return finish_reply(c, complete_egress(c, connect_wait(c, give_up)));
  auto r = send_messages(c, true, &give_up);
  return finish_reply(c, r ? *r : Reply{kFailClosed, 0});
}

}  // namespace rf::engine
