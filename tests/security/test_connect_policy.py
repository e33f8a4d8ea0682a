#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Attacks on the network connect policy (threat model S-06, S-08, NET-01, NET-03..05, NET-07,
NET-09, NET-10, NTF-01, NTF-03).

NOTHING HERE LEAVES THE MACHINE: the test moves itself into a new network namespace, puts the
metadata addresses (169.254.169.254, fd00:ec2::254, 100.100.100.200, 192.0.0.192,
168.63.129.16, fe80::1), a denied 10.0.0.5 and an allowed 10.0.0.6 on its loopback, and
listens there (TCP 80, UDP 53, a unix socket in the project, one outside it, an abstract one),
recording every connection and datagram. `ringfence run --network on` shares that namespace.

Inside, one sandbox per user (root, 65534) runs every form of the attack: connect to each floor
address, mapped/NAT64/6to4/link-local IPv6 forms, UDP sendto, sendmsg with msg_name, sendmmsg
with a denied entry, python ctypes raw syscall(), a static binary with raw syscalls, a child
started after `unset LD_PRELOAD`, MSG_FASTOPEN, non-blocking connects, a thread flipping the
sockaddr during connects, a thread dup2()ing an inet socket over a unix socket during sendmsg,
unix paths that exist only outside the sandbox, and an abstract name.
Denied means: the call failed with the expected errno AND the listener saw nothing. Allowed
means the listener saw it. The violation log must name the denials.

A second sandbox per user runs real clients against an HTTP server on the allowed addresses
(10.0.0.6 and fd00:1::6, port 8080): curl and python urllib (normal HTTP semantics; to the
metadata addresses they fail and the listeners see nothing), and go_dialer, a static client that
dials as Go does (non-blocking connect, epoll, SO_ERROR) from 8 threads at once, allowed and
denied addresses mixed, IPv4 and IPv6, and happy eyeballs. Meanwhile two threads hang in
blocking connects to listeners whose backlog is full (10.0.0.6:81, and 127.0.0.1:81 for the
local path); the others' connects must not wait for them, and the run must end at once when the
command does; then 300 more threads storm the full backlog: workers take 256 of them, the rest
get EAGAIN at once, and allowed connects still go through. A third run floods denials: the violation log stops at its limit with one line
saying so, and the next run moves the full file aside.

A fourth run per user tries source routes: IPv6 routing headers (type 4 with segments_left 0,
type 2) through setsockopt(IPV6_RTHDR, IPV6_2292RTHDR, IPV6_2292PKTOPTIONS) and as sendmsg
ancillary data, IPv4 LSRR/SSRR through IP_OPTIONS and IP_RETOPTS, each pointing at a metadata
address while the packet is addressed to the allowed one. Each must fail with EPERM, and neither
a listener nor an AF_PACKET capture of lo may see a packet to a floor address.

Last, an old kernel, simulated with syscall_jail (ENOSYS for pidfd_getfd): network on with the
policy is refused with a message naming the call and suggesting --network off, and nothing runs;
--network off still runs.

usage: test_connect_policy.py RINGFENCE NET_RACER GO_DIALER SYSCALL_JAIL
       (as root; also runs as uid 65534)
