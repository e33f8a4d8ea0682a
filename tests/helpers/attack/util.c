// SPDX-License-Identifier: LGPL-2.1-or-later
// rf-attack: raw system calls, children, /proc helpers.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rf_attack.h"

const char* const EMPTY_ENV[] = {NULL};

long rsys(long nr, long a1, long a2, long a3, long a4, long a5, long a6) {
  return syscall(nr, a1, a2, a3, a4, a5, a6);
}

// The `syscall` instruction itself, without libc in between (S-08).
long asm_syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6) {
  long ret;
  register long r10 __asm__("r10") = a4;
  register long r8 __asm__("r8") = a5;
  register long r9 __asm__("r9") = a6;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

// The i386 ABI from this 64-bit process: `int $0x80`, arguments in ebx, ecx, edx, esi, edi, ebp.
// Pointers must lie below 4 GiB (low_page). Where the kernel has no IA32 emulation the instruction
// raises a general protection fault (SIGSEGV): callers run it in a child (in_child).
long i386_call(long nr, long a1, long a2, long a3, long a4, long a5, long a6) {
  long ret;
  register long r12 __asm__("r12") = a6;
  __asm__ volatile(
      "push %%rbp\n\t"
      "mov %%r12, %%rbp\n\t"
      "int $0x80\n\t"
      "pop %%rbp"
      : "=a"(ret)
      : "a"(nr), "b"(a1), "c"(a2), "d"(a3), "S"(a4), "D"(a5), "r"(r12)
      : "memory", "r8", "r9", "r10", "r11");
  return ret;
}

long landlock_abi(void) {
  static long abi = -2;
  if (abi == -2) abi = syscall(SYS_landlock_create_ruleset, 0L, 0L, 1L /* LANDLOCK_CREATE_RULESET_VERSION */);
  return abi < 0 ? -1 : abi;
}

void* low_page(void) {
  static void* p;
  if (!p) {
    p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (p == MAP_FAILED) p = NULL;
  }
  return p;
}

struct child_res in_child(long (*fn)(void*), void* arg, int timeout_s) {
  struct child_res r = {0};
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    r.status = -1;
    r.err = errno;
    return r;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    alarm((unsigned)timeout_s);
    errno = 0;
    long ret = fn(arg);
    long out[2] = {ret, errno};
    if (write(p[1], out, sizeof out) < 0) _exit(1);
    _exit(0);
  }
  close(p[1]);
  if (pid < 0) {
    close(p[0]);
    r.status = -1;
    r.err = errno;
    return r;
  }
  long out[2] = {-1, 0};
  ssize_t n = read(p[0], out, sizeof out);
  close(p[0]);
  waitpid(pid, &r.status, 0);
  if (n == (ssize_t)sizeof out) {
    r.ret = out[0];
    r.err = (int)out[1];
  } else {
    r.ret = -1;
  }
  return r;
}

const char* signame_of(int sig) {
  static char buf[16];
  switch (sig) {
    case SIGSYS: return "SIGSYS";
    case SIGSEGV: return "SIGSEGV";
    case SIGKILL: return "SIGKILL";
    case SIGALRM: return "SIGALRM";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    default: snprintf(buf, sizeof buf, "signal %d", sig); return buf;
  }
}

const char* errname(int err) {
  static char buf[16];
  switch (err) {
    case 0: return "0";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case ESRCH: return "ESRCH";
    case EINTR: return "EINTR";
    case EIO: return "EIO";
    case ENXIO: return "ENXIO";
    case EBADF: return "EBADF";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case EXDEV: return "EXDEV";
    case ENODEV: return "ENODEV";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EINVAL: return "EINVAL";
    case ENOTTY: return "ENOTTY";
    case ETXTBSY: return "ETXTBSY";
    case ENOSPC: return "ENOSPC";
    case EROFS: return "EROFS";
    case ENOSYS: return "ENOSYS";
    case ENODATA: return "ENODATA (nothing read)";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
    case ESOCKTNOSUPPORT: return "ESOCKTNOSUPPORT";
    case EPROTOTYPE: return "EPROTOTYPE";
    case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
    case ENETUNREACH: return "ENETUNREACH";
    case EHOSTUNREACH: return "EHOSTUNREACH";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EINPROGRESS: return "EINPROGRESS";
    case ENOTCONN: return "ENOTCONN";
    case EMSGSIZE: return "EMSGSIZE";
    case ENOKEY: return "ENOKEY";
    case EOVERFLOW: return "EOVERFLOW";
    default: snprintf(buf, sizeof buf, "errno %d", err); return buf;
  }
}

