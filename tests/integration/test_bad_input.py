#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bad input: option errors (exact bwrap texts, exit 1, nothing on stdout) and destinations
under a planted symlink that points outside the new root (threat-model MNT-05/MNT-06, the
GHSA-pxhw-h44j-8pfx class): the host directory must get nothing. After every case the runner
also checks that no mount was added to the caller's namespace and no process survived."""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import Suite, check, check_eq, host_mountinfo  # noqa: E402

suite = Suite("integration-bad-input")

USAGE_RE = re.compile(r"usage: \S+ \[OPTIONS\.\.\.\] \[--\] COMMAND \[ARGS\.\.\.\]$")

# (args, expected stderr after "bwrap: "), all parse-time errors
PARSE_ERRORS = [
    (["--rf-unknown-option", "true"], "Unknown option --rf-unknown-option"),
    (["-x", "true"], "Unknown option -x"),
    (["--bind", "/usr"], "--bind takes two arguments"),
    (["--ro-bind"], "--ro-bind takes two arguments"),
    (["--bind-try", "/nonexistent"], "--bind-try takes two arguments"),
    (["--symlink", "a"], "--symlink takes two arguments"),
    (["--setenv", "A"], "--setenv takes two arguments"),
    (["--chmod", "0755"], "--chmod takes two arguments"),
    (["--chdir"], "--chdir takes one argument"),
    (["--tmpfs"], "--tmpfs takes an argument"),
    (["--dir"], "--dir takes an argument"),
    (["--unshare-all", "--proc"], "--proc takes an argument"),
    (["--cap-add"], "--cap-add takes an argument"),
    (["--args", "foo", "true"], "Invalid fd: foo"),
    (["--args", "-1", "true"], "Invalid fd: -1"),
    (["--args", "", "true"], "Invalid fd: "),
    (["--seccomp", "1x", "true"], "Invalid fd: 1x"),
    (["--args", "99", "true"], "Can't read --args data: Bad file descriptor"),
    (["--add-seccomp-fd", "99", "true"], "Can't read seccomp data: Bad file descriptor"),
    (["--chmod", "999", "/x", "true"], "--chmod takes an octal argument <= 07777"),
    (["--chmod", "10000", "/x", "true"], "--chmod takes an octal argument <= 07777"),
    (["--perms", "8", "--dir", "/x", "true"], "--perms takes an octal argument <= 07777"),
    (["--perms", "abc", "--dir", "/x", "true"], "--perms takes an octal argument <= 07777"),
    (["--perms", "0755", "--perms", "0700", "--dir", "/x", "true"],
     "--perms given twice for the same action"),
    (["--perms", "0755", "--bind", "/usr", "/x", "true"],
     "--perms must be followed by an option that creates a file"),
    (["--size", "0", "--tmpfs", "/x", "true"], "--size takes a non-zero number of bytes"),
    (["--size", "abc", "--tmpfs", "/x", "true"], "--size takes a non-zero number of bytes"),
    (["--size", "100", "--dir", "/x", "true"], "--size must be followed by --tmpfs"),
    (["--uid", "abc", "true"], "Invalid uid: abc"),
    (["--gid", "x", "true"], "Invalid gid: x"),
    (["--cap-add", "kill", "true"], "unknown cap: kill"),
    (["--hostname", "x", "true"], "Specifying --hostname requires --unshare-uts"),
    (["--unshare-user", "--as-pid-1", "true"], "Specifying --as-pid-1 requires --unshare-pid"),
]


@suite.case()
def parse_errors(ctx):
    problems = []
    for args, msg in PARSE_ERRORS:
        r = ctx.run(args)
        want = (1, f"bwrap: {msg}\n", "")
        got = (r.rc, r.stderr, r.stdout)
        if got != want:
            problems.append(f"{args}: expected (exit, stderr, stdout) {want!r}, observed {got!r}")
    check(not problems, "\n".join(problems))


@suite.case()
def no_command_prints_usage(ctx):
    for args in ([], ["--unshare-all"], ["--"], ["--unshare-all", "--"]):
        r = ctx.run(args)
        first = r.stderr.split("\n", 1)[0]
        check(r.rc == 1 and USAGE_RE.match(first) and r.stdout == "",
              f"{args}: usage on stderr with exit 1 expected\n  {r.describe()}")
    r = ctx.run([], form="link")
    check_eq(r.stderr.split("\n", 1)[0],
             f"usage: {ctx.h.link} [OPTIONS...] [--] COMMAND [ARGS...]",
             "usage line names argv[0] (hard link named bwrap)")


@suite.case()
def missing_bind_source(ctx):
    for opt in ("--bind", "--ro-bind", "--dev-bind"):
        r = ctx.probe([opt, "/nonexistent-rf-source", "/x"], ["exit", "0"])
        check_eq((r.rc, r.stderr, r.stdout),
                 (1, "bwrap: Can't find source path /nonexistent-rf-source: No such file or "
                     "directory\n", ""), f"{opt} of a missing source")


@suite.case()
def runtime_setup_errors(ctx):
    # Texts of these mention bwrap's internal paths; only the shape is asserted here (the
    # compat suite compares the exact text with Debian's bwrap).
    cases = [
        ["--remount-ro", "/nonexistent-rf"],
        ["--dir", "/usr/rf-new-dir"],           # under a read-only bind
        ["--tmpfs", "/usr/rf-new-dir"],
        ["--ro-bind", "/usr/bin/true", "/x/y", "--dir", "/x/y/z"],  # parent is a file
        ["--chmod", "0700", "/nonexistent-rf"],
    ]
    for extra in cases:
        r = ctx.probe(extra, ["exit", "0"])
        check(r.rc == 1 and r.stderr.startswith("bwrap: ") and r.stderr.count("\n") == 1
              and r.stdout == "", f"{extra}: expected exit 1 and one 'bwrap: ' line\n  "
                                  f"{r.describe()}")