"""

import ctypes
import http.server
import json
import os
import select
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

NOBODY = 65534
CLONE_NEWNET = 0x40000000
FLOOR4 = ["169.254.169.254", "100.100.100.200", "192.0.0.192", "168.63.129.16"]
FLOOR6 = ["fd00:ec2::254", "fe80::1"]
DENIED, ALLOWED = "10.0.0.5", "10.0.0.6"
ALLOWED6 = "fd00:1::6"
HTTP_PORT, FULL_PORT = 8080, 81
LOG_LIMIT = 2 << 20  # Supervisor::kLogLimit
ABSTRACT = b"\0rf-connect-test"

ATTACK = r'''
import ctypes, ctypes.util, json, os, socket, subprocess, sys
AF4, AF6 = socket.AF_INET, socket.AF_INET6
out = []
def rec(name, fn):
    try:
        r = fn()
        out.append({"name": name, "errno": 0, "ret": r})
    except OSError as e:
        out.append({"name": name, "errno": e.errno})
def tcp(fam, addr, nb=False):
    s = socket.socket(fam, socket.SOCK_STREAM)
    try:
        if nb:
            s.setblocking(False)
            e = s.connect_ex(addr)
            if e: raise OSError(e, os.strerror(e))
        else:
            s.settimeout(5); s.connect(addr)
    finally:
        s.close()
def udp(fam, addr, how):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    try:
        if how == "sendto": return s.sendto(b"x", addr)
        return s.sendmsg([b"x"], [], 0, addr)
    finally:
        s.close()
def unix(path, dgram=False):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(5); s.connect(path)
    finally:
        s.close()
for a in FLOOR4 + [DENIED, ALLOWED]:
    rec("connect " + a, lambda a=a: tcp(AF4, (a, 80)))
    rec("sendto " + a, lambda a=a: udp(AF4, (a, 53), "sendto"))
    rec("sendmsg " + a, lambda a=a: udp(AF4, (a, 53), "sendmsg"))
rec("connect fd00:ec2::254", lambda: tcp(AF6, ("fd00:ec2::254", 80)))
rec("connect fe80::1%lo", lambda: tcp(AF6, ("fe80::1", 80, 0, socket.if_nametoindex("lo"))))
rec("connect ::ffff:169.254.169.254", lambda: tcp(AF6, ("::ffff:169.254.169.254", 80)))
rec("sendto ::ffff:169.254.169.254", lambda: udp(AF6, ("::ffff:169.254.169.254", 53), "sendto"))
rec("connect ::ffff:" + ALLOWED, lambda: tcp(AF6, ("::ffff:" + ALLOWED, 80)))
rec("connect nat64", lambda: tcp(AF6, ("64:ff9b::a9fe:a9fe", 80)))
rec("connect 6to4", lambda: tcp(AF6, ("2002:a9fe:a9fe::1", 80)))
rec("nonblocking " + ALLOWED, lambda: tcp(AF4, (ALLOWED, 80), nb=True))
rec("nonblocking 169.254.169.254", lambda: tcp(AF4, ("169.254.169.254", 80), nb=True))
# ctypes: the raw syscall, not the libc wrapper
def ctypes_connect():
    libc = ctypes.CDLL(None, use_errno=True)
    s = socket.socket(AF4, socket.SOCK_STREAM)
    sa = bytes([2, 0, 0, 80, 169, 254, 169, 254]) + bytes(8)
    r = libc.syscall(42, s.fileno(), sa, 16)
    e = ctypes.get_errno()
    s.close()
    if r != 0: raise OSError(e, os.strerror(e))
rec("ctypes syscall connect 169.254.169.254", ctypes_connect)
rec("unix path in project", lambda: unix(PROJECT + "/proj.sock"))
rec("unix symlink in project to host /tmp", lambda: unix(PROJECT + "/link.sock"))
rec("unix host-only path", lambda: unix(HOST_SOCK))
rec("unix abstract", lambda: unix(ABSTRACT))
def static(*args, env=None):
    p = subprocess.run([PROJECT + "/net_racer"] + list(args), capture_output=True, text=True, env=env, timeout=60)
    return json.loads(p.stdout)
results = {"calls": out}
results["static connect 169.254.169.254"] = static("connect", "169.254.169.254", "80")
results["static connect fd00:ec2::254"] = static("connect", "fd00:ec2::254", "80")
env = dict(os.environ); env.pop("LD_PRELOAD", None)
results["unset LD_PRELOAD child"] = static("connect", "169.254.169.254", "80", env=env)
results["static nbconnect allowed"] = static("nbconnect", ALLOWED, "80")
results["static nbconnect denied"] = static("nbconnect", "169.254.169.254", "80")
results["fastopen allowed"] = static("fastopen", ALLOWED, "80")
results["fastopen floor"] = static("fastopen", "169.254.169.254", "80")
results["sendmmsg"] = static("sendmmsg", ALLOWED, "169.254.169.254", "53")
results["race"] = static("race", ALLOWED, "169.254.169.254", "80", "3000")
results["dup2race"] = static("dup2race", "169.254.169.254", "53", "2000")
print(json.dumps(results))
'''

CLIENTS = r"""
import json, socket, subprocess, sys, threading, time, urllib.error, urllib.request
res = {}
def run(argv, timeout=120):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    return {"rc": p.returncode, "out": p.stdout[-3000:], "err": p.stderr[-500:]}
def curl(url, *extra):
    return run(["curl", "-sS", "--max-time", "10", *extra, url])
