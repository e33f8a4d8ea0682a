# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared harness for ringfence's integration and compat suites (python3 stdlib only).

What it owns: locating the binary under test and the probe, running a bwrap command line as root
or as the unprivileged user (setpriv 65534), with a timeout that kills the whole process group,
and the post-case hygiene checks (no stray mounts in the caller's mount namespace, no surviving
sandbox processes, temp dirs removed).

Binary under test:
  RF_BWRAP=/path/to/a/bwrap   run that binary directly as bwrap (harness self-check with
                              /usr/bin/bwrap, or a `bwrap` hard link to ringfence)
  otherwise                   `RINGFENCE bwrap ARGS...`, RINGFENCE from --ringfence / RF_RINGFENCE
Probe: --probe / RF_PROBE.
"""

import argparse
import ctypes
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

NOBODY = 65534
SETPRIV = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
DEFAULT_TIMEOUT = 20
MAX_TIMEOUTS = 3      # after this many hung runs the remaining runs fail at once
SKIP = 77

# A fixed, small environment for every launch so outputs do not depend on the caller's shell.
BASE_ENV = {
    "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/nonexistent-rf-home",
    "LANG": "C",
    "RF_TEST_MARK": "1",
}


class TestFailure(AssertionError):
    pass


class Skip(Exception):
    pass


def fail(msg):
    raise TestFailure(msg)


def check(cond, msg):
    if not cond:
        fail(msg)


def require_program(path, package, purpose):
    """A program a case needs: missing, the case fails and names what to install (never a
    silent skip: tools/install-deps installs every program the suites run)."""
    if not os.access(path, os.X_OK):
        fail(f"{path} is missing, needed for {purpose}: install {package} (tools/install-deps "
             "installs everything the suites run)")


def check_eq(observed, expected, what):
    if observed != expected:
        fail(f"{what}: expected {expected!r}, observed {observed!r}")


# ------------------------------------------------------------------------------------------------
# Host state snapshots


def host_mountinfo():
    with open("/proc/self/mountinfo") as f:
        return set(f.read().splitlines())


def _unescape_mountinfo(field):
    """mountinfo writes space, tab, newline and backslash as \\ooo octal escapes."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def host_mount_root(path):
    """What /proc/self/mountinfo's root field must say for a bind of the host's path: the root
    of the host mount that holds path, joined with path's place below that mount point. On an
    ordinary host this is path itself; where the host's / is a bind of a subdirectory (a
    container, a pivot_root'ed machine) it is that subdirectory's path, and so on."""
    path = os.path.realpath(path)
    best = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            root, mnt = _unescape_mountinfo(fields[3]), _unescape_mountinfo(fields[4])
            inside = path == mnt or mnt == "/" or path.startswith(mnt.rstrip("/") + "/")
            # the last mount at the longest matching point is the one on top
            if inside and (best is None or len(mnt) >= len(best[1])):
                best = (root, mnt)
    if best is None:
        fail(f"no host mount holds {path}")
    root, mnt = best
    rest = os.path.relpath(path, mnt)
    return root if rest == "." else os.path.normpath(os.path.join(root, rest))


def processes_matching(token):
    """Host pids whose command line mentions token (excluding this process)."""
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
        if token.encode() in cmd:
            found.append((int(d), cmd.replace(b"\0", b" ").decode(errors="replace").strip()))
    return found


