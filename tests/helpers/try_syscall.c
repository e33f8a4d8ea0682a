// SPDX-License-Identifier: LGPL-2.1-or-later
// try_syscall: perform ONE system call, the way the caller says, and print one JSON line. The
// seccomp tests run it inside a sandbox and judge the answer; run outside, it shows what the
// kernel itself answers.
//
// usage: try_syscall [--via libc|raw|i386|x32] [--hi32-junk N] [--timeout SECONDS] NAME [ARG...]
//        try_syscall --list        the supported names, their numbers and their arguments
//
// --via libc   the glibc wrapper where glibc has one (else the same as raw; the output then says
//              "libc_wrapper":false)
// --via raw    syscall(2) with the x86_64 number (the default)
// --via i386   `int $0x80` from this 64-bit process with the i386 number (registers ebx, ecx,
//              edx, esi, edi, ebp); every pointer the helper passes lies below 4 GiB (MAP_32BIT)
//              and i386 structure layouts are used where they differ
// --via x32    the x32 number (the x86_64 number, or the x32-only one in 512..547 for calls
//              with compat arguments, such as ioctl 514) | 0x40000000 through `syscall`
// --hi32-junk N   (raw only) set argument N's upper 32 bits to 0xdead0000 before the call, to
//              check that a filter compares 32-bit arguments on their low half only
//
// ARGs fill the call's VALUE arguments in the order --list shows them (`name=default`);
// pointer arguments (`name:what`) are built by the helper (a buffer for TIOCSTI, a struct
// clone_args for clone3, a path for mount, ...), and fixed arguments (`name!value`) cannot be
// changed. `-` keeps a default. A value is a number (decimal, 0x hex, 0 octal, negative) or a
// constant (AF_VSOCK, SOCK_STREAM, TIOCSTI, CLONE_NEWUSER, PER_LINUX32, ...), combined with
// `|`. Runtime values: SELF (the calling process), PARENT (try_syscall's first process), TARGET
// (a sleeping child made for the call, for the cross-process calls), PIPE_R / PIPE_W (the ends
// of a pipe holding one byte).
//
// Output, one line on stdout:
//   {"name":"unshare","via":"raw","nr":272,"ret":-1,"errno":1,"errno_name":"EPERM"}
//   {"name":"getpid","via":"raw","nr":39,"ret":42,"errno":0,"errno_name":null}
//   {"name":"mount","via":"raw","nr":165,"killed_by":"SIGSYS","signal":31}
//   {"name":"getpid","via":"i386","nr":20,"unsupported":"int $0x80 raised a general ..."}
// "unsupported" means the kernel cannot take the call at all through that ABI (no IA32
// emulation); an x32 call on a kernel without x32 support simply fails with ENOSYS.
// The call runs in a forked child, so a filter that kills the process shows as "killed_by".
// A call that blocks is ended by SIGALRM after --timeout seconds (default 10).
// Exit status: 0 when a line was printed, 2 on a usage error, 1 on an internal failure.
//
// Safety: every call must be harmless when no filter stops it, even as root on a host. The
// arguments are chosen so the kernel refuses or does nothing, and so its answer differs from a
// filter's EPERM/ENOSYS where possible: reboot, kexec_load and kexec_file_load get invalid
// magic numbers and flags (never the glibc reboot wrapper, which supplies real magic); mount,
// umount2, pivot_root, chroot, swapon, swapoff, acct, uselib, quotactl name a path that does
// not exist; settimeofday and clock_settime get an out-of-range time (EINVAL); adjtimex and
// clock_adjtime only read (modes 0); syslog only reads sizes; keyctl only reads; add_key adds
// to the child's own process keyring; vhangup runs after setsid, without a terminal; the
// cross-process calls act on TARGET; chmod, fchmod, fchmodat and fchmodat2 change a file of the
// helper's own that no name reaches any more (created in the working directory, or /tmp, and
// unlinked before the call); open, openat, creat, mknod and mknodat name "/" (a directory that
// exists: nothing is created whatever the mode); setsockopt gets fd -1; clone and clone3 drop CLONE_VM,
// CLONE_VFORK, CLONE_THREAD and the flags that write through pointers, and the new process exits at once;
// unshare and personality change only the child.
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/kcmp.h>
#include <linux/keyctl.h>
#include <linux/mempolicy.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/quota.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define X32_BIT 0x40000000L
#define JUNK_HI 0xdead000000000000ULL
#define NOPATH "/nonexistent-ringfence-try"

// Numbers newer than the installed kernel headers (x86_64 and i386 share them).
#define NR_MSEAL 462
#define NR_FCHMODAT2 452

// syslog(2) actions, not in the userspace headers.
#define SYSLOG_ACTION_CLOSE 0
#define SYSLOG_ACTION_OPEN 1
#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_UNREAD 9
#define SYSLOG_ACTION_SIZE_BUFFER 10

// i386 ipc(2) multiplexer call number for shmdt.
#define IPC_CALL_SHMDT 22

// clone3's argument, version 2 layout (88 bytes), defined here so <linux/sched.h> is not needed.
struct rf_clone_args {
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size,
      cgroup;
};

// ---------------------------------------------------------------------------------------------
// Call state

enum via { VIA_LIBC, VIA_RAW, VIA_I386, VIA_X32 };
static const char* const via_names[] = {"libc", "raw", "i386", "x32"};

enum rt { RT_NONE, RT_SELF, RT_PARENT, RT_TARGET, RT_TARGET_PIDFD, RT_PIPE_R, RT_PIPE_W };

#define MAXA 6

typedef struct call call;
typedef int (*prep_fn)(call* c);  // 0, or -1 with c->msg set (usage error)
typedef long (*libc_fn)(call* c);

enum { F_FORKS = 1, F_TARGET = 2 };

struct sc {
  const char* name;
  long nr64;  // -1: there is no x86_64 call (i386 multiplexers)
  int nr32;   // -1: there is no i386 call
  int nrx32;  // the x32 number when it is not the x86_64 one, else 0
  const char* params;
  prep_fn prep;
  libc_fn libc;
  unsigned flags;
};

struct call {
  const struct sc* sc;
  bool abi32;  // build i386 layouts
  int nargs, nx;
  unsigned long long a[MAXA];
  enum rt art[MAXA];
  unsigned long long x[MAXA];  // extra values ("+name=") that are not call arguments
  enum rt xrt[MAXA];
  pid_t parent, target;
  int target_pidfd;
  int pipefd[2];
  char msg[200];
};

// Scratch memory below 4 GiB, mapped before any fork so TARGET has the same at the same address.
static unsigned char* arena;
static size_t arena_used;
#define ARENA_SIZE (1u << 20)

static void* alloc32(size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (arena_used + n > ARENA_SIZE) {
    fputs("try_syscall: scratch arena exhausted\n", stderr);
    _exit(1);
  }
  void* p = arena + arena_used;
  arena_used += n;
  memset(p, 0, n);
  return p;
}

static unsigned long long str32(const char* s) {
  char* p = alloc32(strlen(s) + 1);
  strcpy(p, s);
  return (unsigned long long)(uintptr_t)p;
}

static unsigned long long ptr(void* p) { return (unsigned long long)(uintptr_t)p; }
static void* vp(unsigned long long v) { return (void*)(uintptr_t)v; }

// A page of the arena, page aligned (for mbind, move_pages, mseal, process_madvise).
static void* scratch_page;

// ---------------------------------------------------------------------------------------------
// Constants accepted in ARGs