def urlopen(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return {"status": r.status, "body": r.read().decode()}
    except urllib.error.HTTPError as e:
        return {"status": e.code}
    except urllib.error.URLError as e:
        return {"errno": getattr(e.reason, "errno", None), "error": str(e)}
def go(*args):
    r = run([PROJECT + "/go_dialer", *args])
    try:
        return json.loads(r["out"])
    except ValueError:
        return {"failed": r}
# Two blocking connects that hang: listeners whose backlog is full, one of them on loopback.
hung = {}
def hang(addr):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    t0 = time.monotonic()
    try:
        s.connect(addr)
        hung[addr[0]] = {"errno": 0, "after": time.monotonic() - t0}
    except OSError as e:
        hung[addr[0]] = {"errno": e.errno, "after": time.monotonic() - t0}
for a in ((ALLOWED, FULL_PORT), ("127.0.0.1", FULL_PORT)):
    threading.Thread(target=hang, args=(a,), daemon=True).start()
time.sleep(0.5)
res["curl allowed"] = curl(f"http://{ALLOWED}:{HTTP_PORT}/hello", "-i")
res["curl allowed6"] = curl(f"http://[{ALLOWED6}]:{HTTP_PORT}/hello")
res["curl 404"] = curl(f"http://{ALLOWED}:{HTTP_PORT}/missing", "-o", "/dev/null", "-w", "%{http_code}")
res["curl metadata"] = curl("http://169.254.169.254/latest/meta-data/")
res["curl metadata6"] = curl("http://[fd00:ec2::254]/latest/meta-data/")
res["urllib allowed"] = urlopen(f"http://{ALLOWED}:{HTTP_PORT}/hello")
res["urllib 404"] = urlopen(f"http://{ALLOWED}:{HTTP_PORT}/missing")
res["urllib metadata"] = urlopen("http://169.254.169.254/latest/meta-data/")
def blocking(addr, fam=socket.AF_INET):
    t0 = time.monotonic()
    s = socket.socket(fam, socket.SOCK_STREAM)
    try:
        s.connect(addr)
        s.sendall(b"GET /hello HTTP/1.0\r\n\r\n")
        data = b""
        while chunk := s.recv(4096):
            data += chunk
        return {"ok": data.startswith(b"HTTP/1.0 200"), "ms": 1000 * (time.monotonic() - t0)}
    except OSError as e:
        return {"ok": False, "errno": e.errno, "ms": 1000 * (time.monotonic() - t0)}
    finally:
        s.close()
res["socket blocking"] = [blocking((ALLOWED, HTTP_PORT)) for _ in range(20)]
res["socket blocking6"] = [blocking((ALLOWED6, HTTP_PORT), socket.AF_INET6) for _ in range(5)]
res["socket loopback"] = [blocking(("127.0.0.1", HTTP_PORT)) for _ in range(5)]
res["socket metadata"] = blocking(("169.254.169.254", 80))
res["go dial"] = go("dial", "8", "20", ALLOWED, str(HTTP_PORT), ALLOWED6, str(HTTP_PORT),
                    "169.254.169.254", "80", "fd00:ec2::254", "80", "127.0.0.1", str(HTTP_PORT))
res["go happy denied6"] = go("happy", "fd00:ec2::254", ALLOWED, str(HTTP_PORT))
res["go happy both"] = go("happy", ALLOWED6, ALLOWED, str(HTTP_PORT))
res["hung"] = dict(hung)
# A storm of blocking connects to the black hole (threat model NTF-05): workers take 256 of
# them, the rest are refused with EAGAIN at once; allowed connects still go through.
storm = {}
def storm_one():
    s = socket.socket()
    try:
        s.connect((ALLOWED, FULL_PORT))
        r = 0
    except OSError as e:
        r = e.errno
    with lock:
        storm[r] = storm.get(r, 0) + 1
lock = threading.Lock()
for _ in range(300):
    threading.Thread(target=storm_one, daemon=True).start()
time.sleep(2)
res["storm allowed"] = [blocking((ALLOWED, HTTP_PORT)) for _ in range(10)]
res["storm"] = dict(storm)
res["end"] = time.time()
print(json.dumps(res))
sys.stdout.flush()
"""

SPAM = r"""
import json, socket
n = 0
for i in range(COUNT):
    s = socket.socket()
    n += s.connect_ex(("169.254.169.254", 80)) == 111
    s.close()
print(json.dumps({"refused": n}))
"""


# Source routes (threat model NET-10, connecting past the policy with socket options): an IPv6
# routing header of type 4 (segment routing) with segments_left 0 makes the kernel address every
# packet to the header's segment, here the metadata address; IPv4 options with a loose or strict
# source route address it to the first hop. Both as sticky socket options (refused by seccomp) and
# as sendmsg ancillary data (refused by the supervisor). The kernel drops an IPv4 packet with a
# source route on arrival, so the test also captures every packet on lo (Capture below).
ROUTES = r"""
import json, socket, struct
EPERM = 1
IPV6_2292RTHDR, IPV6_2292PKTOPTIONS, IP_RETOPTS = 5, 6, 7
out = {}
def rec(name, fn):
    try:
        fn()
        out[name] = 0
    except OSError as e:
        out[name] = e.errno
def srh(seg, kind=4, left=0):
    # ipv6_sr_hdr / ipv6_rt_hdr: next header, length in 8-byte units past the first 8, type,
    # segments left, last entry, flags, tag; then the one address
    return bytes([0, 2, kind, left, 0, 0, 0, 0]) + socket.inet_pton(socket.AF_INET6, seg)
def srcroute(kind, hop):
    # LSRR (131) or SSRR (137): type, length 7, pointer 4, the hop; a NOP pads it to 8 bytes
    return bytes([kind, 7, 4]) + socket.inet_aton(hop) + b"\x01"
FLOOR6_SEG = "fd00:ec2::254"
def sticky(family, level, opt, value, kind):
    def go():
        s = socket.socket(family, kind)
        s.settimeout(2)
        try:
            s.setsockopt(level, opt, value)
        finally:
            # sent whatever the answer: with the option refused it reaches the allowed address
            to = ALLOWED6 if family == socket.AF_INET6 else ALLOWED
            try:
                if kind == socket.SOCK_DGRAM:
                    s.sendto(b"srcroute", (to, 53))
                else:
                    s.connect((to, HTTP_PORT))
            except OSError:
                pass
            s.close()
    return go
def sticky6(opt, value, kind):
    return sticky(socket.AF_INET6, socket.IPPROTO_IPV6, opt, value, kind)
def cmsg6(level, ctype, data):
    def go():
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        try:
            s.sendmsg([b"rthdr-cmsg"], [(level, ctype, data)], 0, (ALLOWED6, 53))
        finally:
            s.close()
    return go
def sticky4(value, kind):
    return sticky(socket.AF_INET, socket.IPPROTO_IP, socket.IP_OPTIONS, value, kind)
def cmsg4(data):
    def go():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.sendmsg([b"lsrr-cmsg"], [(socket.IPPROTO_IP, IP_RETOPTS, data)], 0, (ALLOWED, 53))
        finally:
            s.close()
    return go
D, T = socket.SOCK_DGRAM, socket.SOCK_STREAM
for kind, k in ((D, "udp"), (T, "tcp")):
    rec(f"IPV6_RTHDR type 4 {k}", sticky6(socket.IPV6_RTHDR, srh(FLOOR6_SEG), kind))
    rec(f"IPV6_RTHDR type 4 left 1 {k}", sticky6(socket.IPV6_RTHDR, srh(FLOOR6_SEG, 4, 1), kind))
    rec(f"IPV6_2292RTHDR type 4 {k}", sticky6(IPV6_2292RTHDR, srh(FLOOR6_SEG), kind))
    rec(f"IPV6_RTHDR type 2 {k}", sticky6(socket.IPV6_RTHDR, srh(FLOOR6_SEG, 2, 1), kind))
    pkt = struct.pack("@NII", 16 + 24, socket.IPPROTO_IPV6, socket.IPV6_RTHDR) + srh(FLOOR6_SEG, 2, 1)
    rec(f"IPV6_2292PKTOPTIONS {k}", sticky6(IPV6_2292PKTOPTIONS, pkt, kind))
    rec(f"IP_OPTIONS LSRR {k}", sticky4(srcroute(131, "169.254.169.254"), kind))
    rec(f"IP_OPTIONS SSRR {k}", sticky4(srcroute(137, "169.254.169.254"), kind))
for kind in (4, 2):
    rec(f"sendmsg IPV6_RTHDR type {kind}", cmsg6(socket.IPPROTO_IPV6, socket.IPV6_RTHDR,
                                               srh(FLOOR6_SEG, kind, 0 if kind == 4 else 1)))
    rec(f"sendmsg IPV6_2292RTHDR type {kind}", cmsg6(socket.IPPROTO_IPV6, IPV6_2292RTHDR,
                                                   srh(FLOOR6_SEG, kind, 0 if kind == 4 else 1)))
rec("sendmsg IP_RETOPTS LSRR", cmsg4(srcroute(131, "169.254.169.254")))
rec("sendmsg IP_RETOPTS SSRR", cmsg4(srcroute(137, "169.254.169.254")))
# controls: options and ancillary data next to the refused ones still work
rec("control IPV6_UNICAST_HOPS", lambda: socket.socket(socket.AF_INET6, D).setsockopt(
    socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, 7))
rec("control IP_TOS", lambda: socket.socket(socket.AF_INET, D).setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 16))
rec("control sendmsg IPV6_HOPLIMIT", cmsg6(socket.IPPROTO_IPV6, socket.IPV6_HOPLIMIT, struct.pack("i", 9)))
rec("control sendmsg IP_TTL", lambda: socket.socket(socket.AF_INET, D).sendmsg(
    [b"ttl"], [(socket.IPPROTO_IP, socket.IP_TTL, struct.pack("i", 9))], 0, (ALLOWED, 53)))