def kill_pids(pids):
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def userns_available():
    """(bool, reason): can the unprivileged user create a user namespace?"""
    if not os.path.exists("/proc/self/ns/user"):
        return False, "kernel has no user namespaces (/proc/self/ns/user missing)"
    try:
        with open("/proc/sys/user/max_user_namespaces") as f:
            if int(f.read().strip() or "0") == 0:
                return False, "user.max_user_namespaces is 0"
    except OSError:
        pass
    try:
        r = subprocess.run(SETPRIV + ["unshare", "--user", "true"], capture_output=True,
                           timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"cannot run setpriv/unshare: {e}"
    if r.returncode != 0:
        return False, ("unprivileged user namespaces are unavailable: unshare --user as uid "
                       f"{NOBODY} failed: {r.stderr.decode(errors='replace').strip()}")
    return True, ""


def world_traversable(path):
    """True if uid 65534 can reach and execute path (every parent o+x, file o+rx)."""
    path = os.path.realpath(path)
    st = os.stat(path)
    if (st.st_mode & 0o005) != 0o005:
        return False
    d = os.path.dirname(path)
    while True:
        st = os.stat(d)
        if not st.st_mode & 0o001:
            return False
        if d == "/":
            return True
        d = os.path.dirname(d)


_STAGE = {"dir": None}


def _stage_dir():
    """A private directory under the temporary directory, mode 0755, owned by root: every
    test user can reach and execute what is in it, none can change it. Removed at exit (meson
    ends a test that runs over its time with SIGTERM, which then exits the same way)."""
    if _STAGE["dir"] is None:
        import atexit
        parent = tempfile.gettempdir()
        if not world_traversable_dir(parent):
            parent = "/tmp"
        d = tempfile.mkdtemp(prefix="rf-stage-", dir=parent)
        os.chmod(d, 0o755)
        if not world_traversable_dir(d):
            shutil.rmtree(d, ignore_errors=True)
            raise SystemExit(f"cannot stage test programs: {d} is not reachable by uid {NOBODY} "
                             "(a parent directory lacks o+x); set TMPDIR to a directory that is")
        _STAGE["dir"] = d
        atexit.register(shutil.rmtree, d, True)
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    return _STAGE["dir"]


def stage(*paths):
    """Copies of build artefacts (the binary under test, helpers, attack programs) that an
    unprivileged case can execute, wherever the build directory lies and whatever its
    permissions: a checkout under /root (mode 0700) is unreachable for uid 65534. Returns
    the copies' absolute paths in the order given; a file is copied once per test program."""
    d = _stage_dir()
    copies = _STAGE.setdefault("copies", {})   # source -> copy
    out = []
    for p in paths:
        src = os.path.realpath(p)
        if not os.path.isfile(src):
            raise SystemExit(f"cannot stage {p}: no such file")
        if src not in copies:
            name = os.path.basename(src)
            dst, n = os.path.join(d, name), 1
            while os.path.exists(dst):       # two sources with one name
                n += 1
                dst = os.path.join(d, f"{n}-{name}")
            shutil.copy2(src, dst)
            os.chmod(dst, 0o755)
            copies[src] = dst
        out.append(copies[src])
    return out


def world_traversable_dir(path):
    """True if uid 65534 can reach path (the directory and every parent have o+x)."""
    d = os.path.realpath(path)
    while True:
        if not os.stat(d).st_mode & 0o001:
            return False
        if d == "/":
            return True
        d = os.path.dirname(d)


class Swapper:
    """A host thread that keeps exchanging two names, `path` and `other`, through a third,
    `parked` (rename path->parked, other->path, then back), 1 ms in each state, until stop():
    a race against a sandbox that looks at `path` while it starts. `swaps` counts full rounds."""

    def __init__(self, path, other, parked):
        import threading
        self.path, self.other, self.parked = path, other, parked
        self.swaps = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                os.rename(self.path, self.parked)
                os.rename(self.other, self.path)
                time.sleep(0.001)
                os.rename(self.path, self.other)
                os.rename(self.parked, self.path)
                self.swaps += 1
                time.sleep(0.001)
            except OSError:
                pass

    def stop(self):
        self._stop.set()
        self._thread.join()


def make_private_mount_ns():
    """Move this (single-threaded) process into a private mount namespace (root only)."""
    libc = ctypes.CDLL(None, use_errno=True)
    CLONE_NEWNS = 0x00020000
    MS_REC, MS_PRIVATE = 0x4000, 0x40000
    if libc.unshare(CLONE_NEWNS) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"unshare(CLONE_NEWNS): {os.strerror(e)}")
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"mount --make-rprivate /: {os.strerror(e)}")


def mount_tmpfs(target, options="size=1m"):
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "rf-test-submount", target],
                   check=True, timeout=10)


def host_ns():
    """Inode numbers of this process's namespaces (the 'host' the sandbox is compared with)."""
    out = {}
    for n in ("cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"):
        try:
            out[n] = os.stat(f"/proc/self/ns/{n}").st_ino
        except OSError:
            out[n] = None
    return out