struct konst {
  const char* name;
  long long value;
};
#define K(x) \
  { #x, (long long)(x) }
static const struct konst konsts[] = {
    // address families, socket types, protocols
    K(AF_UNSPEC),
    K(AF_UNIX),
    K(AF_LOCAL),
    K(AF_INET),
    K(AF_INET6),
    K(AF_NETLINK),
    K(AF_PACKET),
    K(AF_VSOCK),
    K(AF_ALG),
    K(AF_XDP),
    K(AF_BLUETOOTH),
    K(AF_RDS),
    K(AF_TIPC),
    K(AF_KEY),
    K(AF_CAN),
    K(AF_APPLETALK),
    K(AF_AX25),
    K(AF_IPX),
    K(AF_X25),
    K(AF_NFC),
    K(AF_SMC),
    K(AF_QIPCRTR),
    K(AF_MCTP),
    K(AF_LLC),
    K(AF_PPPOX),
    K(AF_ISDN),
    K(AF_PHONET),
    K(AF_IEEE802154),
    K(AF_CAIF),
    K(AF_KCM),
    K(AF_ATMPVC),
    K(AF_ATMSVC),
    K(AF_ROSE),
    K(AF_NETROM),
    K(AF_DECnet),
    K(AF_MAX),
    K(SOCK_STREAM),
    K(SOCK_DGRAM),
    K(SOCK_RAW),
    K(SOCK_SEQPACKET),
    K(SOCK_RDM),
    K(SOCK_PACKET),
    K(SOCK_CLOEXEC),
    K(SOCK_NONBLOCK),
    K(IPPROTO_IP),
    K(IPPROTO_ICMP),
    K(IPPROTO_ICMPV6),
    K(IPPROTO_TCP),
    K(IPPROTO_UDP),
    K(IPPROTO_SCTP),
    K(IPPROTO_IPV6),
    K(SOL_SOCKET),
    K(IP_TOS),
    K(IP_OPTIONS),
    K(IPV6_V6ONLY),
    K(IPV6_UNICAST_HOPS),
    K(IPV6_RTHDR),
    K(IPV6_2292RTHDR),
    K(IPV6_2292PKTOPTIONS),
    K(NETLINK_ROUTE),
    K(NETLINK_SOCK_DIAG),
    K(NETLINK_AUDIT),
    K(NETLINK_KOBJECT_UEVENT),
    K(NETLINK_GENERIC),
    K(NETLINK_NETFILTER),
    K(NETLINK_XFRM),
    K(NETLINK_SELINUX),
    K(NETLINK_CONNECTOR),
    K(SYS_SOCKET),
    K(SYS_BIND),
    K(SYS_CONNECT),
    K(SYS_SOCKETPAIR),
    // ioctl requests
    K(TIOCSTI),
    K(TIOCLINUX),
    K(TIOCSETD),
    K(TIOCGETD),
    K(TCGETS),
    K(TCSETS),
    K(TIOCGWINSZ),
    K(TIOCSWINSZ),
    K(TIOCSCTTY),
    K(TIOCNOTTY),
    K(TIOCGPGRP),
    K(TIOCSPGRP),
    K(TIOCCONS),
    K(FIONREAD),
    K(FIONBIO),
    K(FIOCLEX),
    // clone and namespace flags, signals used as exit signals
    K(CLONE_VM),
    K(CLONE_FS),
    K(CLONE_FILES),
    K(CLONE_SIGHAND),
    K(CLONE_PIDFD),
    K(CLONE_PTRACE),
    K(CLONE_VFORK),
    K(CLONE_PARENT),
    K(CLONE_THREAD),
    K(CLONE_NEWNS),
    K(CLONE_SYSVSEM),
    K(CLONE_SETTLS),
    K(CLONE_PARENT_SETTID),
    K(CLONE_CHILD_CLEARTID),
    K(CLONE_UNTRACED),
    K(CLONE_CHILD_SETTID),
    K(CLONE_NEWCGROUP),
    K(CLONE_NEWUTS),
    K(CLONE_NEWIPC),
    K(CLONE_NEWUSER),
    K(CLONE_NEWPID),
    K(CLONE_NEWNET),
    K(CLONE_IO),
    K(CLONE_NEWTIME),
    K(SIGCHLD),
    K(SIGKILL),
    K(SIGTERM),
    K(SIGSTOP),
    K(SIGCONT),
    K(SIGUSR1),
    K(SIGSYS),
    // personality
    K(PER_LINUX),
    K(PER_LINUX32),
    K(PER_SVR4),
    K(PER_BSD),
    K(ADDR_NO_RANDOMIZE),
    K(READ_IMPLIES_EXEC),
    K(MMAP_PAGE_ZERO),
    K(ADDR_COMPAT_LAYOUT),
    K(ADDR_LIMIT_32BIT),
    K(ADDR_LIMIT_3GB),
    K(UNAME26),
    K(SHORT_INODE),
    K(WHOLE_SECONDS),
    K(STICKY_TIMEOUTS),
    {"PER_QUERY", 0xffffffffLL},
    // ptrace, kcmp, pidfd, process_madvise
    K(PTRACE_TRACEME),
    K(PTRACE_ATTACH),
    K(PTRACE_SEIZE),
    K(PTRACE_DETACH),
    K(PTRACE_PEEKDATA),
    K(PTRACE_POKEDATA),
    K(PTRACE_GETREGS),
    K(PTRACE_CONT),
    K(PTRACE_INTERRUPT),
    K(KCMP_FILE),
    K(KCMP_VM),
    K(KCMP_FILES),
    K(KCMP_FS),
    K(KCMP_SIGHAND),
    K(KCMP_IO),
    K(KCMP_SYSVSEM),
    K(MADV_COLD),
    K(MADV_PAGEOUT),
    K(MADV_WILLNEED),
    // files, mounts
    K(AT_FDCWD),
    K(AT_EMPTY_PATH),
    K(AT_RECURSIVE),
    K(AT_SYMLINK_NOFOLLOW),
    K(O_RDONLY),
    K(O_WRONLY),
    K(O_RDWR),
    K(O_CREAT),
    K(O_CLOEXEC),
    K(O_DIRECTORY),
    K(O_PATH),
    K(O_NONBLOCK),
    K(O_TMPFILE),
    K(S_IFREG),
    K(S_IFIFO),
    K(S_ISUID),
    K(S_ISGID),
    K(S_ISVTX),
    K(F_GETFD),
    K(F_SETFD),
    K(F_GETFL),
    K(F_SETFL),
    K(F_DUPFD),
    K(F_DUPFD_CLOEXEC),
    K(F_SETOWN),
    K(F_GETOWN),
    K(MS_RDONLY),
    K(MS_NOSUID),
    K(MS_NODEV),
    K(MS_NOEXEC),
    K(MS_REMOUNT),
    K(MS_BIND),
    K(MS_MOVE),
    K(MS_REC),
    K(MS_PRIVATE),
    K(MS_SHARED),
    K(MS_SLAVE),
    K(MNT_FORCE),
    K(MNT_DETACH),
    K(MNT_EXPIRE),
    K(OPEN_TREE_CLONE),
    K(OPEN_TREE_CLOEXEC),
    K(FSOPEN_CLOEXEC),
    K(FSPICK_CLOEXEC),
    K(FSMOUNT_CLOEXEC),
    K(MOVE_MOUNT_F_EMPTY_PATH),
    K(MOUNT_ATTR_RDONLY),
    K(FAN_CLASS_NOTIF),
    K(FAN_CLASS_CONTENT),
    K(FAN_CLASS_PRE_CONTENT),
    K(FAN_REPORT_FID),
    K(FAN_CLOEXEC),
    K(FAN_NONBLOCK),
    K(FAN_UNLIMITED_QUEUE),
    K(FAN_MARK_ADD),
    K(FAN_MARK_MOUNT),
    K(FAN_MARK_FILESYSTEM),
    K(FAN_OPEN),
    K(FAN_ACCESS),
    K(FAN_MODIFY),
    K(FAN_OPEN_PERM),
    // keys, bpf, userfaultfd, numa, limits, prctl, syslog, clocks
    K(KEYCTL_GET_KEYRING_ID),
    K(KEYCTL_DESCRIBE),
    K(KEYCTL_READ),
    K(KEYCTL_GET_SECURITY),
    K(KEY_SPEC_THREAD_KEYRING),
    K(KEY_SPEC_PROCESS_KEYRING),
    K(KEY_SPEC_SESSION_KEYRING),
    K(KEY_SPEC_USER_KEYRING),
    K(KEY_SPEC_USER_SESSION_KEYRING),
    K(BPF_MAP_CREATE),
    K(BPF_PROG_LOAD),
    K(BPF_OBJ_GET),
    K(BPF_PROG_ATTACH),
    K(BPF_BTF_LOAD),
    K(PERF_FLAG_FD_CLOEXEC),
    K(UFFD_USER_MODE_ONLY),
    K(MPOL_DEFAULT),
    K(MPOL_BIND),
    K(MPOL_PREFERRED),
    K(MPOL_INTERLEAVE),
    K(MPOL_LOCAL),
    K(MPOL_MF_MOVE),
    K(MPOL_MF_MOVE_ALL),
    K(MPOL_MF_STRICT),
    K(RLIMIT_NOFILE),
    K(RLIMIT_CORE),
    K(RLIMIT_NPROC),
    K(RLIMIT_AS),
    K(RLIMIT_STACK),
    K(PR_GET_DUMPABLE),
    K(PR_SET_DUMPABLE),
    K(PR_GET_NAME),
    K(PR_SET_NO_NEW_PRIVS),
    K(PR_GET_NO_NEW_PRIVS),
    K(PR_GET_SECCOMP),
    K(PR_CAPBSET_READ),
    K(PR_SET_MM),
    K(PR_SET_PTRACER),
    K(SYSLOG_ACTION_CLOSE),
    K(SYSLOG_ACTION_OPEN),
    K(SYSLOG_ACTION_READ_ALL),
    K(SYSLOG_ACTION_SIZE_UNREAD),
    K(SYSLOG_ACTION_SIZE_BUFFER),
    K(CLOCK_REALTIME),
    K(CLOCK_MONOTONIC),
    K(CLOCK_TAI),
    K(CLOCK_BOOTTIME),
};

static bool lookup_const(const char* s, size_t n, long long* v) {
  for (size_t i = 0; i < sizeof konsts / sizeof konsts[0]; ++i) {
    if (strlen(konsts[i].name) == n && strncmp(konsts[i].name, s, n) == 0) {
      *v = konsts[i].value;
      return true;
    }
  }
  return false;
}

static const struct {
  const char* name;
  enum rt rt;
} runtime_names[] = {{"SELF", RT_SELF},     {"PARENT", RT_PARENT},
                     {"TARGET", RT_TARGET}, {"TARGET_PIDFD", RT_TARGET_PIDFD},
                     {"PIPE_R", RT_PIPE_R}, {"PIPE_W", RT_PIPE_W}};

// Parses "TOKEN|TOKEN|...". Returns false on an unknown word or a malformed number.
static bool parse_value(const char* s, unsigned long long* out, enum rt* rt) {
  *rt = RT_NONE;
  for (size_t i = 0; i < sizeof runtime_names / sizeof runtime_names[0]; ++i) {
    if (strcmp(s, runtime_names[i].name) == 0) {
      *rt = runtime_names[i].rt;
      *out = 0;
      return true;
    }
  }
  unsigned long long v = 0;
  const char* p = s;
  if (*p == '\0') return false;
  while (*p) {
    size_t n = strcspn(p, "|");
    if (n == 0) return false;
    char tok[64];
    if (n >= sizeof tok) return false;
    memcpy(tok, p, n);
    tok[n] = '\0';
    long long k;
    if ((tok[0] >= '0' && tok[0] <= '9') || tok[0] == '-') {
      char* end;
      errno = 0;
      unsigned long long t =
          tok[0] == '-' ? (unsigned long long)strtoll(tok, &end, 0) : strtoull(tok, &end, 0);
      if (errno != 0 || *end != '\0') return false;
      v |= t;
    } else if (lookup_const(tok, n, &k)) {
      v |= (unsigned long long)k;
    } else {
      return false;
    }
    p += n;
    if (*p == '|') ++p;
  }
  *out = v;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Preparation: pointers, fixed layouts and guards, run in the child just before the call.

static int usage_err(call* c, const char* msg) {
  snprintf(c->msg, sizeof c->msg, "%s: %s", c->sc->name, msg);
  return -1;
}

static unsigned long long buffer(size_t n) { return ptr(alloc32(n)); }

static int p_buf1(call* c) {  // arg1 is a buffer
  c->a[1] = buffer(4096);
  return 0;
}
static int p_read(call* c) {
  c->a[1] = buffer(4096);
  if (c->a[2] > 4096) return usage_err(c, "count must be at most 4096");
  return 0;
}
static int p_write(call* c) {
  c->a[1] = str32("x");
  if (c->a[2] > 1) return usage_err(c, "count must be 0 or 1");
  return 0;
}
static int p_openat(call* c) {
  if (c->a[2] & (O_CREAT | O_TRUNC | O_WRONLY | O_RDWR | (O_TMPFILE & ~O_DIRECTORY)))
    return usage_err(c, "only read-only opens of / are offered");
  c->a[1] = str32("/");
  return 0;
}
static int p_open(call* c) {
  if (c->a[1] & (O_CREAT | O_TRUNC | O_WRONLY | O_RDWR | (O_TMPFILE & ~O_DIRECTORY)))
    return usage_err(c, "only read-only opens of / are offered");
  c->a[0] = str32("/");
  return 0;
}
static int p_root0(call* c) {  // creat, mknod: "/" exists, so nothing is created (EISDIR, EEXIST)
  c->a[0] = str32("/");
  return 0;
}
static int p_root1(call* c) {  // mknodat
  c->a[1] = str32("/");
  return 0;
}
// A regular file of the helper's own, created and unlinked at once: a mode change reaches an
// inode that goes away with this process. Returns its fd, or -1 with c->msg set.
static int unlinked_file(call* c) {
  static const char* const dirs[] = {".", "/tmp", "/dev/shm"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; ++i) {
    char name[96];
    snprintf(name, sizeof name, "%s/rf-try-unlinked-%d", dirs[i], (int)getpid());
    int fd = open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) continue;
    unlink(name);
    return fd;
  }
  usage_err(c, "no writable directory for the scratch file (., /tmp, /dev/shm)");
  return -1;
}
static unsigned long long fd_path(int fd) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  return str32(path);
}
static int p_chmod(call* c) {
  int fd = unlinked_file(c);
  if (fd < 0) return -1;
  c->a[0] = fd_path(fd);
  return 0;
}
static int p_fchmod(call* c) {
  int fd = unlinked_file(c);
  if (fd < 0) return -1;
  c->a[0] = (unsigned long long)fd;
  return 0;
}
static int p_fchmodat(call* c) {
  int fd = unlinked_file(c);
  if (fd < 0) return -1;
  c->a[1] = fd_path(fd);
  return 0;
}
static int p_openat2(call* c) {
  uint64_t* how = alloc32(24);  // struct open_how {flags, mode, resolve}
  how[0] = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  c->a[1] = str32("/");
  c->a[2] = ptr(how);
  return 0;
}
static int p_setsockopt(call* c) {
  int* v = alloc32(64);
  c->a[3] = ptr(v);
  if (c->a[4] > 64) return usage_err(c, "optlen must be at most 64");
  return 0;
}
static int p_arg0_buf(call* c) {
  c->a[0] = buffer(4096);
  return 0;
}
static int p_socketpair(call* c) {
  c->a[3] = buffer(2 * sizeof(int));
  return 0;
}
static int p_ioctl(call* c) {
  int* b = alloc32(4096);  // room for any request's argument
  b[0] = (int)c->x[0];
  c->a[2] = ptr(b);
  return 0;
}
static int p_kill(call* c) {
  if ((long long)c->a[0] <= 0 && c->art[0] == RT_NONE)
    return usage_err(c, "pid must be positive (no process groups, never -1)");
  return 0;
}

