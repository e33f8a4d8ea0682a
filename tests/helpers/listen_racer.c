// SPDX-License-Identifier: LGPL-2.1-or-later
// Attacks on the listen policy, as a static binary with raw system calls (no libc wrapper an
// LD_PRELOAD shim could catch). Nothing is ever sent: only bind, listen and accept. Prints one
// JSON object, each probe's outcome as "OK" or an errno name.
//   listen_racer probe DIR NAME PORT  every bind/listen/accept form; unix paths under DIR, the
//                                     abstract name "@NAME", PORT a free unprivileged port
//   listen_racer race DIR KIND MS   a thread flips the first byte of a unix sockaddr between a
//                                   path under DIR and NUL (an abstract name) while the main
//                                   thread binds fresh sockets with it: KIND "stream" (each one
//                                   then listens) or "dgram"
//   listen_racer flood COUNT        COUNT binds of a UDP socket to 0.0.0.0
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long raw(long nr, long a, long b, long c, long d, long e, long f) {
  long r = syscall(nr, a, b, c, d, e, f);
  return r < 0 ? -errno : r;
}

static const char* outcome(long r) {
  static char buf[32];
  if (r >= 0) return "OK";
  const char* n = strerrorname_np((int)-r);
  if (n) return n;
  snprintf(buf, sizeof buf, "errno %ld", -r);
  return buf;
}

static int first = 1;
static void put(const char* key, long r) {
  printf("%s\"%s\":\"%s\"", first ? "{" : ",", key, outcome(r));
  first = 0;
}

static void put_x32(const char* key, long nr) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) _exit((int)-raw(0x40000000L | nr, -1, 0, 0, 0, 0, 0));
  int st = 0;
  waitpid(pid, &st, 0);
  if (WIFSIGNALED(st)) {
    printf("%s\"%s\":\"%s\"", first ? "{" : ",", key,
           sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "signal");
    first = 0;
  } else {
    put(key, -(long)WEXITSTATUS(st));
  }
}

static long sock(int family, int type) { return raw(SYS_socket, family, type | SOCK_CLOEXEC, 0, 0, 0, 0); }

static long bind_to(long s, const void* addr, socklen_t len) {
  return raw(SYS_bind, s, (long)addr, len, 0, 0, 0);
}

static struct sockaddr_in in4(const char* ip, int port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

static struct sockaddr_in6 in6(const char* ip, int port) {
  struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((unsigned short)port)};
  inet_pton(AF_INET6, ip, &a.sin6_addr);
  return a;
}

// bind then listen, each reported as KEY_bind and KEY_listen.
static void bind_listen(const char* key, int family, const void* addr, socklen_t len) {
  char k[64];
  long s = sock(family, SOCK_STREAM);
  long r = bind_to(s, addr, len);
  snprintf(k, sizeof k, "%s_bind", key);
  put(k, r);
  snprintf(k, sizeof k, "%s_listen", key);
  put(k, r == 0 ? raw(SYS_listen, s, 4, 0, 0, 0, 0) : r);
  close((int)s);
}

static socklen_t unix_addr(struct sockaddr_un* a, const char* dir, const char* leaf, const char* abstract) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  if (abstract) {
    snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "%s", abstract);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(abstract));
  }
  snprintf(a->sun_path, sizeof a->sun_path, "%s/%s", dir, leaf);
  unlink(a->sun_path);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(a->sun_path) + 1);
}