def host_caps():
    caps = {}
    with open("/proc/self/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k.startswith("Cap"):
                caps[k[3:].lower()] = int(v.strip(), 16)
    return caps


def last_cap():
    with open("/proc/sys/kernel/cap_last_cap") as f:
        return int(f.read())


def all_caps_mask():
    return (1 << (last_cap() + 1)) - 1


def caps_of(j):
    """The probe's caps as ints: {'eff': .., 'prm': .., 'inh': .., 'bnd': .., 'amb': ..}."""
    return {k: int(v, 16) for k, v in j["caps"].items() if k != "last_cap"}


def mounts_at(j, mnt):
    return [m for m in j["mounts"] if m["mnt"] == mnt]


def mount_at(j, mnt):
    ms = mounts_at(j, mnt)
    if len(ms) != 1:
        fail(f"expected exactly one mount at {mnt}, found {len(ms)}: {ms}")
    return ms[0]


# ------------------------------------------------------------------------------------------------
# Targets


class Result:
    def __init__(self, argv, rc, out, err, pid, duration):
        self.argv = argv
        self.rc = rc
        self.out = out
        self.err = err
        self.pid = pid
        self.duration = duration

    @property
    def stdout(self):
        return self.out.decode(errors="replace")

    @property
    def stderr(self):
        return self.err.decode(errors="replace")

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError:
            fail(f"probe printed no JSON (exit {self.rc}); stdout={self.stdout!r} "
                 f"stderr={self.stderr!r}")

    def describe(self):
        return (f"argv={' '.join(self.argv)}\n  exit={self.rc}\n  stdout={self.stdout[:2000]!r}"
                f"\n  stderr={self.stderr[:2000]!r}")


class Harness:
    """Paths, the per-process token and the temp area shared by all cases of one test program."""

    def __init__(self, ringfence=None, probe=None):
        self.bwrap_override = os.environ.get("RF_BWRAP") or None
        self.ringfence = ringfence or os.environ.get("RF_RINGFENCE")
        probe = probe or os.environ.get("RF_PROBE")
        if not self.bwrap_override and not self.ringfence:
            raise SystemExit("no binary under test: pass --ringfence PATH or set RF_BWRAP")
        if not probe:
            raise SystemExit("no probe: pass --probe PATH or set RF_PROBE")
        self.token = "rft" + secrets.token_hex(5)
        self.root = tempfile.mkdtemp(prefix=f"{self.token}-")
        os.chmod(self.root, 0o755)
        # The probe is copied into a 0755 dir that every sandbox mounts read-only at PROBE_DIR.
        self.probe_host_dir = os.path.join(self.root, "bin")
        os.mkdir(self.probe_host_dir, 0o755)
        shutil.copy2(probe, os.path.join(self.probe_host_dir, "probe"))
        os.chmod(os.path.join(self.probe_host_dir, "probe"), 0o755)
        self.probe_dir = f"/{self.token}"
        self.probe = f"{self.probe_dir}/probe"
        self.host_probe = os.path.join(self.probe_host_dir, "probe")
        self.link_dir = os.path.join(self.root, "link")
        os.mkdir(self.link_dir, 0o755)
        self.work = os.path.join(self.root, "work")
        os.mkdir(self.work, 0o755)
        target = self.bwrap_override or self.ringfence
        self.target = os.path.abspath(target)
        # Always a copy in our own 0755 tree, so an unprivileged case runs it wherever the
        # build directory lies (a checkout under /root is mode 0700 on a fresh system).
        # /usr/bin/bwrap itself (the harness self-check) is run where it is.
        if not self.target.startswith("/usr/"):
            copy_dir = os.path.join(self.root, "target")
            os.mkdir(copy_dir, 0o755)
            dst = os.path.join(copy_dir, os.path.basename(self.target))
            shutil.copy2(self.target, dst)
            os.chmod(dst, 0o755)
            self.target = dst
        # A hard link named `bwrap` to the binary under test (copy if linking is impossible).
        self.link = os.path.join(self.link_dir, "bwrap")
        try:
            os.link(self.target, self.link)
        except OSError:
            shutil.copy2(self.target, self.link)
            os.chmod(self.link, 0o755)
        self._tmp_counter = 0
        self._version = None
        self.timeouts = 0

    def cleanup(self):
        kill_pids([p for p, _ in processes_matching(self.token)])
        # mounts a test planted under our temp area (private mount namespaces only)
        with open("/proc/self/mountinfo") as f:
            points = [line.split()[4] for line in f]
        for p in sorted((p for p in points if p.startswith(self.root + "/")), key=len,
                        reverse=True):
            subprocess.run(["umount", "-l", p], capture_output=True, timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)

    def describe(self):
        if self.bwrap_override:
            return f"binary under test: {self.bwrap_override} (run directly as bwrap)"
        return f"binary under test: {self.ringfence} (as '{self.ringfence} bwrap ...')"

    def invocation(self, form="default"):
        """argv prefix for one way of invoking the binary under test.

        default: ringfence's subcommand form (or RF_BWRAP directly); link: the hard link named
        bwrap; reference: Debian's /usr/bin/bwrap."""
        if form == "reference":
            return ["/usr/bin/bwrap"]
        if form == "link":
            return [self.link]
        if self.bwrap_override:
            return [self.target]
        return [self.target, "bwrap"]

    def version(self):
        """(major, minor, micro) that the binary under test reports with --version."""
        if self._version is None:
            r = subprocess.run(self.invocation() + ["--version"], capture_output=True, timeout=10)
            m = re.match(rb"bubblewrap (\d+)\.(\d+)\.(\d+)", r.stdout)
            self._version = tuple(int(x) for x in m.groups()) if m else (0, 0, 0)
        return self._version

    def mkdtemp(self, owner=None, mode=0o755):
        self._tmp_counter += 1
        d = os.path.join(self.work, f"t{self._tmp_counter}")
        os.mkdir(d)
        os.chmod(d, mode)
        if owner is not None:
            os.chown(d, owner, owner)
        return d

    def probe_bind(self):
        return ["--ro-bind", self.probe_host_dir, self.probe_dir]

    def minimal_root(self, unshare_all=True):
        args = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
                "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        if unshare_all:
            args.append("--unshare-all")
        return args + self.probe_bind()

    def run(self, args, user="root", form="default", pass_fds=(), stdin=subprocess.DEVNULL,
            timeout=DEFAULT_TIMEOUT, cwd=None, env=None, input=None, new_session=True,
            umask=-1):
        """Run one command line; on timeout the whole process group is killed and the case
        fails."""
        argv = self.invocation(form) + list(args)
        full = (SETPRIV if user == "unpriv" else []) + argv
        if self.timeouts >= MAX_TIMEOUTS and form != "reference":
            fail(f"not run: the binary under test already hung {self.timeouts} times "
                 f"(each killed after {timeout}s): {' '.join(full)}")
        e = dict(BASE_ENV)
        if env is not None:
            e = dict(env)
        start = time.monotonic()
        if input is not None:
            stdin = subprocess.PIPE
        p = subprocess.Popen(full, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             pass_fds=pass_fds, cwd=cwd or self.work, env=e,
                             start_new_session=new_session, umask=umask)
        try:
            out, err = p.communicate(input=input, timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.kill()
            out, err = p.communicate()
            kill_pids([q for q, _ in processes_matching(self.token)])
            if form != "reference":
                self.timeouts += 1
            fail(f"timed out after {timeout}s: {' '.join(full)}\n  stdout={out[:500]!r}\n"
                 f"  stderr={err[:500]!r}")
        return Result(full, p.returncode, out, err, p.pid, time.monotonic() - start)

    def spawn(self, args, user="root", form="default", pass_fds=(), wrapper=None, env=None):
        """Start a command line without waiting (stdout/stderr to files in the work dir).
        wrapper: argv placed before the launcher (after setpriv), e.g. a shell that forks it."""
        argv = self.invocation(form) + list(args)
        full = (SETPRIV if user == "unpriv" else []) + (wrapper or []) + argv
        e = dict(BASE_ENV) if env is None else dict(env)
        self._tmp_counter += 1
        out = open(os.path.join(self.work, f"spawn{self._tmp_counter}.out"), "wb")
        err = open(os.path.join(self.work, f"spawn{self._tmp_counter}.err"), "wb")
        p = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                             pass_fds=pass_fds, cwd=self.work, env=e, start_new_session=True)
        out.close()
        err.close()
        p.out_path = out.name
        p.err_path = err.name
        return p

    def sandboxed(self, subcommand):
        """Host pids of probes started in a sandbox as `PROBE SUBCOMMAND ...`."""
        prefix = f"{self.probe}\0{subcommand}\0".encode()
        pids = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if f.read().startswith(prefix):
                        pids.append(int(d))
            except OSError:
                pass
        return pids

    def wait_for(self, pred, timeout=5.0, interval=0.02):
        deadline = time.monotonic() + timeout
        while True:
            v = pred()
            if v or time.monotonic() > deadline:
                return v
            time.sleep(interval)

    def wait_no_leftovers(self, timeout=3.0):
        """Wait for every process mentioning our token to be gone; returns the survivors."""
        deadline = time.monotonic() + timeout
        while True:
            left = processes_matching(self.token)
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.05)


