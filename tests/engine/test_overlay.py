#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The overlay family (--overlay-src, --overlay, --tmp-overlay, --ro-overlay) against the 0.11
# contract (Debian's bwrap 0.8.0 lacks these options): layer order, where writes land, the hidden
# scratch dirs, read-only unions, escaping, each message, no mount left on the host. As root and
# unprivileged.
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

RINGFENCE, = stage(sys.argv[1])
UNPRIV = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
BASE = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64", "--proc", "/proc"]
SRC_NOT_USED = ("--overlay-src must be followed by another --overlay-src or one of --overlay, "
                "--tmp-overlay, or --ro-overlay")
failures = []
# Who owns the test trees: the runner, since an unprivileged overlay cannot copy up a file whose
# owner is not mapped in its user namespace (EOVERFLOW).
owner = [0]


def check(name, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


def run(prefix, args):
    r = subprocess.run(prefix + [RINGFENCE, "bwrap"] + args, capture_output=True, text=True, timeout=30)
    return r.returncode, r.stdout, r.stderr


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chown(path, owner[0], owner[0])


def read(path):
    with open(path) as f:
        return f.read()


def mkdirs(root, *names):
    """World-writable dirs, so the unprivileged run may use them as upper and work dirs."""
    paths = []
    for n in names:
        p = os.path.join(root, n)
        os.mkdir(p)
        os.chmod(p, 0o777)
        os.chown(p, owner[0], owner[0])
        paths.append(p)
    return paths


def snapshot(d):
    out = {}
    for dirpath, dirnames, filenames in os.walk(d):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, d)] = read(p) if os.path.isfile(p) else None
    return out


def overlay_mounts():
    with open("/proc/self/mountinfo") as f:
        return [line for line in f if " - overlay " in line]


def layers(root):
    low, top = mkdirs(root, "low", "top")
    write(os.path.join(low, "shared"), "bottom\n")
    write(os.path.join(top, "shared"), "top\n")
    write(os.path.join(low, "only-low"), "low\n")
    for p in (os.path.join(low, "shared"), os.path.join(top, "shared"), os.path.join(low, "only-low")):
        os.chmod(p, 0o666)
    return low, top


def test_overlay(who, prefix, root):
    low, top = layers(root)
    up, wk = mkdirs(root, "up", "wk")
    before = (snapshot(low), snapshot(top))
    script = ("cat /m/shared /m/only-low; echo new > /m/new; echo changed > /m/only-low; "
              "grep ' /m ' /proc/self/mountinfo")
    rc, out, err = run(prefix, BASE + ["--overlay-src", low, "--overlay-src", top, "--overlay", up, wk, "/m",
                                       "sh", "-c", script])
    check(f"{who} --overlay: runs", rc == 0, err)
    check(f"{who} --overlay: the top layer wins, lower files show", out.startswith("top\nlow\n"), out)
    check(f"{who} --overlay: nosuid,nodev, userxattr, lowerdir top-first",
          " rw,nosuid,nodev" in out and "userxattr" in out
          and f"lowerdir=/oldroot{top}:/oldroot{low}" in out, out)
    check(f"{who} --overlay: writes land in RWSRC",
          read(os.path.join(up, "new")) == "new\n" and read(os.path.join(up, "only-low")) == "changed\n",
          snapshot(up))
    check(f"{who} --overlay: lower layers untouched", (snapshot(low), snapshot(top)) == before)


def test_tmp_overlay(who, prefix, root):
    low, top = layers(root)
    before = (snapshot(low), snapshot(top), sorted(os.listdir(root)))
    script = ("echo x > /a/new; echo y > /b/new; echo changed > /a/only-low; cat /a/new /b/new /a/shared; "
              "ls -a / | grep -c tmp-overlay; stat -c %a /a")
    args = BASE + ["--overlay-src", low, "--tmp-overlay", "/a", "--overlay-src", low, "--overlay-src", top,
                   "--tmp-overlay", "/b", "sh", "-c", script]
    rc, out, err = run(prefix, args)
    check(f"{who} --tmp-overlay: two independent overlays, writable", rc == 0 and out == "x\ny\nbottom\n0\n755\n",
          f"{rc} {out!r} {err}")
    check(f"{who} --tmp-overlay: nothing reaches the host", (snapshot(low), snapshot(top), sorted(os.listdir(root))) == before)
    rc, out, err = run(prefix, BASE + ["--overlay-src", low, "--tmp-overlay", "/a", "sh", "-c",
                                       "cat /a/only-low; test -e /a/new || echo gone"])
    check(f"{who} --tmp-overlay: writes are discarded at exit", rc == 0 and out == "low\ngone\n", f"{out!r} {err}")


