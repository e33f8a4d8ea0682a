#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The egress fixture: a private network on lo with its own DNS, HTTP, TLS and TCP servers
(python3 stdlib only), for tests/security/test_egress.py and tools/bench-egress.

NOTHING HERE LEAVES THE MACHINE. enter() moves the calling process into a new network namespace
and a new mount namespace (/ made rprivate first), brings lo up, puts the fixture addresses on
it (documentation ranges 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32, and 169.254.169.254)
and bind-mounts a resolv.conf naming the fixture's DNS server (`nameserver 198.51.100.53`) over
/etc/resolv.conf, so every program started afterwards (ringfence's launcher among them) resolves
through the fixture. Fixture() then starts the servers:

  DNS   198.51.100.53 port 53, UDP and TCP, authoritative for `test.` and `example.`; it follows
        CNAME chains within its own data (as a recursive upstream would) and answers ANY with
        every record of the name. Unknown names: NXDOMAIN.
  HTTP  port 80 on every address: GET /hello -> 200 "hello from the fixture\\n",
        GET /bytes/N -> N bytes, anything else 404; HTTP/1.1 keep-alive (every request of a
        connection is logged with its own Host).
  TLS   port 443 on every address: the same HTTP behind TLS (tests/fixtures/egress/cert.pem,
        self-signed for allowed.test and *.test); the SNI is logged from the sni_callback.
  TCP   port 9000 on every address: reads one line; "bytes N" -> N bytes, any other line ->
        "hello from ADDR\\n", then closes; a client that sends nothing is just closed.
  UDP   port 9000 on every address, and 5353 on 198.51.100.10: every datagram is logged.

The records (RECORDS below):
  allowed.test   A 198.51.100.10, AAAA 2001:db8::10, TXT "fixture-txt"
  other.test     A 198.51.100.20, AAAA 2001:db8::20
  shared.test    A 198.51.100.10 (allowed.test's address)
  meta.test      A 169.254.169.254 (the metadata floor)
  alias.test     CNAME allowed.test
  go.test        CNAME other.test (other.test reachable through the chain only)
  far.test       CNAME mid.example, mid.example CNAME target.example, target.example A 198.51.100.50
  short.test     A 198.51.100.60, TTL 1
  port.test      A 198.51.100.30
  *.wild.test    A 198.51.100.40
  ns.test        A 198.51.100.53
203.0.113.7 has a listener but no name (for --allow-net rules).

The log (Fixture.log, a list of dicts, and Fixture.take() to read and clear it):
  {"kind": "dns", "proto": "udp"|"tcp", "name": "allowed.test", "type": "A", "from": ADDR,
   "raw": HEX}                                                   the whole query message
  {"kind": "accept", "port": P, "addr": LISTENER_ADDR}          every TCP connection accepted
  {"kind": "data", "port": P, "addr": ADDR, "bytes": N}          a TCP connection's first bytes
  {"kind": "sni", "port": 443, "addr": ADDR, "sni": NAME|None}   the TLS server name
  {"kind": "http", "port": 80|443, "addr": ADDR, "host": HOST, "path": PATH}   a request line
  {"kind": "tls-error", "port": 443, "addr": ADDR, "error": TEXT}
  {"kind": "udp", "port": P, "addr": ADDR, "bytes": N}

Run it alone (as root) to try the fixture without ringfence:
  python3 tests/helpers/egress_fixture.py [--] COMMAND...   runs COMMAND in the fixture (through
      sh -c when it is one word with spaces), prints its output, then the fixture's log
  python3 tests/helpers/egress_fixture.py --self-check      resolves and fetches every service
"""

import atexit
import ctypes
import http.server
import json
import os
import shutil
import socket
import socketserver
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CERT_DIR = os.path.normpath(os.path.join(HERE, "..", "fixtures", "egress"))
CERT = os.path.join(CERT_DIR, "cert.pem")
KEY = os.path.join(CERT_DIR, "key.pem")

CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_REC, MS_PRIVATE, MS_BIND = 0x4000, 1 << 18, 4096

DNS_ADDR = "198.51.100.53"
ALLOWED4, ALLOWED6 = "198.51.100.10", "2001:db8::10"
OTHER4, OTHER6 = "198.51.100.20", "2001:db8::20"
PORT4 = "198.51.100.30"
WILD4 = "198.51.100.40"
FAR4 = "198.51.100.50"
SHORT4 = "198.51.100.60"
NET4 = "203.0.113.7"
META4 = "169.254.169.254"
ADDRS4 = [ALLOWED4, OTHER4, PORT4, WILD4, FAR4, SHORT4, DNS_ADDR, NET4, META4]
ADDRS6 = [ALLOWED6, OTHER6]
HTTP_PORT, TLS_PORT, TCP_PORT, UDP_PORT, UDP_EXTRA_PORT = 80, 443, 9000, 9000, 5353
BODY = b"hello from the fixture\n"

A, CNAME, TXT, AAAA, ANY = 1, 5, 16, 28, 255
TYPE_NAMES = {1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT", 28: "AAAA",
              33: "SRV", 65: "HTTPS", 255: "ANY"}
TTL = 60
# name -> [(type, value, ttl)]; "*.wild.test" is a wildcard for any name below wild.test
RECORDS = {
    "allowed.test": [(A, ALLOWED4, TTL), (AAAA, ALLOWED6, TTL), (TXT, "fixture-txt", TTL)],
    "other.test": [(A, OTHER4, TTL), (AAAA, OTHER6, TTL)],
    "shared.test": [(A, ALLOWED4, TTL)],
    "meta.test": [(A, META4, TTL)],
    "alias.test": [(CNAME, "allowed.test", TTL)],
    "go.test": [(CNAME, "other.test", TTL)],
    "far.test": [(CNAME, "mid.example", TTL)],
    "mid.example": [(CNAME, "target.example", TTL)],
    "target.example": [(A, FAR4, TTL)],
    "short.test": [(A, SHORT4, 1)],
    "port.test": [(A, PORT4, TTL)],
    "*.wild.test": [(A, WILD4, TTL)],
    "ns.test": [(A, DNS_ADDR, TTL)],
}


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def enter():
    """Moves this process into the fixture's network and mount namespaces (see the module's
    text). Call it before any thread starts. Returns the directory holding the resolv.conf."""
    libc = _libc()
    if libc.unshare(CLONE_NEWNET | CLONE_NEWNS) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"unshare(CLONE_NEWNET|CLONE_NEWNS): {os.strerror(e)}")
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"mount --make-rprivate /: {os.strerror(e)}")
    cmds = [["ip", "link", "set", "lo", "up"]]
    for a in ADDRS4:
        cmds.append(["ip", "addr", "add", a + "/32", "dev", "lo"])
    for a in ADDRS6:
        cmds.append(["ip", "-6", "addr", "add", a + "/128", "dev", "lo", "nodad"])
    for c in cmds:
        subprocess.run(c, check=True)
    d = tempfile.mkdtemp(prefix="rf-egress-etc-")
    atexit.register(shutil.rmtree, d, True)  # the bind stays valid: it holds the file itself
    os.chmod(d, 0o755)
    conf = os.path.join(d, "resolv.conf")
    with open(conf, "w") as f:
        f.write(f"nameserver {DNS_ADDR}\noptions timeout:2 attempts:1\n")
    os.chmod(conf, 0o644)
    target = os.path.realpath("/etc/resolv.conf")
    if not os.path.exists(target):
        target = "/etc/resolv.conf"
        if os.path.islink(target):
            raise OSError(2, "/etc/resolv.conf is a dangling link; cannot bind the fixture's over it")
        open(target, "a").close()
    if libc.mount(conf.encode(), target.encode(), None, MS_BIND, None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"bind {conf} over {target}: {os.strerror(e)}")
    with open("/etc/resolv.conf") as f:
        if DNS_ADDR not in f.read():
            raise OSError(0, "/etc/resolv.conf does not name the fixture's DNS server after the bind")
    return d


# ------------------------------------------------------------------------------------------------
# DNS


def parse_name(msg, off):
    labels, jumps, end = [], 0, None
    while True:
        if off >= len(msg):
            raise ValueError("name past the end")
        n = msg[off]
        if n & 0xC0 == 0xC0:
            if end is None:
                end = off + 2
            off = ((n & 0x3F) << 8) | msg[off + 1]
            jumps += 1
            if jumps > 16:
                raise ValueError("compression loop")
            continue
        off += 1
        if n == 0:
            break
        labels.append(msg[off:off + n].decode("ascii", "replace"))
        off += n
    return ".".join(labels), end if end is not None else off


def encode_name(name):
    out = b""
    for label in name.rstrip(".").split("."):
        if label:
            out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def lookup(name):
    name = name.lower().rstrip(".")
    if name in RECORDS:
        return RECORDS[name]
    parts = name.split(".")
    for i in range(1, len(parts)):
        wild = "*." + ".".join(parts[i:])
        if wild in RECORDS:
            return RECORDS[wild]
    return None


def rdata(rtype, value):
    if rtype == A:
        return socket.inet_pton(socket.AF_INET, value)
    if rtype == AAAA:
        return socket.inet_pton(socket.AF_INET6, value)
    if rtype == CNAME:
        return encode_name(value)
    if rtype == TXT:
        b = value.encode()
        return bytes([len(b)]) + b
    raise ValueError(rtype)


def answer(query):
    """The fixture's reply to one DNS message, and (name, type) of its question."""
    qid, flags, qd = struct.unpack("!HHH", query[:6])
    if qd != 1:
        return struct.pack("!HHHHHH", qid, 0x8000 | 0x0400 | 1, 0, 0, 0, 0), ("", 0)
    name, off = parse_name(query, 12)
    qtype, qclass = struct.unpack("!HH", query[off:off + 4])
    question = query[12:off + 4]
    rrs, rcode, cur, seen = [], 0, name, set()
    recs = lookup(cur)
    if recs is None:
        rcode = 3
    while recs is not None and cur.lower() not in seen:
        seen.add(cur.lower())
        cn = [r for r in recs if r[0] == CNAME]
        if cn and qtype not in (CNAME, ANY):
            rrs.append((cur, cn[0]))
            cur = cn[0][1]
            recs = lookup(cur)
            continue
        rrs += [(cur, r) for r in recs if qtype in (ANY, r[0])]
        break
    body = b""
    for owner, (rtype, value, ttl) in rrs:
        rd = rdata(rtype, value)
        body += encode_name(owner) + struct.pack("!HHIH", rtype, 1, ttl, len(rd)) + rd
    rflags = 0x8000 | 0x0400 | (flags & 0x0100) | 0x0080 | rcode  # QR AA RD(copied) RA
    head = struct.pack("!HHHHHH", qid, rflags, 1, len(rrs), 0, 0)
    return head + question + body, (name.lower(), qtype)


class Fixture:
    """The servers (see the module's text). The log is self.log; take() returns and clears it."""

    def __init__(self, cert=CERT, key=KEY):
        self.lock = threading.Lock()
        self.log = []
        self.servers = []
        self._dns()
        self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.tls.load_cert_chain(cert, key)
        for a in ADDRS4 + ADDRS6:
            self._tcp(a, HTTP_PORT, self._serve_http)
            self._tcp(a, TLS_PORT, self._serve_tls)
            self._tcp(a, TCP_PORT, self._serve_plain)
            self._udp(a, UDP_PORT)
        self._udp(ALLOWED4, UDP_EXTRA_PORT)

    def record(self, **kv):
        with self.lock:
            self.log.append(kv)

    def take(self, settle=0.3):
        time.sleep(settle)
        with self.lock:
            got, self.log = self.log, []
        return got

    def peek(self):
        with self.lock:
            return list(self.log)

    # -- DNS --
    def _dns(self):
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind((DNS_ADDR, 53))
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind((DNS_ADDR, 53))
        t.listen(256)
        self.servers += [u, t]
        threading.Thread(target=self._dns_udp, args=(u,), daemon=True).start()
        threading.Thread(target=self._accept_loop, args=(t, DNS_ADDR, 53, self._dns_tcp, False),
                         daemon=True).start()

    def _dns_one(self, msg, proto, peer):
        try:
            reply, (name, qtype) = answer(msg)
        except (ValueError, struct.error, IndexError):
            self.record(kind="dns", proto=proto, name=None, type=None, malformed=True, **{"from": peer})
            return None
        self.record(kind="dns", proto=proto, name=name, type=TYPE_NAMES.get(qtype, str(qtype)),
                    raw=msg.hex(), **{"from": peer})
        return reply

    def _dns_udp(self, sock):
        while True:
            msg, peer = sock.recvfrom(65535)
            reply = self._dns_one(msg, "udp", peer[0])
            if reply is not None:
                if len(reply) > 512:
                    reply = reply[:2] + struct.pack("!H", struct.unpack("!H", reply[2:4])[0] | 0x0200) + reply[4:12]
                sock.sendto(reply, peer)

    def _dns_tcp(self, conn, addr, port, peer):
        conn.settimeout(10)
        while True:
            head = recv_exact(conn, 2)
            if not head:
                return
            msg = recv_exact(conn, struct.unpack("!H", head)[0])
            if msg is None:
                return
            reply = self._dns_one(msg, "tcp", peer)
            if reply is None:
                return
            conn.sendall(struct.pack("!H", len(reply)) + reply)

    # -- TCP services --
    def _tcp(self, addr, port, handler):
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((addr, port))
        s.listen(1024)
        self.servers.append(s)
        threading.Thread(target=self._accept_loop, args=(s, addr, port, handler, True), daemon=True).start()

    def _accept_loop(self, s, addr, port, handler, log_accept):
        while True:
            try:
                conn, peer = s.accept()
            except OSError:
                return
            if log_accept:
                self.record(kind="accept", port=port, addr=addr, peer=peer[0])
            threading.Thread(target=self._guard, args=(handler, conn, addr, port, peer[0]), daemon=True).start()

    @staticmethod
    def _guard(handler, conn, addr, port, peer):
        try:
            handler(conn, addr, port, peer)
        except (OSError, ValueError, ssl.SSLError):
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def _first(self, conn, addr, port, limit=4096):
        """The connection's first line (peeked: logged as data, the bytes left in place)."""
        conn.settimeout(15)
        data = conn.recv(limit, socket.MSG_PEEK)
        if data:
            self.record(kind="data", port=port, addr=addr, bytes=len(data))
        return data

    def _serve_plain(self, conn, addr, port, peer):
        if not self._first(conn, addr, port):
            return
        f = conn.makefile("rb")
        line = f.readline(256).decode("ascii", "replace").strip()
        if line.startswith("bytes "):
            conn.settimeout(None)  # blocking sends: a timeout makes each one poll first
            send_bytes(conn, int(line.split()[1]))
        else:
            conn.sendall(f"hello from {addr}\n".encode())

    def _serve_http(self, conn, addr, port, peer, scheme_port=None):
        if scheme_port is None and not self._first(conn, addr, port):
            return
        fx, where = self, scheme_port or port

        class Handler(http.server.BaseHTTPRequestHandler):
            # HTTP/1.1 keeps a connection open for the next request (pipelining, as a server
            # behind a CDN does); an HTTP/1.0 request or "Connection: close" ends it
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                fx.record(kind="http", port=where, addr=addr, host=self.headers.get("Host"), path=self.path)
                if self.path == "/hello":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(len(BODY)))
                    self.end_headers()
                    self.wfile.write(BODY)
                elif self.path.startswith("/bytes/"):
                    n = int(self.path.split("/")[2])
                    self.send_response(200)
                    self.send_header("Content-Length", str(n))
                    self.end_headers()
                    self.wfile.flush()
                    send_bytes(self.connection, n)
                else:
                    self.send_error(404)

            def log_message(self, *args):
                pass

        class Server:  # what BaseRequestHandler reads from its server
            pass

        try:
            Handler(conn, (peer, 0), Server())
        except (OSError, ValueError):
            pass

    def _serve_tls(self, conn, addr, port, peer):
        if not self._first(conn, addr, port):
            return
        fx = self
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(CERT, KEY)

        def sni(sslobj, name, _ctx):
            fx.record(kind="sni", port=port, addr=addr, sni=name)
            return None

        ctx.sni_callback = sni
        try:
            tls = ctx.wrap_socket(conn, server_side=True)
        except (ssl.SSLError, OSError) as e:
            self.record(kind="tls-error", port=port, addr=addr, error=str(e)[:200])
            return
        self._serve_http(tls, addr, port, peer, scheme_port=port)

    # -- UDP --
    def _udp(self, addr, port):
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.bind((addr, port))
        self.servers.append(s)

        def loop():
            while True:
                try:
                    data, _ = s.recvfrom(65535)
                except OSError:
                    return
                self.record(kind="udp", port=port, addr=addr, bytes=len(data))

        threading.Thread(target=loop, daemon=True).start()


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