// Flags that need shared memory or write through pointers: the new process would run on the
// caller's stack or write to address 0. Dropped so a call that succeeds stays harmless.
#define CLONE_UNSAFE                                                                            \
  (CLONE_VM | CLONE_VFORK | CLONE_THREAD | CLONE_SIGHAND | CLONE_SETTLS | CLONE_PARENT_SETTID | \
   CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | CLONE_PIDFD)
static int p_clone(call* c) {
  c->a[0] &= ~(unsigned long long)CLONE_UNSAFE;
  return 0;
}
static int p_clone3(call* c) {
  struct rf_clone_args* ca = alloc32(sizeof *ca);
  ca->flags = c->x[0] & ~(unsigned long long)CLONE_UNSAFE & ~0x200000000ULL;  // no INTO_CGROUP
  ca->exit_signal = c->x[1];
  c->a[0] = ptr(ca);
  c->a[1] = sizeof *ca;
  return 0;
}
static int p_io_uring_setup(call* c) {
  c->a[1] = buffer(256);  // struct io_uring_params, zeroed
  return 0;
}
static int p_keyctl(call* c) {
  switch (c->a[0]) {
    case KEYCTL_GET_KEYRING_ID:
      c->a[2] = 0;  // never create a keyring
      break;
    case KEYCTL_DESCRIBE:
    case KEYCTL_READ:
    case KEYCTL_GET_SECURITY:
      c->a[2] = buffer(4096);
      c->a[3] = 0;  // buffer length 0: the kernel reports the size only
      break;
    default: return usage_err(c, "only the reading operations GET_KEYRING_ID, DESCRIBE, READ, GET_SECURITY");
  }
  return 0;
}
static int p_add_key(call* c) {
  c->a[0] = str32("user");
  c->a[1] = str32("ringfence-try");
  c->a[2] = str32("x");
  return 0;
}
static int p_request_key(call* c) {
  c->a[0] = str32("user");
  c->a[1] = str32("ringfence-try-nonexistent");
  return 0;
}
static int p_bpf(call* c) {
  c->a[1] = buffer(128);  // union bpf_attr, zeroed: every command rejects it or does nothing
  c->a[2] = 128;
  return 0;
}
static int p_perf(call* c) {
  struct perf_event_attr* pa = alloc32(sizeof *pa);
  pa->type = PERF_TYPE_SOFTWARE;
  pa->size = sizeof *pa;
  pa->config = PERF_COUNT_SW_DUMMY;
  pa->disabled = 1;
  pa->exclude_kernel = 1;
  pa->exclude_hv = 1;
  c->a[0] = ptr(pa);
  return 0;
}
static int p_init_module(call* c) {
  c->a[0] = buffer(16);  // zeros: not an ELF image
  c->a[2] = str32("");
  return 0;
}
static int p_finit_module(call* c) {
  c->a[1] = str32("");
  return 0;
}
static int p_delete_module(call* c) {
  c->a[0] = str32("ringfence_try_no_such_module");
  return 0;
}
static int p_lookup_dcookie(call* c) {
  c->a[1] = buffer(64);
  return 0;
}
static int p_name_to_handle_at(call* c) {
  struct file_handle* fh = alloc32(sizeof *fh + 128);
  fh->handle_bytes = 128;
  c->a[1] = str32("/");
  c->a[2] = ptr(fh);
  c->a[3] = buffer(sizeof(int));
  return 0;
}
static int p_open_by_handle_at(call* c) {
  c->a[1] = ptr(alloc32(sizeof(struct file_handle) + 128));  // handle_bytes 0: invalid
  return 0;
}
static int p_mount(call* c) {
  c->a[0] = str32("none");
  c->a[1] = str32(NOPATH "/target");
  c->a[2] = str32("tmpfs");
  return 0;
}
static int p_nopath0(call* c) {
  c->a[0] = str32(NOPATH);
  return 0;
}
static int p_pivot_root(call* c) {
  c->a[0] = str32(NOPATH "/new");
  c->a[1] = str32(NOPATH "/old");
  return 0;
}
static int p_fsopen(call* c) {
  c->a[0] = str32("tmpfs");
  return 0;
}
static int p_nopath1(call* c) {
  c->a[1] = str32(NOPATH);
  return 0;
}
static int p_move_mount(call* c) {
  c->a[1] = str32(NOPATH "/from");
  c->a[3] = str32(NOPATH "/to");
  return 0;
}
static int p_open_tree(call* c) {
  c->a[1] = str32("/");
  return 0;
}
static int p_mount_setattr(call* c) {
  uint64_t* attr = alloc32(32);  // struct mount_attr {attr_set, attr_clr, propagation, userns_fd}
  attr[0] = MOUNT_ATTR_RDONLY;
  c->a[1] = str32(NOPATH);
  c->a[3] = ptr(attr);
  c->a[4] = 32;
  return 0;
}
static int p_vhangup(call* c) {
  (void)c;
  setsid();  // no controlling terminal any more: nothing to hang up even for root
  return 0;
}
static int p_settimeofday(call* c) {
  if (c->abi32) {
    int32_t* tv = alloc32(8);
    tv[1] = 2000000;  // tv_usec out of range: EINVAL before any change
    c->a[0] = ptr(tv);
  } else {
    int64_t* tv = alloc32(16);
    tv[1] = 2000000;
    c->a[0] = ptr(tv);
  }
  return 0;
}
static int p_clock_settime(call* c) {
  if (c->abi32) {  // i386 clock_settime takes the 32-bit timespec
    int32_t* ts = alloc32(8);
    ts[1] = -1;  // tv_nsec out of range: EINVAL before any change
    c->a[1] = ptr(ts);
  } else {
    int64_t* ts = alloc32(16);
    ts[1] = -1;
    c->a[1] = ptr(ts);
  }
  return 0;
}
static int p_timex0(call* c) {  // adjtimex: struct timex with modes 0, a pure read
  c->a[0] = buffer(512);
  return 0;
}
static int p_timex1(call* c) {  // clock_adjtime
  c->a[1] = buffer(512);
  return 0;
}
static int p_syslog(call* c) {
  switch (c->a[0]) {
    case SYSLOG_ACTION_CLOSE:
    case SYSLOG_ACTION_OPEN:
    case SYSLOG_ACTION_READ_ALL:
    case SYSLOG_ACTION_SIZE_UNREAD:
    case SYSLOG_ACTION_SIZE_BUFFER: break;
    default: return usage_err(c, "only the non-destructive actions 0, 1, 3, 9, 10");
  }
  if ((long long)c->a[2] < 0 || c->a[2] > 4096) return usage_err(c, "len must be 0..4096");
  c->a[1] = buffer(4096);
  return 0;
}
static int p_quotactl(call* c) {
  c->a[1] = str32(NOPATH);
  c->a[3] = buffer(256);
  return 0;
}
static int p_quotactl_fd(call* c) {
  c->a[3] = buffer(256);
  return 0;
}
static int p_iopl(call* c) {
  if (c->a[0] > 3) return usage_err(c, "level must be 0..3");
  return 0;
}
static int p_fanotify_mark(call* c) {
  unsigned long long path = str32("/");
  if (c->abi32) {  // i386: the 64-bit mask travels in two registers
    unsigned long long mask = c->a[2], dirfd = c->a[3];
    c->a[2] = mask & 0xffffffffULL;
    c->a[3] = mask >> 32;
    c->a[4] = dirfd;
    c->a[5] = path;
    c->nargs = 6;
  } else {
    c->a[4] = path;
  }
  return 0;
}
static int p_mbind(call* c) {
  c->a[0] = ptr(scratch_page);
  return 0;
}
static int p_move_pages(call* c) {
  if (c->abi32) {
    uint32_t* pages = alloc32(4);
    pages[0] = (uint32_t)(uintptr_t)scratch_page;
    c->a[2] = ptr(pages);
  } else {
    void** pages = alloc32(sizeof(void*));
    pages[0] = scratch_page;
    c->a[2] = ptr(pages);
  }
  c->a[4] = buffer(sizeof(int));  // status; nodes stays NULL: a query, nothing moves
  return 0;
}
static int p_target_pid(call* c, int i) {
  enum rt r = c->art[i];
  if (r != RT_TARGET && r != RT_SELF && !(r == RT_NONE && c->a[i] == 0))
    return usage_err(c, "pid must be TARGET, SELF or 0");
  return 0;
}
static int p_ptrace(call* c) {
  c->a[2] = ptr(scratch_page);
  if (c->a[0] == PTRACE_TRACEME) return 0;
  return p_target_pid(c, 1);
}
static unsigned long long iovec1(call* c, void* base, size_t len) {
  if (c->abi32) {
    uint32_t* iov = alloc32(8);
    iov[0] = (uint32_t)(uintptr_t)base;
    iov[1] = (uint32_t)len;
    return ptr(iov);
  }
  struct iovec* iov = alloc32(sizeof *iov);
  iov->iov_base = base;
  iov->iov_len = len;
  return ptr(iov);
}
static int p_process_vm(call* c) {
  // Local and remote: the same scratch page, mapped at the same address in TARGET (a fork).
  c->a[1] = iovec1(c, scratch_page, 64);
  c->a[3] = iovec1(c, scratch_page, 64);
  return 0;
}
static int p_pidfd0(call* c) {
  c->a[0] = (unsigned long long)(long long)c->target_pidfd;
  return 0;
}
static int p_process_madvise(call* c) {
  c->a[0] = (unsigned long long)(long long)c->target_pidfd;
  c->a[1] = iovec1(c, scratch_page, 4096);
  return 0;
}
static int p_get_robust_list(call* c) {
  c->a[1] = buffer(8);
  c->a[2] = buffer(8);
  return 0;
}
static int p_prlimit64(call* c) {
  c->a[3] = buffer(16);  // old limit only: new stays NULL, a read
  return 0;
}
static int p_sethostname(call* c) {
  char* name = alloc32(1000);
  memset(name, 'x', 1000);
  c->a[0] = ptr(name);  // length 1000 > 64: EINVAL (or EPERM) before any change
  return 0;
}
static int p_mseal(call* c) {
  c->a[0] = ptr(scratch_page);
  return 0;
}
static int p_socketcall(call* c) {
  uint32_t* args = alloc32(6 * 4);
  for (int i = 0; i < 3; ++i) args[i] = (uint32_t)c->x[i];
  c->a[1] = ptr(args);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// glibc wrappers

static long L_getpid(call* c) {
  (void)c;
  return getpid();
}
static long L_getppid(call* c) {
  (void)c;
  return getppid();
}
static long L_gettid(call* c) {
  (void)c;
  return gettid();
}
static long L_getuid(call* c) {
  (void)c;
  return getuid();
}
static long L_read(call* c) { return read((int)c->a[0], vp(c->a[1]), c->a[2]); }
static long L_write(call* c) { return write((int)c->a[0], vp(c->a[1]), c->a[2]); }
static long L_openat(call* c) { return openat((int)c->a[0], vp(c->a[1]), (int)c->a[2], (mode_t)c->a[3]); }
static long L_close(call* c) { return close((int)c->a[0]); }
static long L_socket(call* c) { return socket((int)c->a[0], (int)c->a[1], (int)c->a[2]); }
static long L_socketpair(call* c) {
  return socketpair((int)c->a[0], (int)c->a[1], (int)c->a[2], vp(c->a[3]));
}
static long L_ioctl(call* c) { return ioctl((int)c->a[0], (unsigned long)c->a[1], vp(c->a[2])); }
static long L_kill(call* c) { return kill((pid_t)c->a[0], (int)c->a[1]); }
static long L_fcntl(call* c) { return fcntl((int)c->a[0], (int)c->a[1], (long)c->a[2]); }
static long L_prctl(call* c) {
  return prctl((int)c->a[0], (unsigned long)c->a[1], (unsigned long)c->a[2], (unsigned long)c->a[3],
               (unsigned long)c->a[4]);
}
static long L_uname(call* c) { return uname(vp(c->a[0])); }
static int clone_fn(void* arg) {
  (void)arg;
  _exit(0);
}
static long L_clone(call* c) {
  size_t sz = 64 * 1024;
  char* stack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED) return -1;
  return clone(clone_fn, stack + sz, (int)c->a[0], NULL);
}
static long L_unshare(call* c) { return unshare((int)c->a[0]); }
static long L_setns(call* c) { return setns((int)c->a[0], (int)c->a[1]); }
static long L_personality(call* c) { return personality((unsigned long)c->a[0]); }
static long L_chmod(call* c) { return chmod(vp(c->a[0]), (mode_t)c->a[1]); }
static long L_fchmod(call* c) { return fchmod((int)c->a[0], (mode_t)c->a[1]); }
static long L_fchmodat(call* c) { return fchmodat((int)c->a[0], vp(c->a[1]), (mode_t)c->a[2], 0); }
static long L_open(call* c) { return open(vp(c->a[0]), (int)c->a[1], (mode_t)c->a[2]); }
static long L_creat(call* c) { return creat(vp(c->a[0]), (mode_t)c->a[1]); }
static long L_mknod(call* c) { return mknod(vp(c->a[0]), (mode_t)c->a[1], (dev_t)c->a[2]); }
static long L_mknodat(call* c) { return mknodat((int)c->a[0], vp(c->a[1]), (mode_t)c->a[2], (dev_t)c->a[3]); }
static long L_setsockopt(call* c) {
  return setsockopt((int)c->a[0], (int)c->a[1], (int)c->a[2], vp(c->a[3]), (socklen_t)c->a[4]);
}
static long L_mount(call* c) {
  return mount(vp(c->a[0]), vp(c->a[1]), vp(c->a[2]), (unsigned long)c->a[3], vp(c->a[4]));
}
static long L_umount2(call* c) { return umount2(vp(c->a[0]), (int)c->a[1]); }
static long L_chroot(call* c) { return chroot(vp(c->a[0])); }
static long L_fsopen(call* c) { return fsopen(vp(c->a[0]), (unsigned)c->a[1]); }
static long L_fsconfig(call* c) {
  return fsconfig((int)c->a[0], (unsigned)c->a[1], vp(c->a[2]), vp(c->a[3]), (int)c->a[4]);
}
static long L_fsmount(call* c) { return fsmount((int)c->a[0], (unsigned)c->a[1], (unsigned)c->a[2]); }
static long L_fspick(call* c) { return fspick((int)c->a[0], vp(c->a[1]), (unsigned)c->a[2]); }
static long L_move_mount(call* c) {
  return move_mount((int)c->a[0], vp(c->a[1]), (int)c->a[2], vp(c->a[3]), (unsigned)c->a[4]);
}
static long L_open_tree(call* c) { return open_tree((int)c->a[0], vp(c->a[1]), (unsigned)c->a[2]); }
static long L_mount_setattr(call* c) {
  return mount_setattr((int)c->a[0], vp(c->a[1]), (unsigned)c->a[2], vp(c->a[3]), c->a[4]);
}
static long L_name_to_handle_at(call* c) {
  return name_to_handle_at((int)c->a[0], vp(c->a[1]), vp(c->a[2]), vp(c->a[3]), (int)c->a[4]);
}
static long L_open_by_handle_at(call* c) {
  return open_by_handle_at((int)c->a[0], vp(c->a[1]), (int)c->a[2]);
}
static long L_vhangup(call* c) {
  (void)c;
  return vhangup();
}
static long L_settimeofday(call* c) { return settimeofday(vp(c->a[0]), vp(c->a[1])); }
static long L_clock_settime(call* c) { return clock_settime((clockid_t)c->a[0], vp(c->a[1])); }
static long L_clock_adjtime(call* c) { return clock_adjtime((clockid_t)c->a[0], vp(c->a[1])); }
static long L_adjtimex(call* c) { return adjtimex(vp(c->a[0])); }
static long L_swapon(call* c) { return swapon(vp(c->a[0]), (int)c->a[1]); }
static long L_swapoff(call* c) { return swapoff(vp(c->a[0])); }
static long L_acct(call* c) { return acct(vp(c->a[0])); }
static long L_syslog(call* c) { return klogctl((int)c->a[0], vp(c->a[1]), (int)c->a[2]); }
static long L_quotactl(call* c) { return quotactl((int)c->a[0], vp(c->a[1]), (int)c->a[2], vp(c->a[3])); }
static long L_iopl(call* c) { return iopl((int)c->a[0]); }
static long L_ioperm(call* c) { return ioperm((unsigned long)c->a[0], (unsigned long)c->a[1], (int)c->a[2]); }
static long L_fanotify_init(call* c) { return fanotify_init((unsigned)c->a[0], (unsigned)c->a[1]); }
static long L_fanotify_mark(call* c) {
  return fanotify_mark((int)c->a[0], (unsigned)c->a[1], c->a[2], (int)c->a[3], vp(c->a[4]));
}
static long L_ptrace(call* c) {
  return ptrace((enum __ptrace_request)c->a[0], (pid_t)c->a[1], vp(c->a[2]), vp(c->a[3]));
}
static long L_process_vm_readv(call* c) {
  return process_vm_readv((pid_t)c->a[0], vp(c->a[1]), c->a[2], vp(c->a[3]), c->a[4], c->a[5]);
}
static long L_process_vm_writev(call* c) {
  return process_vm_writev((pid_t)c->a[0], vp(c->a[1]), c->a[2], vp(c->a[3]), c->a[4], c->a[5]);
}
static long L_pidfd_open(call* c) { return pidfd_open((pid_t)c->a[0], (unsigned)c->a[1]); }
static long L_pidfd_send_signal(call* c) {
  return pidfd_send_signal((int)c->a[0], (int)c->a[1], vp(c->a[2]), (unsigned)c->a[3]);
}
static long L_pidfd_getfd(call* c) { return pidfd_getfd((int)c->a[0], (int)c->a[1], (unsigned)c->a[2]); }
static long L_process_madvise(call* c) {
  return process_madvise((int)c->a[0], vp(c->a[1]), c->a[2], (int)c->a[3], (unsigned)c->a[4]);
}
static long L_process_mrelease(call* c) { return process_mrelease((int)c->a[0], (unsigned)c->a[1]); }
static long L_prlimit64(call* c) {
  return prlimit((pid_t)c->a[0], (__rlimit_resource_t)c->a[1], vp(c->a[2]), vp(c->a[3]));
}
static long L_sethostname(call* c) { return sethostname(vp(c->a[0]), c->a[1]); }