def test_ro_overlay(who, prefix, root):
    low, top = layers(root)
    before = (snapshot(low), snapshot(top))
    rc, out, err = run(prefix, BASE + ["--overlay-src", low, "--overlay-src", top, "--ro-overlay", "/r", "sh", "-c",
                                       "cat /r/shared /r/only-low; touch /r/x 2>&1; echo rc=$?"])
    check(f"{who} --ro-overlay: union visible, read-only",
          rc == 0 and out.startswith("top\nlow\n") and "Read-only file system" in out and out.endswith("rc=1\n"),
          f"{out!r} {err}")
    check(f"{who} --ro-overlay: layers untouched", (snapshot(low), snapshot(top)) == before)


def test_escaping(who, prefix, root):
    weird_low, weird_up, wk = mkdirs(root, "lo,w:1\\x", "u,p:2", "w:k,3")
    write(os.path.join(weird_low, "f"), "escaped\n")
    rc, out, err = run(prefix, BASE + ["--overlay-src", weird_low, "--overlay", weird_up, wk, "/e", "sh", "-c",
                                       "cat /e/f; echo w > /e/g"])
    check(f"{who}: paths with , : and \\ are escaped", rc == 0 and out == "escaped\n"
          and read(os.path.join(weird_up, "g")) == "w\n", f"{out!r} {err}")


def test_errors(who, prefix, root):
    low, top = layers(root)
    up, wk = mkdirs(root, "up", "wk")
    missing = os.path.join(root, "missing")
    cases = [
        (["--overlay", up, wk, "/m", "true"], "bwrap: --overlay requires at least one --overlay-src\n"),
        (["--tmp-overlay", "/m", "true"], "bwrap: --tmp-overlay requires at least one --overlay-src\n"),
        (["--overlay-src", low, "--ro-overlay", "/m", "true"], "bwrap: --ro-overlay requires at least two --overlay-src\n"),
        (["--overlay-src", low, "--dir", "/m", "true"], f"bwrap: {SRC_NOT_USED}\n"),
        (["--overlay-src", low, "true"], f"bwrap: {SRC_NOT_USED}\n"),
        (["--overlay-src", low, "--overlay", up, wk], "bwrap: --overlay takes three arguments\n"),
        (["--overlay-src", missing, "--tmp-overlay", "/m", "true"],
         f"bwrap: Can't find source path {missing}: No such file or directory\n"),
        (["--overlay-src", low, "--overlay", missing, wk, "/m", "true"],
         f"bwrap: Can't find source path {missing}: No such file or directory\n"),
        (["--overlay-src", low, "--overlay", up, missing, "/m", "true"],
         f"bwrap: Can't find source path {missing}: No such file or directory\n"),
        # A lower layer inside the upper dir: the kernel's ELOOP.
        (["--overlay-src", os.path.join(up, "sub"), "--overlay", up, wk, "/m", "true"],
         f"bwrap: Can't make overlay mount on /newroot/m with options upperdir=/oldroot{up},workdir=/oldroot{wk},"
         f"lowerdir=/oldroot{up}/sub,userxattr: Overlay directories may not overlap\n"),
        (["--overlay-src", low, "--overlay-src", low, "--ro-overlay", "/m", "true"],
         f"bwrap: Can't make overlay mount on /newroot/m with options lowerdir=/oldroot{low}:/oldroot{low},"
         "userxattr: Overlay directories may not overlap\n"),
        # The work dir inside the upper dir: refused with EINVAL.
        (["--overlay-src", low, "--overlay", up, os.path.join(up, "w"), "/m", "true"],
         f"bwrap: Can't make overlay mount on /newroot/m with options upperdir=/oldroot{up},workdir=/oldroot{up}/w,"
         f"lowerdir=/oldroot{low},userxattr: Invalid argument\n"),
    ]
    mkdirs(up, "sub", "w")
    for args, want in cases:
        rc, out, err = run(prefix, BASE + args)
        label = " ".join(os.path.relpath(a, root) if a.startswith(root) else a for a in args)
        check(f"{who} error for {label}", rc == 1 and err == want, f"{rc} {err!r}")


def main():
    mounts_before = overlay_mounts()
    work = tempfile.mkdtemp(prefix="rf-overlay-")
    try:
        os.chmod(work, 0o755)
        for who, prefix, uid in (("root", [], 0), ("unprivileged", UNPRIV, 65534)):
            owner[0] = uid
            for test in (test_overlay, test_tmp_overlay, test_ro_overlay, test_escaping, test_errors):
                root = tempfile.mkdtemp(dir=work)
                os.chmod(root, 0o755)
                test(who, prefix, root)
        check("no overlay left mounted on the host", overlay_mounts() == mounts_before, overlay_mounts())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
