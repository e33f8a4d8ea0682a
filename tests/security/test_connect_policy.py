#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Attacks on the network connect policy (threat model S-06, S-08, NET-01, NET-03..05, NET-07,
NET-09, NTF-01, NTF-03).

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

usage: test_connect_policy.py RINGFENCE NET_RACER   (as root; also runs as uid 65534)
"""

import ctypes
import json
import os
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

NOBODY = 65534
CLONE_NEWNET = 0x40000000
FLOOR4 = ["169.254.169.254", "100.100.100.200", "192.0.0.192", "168.63.129.16"]
FLOOR6 = ["fd00:ec2::254", "fe80::1"]
DENIED, ALLOWED = "10.0.0.5", "10.0.0.6"
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
    for a in FLOOR6:
        cmds.append(["ip", "-6", "addr", "add", a + "/128", "dev", "lo", "nodad"])
    for c in cmds:
        subprocess.run(c, check=True)


def run_sandbox(rf, user, work, project):
    uid = 0 if user == "root" else NOBODY
    home = os.path.join(work, "home-" + user)
    xdg = os.path.join(work, "xdg-" + user)
    for d in (home, xdg):
        os.makedirs(d, exist_ok=True)
        os.chown(d, uid, uid)
        os.chmod(d, 0o700)
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": xdg, "LANG": "C"}
    argv = [rf, "run", "--no-profile", "--project", project, "--network", "on", "--deny-net", DENIED,
            *os.environ.get("RF_TEST_EXTRA_ARGS", "").split(),
            "--", "/usr/bin/python3", project + "/attack.py"]
    if uid:
        argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] + argv
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        raise AssertionError(f"ringfence run as {user} failed ({p.returncode}): {p.stderr}")
    log = os.path.join(xdg, "ringfence", "violations.jsonl")
    lines = [json.loads(x) for x in open(log)] if os.path.exists(log) else []
    return json.loads(p.stdout.strip().splitlines()[-1]), lines, p.stderr


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


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: needs root (it makes the fixture network namespace)")
        return 77
    rf, racer = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    setup_namespace()
    work = tempfile.mkdtemp(prefix="rf-connect-")
    os.chmod(work, 0o755)
    failures = []
    try:
        project = os.path.join(work, "project")
        os.mkdir(project)
        os.chmod(project, 0o777)
        host_sock = os.path.join(work, "host-only.sock")
        shutil.copy(racer, project + "/net_racer")
        os.chmod(project + "/net_racer", 0o755)
        consts = (f"FLOOR4={FLOOR4!r}\nDENIED={DENIED!r}\nALLOWED={ALLOWED!r}\nPROJECT={project!r}\n"
                  f"HOST_SOCK={host_sock!r}\nABSTRACT={ABSTRACT!r}\n")
        with open(project + "/attack.py", "w") as f:
            f.write(consts + ATTACK)
        fx = Fixture(project, host_sock)
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
            print(f"[{user}] race: {res['race']}, dup2race: {res['dup2race']}, sendmmsg: {res['sendmmsg']}, "
                  f"{len(res['calls'])} calls, {len(hits)} listener hits, {len(log)} log lines")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print("PASS" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