// ---------------------------------------------------------------------------------------------
// The table. params: one word per argument, in order: `name=default` a value the caller may
// set, `name:what` built by the helper, `name!value` fixed; `+name=default` a value that is
// not an argument (it goes into a structure the helper builds).

#define S(n) SYS_##n
static const struct sc table[] = {
    // a few ordinary calls, allowed by every profile
    {"getpid", S(getpid), 20, 0, "", NULL, L_getpid, 0},
    {"getppid", S(getppid), 64, 0, "", NULL, L_getppid, 0},
    {"gettid", S(gettid), 224, 0, "", NULL, L_gettid, 0},
    {"getuid", S(getuid), 24, 0, "", NULL, L_getuid, 0},
    {"read", S(read), 3, 0, "fd=PIPE_R buf:buffer count=1", p_read, L_read, 0},
    {"write", S(write), 4, 0, "fd=PIPE_W buf:\"x\" count=1", p_write, L_write, 0},
    {"openat", S(openat), 295, 0, "dirfd=AT_FDCWD path:\"/\" flags=O_RDONLY|O_DIRECTORY|O_CLOEXEC mode=0",
     p_openat, L_openat, 0},
    {"close", S(close), 6, 0, "fd=-1", NULL, L_close, 0},
    {"kill", S(kill), 37, 0, "pid=SELF sig=0", p_kill, L_kill, 0},
    {"fcntl", S(fcntl), 55, 0, "fd=0 cmd=F_GETFD arg=0", NULL, L_fcntl, 0},
    {"prctl", S(prctl), 172, 0, "option=PR_GET_DUMPABLE arg2=0 arg3=0 arg4=0 arg5=0", NULL, L_prctl, 0},
    {"uname", S(uname), 122, 0, "buf:struct_utsname", p_arg0_buf, L_uname, 0},
    // conditioned by deny/always.policy
    {"socket", S(socket), 359, 0, "domain=AF_UNIX type=SOCK_STREAM protocol=0", NULL, L_socket, 0},
    {"socketpair", S(socketpair), 360, 0, "domain=AF_UNIX type=SOCK_STREAM protocol=0 sv:int[2]",
     p_socketpair, L_socketpair, 0},
    {"ioctl", S(ioctl), 54, 514, "fd=-1 request=TCGETS argp:4096_byte_buffer +argval=0", p_ioctl, L_ioctl, 0},
    {"clone", S(clone), 120, 0, "flags=SIGCHLD stack!0 parent_tid!0 child_tid!0 tls!0", p_clone, L_clone,
     F_FORKS},
    {"unshare", S(unshare), 310, 0, "flags=0", NULL, L_unshare, 0},
    {"personality", S(personality), 136, 0, "persona=0xffffffff", NULL, L_personality, 0},
    {"chmod", S(chmod), 15, 0, "path:unlinked_file mode=0644", p_chmod, L_chmod, 0},
    {"fchmod", S(fchmod), 94, 0, "fd:unlinked_file mode=0644", p_fchmod, L_fchmod, 0},
    {"fchmodat", S(fchmodat), 306, 0, "dirfd=AT_FDCWD path:unlinked_file mode=0644", p_fchmodat, L_fchmodat,
     0},
    {"fchmodat2", NR_FCHMODAT2, NR_FCHMODAT2, 0, "dirfd=AT_FDCWD path:unlinked_file mode=0644 flags=0",
     p_fchmodat, NULL, 0},
    {"open", S(open), 5, 0, "path:\"/\" flags=O_RDONLY|O_DIRECTORY|O_CLOEXEC mode=0", p_open, L_open, 0},
    {"creat", S(creat), 8, 0, "path:\"/\" mode=0644", p_root0, L_creat, 0},
    {"mknod", S(mknod), 14, 0, "path:\"/\" mode=S_IFREG|0644 dev=0", p_root0, L_mknod, 0},
    {"mknodat", S(mknodat), 297, 0, "dirfd=AT_FDCWD path:\"/\" mode=S_IFREG|0644 dev=0", p_root1, L_mknodat,
     0},
    {"setsockopt", S(setsockopt), 366, 541, "fd=-1 level=IPPROTO_IP optname=IP_TOS optval:int[16] optlen=4",
     p_setsockopt, L_setsockopt, 0},
    // refused by deny/always.policy
    {"openat2", S(openat2), 437, 0, "dirfd=AT_FDCWD path:\"/\" how:open_how_read_only size!24", p_openat2,
     NULL, 0},
    {"clone3", S(clone3), 435, 0, "cl_args:struct_clone_args size:88 +flags=0 +exit_signal=SIGCHLD", p_clone3,
     NULL, F_FORKS},
    {"setns", S(setns), 346, 0, "fd=-1 nstype=0", NULL, L_setns, 0},
    {"io_uring_setup", S(io_uring_setup), 425, 0, "entries=1 params:zeroed", p_io_uring_setup, NULL, 0},
    {"io_uring_enter", S(io_uring_enter), 426, 0, "fd=-1 to_submit=0 min_complete=0 flags=0 sig!0 sigsz!0",
     NULL, NULL, 0},
    {"io_uring_register", S(io_uring_register), 427, 0, "fd=-1 opcode=0 arg!0 nr_args=0", NULL, NULL, 0},
    {"keyctl", S(keyctl), 288, 0,
     "option=KEYCTL_GET_KEYRING_ID id=KEY_SPEC_SESSION_KEYRING arg3:0_or_buffer arg4!0 arg5!0", p_keyctl,
     NULL, 0},
    {"add_key", S(add_key), 286, 0,
     "type:\"user\" description:\"ringfence-try\" payload:\"x\" plen!1 keyring!KEY_SPEC_PROCESS_KEYRING",
     p_add_key, NULL, 0},
    {"request_key", S(request_key), 287, 0,
     "type:\"user\" description:\"ringfence-try-nonexistent\" callout_info!0 dest_keyring!0", p_request_key,
     NULL, 0},
    {"bpf", S(bpf), 357, 0, "cmd=0x7fff attr:zeroed size:128", p_bpf, NULL, 0},
    {"perf_event_open", S(perf_event_open), 336, 0,
     "attr:software_dummy_counter pid=0 cpu=-1 group_fd!-1 flags=PERF_FLAG_FD_CLOEXEC", p_perf, NULL, 0},
    {"userfaultfd", S(userfaultfd), 374, 0, "flags=O_CLOEXEC|UFFD_USER_MODE_ONLY", NULL, NULL, 0},
    {"kexec_load", S(kexec_load), 283, 528, "entry!0 nr_segments!0xffff segments!0 flags!0x8000", NULL, NULL,
     0},
    {"kexec_file_load", S(kexec_file_load), -1, 0,
     "kernel_fd!-1 initrd_fd!-1 cmdline_len!0 cmdline!0 flags!0x40000000", NULL, NULL, 0},
    {"init_module", S(init_module), 128, 0, "image:16_zero_bytes len!16 params:\"\"", p_init_module, NULL, 0},
    {"finit_module", S(finit_module), 350, 0, "fd!-1 params:\"\" flags!0", p_finit_module, NULL, 0},
    {"delete_module", S(delete_module), 129, 0, "name:\"ringfence_try_no_such_module\" flags!O_NONBLOCK",
     p_delete_module, NULL, 0},
    {"create_module", S(create_module), 127, 0, "", NULL, NULL, 0},
    {"get_kernel_syms", S(get_kernel_syms), 130, 0, "", NULL, NULL, 0},
    {"query_module", S(query_module), 167, 0, "", NULL, NULL, 0},
    {"lookup_dcookie", S(lookup_dcookie), 253, 0, "cookie!0 buf:buffer len!0", p_lookup_dcookie, NULL, 0},
    {"name_to_handle_at", S(name_to_handle_at), 341, 0,
     "dirfd=AT_FDCWD path:\"/\" handle:128_bytes mount_id:int flags=0", p_name_to_handle_at,
     L_name_to_handle_at, 0},
    {"open_by_handle_at", S(open_by_handle_at), 342, 0,
     "mount_fd=-1 handle:invalid_empty_handle flags=O_RDONLY", p_open_by_handle_at, L_open_by_handle_at, 0},
    {"mount", S(mount), 21, 0, "source:\"none\" target:\"" NOPATH "/target\" fstype:\"tmpfs\" flags=0 data!0",
     p_mount, L_mount, 0},
    {"umount2", S(umount2), 52, 0, "target:\"" NOPATH "\" flags=0", p_nopath0, L_umount2, 0},
    {"pivot_root", S(pivot_root), 217, 0, "new_root:\"" NOPATH "/new\" put_old:\"" NOPATH "/old\"",
     p_pivot_root, NULL, 0},
    {"chroot", S(chroot), 61, 0, "path:\"" NOPATH "\"", p_nopath0, L_chroot, 0},
    {"fsopen", S(fsopen), 430, 0, "fsname:\"tmpfs\" flags=FSOPEN_CLOEXEC", p_fsopen, L_fsopen, 0},
    {"fsconfig", S(fsconfig), 431, 0, "fd!-1 cmd=0 key!0 value!0 aux=0", NULL, L_fsconfig, 0},
    {"fsmount", S(fsmount), 432, 0, "fd!-1 flags=0 attr_flags=0", NULL, L_fsmount, 0},
    {"fspick", S(fspick), 433, 0, "dirfd=AT_FDCWD path:\"" NOPATH "\" flags=0", p_nopath1, L_fspick, 0},
    {"move_mount", S(move_mount), 429, 0,
     "from_dirfd=AT_FDCWD from:\"" NOPATH "/from\" to_dirfd=AT_FDCWD to:\"" NOPATH "/to\" flags=0",
     p_move_mount, L_move_mount, 0},
    {"open_tree", S(open_tree), 428, 0, "dirfd=AT_FDCWD path:\"/\" flags=OPEN_TREE_CLOEXEC", p_open_tree,
     L_open_tree, 0},
    {"mount_setattr", S(mount_setattr), 442, 0,
     "dirfd=AT_FDCWD path:\"" NOPATH "\" flags=0 attr:set_MOUNT_ATTR_RDONLY size:32", p_mount_setattr,
     L_mount_setattr, 0},
    {"vhangup", S(vhangup), 111, 0, "", p_vhangup, L_vhangup, 0},
    {"settimeofday", S(settimeofday), 79, 0, "tv:usec_2000000_invalid tz!0", p_settimeofday, L_settimeofday,
     0},
    {"clock_settime", S(clock_settime), 264, 0, "clockid!CLOCK_REALTIME tp:nsec_-1_invalid", p_clock_settime,
     L_clock_settime, 0},
    {"clock_adjtime", S(clock_adjtime), 343, 0, "clockid!CLOCK_REALTIME tx:modes_0_read_only", p_timex1,
     L_clock_adjtime, 0},
    {"adjtimex", S(adjtimex), 124, 0, "tx:modes_0_read_only", p_timex0, L_adjtimex, 0},
    {"reboot", S(reboot), 88, 0, "magic1!0 magic2!0 cmd!0 arg!0", NULL, NULL, 0},
    {"swapon", S(swapon), 87, 0, "path:\"" NOPATH "\" flags!0", p_nopath0, L_swapon, 0},
    {"swapoff", S(swapoff), 115, 0, "path:\"" NOPATH "\"", p_nopath0, L_swapoff, 0},
    {"acct", S(acct), 51, 0, "filename:\"" NOPATH "\"", p_nopath0, L_acct, 0},
    {"syslog", S(syslog), 103, 0, "type=SYSLOG_ACTION_SIZE_BUFFER buf:buffer len=0", p_syslog, L_syslog, 0},
    {"quotactl", S(quotactl), 131, 0, "cmd!0x80000500 special:\"" NOPATH "\" id!0 addr:buffer", p_quotactl,
     L_quotactl, 0},
    {"quotactl_fd", S(quotactl_fd), 443, 0, "fd!-1 cmd!0x80000500 id!0 addr:buffer", p_quotactl_fd, NULL, 0},
    {"iopl", S(iopl), 110, 0, "level=0", p_iopl, L_iopl, 0},
    {"ioperm", S(ioperm), 101, 0, "from=0x80 num=1 turn_on=0", NULL, L_ioperm, 0},
    {"fanotify_init", S(fanotify_init), 338, 0, "flags=FAN_CLASS_NOTIF|FAN_REPORT_FID event_f_flags=O_RDONLY",
     NULL, L_fanotify_init, 0},
    {"fanotify_mark", S(fanotify_mark), 339, 0,
     "fanotify_fd!-1 flags=FAN_MARK_ADD mask=FAN_OPEN dirfd=AT_FDCWD path:\"/\"", p_fanotify_mark,
     L_fanotify_mark, 0},
    {"kcmp", S(kcmp), 349, 0, "pid1=SELF pid2=SELF type=KCMP_FILE idx1=0 idx2=0", NULL, NULL, 0},
    {"mbind", S(mbind), 274, 0, "addr:scratch_page len!4096 mode=MPOL_DEFAULT nodemask!0 maxnode!0 flags=0",
     p_mbind, NULL, 0},
    {"move_pages", S(move_pages), 317, 533, "pid=0 count!1 pages:scratch_page nodes!0 status:int flags=0",
     p_move_pages, NULL, 0},
    {"migrate_pages", S(migrate_pages), 294, 0, "pid=0 maxnode!0 old_nodes!0 new_nodes!0", NULL, NULL, 0},
    {"nfsservctl", S(nfsservctl), 169, 0, "", NULL, NULL, 0},
    {"ustat", S(ustat), 62, 0, "dev=0 ubuf:buffer", p_buf1, NULL, 0},
    {"sysfs", S(sysfs), 135, 0, "option=3", NULL, NULL, 0},
    {"_sysctl", S(_sysctl), 149, 0, "args:zeroed", p_arg0_buf, NULL, 0},
    {"uselib", S(uselib), 86, 0, "library:\"" NOPATH "\"", p_nopath0, NULL, 0},
    // profiles/strict: cross-process calls (TARGET is a sleeping child made for the call)
    {"ptrace", S(ptrace), 26, 521, "request=PTRACE_ATTACH pid=TARGET addr:scratch_page data!0", p_ptrace,
     L_ptrace, 0},
    {"process_vm_readv", S(process_vm_readv), 347, 539,
     "pid=TARGET local_iov:scratch_64_bytes liovcnt!1 remote_iov:same_address riovcnt!1 flags=0",
     p_process_vm, L_process_vm_readv, 0},
    {"process_vm_writev", S(process_vm_writev), 348, 540,
     "pid=TARGET local_iov:scratch_64_bytes liovcnt!1 remote_iov:same_address riovcnt!1 flags=0",
     p_process_vm, L_process_vm_writev, 0},
    {"pidfd_open", S(pidfd_open), 434, 0, "pid=TARGET flags=0", NULL, L_pidfd_open, 0},
    {"pidfd_send_signal", S(pidfd_send_signal), 424, 0, "pidfd:TARGET sig=0 info!0 flags=0", p_pidfd0,
     L_pidfd_send_signal, F_TARGET},
    {"pidfd_getfd", S(pidfd_getfd), 438, 0, "pidfd:TARGET targetfd=0 flags=0", p_pidfd0, L_pidfd_getfd,
     F_TARGET},
    {"process_madvise", S(process_madvise), 440, 0,
     "pidfd:TARGET iovec:scratch_page vlen!1 advice=MADV_COLD flags=0", p_process_madvise, L_process_madvise,
     F_TARGET},
    {"process_mrelease", S(process_mrelease), 448, 0, "pidfd:TARGET flags=0", p_pidfd0, L_process_mrelease,
     F_TARGET},
    {"get_robust_list", S(get_robust_list), 312, 531, "pid=TARGET head_ptr:buffer len_ptr:buffer",
     p_get_robust_list, NULL, 0},
    {"prlimit64", S(prlimit64), 340, 0, "pid=0 resource=RLIMIT_NOFILE new_limit!0 old_limit:buffer",
     p_prlimit64, L_prlimit64, 0},
    // left out of every profile (ENOSYS from @default)
    {"sethostname", S(sethostname), 74, 0, "name:1000_bytes len!1000", p_sethostname, L_sethostname, 0},
    {"modify_ldt", S(modify_ldt), 123, 0, "func=0 ptr:buffer bytecount!16", p_buf1, NULL, 0},
    {"memfd_secret", S(memfd_secret), 447, 0, "flags=0", NULL, NULL, 0},
    {"mseal", NR_MSEAL, NR_MSEAL, 0, "addr:scratch_page len!4096 flags=0", p_mseal, NULL, 0},
    // i386 multiplexers (no x86_64 number): forced to ENOSYS for the i386 ABI
    {"socketcall", -1, 102, 0, "call=SYS_SOCKET args:u32[3] +a0=AF_UNIX +a1=SOCK_STREAM +a2=0", p_socketcall,
     NULL, 0},
    {"ipc", -1, 117, 0, "call!22 first!0 second!0 third!0 ptr!0x1001 fifth!0", NULL, NULL, 0},
};
#define NTABLE (sizeof table / sizeof table[0])