# ------------------------------------------------------------------------------------------------
# Test runner


class Case:
    def __init__(self, fn, users, name, min_version):
        self.fn = fn
        self.users = users
        self.name = name
        self.min_version = min_version


class Context:
    """What a case gets: the harness, the user it runs as, and shortcuts."""

    def __init__(self, h, user):
        self.h = h
        self.user = user
        self.uid = NOBODY if user == "unpriv" else 0

    @property
    def unpriv(self):
        return self.user == "unpriv"

    def run(self, args, **kw):
        kw.setdefault("user", self.user)
        return self.h.run(args, **kw)

    def probe(self, extra_args, probe_args, root=None, **kw):
        """Run the probe in a sandbox: ROOT (default: minimal root) + extra + probe ARGS."""
        base = self.h.minimal_root() if root is None else root
        return self.run(base + list(extra_args) + ["--", self.h.probe] + list(probe_args), **kw)

    def probe_json(self, extra_args=(), paths=(), root=None, expect_rc=0, **kw):
        r = self.probe(extra_args, ["json"] + list(paths), root=root, **kw)
        if r.rc != expect_rc:
            fail(f"expected exit {expect_rc}\n  {r.describe()}")
        return r.json()

    def mkdtemp(self, owned=True, mode=0o755):
        return self.h.mkdtemp(owner=self.uid if owned else None, mode=mode)


