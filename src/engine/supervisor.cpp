// SPDX-License-Identifier: LGPL-2.1-or-later
// The launcher's side of the connect policy: take the listener, then for each notification
// copy the arguments out of the target once, decide with the net layer, and perform an allowed
// call itself on a duplicate of the target's socket, answering with its result.
//
// Races, and why none of them is open:
//  (a) The sockaddr, msghdr, iovecs and data live in the target's memory, which another thread
//      can rewrite at any time. They are copied once (process_vm_readv); the decision and the
//      call use only that copy, and the target's memory is never read again.
//  (b) The fd NUMBER can be re-pointed (dup2, close+socket) by another thread between the check
//      and a SECCOMP_USER_NOTIF_FLAG_CONTINUE, so CONTINUE is never answered for a decision:
//      the socket is duplicated once (pidfd_getfd) and that object is both inspected and used.
//      Whatever the number points to, the call happens on what was checked.
//  (c) AF_UNIX paths would resolve in the launcher's filesystem: they are opened (O_PATH) in
//      the target's root with openat2(RESOLVE_IN_ROOT) from /proc/<tid>/root (relative ones
//      beneath /proc/<tid>/cwd), and the connect goes to "/proc/self/fd/N", the pinned inode.
//  (d) PID reuse: the notification's tid is only trusted while SECCOMP_IOCTL_NOTIF_ID_VALID
//      says the target still waits in the call; it is checked after opening the pidfd and after
//      every read of the target's state. Anything failing on the way answers with an error:
//      the policy fails closed, never open.
#include "supervisor.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "connect_emulate.hpp"
#include "ringfence/base/log.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/net/decision.hpp"

namespace rf::engine {

using base::Error;
using base::Result;
using base::Status;

namespace {

constexpr int kMaxWorkers = 256;

Status make_log_dir(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return {};
  std::string dir = path.substr(0, slash);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return base::errno_error("mkdir " + dir);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return base::errno_error("stat " + dir);
  // A shared directory (/tmp/ringfence-UID) made by someone else must not receive our log.
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::getuid())
    return Error(EPERM, "violation log directory " + dir + " is not a directory owned by this user");
  return {};
}

}  // namespace

Result<std::shared_ptr<Supervisor>> Supervisor::create(const spec::ConnectPolicy& cp) {
  std::shared_ptr<Supervisor> s(new Supervisor());
  for (const auto* list : {&cp.deny, &cp.allow}) {
    const char* verb = list == &cp.deny ? "deny " : "allow ";
    for (const auto& text : *list) {
      auto rule = net::parse_rule(verb + text);
      if (!rule) return Error(EINVAL, "network rule '" + std::string(verb) + text + "': " + rule.error().message());
      s->policy_.rules.push_back(std::move(*rule));
    }
  }
  for (const auto& text : cp.resolvers) {
    auto addr = net::parse_ip(text);
    if (!addr) return Error(EINVAL, "DNS resolver '" + text + "': " + addr.error().message());
    s->policy_.resolvers.push_back(*addr);
  }
  if (!cp.violation_log.empty()) {
    RF_TRY(make_log_dir(cp.violation_log));
    s->log_.reset(::open(cp.violation_log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!s->log_.valid()) return base::errno_error("violation log " + cp.violation_log);
  }
  // An emulated send to a closed peer must not kill the launcher (MSG_NOSIGNAL is passed too).
  ::signal(SIGPIPE, SIG_IGN);
  return s;
}

Status Supervisor::take_listener() {
  if (!target_pidfd_.valid()) {
    // Step 1: the command's pidfd.
    char byte;
    iovec iov{&byte, 1};
    alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int))] = {};
    msghdr mh{};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof cbuf;
    ssize_t n = ::recvmsg(handoff_.get(), &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return {};
    if (n <= 0) {  // the command failed before the hand-off; its error is on the status pipe
      handoff_.reset();
      return {};
    }
    cmsghdr* c = CMSG_FIRSTHDR(&mh);
    if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
      return Error(EPROTO, "connect policy: bad hand-off message");
    int fd;
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    target_pidfd_.reset(fd);
    return {};
  }
  // Step 3: the listener's number in the command; take our own copy of it.
  int number = -1;
  ssize_t n = ::read(handoff_.get(), &number, sizeof number);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return {};
  if (n != static_cast<ssize_t>(sizeof number)) {
    handoff_.reset();
    target_pidfd_.reset();
    return {};
  }
  listener_.reset(static_cast<int>(::syscall(SYS_pidfd_getfd, target_pidfd_.get(), number, 0)));
  if (!listener_.valid()) return base::errno_error("connect policy: pidfd_getfd(listener)");
  if (::fcntl(listener_.get(), F_SETFD, FD_CLOEXEC) != 0) return base::errno_error("fcntl");
  target_pidfd_.reset();
  char ack = 'k';
  if (::write(handoff_.get(), &ack, 1) != 1) return base::errno_error("connect policy: hand-off acknowledgement");
  handoff_.reset();
  return {};
}

void Supervisor::serve_one(short revents) {
  if (!(revents & POLLIN)) {
    // POLLHUP: every process under the filter is gone.
    // The fd stays open for the workers still answering; the monitor stops polling it.
    if (revents & (POLLHUP | POLLERR | POLLNVAL)) hung_up_ = true;
    return;
  }
  seccomp_notif n;
  std::memset(&n, 0, sizeof n);  // the kernel wants it zeroed
  if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_RECV, &n) != 0) return;  // ENOENT: target gone
  if (workers_.fetch_add(1) >= kMaxWorkers) {
    // Too many calls in flight (a flood of blocking connects): refuse this one rather than
    // stall every other call.
    workers_.fetch_sub(1);
    respond(n.id, EAGAIN, 0);
    return;
  }
  std::thread([self = shared_from_this(), n] {
    Reply r = serve_notification(*self, n);
    self->respond(n.id, r.error, r.value);
    self->workers_.fetch_sub(1);
  }).detach();
}

void Supervisor::respond(std::uint64_t id, int error, std::int64_t value) {
  seccomp_notif_resp resp{};
  resp.id = id;
  resp.error = error ? -error : 0;
  resp.val = error ? 0 : value;
  // ENOENT: the target was interrupted or killed meanwhile; nothing to answer.
  (void)::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

bool Supervisor::still_valid(std::uint64_t id) const {
  std::uint64_t v = id;
  return ::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &v) == 0;
}

void Supervisor::log_violation(const std::string& line) {
  base::log::debug("connect policy: " + line);
  if (!log_.valid()) return;
  std::lock_guard<std::mutex> lock(log_mu_);
  (void)base::write_all(log_.get(), line + "\n");
}

base::Status prepare_supervisor(const spec::ConnectPolicy& policy, ChildContext& ctx, std::shared_ptr<Supervisor>& out,
                          base::UniqueFd& child_end) {
  RF_TRY_ASSIGN(s, Supervisor::create(policy));
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return base::errno_error("socketpair");
  s->set_handoff(base::UniqueFd(sv[0]));
  child_end.reset(sv[1]);
  ctx.notify_sock = sv[1];
  ctx.connect_filter = connect_filter_program();
  out = std::move(s);
  return {};
}

}  // namespace rf::engine
