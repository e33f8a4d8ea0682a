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
import ctypes, errno, os, time
libc = ctypes.CDLL(None, use_errno=True)
res = {}
def pid1_argc():
    with open("/proc/1/cmdline", "rb") as f:
        return f.read().count(b"\0")
for _ in range(100):  # attack pid 1 once it runs the reaper program (where it does)
    if pid1_argc() == 1:
        break
    time.sleep(0.01)
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
attempt("exe", lambda: os.readlink("/proc/1/exe") and None)
res["pid1-argc"] = str(pid1_argc())
print(" ".join(f"{k}={v}" for k, v in sorted(res.items())))
'''
failures = []
# exec: pid 1 has become the reaper program (its argv is the launcher's argv[0] alone). Not
# where the command has CAP_SYS_PTRACE (root in a user namespace keeps root's set): it would have
# that capability over the program's memory, so pid 1 stays the launcher's clone. A uid-1000
# command of a root caller loses root's set at its exec: pid 1 execs.
# fd-list: listing /proc/1/fd needs only ownership of the entry, which for a non-dumpable
# process is the root of its memory's user namespace where that maps one (else the host's root):
# refused unless the payload's uid is that uid (a root caller; --uid 0, whose namespace root is
# the caller's uid). Re-opening an fd there needs ptrace access, refused for everyone.
CASES = [
    ("unprivileged", UNPRIV, ["--unshare-all"], True, True),
    ("unprivileged, --uid 0", UNPRIV, ["--unshare-all", "--uid", "0"], True, False),
    ("root, user namespace, --uid 1000", [], ["--unshare-all", "--uid", "1000"], True, False),
    ("root, --cap-drop ALL", [], ["--unshare-pid", "--cap-drop", "ALL"], True, False),
    ("root, user namespace, root's capabilities", [], ["--unshare-all"], False, False),
]
for label, prefix, extra, execs, fd_list_refused in CASES:
    r = subprocess.run(prefix + [RINGFENCE, "bwrap"] + ROOT + extra + ["python3", "-c", ATTACK],
                       capture_output=True, text=True, timeout=60)
    line = r.stdout.strip()
    print(f"# {label}: rc={r.returncode} {line} {r.stderr.strip()}")
    fields = dict(kv.split("=", 1) for kv in line.split()) if line else {}
    attacks = ["ptrace-attach", "mem", "environ", "fd-reopen", "pidfd_getfd", "exe"]
    if fd_list_refused:
        attacks.append("fd-list")
    for attack in attacks:
        ok = fields.get(attack, "").startswith("blocked")
        print(("ok - " if ok else "not ok - ") + f"{label}: {attack} on the reaper is refused ({fields.get(attack)})")
        if not ok:
            failures.append(f"{label} {attack}")
    ok = (fields.get("pid1-argc") == "1") == execs
    print(("ok - " if ok else "not ok - ") + f"{label}: pid 1 {'is' if execs else 'is not'} the reaper "
          f"program (argc {fields.get('pid1-argc')})")
    if not ok:
        failures.append(f"{label} exec")
    # pid 1 ignores signals it has no handler for, even from inside (the kernel's rule).
    ok = r.returncode == 0
    print(("ok - " if ok else "not ok - ") + f"{label}: the sandbox exited normally (rc {r.returncode})")
    if not ok:
        failures.append(f"{label} rc")

# The owner outside: an unprivileged caller opens the namespaces of its sandbox's pid 1 (how
# bwrap --userns/--pidns joins a running sandbox), sees that pid 1 runs the reaper program from
# its memfd, that the caller's seccomp program (--seccomp, allow-all) is installed in it and
# that it still dies with the launcher (--die-with-parent).
OWNER = r"""
import json, os, struct, subprocess, sys, time
rf = sys.argv[1]
info_r, info_w = os.pipe()
prog_r, prog_w = os.pipe()
os.write(prog_w, struct.pack("HBBI", 0x06, 0, 0, 0x7FFF0000))  # BPF_RET|BPF_K ALLOW
os.close(prog_w)
os.dup2(info_w, 40)
os.dup2(prog_r, 41)
root = sys.argv[2:]
a = subprocess.Popen([rf, "bwrap"] + root + ["--unshare-user", "--unshare-pid", "--die-with-parent", "--info-fd", "40",
                     "--seccomp", "41", "sleep", "30"], pass_fds=[40, 41])
os.close(40)
os.close(41)
os.close(info_w)
buf = b""
while b"}" not in buf:
    chunk = os.read(info_r, 4096)
    if not chunk:
        break
    buf += chunk
pid = json.loads(buf)["child-pid"]
out = {}
for _ in range(500):  # the reaper execs once the command has started; then the owner opens
    try:
        out["exe"] = os.readlink(f"/proc/{pid}/exe").replace(" ", "_")
    except OSError as e:
        out["exe"] = "refused:" + e.strerror.replace(" ", "_")
    if "memfd" in out["exe"]:
        break
    time.sleep(0.01)
for name in ("user", "pid"):
    try:
        os.close(os.open(f"/proc/{pid}/ns/{name}", os.O_RDONLY))
        out["ns-" + name] = "opened"
    except OSError as e:
        out["ns-" + name] = "refused:" + e.strerror.replace(" ", "_")
with open(f"/proc/{pid}/status") as f:
    st = dict(line.split(":", 1) for line in f)
out["seccomp"] = st["Seccomp"].strip() + "/" + st.get("Seccomp_filters", "?").strip()
a.kill()  # --die-with-parent: the reaper's death signal ends the sandbox with the launcher
a.wait()
for _ in range(200):
    if not os.path.exists(f"/proc/{pid}"):
        break
    time.sleep(0.01)
out["died-with-launcher"] = "no" if os.path.exists(f"/proc/{pid}") else "yes"
print(" ".join(f"{k}={v}" for k, v in sorted(out.items())))
"""
r = subprocess.run(UNPRIV + ["/usr/bin/python3", "-c", OWNER, RINGFENCE] +
                   [a for a in ROOT if a not in ("--dev", "/dev")], capture_output=True, text=True, timeout=60)
print(f"# owner: rc={r.returncode} {r.stdout.strip()} {r.stderr.strip()}")
fields = dict(kv.split("=", 1) for kv in r.stdout.split()) if r.returncode == 0 else {}
for key, want in (("ns-user", "opened"), ("ns-pid", "opened"), ("exe", "/memfd:ringfence-reaper_(deleted)"),
                  ("seccomp", "2/1"), ("died-with-launcher", "yes")):
    ok = fields.get(key) == want
    print(("ok - " if ok else "not ok - ") + f"owner: {key} is {want} ({fields.get(key)})")
    if not ok:
        failures.append(f"owner {key}")
sys.exit(1 if failures else 0)