class Suite:
    def __init__(self, name):
        self.name = name
        self.cases = []

    def case(self, users=("root", "unpriv"), name=None, min_version=None):
        """Register a case. min_version: behaviour that first appeared in that bubblewrap
        release (ringfence targets 0.11.1); the case is skipped, saying so, when the binary
        under test reports an older version (e.g. Debian's bwrap 0.8.0 in a self-check)."""
        def deco(fn):
            self.cases.append(Case(fn, users, name or fn.__name__, min_version))
            return fn
        return deco

    def main(self, argv=None, setup=None, private_mount_ns=True):
        ap = argparse.ArgumentParser(description=f"ringfence {self.name} tests")
        ap.add_argument("--ringfence", help="ringfence binary (else RF_RINGFENCE)")
        ap.add_argument("--probe", help="probe binary (else RF_PROBE)")
        ap.add_argument("--user", choices=["root", "unpriv"], action="append",
                        help="only run as this user (repeatable)")
        ap.add_argument("-k", dest="filter", help="only cases whose name contains this")
        ap.add_argument("--list", action="store_true")
        ap.add_argument("positional", nargs="*", help="[ringfence] [probe] (meson passes these)")
        a = ap.parse_args(argv)
        if a.positional:
            a.ringfence = a.ringfence or a.positional[0]
            if len(a.positional) > 1:
                a.probe = a.probe or a.positional[1]
        if a.list:
            for c in self.cases:
                print(c.name, ",".join(c.users))
            return 0
        if os.geteuid() != 0:
            print(f"SKIP: the {self.name} tests must run as root (they also switch to uid "
                  f"{NOBODY} themselves)")
            return SKIP
        users = a.user or ["root", "unpriv"]
        ok, why = userns_available()
        if not ok:
            print(f"note: {why}; unprivileged cases are skipped")
            users = [u for u in users if u != "unpriv"]
            if not users:
                print(f"SKIP: {why}")
                return SKIP
        if private_mount_ns:
            # Each test program runs in a private mount namespace of its own: mounts it plants
            # (submounts under bind sources) cannot reach the real host table, and unrelated
            # mount activity on the machine cannot disturb the hygiene check, which compares
            # this namespace's table (the launcher's caller's) before and after each case.
            make_private_mount_ns()
        h = Harness(a.ringfence, a.probe)
        print(f"{self.name}: {h.describe()}; token {h.token}")
        # meson's timeout sends SIGTERM: still kill our sandboxes and remove the temp area
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
        if setup:
            setup(h)
        passed, failed, skipped = [], [], []
        try:
            for user in users:
                for c in self.cases:
                    if user not in c.users:
                        continue
                    if a.filter and a.filter not in c.name:
                        continue
                    label = f"{c.name}[{user}]"
                    ctx = Context(h, user)
                    before = host_mountinfo()
                    t0 = time.monotonic()
                    status, detail = "PASS", ""
                    try:
                        if c.min_version and h.version() < c.min_version:
                            raise Skip("needs bubblewrap >= " + ".".join(map(str, c.min_version))
                                       + ", the binary under test reports "
                                       + ".".join(map(str, h.version())))
                        c.fn(ctx)
                    except Skip as e:
                        status, detail = "SKIP", str(e)
                    except TestFailure as e:
                        status, detail = "FAIL", str(e)
                    except Exception:
                        status, detail = "FAIL", traceback.format_exc()
                    # Hygiene after every case: no survivors, no mounts left in our namespace.
                    left = h.wait_no_leftovers()
                    if left:
                        kill_pids([p for p, _ in left])
                        if status != "FAIL":
                            status = "FAIL"
                        detail += "\n  leftover processes after the case: " + "; ".join(
                            f"{p}: {c_}" for p, c_ in left)
                    after = host_mountinfo()
                    if after != before:
                        status = "FAIL"
                        detail += ("\n  host mount table changed:\n    added: "
                                   + "\n    added: ".join(sorted(after - before))
                                   + "\n    removed: " + "\n    removed: ".join(
                                       sorted(before - after)))
                    dt = time.monotonic() - t0
                    line = f"{status} {label} ({dt:.2f}s)"
                    if detail.strip():
                        line += "\n  " + detail.strip().replace("\n", "\n  ")
                    print(line, flush=True)
                    {"PASS": passed, "FAIL": failed, "SKIP": skipped}[status].append(label)
        finally:
            h.cleanup()
        print(f"\n{self.name}: {len(passed)} passed, {len(failed)} failed, "
              f"{len(skipped)} skipped")
        if failed:
            print("failed: " + ", ".join(failed))
            return 1
        if not passed and skipped:
            return SKIP
        return 0


