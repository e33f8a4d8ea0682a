// SPDX-License-Identifier: LGPL-2.1-or-later
// rf-attack fixture [--log FILE] -- CMD ARGS...
//
// The hermetic "cloud" of threat-model.md section 2: a new network namespace (inside a new user
// namespace that maps only the caller's own uid and gid, when not run as root) in which `lo` is up
// and holds the metadata addresses
//   169.254.169.254 169.254.169.253 169.254.170.2 100.100.100.200 168.63.129.16 192.0.0.192
//   fd00:ec2::254 fd00:ec2::23 fe80::a9fe:a9fe
// the IPv6 spellings of 169.254.169.254 a policy must unwrap, where the kernel accepts them as
// addresses (::169.254.169.254 64:ff9b::a9fe:a9fe 64:ff9b:1::a9fe:a9fe 2002:a9fe:a9fe::1), and the
// one "allowed public" documentation address 198.51.100.10. Each has TCP listeners on 80, 443 and
// 53 and UDP listeners on 53 and 123 that record every accepted connection and datagram.
// NOTHING LEAVES THE MACHINE: the addresses exist only in this private namespace, whose only
// interface is lo.
//
// CMD runs inside (fork and exec; `ringfence run --network on` there shares this namespace as "the
// host"). When it exits, the fixture waits 300 ms for late packets, then writes to FILE (default:
// stderr) one JSON line per event
//   {"fixture":"event","proto":"tcp","addr":"169.254.169.254","port":80,"peer":"…","denied":true}
// a line per address or listener the kernel refused
//   {"fixture":"address","addr":"…","error":"…"}
// and a summary
//   {"fixture":"summary","denied_hits":N,"allowed_hits":M}
// Its exit status is CMD's (128+N when a signal N ended it; 125 when the fixture itself failed).
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char* const fixture_addrs[] = {
    "169.254.169.254",    "169.254.169.253",      "169.254.170.2",     "100.100.100.200", "168.63.129.16",
    "192.0.0.192",        "fd00:ec2::254",        "fd00:ec2::23",      "fe80::a9fe:a9fe", "::169.254.169.254",
    "64:ff9b::a9fe:a9fe", "64:ff9b:1::a9fe:a9fe", "2002:a9fe:a9fe::1", "198.51.100.10",   NULL};
#define FIXTURE_ALLOWED "198.51.100.10"

static int fx_die(const char* what) {
  fprintf(stderr, "rf-attack fixture: %s: %s\n", what, strerror(errno));
  return 125;
}

