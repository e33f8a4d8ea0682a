// SPDX-License-Identifier: LGPL-2.1-or-later
// The launcher's side of the connect policy: take the listener, then for each notification
// copy the arguments out of the target once, decide with the net layer, and perform an allowed
// call itself on a duplicate of the target's socket, answering with its result. A receiving
// thread serves every call that cannot block; a bounded pool of workers finishes those that
// have to wait (see supervisor.hpp).
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
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "connect_emulate.hpp"
#include "egress.hpp"
#include "listen_policy.hpp"
#include "ringfence/base/fd_passing.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/log.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/net/decision.hpp"
#include "ringfence/net/explain.hpp"

namespace rf::engine {

using base::Error;
using base::Result;
using base::Status;

namespace {

// Interrupts a worker's (or the receiving thread's) waiting call: a handler that does
// nothing, installed without SA_RESTART, so the call fails with EINTR.
int interrupt_signal() { return SIGRTMIN + 5; }
void on_interrupt(int) {}

// Supervisor threads take only the interrupt signal; the launcher's main thread keeps the rest.
void set_thread_mask() {
  sigset_t all;
  sigfillset(&all);
  sigdelset(&all, interrupt_signal());
  pthread_sigmask(SIG_SETMASK, &all, nullptr);
}

std::int64_t now_seconds() { return base::monotonic_ns() / 1000000000; }

#ifdef SECCOMP_IOCTL_NOTIF_SET_FLAGS
constexpr unsigned long kNotifSetFlags = SECCOMP_IOCTL_NOTIF_SET_FLAGS;
#else
constexpr unsigned long kNotifSetFlags = SECCOMP_IOW(4, __u64);
#endif
constexpr std::uint64_t kSyncWakeUp = 1;  // SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP

// The seccomp ioctls take the listener's lock interruptibly: an interrupt meant for a waiting
// call must not turn into a lost answer or a false "no longer valid".
int notify_ioctl(int fd, unsigned long request, void* arg) {
  int r;
  while ((r = ::ioctl(fd, request, arg)) != 0 && errno == EINTR) {}
  return r;
}

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

bool Supervisor::unix_path_allowed(const std::string& path) const {
  if (!restrict_unix_paths_) return true;
  for (const auto& d : unix_path_allow_)
    if (base::is_under(path, d)) return true;
  return false;
}

Result<std::shared_ptr<Supervisor>> Supervisor::create(const spec::ConnectPolicy& cp) {
  std::shared_ptr<Supervisor> s(new Supervisor());
  for (const auto* list : {&cp.deny, &cp.allow}) {
    const char* verb = list == &cp.deny ? "deny " : "allow ";
    for (const auto& text : *list) {
      auto rule = net::parse_rule(verb + text);
      if (!rule)
        return Error(EINVAL, "network rule '" + std::string(verb) + text + "': " + rule.error().message());
      s->policy_.rules.push_back(std::move(*rule));
    }
  }
  s->restrict_unix_paths_ = cp.restrict_unix_paths;
  s->hints_ = cp.hints;
  s->run_id_ = std::to_string(::getpid()) + "-" +
               std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  s->listen_ = cp.listen;
  for (const auto& d : cp.unix_path_allow) s->unix_path_allow_.push_back(base::normalize(d));
  if (!cp.allow_hosts.empty()) {
    // The host's nameservers are the resolver's upstreams, not reachable from the sandbox.
    Supervisor* self = s.get();
    RF_TRY_ASSIGN(egress, Egress::create(cp, [self](const std::string& line) { self->log_violation(line); }));
    s->egress_ = std::move(egress);
    s->policy_.default_verdict = net::Verdict::Deny;
  } else {
    for (const auto& text : cp.resolvers) {
      auto addr = net::parse_ip(text);
      if (!addr) return Error(EINVAL, "DNS resolver '" + text + "': " + addr.error().message());
      s->policy_.resolvers.push_back(*addr);
    }
  }
  if (!cp.violation_log.empty()) {
    RF_TRY(make_log_dir(cp.violation_log));
    const int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
    s->log_path_ = cp.violation_log;
    s->log_.reset(::open(cp.violation_log.c_str(), flags, 0600));
    if (!s->log_.valid()) return base::errno_error("violation log " + cp.violation_log);
    // A log of half the limit or more is moved aside (PATH.1, replacing the one before); this
    // run starts a new file. Another run may have moved it first: then its new file is used.
    struct stat st {};
    if (::fstat(s->log_.get(), &st) == 0 && static_cast<std::size_t>(st.st_size) >= kLogLimit / 2) {
      const std::string old = cp.violation_log + ".1";
      if (::rename(cp.violation_log.c_str(), old.c_str()) != 0 && errno != ENOENT)
        return base::errno_error("violation log: rename " + cp.violation_log + " to " + old);
      s->log_.reset(::open(cp.violation_log.c_str(), flags, 0600));
      if (!s->log_.valid()) return base::errno_error("violation log " + cp.violation_log);
    }
  }
  s->wake_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!s->wake_.valid()) return base::errno_error("connect policy: eventfd");
  // An emulated send to a closed peer must not kill the launcher (MSG_NOSIGNAL is passed too).
  ::signal(SIGPIPE, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(interrupt_signal(), &sa, nullptr) != 0)
    return base::errno_error("connect policy: sigaction");
  return s;
}

Supervisor::~Supervisor() { stop(); }

Status Supervisor::take_listener() {
  if (!target_pidfd_.valid()) {
    // Step 1: the command's pidfd.
    char byte;
    auto got = base::recv_fds(handoff_.get(), &byte, 1, 1, MSG_DONTWAIT);
    if (!got && got.error().code() == EAGAIN) return {};
    if (!got || got->bytes == 0) {  // the command failed before the hand-off; its error is on the status pipe
      handoff_.reset();
      return {};
    }
    if (got->fds.size() != 1) return Error(EPROTO, "connect policy: bad hand-off message");
    target_pidfd_ = std::move(got->fds[0]);
    return {};
  }
  // Step 3: the listener's number in the command (and the resolver's sockets' under the egress
  // allowlist); take our own copies.
  int numbers[3] = {-1, -1, -1};
  const bool resolver_from_child = egress_ && !egress_->shared_network();
  const std::size_t want = (resolver_from_child ? 3 : 1) * sizeof(int);
  ssize_t n = ::read(handoff_.get(), numbers, sizeof numbers);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return {};
  if (n != static_cast<ssize_t>(want)) {
    handoff_.reset();
    target_pidfd_.reset();
    return {};
  }
  auto listener = base::pidfd_getfd(target_pidfd_.get(), numbers[0]);
  if (!listener) return listener.error().reworded("connect policy: pidfd_getfd(listener)");
  listener_ = std::move(*listener);
  if (::fcntl(listener_.get(), F_SETFD, FD_CLOEXEC) != 0) return base::errno_error("fcntl");
  if (resolver_from_child) {
    auto udp = base::pidfd_getfd(target_pidfd_.get(), numbers[1]);
    if (!udp) return udp.error().reworded("egress allowlist: pidfd_getfd(the resolver's UDP socket)");
    auto tcp = base::pidfd_getfd(target_pidfd_.get(), numbers[2]);
    if (!tcp) return tcp.error().reworded("egress allowlist: pidfd_getfd(the resolver's TCP socket)");
    RF_TRY(egress_->start_resolver(std::move(*udp), std::move(*tcp)));
  }
  target_pidfd_.reset();
  // Linux 6.6+: the kernel wakes the receiving thread on the target's CPU and the target waits
  // in place, which halves a notification's round trip. Older kernels: the ordinary wake-up.
  std::uint64_t sync_flags = kSyncWakeUp;
  (void)::ioctl(listener_.get(), kNotifSetFlags, sync_flags);
  // The receiving thread, before the command is released: no call waits for it to start.
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  int err = ::pthread_create(&receiver_, &attr, &Supervisor::receive_main, this);
  pthread_attr_destroy(&attr);
  if (err != 0) return Error(err, "connect policy: starting the receiving thread");
  receiving_ = true;
  char ack = 'k';
  if (::write(handoff_.get(), &ack, 1) != 1)
    return base::errno_error("connect policy: hand-off acknowledgement");
  handoff_.reset();
  return {};
}

struct Supervisor::Worker {
  Supervisor* sup = nullptr;
  pthread_t thread{};
  std::uint64_t serving = 0;  // the notification id in hand, 0 when idle (under mu_)
  bool done = false;          // left its loop (under mu_)
};

void* Supervisor::receive_main(void* self) {
  set_thread_mask();
  static_cast<Supervisor*>(self)->receive_loop();
  return nullptr;
}

void* Supervisor::worker_main(void* w) {
  set_thread_mask();
  auto* worker = static_cast<Worker*>(w);
  worker->sup->worker_loop(*worker);
  return nullptr;
}

void Supervisor::receive_loop() {
  sigevent sev{};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = interrupt_signal();
  sev._sigev_un._tid = base::raw::gettid();
  have_guard_ = ::timer_create(CLOCK_MONOTONIC, &sev, &guard_) == 0;
  bool hung_up = false;
  std::int64_t last_sweep = base::monotonic_ms();
  while (!stopping_.load()) {
    int busy;
    {
      std::lock_guard<std::mutex> lock(mu_);
      busy = busy_;
    }
    pollfd fds[2] = {{hung_up ? -1 : listener_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    // While calls wait in workers, look every 250 ms for targets that went away meanwhile.
    int n = ::poll(fds, 2, busy ? 250 : -1);
    if (n < 0 && errno != EINTR) break;
    if (n > 0 && (fds[0].revents & POLLIN)) {
      seccomp_notif notif;
      std::memset(&notif, 0, sizeof notif);  // the kernel wants it zeroed
      // ENOENT: the target went away before we took it.
      if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_RECV, &notif) == 0) serve(notif);
    } else if (n > 0 && (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))) {
      hung_up = true;  // every process under the filter is gone; workers may still answer
    }
    if (busy && base::monotonic_ms() - last_sweep >= 250) {
      sweep();
      last_sweep = base::monotonic_ms();
    }
  }
  if (have_guard_) ::timer_delete(guard_);
  have_guard_ = false;
}

