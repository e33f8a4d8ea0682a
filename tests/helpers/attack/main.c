// SPDX-License-Identifier: LGPL-2.1-or-later
// rf-attack: escape attempts against ringfence, run from inside a sandbox (threat-model.md,
// section 3). Statically linked; every attack goes through raw system calls (syscall(2), inline
// `syscall`, `int $0x80` for the i386 ABI, the x32 bit), never through the libc wrapper of the call
// under attack. Used by tests/security/test_catalog.py and by `ringfence verify`.
//
// rf-attack list
//   One JSON object per line per attack:
//   {"id":"S-01","row":"S-01","title":"...","protects":["kernel","landlock","soft"]}
//   protects: the levels at which ringfence is expected to stop it. An empty list means the row is
//   reported, not promised (documented limits such as multicast and broadcast sends).
//   ids are the catalog row, with a suffix for variants (NET-07.sendmmsg, SC-10.keyctl.i386).
//
// rf-attack run [OPTIONS] [ID-or-prefix ...]
//   Runs the selected attacks (all when none is given; `NET` or `S-0` selects a group by prefix)
//   and prints one line each:
//   {"id":"...","title":"...","outcome":"blocked"|"succeeded"|"skipped","errno":N,"detail":"..."}
//   Exit 0; 1 only for its own usage errors. Every attack runs in a forked child with a 2 s alarm
//   (3 s hard limit), so a call the filter kills shows as blocked ("killed by SIGSYS") and a hang
//   as skipped "timed out ... (undecided)", which a driver should count as a failure.
//   Options:
//   --canary TOKEN     the token the driver planted on the host (supervisor environment, decoy
//                      processes, files, IPC). Prefer the environment variable RF_ATTACK_CANARY:
//                      rf-attack reads it, then overwrites the value in its own environment
//                      memory (what /proc/self/environ shows) before attacking; --canary's argv
//                      copy is overwritten the same way, but a parent that holds the argv (the
//                      sandbox's pid 1 is a clone of the launcher) still shows it.
//                      From TOKEN the host canaries are named:
//                        abstract unix socket  @rf-canary-TOKEN (stream, answers TOKEN)
//                        POSIX message queue   /rf-canary-TOKEN
//                        POSIX shm file        /dev/shm/rf-canary-TOKEN
//                        key (type user)       rf-canary-TOKEN in the user or session keyring
//   Files the attacks create are named rf-attack-*-pPID (PID: rf-attack's own), never after
//   TOKEN; they are created only where a write succeeds, and removed at once.
//   --home-canary PATH a file in the real home holding TOKEN; its directory is the real home
//   --project PATH     the project folder (default: the working directory): .env (masked),
//                      .git/config and .git/hooks are attacked there
//   --host-socket PATH a pathname unix socket that exists only outside the sandbox
//   --sysv-key KEY     the key of the host's SysV shm segment holding TOKEN
//   --net-fixture      the network is `rf-attack fixture`'s namespace: attacks on the metadata
//                      addresses and on the allowed 198.51.100.10 are made, after checking that
//                      198.51.100.10 is a local address here (or that no route leaves the
//                      namespace). WITHOUT IT NO PACKET IS EVER SENT TO A NON-LOOPBACK ADDRESS:
//                      those attacks are skipped ("no hermetic network fixture").
//   --network-off      the sandbox was started with the network off: egress to the fixture's
//                      allowed address must fail too (S-07)
//
// rf-attack fixture [--log FILE] -- CMD ARGS...
//   The hermetic "cloud": see fixture.c.
//
// Outcomes: blocked = the attack failed (errno: the first refusal); succeeded = it worked (the
// detail says what it reached); skipped = not attempted here, with the reason.
//
// Safety: no attack changes the host even when it succeeds: files are opened for writing but not
// written (one exception: "0" to vm/drop_caches, which the kernel rejects with EINVAL after its
// permission checks), markers are removed at once, signals are signal 0, ptrace is PTRACE_SEIZE from
// a child that exits, mount-family calls are not tried while holding CAP_SYS_ADMIN in the initial
// user namespace (reported as succeeded instead), forks are capped at 200, and the one survivor
// process (LIFE-05) exits by itself after 20 s.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rf_attack.h"

struct config cfg = {.sysv_key = -1};

#define MAX_ATTACKS 600
static struct attack attacks[MAX_ATTACKS];
static int n_attacks;

