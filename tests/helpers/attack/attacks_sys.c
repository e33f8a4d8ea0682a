// SPDX-License-Identifier: LGPL-2.1-or-later
// rf-attack: seccomp surface, privileges, IPC (SC, PRIV, IPC, SOFT-02/05).
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rf_attack.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static char big[1 << 16];

// ---------------------------------------------------------------------------------------------
// One call in a child, through the x86_64 ABI (raw), i386 (int $0x80) or x32.
enum via { V_RAW, V_I386, V_X32 };
struct call {
  const char* name;
  long nr64, nr32;  // -1: no such call in that ABI
  int via;
  long a[6];
  int low_str;  // 1-based index of a string argument to copy below 4 GiB for i386
};

static long do_call(void* p) {
  struct call* c = p;
  long a[6];
  memcpy(a, c->a, sizeof a);
  if (strcmp(c->name, "vhangup") == 0 && setsid() < 0) return -1;  // never with the caller's terminal
  if (strcmp(c->name, "kcmp") == 0) a[0] = a[1] = getpid(), a[2] = 0 /* KCMP_FILE */, a[3] = a[4] = 0;
  if (c->via == V_I386) {
    if (c->low_str) {
      char* low = low_page();
      if (!low) return -1;
      snprintf(low, 4096, "%s", (const char*)a[c->low_str - 1]);
      a[c->low_str - 1] = (long)low;
    }
    long r = i386_call(c->nr32, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (r < 0 && r > -4096) {
      errno = (int)-r;
      return -1;
    }
    return r;
  }
  long nr = c->via == V_X32 ? (c->nr64 | X32_BIT) : c->nr64;
  long r = rsys(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
  // A new process (clone, clone3) exits at once; its parent waits for it.
  bool is_clone = strcmp(c->name, "clone") == 0 || strcmp(c->name, "clone3") == 0;
  if (r == 0 && is_clone) _exit(0);
  if (r > 0 && is_clone) waitpid((pid_t)r, NULL, 0);
  return r;
}

static void judge_call(struct call* c) {
  const char* via = c->via == V_I386 ? " (i386)" : c->via == V_X32 ? " (x32)" : "";
  if (c->via == V_I386 && cfg.i386 == 0) {
    skipped("no i386 ABI: int $0x80 faults on this kernel");
    return;
  }
  if (c->via == V_X32 && cfg.x32 == 0) {
    skipped("no x32 ABI in this kernel (an x32 getpid answers ENOSYS)");
    return;
  }
  struct child_res r = in_child(do_call, c, 1);
  if (WIFSIGNALED(r.status)) {
    if (WTERMSIG(r.status) == SIGSYS)
      blocked(0, "%s%s killed by SIGSYS", c->name, via);
    else
      skipped("%s%s ended by %s (undecided)", c->name, via, signame_of(WTERMSIG(r.status)));
    return;
  }
  if (r.ret >= 0)
    succeeded(0, "%s%s returned %ld", c->name, via, r.ret);
  else
    blocked(r.err, "%s%s: %s%s", c->name, via, errname(r.err),
            (r.err == EPERM || r.err == ENOSYS) ? "" : " (refused by the kernel, not by a filter)");
}

// Arguments are chosen so that a kernel without the filter refuses or does nothing lasting; calls
// run in a child that exits at once (descriptors close, namespaces vanish).
static struct perf_event_attr perf_attr = {.type = PERF_TYPE_SOFTWARE,
                                           .size = sizeof(struct perf_event_attr),
                                           .config = PERF_COUNT_SW_CPU_CLOCK,
                                           .disabled = 1,
                                           .exclude_kernel = 1,
                                           .exclude_hv = 1};
static union bpf_attr bpf_map = {
    .map_type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1};
static struct {
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
} clone3_args = {.flags = CLONE_NEWUSER, .exit_signal = SIGCHLD};

struct sc_entry {
  const char* id;
  const char* row;
  const char* name;
  long nr64, nr32;
  long a[6];
  int low_str;
  int vias;  // bit 0 raw, 1 i386, 2 x32
  const char* title;
};

static struct sc_entry sc_table[] = {
    // SC-10: kernel attack surface
    {"SC-10.keyctl",
     "SC-10",
     "keyctl",
     SYS_keyctl,
     288,
     {KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0},
     0,
     7,
     "keyctl(GET_KEYRING_ID, session)"},
    {"SC-10.add_key",
     "SC-10",
     "add_key",
     SYS_add_key,
     286,
     {(long)"user", (long)"rf-attack", (long)"x", 1, KEY_SPEC_PROCESS_KEYRING},
     0,
     3,
     "add_key to the process keyring"},
    {"SC-10.request_key",
     "SC-10",
     "request_key",
     SYS_request_key,
     287,
     {(long)"user", (long)"rf-attack-none", 0, 0},
     0,
     1,
     "request_key (no callout)"},
    {"SC-10.perf_event_open",
     "SC-10",
     "perf_event_open",
     SYS_perf_event_open,
     336,
     {(long)&perf_attr, 0, -1, -1, 0},
     0,
     3,
     "perf_event_open (software clock, self)"},
    {"SC-10.bpf",
     "SC-10",
     "bpf",
     SYS_bpf,
     357,
     {BPF_MAP_CREATE, (long)&bpf_map, sizeof bpf_map},
     0,
     3,
     "bpf(BPF_MAP_CREATE)"},
    {"SC-10.userfaultfd",
     "SC-10",
     "userfaultfd",
     SYS_userfaultfd,
     374,
     {O_CLOEXEC | UFFD_USER_MODE_ONLY},
     0,
     3,
     "userfaultfd"},
    {"SC-10.kexec_load",
     "SC-10",
     "kexec_load",
     SYS_kexec_load,
     283,
     {0, 0, 0, 0x7fff0000},
     0,
     1,
     "kexec_load (invalid flags)"},
    {"SC-10.init_module",
     "SC-10",
     "init_module",
     SYS_init_module,
     128,
     {0, 0, (long)""},
     0,
     3,
     "init_module (no image)"},
    {"SC-10.finit_module",
     "SC-10",
     "finit_module",
     SYS_finit_module,
     350,
     {-1, (long)"", 0},
     0,
     1,
     "finit_module (fd -1)"},
    {"SC-10.delete_module",
     "SC-10",
     "delete_module",
     SYS_delete_module,
     129,
     {(long)"rf_attack_none", O_NONBLOCK},
     0,
     1,
     "delete_module (no such module)"},
    {"SC-10.acct",
     "SC-10",
     "acct",
     SYS_acct,
     51,
     {(long)"/nonexistent-rf-attack"},
     0,
     1,
     "acct (missing file)"},
    {"SC-10.swapon",
     "SC-10",
     "swapon",
     SYS_swapon,
     87,
     {(long)"/nonexistent-rf-attack", 0},
     0,
     1,
     "swapon (missing file)"},
    {"SC-10.reboot", "SC-10", "reboot", SYS_reboot, 88, {0, 0, 0, 0}, 0, 1, "reboot (invalid magic)"},
    {"SC-10.settimeofday",
     "SC-10",
     "settimeofday",
     SYS_settimeofday,
     79,
     {0, 0},
     0,
     1,
     "settimeofday (no time given: changes nothing)"},
    {"SC-10.adjtimex",
     "SC-10",
     "adjtimex",
     SYS_adjtimex,
     124,
     {(long)big},
     0,
     1,
     "adjtimex (modes 0: reads the clock state)"},
    {"SC-10.quotactl",
     "SC-10",
     "quotactl",
     SYS_quotactl,
     131,
     {0x800007 /* Q_GETQUOTA */, (long)"/nonexistent-rf", 0, 0},
     0,
     1,
     "quotactl on a missing device"},
    {"SC-10.iopl", "SC-10", "iopl", SYS_iopl, 110, {3}, 0, 1, "iopl(3) (this process only)"},
    {"SC-10.ioperm",
     "SC-10",
     "ioperm",
     SYS_ioperm,
     101,
     {0x80, 1, 1},
     0,
     1,
     "ioperm(0x80) (this process only)"},
    {"SC-10.fanotify_init", "SC-10", "fanotify_init", SYS_fanotify_init, 338, {0, 0}, 0, 1, "fanotify_init"},
    {"SC-10.kcmp", "SC-10", "kcmp", SYS_kcmp, 349, {0, 0, 0, 0, 0}, 0, 1, "kcmp of the caller with itself"},
    {"SC-10.move_pages",
     "SC-10",
     "move_pages",
     SYS_move_pages,
     317,
     {0, 0, 0, 0, 0, 0},
     0,
     1,
     "move_pages (no pages)"},
    {"SC-10.mbind", "SC-10", "mbind", SYS_mbind, 274, {0, 0, 0, 0, 0, 0}, 0, 1, "mbind (empty range)"},
    {"SC-10.personality",
     "SC-10",
     "personality",
     SYS_personality,
     136,
     {READ_IMPLIES_EXEC},
     0,
     3,
     "personality(READ_IMPLIES_EXEC) (this process only)"},
    {"SC-10.personality_aslr",
     "SC-10",
     "personality",
     SYS_personality,
     136,
     {ADDR_NO_RANDOMIZE},
     0,
     3,
     "personality(ADDR_NO_RANDOMIZE) (this process only)"},
    {"SC-10.syslog",
     "SC-10",
     "syslog",
     SYS_syslog,
     103,
     {10 /* SIZE_BUFFER */, 0, 0},
     0,
     1,
     "syslog (buffer size)"},
    {"SC-10.vhangup", "SC-10", "vhangup", SYS_vhangup, 111, {0}, 0, 1, "vhangup (after setsid: no terminal)"},
    // SC-06: io_uring
    {"SC-06.setup",
     "SC-06",
     "io_uring_setup",
     SYS_io_uring_setup,
     425,
     {4, (long)big},
     0,
     3,
     "io_uring_setup"},
    {"SC-06.enter",
     "SC-06",
     "io_uring_enter",
     SYS_io_uring_enter,
     426,
     {-1, 0, 0, 0, 0, 0},
     0,
     1,
     "io_uring_enter on fd -1 (EBADF unfiltered: a leaked ring would work)"},
    {"SC-06.register",
     "SC-06",
     "io_uring_register",
     SYS_io_uring_register,
     427,
     {-1, 0, 0, 0},
     0,
     1,
     "io_uring_register on fd -1"},
    // SC-05 / PRIV-01: namespaces
    {"SC-05.clone3",
     "SC-05",
     "clone3",
     SYS_clone3,
     435,
     {(long)&clone3_args, sizeof clone3_args},
     0,
     1,
     "clone3 with CLONE_NEWUSER"},
    {"PRIV-01.clone",
     "PRIV-01",
     "clone",
     SYS_clone,
     120,
     {CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0},
     0,
     1,
     "clone(CLONE_NEWUSER)"},
    {"SC-05.clone.newns",
     "SC-05",
     "clone",
     SYS_clone,
     120,
     {CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0},
     0,
     1,
     "clone(CLONE_NEWNS)"},
    {"PRIV-01.unshare",
     "PRIV-01",
     "unshare",
     SYS_unshare,
     310,
     {CLONE_NEWUSER},
     0,
     7,
     "unshare(CLONE_NEWUSER)"},
    {"SC-05.unshare.ns", "SC-05", "unshare", SYS_unshare, 310, {CLONE_NEWNS}, 0, 1, "unshare(CLONE_NEWNS)"},
    {"SC-05.unshare.net",
     "SC-05",
     "unshare",
     SYS_unshare,
     310,
     {CLONE_NEWNET},
     0,
     1,
     "unshare(CLONE_NEWNET)"},
    {"SC-05.unshare.pid",
     "SC-05",
     "unshare",
     SYS_unshare,
     310,
     {CLONE_NEWPID},
     0,
     1,
     "unshare(CLONE_NEWPID)"},
    {"SC-05.unshare.ipc",
     "SC-05",
     "unshare",
     SYS_unshare,
     310,
     {CLONE_NEWIPC},
     0,
     1,
     "unshare(CLONE_NEWIPC)"},
    {"SC-05.unshare.uts",
     "SC-05",
     "unshare",
     SYS_unshare,
     310,
     {CLONE_NEWUTS},
     0,
     1,
     "unshare(CLONE_NEWUTS)"},
    {"SC-05.unshare.cgroup",
     "SC-05",
     "unshare",
     SYS_unshare,
     310,
     {CLONE_NEWCGROUP},
     0,
     1,
     "unshare(CLONE_NEWCGROUP)"},
    {"SC-05.unshare.time",
     "SC-05",
     "unshare",
     SYS_unshare,
     310,
     {CLONE_NEWTIME},
     0,
     1,
     "unshare(CLONE_NEWTIME)"},
    // SC-02: i386-only forms
    {"SC-02.socketcall_connect",
     "SC-02",
     "socketcall",
     -1,
     102,
     {3 /* SYS_CONNECT */, 0},
     0,
     2,
     "socketcall(SYS_CONNECT) (i386 102 is x86_64 getuid)"},
    {"SC-02.connect", "SC-02", "connect", -1, 362, {-1, 0, 0}, 0, 2, "i386 connect"},
    // SC-01: x32-only forms of denied calls
    {"SC-01.ptrace", "SC-01", "ptrace", SYS_ptrace, 26, {PTRACE_PEEKUSER, 1, 0, 0}, 0, 4, "ptrace"},
    {"SC-01.mount",
     "SC-01",
     "mount",
     SYS_mount,
     21,
     {(long)"none", (long)"/nonexistent-rf", (long)"tmpfs", 0, 0},
     0,
     4,
     "mount (missing target)"},
    // PRIV-07
    {"PRIV-07", "PRIV-07", "chroot", SYS_chroot, 61, {(long)"."}, 0, 1, "chroot (double-chroot escape)"},
    // SC-11 (open_by_handle_at is its own attack below)
    {"SC-11.name_to_handle_at",
     "SC-11",
     "name_to_handle_at",
     SYS_name_to_handle_at,
     341,
     {AT_FDCWD, (long)"/", (long)big, (long)(big + 4096), 0},
     0,
     1,
     "name_to_handle_at on /"},
};

static void sc_run(const struct attack* a) {
  struct sc_entry* e = &sc_table[a->arg >> 2];
  struct call c = {
      .name = e->name, .nr64 = e->nr64, .nr32 = e->nr32, .via = (int)(a->arg & 3), .low_str = e->low_str};
  memcpy(c.a, e->a, sizeof c.a);
  if (strcmp(e->name, "name_to_handle_at") == 0) {
    unsigned int bytes = 128;
    memcpy(big, &bytes, sizeof bytes);
  }
  judge_call(&c);
}

// i386 string arguments must be copied below 4 GiB.
static void fix_low_strings(void) {
  for (size_t i = 0; i < sizeof sc_table / sizeof sc_table[0]; ++i) {
    const char* n = sc_table[i].name;
    if (!strcmp(n, "add_key") || !strcmp(n, "acct") || !strcmp(n, "chroot")) sc_table[i].low_str = 1;
    if (!strcmp(n, "init_module")) sc_table[i].low_str = 3;
    if (!strcmp(n, "mount")) sc_table[i].low_str = 2;
  }
}

// SC-04: numbers nobody should reach: gaps of the x86_64 table and beyond its end.
static void unknown_numbers(const struct attack* a) {
  (void)a;
  // 335 and 336 are uretprobe and uprobe (SIGILL outside a probe trampoline); 424-479 are in use.
  long ranges[][2] = {{337, 423}, {480, 511}, {548, 600}};
  int reached = 0, tried = 0;
  char first[128] = "";
  for (int r = 0; r < 3; ++r)
    for (long nr = ranges[r][0]; nr <= ranges[r][1]; ++nr) {
      ++tried;
      long ret = rsys(nr, 0, 0, 0, 0, 0, 0);
      if (ret >= 0 || (errno != ENOSYS && errno != EPERM)) {
        if (!reached) snprintf(first, sizeof first, "number %ld answered %ld/%s", nr, ret, errname(errno));
        ++reached;
      }
    }
  if (reached)
    succeeded(0, "%d of %d unassigned numbers answered something else than ENOSYS/EPERM; first: %s", reached,
              tried, first);
  else
    blocked(ENOSYS, "%d unassigned numbers (337-423, 480-511, 548-600) all answered ENOSYS/EPERM", tried);
}

// SC-07: every task of this process is filtered, with no_new_privs.
static void* idle_thread(void* p) {
  (void)p;
  pause();
  return NULL;
}
static void tasks_filtered(const struct attack* a) {
  (void)a;
  pthread_t t;
  pthread_create(&t, NULL, idle_thread, NULL);
  usleep(20000);
  struct acc acc = {0};
  char path[96], buf[4096];
  for (long tid = getpid(); tid < getpid() + 2000; ++tid) {
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
    if (read_file(path, buf, sizeof buf) < 0) continue;
    const char* s = strstr(buf, "Seccomp:");
    const char* n = strstr(buf, "NoNewPrivs:");
    int sec = s ? atoi(s + 8) : -1, nnp = n ? atoi(n + 11) : -1;
    acc_add(&acc, sec != 2 || nnp != 1, EPERM, "task %ld: Seccomp %d, NoNewPrivs %d", tid, sec, nnp);
    if (acc.tries >= 2) break;
  }
  acc_done(&acc, "cannot read the task status");
}

// SC-08: a tracer rewrites an allowed getppid into unshare(CLONE_NEWUSER).
static void ptrace_rewrite(const struct attack* a) {
  (void)a;
  char before[64] = "", after[64] = "";
  if (readlink("/proc/self/ns/user", before, sizeof before - 1) < 0) before[0] = 0;
  int p[2];
  if (pipe(p) != 0) {
    skipped("pipe: %s", errname(errno));
    return;
  }
  pid_t child = fork();
  if (child == 0) {
    close(p[0]);
    if (rsys(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0, 0, 0) != 0) {
      char m = 'T';
      if (write(p[1], &m, 1) < 0) _exit(1);
      _exit(2);
    }
    raise(SIGSTOP);
    rsys(SYS_getppid, 0, 0, 0, 0, 0, 0);
    char ns[64] = "";
    if (readlink("/proc/self/ns/user", ns, sizeof ns - 1) < 0) ns[0] = '?';
    if (write(p[1], ns, strlen(ns)) < 0) _exit(1);
    _exit(0);
  }
  close(p[1]);
  int st;
  waitpid(child, &st, 0);
  if (!WIFSTOPPED(st)) {
    char m = 0;
    if (read(p[0], &m, 1) == 1 && m == 'T')
      blocked(EPERM, "PTRACE_TRACEME refused");
    else
      blocked(0, "the tracee did not stop (status 0x%x)", st);
    close(p[0]);
    return;
  }
  bool rewritten = false;
  for (int i = 0; i < 40; ++i) {
    if (rsys(SYS_ptrace, PTRACE_SYSCALL, child, 0, 0, 0, 0) != 0) break;
    if (waitpid(child, &st, 0) != child || !WIFSTOPPED(st)) break;
    struct user_regs_struct regs;
    if (rsys(SYS_ptrace, PTRACE_GETREGS, child, 0, (long)&regs, 0, 0) != 0) break;
    if (regs.orig_rax == SYS_getppid) {
      regs.orig_rax = SYS_unshare;
      regs.rdi = CLONE_NEWUSER;
      rsys(SYS_ptrace, PTRACE_SETREGS, child, 0, (long)&regs, 0, 0);
      rewritten = true;
      rsys(SYS_ptrace, PTRACE_DETACH, child, 0, 0, 0, 0);
      break;
    }
  }
  if (!rewritten) {
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    close(p[0]);
    skipped("the tracer never saw the getppid entry");
    return;
  }
  ssize_t n = read(p[0], after, sizeof after - 1);
  if (n > 0) after[n] = 0;
  close(p[0]);
  waitpid(child, &st, 0);
  if (after[0] && strcmp(before, after) != 0)
    succeeded(0, "the rewritten call made a new user namespace (%s -> %s)", before, after);
  else
    blocked(EPERM, "the rewritten unshare(CLONE_NEWUSER) did not take effect (user ns %s)", after);
}

// SC-11: open_by_handle_at with a handle of the project (or a guessed root inode).
static void open_by_handle(const struct attack* a) {
  (void)a;
  struct {
    unsigned int bytes;
    int type;
    unsigned char h[128];
  } fh = {.bytes = 128};
  int mnt = 0;
  long r = rsys(SYS_name_to_handle_at, AT_FDCWD, (long)cfg.project, (long)&fh, (long)&mnt, 0, 0);
  if (r != 0) {  // shocker's guess: an ext4 handle of inode 2, the file system's root
    fh.bytes = 8;
    fh.type = 1;
    memset(fh.h, 0, sizeof fh.h);
    fh.h[0] = 2;
  }
  int dir = (int)rsys(SYS_openat, AT_FDCWD, (long)cfg.project, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
  long fd = rsys(SYS_open_by_handle_at, dir, (long)&fh, O_RDONLY | O_CLOEXEC, 0, 0, 0);
  int e = errno;
  if (fd >= 0) {
    close((int)fd);
    succeeded(0, "open_by_handle_at opened an inode by handle");
  } else {
    blocked(e, "open_by_handle_at: %s", errname(e));
  }
  if (dir >= 0) close(dir);
}

// PRIV-02: setns into our own and pid 1's namespaces (in a child).
static long setns_child(void* p) {
  int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)p, O_RDONLY | O_CLOEXEC, 0, 0, 0);
  if (fd < 0) return -1;
  return rsys(SYS_setns, fd, 0, 0, 0, 0, 0);
}
static void setns_attack(const struct attack* a) {
  (void)a;
  struct acc acc = {0};
  const char* paths[] = {"/proc/self/ns/net", "/proc/self/ns/mnt", "/proc/1/ns/net",
                         "/proc/1/ns/mnt",    "/proc/1/ns/user",   NULL};
  for (int i = 0; paths[i]; ++i) {
    struct child_res r = in_child(setns_child, (void*)paths[i], 1);
    if (WIFSIGNALED(r.status)) {
      acc_add(&acc, false, 0, "setns(%s) killed by %s", paths[i], signame_of(WTERMSIG(r.status)));
      continue;
    }
    acc_add(&acc, r.ret == 0, r.err, "setns(%s)", paths[i]);
  }
  acc_done(&acc, NULL);
}

// PRIV-03: capabilities left in any set; chown to another uid.
static void caps_left(const struct attack* a) {
  (void)a;
  char buf[4096];
  if (read_file("/proc/self/status", buf, sizeof buf) < 0) {
    skipped("cannot read /proc/self/status");
    return;
  }
  struct acc acc = {0};
  // The bounding set only matters where exec can still raise privileges (no no_new_privs): an
  // unprivileged process cannot drop it without CAP_SETPCAP, and with no_new_privs it grants nothing.
  const char* nnp_p = strstr(buf, "NoNewPrivs:");
  bool nnp = nnp_p && atoi(nnp_p + 11) == 1;
  const char* sets[] = {"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:", NULL};
  for (int i = 0; sets[i]; ++i) {
    const char* p = strstr(buf, sets[i]);
    unsigned long long v = p ? strtoull(p + 7, NULL, 16) : 0;
    if (i == 3 && nnp && v)
      acc_note(&acc, "%s %llx (inert under no_new_privs)", sets[i], v);
    else
      acc_add(&acc, v != 0, EPERM, "%s %llx", sets[i], v);
  }
  long sb = rsys(SYS_prctl, PR_GET_SECUREBITS, 0, 0, 0, 0, 0);
  acc_note(&acc, "securebits 0x%lx", sb);
  char f[4200];
  snprintf(f, sizeof f, "%s/rf-attack-chown-%s", cfg.project, cfg.tag);
  int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600, 0, 0);
  if (fd >= 0) {
    long r = rsys(SYS_fchown, fd, 12345, 12345, 0, 0, 0);
    acc_add(&acc, r == 0, errno, "chown a file to uid 12345");
    close(fd);
    unlink(f);
  }
  acc_done(&acc, NULL);
}

