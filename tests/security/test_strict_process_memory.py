#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""profiles/strict refuses the calls that reach into another process (ptrace,
process_vm_readv/writev, pidfd_getfd: test_seccomp_policy tries each). Within one sandbox the
kernel still lets processes of the same uid open each other's /proc/PID/mem, environ and fd/N,
and strict says so; what ringfence promises instead is that separate sandboxes are apart. This
file attacks that promise around the filter: a victim sandbox holds a secret in memory, in its
environment and in a memfd; an attacker sandbox of the same user, given the victim's host pid
and the secret's address, tries /proc/PID/mem (read and write), /proc/PID/environ,
/proc/PID/fd/N and a /proc scan for the victim, under `--seccomp strict` and `--preset hardened`
in the kernel jail (a PID namespace of its own: the victim cannot be named) and at the landlock
level (the host's /proc is visible; Landlock refuses tracing across domains).
"""

import ast
import os
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import (BASE_ENV, SETPRIV, Suite, check, fail, kill_pids,  # noqa: E402
                    processes_matching, require_program)

suite = Suite("security-strict-process-memory")

VICTIM = r'''
import ctypes, os, sys, time
secret = ctypes.create_string_buffer(b"RF-SECRET-TOKEN-0123456789")
mfd = os.memfd_create("victim-secret")
os.write(mfd, b"RF-SECRET-IN-A-DESCRIPTOR")
print(ctypes.addressof(secret), mfd, flush=True)
time.sleep(60)
'''

ATTACK = r"""
import os, sys
pid, addr, fd, token = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
res = {}
def attempt(name, fn):
    try:
        res[name] = fn()
    except OSError as e:
        res[name] = "refused: " + os.strerror(e.errno)
def read_mem():
    with open(f"/proc/{pid}/mem", "rb") as f:
        f.seek(addr)
        got = f.read(26)
        return "secret read" if got.startswith(b"RF-SECRET") else "refused: other memory"
def write_mem():
    with open(f"/proc/{pid}/mem", "r+b") as f:
        f.seek(addr)
        f.write(b"X")
        return "written"
def environ():
    with open(f"/proc/{pid}/environ", "rb") as f:
        return "read" if token.encode() in f.read() else "refused: not the victim"
def reopen_fd():
    with open(f"/proc/{pid}/fd/{fd}", "rb") as f:
        return "secret read" if f.read().startswith(b"RF-SECRET") else "refused: not the victim"
def scan():
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if token.encode() in f.read():
                    return f"victim found as {d}, environment read"
        except OSError:
            pass
    return "refused: not found"
attempt("proc_mem_read", read_mem)
attempt("proc_mem_write", write_mem)
attempt("proc_environ", environ)
attempt("proc_fd_reopen", reopen_fd)
attempt("proc_scan", scan)
print(repr(res))
"""


def is_python(pid):
    try:
        return "python3" in os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return False


def sandbox(ctx, extra, token, script, *args):
    # (The throwaway HOMEs go under the case's own runtime directory: see env_for.)
    return ((SETPRIV if ctx.unpriv else []) +
            [ctx.h.target, "run", "--no-profile", "--env", "RF_VICTIM_MARK=" + token] + extra +
            ["--", "/usr/bin/python3", "-c", script] + list(args))


def attack(ctx, extra):
    require_program("/usr/bin/python3", "python3", "the attack script")
    token = "rf-victim-" + uuid.uuid4().hex
    victim_dir, attacker_dir = ctx.mkdtemp(owned=True), ctx.mkdtemp(owned=True)
    env = dict(BASE_ENV, XDG_RUNTIME_DIR=ctx.mkdtemp(owned=True, mode=0o700))
    victim = subprocess.Popen(sandbox(ctx, extra, token, VICTIM, token), cwd=victim_dir,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL)
    try:
        line = victim.stdout.readline().decode().split()
        if len(line) != 2:
            fail(f"the victim sandbox did not start: {victim.stderr.read(1500)!r}")
        addr, fd = line
        # The victim's host pid: the python process whose command line carries the token.
        pids = []
        deadline = time.monotonic() + 5
        while not pids and time.monotonic() < deadline:
            pids = [p for p, _ in processes_matching(token) if is_python(p)]
            time.sleep(0.02)
        check(len(pids) == 1, f"cannot tell the victim's host pid: {pids}")
        r = subprocess.run(sandbox(ctx, extra, "attacker", ATTACK, str(pids[0]), addr, fd, token),
                           cwd=attacker_dir, env=env, capture_output=True, timeout=120,
                           stdin=subprocess.DEVNULL)
        check(r.returncode == 0, f"attack script failed: exit {r.returncode}\n  "
              f"stderr={r.stderr.decode(errors='replace')[-1500:]}")
        res = ast.literal_eval(r.stdout.decode().strip().splitlines()[-1])
        got = [f"{k}: {v}" for k, v in sorted(res.items()) if not str(v).startswith("refused")]
        if got:
            fail(f"{' '.join(extra)}: a sandbox reached another sandbox's memory, environment "
                 f"or descriptors:\n  " + "\n  ".join(got))
    finally:
        # SIGTERM: the launcher ends the sandbox and removes its scratch directories (a SIGKILL
        # would leave them behind).
        victim.terminate()
        try:
            victim.wait(timeout=20)
        except subprocess.TimeoutExpired:
            victim.kill()
            victim.wait()
        kill_pids([p for p, _ in processes_matching(token)])
        left = [n for n in os.listdir(env["XDG_RUNTIME_DIR"] + "/ringfence")
                if n.startswith(("home-", "tmp-"))] if os.path.isdir(env["XDG_RUNTIME_DIR"] + "/ringfence") else []
        check(not left, f"the sandboxes left scratch directories behind: {left}")


@suite.case()
def strict_profile(ctx):
    attack(ctx, ["--network", "off", "--seccomp", "strict"])


@suite.case()
def hardened_preset(ctx):
    attack(ctx, ["--preset", "hardened"])


@suite.case()
def strict_landlock_level(ctx):
    attack(ctx, ["--network", "off", "--seccomp", "strict", "--level", "landlock"])


if __name__ == "__main__":
    sys.exit(suite.main())