# ------------------------------------------------------------------------------------------------
# Classic BPF for --seccomp / --add-seccomp-fd, written by hand (struct sock_filter is
# {u16 code; u8 jt; u8 jf; u32 k}).

SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
_BPF_LD_W_ABS = 0x20
_BPF_JEQ_K = 0x15
_BPF_RET_K = 0x06
_ARCH = {
    # machine: (AUDIT_ARCH_*, {name: nr})
    "x86_64": (0xC000003E, {"getpgid": 121, "getsid": 124, "getppid": 110}),
    "aarch64": (0xC00000B7, {"getpgid": 155, "getsid": 156, "getppid": 173}),
}


def seccomp_supported_arch():
    return os.uname().machine in _ARCH


def bpf_filter(errno_rules=None):
    """A filter returning ERRNO(e) for the named syscalls ({name: errno}) and ALLOW otherwise
    (other architectures are allowed untouched)."""
    import struct
    arch, nrs = _ARCH[os.uname().machine]

    def stmt(code, k):
        return struct.pack("=HBBI", code, 0, 0, k)

    def jump(code, k, jt, jf):
        return struct.pack("=HBBI", code, jt, jf, k)

    prog = [stmt(_BPF_LD_W_ABS, 4), jump(_BPF_JEQ_K, arch, 1, 0), stmt(_BPF_RET_K,
                                                                      SECCOMP_RET_ALLOW),
            stmt(_BPF_LD_W_ABS, 0)]
    for name, err in (errno_rules or {}).items():
        prog.append(jump(_BPF_JEQ_K, nrs[name], 0, 1))
        prog.append(stmt(_BPF_RET_K, SECCOMP_RET_ERRNO | err))
    prog.append(stmt(_BPF_RET_K, SECCOMP_RET_ALLOW))
    return b"".join(prog)