print(json.dumps(out))
"""


class Capture:
    """Every packet on lo, as the kernel sends it (AF_PACKET, outgoing only): the destinations a
    listener cannot see (an IPv4 packet with a source route is dropped on arrival)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0003))
        self.sock.bind(("lo", 0))
        self.lock = threading.Lock()
        self.dsts = []
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            pkt, addr = self.sock.recvfrom(65536)
            if addr[2] != socket.PACKET_OUTGOING:
                continue
            if addr[1] == 0x0800 and len(pkt) >= 20:
                dst = socket.inet_ntop(socket.AF_INET, pkt[16:20])
            elif addr[1] == 0x86DD and len(pkt) >= 40:
                dst = socket.inet_ntop(socket.AF_INET6, pkt[24:40])
            else:
                continue
            with self.lock:
                self.dsts.append(dst)

    def take(self):
        time.sleep(0.3)
        with self.lock:
            d, self.dsts = self.dsts, []
        return d


def check_source_routes(rf, user, work, project, fx, cap, failures):
    """Routing headers and source routes are refused with EPERM; nothing reaches a floor address,
    neither a listener nor the wire."""
    def bad(msg):
        failures.append(f"[{user}] source routes: {msg}")

    fx.take()
    cap.take()
    res, log, _ = run_sandbox(rf, user, work, project, "routes.py", "-routes")
    hits = fx.take()
    dsts = cap.take()
    for name, err in sorted(res.items()):
        want = 0 if name.startswith("control") else 1
        if err != want:
            bad(f"{name}: expected {'success' if want == 0 else 'EPERM'}, got errno {err}")
    floor = set(FLOOR4 + FLOOR6)
    leaked = [h for h in hits if h[1] in floor]
    if leaked:
        bad(f"metadata listeners recorded {len(leaked)} hits: {sorted(set(leaked))}")
    sent = sorted({d for d in dsts if d in floor})
    if sent:
        bad(f"packets were sent to floor addresses: {sent}")
    if not any(h == ("udp", ALLOWED) for h in hits) or ALLOWED not in dsts:
        bad(f"the allowed address saw nothing (the check is blind): hits {sorted(set(hits))}, wire {sorted(set(dsts))}")
    logged = [x for x in log if x.get("rule", "").startswith("source route: ")]
    cmsgs = [n for n in res if n.startswith("sendmsg ")]
    if len(logged) != len(cmsgs) or any(x.get("errno") != "EPERM" for x in logged):
        bad(f"the violation log names {len(logged)} refused control messages, expected {len(cmsgs)} "
            f"with EPERM: {logged}")
    print(f"[{user}] source routes: {len(res)} calls, {len(logged)} logged, {len(hits)} listener hits, "
          f"{len(dsts)} packets on lo to {sorted(set(dsts))}")


