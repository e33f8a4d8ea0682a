// SPDX-License-Identifier: LGPL-2.1-or-later
// connect, sendto, sendmsg and sendmmsg performed by the supervisor for the target: the
// arguments are copied once, decided with the net layer, and an allowed call runs on a
// pidfd_getfd duplicate of the target's socket with the supervisor's copy (see the race notes
// at the top of supervisor.cpp).
#include "connect_emulate.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <netinet/in.h>
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
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/net/decision.hpp"
#include "supervisor.hpp"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

namespace rf::engine {
namespace {

constexpr std::size_t kMaxData = 1u << 20;     // per call; more is a short write (streams) or EMSGSIZE
constexpr std::size_t kMaxControl = 64 * 1024;  // the kernel's optmem limit is far lower
constexpr std::size_t kMaxIov = 1024;           // UIO_MAXIOV
// Anything that keeps the supervisor from checking a call fails it: closed, never open.
constexpr int kFailClosed = ECONNREFUSED;

// Ids of the target, as /proc/<tid>/status shows them to the launcher.
struct Creds {
  uid_t fsuid = 0;
  gid_t fsgid = 0;
  std::vector<gid_t> groups;
  bool dac_override = false;
};

// The notifying thread: its memory and fds, trusted only while the notification is valid.
struct Target {
  Supervisor& sup;
  const seccomp_notif& n;
  base::UniqueFd pidfd;

  [[nodiscard]] bool valid() const { return sup.still_valid(n.id); }
  [[nodiscard]] std::string proc(const char* what) const { return "/proc/" + std::to_string(n.pid) + "/" + what; }

  bool read(std::uint64_t addr, void* out, std::size_t len) const {
    if (len == 0) return true;
    iovec local{out, len}, remote{reinterpret_cast<void*>(addr), len};
    return ::process_vm_readv(static_cast<pid_t>(n.pid), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
  }
  bool write(std::uint64_t addr, const void* in, std::size_t len) const {
    iovec local{const_cast<void*>(in), len}, remote{reinterpret_cast<void*>(addr), len};
    return ::process_vm_writev(static_cast<pid_t>(n.pid), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
  }
  // A pidfd of the target, checked against pid reuse. 0 or an errno.
  int open() {
    pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, n.pid, PIDFD_THREAD)));
    if (!pidfd.valid() && errno == EINVAL) {  // before Linux 6.9: the thread group's leader
      auto status = base::read_file(proc("status"));
      auto at = status ? status->find("\nTgid:") : std::string::npos;
      if (at == std::string::npos) return kFailClosed;
      pid_t tgid = static_cast<pid_t>(std::atol(status->c_str() + at + 6));
      pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, tgid, 0)));
    }
    if (!pidfd.valid() || !valid()) return kFailClosed;
    return 0;
  }
  // A duplicate of the target's fd `fd` (the object it points to NOW). 0 or an errno.
  int take(int fd, base::UniqueFd& out) const {
    out.reset(static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd.get(), fd, 0)));
    if (out.valid()) return 0;
    return errno == EBADF ? EBADF : kFailClosed;
  }
  [[nodiscard]] Creds creds() const {
    Creds c;
    auto status = base::read_file(proc("status"));
    if (!status) return c;
    auto field = [&](const char* name) -> const char* {
      auto at = status->find(name);
      return at == std::string::npos ? nullptr : status->c_str() + at + std::strlen(name);
    };
    if (const char* p = field("\nUid:")) {
      unsigned long v[4] = {};
      std::sscanf(p, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]);
      c.fsuid = static_cast<uid_t>(v[3]);
    }
    if (const char* p = field("\nGid:")) {
      unsigned long v[4] = {};
      std::sscanf(p, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]);
      c.fsgid = static_cast<gid_t>(v[3]);
    }
    if (const char* p = field("\nGroups:")) {
      char* end = nullptr;
      for (unsigned long g = std::strtoul(p, &end, 10); end != p && *p != '\n'; g = std::strtoul(p, &end, 10)) {
        c.groups.push_back(static_cast<gid_t>(g));
        p = end;
      }
    }
    if (const char* p = field("\nCapEff:")) c.dac_override = (std::strtoull(p, nullptr, 16) & 2u) != 0;
    return c;
  }
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
  [[nodiscard]] const sockaddr* addr() const {
    if (pinned.valid()) return reinterpret_cast<const sockaddr*>(&pinned_name);
    return size ? reinterpret_cast<const sockaddr*>(bytes.data()) : nullptr;
  }
  [[nodiscard]] socklen_t len() const {
    if (pinned.valid()) return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + std::strlen(pinned_name.sun_path) + 1);
    return static_cast<socklen_t>(size);
  }
};