void Supervisor::serve(const seccomp_notif& n) {
  if (is_server_call(static_cast<long>(n.data.nr))) {
    base::UniqueFd recheck;
    Reply r = serve_server_call(*this, n, recheck);
    if (!r.proceed) return respond(n.id, r.error, r.value);
    respond_continue(n.id);
    if (recheck.valid()) check_unix_bind(std::move(recheck), static_cast<pid_t>(n.pid));
    return;
  }
  PendingPtr pending;
  auto reply = start_call(*this, n, pending);
  if (reply) return respond(n.id, reply->error, reply->value);
  // Every worker is busy waiting: one more bounded try, then refuse this call rather than
  // stall the others (keeping what it already sent).
  if (dispatch(pending)) return;
  Reply overflow = overflow_reply(*pending);
  respond(n.id, overflow.error, overflow.value);
}

bool Supervisor::dispatch(PendingPtr& call) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_.load()) return false;
  if (static_cast<int>(queue_.size()) >= idle_) {
    if (static_cast<int>(workers_.size()) >= kMaxWorkers) return false;
    auto w = std::make_unique<Worker>();
    w->sup = this;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    int err = ::pthread_create(&w->thread, &attr, &Supervisor::worker_main, w.get());
    pthread_attr_destroy(&attr);
    if (err != 0) {
      std::lock_guard<std::mutex> log_lock(log_mu_);
      base::log::debug(std::string("connect policy: starting a worker: ") + std::strerror(err));
      return false;
    }
    ++alive_;
    workers_.push_back(std::move(w));
  }
  ++busy_;
  queue_.push_back(std::move(call));
  cv_.notify_one();
  return true;
}