_CHUNK = b"\x5a" * (1 << 20)


def send_bytes(conn, n):
    view = memoryview(_CHUNK)
    while n > 0:
        k = min(n, len(_CHUNK))
        conn.sendall(view[:k])
        n -= k


def dns_names(log):
    """The names the fixture's DNS server was asked about."""
    return sorted({x["name"] for x in log if x.get("kind") == "dns" and x.get("name") is not None})


def self_check(fx):
    """The fixture works without ringfence: every name resolves and every service answers."""
    problems = []

    def run(argv):
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        return p.returncode, p.stdout, p.stderr

    rc, out, _ = run(["getent", "ahosts", "allowed.test"])
    if rc != 0 or ALLOWED4 not in out or ALLOWED6 not in out:
        problems.append(f"getent ahosts allowed.test: {rc} {out!r}")
    for name, want in (("go.test", OTHER4), ("far.test", FAR4), ("x.y.wild.test", WILD4),
                       ("alias.test", ALLOWED4), ("meta.test", META4)):
        rc, out, _ = run(["getent", "ahostsv4", name])
        if rc != 0 or want not in out:
            problems.append(f"getent ahostsv4 {name}: {rc} {out!r}")
    rc, out, _ = run(["getent", "hosts", "nothing.test"])
    if rc != 2:
        problems.append(f"getent hosts nothing.test: expected 2 (not found), got {rc} {out!r}")
    for url, extra in (("http://allowed.test/hello", ["-4"]), ("http://allowed.test/hello", ["-6"]),
                       ("https://allowed.test/hello", ["-k", "-4"]), ("https://allowed.test/hello", ["-k", "-6"]),
                       ("https://other.test/hello", ["-k"])):
        rc, out, err = run(["curl", "-sS", "--max-time", "10", *extra, url])
        if rc != 0 or out != BODY.decode():
            problems.append(f"curl {' '.join(extra)} {url}: {rc} {out!r} {err!r}")
    with socket.create_connection((ALLOWED4, TCP_PORT), timeout=5) as s:
        s.sendall(b"hello\n")
        if s.recv(100) != f"hello from {ALLOWED4}\n".encode():
            problems.append("the TCP listener on 9000 did not answer hello")
    with socket.create_connection((ALLOWED4, TCP_PORT), timeout=5) as s:
        s.sendall(b"bytes 3000000\n")
        n = 0
        while chunk := s.recv(1 << 16):
            n += len(chunk)
        if n != 3000000:
            problems.append(f"bytes 3000000 on 9000 gave {n}")
    log = fx.take()
    snis = {x["sni"] for x in log if x["kind"] == "sni"}
    if not {"allowed.test", "other.test"} <= snis:
        problems.append(f"the TLS listener logged the server names {snis}")
    hosts = {x["host"] for x in log if x["kind"] == "http"}
    if "allowed.test" not in hosts:
        problems.append(f"the HTTP listener logged the hosts {hosts}")
    names = set(dns_names(log))
    if not {"allowed.test", "go.test", "far.test"} <= names:
        problems.append(f"the DNS server logged {names}")
    return problems, log


def main(argv):
    if os.geteuid() != 0:
        print("egress_fixture: needs root (it makes a network namespace)", file=sys.stderr)
        return 77
    args = argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    enter()
    fx = Fixture()
    if not args or args == ["--self-check"]:
        problems, log = self_check(fx)
        for x in log:
            print(json.dumps(x))
        for p in problems:
            print("FAIL", p)
        print("PASS" if not problems else f"{len(problems)} failures")
        return 1 if problems else 0
    if len(args) == 1 and " " in args[0]:
        args = ["sh", "-c", args[0]]
    rc = subprocess.run(args).returncode
    for x in fx.take():
        print("fixture:", json.dumps(x), file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
