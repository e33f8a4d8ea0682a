# SPDX-License-Identifier: LGPL-2.1-or-later
"""Differential harness: the same argv through Debian's /usr/bin/bwrap (the reference) and through
the binary under test, invoked both as `ringfence bwrap ...` and as a hard link named `bwrap`;
exit code, stdout (the probe's JSON, normalised) and stderr must match.

Normalisation touches only values that legitimately differ between two runs or two launchers:
namespace inode numbers (-> "host"/"new"), pids outside a new pid namespace (-> relations such as
"launcher"), pipe/socket inode numbers, the launcher's own argv in /proc/1/cmdline, and the root
mount's internal root path and superblock options (bwrap's sandbox root is a subdirectory of a
scratch tmpfs; an engine may mount a fresh tmpfs instead - the visible mode is compared through
the probe's path checks), and the flags of a mount stacked under a later mount at the same point
(unobservable; bwrap's per-path remount skips it, the mount_setattr fix does not), and the random
name of --bind-data's deleted temporary file. Everything else must be identical.

Self-check: RF_BWRAP=/usr/bin/bwrap runs the reference against itself; every case must pass.
"""

import collections
import copy
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import rftest  # noqa: E402
from rftest import BASE_ENV, Suite, TestFailure, fail, fd_with_data, host_ns  # noqa: E402

REFERENCE = "/usr/bin/bwrap"

# difference line -> cases showing it, for the summary at the end of a run
DIFFS = collections.defaultdict(set)


# ------------------------------------------------------------------------------------------------
# Normalisation


def _relation(value, rel):
    for name, v in rel.items():
        if v is not None and value == v:
            return f"<{name}>"
    return "<other>"


def normalise_probe(j, launcher_pid, launcher_argv, hns):
    j = json.loads(json.dumps(j))  # deep copy
    if isinstance(j.get("ns"), dict):
        j["ns"] = {k: (None if v is None else ("host" if v == hns.get(k) else "new"))
                   for k, v in j["ns"].items()}
    pidns = j.get("ns", {}).get("pid")
    # without /proc the namespace is unknown: a new pid namespace numbers the probe 1 or 2
    if "pid" in j and (pidns == "host" or (pidns is None and j["pid"] > 10)):
        pid = j["pid"]
        rel = {"self": pid, "launcher": launcher_pid}
        j["pid"] = "<self>"
        for k in ("ppid", "sid", "pgid"):
            if k in j:
                j[k] = _relation(j[k], rel)
    cmd = j.get("pid1_cmdline")
    # bwrap's pid 1 shows the launcher's whole command line; ringfence's, once it has become
    # the reaper program, only its argv[0], and none for the instant of that exec, which runs
    # alongside the command's start (docs/compat-bwrap.md, "Pid 1").
    if isinstance(cmd, list) and cmd in (launcher_argv, launcher_argv[:1], []):
        j["pid1_cmdline"] = "<launcher argv>"
    if isinstance(j.get("fds"), dict):
        # pipes, sockets and namespace fds: the inode differs from run to run
        j["fds"] = {k: re.sub(r"^([a-z_]+):\[\d+\]$", r"\1:[]", v) for k, v in
                    j["fds"].items()}
    if isinstance(j.get("mounts"), list):
        mounts = j["mounts"]
        for i, m in enumerate(mounts):
            if m.get("mnt") == "/":
                m.pop("root", None)
                m.pop("super", None)
            if str(m.get("root", "")).endswith("//deleted"):
                m["root"] = "<deleted temporary file>"   # --bind-data's random temp name
            if any(n.get("mnt") == m.get("mnt") for n in mounts[i + 1:]):
                # stacked under a later mount at the same point: its flags cannot be observed
                # (bwrap's per-path remount misses it, a recursive mount_setattr does not)
                m.pop("opts", None)
                m["shadowed"] = True
    return j


def json_diff(a, b, path="", out=None, limit=25):
    """Human-readable differences between two JSON values."""
    if out is None:
        out = []
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                out.append(f"{path}/{k}: missing in reference, candidate has {b[k]!r}")
            elif k not in b:
                out.append(f"{path}/{k}: reference has {a[k]!r}, missing in candidate")
            else:
                json_diff(a[k], b[k], f"{path}/{k}", out, limit)
    elif isinstance(a, list) and isinstance(b, list) and path.endswith("/mounts"):
        an = [m.get("mnt") for m in a]
        bn = [m.get("mnt") for m in b]
        if an != bn:
            ca, cb = collections.Counter(an), collections.Counter(bn)
            out.append(f"{path}: mount points differ: reference-only {sorted((ca - cb).elements())}"
                       f", candidate-only {sorted((cb - ca).elements())}; reference list {an}, "
                       f"candidate list {bn}")
            bm = {m.get("mnt"): m for m in b}
            for m in a:
                if an.count(m.get("mnt")) == 1 and bn.count(m.get("mnt")) == 1:
                    json_diff(m, bm[m.get("mnt")], f"{path}[{m.get('mnt')}]", out, limit)
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                json_diff(x, y, f"{path}[{x.get('mnt')}#{i}]", out, limit)
    elif a != b:
        out.append(f"{path}: reference {a!r}, candidate {b!r}")
    return out