void Supervisor::worker_loop(Worker& w) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ++idle_;
    cv_.wait(lock, [this] { return stopping_.load() || !queue_.empty(); });
    --idle_;
    if (stopping_.load()) break;
    PendingPtr call = std::move(queue_.front());
    queue_.pop_front();
    const std::uint64_t id = pending_id(*call);
    w.serving = id;
    lock.unlock();
    Reply r = finish_call(*call, [this, id] { return stopping_.load() || !still_valid(id); });
    respond(id, r.error, r.value);
    call.reset();  // the duplicate socket and copies go now
    lock.lock();
    w.serving = 0;
    --busy_;
  }
  w.done = true;
  --alive_;
  idle_cv_.notify_all();
}

// Workers whose target is gone (killed while its call waited) are interrupted, so a pool slot
// is never held by a call nobody waits for.
void Supervisor::sweep() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& w : workers_)
    if (w->serving && !w->done && !still_valid(w->serving)) ::pthread_kill(w->thread, interrupt_signal());
}

void Supervisor::check_unix_bind(base::UniqueFd sock, pid_t pid) {
  std::shared_ptr<UnixBindCheck> check;
  {
    std::lock_guard<std::mutex> lock(breach_mu_);
    if (stopping_.load()) return;
    if (!unix_binds_)
      unix_binds_ = std::make_shared<UnixBindCheck>(
          [this](pid_t who, const net::Destination& d, const std::string& why) {
            net::Decision dec;
            dec.verdict = net::Verdict::Deny;
            dec.error = EACCES;
            dec.rule = why;
            log_violation(net::format_violation_json(std::chrono::system_clock::now(), who, "bind", d, dec));
            std::function<void()> stop_sandbox;
            {
              std::lock_guard<std::mutex> l(breach_mu_);
              breach_ = why;
              stop_sandbox = on_breach_;
            }
            if (stop_sandbox) stop_sandbox();
          });
    check = unix_binds_;
  }
  check->add(std::move(sock), pid);  // outside breach_mu_, which the check's callback takes
}