// PRIV-04: no_new_privs (setuid binaries and file capabilities grant nothing).
static void nnp_check(const struct attack* a) {
  (void)a;
  struct acc acc = {0};
  long nnp = rsys(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0, 0);
  acc_add(&acc, nnp != 1, EPERM, "no_new_privs is %ld", nnp);
  char f[4200];
  snprintf(f, sizeof f, "%s/rf-attack-suid-%s", cfg.project, cfg.tag);
  int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700, 0, 0);
  if (fd >= 0) {
    long r = rsys(SYS_fchmod, fd, 04755, 0, 0, 0, 0);
    int e = errno;
    struct stat st;
    fstat(fd, &st);
    acc_note(&acc, "a setuid file made in the project: chmod %s, owner uid %u inside",
             r == 0 ? "worked" : errname(e), st.st_uid);
    close(fd);
    unlink(f);
  }
  acc_done(&acc, NULL);
}

// PRIV-06 / LIFE-09: signal 0 and pidfd signal 0 to processes outside.
static void signal_outside(const struct attack* a) {
  static int pids[4096];
  int n = visible_pids(pids, 4096);
  struct acc acc = {0};
  int outside = 0;
  for (int i = 0; i < n; ++i) {
    if (a->arg == 1 && pids[i] != cfg.ppid) continue;
    if (!is_outside(pids[i])) continue;
    ++outside;
    long r = rsys(SYS_kill, pids[i], 0, 0, 0, 0, 0);
    acc_add(&acc, r == 0, errno, "kill(%d, 0)", pids[i]);
    long pfd = rsys(SYS_pidfd_open, pids[i], 0, 0, 0, 0, 0);
    int e = errno;
    if (pfd >= 0) {
      long s = rsys(SYS_pidfd_send_signal, pfd, 0, 0, 0, 0, 0);
      acc_add(&acc, s == 0, errno, "pidfd_send_signal(pidfd of %d, 0)", pids[i]);
      close((int)pfd);
    } else {
      acc_add(&acc, false, e, "pidfd_open(%d)", pids[i]);
    }
  }
  if (!outside) {
    if (a->arg)
      blocked(ESRCH, "the parent (%d) is inside the sandbox or invisible", cfg.ppid);
    else
      blocked(ESRCH, "no process outside is visible (%d visible)", n);
  } else {
    acc_done(&acc, NULL);
  }
}