# ------------------------------------------------------------------------------------------------
# Cases


class CCase:
    """One differential case.

    args: bwrap argv (placeholders {probe} {probe_dir} {probe_bind} {fx} expanded; a list
          element "{probe_bind}" expands to the probe's --ro-bind triple)
    data_fds: {fd number: bytes} provided fresh (memfd at position 0) to every run
    json: stdout is the probe's JSON (normalised before comparing)
    ref_rc: exit code the reference must produce (guards against a case that tests nothing)
    documented: (why, fn) for a difference from bwrap that docs/compat-bwrap.md documents: fn
          takes the reference outcome (a copy) and the user, and returns what ringfence must
          produce instead; the comparison stays exact against that.
    """

    def __init__(self, name, args, users=("root", "unpriv"), data_fds=None, stdin=None,
                 cwd=None, env=None, json=None, ref_rc=0, stderr_re=None, umask=-1,
                 documented=None):
        self.name = name
        self.args = args
        self.users = users
        self.data_fds = data_fds or {}
        self.stdin = stdin
        self.cwd = cwd
        self.env = env
        self.json = json
        self.ref_rc = ref_rc
        self.umask = umask
        self.documented = documented


def expand(h, fx, args):
    out = []
    for a in args:
        if a == "{probe_bind}":
            out += h.probe_bind()
            continue
        out.append(a.replace("{host_probe}", h.host_probe).replace("{probe}", h.probe)
                   .replace("{probe_dir}", h.probe_dir)
                   .replace("{fx}", fx))
    return out


def minimal(*extra, unshare_all=True):
    """The minimal root (+ --unshare-all) and the probe bind, then extra args."""
    args = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    if unshare_all:
        args.append("--unshare-all")
    return args + ["{probe_bind}"] + list(extra)


def probe(*cmd):
    return ["--", "{probe}"] + list(cmd)