ssize_t read_file(const char* path, char* buf, size_t cap) {
  int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, 0, 0);
  if (fd < 0) return -1;
  size_t got = 0;
  while (got + 1 < cap) {
    long n = rsys(SYS_read, fd, (long)(buf + got), (long)(cap - 1 - got), 0, 0, 0);
    if (n < 0) {
      int e = errno;
      close(fd);
      errno = e;
      if (got) break;
      return -1;
    }
    if (n == 0) break;
    got += (size_t)n;
  }
  buf[got] = 0;
  close(fd);
  return (ssize_t)got;
}

bool mem_contains(const char* hay, size_t n, const char* needle) {
  size_t m = strlen(needle);
  if (!m || m > n) return false;
  for (size_t i = 0; i + m <= n; ++i)
    if (memcmp(hay + i, needle, m) == 0) return true;
  return false;
}

bool caps_dangerous_on_host(void) {
  char buf[4096];
  if (read_file("/proc/self/uid_map", buf, sizeof buf) < 0) return true;
  unsigned long a, b, c;
  bool initial = sscanf(buf, "%lu %lu %lu", &a, &b, &c) == 3 && a == 0 && b == 0 && c == 4294967295UL;
  if (!initial) return false;
  if (read_file("/proc/self/status", buf, sizeof buf) < 0) return true;
  const char* p = strstr(buf, "CapEff:");
  if (!p) return true;
  unsigned long long eff = strtoull(p + 7, NULL, 16);
  return (eff >> 21) & 1;  // CAP_SYS_ADMIN
}

int visible_pids(int* pids, int max) {
  DIR* d = opendir("/proc");
  if (!d) return 0;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) && n < max) {
    char* end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end || pid <= 0) continue;
    pids[n++] = (int)pid;
  }
  closedir(d);
  return n;
}

static bool holds_canary(int pid) {
  if (!cfg.canary) return false;
  static char buf[1 << 17];
  char path[64];
  const char* files[] = {"environ", "cmdline"};
  for (int i = 0; i < 2; ++i) {
    snprintf(path, sizeof path, "/proc/%d/%s", pid, files[i]);
    ssize_t n = read_file(path, buf, sizeof buf);
    if (n > 0 && mem_contains(buf, (size_t)n, cfg.canary)) return true;
  }
  return false;
}

// rf-attack and its children are never "outside"; they hold copies of the canary's memory.
static bool is_self_or_child(int pid) {
  if (pid == getpid()) return true;
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/%d/status", pid);
  if (read_file(path, buf, sizeof buf) < 0) return false;
  const char* p = strstr(buf, "PPid:");
  if (!p) return false;
  int ppid = atoi(p + 5);
  if (ppid == getpid()) return true;
  // a grandchild (an attack's own helper)
  snprintf(path, sizeof path, "/proc/%d/status", ppid);
  if (read_file(path, buf, sizeof buf) < 0) return false;
  p = strstr(buf, "PPid:");
  return p && atoi(p + 5) == getpid();
}

int canary_holders(int* out, int max) {
  static int pids[4096];
  int n = visible_pids(pids, 4096), k = 0;
  for (int i = 0; i < n && k < max; ++i) {
    if (is_self_or_child(pids[i])) continue;
    if (holds_canary(pids[i])) out[k++] = pids[i];
  }
  return k;
}

bool is_outside(int pid) {
  if (is_self_or_child(pid)) return false;
  char a[128] = "", b[128] = "", path[64];
  snprintf(path, sizeof path, "/proc/%d/ns/pid", pid);
  ssize_t n1 = readlink("/proc/self/ns/pid", a, sizeof a - 1);
  ssize_t n2 = readlink(path, b, sizeof b - 1);
  if (n1 > 0 && n2 > 0) {
    a[n1] = b[n2] = 0;
    if (strcmp(a, b) != 0) return true;
  }
  return holds_canary(pid);
}

// `rf-attack __survivor SECONDS`: a process that tries to outlive its sandbox (LIFE-05): new
// session, SIGTERM/SIGHUP/SIGINT ignored, parent-death signal cleared. It exits by itself after
// SECONDS (at most 30) so a failure never leaves it running for long.
int survivor_main(int argc, char** argv) {
  int secs = argc > 1 ? atoi(argv[1]) : 20;
  if (secs <= 0 || secs > 30) secs = 20;
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, 0);
  setsid();
  for (int fd = 0; fd < 3; ++fd) {
    int n = open("/dev/null", O_RDWR);
    if (n >= 0 && n != fd) {
      dup2(n, fd);
      close(n);
    }
  }
  sleep((unsigned)secs);
  return 0;
}