// PRIV-05 (report): uid mapping and file ownership.
static void uid_report(const struct attack* a) {
  (void)a;
  char map[256] = "";
  read_file("/proc/self/uid_map", map, sizeof map);
  unsigned long in = 0, out = 0, cnt = 0;
  sscanf(map, "%lu %lu %lu", &in, &out, &cnt);
  bool host_root = geteuid() == 0 && in == 0 && out == 0;
  long r = rsys(SYS_setgroups, 0, 0, 0, 0, 0, 0);
  int e = errno;
  if (host_root)
    succeeded(
        0,
        "uid 0 inside is uid 0 of the host (uid_map '%lu %lu %lu'): files it creates belong to the host's "
        "root; setgroups: %s",
        in, out, cnt, r == 0 ? "worked" : errname(e));
  else
    blocked(e, "uid %d inside, uid_map '%lu %lu %lu'; setgroups: %s", geteuid(), in, out, cnt,
            r == 0 ? "worked" : errname(e));
}

// IPC-01: the abstract socket @rf-canary-TOKEN.
static void abstract_canary(const struct attack* a) {
  (void)a;
  if (!cfg.canary) {
    skipped("no canary given");
    return;
  }
  int s = (int)rsys(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  int len = snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, "rf-canary-%s", cfg.canary);
  socklen_t sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len);
  long r = rsys(SYS_connect, s, (long)&sa, sl, 0, 0, 0);
  int e = errno;
  if (r != 0) {
    close(s);
    blocked(e, "connect @rf-canary-TOKEN: %s", errname(e));
    return;
  }
  char buf[256] = "";
  struct timeval tv = {1, 0};
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ssize_t n = read(s, buf, sizeof buf - 1);
  close(s);
  if (n > 0) buf[n] = 0;
  succeeded(0, "connected to the host's abstract socket%s",
            n > 0 && strstr(buf, cfg.canary) ? " and read the canary" : "");
}

