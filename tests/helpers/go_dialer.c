// SPDX-License-Identifier: LGPL-2.1-or-later
// go_dialer: a static client that dials the way Go's net package does, for the connect-policy
// tests: socket(SOCK_NONBLOCK | SOCK_CLOEXEC), connect (EINPROGRESS), epoll_wait for EPOLLOUT,
// getsockopt(SO_ERROR); then one HTTP/1.0 request, whose answer must start with "HTTP/".
//
// usage: go_dialer dial THREADS ROUNDS ADDR PORT [ADDR PORT]...
//          every thread dials every address ROUNDS times, all threads at once; a port below
//          1024 only dials (no request)
//        go_dialer happy PRIMARY FALLBACK PORT
//          Go's dialParallel (happy eyeballs): PRIMARY (IPv6) at once, FALLBACK (IPv4) after
//          300 ms or as soon as PRIMARY fails; the first to connect wins, the other is closed
// output: one JSON line. dial: {"ADDR PORT":{"ok":N,"errors":{"ERRNO":COUNT,...}},...}.
//         happy: {"winner":"ADDR"|null,"primary_errno":E,"fallback_errno":E,"ms":T}
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_TARGETS 8
#define MAX_ERRNO 256

struct target {
  struct sockaddr_storage sa;
  socklen_t len;
  const char* addr;
  int port;
  int ok;
  int errors[MAX_ERRNO];
};

static struct target targets[MAX_TARGETS];
static int ntargets, rounds;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int parse(const char* addr, int port, struct target* t) {
  memset(t, 0, sizeof *t);
  t->addr = addr;
  t->port = port;
  struct sockaddr_in* a4 = (struct sockaddr_in*)&t->sa;
  struct sockaddr_in6* a6 = (struct sockaddr_in6*)&t->sa;
  if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons((unsigned short)port);
    t->len = sizeof *a4;
    return 0;
  }
  if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((unsigned short)port);
    t->len = sizeof *a6;
    return 0;
  }
  return -1;
}

// Go's (*netFD).connect: a non-blocking connect, then the poller, then SO_ERROR.
// Returns the connected fd, or -errno. `cancel` (optional) is an eventfd-like fd whose
// readability abandons the attempt (happy eyeballs' loser).
static int go_connect(const struct target* t, int timeout_ms, int cancel) {
  int fd = socket(t->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  if (connect(fd, (const struct sockaddr*)&t->sa, t->len) == 0) return fd;
  int err = errno;
  if (err != EINPROGRESS && err != EINTR && err != EALREADY) {
    close(fd);
    return -err;
  }
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLOUT | EPOLLET, .data.fd = fd};
  epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  if (cancel >= 0) {
    struct epoll_event cev = {.events = EPOLLIN, .data.fd = cancel};
    epoll_ctl(ep, EPOLL_CTL_ADD, cancel, &cev);
  }
  for (;;) {
    struct epoll_event got;
    int n = epoll_wait(ep, &got, 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = ETIMEDOUT;
      break;
    }
    if (got.data.fd == cancel) {
      err = ECANCELED;
      break;
    }
    socklen_t len = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err == 0) {
      close(ep);
      return fd;
    }
    if (err != EINPROGRESS && err != EALREADY && err != EINTR) break;
  }
  close(ep);
  close(fd);
  return -err;
}

// One HTTP/1.0 exchange on a connected non-blocking socket. 0 or an errno.
static int http_get(int fd) {
  static const char req[] = "GET / HTTP/1.0\r\n\r\n";
  if (write(fd, req, sizeof req - 1) != (ssize_t)(sizeof req - 1)) return errno ? errno : EIO;
  char buf[64];
  size_t got = 0;
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
  epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  int err = 0;
  char rest[4096];
  for (;;) {  // the whole answer, to the server's close
    ssize_t n = got < sizeof buf ? read(fd, buf + got, sizeof buf - got) : read(fd, rest, sizeof rest);
    if (n > 0) {
      if (got < sizeof buf) got += (size_t)n;
      continue;
    }
    if (n == 0) break;
    if (errno != EAGAIN) {
      err = errno;
      break;
    }
    struct epoll_event e;
    if (epoll_wait(ep, &e, 1, 5000) <= 0) {
      err = ETIMEDOUT;
      break;
    }
  }
  close(ep);
  if (!err && (got < 5 || memcmp(buf, "HTTP/", 5) != 0)) err = EPROTO;
  return err;
}

static void* dial_thread(void* arg) {
  (void)arg;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < ntargets; ++i) {
      struct target* t = &targets[i];
      int fd = go_connect(t, 10000, -1);
      int err = fd < 0 ? -fd : 0;
      if (fd >= 0) {
        if (t->port >= 1024) err = http_get(fd);
        close(fd);
      }
      pthread_mutex_lock(&mu);
      if (err == 0)
        t->ok++;
      else
        t->errors[err < MAX_ERRNO ? err : MAX_ERRNO - 1]++;
      pthread_mutex_unlock(&mu);
    }
  }
  return NULL;
}