// ---------------------------------------------------------------------------------------------
// Parameter words

struct word {
  bool extra;
  char kind;  // '=', ':', '!'
  char name[48];
  char rest[128];
};

static int split_params(const char* params, struct word* w, int max) {
  int n = 0;
  const char* p = params;
  while (*p) {
    while (*p == ' ') ++p;
    if (!*p) break;
    size_t len = strcspn(p, " ");
    if (n == max) return -1;
    struct word* cur = &w[n++];
    memset(cur, 0, sizeof *cur);
    const char* q = p;
    if (*q == '+') {
      cur->extra = true;
      ++q;
    }
    size_t nl = strcspn(q, "=:! ");
    if (nl >= sizeof cur->name) return -1;
    memcpy(cur->name, q, nl);
    cur->kind = q[nl];
    size_t rl = len - (size_t)(q + nl + 1 - p);
    if (rl >= sizeof cur->rest) return -1;
    memcpy(cur->rest, q + nl + 1, rl);
    p += len;
  }
  return n;
}

static void list_table(void) {
  printf("%-20s %5s %5s %5s  %s\n", "name", "x86_64", "i386", "x32", "arguments");
  for (size_t i = 0; i < NTABLE; ++i) {
    const struct sc* e = &table[i];
    long x32 = e->nr64 < 0 ? -1 : (e->nrx32 ? e->nrx32 : e->nr64);
    printf("%-20s %5ld %5d %5ld  %s%s%s\n", e->name, e->nr64, e->nr32, x32, e->params,
           e->libc ? "" : "  [no glibc wrapper]",
           (e->flags & F_FORKS) ? "  [new process exits at once]" : "");
  }
}