def fd_with_data(data, num):
    """Put data in a memfd at descriptor number num (position 0); the caller closes num."""
    fd = os.memfd_create("rf-test-data", 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    if fd != num:
        os.dup2(fd, num, inheritable=True)
        os.close(fd)
    return num


# ------------------------------------------------------------------------------------------------
# Control descriptors and launchers that keep running while the test inspects them (--info-fd,
# --json-status-fd, --sync-fd, --block-fd, --userns-block-fd, --lock-file).

FIXED_FD_MIN = 60     # descriptor numbers handed to launchers; far above what python holds


def place_fd(fd, num):
    """Move fd to descriptor number num (inheritable); returns num."""
    if num < FIXED_FD_MIN:
        raise ValueError(f"fixed descriptors start at {FIXED_FD_MIN}")
    if fd != num:
        os.dup2(fd, num, inheritable=True)
        os.close(fd)
    else:
        os.set_inheritable(num, True)
    return num


class Pipe:
    """A pipe with one end at a fixed descriptor number for the launcher (its ‘inside’ end:
    "w" = the launcher writes, e.g. --info-fd; "r" = the launcher reads, e.g. --block-fd) and
    the other end kept by the test (non-inheritable)."""

    def __init__(self, num, inside="w"):
        r, w = os.pipe()
        check(r < FIXED_FD_MIN and w < FIXED_FD_MIN, f"pipe got descriptors {r},{w}")
        if inside == "w":
            self.num, self.ours = place_fd(w, num), r
        else:
            self.num, self.ours = place_fd(r, num), w
        self.inside = inside

    def close_inside(self):
        """After the launcher started: drop the test's copy of the launcher's end."""
        if self.num is not None:
            os.close(self.num)
            self.num = None

    def close(self):
        self.close_inside()
        if self.ours is not None:
            os.close(self.ours)
            self.ours = None

    def write(self, data):
        os.write(self.ours, data)

    def close_ours(self):
        if self.ours is not None:
            os.close(self.ours)
            self.ours = None

    def readable(self, timeout):
        import select
        r, _, _ = select.select([self.ours], [], [], timeout)
        return bool(r)

    def read_until(self, timeout, stop=None):
        """Read until EOF, or until stop(data) is true, or timeout. Returns (data, eof)."""
        import select
        data = b""
        deadline = time.monotonic() + timeout
        while True:
            if stop is not None and stop(data):
                return data, False
            left = deadline - time.monotonic()
            if left <= 0:
                return data, False
            r, _, _ = select.select([self.ours], [], [], left)
            if not r:
                continue
            chunk = os.read(self.ours, 65536)
            if not chunk:
                return data, True
            data += chunk

    def at_eof(self, timeout):
        """True if EOF arrives within timeout (any data read is discarded)."""
        _, eof = self.read_until(timeout)
        return eof


class Live:
    """A launcher running in the background (own session), stdin a pipe the test closes to
    release a `probe hold`, stdout/stderr in files. Always call cleanup() (kills what is left)."""

    def __init__(self, h, args, user="root", form="default", pass_fds=(), env=None):
        self.h = h
        argv = h.invocation(form) + list(args)
        self.argv = (SETPRIV if user == "unpriv" else []) + argv
        h._tmp_counter += 1
        self.out_path = os.path.join(h.work, f"live{h._tmp_counter}.out")
        self.err_path = os.path.join(h.work, f"live{h._tmp_counter}.err")
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.p = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=out, stderr=err,
                                      pass_fds=pass_fds, cwd=h.work,
                                      env=dict(BASE_ENV) if env is None else dict(env),
                                      start_new_session=True)
        self.rc = None

    @property
    def stdout(self):
        with open(self.out_path, "rb") as f:
            return f.read().decode(errors="replace")

    @property
    def stderr(self):
        with open(self.err_path, "rb") as f:
            return f.read().decode(errors="replace")

    def first_line(self, timeout=10.0):
        """The first complete stdout line (e.g. `probe hold`'s JSON), or None on timeout or
        when the launcher exits without printing one."""
        deadline = time.monotonic() + timeout
        while True:
            out = self.stdout
            if "\n" in out:
                return out.split("\n", 1)[0]
            if self.p.poll() is not None or time.monotonic() > deadline:
                out = self.stdout
                return out.split("\n", 1)[0] if "\n" in out else None
            time.sleep(0.01)

    def running(self):
        return self.p.poll() is None

    def release(self):
        """Close the launcher's stdin (ends a `probe hold`)."""
        if self.p.stdin and not self.p.stdin.closed:
            try:
                self.p.stdin.close()
            except OSError:
                pass

    def wait(self, timeout=DEFAULT_TIMEOUT):
        try:
            self.rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.cleanup()
            fail(f"launcher still running after {timeout}s: {' '.join(self.argv)}\n"
                 f"  stdout={self.stdout[:500]!r}\n  stderr={self.stderr[:500]!r}")
        return self.rc

    def cleanup(self):
        """Release, then kill the launcher's process group (what is left of the sandbox in
        it too) and reap the launcher."""
        self.release()
        # killpg only while the leader is unreaped: after that its pid (the group's id) may
        # belong to another test's process group, whose sandbox would be killed instead. What
        # is left of ours is found by our token.
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except OSError:
                pass
            self.p.kill()
            self.p.wait()
        kill_pids([q for q, _ in processes_matching(self.h.token)])

    def mask_stdio(self, fds):
        """A probe's `fds` map with this run's stdout/stderr file names replaced."""
        names = {self.out_path: "<stdout file>", self.err_path: "<stderr file>"}
        return {k: names.get(v, v) for k, v in fds.items()}


