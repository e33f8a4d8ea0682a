// SPDX-License-Identifier: LGPL-2.1-or-later
// The sandbox's pid 1 once the command runs: a program of its own, exec'd from a memfd that
// a uid of the sandbox owns, so that the kernel gives its memory the sandbox's user namespace
// (the caller, who owns that namespace, may then open /proc/PID/ns/*; the command, without
// capabilities, still may not touch it). It reaps every child, reports the command's status on
// the status pipe, forwards the launcher's signals to the command and keeps the lock-file and
// --sync-fd descriptors open until it exits.
//
// Freestanding (no C library): a few system calls, no allocation, a few kilobytes. The launcher
// passes its parameters in the environment, which the sandbox cannot read:
//   RINGFENCE_REAPER=STATUS_FD CMD_PID FLAGS SECCOMP_FD SECCOMP_LEN
//   RINGFENCE_REAPER_COMM=NAME
// FLAGS: 1 forward SIGINT/SIGTERM/SIGHUP/SIGQUIT to the command, 2 die with the launcher.
// SECCOMP_FD (or -1) holds the programs to install: for each, a 4-byte length in bytes, then
// the classic-BPF instructions.
#include <asm/unistd.h>
#include <linux/errno.h>
#include <linux/filter.h>
#include <linux/mman.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <linux/signal.h>
#include <linux/signalfd.h>
#include <linux/wait.h>

typedef unsigned long u64;

static long sys6(long n, long a, long b, long c, long d, long e, long f) {
#if defined(__x86_64__)
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
  return x0;
#else
#error "no system call sequence for this architecture"
#endif
}

#define SYS(n, a, b, c, d) sys6(__NR_##n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

__attribute__((noreturn)) static void die(int code) {
  for (;;) SYS(exit_group, code, 0, 0, 0);
}

// The status record (src/engine/sync.hpp): kind 2 is the command's exit, in bwrap's encoding.
struct record {
  int kind, stage, err, status;
  char message[1008];
};

static void report_exit(int fd, int code) {
  static struct record r;
  r.kind = 2;
  r.status = code;
  while (SYS(write, fd, &r, sizeof r, 0) == -EINTR) {}
}

// bwrap's encoding (encode_wait_status): n for exit(n), 128+s when killed by signal s.
static int encode(int st) {
  int sig = st & 0x7f;
  if (sig == 0) return (st >> 8) & 0xff;
  return sig != 0x7f ? 128 + sig : 255;
}

static int starts_with(const char* s, const char* prefix) {
  while (*prefix)
    if (*s++ != *prefix++) return 0;
  return 1;
}

static const char* number(const char* s, long* out) {
  long sign = 1, v = 0;
  while (*s == ' ') ++s;
  if (*s == '-') {
    sign = -1;
    ++s;
  }
  while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
  *out = sign * v;
  return s;
}

static int install_filters(long fd, long len) {
  if (fd < 0 || len <= 0) return 0;
  long p = sys6(__NR_mmap, 0, len, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p < 0 && p > -4096) return -1;
  const unsigned char* at = (const unsigned char*)p;
  const unsigned char* end = at + len;
  while (at + 4 <= end) {
    unsigned n = (unsigned)at[0] | (unsigned)at[1] << 8 | (unsigned)at[2] << 16 | (unsigned)at[3] << 24;
    at += 4;
    if (n > (unsigned long)(end - at)) return -1;
    struct sock_fprog prog = {(unsigned short)(n / sizeof(struct sock_filter)), (struct sock_filter*)at};
    if (SYS(prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0) != 0) return -1;
    at += n;
  }
  SYS(munmap, p, len, 0, 0);
  SYS(close, fd, 0, 0, 0);
  return 0;
}

__attribute__((used)) static void reaper_main(long* sp) {
  SYS(prctl, PR_SET_DUMPABLE, 0, 0, 0);  // the exec made it so already (see reaper_exec.cpp)
  long argc = sp[0];
  char** envp = (char**)(sp + 1 + argc + 1);
  long status_fd = -1, cmd = 0, flags = 0, seccomp_fd = -1, seccomp_len = 0;
  for (char** e = envp; *e; ++e) {
    if (starts_with(*e, "RINGFENCE_REAPER=")) {
      const char* s = *e + 17;
      s = number(s, &status_fd);
      s = number(s, &cmd);
      s = number(s, &flags);
      s = number(s, &seccomp_fd);
      number(s, &seccomp_len);
    } else if (starts_with(*e, "RINGFENCE_REAPER_COMM=")) {
      SYS(prctl, PR_SET_NAME, *e + 22, 0, 0);
    }
  }
  if (flags & 2) SYS(prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0);

  // Every signal the reaper acts on arrives through a signalfd: blocked (the forwarded ones
  // already were before the exec, so none was lost), read in the loop below.
  u64 mask = 1ul << (SIGCHLD - 1);
  if (flags & 1)
    mask |= 1ul << (SIGINT - 1) | 1ul << (SIGTERM - 1) | 1ul << (SIGHUP - 1) | 1ul << (SIGQUIT - 1);
  SYS(rt_sigprocmask, SIG_BLOCK, &mask, 0, sizeof mask);
  long sfd = sys6(__NR_signalfd4, -1, (long)&mask, sizeof mask, 0, 0, 0);
  // The caller's filters come last: they may deny what came before (bwrap's pid 1 runs under
  // them too). A filter that cannot be installed must not leave the command unfiltered.
  if (install_filters(seccomp_fd, seccomp_len) != 0) SYS(kill, cmd, SIGKILL, 0, 0);

  int code = 255, reported = 0;
  for (;;) {
    int st = 0;
    // Without a signalfd (a kernel or filter that refuses it) the wait blocks instead, and
    // signals are not forwarded.
    long p = SYS(wait4, -1, &st, sfd < 0 ? 0 : WNOHANG, 0);
    if (p == -EINTR) continue;
    if (p < 0) break;  // ECHILD: nothing left to reap
    if (p > 0) {
      if (p == cmd && !reported) {
        code = encode(st);
        report_exit((int)status_fd, code);
        SYS(close, status_fd, 0, 0, 0);
        reported = 1;
      }
      continue;
    }
    struct signalfd_siginfo si;
    long n = SYS(read, sfd, &si, sizeof si, 0);
    if (n == -EINTR) continue;
    if (n != (long)sizeof si) {  // a signalfd that cannot be read: block in the wait from now on
      SYS(close, sfd, 0, 0, 0);
      sfd = -1;
      continue;
    }
    if (si.ssi_signo != SIGCHLD && !reported) SYS(kill, cmd, si.ssi_signo, 0, 0);
  }
  die(code);
}

// The entry point: the kernel leaves argc, argv and envp on the stack.
#if defined(__x86_64__)
__asm__(
    ".text\n.global _start\n_start:\n  xor %ebp, %ebp\n  mov %rsp, %rdi\n  and $-16, %rsp\n"
    "  call reaper_main\n  hlt\n");
#elif defined(__aarch64__)
__asm__(
    ".text\n.global _start\n_start:\n  mov x29, #0\n  mov x30, #0\n  mov x0, sp\n"
    "  and sp, x0, #-16\n  bl reaper_main\n  brk #0\n");
#endif