static void usage(FILE* f) {
  fputs(
      "usage: try_syscall [--via libc|raw|i386|x32] [--hi32-junk N] [--timeout SECONDS] NAME [ARG...]\n"
      "       try_syscall --list\n",
      f);
}

// ---------------------------------------------------------------------------------------------
// Performing the call

static long do_int80(long nr, const unsigned long long* a) {
  unsigned long ret;
  unsigned long a5 = (unsigned long)a[5];
  // ebp carries the sixth argument: swap it in and out around the trap, without using the stack
  // (this may be a leaf function whose red zone lies below the stack pointer).
  __asm__ volatile(
      "xchg %%rbp, %[a5]\n\t"
      "int $0x80\n\t"
      "xchg %%rbp, %[a5]"
      : "=a"(ret), [a5] "+r"(a5)
      : "0"((unsigned long)nr), "b"(a[0]), "c"(a[1]), "d"(a[2]), "S"(a[3]), "D"(a[4])
      : "memory", "cc", "r8", "r9", "r10", "r11");
  return (long)(int)(unsigned)ret;  // an i386 result is 32 bits wide
}

struct result {
  long nr;
  long ret;
  int err;
  bool libc_wrapper;
  bool usage;        // msg: a usage error found in the child
  bool unsupported;  // msg: the ABI is not available on this kernel
  char msg[200];
};