class Fixture:
    """Listeners on the fixture addresses; every connection and datagram is recorded."""

    def __init__(self, project, host_sock):
        self.hits = []
        self.lock = threading.Lock()
        self.sel = selectors.DefaultSelector()
        for a in FLOOR4 + [DENIED, ALLOWED]:
            self.listen(socket.AF_INET, a)
        for a in FLOOR6:
            self.listen(socket.AF_INET6, a)
        for path in (project + "/proj.sock", host_sock):
            self.unix(path, path)
        self.unix(ABSTRACT, "abstract")
        threading.Thread(target=self.loop, daemon=True).start()
        for addr in (ALLOWED, ALLOWED6, "127.0.0.1"):
            self.http(addr)
        self.full = [self.full_backlog(a) for a in (ALLOWED, "127.0.0.1")]

    def http(self, addr):
        fx = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self):
                with fx.lock:
                    fx.hits.append(("http", addr))
                code, body = (200, b"hello from the fixture\n") if self.path == "/hello" else (404, b"no\n")
                self.send_response(code)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            address_family = socket.AF_INET6 if ":" in addr else socket.AF_INET
            daemon_threads = True
            request_queue_size = 256

            def handle_error(self, request, client_address):
                pass  # a client that closes early (happy eyeballs' loser) is not the server's error

        srv = Server((addr, HTTP_PORT), Handler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()

    @staticmethod
    def full_backlog(addr):
        """A listener that never accepts, its backlog filled: a connect to it hangs (the SYN
        is dropped and retried), as to a black-holed address."""
        lst = socket.socket()
        lst.bind((addr, FULL_PORT))
        lst.listen(0)
        fill = socket.create_connection((addr, FULL_PORT), timeout=5)
        probe = socket.socket()
        probe.setblocking(False)
        e = probe.connect_ex((addr, FULL_PORT))
        time.sleep(0.5)
        err = probe.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        hanging = e == 115 and err == 0 and not select.select([], [probe], [], 0)[1]
        probe.close()
        if not hanging:
            raise AssertionError(f"the full-backlog listener on {addr} does not make connects hang ({e}, {err})")
        return lst, fill

    def listen(self, fam, addr):
        where = (addr, 80, 0, 1) if addr.startswith("fe80") else (addr, 80)
        t = socket.socket(fam, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind(where)
        t.listen(1024)
        t.setblocking(False)
        self.sel.register(t, selectors.EVENT_READ, ("tcp", addr))
        u = socket.socket(fam, socket.SOCK_DGRAM)
        u.bind((where[0], 53) + tuple(where[2:]))
        u.setblocking(False)
        self.sel.register(u, selectors.EVENT_READ, ("udp", addr))

    def unix(self, path, name):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        if isinstance(path, str):
            os.chmod(path, 0o777)
        s.listen(64)
        s.setblocking(False)
        self.sel.register(s, selectors.EVENT_READ, ("unix", name))

    def loop(self):
        while True:
            for key, _ in self.sel.select():
                kind, addr = key.data
                try:
                    if kind == "udp":
                        key.fileobj.recvfrom(65536)
                    else:
                        key.fileobj.accept()[0].close()
                except BlockingIOError:
                    continue
                with self.lock:
                    self.hits.append((kind, addr))

    def take(self):
        time.sleep(0.3)
        with self.lock:
            h, self.hits = self.hits, []
        return h


def setup_namespace():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
    cmds = [["ip", "link", "set", "lo", "up"]]
    for a in FLOOR4 + [DENIED, ALLOWED]:
        cmds.append(["ip", "addr", "add", a + "/32", "dev", "lo"])
    for a in FLOOR6 + [ALLOWED6]:
        cmds.append(["ip", "-6", "addr", "add", a + "/128", "dev", "lo", "nodad"])
    for c in cmds:
        subprocess.run(c, check=True)


def run_sandbox(rf, user, work, project, script="attack.py", tag=""):
    uid = 0 if user == "root" else NOBODY
    home = os.path.join(work, "home-" + user + tag)
    xdg = os.path.join(work, "xdg-" + user + tag)
    for d in (home, xdg):
        os.makedirs(d, exist_ok=True)
        os.chown(d, uid, uid)
        os.chmod(d, 0o700)
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": xdg, "LANG": "C"}
    argv = [rf, "run", "--no-profile", "--project", project, "--network", "on", "--deny-net", DENIED,
            *os.environ.get("RF_TEST_EXTRA_ARGS", "").split(),
            "--", "/usr/bin/python3", project + "/" + script]
    if uid:
        argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] + argv
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        raise AssertionError(f"ringfence run as {user} failed ({p.returncode}): {p.stderr}")
    log = os.path.join(xdg, "ringfence", "violations.jsonl")
    lines = [json.loads(x) for x in open(log)] if os.path.exists(log) else []
    return json.loads(p.stdout.strip().splitlines()[-1]), lines, p.stderr


def judge_clients(user, res, hits, ended, failures):
    def bad(msg):
        failures.append(f"[{user}] clients: {msg}")

    for k in ("curl allowed", "curl allowed6"):
        r = res[k]
        if r["rc"] != 0 or "hello from the fixture" not in r["out"]:
            bad(f"{k}: {r}")
    if not res["curl allowed"]["out"].startswith("HTTP/1.0 200"):
        bad(f"curl allowed: no HTTP/1.0 200 status line: {res['curl allowed']['out'][:200]!r}")
    if res["curl 404"]["out"] != "404":
        bad(f"curl 404: {res['curl 404']}")
    for k in ("curl metadata", "curl metadata6"):
        # 7: "Failed to connect" (the connect was refused)
        if res[k]["rc"] != 7:
            bad(f"{k}: expected curl exit 7 (couldn't connect), got {res[k]}")
    if res["urllib allowed"] != {"status": 200, "body": "hello from the fixture\n"}:
        bad(f"urllib allowed: {res['urllib allowed']}")
    if res["urllib 404"] != {"status": 404}:
        bad(f"urllib 404: {res['urllib 404']}")
    if res["urllib metadata"].get("errno") != ECONNREFUSED:
        bad(f"urllib metadata: {res['urllib metadata']}")
    for k in ("socket blocking", "socket blocking6", "socket loopback"):
        slow = [r for r in res[k] if not r["ok"] or r["ms"] > 500]
        if slow:
            bad(f"{k}: connects failed or waited for the hung ones: {slow}")
    if res["socket metadata"].get("errno") != ECONNREFUSED:
        bad(f"socket metadata: {res['socket metadata']}")
    g = res["go dial"]
    n = 8 * 20
    for a in (f"{ALLOWED} {HTTP_PORT}", f"{ALLOWED6} {HTTP_PORT}", f"127.0.0.1 {HTTP_PORT}"):
        if g.get(a) != {"ok": n, "errors": {}}:
            bad(f"go dial {a}: expected {n} good exchanges, got {g.get(a, g)}")
    for a in ("169.254.169.254 80", "fd00:ec2::254 80"):
        if g.get(a) != {"ok": 0, "errors": {str(ECONNREFUSED): n}}:
            bad(f"go dial {a}: expected {n} ECONNREFUSED, got {g.get(a, g)}")
    h = res["go happy denied6"]
    if h.get("winner") != ALLOWED or h.get("primary_errno") != ECONNREFUSED or h.get("ms", 1e9) > 250:
        bad(f"happy eyeballs with the IPv6 metadata address first: expected an at once fallback to {ALLOWED}: {h}")
    h = res["go happy both"]
    if h.get("winner") != ALLOWED6:
        bad(f"happy eyeballs with both allowed: expected {ALLOWED6} to win: {h}")
    for a in (ALLOWED, "127.0.0.1"):
        if res["hung"].get(a) is not None:
            bad(f"the blocking connect to the full backlog on {a} returned: {res['hung'][a]}")
    refused = res["storm"].get(str(11), 0)  # EAGAIN: every worker waits
    if set(res["storm"]) - {"11"} or not 0 < refused < 300:
        bad(f"storm of 300 blocking connects to the full backlog: expected some EAGAIN and the rest waiting, "
            f"got {res['storm']}")
    slow = [r for r in res["storm allowed"] if not r["ok"] or r["ms"] > 500]
    if slow:
        bad(f"allowed connects during the storm failed or waited: {slow}")
    if ended - res["end"] > 5:
        bad(f"the run ended {ended - res['end']:.1f} s after its command (workers held by hung connects?)")
    leaked = [h for h in hits if h[1] in FLOOR4 + FLOOR6]
    if leaked:
        bad(f"metadata listeners recorded {len(leaked)} hits: {sorted(set(leaked))}")
    for a in (ALLOWED, ALLOWED6, "127.0.0.1"):
        if ("http", a) not in hits:
            bad(f"the HTTP server on {a} saw nothing")


def check_log_limit(rf, user, work, project, failures):
    """A flood of denials: the log stops at the limit with one line; the next run moves it."""
    def bad(msg):
        failures.append(f"[{user}] log limit: {msg}")

    count = 14000
    with open(project + "/spam.py", "w") as f:
        f.write(f"COUNT={count}\n" + SPAM)
    res, lines, err = run_sandbox(rf, user, work, project, "spam.py", "-log")
    log = os.path.join(work, "xdg-" + user + "-log", "ringfence", "violations.jsonl")
    size = os.path.getsize(log)
    if res["refused"] != count:
        bad(f"{res['refused']} of {count} connects refused")
    if size > LOG_LIMIT:
        bad(f"the log holds {size} bytes, over the limit of {LOG_LIMIT}")
    denials = [x for x in lines if x.get("action") == "deny"]
    if not lines or lines[-1].get("action") != "log-limit" or sum(x.get("action") == "log-limit" for x in lines) != 1:
        bad(f"the last line is not the one limit line: {lines[-1:]}")
    if not 5000 < len(denials) < count:
        bad(f"{len(denials)} denials logged")
    if f"{count - len(denials)} denials were not written to the violation log" not in err:
        bad(f"no warning naming the {count - len(denials)} dropped denials: {err[-500:]!r}")
    with open(project + "/spam.py", "w") as f:
        f.write("COUNT=1\n" + SPAM)
    run_sandbox(rf, user, work, project, "spam.py", "-log")
    new = [json.loads(x) for x in open(log)]
    old = [json.loads(x) for x in open(log + ".1")] if os.path.exists(log + ".1") else []
    if len(new) != 1 or not old or old[-1].get("action") != "log-limit":
        bad(f"the next run did not move the full log aside: {len(new)} new lines, {len(old)} in .1")
    print(f"[{user}] log limit: {len(denials)} of {count} denials logged, {size} bytes, then moved to .1")


ECONNREFUSED, EINPROGRESS, EOPNOTSUPP, ENOENT = 111, 115, 95, 2


def judge(user, res, hits, log, failures):
    def bad(msg):
        failures.append(f"[{user}] {msg}")

    calls = {c["name"]: c for c in res["calls"]}
    for name, c in calls.items():
        allowed = ALLOWED in name and "169.254" not in name
        if name == "unix path in project":
            allowed = True
        if name.startswith("nonblocking " + ALLOWED):
            if c["errno"] != EINPROGRESS:
                bad(f"{name}: expected EINPROGRESS, got {c}")
            continue
        if allowed:
            if c["errno"] != 0:
                bad(f"{name}: allowed call failed: {c}")
        elif name.startswith("unix"):
            if c["errno"] == 0:
                bad(f"{name}: SUCCEEDED: {c}")
        elif c["errno"] != ECONNREFUSED:
            bad(f"{name}: expected ECONNREFUSED, got {c}")
    for k in ("static connect 169.254.169.254", "static connect fd00:ec2::254", "unset LD_PRELOAD child",
              "static nbconnect denied"):
        if res[k]["errno"] != ECONNREFUSED:
            bad(f"{k}: expected ECONNREFUSED, got {res[k]}")
    if res["static nbconnect allowed"]["errno"] != EINPROGRESS:
        bad(f"static nbconnect allowed: expected EINPROGRESS, got {res['static nbconnect allowed']}")
    for k in ("fastopen allowed", "fastopen floor"):
        if res[k]["errno"] != EOPNOTSUPP:
            bad(f"{k}: expected EOPNOTSUPP, got {res[k]}")
    if res["sendmmsg"]["ret"] != 2:
        bad(f"sendmmsg: expected 2 sent before the denied entry, got {res['sendmmsg']}")
    if res["race"]["ok"] == 0:
        bad(f"race: no connect to the allowed address got through (the test did not race): {res['race']}")
    if res["dup2race"]["sent"] != 0 and ("udp", "169.254.169.254") in hits:
        bad(f"dup2race: datagrams reached the metadata address: {res['dup2race']}")
    denied_targets = set(FLOOR4 + FLOOR6 + [DENIED, str(ABSTRACT), "abstract"])
    leaked = [h for h in hits if h[1] in denied_targets or (h[0] == "unix" and h[1] != "proj")
              and not h[1].endswith("proj.sock")]
    if leaked:
        bad(f"denied listeners recorded {len(leaked)} hits: {sorted(set(leaked))}")
    for want in (("tcp", ALLOWED), ("udp", ALLOWED)):
        if want not in hits:
            bad(f"the allowed listener {want} saw nothing")
    if not any(h[0] == "unix" and h[1].endswith("proj.sock") for h in hits):
        bad("the project's unix socket saw no connection")
    addrs = {(x.get("address"), x.get("action")) for x in log}
    for a in ("169.254.169.254", DENIED, "fd00:ec2::254"):
        if (a, "deny") not in addrs:
            bad(f"violation log has no denial of {a} ({len(log)} lines)")
    if not any("metadata floor" in x.get("rule", "") for x in log):
        bad("violation log names no metadata floor rule")


def check_old_kernel(rf, jail, user, work, project, failures):
    """No pidfd_getfd: network on is refused (exit 125) with a clear message."""
    pre = [] if user == "root" else ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent-rf-home", "LANG": "C", "XDG_RUNTIME_DIR": ""}
    marker = os.path.join(project, f"ran-{user}")
    for call in ("pidfd_getfd",):
        p = subprocess.run(pre + [jail, "--enosys", call, "--", rf, "run", "--no-profile", "--project", project,
                                  "--network", "on", "--", "/usr/bin/touch", marker],
                           capture_output=True, text=True, timeout=60)
        want = f"the network connect policy cannot be enforced: {call}"
        if p.returncode != 125 or want not in p.stderr or "--network off" not in p.stderr:
            failures.append(f"[{user}] without {call}: expected exit 125 and {want!r} suggesting --network off, "
                            f"got {p.returncode}: {p.stderr.strip()!r}")
        if os.path.exists(marker):
            failures.append(f"[{user}] without {call}: the command ran")
            os.unlink(marker)
    p = subprocess.run(pre + [jail, "--enosys", "pidfd_getfd", "--", rf, "run", "--no-profile", "--project", project,
                              "--network", "off", "--", "/usr/bin/true"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        failures.append(f"[{user}] without pidfd_getfd, --network off failed: {p.returncode} {p.stderr.strip()!r}")
    print(f"[{user}] old kernel: network on refused without pidfd_getfd, network off runs")


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: needs root (it makes the fixture network namespace)")
        return 77
    rf, racer, dialer, jail = stage(*sys.argv[1:5])
    setup_namespace()
    work = tempfile.mkdtemp(prefix="rf-connect-")
    os.chmod(work, 0o755)
    failures = []
    try:
        project = os.path.join(work, "project")
        os.mkdir(project)
        os.chmod(project, 0o777)
        host_sock = os.path.join(work, "host-only.sock")
        for prog, name in ((racer, "net_racer"), (dialer, "go_dialer")):
            shutil.copy(prog, project + "/" + name)
            os.chmod(project + "/" + name, 0o755)
        consts = (f"FLOOR4={FLOOR4!r}\nDENIED={DENIED!r}\nALLOWED={ALLOWED!r}\nPROJECT={project!r}\n"
                  f"HOST_SOCK={host_sock!r}\nABSTRACT={ABSTRACT!r}\nALLOWED6={ALLOWED6!r}\n"
                  f"HTTP_PORT={HTTP_PORT}\nFULL_PORT={FULL_PORT}\n")
        with open(project + "/attack.py", "w") as f:
            f.write(consts + ATTACK)
        with open(project + "/clients.py", "w") as f:
            f.write(consts + CLIENTS)
        with open(project + "/routes.py", "w") as f:
            f.write(consts + ROUTES)
        fx = Fixture(project, host_sock)
        cap = Capture()
        os.symlink(host_sock, project + "/link.sock")
        for user in ("root", "nobody"):
            fx.take()
            try:
                res, log, err = run_sandbox(rf, user, work, project)
            except Exception as e:  # noqa: BLE001
                failures.append(f"[{user}] {e}")
                continue
            hits = fx.take()
            judge(user, res, hits, log, failures)
            try:
                check_source_routes(rf, user, work, project, fx, cap, failures)
            except Exception as e:  # noqa: BLE001
                failures.append(f"[{user}] source routes: {e!r}")
            print(f"[{user}] race: {res['race']}, dup2race: {res['dup2race']}, sendmmsg: {res['sendmmsg']}, "
                  f"{len(res['calls'])} calls, {len(hits)} listener hits, {len(log)} log lines")
            try:
                res, _, _ = run_sandbox(rf, user, work, project, "clients.py", "-clients")
                ended = time.time()
                hits = fx.take()
                judge_clients(user, res, hits, ended, failures)
                print(f"[{user}] clients: go dial {res['go dial']}, happy {res['go happy denied6']} "
                      f"{res['go happy both']}, blocking connect ms "
                      f"{max(r['ms'] for r in res['socket blocking']):.1f} max")
                check_log_limit(rf, user, work, project, failures)
            except Exception as e:  # noqa: BLE001
                failures.append(f"[{user}] clients: {e!r}")
        for user in ("root", "nobody"):
            check_old_kernel(rf, jail, user, work, project, failures)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print("PASS" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