struct attack* add_attack(const char* id, const char* row, unsigned protects, attack_fn fn, long arg,
                          const char* sarg, const char* title_fmt, ...) {
  if (n_attacks >= MAX_ATTACKS) {
    fprintf(stderr, "rf-attack: too many attacks\n");
    exit(1);
  }
  struct attack* a = &attacks[n_attacks++];
  memset(a, 0, sizeof *a);
  snprintf(a->id, sizeof a->id, "%s", id);
  a->row = row;
  a->protects = protects;
  a->fn = fn;
  a->arg = arg;
  a->sarg = sarg;
  va_list ap;
  va_start(ap, title_fmt);
  vsnprintf(a->title, sizeof a->title, title_fmt, ap);
  va_end(ap);
  return a;
}

void add_skipped(const char* id, const char* row, const char* title, const char* reason) {
  struct attack* a = add_attack(id, row, LV_NONE, NULL, 0, NULL, "%s", title);
  a->skip = reason;
}

// ---------------------------------------------------------------------------------------------
// JSON

static void json_str(FILE* f, const char* s) {
  fputc('"', f);
  for (const unsigned char* p = (const unsigned char*)s; *p; ++p) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void print_list(void) {
  for (int i = 0; i < n_attacks; ++i) {
    struct attack* a = &attacks[i];
    printf("{\"id\":");
    json_str(stdout, a->id);
    printf(",\"row\":");
    json_str(stdout, a->row);
    printf(",\"title\":");
    json_str(stdout, a->title);
    printf(",\"protects\":[");
    const char* sep = "";
    if (a->protects & LV_KERNEL) printf("%s\"kernel\"", sep), sep = ",";
    if (a->protects & LV_LANDLOCK) printf("%s\"landlock\"", sep), sep = ",";
    if (a->protects & LV_SOFT) printf("%s\"soft\"", sep);
    printf("]}\n");
  }
}

// ---------------------------------------------------------------------------------------------
// Results: the child fills one record and writes it to the parent's pipe.

struct record {
  int outcome;
  int err;
  char detail[1800];
};
static struct record rec;
static int result_fd = -1;

static void vset(int outcome, int err, const char* fmt, va_list ap) {
  rec.outcome = outcome;
  rec.err = err;
  vsnprintf(rec.detail, sizeof rec.detail, fmt, ap);
}
void blocked(int err, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset(OUT_BLOCKED, err, fmt, ap);
  va_end(ap);
}
void succeeded(int err, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset(OUT_SUCCEEDED, err, fmt, ap);
  va_end(ap);
}
void skipped(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset(OUT_SKIPPED, 0, fmt, ap);
  va_end(ap);
}

static void appendf(char* buf, size_t cap, const char* fmt, va_list ap) {
  size_t n = strlen(buf);
  if (n + 1 >= cap) return;
  vsnprintf(buf + n, cap - n, fmt, ap);
}

void acc_add(struct acc* a, bool success, int err, const char* fmt, ...) {
  a->tries++;
  if (success) a->wins++;
  if (!success && !a->first_err) a->first_err = err;
  va_list ap;
  va_start(ap, fmt);
  if (a->text[0]) strncat(a->text, "; ", sizeof a->text - strlen(a->text) - 1);
  appendf(a->text, sizeof a->text, fmt, ap);
  va_end(ap);
  char tail[64];
  if (success)
    snprintf(tail, sizeof tail, ": WORKED");
  else
    snprintf(tail, sizeof tail, ": %s", errname(err));
  strncat(a->text, tail, sizeof a->text - strlen(a->text) - 1);
}

void acc_note(struct acc* a, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (a->text[0]) strncat(a->text, "; ", sizeof a->text - strlen(a->text) - 1);
  appendf(a->text, sizeof a->text, fmt, ap);
  va_end(ap);
}

void acc_done(struct acc* a, const char* none_reason) {
  if (a->wins)
    succeeded(0, "%s", a->text);
  else if (a->tries)
    blocked(a->first_err, "%s", a->text);
  else
    skipped("%s%s%s", none_reason ? none_reason : "nothing to try", a->text[0] ? ": " : "", a->text);
}

static void on_alarm(int sig) {
  (void)sig;
  if (result_fd >= 0) {
    static struct record r;
    r.outcome = OUT_SKIPPED;
    snprintf(r.detail, sizeof r.detail, "timed out after 2 s (undecided)%s%.1500s", rec.detail[0] ? ": " : "",
             rec.detail);
    ssize_t w = write(result_fd, &r, sizeof r);
    (void)w;
  }
  _exit(0);
}

static const char* outcome_name(int o) {
  switch (o) {
    case OUT_BLOCKED: return "blocked";
    case OUT_SUCCEEDED: return "succeeded";
    default: return "skipped";
  }
}

// rf-attack never prints the canary: a name that holds it (an abstract socket listed in
// /proc/net/unix, a key) is shown with TOKEN in its place.
static void mask_canary(char* s) {
  if (!cfg.canary || strlen(cfg.canary) < 5) return;  // (shorter tokens are not replaced)
  size_t n = strlen(cfg.canary);
  for (char* p = strstr(s, cfg.canary); p; p = strstr(p, cfg.canary)) {
    memmove(p + 5, p + n, strlen(p + n) + 1);
    memcpy(p, "TOKEN", 5);
    p += 5;
  }
}

static void print_result(const struct attack* a, struct record* r) {
  mask_canary(r->detail);
  printf("{\"id\":");
  json_str(stdout, a->id);
  printf(",\"title\":");
  json_str(stdout, a->title);
  printf(",\"outcome\":\"%s\",\"errno\":%d,\"detail\":", outcome_name(r->outcome), r->err);
  json_str(stdout, r->detail);
  printf("}\n");
  fflush(stdout);
}

static void run_one(const struct attack* a) {
  static struct record r;
  memset(&r, 0, sizeof r);
  if (a->skip) {
    r.outcome = OUT_SKIPPED;
    snprintf(r.detail, sizeof r.detail, "%s", a->skip);
    print_result(a, &r);
    return;
  }
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    r.outcome = OUT_SKIPPED;
    snprintf(r.detail, sizeof r.detail, "rf-attack: pipe: %s", strerror(errno));
    print_result(a, &r);
    return;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    setpgid(0, 0);
    result_fd = p[1];
    memset(&rec, 0, sizeof rec);
    signal(SIGALRM, on_alarm);
    alarm(2);
    a->fn(a);
    alarm(0);
    if (rec.outcome == OUT_NONE) {
      rec.outcome = OUT_SKIPPED;
      snprintf(rec.detail, sizeof rec.detail, "rf-attack: the attack gave no result");
    }
    ssize_t w = write(p[1], &rec, sizeof rec);
    (void)w;
    _exit(0);
  }
  close(p[1]);
  if (pid < 0) {
    close(p[0]);
    r.outcome = OUT_SKIPPED;
    snprintf(r.detail, sizeof r.detail, "rf-attack: fork: %s", strerror(errno));
    print_result(a, &r);
    return;
  }
  // Wait at most 3 s for the record, then kill the child's group.
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  size_t got = 0;
  fcntl(p[0], F_SETFL, O_NONBLOCK);
  int status = 0;
  bool reaped = false;
  for (;;) {
    ssize_t n = read(p[0], (char*)&r + got, sizeof r - got);
    if (n > 0) got += (size_t)n;
    if (got == sizeof r) break;
    if (n == 0) break;  // EOF: the child died without a record
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) reaped = true;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= 3) break;
    usleep(2000);
  }
  close(p[0]);
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  if (!reaped) waitpid(pid, &status, 0);
  if (got != sizeof r) {
    memset(&r, 0, sizeof r);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) {
      r.outcome = OUT_BLOCKED;
      snprintf(r.detail, sizeof r.detail, "killed by SIGSYS (seccomp)");
    } else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
      r.outcome = OUT_SKIPPED;
      snprintf(r.detail, sizeof r.detail, "the attack crashed with %s (undecided)",
               signame_of(WTERMSIG(status)));
    } else {
      r.outcome = OUT_SKIPPED;
      snprintf(r.detail, sizeof r.detail, "timed out after 3 s (undecided)");
    }
  }
  // Reap stray grandchildren that were reparented to us (we may be a subreaper or pid 1).
  while (waitpid(-1, NULL, WNOHANG) > 0) {}
  print_result(a, &r);
}