// int $0x80 on a kernel without IA32 emulation (or with it switched off) raises a general
// protection fault, which arrives as SIGSEGV with si_code SI_KERNEL. Report that plainly instead
// of a death by SIGSEGV that a test could mistake for a filter's doing.
static int g_wfd = -1;
static long g_nr;
static void on_int80_fault(int sig, siginfo_t* si, void* uc) {
  (void)uc;
  if (si->si_code != SI_KERNEL) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  struct result r;
  memset(&r, 0, sizeof r);
  r.nr = g_nr;
  r.unsupported = true;
  static const char m[] = "int $0x80 raised a general protection fault: no IA32 emulation here";
  memcpy(r.msg, m, sizeof m);
  if (write(g_wfd, &r, sizeof r) < 0) _exit(1);
  _exit(0);
}

static pid_t make_target(void) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    alarm(120);  // backstop
    for (;;) pause();
  }
  return pid;
}

static bool uses_rt(const call* c, enum rt r) {
  for (int i = 0; i < MAXA; ++i)
    if (c->art[i] == r || c->xrt[i] == r) return true;
  return false;
}

static unsigned long long resolve_rt(const call* c, enum rt r, unsigned long long v) {
  switch (r) {
    case RT_NONE: return v;
    case RT_SELF: return (unsigned long long)getpid();
    case RT_PARENT: return (unsigned long long)c->parent;
    case RT_TARGET: return (unsigned long long)c->target;
    case RT_TARGET_PIDFD: return (unsigned long long)(long long)c->target_pidfd;
    case RT_PIPE_R: return (unsigned long long)c->pipefd[0];
    case RT_PIPE_W: return (unsigned long long)c->pipefd[1];
  }
  return v;
}