static int write_text(const char* path, const char* text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int add_addr(int nl, const char* ip, char* err, size_t errcap) {
  struct {
    struct nlmsghdr n;
    struct ifaddrmsg ifa;
    char buf[128];
  } req;
  memset(&req, 0, sizeof req);
  unsigned char bin[16];
  int fam = AF_INET;
  if (inet_pton(AF_INET, ip, bin) != 1) {
    fam = AF_INET6;
    if (inet_pton(AF_INET6, ip, bin) != 1) {
      snprintf(err, errcap, "not an address");
      return -1;
    }
  }
  int alen = fam == AF_INET ? 4 : 16;
  req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
  req.n.nlmsg_type = RTM_NEWADDR;
  req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
  req.n.nlmsg_seq = 1;
  req.ifa.ifa_family = (unsigned char)fam;
  req.ifa.ifa_prefixlen = (unsigned char)(alen * 8);
  req.ifa.ifa_flags = fam == AF_INET6 ? IFA_F_NODAD : 0;
  req.ifa.ifa_index = if_nametoindex("lo");
  unsigned short types[2] = {IFA_LOCAL, IFA_ADDRESS};
  for (int i = 0; i < 2; ++i) {
    struct rtattr* rta = (struct rtattr*)((char*)&req + NLMSG_ALIGN(req.n.nlmsg_len));
    rta->rta_type = types[i];
    rta->rta_len = (unsigned short)RTA_LENGTH(alen);
    memcpy(RTA_DATA(rta), bin, (size_t)alen);
    req.n.nlmsg_len = NLMSG_ALIGN(req.n.nlmsg_len) + RTA_ALIGN(rta->rta_len);
  }
  if (send(nl, &req, req.n.nlmsg_len, 0) < 0) {
    snprintf(err, errcap, "%s", strerror(errno));
    return -1;
  }
  char buf[1024];
  ssize_t n = recv(nl, buf, sizeof buf, 0);
  if (n < 0) {
    snprintf(err, errcap, "%s", strerror(errno));
    return -1;
  }
  struct nlmsghdr* h = (struct nlmsghdr*)buf;
  if (h->nlmsg_type == NLMSG_ERROR) {
    struct nlmsgerr* e = NLMSG_DATA(h);
    if (e->error) {
      snprintf(err, errcap, "%s", strerror(-e->error));
      return -1;
    }
  }
  return 0;
}

struct listener {
  int fd, tcp, port;
  const char* addr;
};

struct event {
  int tcp, port;
  const char* addr;
  char peer[80];
};

static int make_listener(const char* ip, int tcp, int port) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t len;
  struct sockaddr_in* s4 = (struct sockaddr_in*)&ss;
  struct sockaddr_in6* s6 = (struct sockaddr_in6*)&ss;
  int fam;
  if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1) {
    fam = AF_INET;
    s4->sin_family = AF_INET;
    s4->sin_port = htons((unsigned short)port);
    len = sizeof *s4;
  } else {
    fam = AF_INET6;
    inet_pton(AF_INET6, ip, &s6->sin6_addr);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons((unsigned short)port);
    if (strncmp(ip, "fe80", 4) == 0) s6->sin6_scope_id = if_nametoindex("lo");
    len = sizeof *s6;
  }
  int s = socket(fam, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  int one = 1, qlen = 16;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fam == AF_INET6) setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (tcp) setsockopt(s, IPPROTO_TCP, TCP_FASTOPEN, &qlen, sizeof qlen);  // so a Fast Open SYN is accepted
  if (bind(s, (struct sockaddr*)&ss, len) != 0 || (tcp && listen(s, 256) != 0)) {
    int e = errno;
    close(s);
    errno = e;
    return -1;
  }
  return s;
}

static void peer_text(struct sockaddr_storage* ss, char* out, size_t cap) {
  char ip[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (ss->ss_family == AF_INET) {
    struct sockaddr_in* s = (struct sockaddr_in*)ss;
    inet_ntop(AF_INET, &s->sin_addr, ip, sizeof ip);
    port = ntohs(s->sin_port);
  } else if (ss->ss_family == AF_INET6) {
    struct sockaddr_in6* s = (struct sockaddr_in6*)ss;
    inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof ip);
    port = ntohs(s->sin6_port);
  }
  snprintf(out, cap, "%s:%d", ip, port);
}

static int usage_fixture(void) {
  fprintf(stderr, "usage: rf-attack fixture [--log FILE] -- CMD ARGS...\n");
  return 1;
}

