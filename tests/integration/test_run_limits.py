#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""`ringfence run --limit`: memory, pids and cpu are enforced by a cgroup made for the sandbox
where this host has one to give (cgroup v2 delegated to the caller, or a writable v1 controller:
root on a v1 or hybrid host), and reported as not enforced where it has not. The group holds the
command and everything it starts, is emptied and removed at the end, and an out-of-memory kill
has its own exit code. Every case runs as root and as uid 65534; what each user can get is read
from the host the same way ringfence reads it, so the test knows which outcome to demand."""

import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import SETPRIV, Skip, Suite, check, check_eq, require_program  # noqa: E402

suite = Suite("integration-run-limits")
EXIT_MEMORY = 122


def own_groups():
    """controller -> this process's group directory, for cgroup v1 hierarchies and v2 ('')."""
    mounts = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            fields = left.split()
            fstype, _source, superopts = right.split()[:3]
            mounts.append((fields[3], fields[4], fstype, superopts.split(",")))
    out = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            hid, names, path = line.rstrip("\n").split(":", 2)
            for root, mnt, fstype, opts in mounts:
                if hid == "0" and fstype == "cgroup2":
                    key = ""
                elif fstype == "cgroup":
                    common = [n for n in names.split(",") if n in opts and n in ("memory", "pids", "cpu")]
                    if not common:
                        continue
                    key = common[0]
                else:
                    continue
                if root != "/" and not (path == root or path.startswith(root + "/")):
                    continue
                rest = path[len(root):] if root != "/" else path
                out[key] = mnt + (rest if rest != "/" else "")
                if fstype == "cgroup":
                    for n in names.split(","):
                        if n in opts:
                            out[n] = out[key]
                break
    return out


def v1_usable(controller, uid):
    d = own_groups().get(controller)
    if not d or not os.path.isdir(d):
        return None
    if uid == 0 or os.stat(d).st_uid == uid:
        return d
    return None


def v2_usable(controller, uid):
    d = own_groups().get("")
    if not d:
        return None
    try:
        with open(os.path.join(d, "cgroup.subtree_control")) as f:
            delegated = f.read().split()
        with open(os.path.join(d, "cgroup.controllers")) as f:
            offered = f.read().split()
    except OSError:
        return None
    if controller not in offered or (uid != 0 and os.stat(d).st_uid != uid):
        return None
    return d if controller in delegated else None


def usable(controller, uid):
    """The group ringfence would make its own under, or None (the host gives none to uid)."""
    return v2_usable(controller, uid) or v1_usable(controller, uid)


