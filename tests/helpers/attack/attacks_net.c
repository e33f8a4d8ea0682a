// SPDX-License-Identifier: LGPL-2.1-or-later
// rf-attack: the network (S-06..S-08, NET, NTF). Every call that could send a packet to a
// non-loopback address runs only with --net-fixture AND after fixture_safe() confirmed that this
// network namespace is the fixture's (198.51.100.10 is a local address) or has no route at all.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rf_attack.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef TCP_FASTOPEN_CONNECT
#define TCP_FASTOPEN_CONNECT 30
#endif

#define ALLOWED4 "198.51.100.10"

// The fixture's denied addresses (fixture.c adds the same ones).
static const char* const denied4[] = {"169.254.169.254",
                                      "169.254.169.253",
                                      "169.254.170.2",
                                      "100.100.100.200",
                                      "168.63.129.16",
                                      "192.0.0.192",
                                      NULL};
static const char* const denied6[] = {"fd00:ec2::254", "fd00:ec2::23", "fe80::a9fe:a9fe", NULL};
// 169.254.169.254 written inside IPv6 (NET-03 mapped; NET-04 compatible, NAT64 /96, NAT64 local-use, 6to4).
static const char* const embedded6[] = {"::ffff:169.254.169.254", "::169.254.169.254", "64:ff9b::a9fe:a9fe",
                                        "64:ff9b:1::a9fe:a9fe",   "2002:a9fe:a9fe::1", NULL};

struct addr {
  struct sockaddr_storage ss;
  socklen_t len;
  int family;
};

static bool make_addr(const char* ip, int port, struct addr* out) {
  memset(out, 0, sizeof *out);
  struct sockaddr_in* s4 = (struct sockaddr_in*)&out->ss;
  struct sockaddr_in6* s6 = (struct sockaddr_in6*)&out->ss;
  if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1) {
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)port);
    out->len = sizeof *s4;
    out->family = AF_INET;
    return true;
  }
  if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1) {
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons((uint16_t)port);
    if (strncmp(ip, "fe80", 4) == 0) s6->sin6_scope_id = 1;  // lo is interface 1 in a new namespace
    out->len = sizeof *s6;
    out->family = AF_INET6;
    return true;
  }
  return false;
}

static char reason[256];

