#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Ops that follow a bind over the sandbox root itself (the common `--ro-bind / /` pattern)
# land in the bound tree, not in the tmpfs underneath it; and the bind's read-only flag
# reaches every submount of the host. As root and unprivileged.
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

RINGFENCE, = stage(sys.argv[1])
UNPRIV = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
failures = []


def check(name, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


def mounts(text):
    out = {}
    for line in text.splitlines():
        f = line.split()
        out[f[4]] = f[5].split(",")  # the last mount at a path wins, as the path lookup sees it
    return out


for who, prefix in (("root", []), ("unprivileged", UNPRIV)):
    args = [RINGFENCE, "bwrap", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            "--unshare-pid", "--dir", "/tmp/made", "cat", "/proc/self/mountinfo"]
    r = subprocess.run(prefix + args, capture_output=True, text=True, timeout=30)
    check(f"{who}: --ro-bind / / then --proc/--dev/--tmpfs runs", r.returncode == 0, r.stderr)
    if r.returncode != 0:
        continue
    m = mounts(r.stdout)
    check(f"{who}: / is read-only", "ro" in m.get("/", []), str(m.get("/")))
    check(f"{who}: /tmp is the new writable tmpfs", "rw" in m.get("/tmp", []), str(m.get("/tmp")))
    check(f"{who}: /dev/null is bound in the new /dev", "/dev/null" in m, "")
    host_subs = [p for p, o in m.items() if p.startswith("/sys") or p == "/usr"]
    check(f"{who}: every submount of the host tree is read-only",
          all("ro" in m[p] for p in host_subs), str({p: m[p] for p in host_subs}))
sys.exit(1 if failures else 0)