class Env:
    def __init__(self, ctx):
        self.ctx = ctx
        self.uid = 65534 if ctx.unpriv else 0
        self.project = ctx.mkdtemp()
        self.env = {"PATH": "/usr/bin:/bin", "HOME": ctx.mkdtemp(), "LANG": "C", "XDG_RUNTIME_DIR": ""}

    def argv(self, args):
        return (SETPRIV if self.ctx.unpriv else []) + [self.ctx.h.target, "run", "--no-profile"] + args

    def run(self, args, timeout=60):
        return subprocess.run(self.argv(args), capture_output=True, text=True, timeout=timeout,
                              cwd=self.project, env=self.env)

    def spawn(self, args):
        return subprocess.Popen(self.argv(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=self.project, env=self.env)


def sandbox_groups(parent):
    return sorted(n for n in os.listdir(parent) if n.startswith("ringfence-")) if parent else []


def ours(name, launcher):
    return name == f"ringfence-{launcher}" or name.startswith(f"ringfence-{launcher}-")


def read(path):
    with open(path) as f:
        return f.read().strip()


@suite.case()
def limits_reported(ctx):
    """--dry-run names what enforces each limit, or why it is not enforced."""
    e = Env(ctx)
    r = e.run(["--dry-run", "--limit", "memory=64M,pids=50,cpu=0.5,nofile=64", "--", "true"])
    check_eq(r.returncode, 0, f"dry run: {r.stderr}")
    out = r.stdout
    check("limit nofile: RLIMIT_NOFILE" in out, f"nofile is an rlimit: {out}")
    for c in ("memory", "cpu"):
        if usable(c, e.uid):
            check(f"limit {c}: the sandbox's cgroup" in out, f"{c} enforced by a cgroup: {out}")
        else:
            check(f"not enforced: {c} limit: not enforced:" in out, f"{c} reported as not enforced: {out}")
    if usable("pids", e.uid):
        check("limit pids: the sandbox's cgroup" in out, f"pids by the cgroup: {out}")
        check("RLIMIT_NPROC" not in out, f"no per-user RLIMIT_NPROC when the cgroup can count: {out}")
    else:
        check("limit pids: RLIMIT_NPROC" in out and "counts every process of the user" in out,
              f"pids falls back to RLIMIT_NPROC, said plainly: {out}")
    # The landlock and soft levels mount no tmpfs: --limit tmpfs is not enforced there, said.
    for level, where in (("landlock", "at the landlock level"), ("soft", "in the soft jail")):
        r = e.run(["--dry-run", "--level", level, "--limit", "tmpfs=8M", "--", "true"])
        check(f"tmpfs limit: not enforced {where}" in r.stdout, f"--level {level}: tmpfs limit said: {r.stdout}")
    r = e.run(["--dry-run", "--limit", "tmpfs=8M", "--", "true"])
    check("tmpfs limit: not enforced" not in r.stdout and "size=8M each (--limit tmpfs)" in r.stdout,
          f"kernel level: the tmpfs limit is enforced: {r.stdout}")


@suite.case()
def groups_written_joined_removed(ctx):
    """While the command runs, its group exists with the limits written and it is a member;
    afterwards the group is gone."""
    e = Env(ctx)
    parents = {c: usable(c, e.uid) for c in ("memory", "pids", "cpu")}
    if not any(parents.values()):
        raise Skip(f"no cgroup controller is usable by uid {e.uid} on this host")
    before = {c: sandbox_groups(p) for c, p in parents.items()}
    p = e.spawn(["--limit", "memory=96M,pids=40,cpu=0.5", "--", "sh", "-c", "cat /proc/self/cgroup; sleep 3"])
    try:
        launcher = p.pid if not ctx.unpriv else None
        seen = {}
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(seen) < sum(1 for v in parents.values() if v):
            for c, parent in parents.items():
                if not parent or c in seen:
                    continue
                # Other suites' sandboxes may come and go meanwhile: ours is named after its
                # launcher (setpriv execs it, so the pid is the same).
                new = [n for n in sandbox_groups(parent) if n not in before[c] and ours(n, p.pid)]
                if new:
                    seen[c] = os.path.join(parent, new[0])
            time.sleep(0.05)
        for c, parent in parents.items():
            if parent:
                check(c in seen, f"a group for the sandbox under {parent} ({c})")
        if launcher:
            for c, d in seen.items():
                check(os.path.basename(d).startswith(f"ringfence-{launcher}"), f"the group is named after the launcher: {d}")
        time.sleep(0.5)
        for c, d in seen.items():
            v2 = os.path.exists(os.path.join(d, "cgroup.controllers"))
            if c == "memory":
                check_eq(read(os.path.join(d, "memory.max" if v2 else "memory.limit_in_bytes")), str(96 << 20),
                         "memory limit written")
            if c == "pids":
                check_eq(read(os.path.join(d, "pids.max")), "40", "pids limit written")
            if c == "cpu":
                if v2:
                    check_eq(read(os.path.join(d, "cpu.max")), "50000 100000", "cpu.max written")
                else:
                    check_eq(read(os.path.join(d, "cpu.cfs_quota_us")), "50000", "cfs quota written")
                    check_eq(read(os.path.join(d, "cpu.cfs_period_us")), "100000", "cfs period written")
            members = read(os.path.join(d, "cgroup.procs")).split()
            check(len(members) >= 1, f"the sandbox's processes are in {d}: {members}")
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check_eq(p.returncode, 0, f"run exit code: {err}")
    check("ringfence-" in out, f"the command sees itself in the sandbox's group: {out!r}")
    for c, parent in parents.items():
        if parent:
            left = [n for n in sandbox_groups(parent) if ours(n, p.pid)]
            check_eq(left, [], f"the {c} group is removed after the run")


@suite.case()
def memory_limit_kills(ctx):
    """A command that needs more than the limit is killed inside its group, ringfence says so
    and exits 122; the launcher survives to report it."""
    e = Env(ctx)
    if not usable("memory", e.uid):
        raise Skip(f"the memory controller is not usable by uid {e.uid} here")
    # tail keeps the last lines in memory, and zeros hold no newline: 400 MiB against 48 MiB.
    for jail in ([], ["--fs-jail", "off"]):
        r = e.run(jail + ["--limit", "memory=48M", "--", "sh", "-c", "head -c 400M /dev/zero | tail >/dev/null && echo survived"])
        check_eq(r.returncode, EXIT_MEMORY, f"out of memory exit code {jail}: {r.stdout!r} {r.stderr!r}")
        check("survived" not in r.stdout, "the allocation did not succeed")
        check("memory limit was reached" in r.stderr, f"the message says why: {r.stderr!r}")
        r = e.run(jail + ["--limit", "memory=48M", "--", "sh", "-c", "head -c 8M /dev/zero | tail >/dev/null && echo fine"])
        check_eq((r.returncode, r.stdout.strip()), (0, "fine"), f"within the limit it runs: {r.stderr!r}")


@suite.case()
def pids_limit_counts_the_sandbox(ctx):
    """pids.max bounds the sandbox's tasks (a fork loop stops at it), while the caller, same
    user, still forks freely; with only RLIMIT_NPROC, the test says which one was used."""
    e = Env(ctx)
    if not usable("pids", e.uid):
        raise Skip(f"the pids controller is not usable by uid {e.uid} here")
    # Each `(sleep 5 &)` leaves one sleep behind; a refused fork makes the subshell fail.
    script = ('n=0; while [ $n -lt 60 ]; do (sleep 5 &) 2>/dev/null || break; n=$((n+1)); done; '
              'echo started=$n; echo done')
    for jail in ([], ["--fs-jail", "off"]):
        result = {}

        def host_forks():
            ok = 0
            for _ in range(20):
                ok += subprocess.run((SETPRIV if ctx.unpriv else []) + ["true"]).returncode == 0
            result["ok"] = ok

        t = threading.Thread(target=host_forks)
        r = e.run(jail + ["--limit", "pids=12", "--", "sh", "-c", script], timeout=60)
        t.start()
        t.join()
        check("done" in r.stdout, f"the sandbox ran to the end {jail}: {r.stdout!r} {r.stderr!r}")
        started = int(r.stdout.split("started=")[1].split()[0]) if "started=" in r.stdout else -1
        check(0 <= started < 12, f"the fork loop stopped at the limit {jail} (started {started})")
        check_eq(result["ok"], 20, "the same user outside the sandbox still forks")


@suite.case()
def escaped_process_killed_with_the_group(ctx):
    """In the soft jail a process that leaves the process tree (setsid, double fork) is still in
    the group, and dies with it."""
    e = Env(ctx)
    if not usable("pids", e.uid) and not usable("memory", e.uid):
        raise Skip(f"no usable controller for uid {e.uid}")
    mark = f"{ctx.h.token}-cg-escape"
    which = "pids=64" if usable("pids", e.uid) else "memory=256M"
    r = e.run(["--fs-jail", "off", "--limit", which, "--", "sh", "-c",
               f"setsid sh -c '(exec -a {mark} sleep 60) &' ; sleep 0.3; echo ok"])
    check_eq(r.returncode, 0, f"run: {r.stderr!r}")
    time.sleep(0.3)
    left = subprocess.run(["pgrep", "-f", mark], capture_output=True, text=True).stdout.split()
    for pid in left:
        try:
            os.kill(int(pid), 9)
        except OSError:
            pass
    check_eq(left, [], "nothing of the sandbox survives, even outside its process tree")


DEFAULT_PIDS = 4096  # balanced's bound (docs/run.md)
HARDENED_PIDS = 512


def per_pidns_pid_max():
    """Linux 6.14 made kernel.pid_max a PID namespace's own: the preset's bound is then set there."""
    try:
        major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (6, 14)


def host_pid_max():
    return read("/proc/sys/kernel/pid_max")


@suite.case()
def default_pids_bound(ctx):
    """Without --limit the default preset bounds the sandbox's tasks at the documented value:
    pids.max of its own group where the host gives one, else RLIMIT_NPROC in its user namespace
    (uid 65534) ; the dry run says which."""
    e = Env(ctx)
    r = e.run(["--dry-run", "--", "true"])
    check_eq(r.returncode, 0, f"dry run: {r.stderr}")
    check(f"pids={DEFAULT_PIDS}" in r.stdout, f"the preset's limits show the bound: {r.stdout}")
    if per_pidns_pid_max():
        check(f"limit pids: the PID namespace's pid_max ({DEFAULT_PIDS} tasks always, at most "
              f"{DEFAULT_PIDS + 299} at once)" in r.stdout, f"enforced by pid_max: {r.stdout}")
        r = e.run(["--", "cat", "/proc/sys/kernel/pid_max"])
        check_eq((r.returncode, r.stdout.strip()), (0, str(DEFAULT_PIDS + 300)), f"pid_max inside: {r.stderr}")
        return
    parent = usable("pids", e.uid)
    if parent:
        check("limit pids: the sandbox's cgroup" in r.stdout, f"enforced by the cgroup: {r.stdout}")
    elif e.uid != 0:
        check("limit pids: RLIMIT_NPROC in the sandbox's user namespace" in r.stdout,
              f"enforced by RLIMIT_NPROC: {r.stdout}")
    else:
        raise Skip("root without a usable pids controller: the dry run says it is not enforced")
    before = sandbox_groups(parent)
    p = e.spawn(["--", "python3", "-c", "import resource, time; "
                 "print(resource.getrlimit(resource.RLIMIT_NPROC)[0], flush=True); time.sleep(2)"])
    try:
        seen = None
        deadline = time.monotonic() + 10
        while parent and seen is None and time.monotonic() < deadline:
            new = [n for n in sandbox_groups(parent) if n not in before and ours(n, p.pid)]
            if new:
                seen = os.path.join(parent, new[0])
            time.sleep(0.05)
        if parent:
            check(seen is not None, f"a pids group for the sandbox under {parent}")
            time.sleep(0.3)
            check_eq(read(os.path.join(seen, "pids.max")), str(DEFAULT_PIDS), "pids.max of the sandbox's group")
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check_eq(p.returncode, 0, f"run: {err}")
    if not parent:
        check_eq(out.strip(), str(DEFAULT_PIDS), "RLIMIT_NPROC inside the sandbox")


@suite.case()
def default_pids_refuses_a_thread_flood(ctx):
    """Tasks started without end (threads, which count as processes and cost the host little) are
    refused a little before the default bound, never near the host's own limits; at most 6000
    are tried, and they die with the command."""
    e = Env(ctx)
    if e.uid == 0 and not usable("pids", 0) and not per_pidns_pid_max():
        raise Skip("root without a usable pids controller: nothing bounds the sandbox's tasks")
    script = ("import os, threading\n"
              "threading.stack_size(65536)\n"
              "ev = threading.Event()\n"
              "n = 0\n"
              "try:\n"
              "    while n < 6000:\n"
              "        threading.Thread(target=ev.wait, daemon=True).start()\n"
              "        n += 1\n"
              "    print('started', n, flush=True)\n"
              "except RuntimeError:\n"
              "    print('refused', n, flush=True)\n"
              "os._exit(0)\n")
    r = e.run(["--", "python3", "-c", script], timeout=120)
    check_eq(r.returncode, 0, f"run: {r.stderr!r}")
    words = r.stdout.split()
    check(len(words) == 2 and words[0] == "refused", f"the flood is refused: {r.stdout!r} {r.stderr!r}")
    if len(words) == 2:
        n = int(words[1])
        top = DEFAULT_PIDS + 299 if per_pidns_pid_max() else DEFAULT_PIDS
        check(DEFAULT_PIDS - 64 < n < top, f"refused at the sandbox's bound, not another ({n} started)")


# Forks that wait on a pipe until refused (or `limit` started), after `churn` short-lived ones
# have run the pid numbers past their wrap; prints "refused N" or "started N".
FORK_COUNT = """
import os, sys
limit, churn = int(sys.argv[1]), int(sys.argv[2])
for _ in range(churn):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
r, w = os.pipe()
n = 0
try:
    while n < limit:
        if os.fork() == 0:
            os.close(w)
            os.read(r, 1)
            os._exit(0)
        n += 1
    print("started", n, flush=True)
except OSError as e:
    print("refused", n, e.strerror, flush=True)
os.close(w)
for _ in range(n):
    os.wait()
"""


@suite.case()
def pid_max_bounds_the_namespace(ctx):
    """Where pid_max is the PID namespace's own, hardened's bound holds without a cgroup: a fork
    loop is refused between 512 and 811 tasks, before and after the pid numbers wrap; the host's
    pid_max is untouched and the same user outside still forks; the command cannot raise it."""
    if not per_pidns_pid_max():
        raise Skip(f"Linux {os.uname().release}: pid_max is the host's, the cgroup bounds the sandbox")
    require_program("/usr/bin/python3", "python3", "the fork loop")
    e = Env(ctx)
    before = host_pid_max()
    r = e.run(["--preset", "hardened", "--dry-run", "--", "true"])
    check("limit pids: the PID namespace's pid_max (512 tasks always, at most 811 at once)" in r.stdout,
              f"the dry run names the mechanism: {r.stdout}")
    for churn in (0, 1200):
        r = e.run(["--preset", "hardened", "--", "/usr/bin/python3", "-c", FORK_COUNT, "3000", str(churn)],
                  timeout=120)
        words = r.stdout.split()
        check(r.returncode == 0 and words[:1] == ["refused"], f"the loop is refused (churn {churn}): "
              f"{r.stdout!r} {r.stderr!r}")
        if words[:1] == ["refused"]:
            n = int(words[1])
            check(HARDENED_PIDS <= n <= HARDENED_PIDS + 299, f"refused within the bound (churn {churn}): {n}")
        check_eq(host_pid_max(), before, "the host's pid_max is untouched")
    outside = subprocess.run((SETPRIV if ctx.unpriv else []) + ["/usr/bin/python3", "-c", FORK_COUNT, "900", "0"],
                             capture_output=True, text=True, timeout=120)
    check_eq(outside.stdout.split()[:2], ["started", "900"], "the same user outside is not bound")
    # Raising it from inside: /proc/sys is read-only and no capability is left; a nested user and
    # PID namespace (where one can be made) is still counted at the sandbox's level.
    raise_it = ("echo 4000000 > /proc/sys/kernel/pid_max; cat /proc/sys/kernel/pid_max; "
                "if unshare -Urpf true 2>/dev/null; then unshare -Urpf --mount-proc sh -c "
                "'echo 4000000 > /proc/sys/kernel/pid_max; exec /usr/bin/python3 -c \"$0\" 3000 0' "
                "\"$FORK\"; else echo nested refused; fi")
    env = dict(e.env, FORK=FORK_COUNT)
    r = subprocess.run(e.argv(["--preset", "hardened", "--env", "FORK", "--", "sh", "-c", raise_it]),
                       capture_output=True, text=True, timeout=120, cwd=e.project, env=env)
    lines = r.stdout.split("\n")
    check_eq(lines[0], str(HARDENED_PIDS + 300), f"the write from inside is refused: {r.stdout!r} {r.stderr!r}")
    if "nested refused" not in r.stdout:
        words = r.stdout.split()
        check("refused" in words and int(words[words.index("refused") + 1]) <= HARDENED_PIDS + 299,
              f"a nested namespace is bounded too: {r.stdout!r}")
    check_eq(host_pid_max(), before, "the host's pid_max is untouched")


def mounts_inside(e, extra=()):
    r = e.run(list(extra) + ["--", "cat", "/proc/self/mountinfo"])
    check_eq(r.returncode, 0, f"run: {r.stderr!r}")
    out = []
    for line in r.stdout.splitlines():
        left, right = line.split(" - ", 1)
        fields = left.split()
        fstype, _source, superopts = right.split()[:3]
        out.append((fields[4], fields[5].split(","), fstype, superopts.split(",")))
    return out


@suite.case()
def writable_tmpfs_sized(ctx):
    """Every writable tmpfs of the sandbox has a size=: "/", /dev and /run small ones, /tmp,
    /var/tmp and /dev/shm the scratch bound (here set with --limit tmpfs)."""
    e = Env(ctx)
    default = [(mp, sup) for mp, opts, fs, sup in mounts_inside(e) if fs == "tmpfs" and "rw" in opts]
    check(len(default) >= 6, f"the sandbox has its writable tmpfs mounts: {default}")
    for mp, sup in default:
        check(any(o.startswith("size=") for o in sup), f"{mp} has a size by default: {sup}")
        check(any(o.startswith("nr_inodes=") for o in sup), f"{mp} has an inode bound by default: {sup}")
    mounts = mounts_inside(e, ["--limit", "tmpfs=8M"])
    writable = [(mp, sup) for mp, opts, fs, sup in mounts if fs == "tmpfs" and "rw" in opts]
    for mp, sup in writable:
        check(any(o.startswith("size=") for o in sup), f"{mp} has a size: {sup}")
    sizes = {mp: next((o for o in sup if o.startswith("size=")), "") for mp, sup in writable}
    for mp in ("/tmp", "/var/tmp", "/dev/shm"):
        check_eq(sizes.get(mp), "size=8192k", f"{mp} takes --limit tmpfs")
    for mp in ("/", "/dev"):
        check_eq(sizes.get(mp), "size=1024k", f"{mp} holds only mount points")
    check_eq(sizes.get("/run"), "size=65536k", "/run")


@suite.case()
def writing_past_a_tmpfs_bound_fails(ctx):
    """Writing past the bound of /tmp (--limit tmpfs=4M) or of /dev (mount points only) fails
    with ENOSPC; within it, it works."""
    e = Env(ctx)
    r = e.run(["--", "sh", "-c", "dd if=/dev/zero of=/dev/fill bs=1M count=4 2>&1 | grep -c 'No space left'"])
    check_eq((r.returncode, r.stdout.split()), (0, ["1"]), f"/dev is full past 1M by default: {r.stderr!r}")
    script = ("dd if=/dev/zero of=/tmp/fill bs=1M count=2 2>/dev/null && echo small-ok; "
              "dd if=/dev/zero of=/tmp/fill2 bs=1M count=8 2>&1 | grep -c 'No space left'")
    r = e.run(["--limit", "tmpfs=4M", "--", "sh", "-c", script])
    check_eq(r.returncode, 0, f"run: {r.stderr!r}")
    check_eq(r.stdout.split(), ["small-ok", "1"], "within the bound of /tmp it works, past it ENOSPC")


INODE_FLOOD = """
import os, sys
made = 0
try:
    for i in range(int(sys.argv[2])):
        os.close(os.open(f"{sys.argv[1]}/f{i}", os.O_CREAT | os.O_WRONLY, 0o600))
        made += 1
    print("made", made)
except OSError as e:
    print("stopped", made, e.strerror)
"""


@suite.case()
def empty_files_cannot_outgrow_a_tmpfs(ctx):
    """Empty files take no size= but cost kernel memory: each bounded tmpfs also has nr_inodes
    (one per 4 KiB of size, at least 4096), so a flood of empty files in /tmp (--limit tmpfs=16M)
    or /dev stops with ENOSPC; without the bound the same flood goes on."""
    e = Env(ctx)
    require_program("/usr/bin/python3", "python3", "the inode flood")
    for where, extra in (("/tmp", ["--limit", "tmpfs=16M"]), ("/dev/shm", ["--limit", "tmpfs=16M"]),
                         ("/dev", [])):
        r = e.run(extra + ["--", "/usr/bin/python3", "-c", INODE_FLOOD, where, "6000"])
        check_eq(r.returncode, 0, f"run: {r.stderr!r}")
        words = r.stdout.split()
        check(words[:1] == ["stopped"] and 4000 <= int(words[1]) <= 4096 and "No space left" in r.stdout,
              f"{where}: 6,000 empty files stop near 4,096 inodes: {r.stdout!r}")
    r = e.run(["--limit", "tmpfs=unlimited", "--", "/usr/bin/python3", "-c", INODE_FLOOD, "/tmp", "6000"])
    check_eq(r.stdout.split(), ["made", "6000"], f"the control: without a bound the flood goes on: {r.stdout!r}")

if __name__ == "__main__":
    sys.exit(suite.main())