// IPC-01.census: every abstract name /proc/net/unix lists (X11, D-Bus, IDE IPC in a shared
// network namespace): connect, then close at once.
static void abstract_census(const struct attack* a) {
  (void)a;
  static char buf[1 << 17];
  ssize_t n = read_file("/proc/net/unix", buf, sizeof buf);
  if (n < 0) {
    blocked(errno, "cannot read /proc/net/unix: %s", errname(errno));
    return;
  }
  struct acc acc = {0};
  char* save = NULL;
  int seen = 0;
  for (char* line = strtok_r(buf, "\n", &save); line && acc.tries < 32; line = strtok_r(NULL, "\n", &save)) {
    char* at = strchr(line, '@');
    if (!at || strchr(at, ' ')) continue;  // the path is the last field; abstract names start with @
    ++seen;
    int s = (int)rsys(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t len = strlen(at + 1);
    if (len >= sizeof sa.sun_path - 1) len = sizeof sa.sun_path - 2;
    memcpy(sa.sun_path + 1, at + 1, len);
    long r =
        rsys(SYS_connect, s, (long)&sa, (long)(offsetof(struct sockaddr_un, sun_path) + 1 + len), 0, 0, 0);
    int e = errno;
    close(s);
    if (r != 0 && e == EPROTOTYPE) continue;  // a datagram or seqpacket name: not a stream server
    acc_add(&acc, r == 0, e, "connect @%.60s", at + 1);
  }
  if (!acc.tries)
    blocked(ENOENT, "no abstract stream socket listed in /proc/net/unix (%d names)", seen);
  else
    acc_done(&acc, NULL);
}

// IPC-02 / SOFT-05: pathname sockets of the host and its sessions.
static void host_sockets(const struct attack* a) {
  static char paths[24][512];
  int n = 0;
  if (a->arg == 0) {
    if (cfg.host_socket) snprintf(paths[n++], 512, "%s", cfg.host_socket);
    const char* fixed[] = {"/run/dbus/system_bus_socket",
                           "/var/run/docker.sock",
                           "/run/docker.sock",
                           "/run/podman/podman.sock",
                           "/run/systemd/private",
                           "/run/systemd/journal/stdout",
                           "/run/snapd.socket",
                           "/var/run/nscd/socket",
                           "/run/systemd/resolve/io.systemd.Resolve",
                           "/tmp/.X11-unix/X0",
                           NULL};
    for (int i = 0; fixed[i] && n < 20; ++i) snprintf(paths[n++], 512, "%s", fixed[i]);
    const char* user[] = {"bus", "systemd/private", "gnupg/S.gpg-agent", NULL};
    for (int i = 0; user[i] && n < 24; ++i) snprintf(paths[n++], 512, "/run/user/%d/%s", getuid(), user[i]);
  } else {
    snprintf(paths[n++], 512, "/tmp/tmux-%d/default", getuid());
    snprintf(paths[n++], 512, "/run/screen/S-root");
  }
  struct acc acc = {0};
  for (int i = 0; i < n; ++i) {
    struct stat st;
    bool given = a->arg == 0 && cfg.host_socket && i == 0;
    if (!given && stat(paths[i], &st) != 0 && errno == ENOENT) continue;
    int s = (int)rsys(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", paths[i]);
    long r = rsys(SYS_connect, s, (long)&sa, sizeof sa, 0, 0, 0);
    int e = errno;
    close(s);
    acc_add(&acc, r == 0, e, "connect %s", paths[i]);
  }
  if (!acc.tries)
    blocked(ENOENT, "none of the host's sockets exists here");
  else
    acc_done(&acc, NULL);
}

// IPC-05: SysV and POSIX IPC of the host.
static void ipc_census(const struct attack* a) {
  struct acc acc = {0};
  if (a->arg == 0) {
    struct shm_info info;
    long max = rsys(SYS_shmctl, 0, SHM_INFO, (long)&info, 0, 0, 0);
    int found = 0;
    for (long i = 0; i <= max && i < 4096; ++i) {
      struct shmid_ds ds;
      long id = rsys(SYS_shmctl, i, SHM_STAT_ANY, (long)&ds, 0, 0, 0);
      if (id < 0) id = rsys(SYS_shmctl, i, SHM_STAT, (long)&ds, 0, 0, 0);
      if (id < 0) continue;
      ++found;
      bool canary = cfg.sysv_key >= 0 && ds.shm_perm.__key == (key_t)cfg.sysv_key;
      acc_add(&acc, true, 0, "shm segment id %ld key 0x%x%s", id, (unsigned)ds.shm_perm.__key,
              canary ? " (the canary)" : "");
    }
    if (cfg.sysv_key >= 0) {
      long id = rsys(SYS_shmget, cfg.sysv_key, 0, 0, 0, 0, 0);
      int e = errno;
      if (id >= 0) {
        void* p = (void*)rsys(SYS_shmat, id, 0, SHM_RDONLY, 0, 0, 0);
        bool read_it = p != (void*)-1 && cfg.canary && strstr((char*)p, cfg.canary);
        if (p != (void*)-1) rsys(SYS_shmdt, (long)p, 0, 0, 0, 0, 0);
        acc_add(&acc, true, 0, "shmget(key 0x%lx)%s", cfg.sysv_key, read_it ? ", canary read" : "");
      } else {
        acc_add(&acc, false, e, "shmget(key 0x%lx)", cfg.sysv_key);
      }
    }
    if (!found && !acc.wins)
      blocked(acc.first_err, "no shm segment visible%s%s", acc.text[0] ? "; " : "", acc.text);
    else
      acc_done(&acc, NULL);
    return;
  }
  if (a->arg == 1) {
    struct msginfo mi;
    long max = rsys(SYS_msgctl, 0, MSG_INFO, (long)&mi, 0, 0, 0);
    for (long i = 0; i <= max && i < 4096; ++i) {
      struct msqid_ds ds;
      long id = rsys(SYS_msgctl, i, MSG_STAT_ANY, (long)&ds, 0, 0, 0);
      if (id >= 0) acc_add(&acc, true, 0, "message queue id %ld", id);
    }
    static char semu[512];
    max = rsys(SYS_semctl, 0, 0, SEM_INFO, (long)semu, 0, 0);
    for (long i = 0; i <= max && i < 4096; ++i) {
      long id = rsys(SYS_semctl, i, 0, SEM_STAT_ANY, (long)semu, 0, 0);
      if (id >= 0) acc_add(&acc, true, 0, "semaphore set id %ld", id);
    }
    if (!acc.tries)
      blocked(0, "no message queue or semaphore set visible");
    else
      acc_done(&acc, NULL);
    return;
  }
  if (!cfg.canary) {
    skipped("no canary given");
    return;
  }
  if (a->arg == 2) {
    char name[128];
    snprintf(name, sizeof name, "rf-canary-%s", cfg.canary);
    long fd = rsys(SYS_mq_open, (long)name, O_RDONLY | O_NONBLOCK, 0, 0, 0, 0);
    int e = errno;
    if (fd >= 0) close((int)fd);
    acc_add(&acc, fd >= 0, e, "mq_open(/rf-canary-TOKEN)");
    acc_done(&acc, NULL);
    return;
  }
  char path[160];
  snprintf(path, sizeof path, "/dev/shm/rf-canary-%s", cfg.canary);
  ssize_t n = read_file(path, big, sizeof big);
  acc_add(&acc, n >= 0, errno, "read /dev/shm/rf-canary-TOKEN");
  acc_done(&acc, NULL);
}

// IPC-06: keyrings.
static void keyring_canary(const struct attack* a) {
  (void)a;
  if (!cfg.canary) {
    skipped("no canary given");
    return;
  }
  char desc[128];
  snprintf(desc, sizeof desc, "rf-canary-%s", cfg.canary);
  struct acc acc = {0};
  long rings[] = {KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_SESSION_KEYRING};
  const char* names[] = {"user", "session", "user-session"};
  for (int i = 0; i < 3; ++i) {
    long id = rsys(SYS_keyctl, KEYCTL_SEARCH, rings[i], (long)"user", (long)desc, 0, 0);
    int e = errno;
    if (id < 0) {
      acc_add(&acc, false, e, "keyctl search the %s keyring", names[i]);
      continue;
    }
    char buf[256] = "";
    long n = rsys(SYS_keyctl, KEYCTL_READ, id, (long)buf, sizeof buf - 1, 0, 0);
    acc_add(&acc, true, 0, "found in the %s keyring%s", names[i],
            n > 0 && strstr(buf, cfg.canary) ? ", canary read" : "");
  }
  ssize_t n = read_file("/proc/keys", big, sizeof big);  // its listing is PROC-04's
  if (n >= 0)
    acc_note(&acc, "/proc/keys %s the canary key's name (PROC-04)",
             mem_contains(big, (size_t)n, desc) ? "lists" : "does not list");
  acc_done(&acc, NULL);
}

// SOFT-02 (report): the Landlock ABI.
static void landlock_report(const struct attack* a) {
  (void)a;
  long abi = rsys(SYS_landlock_create_ruleset, 0, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */, 0, 0, 0);
  if (abi < 0)
    skipped("Landlock unavailable here (%s): its gaps do not apply", errname(errno));
  else
    skipped(
        "Landlock ABI %ld: its gaps are covered by seccomp and the connect policy (SC-*, NET-*) and tested "
        "at "
        "the landlock level by the rows that declare it",
        abi);
}

void register_sys_attacks(void) {
  fix_low_strings();
  for (size_t i = 0; i < sizeof sc_table / sizeof sc_table[0]; ++i) {
    struct sc_entry* e = &sc_table[i];
    if (e->vias & 1) add_attack(e->id, e->row, LV_ALL, sc_run, (long)(i << 2) | V_RAW, NULL, "%s", e->title);
    if (e->vias & 2) {
      char id[64];
      snprintf(id, sizeof id, "%s%s", e->id, (e->vias & 1) ? ".i386" : "");
      add_attack(id, "SC-02", LV_ALL, sc_run, (long)(i << 2) | V_I386, NULL, "%s through int $0x80",
                 e->title);
    }
    if (e->vias & 4) {
      char id[64];
      snprintf(id, sizeof id, "%s%s", e->id, (e->vias & 1) ? ".x32" : "");
      add_attack(id, "SC-01", LV_ALL, sc_run, (long)(i << 2) | V_X32, NULL, "%s through the x32 ABI",
                 e->title);
    }
  }
  add_attack("SC-04", "SC-04", LV_ALL, unknown_numbers, 0, NULL,
             "unassigned system call numbers answer ENOSYS");
  add_attack("SC-07", "SC-07", LV_ALL, tasks_filtered, 0, NULL, "every task filtered, with no_new_privs");
  add_attack("SC-08", "SC-08", LV_ALL, ptrace_rewrite, 0, NULL,
             "a tracer rewrites getppid into unshare(CLONE_NEWUSER)");
  add_attack("SC-11.open_by_handle_at", "SC-11", LV_ALL, open_by_handle, 0, NULL,
             "open_by_handle_at (shocker)");
  add_attack("PRIV-02", "PRIV-02", LV_ALL, setns_attack, 0, NULL,
             "setns into /proc/self/ns/* and /proc/1/ns/*");
  add_attack("PRIV-03", "PRIV-03", LV_ALL, caps_left, 0, NULL,
             "capabilities left in any set; chown to another uid");
  add_attack("PRIV-04", "PRIV-04", LV_ALL, nnp_check, 0, NULL,
             "no_new_privs (setuid binaries grant nothing)");
  add_attack("PRIV-05", "PRIV-05", LV_NONE, uid_report, 0, NULL, "uid 0 inside is the host's root (report)");
  // Landlock scopes signals and abstract sockets from ABI 6 (Linux 6.12) only: below it the
  // landlock level does not promise them.
  unsigned ll6 = landlock_abi() >= 6 ? LV_LANDLOCK : 0;
  add_attack("PRIV-06", "PRIV-06", LV_K | ll6, signal_outside, 0, NULL,
             "signal 0 and pidfd signals to processes outside");
  add_attack("LIFE-09", "LIFE-09", LV_K | ll6, signal_outside, 1, NULL,
             "signal the supervisor (the parent outside)");
  add_attack("IPC-01", "IPC-01", LV_K | LV_SOFT | ll6, abstract_canary, 0, NULL,
             "connect to the host's abstract socket @rf-canary-TOKEN");
  add_attack("IPC-01.census", "IPC-01", LV_K | LV_SOFT | ll6, abstract_census, 0, NULL,
             "connect to every abstract stream socket in /proc/net/unix");
  add_attack("IPC-02", "IPC-02", LV_K, host_sockets, 0, NULL,
             "pathname sockets of the host (bus, docker, X11, --host-socket)");
  add_attack("SOFT-05", "SOFT-05", LV_K, host_sockets, 1, NULL, "session sockets (tmux, screen)");
  add_skipped("IPC-03", "IPC-03", "D-Bus to run code outside",
              "covered by ENV-01 (DBUS_SESSION_BUS_ADDRESS) and IPC-02 (the bus sockets)");
  add_skipped("IPC-04", "IPC-04", "X11 / Wayland input and screens",
              "covered by ENV-01 (DISPLAY, WAYLAND_DISPLAY) and IPC-02 (/tmp/.X11-unix)");
  add_attack("IPC-05.sysv_shm", "IPC-05", LV_K, ipc_census, 0, NULL,
             "SysV shared memory of the host (census, key)");
  add_attack("IPC-05.sysv_msg_sem", "IPC-05", LV_K, ipc_census, 1, NULL,
             "SysV message queues and semaphores of the host");
  add_attack("IPC-05.posix_mq", "IPC-05", LV_K, ipc_census, 2, NULL,
             "the host's POSIX message queue /rf-canary-TOKEN");
  add_attack("IPC-05.dev_shm", "IPC-05", LV_KL, ipc_census, 3, NULL, "the host's /dev/shm/rf-canary-TOKEN");
  add_attack("IPC-06", "IPC-06", LV_ALL, keyring_canary, 0, NULL,
             "the canary key in the user and session keyrings");
  add_skipped("IPC-07", "IPC-07", "sockets host processes put inside the project",
              "needs a host process serving in the project: documented, not attacked");
  add_attack("SOFT-02", "SOFT-02", LV_NONE, landlock_report, 0, NULL, "Landlock ABI gaps (report)");
}
