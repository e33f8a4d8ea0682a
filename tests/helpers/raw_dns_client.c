// SPDX-License-Identifier: LGPL-2.1-or-later
// A DNS and HTTP client made of raw system calls (static, no resolver library, no libc socket
// wrapper an LD_PRELOAD shim could catch), for the egress allowlist tests. It builds its own
// DNS queries, reads the nameserver from /etc/resolv.conf itself, parses the answers, connects
// and sends an HTTP request. Prints one JSON object:
//   {"mode":..,"server":..,"step":..,"errno":..,"rcode":..,"answers":..,"address":..,"response":..}
// step is the last step reached ("resolv.conf", "socket", "send-query", "recv-answer", "parse",
// "no-address", "connect", "send", "recv", "done"); errno is that step's error (0 at "done").
//   raw_dns_client query NAME TYPE [SERVER [tcp]]   one query (TYPE A, AAAA, TXT, ANY, or a
//                                                   number) to SERVER:53, default the
//                                                   resolv.conf nameserver; UDP unless tcp
//   raw_dns_client fetch NAME PORT [SERVER]         resolve NAME (A) as above, connect to the
//                                                   first address, GET /hello with Host: NAME
//   raw_dns_client ip IP PORT [HOST]                connect straight to IP (v4 or v6) and GET
//                                                   /hello with Host: HOST (default the IP)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

static long raw(long nr, long a, long b, long c, long d, long e, long f) {
  long r = syscall(nr, a, b, c, d, e, f);
  return r < 0 ? -errno : r;
}

struct result {
  const char* mode;
  char server[64];
  const char* step;
  long err;
  int rcode;
  int answers;
  char address[64];
  char txt[256];
  char response[128];
};

static void json_str(char* out, size_t cap, const char* s) {
  size_t n = strlen(out);
  if (n + 3 >= cap) return;
  out[n++] = '"';
  for (; *s && n + 8 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out[n++] = '\\';
      out[n++] = (char)c;
    } else if (c < 0x20 || c >= 0x7f) {
      n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
    } else {
      out[n++] = (char)c;
    }
  }
  out[n++] = '"';
  out[n] = 0;
}

static int finish(struct result* r) {
  char out[2048] = "{\"mode\":";
  json_str(out, sizeof out, r->mode);
  strcat(out, ",\"server\":");
  json_str(out, sizeof out, r->server);
  strcat(out, ",\"step\":");
  json_str(out, sizeof out, r->step);
  size_t n = strlen(out);
  snprintf(out + n, sizeof out - n, ",\"errno\":%ld,\"rcode\":%d,\"answers\":%d,\"address\":", r->err,
           r->rcode, r->answers);
  json_str(out, sizeof out, r->address);
  strcat(out, ",\"txt\":");
  json_str(out, sizeof out, r->txt);
  strcat(out, ",\"response\":");
  json_str(out, sizeof out, r->response);
  strcat(out, "}\n");
  raw(SYS_write, 1, (long)out, (long)strlen(out), 0, 0, 0);
  return 0;
}