def pid_status(pid):
    """/proc/PID/status as a dict (None if the process is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return {k: v.strip() for k, _, v in (line.partition(":") for line in f)}
    except OSError:
        return None


def ns_inodes_of(pid):
    out = {}
    for n in ("cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"):
        try:
            out[n] = os.stat(f"/proc/{pid}/ns/{n}").st_ino
        except OSError:
            out[n] = None
    return out


class _Flock(ctypes.Structure):
    _fields_ = [("l_type", ctypes.c_short), ("l_whence", ctypes.c_short),
                ("l_start", ctypes.c_long), ("l_len", ctypes.c_long),
                ("l_pid", ctypes.c_int)]


_F_RDLCK, _F_WRLCK, _F_UNLCK = 0, 1, 2


def lock_holder(path):
    """(type, pid) of a POSIX record lock that would block a whole-file write lock on path,
    or (None, None). Uses F_GETLK through libc (python's fcntl cannot return the struct)."""
    import fcntl
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fl = _Flock(_F_WRLCK, os.SEEK_SET, 0, 0, 0)
        if libc.fcntl(fd, fcntl.F_GETLK, ctypes.byref(fl)) != 0:
            e = ctypes.get_errno()
            raise OSError(e, f"F_GETLK {path}: {os.strerror(e)}")
        if fl.l_type == _F_UNLCK:
            return None, None
        return ("read" if fl.l_type == _F_RDLCK else "write"), fl.l_pid
    finally:
        os.close(fd)


def try_lock(path, kind):
    """Try a non-blocking whole-file POSIX lock (kind "read"/"write") from this process and
    release it at once; returns "OK" or the errno name."""
    import errno as errno_mod
    import fcntl
    fd = os.open(path, (os.O_RDONLY if kind == "read" else os.O_RDWR) | os.O_CLOEXEC)
    try:
        fcntl.lockf(fd, (fcntl.LOCK_SH if kind == "read" else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return "OK"
    except OSError as e:
        return errno_mod.errorcode.get(e.errno, str(e.errno))
    finally:
        os.close(fd)