void Supervisor::set_on_breach(std::function<void()> stop_sandbox) {
  std::lock_guard<std::mutex> lock(breach_mu_);
  on_breach_ = std::move(stop_sandbox);
}

std::string Supervisor::breach() const {
  std::lock_guard<std::mutex> lock(breach_mu_);
  return breach_;
}

void Supervisor::stop() {
  if (stopping_.exchange(true)) return;
  if (receiving_) {
    std::uint64_t one = 1;
    (void)!::write(wake_.get(), &one, sizeof one);
    ::pthread_kill(receiver_, interrupt_signal());  // it may be in a guarded connect
    ::pthread_join(receiver_, nullptr);
    receiving_ = false;
  }
  {
    // Idle workers wake on the condition; waiting ones are interrupted, again until they are
    // out (a signal that lands just before the call it was meant for is lost).
    std::unique_lock<std::mutex> lock(mu_);
    cv_.notify_all();
    while (alive_ > 0) {
      for (const auto& w : workers_)
        if (!w->done && w->serving) ::pthread_kill(w->thread, interrupt_signal());
      idle_cv_.wait_for(lock, std::chrono::milliseconds(10));
      cv_.notify_all();
    }
  }
  for (const auto& w : workers_) ::pthread_join(w->thread, nullptr);
  workers_.clear();
  std::shared_ptr<UnixBindCheck> unix_binds;
  {
    std::lock_guard<std::mutex> l(breach_mu_);
    unix_binds = std::move(unix_binds_);
  }
  if (unix_binds) unix_binds->stop();
  if (egress_) egress_->stop();
  queue_.clear();  // never answered: with the listener closed, their targets see ENOSYS
  listener_.reset();
  std::lock_guard<std::mutex> lock(log_mu_);
  if (debug_suppressed_)
    base::log::debug("connect policy: " + std::to_string(debug_suppressed_) + " more denials not shown");
  if (log_dropped_)
    base::log::warning("connect policy: " + std::to_string(log_dropped_) +
                       " denials were not written to the violation log " + log_path_ + " (its limit of " +
                       std::to_string(kLogLimit >> 20) + " MiB per run was reached)");
}

bool Supervisor::arm_guard() {
  if (!have_guard_) return false;
  itimerspec its{};
  its.it_value.tv_nsec = kGuardMs * 1000000L;
  return ::timer_settime(guard_, 0, &its, nullptr) == 0;
}

void Supervisor::disarm_guard() {
  itimerspec its{};
  (void)::timer_settime(guard_, 0, &its, nullptr);
}

void Supervisor::respond(std::uint64_t id, int error, std::int64_t value) {
  seccomp_notif_resp resp{};
  resp.id = id;
  resp.error = error ? -error : 0;
  resp.val = error ? 0 : value;
  // ENOENT: the target was interrupted or killed meanwhile; nothing to answer.
  (void)notify_ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

int Supervisor::install_fd(std::uint64_t id, int src, int number, bool cloexec) {
  seccomp_notif_addfd add{};
  add.id = id;
  add.flags = SECCOMP_ADDFD_FLAG_SETFD;
  add.srcfd = static_cast<std::uint32_t>(src);
  add.newfd = static_cast<std::uint32_t>(number);
  add.newfd_flags = cloexec ? O_CLOEXEC : 0;
  const int r = notify_ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_ADDFD, &add);
  if (r < 0) return errno == ENOENT ? ECONNREFUSED : errno;
  if (egress_) egress_->note_installed(src);
  return 0;
}