bool may_write(const Creds& c, const struct stat& st) {
  if (c.dac_override) return true;
  if (c.fsuid == st.st_uid) return st.st_mode & S_IWUSR;
  bool in_group = c.fsgid == st.st_gid;
  for (gid_t g : c.groups) in_group = in_group || g == st.st_gid;
  return st.st_mode & (in_group ? S_IWGRP : S_IWOTH);
}

// (c) An AF_UNIX path, opened in the target's view: absolute paths inside its root (symlinks
// included, RESOLVE_IN_ROOT), relative ones beneath its cwd (a path climbing above the cwd is
// refused with EACCES). The kernel's write-permission check on the socket inode would run with
// the launcher's credentials, so the target's are checked here. 0 or an errno.
int pin_unix_path(const Target& t, Name& name) {
  const std::string& path = name.dest.unix_name;
  const bool absolute = !path.empty() && path[0] == '/';
  base::UniqueFd base(::open(t.proc(absolute ? "root" : "cwd").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!base.valid() || !t.valid()) return kFailClosed;
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_MAGICLINKS | (absolute ? RESOLVE_IN_ROOT : RESOLVE_BENEATH);
  name.pinned.reset(static_cast<int>(::syscall(SYS_openat2, base.get(), path.c_str(), &how, sizeof how)));
  if (!name.pinned.valid()) return errno == EXDEV ? EACCES : errno;
  struct stat st {};
  if (::fstat(name.pinned.get(), &st) != 0) return kFailClosed;
  if (!S_ISSOCK(st.st_mode)) return ECONNREFUSED;
  if (!may_write(t.creds(), st)) return EACCES;
  name.pinned_name.sun_family = AF_UNIX;
  std::snprintf(name.pinned_name.sun_path, sizeof name.pinned_name.sun_path, "/proc/self/fd/%d", name.pinned.get());
  return 0;
}

// Copy the name, decode and decide. 0 when allowed (with an AF_UNIX path pinned), else the
// errno for the target; a denial is logged.
int check_name(Target& t, const net::SocketInfo& si, net::Call call, int flags, std::uint64_t addr, int length,
               Name& name, const char* syscall_name) {
  name.size = net::name_copy_size(call, addr != 0, length);
  if (!t.read(addr, name.bytes.data(), name.size)) return EFAULT;
  name.raw = {call, flags, addr != 0, length, std::span<const std::uint8_t>(name.bytes.data(), name.size)};
  auto dest = net::decode_destination(si, name.raw);
  if (!dest) return dest.error().code() ? dest.error().code() : EINVAL;
  name.dest = *dest;
  net::Decision d;
  if (dest->kind == net::DestinationKind::Other && si.domain == AF_NETLINK) {
    d.verdict = net::Verdict::Allow;  // the kernel or another netlink socket: not the network
  } else {
    d = net::decide(t.sup.policy(), *dest);
  }
  if (d.verdict == net::Verdict::Deny) {
    t.sup.log_violation(net::format_violation_json(std::chrono::system_clock::now(), static_cast<int>(t.n.pid),
                                                   syscall_name, *dest, d));
    return d.error ? d.error : ECONNREFUSED;
  }
  if (dest->kind == net::DestinationKind::Unix && dest->unix_form == net::UnixForm::Path && !dest->unix_name.empty())
    return pin_unix_path(t, name);
  return 0;
}

Reply do_connect(Target& t) {
  const auto& a = t.n.data.args;
  base::UniqueFd sock;
  if (int e = t.take(static_cast<int>(a[0]), sock)) return {e, 0};
  int err = 0;
  auto si = socket_info(sock.get(), err);
  if (err) return {err, 0};
  Name name;
  if (int e = check_name(t, si, net::Call::Connect, 0, a[1], static_cast<int>(a[2]), name, "connect")) return {e, 0};
  if (!t.valid()) return {kFailClosed, 0};
  if (::connect(sock.get(), name.addr(), name.len()) != 0) return {errno, 0};
  return {0, 0};
}

// The data of one send, copied: at most kMaxData bytes (a short write on a stream socket; a
// larger datagram is refused with EMSGSIZE, as the kernel would refuse most of them).
int copy_data(const Target& t, const net::SocketInfo& si, std::span<const iovec> user, std::vector<std::string>& bufs,
              std::vector<iovec>& iov) {
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
  for (auto& b : bufs) iov.push_back({b.data(), b.size()});
  return 0;
}

Reply do_sendto(Target& t) {
  const auto& a = t.n.data.args;
  const int flags = static_cast<int>(a[3]);
  base::UniqueFd sock;
  if (int e = t.take(static_cast<int>(a[0]), sock)) return {e, 0};
  int err = 0;
  auto si = socket_info(sock.get(), err);
  if (err) return {err, 0};
  Name name;
  if (int e = check_name(t, si, net::Call::Sendto, flags, a[4], static_cast<int>(a[5]), name, "sendto")) return {e, 0};
  std::vector<std::string> bufs;
  std::vector<iovec> iov;
  iovec user{reinterpret_cast<void*>(a[1]), static_cast<std::size_t>(a[2])};
  if (int e = copy_data(t, si, std::span<const iovec>(&user, 1), bufs, iov)) return {e, 0};
  if (!t.valid()) return {kFailClosed, 0};
  msghdr mh{};
  mh.msg_name = const_cast<sockaddr*>(name.addr());
  mh.msg_namelen = name.len();
  mh.msg_iov = iov.data();
  mh.msg_iovlen = iov.size();
  ssize_t r = ::sendmsg(sock.get(), &mh, flags | MSG_NOSIGNAL);
  if (r < 0) return {errno, 0};
  return {0, r};
}

// One msghdr of sendmsg/sendmmsg, copied whole: name, data and control (SCM_RIGHTS fds are
// duplicated from the target; SCM_CREDENTIALS is refused: the launcher cannot send the target's
// credentials, and its own would be a lie).
struct Message {
  Name name;
  std::vector<std::string> bufs;
  std::vector<iovec> iov;
  std::string control;
  std::vector<base::UniqueFd> fds;
  msghdr hdr{};
};

int copy_control(const Target& t, const msghdr& user, Message& m) {
  if (!user.msg_control || user.msg_controllen == 0) return 0;
  if (user.msg_controllen > kMaxControl) return ENOBUFS;
  m.control.assign(user.msg_controllen, '\0');
  if (!t.read(reinterpret_cast<std::uint64_t>(user.msg_control), m.control.data(), m.control.size())) return EFAULT;
  msghdr mh{};
  mh.msg_control = m.control.data();
  mh.msg_controllen = m.control.size();
  for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_len < sizeof(cmsghdr)) return EINVAL;
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

int prepare_message(Target& t, const net::SocketInfo& si, const msghdr& user, int flags, Message& m, const char* call) {
  if (int e = check_name(t, si, net::Call::Sendmsg, flags, reinterpret_cast<std::uint64_t>(user.msg_name),
                         static_cast<int>(user.msg_namelen), m.name, call))
    return e;
  if (user.msg_iovlen > kMaxIov) return EMSGSIZE;
  std::vector<iovec> uiov(user.msg_iovlen);
  if (!t.read(reinterpret_cast<std::uint64_t>(user.msg_iov), uiov.data(), uiov.size() * sizeof(iovec))) return EFAULT;
  if (int e = copy_data(t, si, uiov, m.bufs, m.iov)) return e;
  if (int e = copy_control(t, user, m)) return e;
  m.hdr.msg_name = const_cast<sockaddr*>(m.name.addr());
  m.hdr.msg_namelen = m.name.len();
  m.hdr.msg_iov = m.iov.data();
  m.hdr.msg_iovlen = m.iov.size();
  m.hdr.msg_control = m.control.empty() ? nullptr : m.control.data();
  m.hdr.msg_controllen = m.control.size();
  return 0;
}

Reply do_sendmsg(Target& t) {
  const auto& a = t.n.data.args;
  const int flags = static_cast<int>(a[2]);
  base::UniqueFd sock;
  if (int e = t.take(static_cast<int>(a[0]), sock)) return {e, 0};
  int err = 0;
  auto si = socket_info(sock.get(), err);
  if (err) return {err, 0};
  msghdr user{};
  if (!t.read(a[1], &user, sizeof user)) return {EFAULT, 0};
  Message m;
  if (int e = prepare_message(t, si, user, flags, m, "sendmsg")) return {e, 0};
  if (!t.valid()) return {kFailClosed, 0};
  ssize_t r = ::sendmsg(sock.get(), &m.hdr, flags | MSG_NOSIGNAL);
  if (r < 0) return {errno, 0};
  return {0, r};
}

// sendmmsg: entry by entry, as the kernel does; the first refused or failed entry ends the
// batch, and the count sent so far is the answer (its error is lost, as in the kernel).
Reply do_sendmmsg(Target& t) {
  const auto& a = t.n.data.args;
  const int flags = static_cast<int>(a[3]);
  std::size_t vlen = std::min<std::size_t>(static_cast<unsigned>(a[2]), kMaxIov);
  base::UniqueFd sock;
  if (int e = t.take(static_cast<int>(a[0]), sock)) return {e, 0};
  int err = 0;
  auto si = socket_info(sock.get(), err);
  if (err) return {err, 0};
  std::int64_t sent = 0;
  for (std::size_t i = 0; i < vlen; ++i) {
    const std::uint64_t at = a[1] + i * sizeof(mmsghdr);
    mmsghdr user{};
    int e = t.read(at, &user, sizeof user) ? 0 : EFAULT;
    Message m;
    if (!e) e = prepare_message(t, si, user.msg_hdr, flags, m, "sendmmsg");
    if (!e && !t.valid()) e = kFailClosed;
    ssize_t r = e ? -1 : ::sendmsg(sock.get(), &m.hdr, flags | MSG_NOSIGNAL);
    if (!e && r < 0) e = errno;
    if (e) return sent ? Reply{0, sent} : Reply{e, 0};
    unsigned len = static_cast<unsigned>(r);
    (void)t.write(at + offsetof(mmsghdr, msg_len), &len, sizeof len);
    ++sent;
  }
  return {0, sent};
}

}  // namespace

Reply serve_notification(Supervisor& sup, const seccomp_notif& n) {
  Target t{sup, n, {}};
  if (int e = t.open()) return {e, 0};
  Reply r;
  int flags = 0;
  switch (n.data.nr) {
    case SYS_connect: return do_connect(t);
    case SYS_sendto: r = do_sendto(t), flags = static_cast<int>(n.data.args[3]); break;
    case SYS_sendmsg: r = do_sendmsg(t), flags = static_cast<int>(n.data.args[2]); break;
    case SYS_sendmmsg: r = do_sendmmsg(t), flags = static_cast<int>(n.data.args[3]); break;
    default: return {ENOSYS, 0};
  }
  // The kernel raises SIGPIPE in the sender; ours was suppressed, so raise it in the target.
  if (r.error == EPIPE && !(flags & MSG_NOSIGNAL)) ::syscall(SYS_pidfd_send_signal, t.pidfd.get(), SIGPIPE, nullptr, 0);
  return r;
}

}  // namespace rf::engine