static int probe(const char* dir, const char* name, int port) {
  struct sockaddr_in any4 = in4("0.0.0.0", 0), lo4 = in4("127.0.0.1", 0), lo80 = in4("127.0.0.1", 80);
  struct sockaddr_in fixed = in4("127.0.0.1", port);
  struct sockaddr_in6 any6 = in6("::", 0), lo6 = in6("::1", 0), mapped = in6("::ffff:127.0.0.1", 0);
  bind_listen("any4", AF_INET, &any4, sizeof any4);
  bind_listen("any6", AF_INET6, &any6, sizeof any6);
  // AF_UNSPEC with INADDR_ANY: the kernel reads it as AF_INET 0.0.0.0 on an AF_INET socket.
  struct sockaddr_in unspec = any4;
  unspec.sin_family = AF_UNSPEC;
  bind_listen("unspec4", AF_INET, &unspec, sizeof unspec);
  long s = sock(AF_INET, SOCK_STREAM);
  put("unbound_listen", raw(SYS_listen, s, 4, 0, 0, 0, 0));
  close((int)s);
  bind_listen("lo4", AF_INET, &lo4, sizeof lo4);
  bind_listen("lo6", AF_INET6, &lo6, sizeof lo6);
  bind_listen("mapped", AF_INET6, &mapped, sizeof mapped);
  bind_listen("port80", AF_INET, &lo80, sizeof lo80);
  bind_listen("fixed_port", AF_INET, &fixed, sizeof fixed);
  s = sock(AF_INET, SOCK_DGRAM);
  put("udp_any4_bind", bind_to(s, &any4, sizeof any4));
  close((int)s);
  s = sock(AF_INET, SOCK_DGRAM);
  put("udp_lo4_bind", bind_to(s, &lo4, sizeof lo4));
  close((int)s);
  // accept: on an inet socket that does not listen (the kernel's answer is EINVAL), and on a
  // listening unix socket without a waiting peer (EAGAIN).
  s = sock(AF_INET, SOCK_STREAM);
  put("inet_accept", raw(SYS_accept4, s, 0, 0, SOCK_NONBLOCK, 0, 0));
  put("inet_accept_plain", raw(SYS_accept, s, 0, 0, 0, 0, 0));
  close((int)s);
  struct sockaddr_un un;
  socklen_t ul = unix_addr(&un, dir, "path.sock", NULL);
  bind_listen("unix_path", AF_UNIX, &un, ul);
  s = sock(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK);
  ul = unix_addr(&un, dir, "accept.sock", NULL);
  if (bind_to(s, &un, ul) == 0 && raw(SYS_listen, s, 4, 0, 0, 0, 0) == 0)
    put("unix_accept", raw(SYS_accept4, s, 0, 0, SOCK_CLOEXEC, 0, 0));
  else
    put("unix_accept", -EPROTO);
  close((int)s);
  unlink(un.sun_path);
  unix_addr(&un, dir, "path.sock", NULL);  // removes the first probe's socket file
  ul = unix_addr(&un, dir, NULL, name);
  bind_listen("abstract", AF_UNIX, &un, ul);
  s = sock(AF_UNIX, SOCK_DGRAM);
  put("abstract_dgram_bind", bind_to(s, &un, ul));
  close((int)s);
  // Autobind: only sun_family; the kernel picks a name ("\0" and five hex digits).
  sa_family_t fam = AF_UNIX;
  bind_listen("autobind", AF_UNIX, &fam, sizeof fam);
  // The x32 forms, never decoded: refused (ENOSYS), or the process killed by a seccomp policy
  // that refuses x32 altogether ("SIGSYS"). In a child, which may die.
  put_x32("x32_bind", 49);
  put_x32("x32_listen", 50);
  printf("}\n");
  return 0;
}

// The race: the sockaddr in memory flips between a path and an abstract name.
static struct sockaddr_un shared;
static struct sockaddr_un as_path;
static atomic_int stop;

// One byte decides: sun_path[0] is '/' (the path) or NUL (an abstract name, the path's text).
static void* flipper(void* arg) {
  (void)arg;
  volatile char* first_byte = (volatile char*)shared.sun_path;
  while (!atomic_load(&stop)) {
    *first_byte = '\0';
    for (volatile int i = 0; i < 50; ++i) {}
    *first_byte = '/';
    for (volatile int i = 0; i < 50; ++i) {}
  }
  return NULL;
}

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int race(const char* dir, const char* kind, long ms) {
  const int dgram = strcmp(kind, "dgram") == 0;
  unix_addr(&as_path, dir, "race.sock", NULL);
  memcpy(&shared, &as_path, sizeof shared);
  pthread_t t;
  pthread_create(&t, NULL, flipper, NULL);
  long binds = 0, abstract_bound = 0, abstract_listened = 0, listen_refused = 0, tries = 0;
  const socklen_t len = (socklen_t)sizeof shared;  // long enough for either form
  for (long end = now_ms() + ms; now_ms() < end;) {
    ++tries;
    long s = sock(AF_UNIX, dgram ? SOCK_DGRAM : SOCK_STREAM);
    if (bind_to(s, &shared, len) == 0) {
      ++binds;
      struct sockaddr_un got;
      socklen_t gl = sizeof got;
      getsockname((int)s, (struct sockaddr*)&got, &gl);
      const int is_abstract = gl > sizeof(sa_family_t) && got.sun_path[0] == '\0';
      long r = dgram ? -EOPNOTSUPP : raw(SYS_listen, s, 4, 0, 0, 0, 0);
      if (is_abstract) {
        ++abstract_bound;
        if (r == 0) ++abstract_listened;
        if (r == -EACCES) ++listen_refused;
      }
      if (!is_abstract) unlink(as_path.sun_path);
    }
    close((int)s);
  }
  atomic_store(&stop, 1);
  pthread_join(t, NULL);
  unlink(as_path.sun_path);
  printf(
      "{\"tries\":%ld,\"binds\":%ld,\"abstract_bound\":%ld,\"abstract_listened\":%ld,\"listen_refused\":%ld}"
      "\n",
      tries, binds, abstract_bound, abstract_listened, listen_refused);
  return 0;
}

// COUNT refused binds to 0.0.0.0 (the violation log's bound).
static int flood(long count) {
  struct sockaddr_in any4 = in4("0.0.0.0", 0);
  long s = sock(AF_INET, SOCK_DGRAM), refused = 0;
  for (long i = 0; i < count; ++i)
    if (bind_to(s, &any4, sizeof any4) == -EACCES) ++refused;
  close((int)s);
  printf("{\"refused\":%ld}\n", refused);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 5 && strcmp(argv[1], "probe") == 0) return probe(argv[2], argv[3], atoi(argv[4]));
  if (argc == 5 && strcmp(argv[1], "race") == 0) return race(argv[2], argv[3], atol(argv[4]));
  if (argc == 3 && strcmp(argv[1], "flood") == 0) return flood(atol(argv[2]));
  fprintf(stderr, "usage: listen_racer probe DIR NAME PORT | race DIR stream|dgram MS | flood COUNT\n");
  return 2;
}