// The first nameserver line of /etc/resolv.conf, read with raw open/read.
static int resolv_server(char* out, size_t cap) {
  char buf[4096];
  long fd = raw(SYS_openat, AT_FDCWD, (long)"/etc/resolv.conf", O_RDONLY | O_CLOEXEC, 0, 0, 0);
  if (fd < 0) return (int)fd;
  long n = raw(SYS_read, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
  raw(SYS_close, fd, 0, 0, 0, 0, 0);
  if (n < 0) return (int)n;
  buf[n] = 0;
  for (char* line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
    char name[64];
    if (sscanf(line, " nameserver %63s", name) == 1) {
      snprintf(out, cap, "%s", name);
      return 0;
    }
  }
  return -ENOENT;
}

static socklen_t make_addr(const char* ip, int port, struct sockaddr_storage* ss) {
  memset(ss, 0, sizeof *ss);
  if (strchr(ip, ':')) {
    struct sockaddr_in6* a = (struct sockaddr_in6*)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons((unsigned short)port);
    if (inet_pton(AF_INET6, ip, &a->sin6_addr) != 1) return 0;
    return sizeof *a;
  }
  struct sockaddr_in* a = (struct sockaddr_in*)ss;
  a->sin_family = AF_INET;
  a->sin_port = htons((unsigned short)port);
  if (inet_pton(AF_INET, ip, &a->sin_addr) != 1) return 0;
  return sizeof *a;
}

static int type_code(const char* t) {
  if (!strcmp(t, "A")) return 1;
  if (!strcmp(t, "AAAA")) return 28;
  if (!strcmp(t, "TXT")) return 16;
  if (!strcmp(t, "ANY")) return 255;
  if (!strcmp(t, "CNAME")) return 5;
  return atoi(t);
}

// A query message for NAME and TYPE: header (id, RD), one question.
static size_t build_query(unsigned char* q, size_t cap, const char* name, int type, unsigned short id) {
  size_t n = 0;
  unsigned char head[12] = {(unsigned char)(id >> 8), (unsigned char)id, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
  memcpy(q, head, sizeof head);
  n = sizeof head;
  const char* p = name;
  while (*p) {
    const char* dot = strchr(p, '.');
    size_t len = dot ? (size_t)(dot - p) : strlen(p);
    if (len == 0 || len > 63 || n + len + 6 > cap) return 0;
    q[n++] = (unsigned char)len;
    memcpy(q + n, p, len);
    n += len;
    p += len;
    if (*p == '.') p++;
  }
  q[n++] = 0;
  q[n++] = (unsigned char)(type >> 8);
  q[n++] = (unsigned char)type;
  q[n++] = 0;
  q[n++] = 1;
  return n;
}

// Skips a (possibly compressed) name; returns the offset after it, or -1.
static long skip_name(const unsigned char* m, long len, long off) {
  while (off < len) {
    unsigned char c = m[off];
    if ((c & 0xc0) == 0xc0) return off + 2 <= len ? off + 2 : -1;
    if (c == 0) return off + 1;
    off += 1 + c;
  }
  return -1;
}

// Reads the answer: rcode, answer count, the first A (or AAAA) address and the first TXT string.
static int parse_answer(const unsigned char* m, long len, unsigned short id, struct result* r) {
  if (len < 12 || ((m[0] << 8) | m[1]) != id || !(m[2] & 0x80)) return -EBADMSG;
  r->rcode = m[3] & 0x0f;
  int qd = (m[4] << 8) | m[5], an = (m[6] << 8) | m[7];
  r->answers = an;
  long off = 12;
  for (int i = 0; i < qd; i++) {
    off = skip_name(m, len, off);
    if (off < 0 || off + 4 > len) return -EBADMSG;
    off += 4;
  }
  for (int i = 0; i < an; i++) {
    off = skip_name(m, len, off);
    if (off < 0 || off + 10 > len) return -EBADMSG;
    int type = (m[off] << 8) | m[off + 1];
    int rdlen = (m[off + 8] << 8) | m[off + 9];
    off += 10;
    if (off + rdlen > len) return -EBADMSG;
    if (!r->address[0] && type == 1 && rdlen == 4) inet_ntop(AF_INET, m + off, r->address, sizeof r->address);
    if (!r->address[0] && type == 28 && rdlen == 16)
      inet_ntop(AF_INET6, m + off, r->address, sizeof r->address);
    if (!r->txt[0] && type == 16 && rdlen > 0) {
      int l = m[off] < rdlen ? m[off] : rdlen - 1;
      if (l > (int)sizeof r->txt - 1) l = (int)sizeof r->txt - 1;
      memcpy(r->txt, m + off + 1, (size_t)l);
      r->txt[l] = 0;
    }
    off += rdlen;
  }
  return 0;
}

static void timeouts(long fd) {
  struct timeval tv = {5, 0};
  raw(SYS_setsockopt, fd, SOL_SOCKET, SO_RCVTIMEO, (long)&tv, sizeof tv, 0);
  raw(SYS_setsockopt, fd, SOL_SOCKET, SO_SNDTIMEO, (long)&tv, sizeof tv, 0);
}

// One query to r->server:53 over UDP (or TCP); fills r. Returns 0 when an answer was parsed.
static int query(struct result* r, const char* name, int type, int tcp) {
  unsigned char q[512 + 2], a[65536 + 2];
  unsigned short id = (unsigned short)(getpid() * 7919 + type);
  size_t qn = build_query(q + 2, sizeof q - 2, name, type, id);
  struct sockaddr_storage ss;
  socklen_t sl = make_addr(r->server, 53, &ss);
  r->step = "socket";
  if (!qn || !sl) {
    r->err = EINVAL;
    return -1;
  }
  long fd = raw(SYS_socket, ss.ss_family, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0, 0, 0, 0);
  if (fd < 0) {
    r->err = -fd;
    return -1;
  }
  timeouts(fd);
  long n;
  r->step = "send-query";
  if (tcp) {
    n = raw(SYS_connect, fd, (long)&ss, sl, 0, 0, 0);
    if (n == 0) {
      q[0] = (unsigned char)(qn >> 8);
      q[1] = (unsigned char)qn;
      n = raw(SYS_sendto, fd, (long)q, (long)qn + 2, MSG_NOSIGNAL, 0, 0);
    }
  } else {
    n = raw(SYS_sendto, fd, (long)(q + 2), (long)qn, 0, (long)&ss, sl);
  }
  if (n < 0) {
    r->err = -n;
    raw(SYS_close, fd, 0, 0, 0, 0, 0);
    return -1;
  }
  r->step = "recv-answer";
  long got = 0;
  unsigned char* msg = a;
  if (tcp) {
    long want = -1;
    while (want < 0 || got < want + 2) {
      n = raw(SYS_recvfrom, fd, (long)(a + got), (long)sizeof a - got, 0, 0, 0);
      if (n <= 0) break;
      got += n;
      if (want < 0 && got >= 2) want = (a[0] << 8) | a[1];
    }
    msg = a + 2;
    got = got >= 2 ? got - 2 : 0;
  } else {
    n = raw(SYS_recvfrom, fd, (long)a, sizeof a, 0, 0, 0);
    got = n > 0 ? n : 0;
  }
  raw(SYS_close, fd, 0, 0, 0, 0, 0);
  if (n < 0 && got == 0) {
    r->err = -n;
    return -1;
  }
  if (got == 0) {
    r->err = ECONNRESET;
    return -1;
  }
  r->step = "parse";
  int e = parse_answer(msg, got, id, r);
  if (e < 0) {
    r->err = -e;
    return -1;
  }
  return 0;
}

// Connects to ip:port, sends GET /hello with Host: host, keeps the response's first line.
static int http_get(struct result* r, const char* ip, int port, const char* host) {
  struct sockaddr_storage ss;
  socklen_t sl = make_addr(ip, port, &ss);
  r->step = "connect";
  if (!sl) {
    r->err = EINVAL;
    return -1;
  }
  long fd = raw(SYS_socket, ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0, 0);
  if (fd < 0) {
    r->err = -fd;
    return -1;
  }
  timeouts(fd);
  long n = raw(SYS_connect, fd, (long)&ss, sl, 0, 0, 0);
  if (n < 0) {
    r->err = -n;
    raw(SYS_close, fd, 0, 0, 0, 0, 0);
    return -1;
  }
  char req[512];
  int qn = snprintf(req, sizeof req, "GET /hello HTTP/1.0\r\nHost: %s\r\nUser-Agent: raw_dns_client\r\n\r\n",
                    host);
  r->step = "send";
  n = raw(SYS_sendto, fd, (long)req, qn, MSG_NOSIGNAL, 0, 0);
  if (n < 0) {
    r->err = -n;
    raw(SYS_close, fd, 0, 0, 0, 0, 0);
    return -1;
  }
  r->step = "recv";
  char resp[4096];
  long got = 0;
  while (got < (long)sizeof resp - 1) {
    n = raw(SYS_recvfrom, fd, (long)(resp + got), (long)sizeof resp - 1 - got, 0, 0, 0);
    if (n <= 0) break;
    got += n;
  }
  raw(SYS_close, fd, 0, 0, 0, 0, 0);
  resp[got] = 0;
  if (got == 0) {
    r->err = n < 0 ? -n : ECONNRESET;
    return -1;
  }
  char* eol = strpbrk(resp, "\r\n");
  if (eol) *eol = 0;
  size_t keep = strlen(resp) < sizeof r->response ? strlen(resp) : sizeof r->response - 1;
  memcpy(r->response, resp, keep);
  r->response[keep] = 0;
  r->step = "done";
  r->err = 0;
  return 0;
}

static int usage(void) {
  static const char msg[] =
      "usage: raw_dns_client query NAME TYPE [SERVER [tcp]]\n"
      "       raw_dns_client fetch NAME PORT [SERVER]\n"
      "       raw_dns_client ip IP PORT [HOST]\n";
  raw(SYS_write, 2, (long)msg, sizeof msg - 1, 0, 0, 0);
  return 2;
}

static int server_from(struct result* r, int argc, char** argv, int at) {
  if (argc > at) {
    snprintf(r->server, sizeof r->server, "%s", argv[at]);
    return 0;
  }
  r->step = "resolv.conf";
  int e = resolv_server(r->server, sizeof r->server);
  if (e < 0) r->err = -e;
  return e;
}

int main(int argc, char** argv) {
  struct result r;
  memset(&r, 0, sizeof r);
  if (argc < 4) return usage();
  r.mode = argv[1];
  if (!strcmp(argv[1], "query")) {
    if (server_from(&r, argc, argv, 4) < 0) return finish(&r);
    if (query(&r, argv[2], type_code(argv[3]), argc > 5 && !strcmp(argv[5], "tcp")) == 0) {
      r.step = "done";
      r.err = 0;
    }
    return finish(&r);
  }
  if (!strcmp(argv[1], "fetch")) {
    if (server_from(&r, argc, argv, 4) < 0) return finish(&r);
    if (query(&r, argv[2], 1, 0) < 0) return finish(&r);
    if (!r.address[0]) {
      r.step = "no-address";
      return finish(&r);
    }
    http_get(&r, r.address, atoi(argv[3]), argv[2]);
    return finish(&r);
  }
  if (!strcmp(argv[1], "ip")) {
    snprintf(r.address, sizeof r.address, "%s", argv[2]);
    http_get(&r, argv[2], atoi(argv[3]), argc > 4 ? argv[4] : argv[2]);
    return finish(&r);
  }
  return usage();
}
