// SPDX-License-Identifier: LGPL-2.1-or-later
// connect_bench: the cost of a loopback TCP connect, for tools/bench-connect. Run inside
// `ringfence run --network on` (every connect goes through the connect policy's supervisor)
// and with --allow-unfiltered-network (no policy), the difference is the policy's cost.
//
// usage: connect_bench latency N
//          N times: socket, blocking connect to a listener on 127.0.0.1, accept, close both;
//          prints "median_us=M p10_us=A p90_us=B n=N" (connect + accept, per connect)
//        connect_bench rate THREADS SECONDS
//          THREADS threads connect (blocking) and close as fast as they can while one thread
//          accepts and closes; prints "per_second=R connects=C seconds=S threads=T"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in where;
static atomic_int stop;
static atomic_long done;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static int die(const char* what) {
  fprintf(stderr, "connect_bench: %s: %s\n", what, strerror(errno));
  return 1;
}

static int listen_loopback(void) {
  int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l < 0) return -1;
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  memset(&where, 0, sizeof where);
  where.sin_family = AF_INET;
  where.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof where;
  if (bind(l, (struct sockaddr*)&where, sizeof where) != 0 || listen(l, 4096) != 0 ||
      getsockname(l, (struct sockaddr*)&where, &len) != 0)
    return -1;
  return l;
}

// A client socket that leaves no TIME_WAIT behind (linger 0): thousands of connects in a row
// would otherwise run out of ports.
static int client(void) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct linger lg = {1, 0};
  if (s >= 0) setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  return s;
}

static int latency(long n) {
  int l = listen_loopback();
  if (l < 0) return die("listen");
  double* t = calloc((size_t)n, sizeof *t);
  for (long i = -n / 10 - 10; i < n; ++i) {  // the first tenth warms up
    int s = client();
    if (s < 0) return die("socket");
    double t0 = now_us();
    if (connect(s, (struct sockaddr*)&where, sizeof where) != 0) return die("connect");
    int a = accept(l, NULL, NULL);
    double t1 = now_us();
    if (a < 0) return die("accept");
    close(s);
    close(a);
    if (i >= 0) t[i] = t1 - t0;
  }
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  printf("median_us=%.2f p10_us=%.2f p90_us=%.2f n=%ld\n", t[n / 2], t[n / 10], t[n * 9 / 10], n);
  return 0;
}

static void* acceptor(void* arg) {
  int l = *(int*)arg;
  while (!atomic_load(&stop)) {
    int a = accept(l, NULL, NULL);
    if (a >= 0) close(a);
  }
  return NULL;
}

static void* connector(void* arg) {
  (void)arg;
  while (!atomic_load(&stop)) {
    int s = client();
    if (s < 0) continue;
    if (connect(s, (struct sockaddr*)&where, sizeof where) == 0) atomic_fetch_add(&done, 1);
    close(s);
  }
  return NULL;
}

static int rate(int threads, double seconds) {
  int l = listen_loopback();
  if (l < 0) return die("listen");
  pthread_t acc, th[64];
  if (threads < 1 || threads > 64) threads = 8;
  pthread_create(&acc, NULL, acceptor, &l);
  for (int i = 0; i < threads; ++i) pthread_create(&th[i], NULL, connector, NULL);
  usleep(200000);  // warm up
  long before = atomic_load(&done);
  double t0 = now_us();
  usleep((useconds_t)(seconds * 1e6));
  long count = atomic_load(&done) - before;
  double dt = (now_us() - t0) / 1e6;
  atomic_store(&stop, 1);
  for (int i = 0; i < threads; ++i) pthread_join(th[i], NULL);
  // The acceptor may wait in accept: one more connect wakes it.
  int s = client();
  connect(s, (struct sockaddr*)&where, sizeof where);
  close(s);
  pthread_join(acc, NULL);
  printf("per_second=%.0f connects=%ld seconds=%.2f threads=%d\n", count / dt, count, dt, threads);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "latency") == 0) return latency(atol(argv[2]));
  if (argc == 4 && strcmp(argv[1], "rate") == 0) return rate(atoi(argv[2]), atof(argv[3]));
  fprintf(stderr, "usage: connect_bench latency N | connect_bench rate THREADS SECONDS\n");
  return 2;
}