// Is it safe to send to the fixture's addresses from here?
static bool fixture_safe(void) {
  if (!cfg.net_fixture) {
    snprintf(reason, sizeof reason, "no hermetic network fixture (--net-fixture not given): nothing is sent");
    return false;
  }
  struct addr a;
  make_addr(ALLOWED4, 0, &a);
  int s = (int)rsys(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0, 0, 0);
  long r = s >= 0 ? rsys(SYS_bind, s, (long)&a.ss, a.len, 0, 0, 0) : -1;
  if (s >= 0) close(s);
  if (r == 0) return true;  // the fixture's allowed address is local: this is its namespace
  // Not the fixture's namespace: only an isolated one (no route besides loopback) is safe.
  static char buf[16384];
  ssize_t n = read_file("/proc/net/route", buf, sizeof buf);
  int lines = 0;
  for (ssize_t i = 0; i < n; ++i) lines += buf[i] == '\n';
  if (n < 0 || lines > 1) {
    snprintf(reason, sizeof reason,
             "--net-fixture given, but %s is not local and IPv4 routes exist: not the fixture, nothing sent",
             ALLOWED4);
    return false;
  }
  n = read_file("/proc/net/ipv6_route", buf, sizeof buf);
  char* save = NULL;
  for (char* line = strtok_r(n > 0 ? buf : NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    size_t l = strlen(line);
    while (l && line[l - 1] == ' ') --l;
    if (l < 2 || strncmp(line + l - 2, "lo", 2) != 0) {
      snprintf(reason, sizeof reason,
               "--net-fixture given, but IPv6 routes beyond lo exist: not the fixture, nothing sent");
      return false;
    }
  }
  return true;
}

#define NEED_FIXTURE()       \
  do {                       \
    if (!fixture_safe()) {   \
      skipped("%s", reason); \
      return;                \
    }                        \
  } while (0)

static int sock_for(int family, int type) {
  int s = (int)rsys(SYS_socket, family, type | SOCK_CLOEXEC, 0, 0, 0, 0);
  if (s >= 0) {
    struct timeval tv = {0, 700000};
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  return s;
}

enum { K_TCP, K_NB, K_SENDTO, K_SENDMSG, K_FASTOPEN, K_ASM };

static void report_call(long r, int e, const char* what, const char* ip) {
  if (r >= 0)
    succeeded(0, "%s %s worked", what, ip);
  else
    blocked(e, "%s %s: %s", what, ip, errname(e));
}

static void addr_attack(const struct attack* a) {
  NEED_FIXTURE();
  const char* ip = a->sarg;
  int port = a->arg == K_SENDTO ? 53 : a->arg == K_SENDMSG ? 123 : a->arg == K_NB ? 443 : 80;
  struct addr ad;
  make_addr(ip, port, &ad);
  bool tcp = a->arg == K_TCP || a->arg == K_NB || a->arg == K_FASTOPEN || a->arg == K_ASM;
  int s = sock_for(ad.family, tcp ? SOCK_STREAM : SOCK_DGRAM);
  if (s < 0) {
    blocked(errno, "socket: %s", errname(errno));
    return;
  }
  long r;
  int e;
  switch (a->arg) {
    case K_TCP:
      r = rsys(SYS_connect, s, (long)&ad.ss, ad.len, 0, 0, 0);
      e = errno;
      report_call(r, e, "connect", ip);
      break;
    case K_ASM:
      r = asm_syscall6(SYS_connect, s, (long)&ad.ss, ad.len, 0, 0, 0);
      e = r < 0 ? (int)-r : 0;
      report_call(r, e, "connect (inline syscall instruction)", ip);
      break;
    case K_NB: {
      fcntl(s, F_SETFL, O_NONBLOCK);
      r = rsys(SYS_connect, s, (long)&ad.ss, ad.len, 0, 0, 0);
      e = errno;
      if (r < 0 && e == EINPROGRESS) {
        struct pollfd p = {s, POLLOUT, 0};
        poll(&p, 1, 500);
        int so = 0;
        socklen_t l = sizeof so;
        getsockopt(s, SOL_SOCKET, SO_ERROR, &so, &l);
        if ((p.revents & POLLOUT) && so == 0)
          succeeded(0, "non-blocking connect %s completed", ip);
        else
          blocked(so ? so : ETIMEDOUT, "non-blocking connect %s: EINPROGRESS, then %s", ip,
                  errname(so ? so : ETIMEDOUT));
      } else {
        report_call(r, e, "non-blocking connect", ip);
      }
      break;
    }
    case K_SENDTO:
      r = rsys(SYS_sendto, s, (long)"rf-attack", 9, 0, (long)&ad.ss, ad.len);
      e = errno;
      report_call(r, e, "UDP sendto", ip);
      break;
    case K_SENDMSG: {
      struct iovec iov = {(void*)"rf-attack", 9};
      struct msghdr m = {.msg_name = &ad.ss, .msg_namelen = ad.len, .msg_iov = &iov, .msg_iovlen = 1};
      r = rsys(SYS_sendmsg, s, (long)&m, 0, 0, 0, 0);
      e = errno;
      report_call(r, e, "UDP sendmsg with msg_name", ip);
      break;
    }
    case K_FASTOPEN:
      r = rsys(SYS_sendto, s, (long)"GET / HTTP/1.0\r\n\r\n", 18, MSG_FASTOPEN, (long)&ad.ss, ad.len);
      e = errno;
      report_call(r, e, "sendto MSG_FASTOPEN", ip);
      break;
  }
  close(s);
}

// NET-07: sendmmsg with allowed, allowed, denied, allowed.
static void sendmmsg_attack(const struct attack* a) {
  (void)a;
  NEED_FIXTURE();
  struct addr ok, bad;
  make_addr(ALLOWED4, 53, &ok);
  make_addr("169.254.169.253", 53, &bad);
  int s = sock_for(AF_INET, SOCK_DGRAM);
  struct iovec iov = {(void*)"rf-attack", 9};
  struct mmsghdr v[4];
  memset(v, 0, sizeof v);
  for (int i = 0; i < 4; ++i) {
    struct addr* t = i == 2 ? &bad : &ok;
    v[i].msg_hdr.msg_name = &t->ss;
    v[i].msg_hdr.msg_namelen = t->len;
    v[i].msg_hdr.msg_iov = &iov;
    v[i].msg_hdr.msg_iovlen = 1;
  }
  long r = rsys(SYS_sendmmsg, s, (long)v, 4, 0, 0, 0);
  int e = errno;
  close(s);
  if (r > 2)
    succeeded(0, "sendmmsg sent %ld of 4; the 3rd went to 169.254.169.253:53", r);
  else if (r >= 0)
    blocked(ECONNREFUSED, "sendmmsg stopped at the denied entry: %ld sent", r);
  else
    blocked(e, "sendmmsg: %s", errname(e));
}

// NET-09: TCP_FASTOPEN_CONNECT then connect; sendmsg with MSG_FASTOPEN.
static void fastopen_more(const struct attack* a) {
  NEED_FIXTURE();
  struct addr ad;
  make_addr("169.254.169.254", 80, &ad);
  int s = sock_for(AF_INET, SOCK_STREAM);
  long r;
  int e;
  if (a->arg == 0) {
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof one);
    r = rsys(SYS_connect, s, (long)&ad.ss, ad.len, 0, 0, 0);
    e = errno;
    if (r == 0) {
      r = rsys(SYS_sendto, s, (long)"x", 1, 0, 0, 0);
      e = errno;
    }
    report_call(r, e, "TCP_FASTOPEN_CONNECT + connect + send", "169.254.169.254");
  } else {
    struct iovec iov = {(void*)"x", 1};
    struct msghdr m = {.msg_name = &ad.ss, .msg_namelen = ad.len, .msg_iov = &iov, .msg_iovlen = 1};
    r = rsys(SYS_sendmsg, s, (long)&m, MSG_FASTOPEN, 0, 0, 0);
    e = errno;
    report_call(r, e, "sendmsg MSG_FASTOPEN", "169.254.169.254");
  }
  close(s);
}

// S-08: the same connect from a fresh exec of this program with an empty environment (no
// LD_PRELOAD).
static void exec_fresh(const struct attack* a) {
  (void)a;
  NEED_FIXTURE();
  int p[2];
  if (pipe(p) != 0) {
    skipped("pipe: %s", errname(errno));
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(p[1], 1);
    close(p[0]);
    char* argv[] = {"rf-attack", "run", "--net-fixture", "NET-01.tcp.169.254.169.254", NULL};
    execve("/proc/self/exe", argv, (char**)EMPTY_ENV);
    _exit(127);
  }
  close(p[1]);
  char out[4096] = "";
  size_t got = 0;
  ssize_t n;
  while (got < sizeof out - 1 && (n = read(p[0], out + got, sizeof out - 1 - got)) > 0) got += (size_t)n;
  close(p[0]);
  waitpid(pid, NULL, 0);
  out[got] = 0;
  if (strstr(out, "\"outcome\":\"succeeded\""))
    succeeded(0, "a fresh exec with an empty environment connected to 169.254.169.254:80");
  else if (strstr(out, "\"outcome\":\"blocked\""))
    blocked(ECONNREFUSED, "a fresh exec with an empty environment was refused too");
  else
    skipped("the fresh exec gave no result: %.200s", out);
}

// S-07: network off: even the allowed address is unreachable. NET-CTL: the allowed address (control).
static void allowed_control(const struct attack* a) {
  NEED_FIXTURE();
  if (a->arg == 1 && !cfg.network_off) {
    skipped("the network is on (no --network-off): egress to the allowed address is expected");
    return;
  }
  struct acc acc = {0};
  struct addr t, u, m;
  make_addr(ALLOWED4, 80, &t);
  make_addr(ALLOWED4, 53, &u);
  int s = sock_for(AF_INET, SOCK_STREAM);
  long r = rsys(SYS_connect, s, (long)&t.ss, t.len, 0, 0, 0);
  acc_add(&acc, r == 0, errno, "TCP connect %s:80", ALLOWED4);
  close(s);
  s = sock_for(AF_INET, SOCK_DGRAM);
  r = rsys(SYS_sendto, s, (long)"rf-attack", 9, 0, (long)&u.ss, u.len);
  acc_add(&acc, r >= 0, errno, "UDP sendto %s:53", ALLOWED4);
  close(s);
  make_addr("::ffff:" ALLOWED4, 80, &m);
  s = sock_for(AF_INET6, SOCK_STREAM);
  r = rsys(SYS_connect, s, (long)&m.ss, m.len, 0, 0, 0);
  acc_add(&acc, r == 0, errno, "TCP connect [::ffff:%s]:80", ALLOWED4);
  close(s);
  acc_done(&acc, NULL);
}

// NET-10: source routes past the connect policy. An IPv6 routing header of type 4 (segment routing)
// with segments_left 0 makes the kernel address the packet to its segment (here fd00:ec2::254)
// instead of the destination the policy decided (::1, or the allowed address); an IPv4 loose
// source route sends it to the first hop. As sticky options (setsockopt: nothing is sent when the
// option is refused, and without the fixture nothing is sent at all) and as sendmsg ancillary data
// (only with the fixture).
static size_t route_header(unsigned char* b, int type, int left) {
  memset(b, 0, 24);
  b[1] = 2;  // length in 8-byte units after the first 8: one address
  b[2] = (unsigned char)type;
  b[3] = (unsigned char)left;
  inet_pton(AF_INET6, "fd00:ec2::254", b + 8);
  return 24;
}
static size_t lsrr(unsigned char* b) {
  b[0] = 131;  // IPOPT_LSRR
  b[1] = 7;
  b[2] = 4;
  inet_pton(AF_INET, "169.254.169.254", b + 3);
  b[7] = 1;  // NOP: options are padded to 4 bytes
  return 8;
}
static void route_attack(const struct attack* a) {
  struct acc acc = {0};
  unsigned char hdr[64];
  const bool v6 = a->arg == 0 || a->arg == 1 || a->arg == 3;
  const bool cmsg = a->arg == 3 || a->arg == 4;
  if (cmsg) NEED_FIXTURE();
  const bool send_too = fixture_safe();
  struct addr dst;
  make_addr(v6 ? "::1" : ALLOWED4, 53, &dst);
  const int types[] = {SOCK_DGRAM, SOCK_STREAM};
  for (int ti = 0; ti < (cmsg ? 1 : 2); ++ti) {
    const int type = types[ti];
    int s = sock_for(v6 ? AF_INET6 : AF_INET, type);
    if (s < 0) {
      acc_add(&acc, false, errno, "socket");
      break;
    }
    const char* k = type == SOCK_DGRAM ? "UDP" : "TCP";
    if (!cmsg) {
      const int opt = a->arg == 0 ? IPV6_RTHDR : a->arg == 1 ? IPV6_2292RTHDR : IP_OPTIONS;
      const size_t n = v6 ? route_header(hdr, 4, 0) : lsrr(hdr);
      long r = rsys(SYS_setsockopt, s, v6 ? IPPROTO_IPV6 : IPPROTO_IP, opt, (long)hdr, (long)n, 0);
      int e = errno;
      acc_add(&acc, r == 0, e, "%s setsockopt(%s)", k,
              a->arg == 0   ? "IPV6_RTHDR type 4, segments_left 0"
              : a->arg == 1 ? "IPV6_2292RTHDR type 4"
                            : "IP_OPTIONS LSRR");
      if (r == 0 && send_too) {
        make_addr(v6 ? "::1" : ALLOWED4, type == SOCK_DGRAM ? 53 : 80, &dst);
        if (type == SOCK_DGRAM)
          sendto(s, "x", 1, 0, (struct sockaddr*)&dst.ss, dst.len);
        else
          connect(s, (struct sockaddr*)&dst.ss, dst.len);
        acc_note(&acc, "sent to %s (the fixture records where it went)", v6 ? "[::1]" : ALLOWED4);
      }
    } else {
      for (int t = 0; t < (v6 ? 2 : 1); ++t) {
        _Alignas(struct cmsghdr) unsigned char cbuf[CMSG_SPACE(24)];
        memset(cbuf, 0, sizeof cbuf);
        struct iovec iov = {(void*)"x", 1};
        struct msghdr mh = {.msg_name = &dst.ss, .msg_namelen = dst.len, .msg_iov = &iov, .msg_iovlen = 1};
        mh.msg_control = cbuf;
        const size_t n = v6 ? route_header(CMSG_DATA((struct cmsghdr*)cbuf), t ? 2 : 4, t ? 1 : 0)
                            : lsrr(CMSG_DATA((struct cmsghdr*)cbuf));
        struct cmsghdr* c = (struct cmsghdr*)cbuf;
        c->cmsg_level = v6 ? IPPROTO_IPV6 : IPPROTO_IP;
        c->cmsg_type = v6 ? IPV6_RTHDR : IP_RETOPTS;
        c->cmsg_len = CMSG_LEN(n);
        mh.msg_controllen = CMSG_SPACE(n);
        long r = sendmsg(s, &mh, 0);
        acc_add(&acc, r >= 0, errno, "sendmsg with %s",
                v6 ? (t ? "IPV6_RTHDR type 2" : "IPV6_RTHDR type 4") : "IP_RETOPTS LSRR");
      }
    }
    close(s);
  }
  acc_done(&acc, NULL);
}

// NET-10 / NET-11: socket families and protocols (socket() only: nothing is sent).
static const struct {
  const char* id;
  const char* row;
  int family, type, proto;
  const char* title;
} families[] = {
    {"NET-10.sctp", "NET-10", AF_INET, SOCK_STREAM, 132, "socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)"},
    {"NET-10.sctp6", "NET-10", AF_INET6, SOCK_SEQPACKET, 132,
     "socket(AF_INET6, SOCK_SEQPACKET, IPPROTO_SCTP)"},
    {"NET-10.dccp", "NET-10", AF_INET, SOCK_DCCP, 33, "socket(AF_INET, SOCK_DCCP, IPPROTO_DCCP)"},
    {"NET-10.udplite", "NET-10", AF_INET, SOCK_DGRAM, 136, "socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE)"},
    {"NET-11.vsock", "NET-11", AF_VSOCK, SOCK_STREAM, 0, "socket(AF_VSOCK) (reaches the VM's host)"},
    {"NET-11.packet", "NET-11", AF_PACKET, SOCK_RAW, 0, "socket(AF_PACKET, SOCK_RAW)"},
    {"NET-11.raw", "NET-11", AF_INET, SOCK_RAW, IPPROTO_ICMP, "socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)"},
    {"NET-11.raw6", "NET-11", AF_INET6, SOCK_RAW, IPPROTO_RAW, "socket(AF_INET6, SOCK_RAW, IPPROTO_RAW)"},
    {"NET-11.alg", "NET-11", AF_ALG, SOCK_SEQPACKET, 0, "socket(AF_ALG)"},
    {"NET-11.xdp", "NET-11", AF_XDP, SOCK_RAW, 0, "socket(AF_XDP)"},
    {"NET-11.bluetooth", "NET-11", AF_BLUETOOTH, SOCK_RAW, 1, "socket(AF_BLUETOOTH)"},
    {"NET-11.rds", "NET-11", AF_RDS, SOCK_SEQPACKET, 0, "socket(AF_RDS)"},
    {"NET-11.tipc", "NET-11", AF_TIPC, SOCK_RDM, 0, "socket(AF_TIPC)"},
    {"NET-11.key", "NET-11", AF_KEY, SOCK_RAW, 2, "socket(AF_KEY)"},
    {"NET-11.can", "NET-11", AF_CAN, SOCK_RAW, 1, "socket(AF_CAN)"},
    {"NET-11.llc", "NET-11", AF_LLC, SOCK_DGRAM, 0, "socket(AF_LLC)"},
    {"NET-11.appletalk", "NET-11", AF_APPLETALK, SOCK_DGRAM, 0, "socket(AF_APPLETALK)"},
    {"NET-11.x25", "NET-11", AF_X25, SOCK_SEQPACKET, 0, "socket(AF_X25)"},
    {NULL, NULL, 0, 0, 0, NULL},
};

static void family_attack(const struct attack* a) {
  int i = (int)a->arg;
  long s = rsys(SYS_socket, families[i].family, families[i].type | SOCK_CLOEXEC, families[i].proto, 0, 0, 0);
  int e = errno;
  if (s >= 0) {
    close((int)s);
    succeeded(0, "%s worked", families[i].title);
  } else {
    blocked(e, "%s: %s", families[i].title, errname(e));
  }
}

// NET-11.ping: an ICMP datagram ("ping") socket towards metadata.
static void ping_attack(const struct attack* a) {
  (void)a;
  NEED_FIXTURE();
  int s = (int)rsys(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_ICMP, 0, 0, 0);
  if (s < 0) {
    blocked(errno, "socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP): %s", errname(errno));
    return;
  }
  struct addr ad;
  make_addr("169.254.169.254", 0, &ad);
  unsigned char echo[8] = {8, 0, 0, 0, 0, 1, 0, 1};
  long r = rsys(SYS_sendto, s, (long)echo, sizeof echo, 0, (long)&ad.ss, ad.len);
  int e = errno;
  close(s);
  report_call(r, e, "ICMP echo sendto", "169.254.169.254");
}

// Whether this process's network namespace has no interface but lo (/proc/self/net/dev): a
// server in it is reachable from nowhere else.
static int only_loopback(void) {
  FILE* f = fopen("/proc/self/net/dev", "re");
  if (!f) return 0;
  char line[512];
  int others = 0, lines = 0;
  while (fgets(line, sizeof line, f)) {
    char* colon = strchr(line, ':');
    if (!colon) continue;  // the two header lines
    ++lines;
    char* name = line;
    while (*name == ' ') ++name;
    *colon = '\0';
    if (strcmp(name, "lo") != 0) ++others;
  }
  fclose(f);
  return lines > 0 && others == 0;
}

// NET-13: a server on every address (nothing is sent): bind 0.0.0.0 (arg 0), bind :: (arg 1),
// or listen on an unbound socket, which binds every address (arg 2); then listen.
static void bind_listen(const struct attack* a) {
  const int family = a->arg == 1 ? AF_INET6 : AF_INET;
  int s = sock_for(family, SOCK_STREAM);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
  struct sockaddr_in6 sa6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
  long r = 0;
  if (a->arg == 0) r = rsys(SYS_bind, s, (long)&sa, sizeof sa, 0, 0, 0);
  if (a->arg == 1) r = rsys(SYS_bind, s, (long)&sa6, sizeof sa6, 0, 0, 0);
  int e = errno;
  const char* what = a->arg == 0   ? "bind(0.0.0.0:0) and listen"
                     : a->arg == 1 ? "bind([::]:0) and listen"
                                   : "listen on an unbound socket";
  if (r == 0) {
    r = rsys(SYS_listen, s, 1, 0, 0, 0, 0);
    e = errno;
  }
  close(s);
  if (r != 0)
    blocked(e, "%s: %s", what, errname(e));
  else if (only_loopback())
    blocked(0, "%s worked in a network namespace of the sandbox's own (only lo): reachable from nowhere",
            what);
  else
    succeeded(0, "%s worked (reachable from the host's network)", what);
}

// NET-14 (report): multicast and broadcast; link-local is in the address table (NET-01).
static void mcast(const struct attack* a) {
  NEED_FIXTURE();
  const char* ip = a->arg ? "255.255.255.255" : "224.0.0.251";
  struct addr ad;
  make_addr(ip, a->arg ? 67 : 5353, &ad);
  int s = sock_for(AF_INET, SOCK_DGRAM);
  int one = 1;
  setsockopt(s, SOL_SOCKET, SO_BROADCAST, &one, sizeof one);
  long r = rsys(SYS_sendto, s, (long)"rf-attack", 9, 0, (long)&ad.ss, ad.len);
  int e = errno;
  close(s);
  report_call(r, e, "UDP sendto", ip);
}

// NTF-01: races on the address and on the descriptor while the supervisor decides.
struct race {
  atomic_int stop;
  struct sockaddr_storage* target;  // rewritten by the flippers
  struct addr good, bad;
  struct msghdr* msg;
  int fd_num, udp, unix_fd;
  int mode;
};

static void* flipper(void* p) {
  struct race* r = p;
  unsigned n = 0;
  while (!atomic_load(&r->stop)) {
    if (r->mode == 3)
      dup2((n & 1) ? r->udp : r->unix_fd, r->fd_num);
    else if (r->mode == 2)
      r->msg->msg_name = (n & 1) ? (void*)&r->bad.ss : (void*)&r->good.ss;
    else
      memcpy(r->target, (n & 1) ? &r->bad.ss : &r->good.ss, sizeof(struct sockaddr_in));
    ++n;
  }
  return NULL;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void race_attack(const struct attack* a) {
  NEED_FIXTURE();
  static struct race r;
  static struct sockaddr_storage shared;
  memset(&r, 0, sizeof r);
  r.mode = (int)a->arg;
  int port = r.mode == 0 ? 80 : 53;
  make_addr(ALLOWED4, port, &r.good);
  make_addr("169.254.169.254", port, &r.bad);
  memcpy(&shared, &r.good.ss, sizeof shared);
  r.target = &shared;
  struct iovec iov = {(void*)"rf-race", 7};
  struct msghdr m = {.msg_name = &r.good.ss, .msg_namelen = r.good.len, .msg_iov = &iov, .msg_iovlen = 1};
  r.msg = &m;
  if (r.mode == 3) {
    r.udp = sock_for(AF_INET, SOCK_DGRAM);
    r.unix_fd = sock_for(AF_UNIX, SOCK_DGRAM);
    r.fd_num = 200;
    dup2(r.unix_fd, r.fd_num);
  }
  pthread_t th[3];
  for (int i = 0; i < 3; ++i) pthread_create(&th[i], NULL, flipper, &r);
  int calls = 0, ok = 0, to_bad = 0;
  double end = now_s() + 1.0;
  while (now_s() < end && calls < 5000) {
    ++calls;
    if (r.mode == 0) {
      int s = sock_for(AF_INET, SOCK_STREAM);
      long x = rsys(SYS_connect, s, (long)&shared, sizeof(struct sockaddr_in), 0, 0, 0);
      if (x == 0) {
        ++ok;
        struct sockaddr_in peer;
        socklen_t pl = sizeof peer;
        getpeername(s, (struct sockaddr*)&peer, &pl);
        if (peer.sin_addr.s_addr == ((struct sockaddr_in*)&r.bad.ss)->sin_addr.s_addr) ++to_bad;
      }
      close(s);
    } else if (r.mode == 1) {
      int s = sock_for(AF_INET, SOCK_DGRAM);
      if (rsys(SYS_sendto, s, (long)"rf-race", 7, 0, (long)&shared, sizeof(struct sockaddr_in)) >= 0) ++ok;
      close(s);
    } else if (r.mode == 2) {
      int s = sock_for(AF_INET, SOCK_DGRAM);
      if (rsys(SYS_sendmsg, s, (long)&m, 0, 0, 0, 0) >= 0) ++ok;
      close(s);
    } else {
      if (rsys(SYS_sendto, r.fd_num, (long)"rf-race", 7, 0, (long)&r.bad.ss, r.bad.len) >= 0) ++ok;
    }
  }
  atomic_store(&r.stop, 1);
  for (int i = 0; i < 3; ++i) pthread_join(th[i], NULL);
  const char* what[] = {"connect with the sockaddr flipped", "UDP sendto with the sockaddr flipped",
                        "sendmsg with msg_name flipped",
                        "sendto metadata while dup2 swaps a unix and a UDP socket"};
  if (r.mode == 0 && to_bad)
    succeeded(0, "%s: %d of %d connects reached 169.254.169.254", what[0], to_bad, calls);
  else if (r.mode == 3 && ok)
    succeeded(0, "%s: %d of %d sends went out", what[3], ok, calls);
  else if (r.mode == 3)
    blocked(0, "%s: %d calls, none went out", what[3], calls);
  else
    blocked(
        0,
        "%s: %d calls, %d succeeded (to the allowed address); the fixture's log is the witness for the rest",
        what[r.mode], calls, ok);
}

// NTF-05: many denied calls at once must not starve an allowed one.
static void* denied_connector(void* p) {
  (void)p;
  struct addr ad;
  make_addr("169.254.169.254", 80, &ad);
  for (int i = 0; i < 5; ++i) {
    int s = sock_for(AF_INET, SOCK_STREAM);
    rsys(SYS_connect, s, (long)&ad.ss, ad.len, 0, 0, 0);
    close(s);
  }
  return NULL;
}
static void stall_attack(const struct attack* a) {
  (void)a;
  NEED_FIXTURE();
  if (cfg.network_off) {
    skipped("the network is off: no allowed call to time");
    return;
  }
  pthread_t th[32];
  int n = 0;
  for (; n < 32; ++n)
    if (pthread_create(&th[n], NULL, denied_connector, NULL) != 0) break;
  struct addr ok;
  make_addr(ALLOWED4, 80, &ok);
  double t0 = now_s();
  int s = sock_for(AF_INET, SOCK_STREAM);
  long r = rsys(SYS_connect, s, (long)&ok.ss, ok.len, 0, 0, 0);
  int e = errno;
  double dt = now_s() - t0;
  close(s);
  for (int i = 0; i < n; ++i) pthread_join(th[i], NULL);
  if (r != 0)
    succeeded(e, "the allowed connect failed under load (%s)", errname(e));
  else if (dt > 1.2)
    succeeded(0, "the allowed connect took %.2f s while %d threads made denied connects", dt, n);
  else
    blocked(0, "the allowed connect took %.3f s while %d threads made 5 denied connects each", dt, n);
}

static const char* row_of(const char* ip, int kind) {
  if (kind == K_FASTOPEN) return "NET-09";
  if (kind == K_SENDTO || kind == K_SENDMSG) return "NET-07";
  if (strncmp(ip, "169.254.", 8) == 0 || strncmp(ip, "fe80", 4) == 0) return "NET-01";
  return "NET-05";
}

void register_net_attacks(void) {
  const char* kinds[] = {"tcp", "nb", "sendto", "sendmsg", "fastopen"};
  const char* ktitle[] = {"TCP connect to %s:80", "non-blocking TCP connect to %s:443", "UDP sendto %s:53",
                          "UDP sendmsg to %s:123", "sendto MSG_FASTOPEN to %s:80"};
  add_attack("S-06", "S-06", LV_ALL, addr_attack, K_TCP, "169.254.169.254",
             "metadata with the network on: connect 169.254.169.254:80");
  add_attack("S-07", "S-07", LV_ALL, allowed_control, 1, NULL,
             "egress with the network off (TCP, UDP, mapped IPv6 to the allowed address)");
  add_attack("S-08.asm", "S-08", LV_ALL, addr_attack, K_ASM, "169.254.169.254",
             "connect 169.254.169.254 through the syscall instruction");
  add_attack("S-08.exec", "S-08", LV_ALL, exec_fresh, 0, NULL,
             "connect 169.254.169.254 from a fresh exec without LD_PRELOAD");
  add_attack("NET-CTL", "NET-01", LV_NONE, allowed_control, 0, NULL,
             "control: the allowed address 198.51.100.10 (TCP 80, UDP 53)");
  const char* const* lists[2] = {denied4, denied6};
  for (int l = 0; l < 2; ++l)
    for (int i = 0; lists[l][i]; ++i)
      for (int k = 0; k < 5; ++k) {
        char id[64];
        const char* row = row_of(lists[l][i], k);
        snprintf(id, sizeof id, "%s.%s.%s", row, kinds[k], lists[l][i]);
        add_attack(id, row, LV_ALL, addr_attack, k, lists[l][i], ktitle[k], lists[l][i]);
      }
  for (int i = 0; embedded6[i]; ++i) {
    const char* row = i == 0 ? "NET-03" : "NET-04";
    char id[64];
    snprintf(id, sizeof id, "%s.tcp.%s", row, embedded6[i]);
    add_attack(id, row, LV_ALL, addr_attack, K_TCP, embedded6[i], "TCP connect to [%s]:80", embedded6[i]);
    snprintf(id, sizeof id, "%s.sendto.%s", row, embedded6[i]);
    add_attack(id, row, LV_ALL, addr_attack, K_SENDTO, embedded6[i], "UDP sendto [%s]:53", embedded6[i]);
  }
  static char mapped[8][64];
  for (int i = 1; denied4[i]; ++i) {  // mapped forms of the other IPv4 addresses
    snprintf(mapped[i], sizeof mapped[i], "::ffff:%s", denied4[i]);
    char id[96];
    snprintf(id, sizeof id, "NET-03.tcp.%s", mapped[i]);
    add_attack(id, "NET-03", LV_ALL, addr_attack, K_TCP, mapped[i], "TCP connect to [%s]:80", mapped[i]);
  }
  add_attack("NET-07.sendmmsg", "NET-07", LV_ALL, sendmmsg_attack, 0, NULL,
             "sendmmsg: allowed, allowed, 169.254.169.253:53, allowed");
  add_attack("NET-09.fastopen_connect", "NET-09", LV_ALL, fastopen_more, 0, NULL,
             "TCP_FASTOPEN_CONNECT then connect to 169.254.169.254");
  add_attack("NET-09.sendmsg", "NET-09", LV_ALL, fastopen_more, 1, NULL,
             "sendmsg MSG_FASTOPEN to 169.254.169.254");
  for (int i = 0; families[i].id; ++i)
    add_attack(families[i].id, families[i].row, LV_ALL, family_attack, i, NULL, "%s", families[i].title);
  add_attack("NET-10.rthdr", "NET-10", LV_ALL, route_attack, 0, NULL,
             "setsockopt(IPV6_RTHDR) type 4 to fd00:ec2::254, then UDP and TCP to [::1]");
  add_attack("NET-10.rthdr2292", "NET-10", LV_ALL, route_attack, 1, NULL,
             "setsockopt(IPV6_2292RTHDR) type 4 to fd00:ec2::254");
  add_attack("NET-10.lsrr", "NET-10", LV_ALL, route_attack, 2, NULL,
             "setsockopt(IP_OPTIONS) with a loose source route through 169.254.169.254");
  add_attack("NET-10.rthdr_cmsg", "NET-10", LV_ALL, route_attack, 3, NULL,
             "sendmsg with an IPV6_RTHDR control message (types 4 and 2) to fd00:ec2::254");
  add_attack("NET-10.retopts_cmsg", "NET-10", LV_ALL, route_attack, 4, NULL,
             "sendmsg with an IP_RETOPTS control message: a loose source route through 169.254.169.254");
  add_attack("NET-11.ping", "NET-11", LV_ALL, ping_attack, 0, NULL,
             "ICMP datagram socket: echo to 169.254.169.254");
  add_attack("NET-13", "NET-13", LV_ALL, bind_listen, 0, NULL, "bind 0.0.0.0 and listen");
  add_attack("NET-13.bind6", "NET-13", LV_ALL, bind_listen, 1, NULL, "bind :: and listen");
  add_attack("NET-13.listen", "NET-13", LV_ALL, bind_listen, 2, NULL, "listen on an unbound TCP socket");
  add_attack("NET-14.multicast", "NET-14", LV_NONE, mcast, 0, NULL,
             "mDNS multicast 224.0.0.251:5353 (report)");
  add_attack("NET-14.broadcast", "NET-14", LV_NONE, mcast, 1, NULL, "broadcast 255.255.255.255 (report)");
  add_skipped("NET-02", "NET-02", "alternative spellings of the address",
              "the kernel receives the same binary address: covered by NET-01 (ringfence has no URL layer)");
  add_skipped("NET-06", "NET-06", "the DNS path to metadata and the resolver exemption",
              "the fixture has no DNS stub; UDP/TCP 53 to 169.254.169.253 and 169.254.169.254 are in NET-07 "
              "and NET-01");
  add_skipped("NET-15", "NET-15", "what a private network namespace does not cover",
              "covered by NET-11.vsock, IPC-01 (abstract sockets) and IPC-02 (resolver and bus sockets)");
  add_attack("NTF-01.connect", "NTF-01", LV_ALL, race_attack, 0, NULL,
             "connect while 3 threads flip the sockaddr to 169.254.169.254");
  add_attack("NTF-01.sendto", "NTF-01", LV_ALL, race_attack, 1, NULL,
             "UDP sendto while 3 threads flip the sockaddr");
  add_attack("NTF-01.msghdr", "NTF-01", LV_ALL, race_attack, 2, NULL,
             "sendmsg while 3 threads flip msg_name");
  add_attack("NTF-01.fd_swap", "NTF-01", LV_ALL, race_attack, 3, NULL,
             "sendto metadata while dup2 swaps a unix and a UDP socket");
  add_skipped("NTF-03", "NTF-03", "AF_UNIX paths resolved in the supervisor's namespace",
              "covered by IPC-02 (--host-socket and the host's sockets)");
  add_attack("NTF-05", "NTF-05", LV_ALL, stall_attack, 0, NULL,
             "32 threads of denied connects must not stall an allowed one");
  add_skipped("NTF-06", "NTF-06", "stale notifications and pid reuse",
              "needs pid wrap-around (a small pid_max), not done from inside");
  add_skipped("NTF-07", "NTF-07", "supervisor death fails closed",
              "decided outside: the driver kills the supervisor");
  add_skipped("NTF-08", "NTF-08", "checks made with the supervisor's credentials",
              "documented in docs/run.md (network section)");
  add_skipped("NTF-09", "NTF-09", "semantic fidelity",
              "not an escape: tests/security/test_connect_policy.py compares the answers");
}
