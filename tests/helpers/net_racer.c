// SPDX-License-Identifier: LGPL-2.1-or-later
// Attacks on the connect policy's supervisor, as a static binary with raw system calls (no
// libc wrapper an LD_PRELOAD shim could catch). Prints one JSON object.
//   net_racer connect IP PORT             raw connect (IPv4 or IPv6), blocking
//   net_racer nbconnect IP PORT           non-blocking connect
//   net_racer fastopen IP PORT            sendto(MSG_FASTOPEN) on a TCP socket
//   net_racer sendmmsg ALLOW DENY PORT    UDP batch: ALLOW, ALLOW, DENY, ALLOW
//   net_racer race ALLOW DENY PORT MS     a thread flips the sockaddr between ALLOW and DENY
//                                         while the main thread connects in a loop
//   net_racer dup2race DENY PORT MS       a thread dup2()s a UDP socket onto the number of a unix
//                                         datagram socket while the main thread sendmsg()s to DENY
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static socklen_t make_addr(const char* ip, int port, struct sockaddr_storage* ss, int* family) {
  memset(ss, 0, sizeof *ss);
  if (strchr(ip, ':')) {
    struct sockaddr_in6* a = (struct sockaddr_in6*)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons((unsigned short)port);
    char buf[64];
    snprintf(buf, sizeof buf, "%s", ip);
    char* pct = strchr(buf, '%');
    if (pct) {
      *pct = 0;
      a->sin6_scope_id = (unsigned)atoi(pct + 1);
    }
    inet_pton(AF_INET6, buf, &a->sin6_addr);
    *family = AF_INET6;
    return sizeof *a;
  }
  struct sockaddr_in* a = (struct sockaddr_in*)ss;
  a->sin_family = AF_INET;
  a->sin_port = htons((unsigned short)port);
  inet_pton(AF_INET, ip, &a->sin_addr);
  *family = AF_INET;
  return sizeof *a;
}

static long raw(long nr, long a, long b, long c, long d, long e, long f) {
  long r = syscall(nr, a, b, c, d, e, f);
  return r < 0 ? -errno : r;
}

static volatile struct sockaddr_in shared;
static struct sockaddr_in allow_a, deny_a;
static atomic_int stop;

static void* flipper(void* arg) {
  (void)arg;
  while (!atomic_load(&stop)) {
    memcpy((void*)&shared, &deny_a, sizeof shared);
    memcpy((void*)&shared, &allow_a, sizeof shared);
  }
  return NULL;
}

static int dup_target = -1, udp_sock = -1, unix_sock = -1;
static void* dupper(void* arg) {
  (void)arg;
  while (!atomic_load(&stop)) {
    dup2(udp_sock, dup_target);
    dup2(unix_sock, dup_target);
  }
  return NULL;
}

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const char* mode = argv[1];
  struct sockaddr_storage ss;
  int fam;
  if (!strcmp(mode, "connect") || !strcmp(mode, "nbconnect") || !strcmp(mode, "fastopen")) {
    socklen_t len = make_addr(argv[2], atoi(argv[3]), &ss, &fam);
    int type = SOCK_STREAM | (!strcmp(mode, "nbconnect") ? SOCK_NONBLOCK : 0);
    int fd = (int)raw(SYS_socket, fam, type, 0, 0, 0, 0);
    long r;
    if (!strcmp(mode, "fastopen"))
      r = raw(SYS_sendto, fd, (long)"x", 1, MSG_FASTOPEN, (long)&ss, len);
    else
      r = raw(SYS_connect, fd, (long)&ss, len, 0, 0, 0);
    printf("{\"ret\":%ld,\"errno\":%ld}\n", r < 0 ? -1 : r, r < 0 ? -r : 0);
    return 0;
  }
  if (!strcmp(mode, "sendmmsg")) {
    struct sockaddr_storage a, d;
    socklen_t la = make_addr(argv[2], atoi(argv[4]), &a, &fam);
    socklen_t ld = make_addr(argv[3], atoi(argv[4]), &d, &fam);
    int fd = (int)raw(SYS_socket, fam, SOCK_DGRAM, 0, 0, 0, 0);
    struct mmsghdr m[4];
    struct iovec iov[4];
    char data[4][8] = {"m0", "m1", "m2", "m3"};
    memset(m, 0, sizeof m);
    for (int i = 0; i < 4; ++i) {
      iov[i].iov_base = data[i];
      iov[i].iov_len = 2;
      m[i].msg_hdr.msg_iov = &iov[i];
      m[i].msg_hdr.msg_iovlen = 1;
      m[i].msg_hdr.msg_name = i == 2 ? (void*)&d : (void*)&a;
      m[i].msg_hdr.msg_namelen = i == 2 ? ld : la;
    }
    long r = raw(SYS_sendmmsg, fd, (long)m, 4, 0, 0, 0);
    printf("{\"ret\":%ld,\"errno\":%ld,\"len0\":%u}\n", r < 0 ? -1 : r, r < 0 ? -r : 0, m[0].msg_len);
    return 0;
  }
  if (!strcmp(mode, "race") && argc >= 6) {
    make_addr(argv[2], atoi(argv[4]), &ss, &fam);
    memcpy(&allow_a, &ss, sizeof allow_a);
    make_addr(argv[3], atoi(argv[4]), &ss, &fam);
    memcpy(&deny_a, &ss, sizeof deny_a);
    memcpy((void*)&shared, &allow_a, sizeof shared);
    pthread_t t[3];
    for (int i = 0; i < 3; ++i) pthread_create(&t[i], NULL, flipper, NULL);
    long end = now_ms() + atol(argv[5]), ok = 0, refused = 0, other = 0, tries = 0;
    while (now_ms() < end) {
      int fd = (int)raw(SYS_socket, AF_INET, SOCK_STREAM, 0, 0, 0, 0);
      long r = raw(SYS_connect, fd, (long)&shared, sizeof shared, 0, 0, 0);
      ++tries;
      if (r == 0)
        ++ok;
      else if (r == -ECONNREFUSED)
        ++refused;
      else
        ++other;
      close(fd);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 3; ++i) pthread_join(t[i], NULL);
    printf("{\"tries\":%ld,\"ok\":%ld,\"refused\":%ld,\"other\":%ld}\n", tries, ok, refused, other);
    return 0;
  }
  if (!strcmp(mode, "dup2race") && argc >= 5) {
    socklen_t len = make_addr(argv[2], atoi(argv[3]), &ss, &fam);
    udp_sock = socket(AF_INET, SOCK_DGRAM, 0);
    unix_sock = socket(AF_UNIX, SOCK_DGRAM, 0);
    dup_target = socket(AF_UNIX, SOCK_DGRAM, 0);
    pthread_t t;
    pthread_create(&t, NULL, dupper, NULL);
    long end = now_ms() + atol(argv[4]), sent = 0, tries = 0;
    char byte = 'x';
    while (now_ms() < end) {
      struct iovec iov = {&byte, 1};
      struct msghdr mh;
      memset(&mh, 0, sizeof mh);
      mh.msg_name = &ss;
      mh.msg_namelen = len;
      mh.msg_iov = &iov;
      mh.msg_iovlen = 1;
      long r = raw(SYS_sendmsg, dup_target, (long)&mh, 0, 0, 0, 0);
      ++tries;
      if (r > 0) ++sent;
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("{\"tries\":%ld,\"sent\":%ld}\n", tries, sent);
    return 0;
  }
  return 2;
}