static int dial(int argc, char** argv) {
  int threads = atoi(argv[2]);
  rounds = atoi(argv[3]);
  for (int i = 4; i + 1 < argc && ntargets < MAX_TARGETS; i += 2)
    if (parse(argv[i], atoi(argv[i + 1]), &targets[ntargets++]) != 0) {
      fprintf(stderr, "go_dialer: bad address %s\n", argv[i]);
      return 2;
    }
  pthread_t th[64];
  if (threads < 1 || threads > 64) threads = 1;
  for (int i = 0; i < threads; ++i) pthread_create(&th[i], NULL, dial_thread, NULL);
  for (int i = 0; i < threads; ++i) pthread_join(th[i], NULL);
  printf("{");
  for (int i = 0; i < ntargets; ++i) {
    printf("%s\"%s %d\":{\"ok\":%d,\"errors\":{", i ? "," : "", targets[i].addr, targets[i].port,
           targets[i].ok);
    int first = 1;
    for (int e = 0; e < MAX_ERRNO; ++e)
      if (targets[i].errors[e]) {
        printf("%s\"%d\":%d", first ? "" : ",", e, targets[i].errors[e]);
        first = 0;
      }
    printf("}}");
  }
  printf("}\n");
  return 0;
}

// Happy eyeballs, as Go's dialParallel: each attempt in its own thread, results over a pipe.
struct attempt {
  struct target* t;
  int cancel;  // read end of a pipe: readable once the other attempt won
  int result;  // fd or -errno
  int report;  // write end of the results pipe
  int index;
};

static void* attempt_thread(void* arg) {
  struct attempt* a = arg;
  a->result = go_connect(a->t, 10000, a->cancel);
  char idx = (char)a->index;
  (void)!write(a->report, &idx, 1);
  return NULL;
}

static int happy(char** argv) {
  struct target prim, fall;
  int port = atoi(argv[4]);
  if (parse(argv[2], port, &prim) != 0 || parse(argv[3], port, &fall) != 0) return 2;
  int results[2], cancel[2];
  if (pipe(results) != 0 || pipe(cancel) != 0) return 2;
  struct attempt at[2] = {{&prim, cancel[0], 0, results[1], 0}, {&fall, cancel[0], 0, results[1], 1}};
  double t0 = now_ms();
  pthread_t th[2];
  pthread_create(&th[0], NULL, attempt_thread, &at[0]);
  int started = 1, finished = 0, winner = -1;
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = results[0]};
  int ep = epoll_create1(EPOLL_CLOEXEC);
  epoll_ctl(ep, EPOLL_CTL_ADD, results[0], &ev);
  while (finished < started) {
    struct epoll_event got;
    int n = epoll_wait(ep, &got, 1, started == 1 ? 300 : -1);
    if (n == 0 && started == 1) {  // the fallback delay passed
      pthread_create(&th[1], NULL, attempt_thread, &at[1]);
      started = 2;
      continue;
    }
    if (n < 0) continue;
    char idx;
    if (read(results[0], &idx, 1) != 1) break;
    ++finished;
    if (at[(int)idx].result >= 0 && winner < 0) {
      winner = idx;
      (void)!write(cancel[1], "x", 1);  // the other attempt gives up
    }
    if (idx == 0 && at[0].result < 0 && started == 1) {  // primary failed: fallback now
      pthread_create(&th[1], NULL, attempt_thread, &at[1]);
      started = 2;
    }
  }
  for (int i = 0; i < started; ++i) pthread_join(th[i], NULL);
  int err = 0;
  if (winner >= 0) err = http_get(at[winner].result);
  for (int i = 0; i < started; ++i)
    if (at[i].result >= 0) close(at[i].result);
  printf("{\"winner\":");
  if (winner >= 0 && !err)
    printf("\"%s\"", at[winner].t->addr);
  else
    printf("null");
  printf(",\"primary_errno\":%d,\"fallback_errno\":%d,\"http_errno\":%d,\"ms\":%.1f}\n",
         at[0].result < 0 ? -at[0].result : 0, started == 2 && at[1].result < 0 ? -at[1].result : 0, err,
         now_ms() - t0);
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 6 && strcmp(argv[1], "dial") == 0) return dial(argc, argv);
  if (argc == 5 && strcmp(argv[1], "happy") == 0) return happy(argv);
  fprintf(stderr,
          "usage: go_dialer dial THREADS ROUNDS ADDR PORT [ADDR PORT]...\n"
          "       go_dialer happy PRIMARY FALLBACK PORT\n");
  return 2;
}