class CompatSuite:
    def __init__(self, name):
        self.suite = Suite(name)
        self.name = name
        self.options_used = set()

    def add(self, case):
        users = case.users
        self.options_used |= {a for a in case.args if a.startswith("-")}

        def fn(ctx, case=case):
            run_case(ctx, case)
        self.suite.case(users=users, name=case.name)(fn)
        return case

    def case(self, name, args, **kw):
        if "json" not in kw:
            kw["json"] = "json" in args and "{probe}" in args
        return self.add(CCase(name, args, **kw))

    def scenario(self, name, users=("root", "unpriv"), covers=(), documented=None):
        """A case computed by a function fn(ctx, form) -> comparable value; covers: the
        options it exercises (for the coverage check); documented: as for CCase."""
        self.options_used |= set(covers)

        def deco(fn):
            def run(ctx, fn=fn):
                run_scenario(ctx, name, fn, documented)
            self.suite.case(users=users, name=name)(run)
            return fn
        return deco

    def main(self, private_mount_ns=True):
        rc = self.suite.main(setup=setup_fixture, private_mount_ns=private_mount_ns)
        if DIFFS:
            print("\ndistinct differences (most frequent first):")
            for line, cases in sorted(DIFFS.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                names = sorted(cases)
                shown = ", ".join(names[:6]) + (f", ... ({len(names)} cases)" if len(names) > 6
                                                 else "")
                print(f"  {line[:400]}\n      in: {shown}")
        return rc


# ------------------------------------------------------------------------------------------------
# Fixture: host files every case can bind (world-readable, made once per program)


def setup_fixture(h):
    fx = os.path.join(h.root, "fx")
    os.makedirs(os.path.join(fx, "dir", "sub"))
    with open(os.path.join(fx, "dir", "f"), "w") as f:
        f.write("file in dir\n")
    with open(os.path.join(fx, "dir", "sub", "g"), "w") as f:
        f.write("file in sub\n")
    with open(os.path.join(fx, "file"), "w") as f:
        f.write("a file\n")
    os.symlink("dir", os.path.join(fx, "link-to-dir"))
    os.makedirs(os.path.join(fx, "rw"))
    os.makedirs(os.path.join(fx, "dir", "mnt"))
    for root, dirs, files in os.walk(fx):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    os.chmod(fx, 0o755)
    os.chmod(os.path.join(fx, "rw"), 0o777)
    h.fx = fx
    if getattr(h, "want_submount", False):
        rftest.mount_tmpfs(os.path.join(fx, "dir", "mnt"), "size=1m,mode=0755,noexec")
        with open(os.path.join(fx, "dir", "mnt", "m"), "w") as f:
            f.write("on a submount\n")
        os.chmod(os.path.join(fx, "dir", "mnt", "m"), 0o644)


# ------------------------------------------------------------------------------------------------
# Running


def forms(h):
    """(label, form) pairs to compare against the reference."""
    if h.bwrap_override:
        return [("RF_BWRAP", "default"), ("bwrap hard link", "link")]
    return [("ringfence bwrap", "default"), ("bwrap hard link", "link")]


def _run_one(ctx, case, form, argv):
    h = ctx.h
    fds = []
    try:
        for num, data in sorted(case.data_fds.items()):
            fds.append(fd_with_data(data, num))
        env = None
        if case.env is not None:
            env = dict(BASE_ENV)
            env.update(case.env)
            env = {k: v for k, v in env.items() if v is not None}
        return h.run(argv, user=ctx.user, form=form, pass_fds=fds, cwd=case.cwd, env=env,
                     input=case.stdin, umask=case.umask)
    finally:
        for fd in fds:
            os.close(fd)


def _outcome(h, r, form, argv, is_json, hns):
    out = r.stdout
    if is_json:
        try:
            launcher_argv = h.invocation(form) + argv
            out = normalise_probe(json.loads(r.out), r.pid, launcher_argv, hns)
        except ValueError:
            out = {"<not json>": r.stdout}
    return {"exit": r.rc, "stdout": out, "stderr": r.stderr}


def describe_diff(ref, got):
    lines = []
    if ref["exit"] != got["exit"]:
        lines.append(f"exit code: reference {ref['exit']}, candidate {got['exit']}")
    if ref["stderr"] != got["stderr"]:
        lines.append(f"stderr: reference {ref['stderr']!r}, candidate {got['stderr']!r}")
    if ref["stdout"] != got["stdout"]:
        if (isinstance(ref["stdout"], dict) and isinstance(got["stdout"], dict)
                and "<not json>" not in ref["stdout"] and "<not json>" not in got["stdout"]):
            lines += ["stdout " + d for d in json_diff(ref["stdout"], got["stdout"])]
        else:
            lines.append(f"stdout: reference {str(ref['stdout'])[:600]!r}, candidate "
                         f"{str(got['stdout'])[:600]!r}")
    return lines


def run_case(ctx, case):
    h = ctx.h
    argv = expand(h, h.fx, case.args)
    hns = host_ns()
    ref_r = _run_one(ctx, case, "reference", argv)
    ref = _outcome(h, ref_r, "reference", argv, case.json, hns)
    if case.ref_rc is not None and ref_r.rc != case.ref_rc:
        fail(f"case is broken: the reference exited {ref_r.rc}, the case expects "
             f"{case.ref_rc}\n  {ref_r.describe()}")
    want = ref
    if case.documented and not h.bwrap_override:  # a self-check has no documented differences
        want = case.documented[1](copy.deepcopy(ref), ctx.user)
    problems = []
    for label, form in forms(h):
        r = _run_one(ctx, case, form, argv)
        got = _outcome(h, r, form, argv, case.json, hns)
        if got != want:
            lines = describe_diff(want, got)
            if case.documented:
                lines.append(f"(expected: bwrap's result adjusted for: {case.documented[0]})")
            for line in lines:
                DIFFS[line].add(f"{case.name}[{ctx.user}]")
            problems.append(f"[{label}] differs from /usr/bin/bwrap:\n    "
                            + "\n    ".join(lines)
                            + f"\n    argv: {' '.join(r.argv)}")
    if problems:
        raise TestFailure("\n  ".join(problems))


def run_scenario(ctx, name, fn, documented=None):
    ref = fn(ctx, "reference")
    if os.environ.get("RF_COMPAT_SHOW"):
        print(f"  {name}[{ctx.user}] reference: {ref!r}")
    if ctx.h.bwrap_override:  # the reference against itself: no documented differences
        documented = None
    want = documented[1](copy.deepcopy(ref), ctx.user) if documented else ref
    problems = []
    for label, form in forms(ctx.h):
        got = fn(ctx, form)
        if got != want:
            if isinstance(want, dict) and isinstance(got, dict):
                line = f"{name}: " + "; ".join(json_diff(want, got))
            else:
                line = f"{name}: expected {want!r}, candidate {got!r}"
            if documented:
                line += f" (bwrap's result adjusted for: {documented[0]})"
            DIFFS[line].add(f"{name}[{ctx.user}]")
            problems.append(f"[{label}] {line}")
    if problems:
        raise TestFailure("\n  ".join(problems))