void Supervisor::respond_continue(std::uint64_t id) {
  seccomp_notif_resp resp{};
  resp.id = id;
  resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  (void)notify_ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

bool Supervisor::still_valid(std::uint64_t id) const {
  std::uint64_t v = id;
  return notify_ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &v) == 0;
}

// Every denial: a debug line (at most kDebugPerSecond a second, the rest counted) and a line in
// the violation log (at most kLogLimit bytes per run, then one line saying that later ones are
// dropped).
void Supervisor::log_violation(const std::string& line) {
  std::lock_guard<std::mutex> lock(log_mu_);
  if (hints_ && hinted_kinds_.size() < 8) {
    if (auto e = net::explain_violation(line);
        e && std::find(hinted_kinds_.begin(), hinted_kinds_.end(), e->kind) == hinted_kinds_.end()) {
      hinted_kinds_.push_back(e->kind);
      const std::string text = "ringfence: " + net::explanation_line(*e) + "\n";
      (void)base::write_all(STDERR_FILENO, text);
    }
  }
  const std::int64_t now = now_seconds();
  if (now != debug_window_) {
    if (debug_suppressed_)
      base::log::debug("connect policy: " + std::to_string(debug_suppressed_) + " more denials not shown");
    debug_window_ = now;
    debug_shown_ = 0;
    debug_suppressed_ = 0;
  }
  if (debug_shown_ < kDebugPerSecond) {
    ++debug_shown_;
    base::log::debug("connect policy: " + line);
  } else {
    ++debug_suppressed_;
  }
  if (!log_.valid()) return;
  if (log_full_) {
    ++log_dropped_;
    return;
  }
  const std::string limit_line = net::format_log_limit_json(std::chrono::system_clock::now(), kLogLimit);
  if (log_written_ + line.size() + 1 + limit_line.size() + 1 > kLogLimit) {
    (void)base::write_all(log_.get(), limit_line + "\n");
    log_full_ = true;
    ++log_dropped_;
    return;
  }
  // The run's id first: `ringfence violations` and `why` group the lines by it.
  const std::string tagged =
      line.size() > 1 && line[0] == '{' ? "{\"run\":\"" + run_id_ + "\"," + line.substr(1) : line;
  (void)base::write_all(log_.get(), tagged + "\n");
  log_written_ += tagged.size() + 1;
}

namespace {

// What the supervisor needs from the kernel, tried on the launcher itself before anything is
// started: pidfd_open (Linux 5.3) and pidfd_getfd (5.6), without which no call could be
// performed (each would fail closed). A clear refusal instead of a sandbox whose network
// calls all fail. (User notifications themselves are checked when the command installs its
// filter; thread pidfds and WAIT_KILLABLE_RECV have fallbacks.)
Status check_kernel_support() {
  auto refuse = [](const char* what, int err) {
    return Error(0, std::string("the network connect policy cannot be enforced: ") + what + ": " +
                        std::strerror(err) +
                        "; run with --network off, or --allow-unfiltered-network to run without it");
  };
  auto self = base::pidfd_open(::getpid());
  if (!self) return refuse("pidfd_open (Linux 5.3+)", self.error().code());
  auto copy = base::pidfd_getfd(self->get(), self->get());
  if (!copy) return refuse("pidfd_getfd (Linux 5.6+)", copy.error().code());
  return {};
}

}  // namespace

base::Status prepare_supervisor(const spec::ConnectPolicy& policy, ChildContext& ctx,
                                std::shared_ptr<Supervisor>& out, base::UniqueFd& child_end) {
  RF_TRY(check_kernel_support());
  RF_TRY_ASSIGN(s, Supervisor::create(policy));
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return base::errno_error("socketpair");
  s->set_handoff(base::UniqueFd(sv[0]));
  child_end.reset(sv[1]);
  ctx.notify_sock = sv[1];
  ctx.connect_filter = connect_filter_program(policy.listen, !policy.allow_hosts.empty());
  out = std::move(s);
  return {};
}

}  // namespace rf::engine
