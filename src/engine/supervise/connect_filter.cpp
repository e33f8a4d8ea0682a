// SPDX-License-Identifier: LGPL-2.1-or-later
// The connect policy's seccomp program (built in the launcher; the listen policy's calls too)
// and its installation in the command process, with the hand-off of the listener to the
// launcher.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <vector>

#include "ringfence/base/fd_passing.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"
#include "supervisor.hpp"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

namespace rf::engine {
namespace {

constexpr unsigned kX32 = 0x40000000u;
constexpr unsigned kMsgFastopen = 0x20000000u;  // MSG_FASTOPEN

// A few labels and forward jumps are all this program needs.
class Asm {
public:
  enum Label : int {
    X64,
    X32,
    Other,
    Sendto,
    SendtoAddrHi,
    Sendmsg,
    Sendmmsg,
    Notify,
    Fastopen,
    NoSys,
    Allow,
    kLabels
  };
  void stmt(unsigned short code, unsigned k) {
    code_.push_back({code, 0, 0, k});
    fix_.push_back({-1, -1});
  }
  // Conditional jump: to `t` when true, `f` when false (-1: the next instruction).
  void jump(unsigned short code, unsigned k, int t, int f) {
    code_.push_back({code, 0, 0, k});
    fix_.push_back({t, f});
  }
  void label(Label l) { at_[l] = static_cast<int>(code_.size()); }
  std::string finish() {
    for (std::size_t i = 0; i < code_.size(); ++i) {
      auto off = [&](int l) {
        return l < 0 ? 0 : static_cast<unsigned char>(at_[l] - static_cast<int>(i) - 1);
      };
      code_[i].jt = off(fix_[i].first);
      code_[i].jf = off(fix_[i].second);
    }
    return std::string(reinterpret_cast<const char*>(code_.data()), code_.size() * sizeof(sock_filter));
  }

private:
  std::vector<sock_filter> code_;
  std::vector<std::pair<int, int>> fix_;
  int at_[kLabels] = {};
};

constexpr unsigned arg_lo(int i) { return offsetof(seccomp_data, args) + 8u * static_cast<unsigned>(i); }

}  // namespace

std::string connect_filter_program(spec::ListenPolicy listen, bool egress) {
  const bool servers = listen != spec::ListenPolicy::Unrestricted || egress;
  const bool accepts = listen == spec::ListenPolicy::None;
  Asm a;
  const unsigned short ld = BPF_LD | BPF_W | BPF_ABS, jeq = BPF_JMP | BPF_JEQ | BPF_K,
                       jset = BPF_JMP | BPF_JSET | BPF_K, jge = BPF_JMP | BPF_JGE | BPF_K,
                       ret = BPF_RET | BPF_K;
  a.stmt(ld, offsetof(seccomp_data, arch));
  a.jump(jeq, AUDIT_ARCH_X86_64, -1, Asm::Other);
  a.stmt(ld, offsetof(seccomp_data, nr));
  a.jump(jge, kX32, Asm::X32, -1);
  a.jump(jeq, SYS_connect, Asm::Notify, -1);
  a.jump(jeq, SYS_sendto, Asm::Sendto, -1);
  a.jump(jeq, SYS_sendmsg, Asm::Sendmsg, -1);
  // Servers: bind and listen, and accept with the network off, only where the policy limits them.
  if (servers)
    for (unsigned nr : {unsigned{SYS_bind}, unsigned{SYS_listen}}) a.jump(jeq, nr, Asm::Notify, -1);
  if (accepts)
    for (unsigned nr : {unsigned{SYS_accept}, unsigned{SYS_accept4}}) a.jump(jeq, nr, Asm::Notify, -1);
  a.jump(jeq, SYS_sendmmsg, Asm::Sendmmsg, Asm::Allow);
  // sendto: a NULL destination is in a register the target cannot change under us, so the
  // call needs no supervisor (the kernel sends to the connected peer, or fails).
  a.label(Asm::Sendto);
  a.stmt(ld, arg_lo(3));
  a.jump(jset, kMsgFastopen, Asm::Fastopen, -1);
  a.stmt(ld, arg_lo(4));
  a.jump(jeq, 0, Asm::SendtoAddrHi, Asm::Notify);
  a.label(Asm::SendtoAddrHi);
  a.stmt(ld, arg_lo(4) + 4);
  a.jump(jeq, 0, Asm::Allow, Asm::Notify);
  // sendmsg/sendmmsg: the destination is in memory; every call goes to the supervisor.
  a.label(Asm::Sendmsg);
  a.stmt(ld, arg_lo(2));
  a.jump(jset, kMsgFastopen, Asm::Fastopen, Asm::Notify);
  a.label(Asm::Sendmmsg);
  a.stmt(ld, arg_lo(3));
  a.jump(jset, kMsgFastopen, Asm::Fastopen, Asm::Notify);
  // x32 (compat msghdr layouts the supervisor does not decode): refused.
  a.label(Asm::X32);
  for (unsigned nr : {42u, 44u, 46u, 307u, 518u, 538u}) a.jump(jeq, kX32 | nr, Asm::NoSys, -1);
  if (servers)
    for (unsigned nr : {49u, 50u}) a.jump(jeq, kX32 | nr, Asm::NoSys, -1);
  if (accepts)
    for (unsigned nr : {43u, 288u}) a.jump(jeq, kX32 | nr, Asm::NoSys, -1);
  a.stmt(ret, SECCOMP_RET_ALLOW);
  // i386 (int $0x80): socketcall, connect, sendto, sendmsg, sendmmsg refused.
  a.label(Asm::Other);
  a.stmt(ld, offsetof(seccomp_data, nr));
  for (unsigned nr : {102u, 345u, 362u, 369u, 370u}) a.jump(jeq, nr, Asm::NoSys, -1);
  if (servers)  // bind, listen, accept4 (i386 has no accept of its own: socketcall)
    for (unsigned nr : {361u, 363u, 364u}) a.jump(jeq, nr, Asm::NoSys, -1);
  a.stmt(ret, SECCOMP_RET_ALLOW);
  a.label(Asm::Notify);
  a.stmt(ret, SECCOMP_RET_USER_NOTIF);
  a.label(Asm::Fastopen);
  a.stmt(ret, SECCOMP_RET_ERRNO | EOPNOTSUPP);
  a.label(Asm::NoSys);
  a.stmt(ret, SECCOMP_RET_ERRNO | ENOSYS);
  a.label(Asm::Allow);
  a.stmt(ret, SECCOMP_RET_ALLOW);
  return a.finish();
}

base::Status install_connect_filter_in_child(const ChildContext& ctx, int resolver_udp, int resolver_tcp) {
  const int sock = ctx.notify_sock;
  if (sock < 0) return {};
  // The launcher takes fds from us (pidfd_getfd): it must be able to, whatever our ids went
  // through. Nothing else of the sandbox runs yet (the reaper waits in vfork). The flag belongs
  // to the memory we share with the reaper, so it is cleared again once the listener is taken
  // (step 4): the command's exec gives it a memory of its own, and the reaper must not be
  // dumpable while the command already runs and before the reaper gets to clear it itself.
  prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  // 1. A pidfd of ourselves, sent while sendmsg is still unfiltered. (Child-safe calls: the
  //    Errors below are made only on failure.)
  base::UniqueFd self(base::raw::pidfd_open(::getpid(), 0));
  if (!self.valid()) return base::errno_error("connect policy: pidfd_open (needs Linux 5.3)");
  const int sfd = self.get();
  if (base::raw::send_fds(sock, {&sfd, 1}, nullptr, 'p', MSG_NOSIGNAL) != 1)
    return base::errno_error("connect policy: hand-off to the launcher");
  // 2. The filter. WAIT_KILLABLE_RECV (Linux 5.19): once the supervisor has the call, only a
  //    fatal signal interrupts it, so an emulated connect is not cut short by SIGCHLD & co.
  sock_fprog prog{};
  prog.len = static_cast<unsigned short>(ctx.connect_filter.size() / sizeof(sock_filter));
  prog.filter = reinterpret_cast<sock_filter*>(const_cast<char*>(ctx.connect_filter.data()));
  unsigned flags = SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
  int listener = base::raw::seccomp(SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (listener == -EINVAL)
    listener = base::raw::seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  if (listener < 0) {
    int err = -listener;
    const char* why = err == EBUSY
                          ? "a filter with a listener is already installed (is ringfence itself supervised?)"
                          : "seccomp user notifications are unavailable on this kernel (Linux 5.0+)";
    return base::Error(err, std::string("the network connect policy cannot be enforced: ") + why +
                                "; run with --network off, or --allow-unfiltered-network to run without it");
  }
  base::UniqueFd lfd(listener);
  // 3. Its number (and the resolver's): write() is not filtered.
  const int numbers[3] = {lfd.get(), resolver_udp, resolver_tcp};
  const std::size_t len = (resolver_udp >= 0 ? 3 : 1) * sizeof(int);
  if (::write(sock, numbers, len) != static_cast<ssize_t>(len))
    return base::errno_error("connect policy: hand-off to the launcher");
  // 4. The launcher holds its copy once it answers; ours goes.
  char byte;
  if (base::raw::read(sock, &byte, 1) != 1)
    return base::Error(EPIPE, "connect policy: the launcher did not take the listener");
  if (resolver_udp >= 0) ::close(resolver_udp);
  if (resolver_tcp >= 0) ::close(resolver_tcp);
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  return {};
}

}  // namespace rf::engine