static void run_child(call* c, enum via via, int hi32, int timeout, int wfd) {
  struct result r;
  memset(&r, 0, sizeof r);
  struct rlimit nocore = {0, 0};
  setrlimit(RLIMIT_CORE, &nocore);  // a SIGSYS from a trapping filter must not leave a core file
  alarm((unsigned)timeout);

  c->target = -1;
  c->target_pidfd = -1;
  c->pipefd[0] = c->pipefd[1] = -1;
  if ((c->sc->flags & F_TARGET) || uses_rt(c, RT_TARGET) || uses_rt(c, RT_TARGET_PIDFD)) {
    c->target = make_target();
    c->target_pidfd = (int)syscall(SYS_pidfd_open, c->target, 0);
  }
  if (uses_rt(c, RT_PIPE_R) || uses_rt(c, RT_PIPE_W)) {
    if (pipe(c->pipefd) == 0) {
      if (write(c->pipefd[1], "x", 1) != 1) c->pipefd[0] = -1;
    }
  }
  for (int i = 0; i < MAXA; ++i) {
    c->a[i] = resolve_rt(c, c->art[i], c->a[i]);
    c->x[i] = resolve_rt(c, c->xrt[i], c->x[i]);
  }
  c->abi32 = via == VIA_I386;
  if (c->sc->prep && c->sc->prep(c) != 0) {
    r.usage = true;
    snprintf(r.msg, sizeof r.msg, "%s", c->msg);
    if (c->target > 0) kill(c->target, SIGKILL);
    if (write(wfd, &r, sizeof r) < 0) _exit(1);
    _exit(0);
  }
  if (hi32 >= 0) c->a[hi32] = (c->a[hi32] & 0xffffffffULL) | JUNK_HI;

  const unsigned long long* a = c->a;
  long ret;
  int err = 0;
  errno = 0;
  if (via == VIA_LIBC && !c->sc->libc) via = VIA_RAW;  // no wrapper: the same as raw
  switch (via) {
    case VIA_LIBC:
      r.libc_wrapper = true;
      r.nr = c->sc->nr64;
      ret = c->sc->libc(c);
      err = ret < 0 ? errno : 0;
      break;
    case VIA_RAW:
      r.nr = c->sc->nr64;
      ret = syscall(r.nr, a[0], a[1], a[2], a[3], a[4], a[5]);
      err = ret == -1 ? errno : 0;
      break;
    case VIA_X32:
      r.nr = (c->sc->nrx32 ? c->sc->nrx32 : c->sc->nr64) | X32_BIT;
      ret = syscall(r.nr, a[0], a[1], a[2], a[3], a[4], a[5]);
      err = ret == -1 ? errno : 0;
      break;
    case VIA_I386:
    default: {
      r.nr = c->sc->nr32;
      g_wfd = wfd;
      g_nr = r.nr;
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_sigaction = on_int80_fault;
      sa.sa_flags = SA_SIGINFO;
      sigaction(SIGSEGV, &sa, NULL);
      ret = do_int80(r.nr, a);
      if (ret < 0 && ret >= -4095) {
        err = (int)-ret;
        ret = -1;
      }
      break;
    }
  }
  // The new process of a clone that succeeded: leave at once, without touching anything.
  if ((c->sc->flags & F_FORKS) && ret == 0 && err == 0) _exit(0);
  if ((c->sc->flags & F_FORKS) && ret > 0) waitpid((pid_t)ret, NULL, __WALL);
  if (c->target > 0) {
    kill(c->target, SIGKILL);
    waitpid(c->target, NULL, __WALL);
  }
  r.ret = ret;
  r.err = err;
  if (write(wfd, &r, sizeof r) != (ssize_t)sizeof r) _exit(1);
  _exit(0);
}

// ---------------------------------------------------------------------------------------------
// Output

static void jstr(const char* s) {
  putchar('"');
  for (const unsigned char* p = (const unsigned char*)s; *p; ++p) {
    if (*p == '"' || *p == '\\')
      printf("\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f)
      printf("\\u%04x", *p);
    else
      putchar(*p);
  }
  putchar('"');
}

static void print_head(const struct sc* e, enum via via, long nr) {
  fputs("{\"name\":", stdout);
  jstr(e->name);
  fputs(",\"via\":", stdout);
  jstr(via_names[via]);
  printf(",\"nr\":%ld", nr);
}

// TARGET dies with the child (PR_SET_PDEATHSIG); give such leftovers two seconds to arrive.
static void reap_orphans(void) {
  for (int i = 0; i < 200; ++i) {
    pid_t p = waitpid(-1, NULL, WNOHANG | __WALL);
    if (p < 0) return;  // ECHILD: none left
    if (p == 0) {
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
  }
}

static long nr_for(const struct sc* e, enum via via) {
  switch (via) {
    case VIA_I386: return e->nr32;
    case VIA_X32: return (e->nrx32 ? e->nrx32 : e->nr64) | X32_BIT;
    default: return e->nr64;
  }
}

int main(int argc, char** argv) {
  enum via via = VIA_RAW;
  int hi32 = -1;
  int timeout = 10;
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; ++i) {
    const char* o = argv[i];
    if (strcmp(o, "--list") == 0) {
      list_table();
      return 0;
    }
    if (strcmp(o, "--help") == 0) {
      usage(stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      usage(stderr);
      return 2;
    }
    const char* v = argv[++i];
    if (strcmp(o, "--via") == 0) {
      int k = 0;
      for (; k < 4 && strcmp(v, via_names[k]) != 0; ++k) {}
      if (k == 4) {
        fprintf(stderr, "try_syscall: unknown --via %s\n", v);
        return 2;
      }
      via = (enum via)k;
    } else if (strcmp(o, "--hi32-junk") == 0) {
      char* end;
      hi32 = (int)strtol(v, &end, 10);
      if (*end || hi32 < 0 || hi32 >= MAXA) {
        fprintf(stderr, "try_syscall: --hi32-junk wants an argument index 0..5\n");
        return 2;
      }
    } else if (strcmp(o, "--timeout") == 0) {
      timeout = atoi(v);
      if (timeout <= 0) timeout = 10;
    } else {
      fprintf(stderr, "try_syscall: unknown option %s\n", o);
      usage(stderr);
      return 2;
    }
  }
  if (i >= argc) {
    usage(stderr);
    return 2;
  }
  const char* name = argv[i++];
  const struct sc* e = NULL;
  for (size_t k = 0; k < NTABLE; ++k)
    if (strcmp(table[k].name, name) == 0) e = &table[k];
  if (!e) {
    fprintf(stderr, "try_syscall: unknown call %s (see --list)\n", name);
    return 2;
  }
  if (via == VIA_I386 && e->nr32 < 0) {
    fprintf(stderr, "try_syscall: %s has no i386 number\n", name);
    return 2;
  }
  if (via != VIA_I386 && e->nr64 < 0) {
    fprintf(stderr, "try_syscall: %s exists only for i386 (--via i386)\n", name);
    return 2;
  }
  if (hi32 >= 0 && via != VIA_RAW) {
    fprintf(stderr, "try_syscall: --hi32-junk needs --via raw\n");
    return 2;
  }

  static call c;
  c.sc = e;
  c.parent = getpid();
  struct word words[MAXA * 2];
  int nw = split_params(e->params, words, MAXA * 2);
  if (nw < 0) {
    fprintf(stderr, "try_syscall: bad parameter table for %s\n", name);
    return 1;
  }
  // Defaults, then the caller's values into the settable words, in order.
  int vi = i;
  for (int w = 0; w < nw; ++w) {
    unsigned long long* slot;
    enum rt* rslot;
    if (words[w].extra) {
      if (c.nx == MAXA) return 1;
      slot = &c.x[c.nx];
      rslot = &c.xrt[c.nx++];
    } else {
      if (c.nargs == MAXA) return 1;
      slot = &c.a[c.nargs];
      rslot = &c.art[c.nargs++];
    }
    if (words[w].kind == '=' || words[w].kind == '!') {
      if (!parse_value(words[w].rest, slot, rslot)) {
        fprintf(stderr, "try_syscall: bad default %s in the table for %s\n", words[w].rest, name);
        return 1;
      }
    }
    if (words[w].kind == '=' && vi < argc) {
      const char* v = argv[vi++];
      if (strcmp(v, "-") != 0 && !parse_value(v, slot, rslot)) {
        fprintf(stderr, "try_syscall: %s: bad value %s for %s\n", name, v, words[w].name);
        return 2;
      }
    }
  }
  if (vi < argc) {
    fprintf(stderr, "try_syscall: %s: too many arguments (see --list)\n", name);
    return 2;
  }
  arena = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (arena == MAP_FAILED) {
    perror("try_syscall: mmap MAP_32BIT");
    return 1;
  }
  scratch_page = alloc32(4096 * 2);
  scratch_page = (void*)(((uintptr_t)scratch_page + 4095) & ~(uintptr_t)4095);
  memset(scratch_page, 'r', 64);

  int pfd[2];
  if (pipe2(pfd, O_CLOEXEC) != 0) {
    perror("try_syscall: pipe");
    return 1;
  }
  fflush(stdout);
  // Processes the child leaves behind (TARGET, a clone's new process) come back to us, so they
  // are reaped here even when the child was killed.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  pid_t pid = fork();
  if (pid < 0) {
    perror("try_syscall: fork");
    return 1;
  }
  if (pid == 0) {
    close(pfd[0]);
    run_child(&c, via, hi32, timeout, pfd[1]);
    _exit(1);
  }
  close(pfd[1]);
  int st;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) {
      perror("try_syscall: waitpid");
      return 1;
    }
  }
  reap_orphans();
  if (WIFSIGNALED(st)) {
    int sig = WTERMSIG(st);
    const char* abbrev = sigabbrev_np(sig);
    print_head(e, via, nr_for(e, via));
    fputs(",\"killed_by\":", stdout);
    if (abbrev) {
      char buf[32];
      snprintf(buf, sizeof buf, "SIG%s", abbrev);
      jstr(buf);
    } else {
      fputs("null", stdout);
    }
    printf(",\"signal\":%d}\n", sig);
    return 0;
  }
  struct result r;
  ssize_t n = read(pfd[0], &r, sizeof r);
  if (n != (ssize_t)sizeof r) {
    fprintf(stderr, "try_syscall: the child exited (status %d) without a result\n",
            WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 1;
  }
  if (r.usage) {
    fprintf(stderr, "try_syscall: %s\n", r.msg);
    return 2;
  }
  print_head(e, via, r.nr);
  if (r.unsupported) {
    fputs(",\"unsupported\":", stdout);
    jstr(r.msg);
    puts("}");
    return 0;
  }
  printf(",\"ret\":%ld,\"errno\":%d,\"errno_name\":", r.ret, r.err);
  const char* en = r.err ? strerrorname_np(r.err) : NULL;
  if (en)
    jstr(en);
  else
    fputs("null", stdout);
  if (via == VIA_LIBC) printf(",\"libc_wrapper\":%s", r.libc_wrapper ? "true" : "false");
  puts("}");
  return 0;
}