# ---------------------------------------------------------------------------------------------
# destinations under a symlink planted to point outside the new root


def snapshot(d):
    out = {}
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            p = os.path.join(root, n)
            st = os.lstat(p)
            out[os.path.relpath(p, d)] = oct(st.st_mode)
    out["."] = oct(os.lstat(d).st_mode)
    return out


def symlink_targets(hostdir):
    return [hostdir,                                   # absolute host path
            "/oldroot" + hostdir,                      # bwrap's setup-time view of the host
            "../../oldroot" + hostdir,                 # same, relative to /tmp/evil
            "../../../../../../../../.." + hostdir]     # climbing above any root


def escape_ops(srcdir, srcfile):
    return [
        ["--dir", "/tmp/evil/sub"],
        ["--perms", "0700", "--dir", "/tmp/evil/a/b"],
        ["--tmpfs", "/tmp/evil/sub"],
        ["--bind", srcdir, "/tmp/evil/sub"],
        ["--ro-bind", srcfile, "/tmp/evil/file"],
        ["--symlink", "rf-link-target", "/tmp/evil/link"],
        ["--chmod", "0700", "/tmp/evil"],
        ["--mqueue", "/tmp/evil/mq"],
        ["--dev", "/tmp/evil/dev"],
        ["--proc", "/tmp/evil/proc"],
    ]


def host_damage(hostdir, before_tree, before_mounts, r):
    """What the run did to the host (empty if nothing), then restore the host dir."""
    problems = []
    after = snapshot(hostdir)
    if after != before_tree:
        problems.append(f"host directory {hostdir} modified: before {before_tree}, after {after}")
    mounts = host_mountinfo()
    if mounts != before_mounts:
        problems.append(f"host mount table changed: added {sorted(mounts - before_mounts)}")
    if r.rc not in (0, 1):
        problems.append(f"expected exit 0 (created inside the sandbox) or 1 (refused), got "
                        f"{r.rc}")
    elif r.rc == 1 and not r.stderr.startswith("bwrap: "):
        problems.append(f"refused without a 'bwrap: ' message: {r.stderr!r}")
    # restore, so each variant is judged on its own
    for name in os.listdir(hostdir):
        p = os.path.join(hostdir, name)
        if os.path.isdir(p) and not os.path.islink(p):
            subprocess.run(["umount", "-R", "-l", p], capture_output=True, timeout=10)
            shutil.rmtree(p, ignore_errors=True)
        else:
            os.unlink(p)
    os.chmod(hostdir, int(before_tree["."], 8) & 0o7777)
    return problems


def run_escape_variants(ctx, hostdir, variants):
    """variants: [(label, argv)]; every variant runs, all damage is reported together."""
    before_tree = snapshot(hostdir)
    before_mounts = host_mountinfo()
    report = []
    for label, argv in variants:
        r = ctx.run(argv)
        problems = host_damage(hostdir, before_tree, before_mounts, r)
        if problems:
            report.append(f"{label}: " + "; ".join(problems) + f"\n    exit={r.rc} "
                          f"stderr={r.stderr.strip()!r}")
    check(not report, f"{len(report)} of {len(variants)} variants touched the host:\n  "
                      + "\n  ".join(report))


@suite.case()
def planted_symlink_to_host(ctx):
    h = ctx.h
    hostdir = ctx.mkdtemp()        # owned by the case's user: a buggy engine could write here
    srcdir = ctx.mkdtemp()
    srcfile = os.path.join(srcdir, "file")
    with open(srcfile, "w") as f:
        f.write("data")
    base = ["--ro-bind", "/usr", "/usr", "--unshare-all", "--tmpfs", "/tmp"] + h.probe_bind()
    variants = []
    for target in symlink_targets(hostdir):
        for op in escape_ops(srcdir, srcfile):
            variants.append((f"--symlink {target} /tmp/evil {' '.join(op)}",
                             base + ["--symlink", target, "/tmp/evil"] + op
                             + ["--", h.probe, "exit", "0"]))
    run_escape_variants(ctx, hostdir, variants)


@suite.case()
def planted_symlink_in_bound_dir(ctx):
    # The symlink already exists in a host directory the caller binds (a "project" dir).
    h = ctx.h
    hostdir = ctx.mkdtemp()
    work = ctx.mkdtemp()
    targets = [t.replace("../../oldroot", "../../../oldroot") for t in symlink_targets(hostdir)]
    for i, target in enumerate(targets):
        os.symlink(target, os.path.join(work, f"evil{i}"))
    base = ["--ro-bind", "/usr", "/usr", "--unshare-all", "--bind", work, "/w"] + h.probe_bind()
    variants = []
    for i, target in enumerate(targets):
        for op in (["--dir", f"/w/evil{i}/sub"], ["--tmpfs", f"/w/evil{i}/t"],
                   ["--bind", work, f"/w/evil{i}/b"], ["--symlink", "x", f"/w/evil{i}/l"],
                   ["--chmod", "0700", f"/w/evil{i}"]):
            variants.append((f"planted /w/evil{i} -> {target}, then {' '.join(op)}",
                             base + op + ["--", h.probe, "exit", "0"]))
    run_escape_variants(ctx, hostdir, variants)


if __name__ == "__main__":
    sys.exit(suite.main())
