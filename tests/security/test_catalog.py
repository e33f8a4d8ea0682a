#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The threat-model catalog attacked from inside real sandboxes (issue 8).

tests/helpers/attack/rf-attack makes every attack of docs/security-tests.md through raw system
calls; `rf-attack list` says at which levels ringfence must stop each one. This test runs
`rf-attack run` inside `ringfence run` for every case below, as root and as uid 65534, every run
inside `rf-attack fixture` (a private network namespace holding the cloud-metadata addresses and
one allowed address, with listeners that record every connection and datagram: nothing leaves
the machine):

  kernel    presets balanced and hardened, network on and off
  landlock  `ringfence run --level landlock`, network on and off; the fallback under
            tests/engine/syscall_jail --deny-userns (network on)
  soft      `ringfence run --level soft`, network on and off
The network-off runs of balanced have a pty as stdin, the controlling terminal of the whole chain,
whose input queue is checked afterwards for bytes injected with TIOCSTI.

Host canaries, planted by this test with one random token: the launcher's environment
(credential variables, passed to rf-attack by name only through `--env RF_ATTACK_CANARY`, so the
launcher's argv stays clean), a decoy host process holding the token in its argv and environment,
a fake real HOME with a secret file, the project's .env/.npmrc (masked) and .git/config, a key
in the user keyring of root and of 65534, a SysV shm segment, a POSIX message queue, /dev/shm/rf-canary-TOKEN, an
abstract unix socket @rf-canary-TOKEN and a pathname socket outside the project (both served
inside the fixture's namespace).

Verdict per run: every attack whose `protects` holds the level reached is blocked, or skipped with
a reason (a timeout or crash is a failure); an attack that succeeded where the level does not
promise to stop it is listed as "not protected at LEVEL", never counted as a pass. The fixture saw
no connection or datagram to a denied address (and the allowed address saw traffic exactly when
the network is on); the token appears nowhere in the sandbox's output; no marker file is left on
the host; .git/config, .git/hooks and .env are unchanged; no process of the run survives it.

Known holes (KNOWN_HOLES below, empty now) are reported, not failed, here. `--closed-holes` runs
the regressions of holes found and closed: the launcher's own command line, with a token in an
`--env K=V`, must not be readable from the sandbox (/proc/1/cmdline), plus any KNOWN_HOLES entry.

usage: test_catalog.py RINGFENCE RF_ATTACK SYSCALL_JAIL [--closed-holes] [--only CASE-SUBSTRING]
"""

import ctypes
import fcntl
import glob
import hashlib
import json
import os
import pty
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

NOBODY = 65534
SETPRIV = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
RUN_TIMEOUT = 150


class Case:
    def __init__(self, level, user, preset="balanced", network="off", via="level", use_pty=False):
        self.level, self.user, self.preset, self.network = level, user, preset, network
        self.via, self.use_pty = via, use_pty

    @property
    def name(self):
        via = "" if self.via == "level" else f" via {self.via}"
        return (f"{self.level}{via} {self.preset} network-{self.network} {self.user}"
                + (" pty" if self.use_pty else ""))


def cases():
    out = []
    for user in ("root", "unpriv"):
        for preset in ("balanced", "hardened"):
            for net in ("on", "off"):
                out.append(Case("kernel", user, preset, net,
                                use_pty=(preset == "balanced" and net == "off")))
        for net in ("on", "off"):
            out.append(Case("landlock", user, network=net, use_pty=(net == "off")))
        out.append(Case("landlock", user, network="on", via="syscall_jail"))
        for net in ("on", "off"):
            out.append(Case("soft", user, network=net, use_pty=(net == "off")))
    return out


# id -> (predicate on the case, explanation).
# Holes the catalog finds and the engine has not closed yet: reported, not failed, by the main
# run; `--closed-holes` asserts the ones closed so far stay closed. Empty: the four found first
# (PROC-01 host sysctls writable as root, PROC-04 /proc/keys and friends, NET-10.udplite, the
# launcher's argv in /proc/1/cmdline) are closed and are ordinary rows now.
KNOWN_HOLES = {}

# The argv canary: the sandbox's pid 1 is a clone of the launcher; it must not show its command line.
ARGV_HOLE = ("S-02/ENV-03: the launcher's argv (including `--env K=V` values) is readable in the "
             "sandbox's /proc/1/cmdline, since pid 1 is a clone of ringfence that keeps its argv")


def hole_for(attack_id, case):
    h = KNOWN_HOLES.get(attack_id)
    if h and h[0](case):
        return h[1]
    return None


# ------------------------------------------------------------------------------------------------
# Host canaries (created once by root, removed at the end)

class HostCanaries:
    KEY_SPEC_USER_KEYRING = -4
    KEYCTL_INVALIDATE = 21
    IPC_CREAT, IPC_RMID = 0o1000, 0

    def __init__(self, token):
        self.token = token
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.libc.shmat.restype = ctypes.c_void_p
        self.key_id = None
        self.shm_id = None
        self.mq_name = f"/rf-canary-{token}"
        self.mq = None
        self.devshm = f"/dev/shm/rf-canary-{token}"
        self.sysv_key = 0x52460000 | secrets.randbelow(0xffff)
        self.notes = []
        self._setup()

    KEY_SCRIPT = ("import ctypes, sys\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                  "libc.syscall.restype = ctypes.c_long\n"
                  "if sys.argv[1] == 'add':\n"
                  "    t = sys.argv[2].encode()\n"
                  "    print(libc.syscall(248, b'user', b'rf-canary-' + t, t, len(t), -4))\n"
                  "else:\n"
                  "    libc.syscall(250, 21, int(sys.argv[2]))\n")

    def _key(self, user, *args):
        pre = SETPRIV if user == "unpriv" else []
        r = subprocess.run(pre + [sys.executable, "-c", self.KEY_SCRIPT] + list(args), capture_output=True,
                           text=True, timeout=30)
        return r.stdout.strip()

    def _setup(self):
        t = self.token.encode()
        # A key in the user keyring of each user a run is made as (add_key: 248, keyctl: 250).
        self.keys = {}
        for user in ("root", "unpriv"):
            out = self._key(user, "add", self.token)
            if out.isdigit() and int(out) > 0:
                self.keys[user] = out
            else:
                self.notes.append(f"no keyring canary for {user}: add_key gave {out!r}")
        sid = self.libc.shmget(self.sysv_key, 4096, self.IPC_CREAT | 0o644)
        if sid >= 0:
            self.shm_id = sid
            addr = self.libc.shmat(sid, None, 0)
            if addr not in (None, ctypes.c_void_p(-1).value):
                ctypes.memmove(addr, t + b"\0", len(t) + 1)
                self.libc.shmdt(ctypes.c_void_p(addr))
        else:
            self.notes.append(f"no SysV canary: shmget: {os.strerror(ctypes.get_errno())}")
        try:
            mq_open = self.libc.mq_open
            mq_open.restype = ctypes.c_int
            fd = mq_open(self.mq_name.encode(), os.O_CREAT | os.O_RDWR, 0o644, None)
            if fd >= 0:
                self.mq = fd
            else:
                self.notes.append(f"no POSIX mq canary: {os.strerror(ctypes.get_errno())}")
        except AttributeError:
            self.notes.append("no POSIX mq canary: libc has no mq_open")
        with open(self.devshm, "w") as f:
            f.write(self.token)
        os.chmod(self.devshm, 0o644)

    def cleanup(self):
        for user, kid in self.keys.items():
            self._key(user, "invalidate", kid)
        if self.shm_id is not None:
            self.libc.shmctl(self.shm_id, self.IPC_RMID, None)
        if self.mq is not None:
            os.close(self.mq)
            self.libc.mq_unlink(self.mq_name.encode())
        try:
            os.unlink(self.devshm)
        except OSError:
            pass


# ------------------------------------------------------------------------------------------------
# --inner: runs inside the fixture's namespace, serves the socket canaries, runs the command.

def inner_main(argv):
    token, sock_path = argv[0], argv[1]
    cmd = argv[3:]  # after "--"
    servers = []
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind(b"\0rf-canary-" + token.encode())
    abstract.listen(16)
    servers.append(abstract)
    path = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path.bind(sock_path)
    os.chmod(sock_path, 0o777)
    path.listen(16)
    servers.append(path)
    hits = []

    def serve(s, name):
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            hits.append(name)
            try:
                c.sendall(token.encode())
            except OSError:
                pass
            c.close()

    for s, name in ((abstract, "abstract"), (path, "pathname")):
        threading.Thread(target=serve, args=(s, name), daemon=True).start()
    p = subprocess.Popen(cmd)
    rc = p.wait()
    if hits:
        sys.stderr.write(f"rf-catalog-inner: socket canary connections: {hits}\n")
    return rc


# ------------------------------------------------------------------------------------------------

def digest_tree(path):
    h = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(path)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            h.update(p.encode())
            try:
                with open(p, "rb") as fh:
                    h.update(fh.read())
            except OSError:
                h.update(b"?")
    return h.hexdigest()


def leftovers(marks):
    """Processes whose command line or executable mentions one of marks (this run's own paths and
    tokens only: other runs on the machine are never touched)."""
    found = []
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        try:
            cmd += b" " + os.readlink(f"/proc/{d}/exe").encode()
        except OSError:
            pass
        if any(m.encode() in cmd for m in marks):
            found.append((int(d), cmd.replace(b"\0", b" ").decode(errors="replace")[:200]))
    return found


class Runner:
    def __init__(self, ringfence, attack, jail):
        self.attack_src, self.jail = attack, jail
        self.token = "rfcanary" + secrets.token_hex(8)
        self.base = tempfile.mkdtemp(prefix="rf-cat-")
        os.chmod(self.base, 0o755)
        self.ringfence = ringfence   # staged: reachable by uid 65534 wherever the build lies
        self.canaries = HostCanaries(self.token)
        self.protects = {}
        out = subprocess.run([attack, "list"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            j = json.loads(line)
            self.protects[j["id"]] = set(j["protects"])
        self.counter = 0

    def cleanup(self):
        self.canaries.cleanup()
        shutil.rmtree(self.base, ignore_errors=True)

    def workspace(self, case):
        self.counter += 1
        uid = 0 if case.user == "root" else NOBODY
        w = os.path.join(self.base, f"run{self.counter}")
        os.mkdir(w, 0o755)
        proj = os.path.join(w, "project")
        sibling = os.path.join(w, "other-project")
        home = os.path.join(w, "home")
        xdg = os.path.join(w, "xdg")
        for d in (proj, sibling, home, xdg, os.path.join(proj, ".git"), os.path.join(proj, ".git", "hooks")):
            os.mkdir(d, 0o755)
        with open(os.path.join(proj, ".env"), "w") as f:
            f.write(f"API_KEY={self.token}\n")
        with open(os.path.join(proj, ".npmrc"), "w") as f:
            f.write(f"//registry.npmjs.org/:_authToken={self.token}\n")
        with open(os.path.join(proj, ".git", "config"), "w") as f:
            f.write('[core]\n\trepositoryformatversion = 0\n[http "https://github.com/"]\n'
                    f'\textraheader = AUTHORIZATION: basic {self.token}\n')
        with open(os.path.join(proj, ".git", "hooks", "pre-commit.sample"), "w") as f:
            f.write("#!/bin/sh\n")
        with open(os.path.join(sibling, "notes.txt"), "w") as f:
            f.write(self.token)
        secret = os.path.join(home, "secret.txt")
        with open(secret, "w") as f:
            f.write(self.token)
        shutil.copy2(self.attack_src, os.path.join(proj, "rf-attack"))
        os.chmod(os.path.join(proj, "rf-attack"), 0o755)
        for root, dirs, files in os.walk(w):
            for n in dirs + files:
                os.lchown(os.path.join(root, n), uid, uid)
        os.chown(w, 0, 0)
        os.chmod(home, 0o700)
        os.chmod(xdg, 0o700)
        return w, proj, home, secret, xdg

    def env_for(self, home, xdg):
        t = self.token
        return {
            "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": home, "LANG": "C", "XDG_RUNTIME_DIR": xdg,
            "RF_ATTACK_CANARY": t,
            "AWS_SECRET_ACCESS_KEY": t, "AWS_ACCESS_KEY_ID": "AKIA" + t, "GITHUB_TOKEN": t,
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": t, "ACTIONS_ID_TOKEN_REQUEST_URL": "https://example.invalid/" + t,
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://169.254.170.2/" + t, "BASH_ENV": "/tmp/" + t,
            "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.extraheader", "GIT_CONFIG_VALUE_0": t,
            "SSH_AUTH_SOCK": "/tmp/ssh-" + t, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/tmp/bus-" + t,
            "RF_SECRET_API_KEY": t,
        }

    def command(self, case, proj, secret, sock, argv_token=False, ids=()):
        rf = [self.ringfence, "run", "--no-profile", "--preset", case.preset, "--network", case.network,
              "--project", proj, "--env", "RF_ATTACK_CANARY"]
        if case.via == "level" and case.level != "kernel":
            rf += ["--level", case.level]
        if argv_token:
            rf += ["--env", f"RF_DECOY_ARG={self.token}"]
        attack = [os.path.join(proj, "rf-attack"), "run", "--net-fixture", "--project", proj,
                  "--home-canary", secret, "--host-socket", sock]
        if self.canaries.shm_id is not None:
            attack += ["--sysv-key", hex(self.canaries.sysv_key)]
        if case.network == "off":
            attack.append("--network-off")
        attack += list(ids)
        cmd = rf + ["--"] + attack
        if case.via == "syscall_jail":
            cmd = [self.jail, "--deny-userns", "--"] + cmd
        if case.user == "unpriv":
            cmd = SETPRIV + cmd
        return cmd

    def decoy(self, case, env):
        pre = SETPRIV if case.user == "unpriv" else []
        e = dict(env)
        e["RF_DECOY_SECRET"] = self.token
        return subprocess.Popen(pre + ["python3", "-c", "import time; time.sleep(300)", "rf-decoy-" + self.token],
                                env=e, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)

    def run(self, case, ids=(), argv_token=False):
        """Runs one case; returns (results by id, problems, fixture summary, stderr)."""
        w, proj, home, secret, xdg = self.workspace(case)
        sock = os.path.join(w, "host-only.sock")
        log = os.path.join(w, "fixture.jsonl")
        env = self.env_for(home, xdg)
        before = {"git": digest_tree(os.path.join(proj, ".git")), "env": digest_tree(proj + "/.env")}
        inner = [sys.executable, os.path.abspath(__file__), "--inner", self.token, sock, "--"]
        full = [self.attack_src, "fixture", "--log", log, "--"] + inner + self.command(
            case, proj, secret, sock, argv_token, ids)
        problems = []
        decoy = self.decoy(case, env)
        master = slave = None
        stdin = subprocess.DEVNULL
        preexec = None
        if case.use_pty:
            master, slave = pty.openpty()
            tty.setraw(slave)
            stdin = slave

            def preexec():  # the pty becomes the controlling terminal of the whole chain
                fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        try:
            p = subprocess.Popen(full, env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 cwd=proj, start_new_session=True, preexec_fn=preexec)
            try:
                out, err = p.communicate(timeout=RUN_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
                problems.append(f"timed out after {RUN_TIMEOUT}s")
        finally:
            decoy.kill()
            decoy.wait()
        out, err = out.decode(errors="replace"), err.decode(errors="replace")
        if case.use_pty:
            fl = fcntl.fcntl(slave, fcntl.F_GETFL)
            fcntl.fcntl(slave, fcntl.F_SETFL, fl | os.O_NONBLOCK)
            try:
                injected = os.read(slave, 4096)
            except OSError:
                injected = b""
            os.close(slave)
            os.close(master)
            if b"rf-tiocsti" in injected:
                problems.append(f"TIOCSTI injected into the terminal's input queue: {injected[:80]!r}")
        if p.returncode != 0:
            problems.append(f"exit {p.returncode}; stderr: {err[-1500:]}")
        level_line = next((ln for ln in err.splitlines() if ln.startswith("ringfence: level ")), "")
        if not level_line.startswith(f"ringfence: level {case.level},"):
            problems.append(f"expected level {case.level}, the level line says {level_line!r}")
        results = {}
        for line in out.splitlines():
            try:
                j = json.loads(line)
            except ValueError:
                problems.append(f"not JSON on stdout: {line[:200]!r}")
                continue
            results[j["id"]] = j
        if self.token in out or self.token in err:
            where = [ln[:300] for ln in (out + err).splitlines() if self.token in ln]
            problems.append(f"the canary token appears in the sandbox's output: {where[:3]}")
        summary, events = None, []
        if os.path.exists(log):
            for line in open(log):
                j = json.loads(line)
                if j.get("fixture") == "summary":
                    summary = j
                elif j.get("fixture") == "event":
                    events.append(j)
                else:
                    problems.append(f"fixture: {line.strip()}")
        if summary is None:
            problems.append("the fixture printed no summary")
        else:
            if summary["denied_hits"]:
                denied = sorted({(e["proto"], e["addr"], e["port"]) for e in events if e["denied"]})
                problems.append(f"the fixture saw {summary['denied_hits']} hits on denied addresses: {denied[:10]}")
            if not ids:
                if case.network == "on" and not summary["allowed_hits"]:
                    problems.append("network on, but the allowed address saw nothing (the fixture did not work)")
                if case.network == "off" and summary["allowed_hits"]:
                    problems.append(f"network off, but the allowed address saw {summary['allowed_hits']} hits")
        hit_line = next((ln for ln in err.splitlines() if "socket canary connections" in ln), "")
        # The abstract socket is promised at every level (IPC-01); the pathname one at kernel (IPC-02).
        if "abstract" in hit_line or ("pathname" in hit_line and case.level == "kernel"):
            problems.append("a socket canary was reached: " + hit_line)
        # Host audit.
        left = []
        for _ in range(30):
            left = leftovers([w, "rf-decoy-" + self.token])
            if not left:
                break
            time.sleep(0.1)
        if left:
            for pid, _ in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            problems.append(f"processes outlived the run: {left}")
        markers = []
        for d in ("/etc", "/usr/local/bin", "/var/lib", home, proj, os.path.dirname(self.ringfence), "/tmp"):
            markers += glob.glob(os.path.join(d, "rf-attack-*"))
            markers += glob.glob(os.path.join(d, ".*-rf-attack-*"))
        markers += glob.glob(os.path.join(proj, ".git", "*rf-attack*"))
        markers += glob.glob(os.path.join(proj, ".git", "hooks", "*rf-attack*"))
        if markers:
            problems.append(f"marker files left on the host: {markers}")
            for m in markers:
                try:
                    os.unlink(m)
                except OSError:
                    pass
        if digest_tree(os.path.join(proj, ".git")) != before["git"]:
            problems.append(".git (config or hooks) changed on the host")
        if digest_tree(proj + "/.env") != before["env"]:
            problems.append(".env changed on the host")
        return results, problems, summary, err


def judge(runner, case, results, problems):
    """Returns (failures, known, unprotected)."""
    fails, known, unprotected = list(problems), [], []
    for aid in runner.protects:
        if aid not in results:
            fails.append(f"{aid}: no result")
    for aid, r in results.items():
        prot = runner.protects.get(aid, set())
        outcome = r["outcome"]
        if case.level in prot:
            if outcome == "succeeded":
                why = hole_for(aid, case)
                if why:
                    known.append(f"{aid}: {r['detail'][:160]}")
                else:
                    fails.append(f"{aid} SUCCEEDED ({r['title']}): {r['detail'][:400]}")
            elif outcome == "skipped":
                d = r["detail"]
                if not d or d.startswith("timed out") or "crashed" in d or "gave no result" in d:
                    fails.append(f"{aid} undecided: {d[:200]}")
        elif outcome == "succeeded":
            unprotected.append(aid)
    return fails, known, unprotected


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--inner":
        return inner_main(sys.argv[2:])
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    known_mode = "--closed-holes" in sys.argv
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1]
        args.remove(only)
    if len(args) != 3:
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: needs root (it makes the fixture, the host canaries and runs as 65534 too)")
        return 77
    ringfence, attack, jail = stage(*args)
    runner = Runner(ringfence, attack, jail)
    failed = []
    try:
        for n in runner.canaries.notes:
            print("note:", n)
        if known_mode:
            return known_holes(runner)
        for case in cases():
            if only and only not in case.name:
                continue
            t0 = time.monotonic()
            results, problems, summary, _ = runner.run(case)
            fails, known, unprotected = judge(runner, case, results, problems)
            counts = {o: sum(1 for r in results.values() if r["outcome"] == o)
                      for o in ("blocked", "succeeded", "skipped")}
            status = "FAIL" if fails else "PASS"
            print(f"{status} {case.name} ({time.monotonic() - t0:.1f}s): {len(results)} attacks, "
                  f"{counts['blocked']} blocked, {counts['succeeded']} succeeded, {counts['skipped']} skipped; "
                  f"fixture {summary}", flush=True)
            if case.use_pty and "TTY-01" in results:
                print(f"  TTY-01 on a pty: {results['TTY-01']['outcome']}: {results['TTY-01']['detail'][:120]}")
            if unprotected:
                print(f"  not protected at {case.level} (listed, not a pass): {' '.join(sorted(unprotected))}")
            for k in known:
                print(f"  KNOWN HOLE {k}")
            for f in fails:
                print(f"  {f}")
            if fails:
                failed.append(case.name)
    finally:
        runner.cleanup()
    print(f"\n{len(failed)} case(s) failed" + (": " + "; ".join(failed) if failed else ""))
    return 1 if failed else 0


def known_holes(runner):
    """Assert that the holes found so far are closed (and stay closed)."""
    still = []
    for case in cases():
        ids = [aid for aid in KNOWN_HOLES if KNOWN_HOLES[aid][0](case)]
        if not ids or case.use_pty:
            continue
        results, problems, _, _ = runner.run(case, ids=ids)
        for aid in ids:
            r = results.get(aid)
            if r is None or r["outcome"] == "succeeded":
                still.append(f"[{case.name}] {aid}: {KNOWN_HOLES[aid][1]} -- observed: "
                             f"{(r or {}).get('detail', 'no result')[:200]}")
    for user in ("root", "unpriv"):
        case = Case("kernel", user)
        results, _, _, _ = runner.run(case, ids=["S-02", "ENV-03"], argv_token=True)
        for aid in ("S-02", "ENV-03"):
            r = results.get(aid, {})
            if r.get("outcome") != "blocked":
                still.append(f"[{case.name}, token in the launcher's argv] {aid}: {ARGV_HOLE} -- observed: "
                             f"{r.get('detail', 'no result')[:200]}")
    for s in still:
        print("OPEN", s)
    print(f"{len(still)} hole(s) open")
    return 1 if still else 0


if __name__ == "__main__":
    sys.exit(main())