int fixture_main(int argc, char** argv) {
  const char* log = NULL;
  int i = 1;
  for (; i < argc; ++i) {
    if (strcmp(argv[i], "--") == 0) {
      ++i;
      break;
    }
    if (strcmp(argv[i], "--log") == 0 && i + 1 < argc)
      log = argv[++i];
    else
      return usage_fixture();
  }
  if (i >= argc) return usage_fixture();
  char** cmd = argv + i;
  FILE* out = stderr;
  if (log) {
    out = fopen(log, "we");
    if (!out) return fx_die(log);
  }
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (uid != 0) {
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) return fx_die("unshare(CLONE_NEWUSER|CLONE_NEWNET)");
    char map[64];
    write_text("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%u %u 1\n", uid, uid);
    if (write_text("/proc/self/uid_map", map) != 0) return fx_die("uid_map");
    snprintf(map, sizeof map, "%u %u 1\n", gid, gid);
    if (write_text("/proc/self/gid_map", map) != 0) return fx_die("gid_map");
  } else if (unshare(CLONE_NEWNET) != 0) {
    return fx_die("unshare(CLONE_NEWNET)");
  }
  int ctl = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
  if (ioctl(ctl, SIOCGIFFLAGS, &ifr) != 0) return fx_die("SIOCGIFFLAGS lo");
  ifr.ifr_flags |= IFF_UP;
  if (ioctl(ctl, SIOCSIFFLAGS, &ifr) != 0) return fx_die("SIOCSIFFLAGS lo up");
  close(ctl);
  int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (nl < 0) return fx_die("netlink");
  for (int a = 0; fixture_addrs[a]; ++a) {
    char err[128];
    if (add_addr(nl, fixture_addrs[a], err, sizeof err) != 0)
      fprintf(out, "{\"fixture\":\"address\",\"addr\":\"%s\",\"error\":\"%s\"}\n", fixture_addrs[a], err);
  }
  close(nl);
  static struct listener ls[256];
  int nls = 0;
  const int tcp_ports[] = {80, 443, 53}, udp_ports[] = {53, 123};
  for (int a = 0; fixture_addrs[a]; ++a)
    for (int k = 0; k < 5; ++k) {
      int tcp = k < 3, port = tcp ? tcp_ports[k] : udp_ports[k - 3];
      int s = make_listener(fixture_addrs[a], tcp, port);
      if (s < 0) {
        fprintf(out,
                "{\"fixture\":\"listener\",\"addr\":\"%s\",\"proto\":\"%s\",\"port\":%d,\"error\":\"%s\"}\n",
                fixture_addrs[a], tcp ? "tcp" : "udp", port, strerror(errno));
        continue;
      }
      ls[nls++] = (struct listener){s, tcp, port, fixture_addrs[a]};
    }
  fflush(out);
  pid_t child = fork();
  if (child < 0) return fx_die("fork");
  if (child == 0) {
    execvp(cmd[0], cmd);
    fprintf(stderr, "rf-attack fixture: %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
  }
  static struct event ev[20000];
  int nev = 0, status = 0;
  bool done = false;
  struct timespec end = {0, 0};
  static struct pollfd pfd[256];
  for (int k = 0; k < nls; ++k) pfd[k] = (struct pollfd){ls[k].fd, POLLIN, 0};
  for (;;) {
    if (!done && waitpid(child, &status, WNOHANG) == child) {
      done = true;
      clock_gettime(CLOCK_MONOTONIC, &end);
      end.tv_nsec += 300000000;
      if (end.tv_nsec >= 1000000000) end.tv_sec++, end.tv_nsec -= 1000000000;
    }
    if (done) {
      struct timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec)) break;
    }
    int n = poll(pfd, (nfds_t)nls, 50);
    if (n <= 0) continue;
    for (int k = 0; k < nls; ++k) {
      if (!(pfd[k].revents & POLLIN)) continue;
      for (;;) {
        struct sockaddr_storage peer;
        socklen_t pl = sizeof peer;
        char buf[2048];
        bool ok;
        if (ls[k].tcp) {
          int c = accept4(ls[k].fd, (struct sockaddr*)&peer, &pl, SOCK_CLOEXEC);
          ok = c >= 0;
          if (ok) close(c);
        } else {
          ok = recvfrom(ls[k].fd, buf, sizeof buf, 0, (struct sockaddr*)&peer, &pl) >= 0;
        }
        if (!ok) break;
        if (nev < 20000) {
          ev[nev] = (struct event){ls[k].tcp, ls[k].port, ls[k].addr, ""};
          peer_text(&peer, ev[nev].peer, sizeof ev[nev].peer);
          ++nev;
        }
      }
    }
  }
  int denied = 0, allowed = 0;
  for (int k = 0; k < nev; ++k) {
    bool is_denied = strcmp(ev[k].addr, FIXTURE_ALLOWED) != 0;
    if (is_denied)
      ++denied;
    else
      ++allowed;
    fprintf(out,
            "{\"fixture\":\"event\",\"proto\":\"%s\",\"addr\":\"%s\",\"port\":%d,\"peer\":\"%s\",\"denied\":%"
            "s}\n",
            ev[k].tcp ? "tcp" : "udp", ev[k].addr, ev[k].port, ev[k].peer, is_denied ? "true" : "false");
  }
  fprintf(out, "{\"fixture\":\"summary\",\"denied_hits\":%d,\"allowed_hits\":%d}\n", denied, allowed);
  fflush(out);
  if (log) fclose(out);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 125;
}