static bool selected(const struct attack* a, int nsel, char** sel) {
  if (nsel == 0) return true;
  for (int i = 0; i < nsel; ++i)
    if (strncmp(a->id, sel[i], strlen(sel[i])) == 0) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Setup

static void wipe(char* s) {
  for (; *s; ++s) *s = 'x';
}

static char* canary_copy;

static void take_canary_from_env(void) {
  extern char** environ;
  for (char** e = environ; *e; ++e) {
    if (strncmp(*e, "RF_ATTACK_CANARY=", 17) == 0) {
      canary_copy = strdup(*e + 17);
      wipe(*e + 17);
      memcpy(*e, "RF_ATTACK_WIPED_", 16);  // same memory, another name
    }
  }
  if (canary_copy && canary_copy[0]) cfg.canary = canary_copy;
  unsetenv("RF_ATTACK_WIPED_");
}

static void census_fds(void) {
  for (int fd = 3; fd < 1024 && cfg.n_inherited < 64; ++fd)
    if (fcntl(fd, F_GETFD) >= 0) cfg.inherited_fds[cfg.n_inherited++] = fd;
}

static long probe_i386(void* unused) {
  (void)unused;
  return i386_call(20, 0, 0, 0, 0, 0, 0);  // getpid
}
static long probe_x32(void* unused) {
  (void)unused;
  return syscall(SYS_getpid | X32_BIT);
}

static void probe_abis(void) {
  struct child_res r = in_child(probe_i386, NULL, 2);
  if (WIFSIGNALED(r.status))
    cfg.i386 = WTERMSIG(r.status) == SIGSYS ? 2 : 0;
  else
    cfg.i386 = r.ret > 0 ? 1 : 2;
  r = in_child(probe_x32, NULL, 2);
  if (WIFSIGNALED(r.status))
    cfg.x32 = WTERMSIG(r.status) == SIGSYS ? 2 : 0;
  else if (r.ret > 0)
    cfg.x32 = 1;
  else
    cfg.x32 = r.err == ENOSYS ? 0 : 2;
}

static int usage(void) {
  fprintf(stderr,
          "usage: rf-attack list\n"
          "       rf-attack run [--canary TOKEN] [--home-canary PATH] [--project PATH] [--host-socket PATH]\n"
          "                     [--sysv-key KEY] [--net-fixture] [--network-off] [ID-or-prefix ...]\n"
          "       rf-attack fixture [--log FILE] -- CMD ARGS...\n");
  return 1;
}

int fixture_main(int argc, char** argv);
int survivor_main(int argc, char** argv);

static void register_all(void) {
  register_proc_attacks();
  register_fs_attacks();
  register_sys_attacks();
  register_net_attacks();
}

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  if (strcmp(argv[1], "fixture") == 0) return fixture_main(argc - 1, argv + 1);
  if (strcmp(argv[1], "__survivor") == 0) return survivor_main(argc - 1, argv + 1);
  cfg.ppid = getppid();
  snprintf(cfg.tag, sizeof cfg.tag, "p%d", (int)getpid());
  census_fds();
  take_canary_from_env();
  if (strcmp(argv[1], "list") == 0) {
    if (argc != 2) return usage();
    register_all();
    print_list();
    return 0;
  }
  if (strcmp(argv[1], "run") != 0) return usage();
  char* sel[256];
  int nsel = 0;
  for (int i = 2; i < argc; ++i) {
    const char* o = argv[i];
    bool has_val = i + 1 < argc;
    if (strcmp(o, "--canary") == 0 && has_val) {
      cfg.canary = strdup(argv[++i]);
      wipe(argv[i]);
    } else if (strcmp(o, "--home-canary") == 0 && has_val) {
      cfg.home_canary = argv[++i];
    } else if (strcmp(o, "--project") == 0 && has_val) {
      cfg.project = argv[++i];
    } else if (strcmp(o, "--host-socket") == 0 && has_val) {
      cfg.host_socket = argv[++i];
    } else if (strcmp(o, "--sysv-key") == 0 && has_val) {
      char* end;
      cfg.sysv_key = strtol(argv[++i], &end, 0);
      if (*end) return usage();
    } else if (strcmp(o, "--net-fixture") == 0) {
      cfg.net_fixture = true;
    } else if (strcmp(o, "--network-off") == 0) {
      cfg.network_off = true;
    } else if (o[0] == '-') {
      fprintf(stderr, "rf-attack: unknown option %s\n", o);
      return usage();
    } else if (nsel < 256) {
      sel[nsel++] = argv[i];
    }
  }
  if (!cfg.project) {
    static char cwd[4096];
    cfg.project = getcwd(cwd, sizeof cwd) ? cwd : ".";
  }
  probe_abis();
  register_all();
  int matched = 0;
  for (int i = 0; i < n_attacks; ++i)
    if (selected(&attacks[i], nsel, sel)) {
      run_one(&attacks[i]);
      ++matched;
    }
  if (nsel && !matched) {
    fprintf(stderr, "rf-attack: no attack matches the given ids\n");
    return 1;
  }
  return 0;
}
