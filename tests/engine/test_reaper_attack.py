#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The pid-1 reaper is an engine process inside the sandbox's PID namespace, so the payload
# attacks it (threat model FD-04): ptrace-attach, /proc/1/mem, /proc/1/environ, /proc/1/fd and
# pidfd_getfd on it must all fail. The reaper holds the status pipe to the launcher; a payload
# that took it could fake the sandbox's exit status.
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

RINGFENCE, = stage(sys.argv[1])
UNPRIV = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
ROOT = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev"]
ATTACK = r'''
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
res = {}
def attempt(name, fn):
    try:
        r = fn()
        res[name] = "succeeded" if r is None or r >= 0 else "blocked:" + errno.errorcode[ctypes.get_errno()]
    except OSError as e:
        res[name] = "blocked:" + errno.errorcode[e.errno]
attempt("ptrace-attach", lambda: libc.ptrace(16, 1, 0, 0))
attempt("mem", lambda: os.close(os.open("/proc/1/mem", os.O_RDONLY)))
attempt("environ", lambda: os.close(os.open("/proc/1/environ", os.O_RDONLY)))
attempt("fd-list", lambda: os.listdir("/proc/1/fd") and None)
def reopen():
    for n in range(0, 16):
        try:
            os.close(os.open(f"/proc/1/fd/{n}", os.O_RDONLY))
            return None
        except OSError as e:
            last = e
    raise last
attempt("fd-reopen", reopen)
def getfd():
    pidfd = libc.syscall(434, 1, 0)           # pidfd_open
    if pidfd < 0:
        return pidfd
    found = -1
    for n in range(0, 16):
        fd = libc.syscall(438, pidfd, n, 0)   # pidfd_getfd
        if fd >= 0:
            found = fd
            break
    return found
attempt("pidfd_getfd", getfd)
attempt("kill", lambda: os.kill(1, 9))
print(" ".join(f"{k}={v}" for k, v in sorted(res.items())))
'''
failures = []
CASES = [
    ("unprivileged", UNPRIV, ["--unshare-all"]),
    ("root, user namespace, --uid 1000", [], ["--unshare-all", "--uid", "1000"]),
    ("root, --cap-drop ALL", [], ["--unshare-pid", "--cap-drop", "ALL"]),
]
for label, prefix, extra in CASES:
    r = subprocess.run(prefix + [RINGFENCE, "bwrap"] + ROOT + extra + ["python3", "-c", ATTACK],
                       capture_output=True, text=True, timeout=60)
    line = r.stdout.strip()
    print(f"# {label}: rc={r.returncode} {line} {r.stderr.strip()}")
    fields = dict(kv.split("=", 1) for kv in line.split()) if line else {}
    # Listing /proc/1/fd needs only ownership of the (non-dumpable, so host-root-owned) entry:
    # refused unless the payload's uid is the host's root itself (root caller); re-opening an fd
    # there needs ptrace access, refused for everyone.
    attacks = ["ptrace-attach", "mem", "environ", "fd-reopen", "pidfd_getfd"]
    if prefix:
        attacks.append("fd-list")
    for attack in attacks:
        ok = fields.get(attack, "").startswith("blocked")
        print(("ok - " if ok else "not ok - ") + f"{label}: {attack} on the reaper is refused ({fields.get(attack)})")
        if not ok:
            failures.append(f"{label} {attack}")
    # pid 1 ignores signals it has no handler for, even from inside (the kernel's rule).
    ok = r.returncode == 0
    print(("ok - " if ok else "not ok - ") + f"{label}: the sandbox exited normally (rc {r.returncode})")
    if not ok:
        failures.append(f"{label} rc")
sys.exit(1 if failures else 0)
