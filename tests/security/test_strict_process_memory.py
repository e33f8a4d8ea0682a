#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""profiles/strict promises that one process of the sandbox cannot reach another's memory
("A payload that runs next to the agent cannot lift secrets (API keys, tokens) out of the
agent's memory"). The policy refuses ptrace, process_vm_readv/writev and pidfd_getfd, which
test_seccomp_policy checks. This file attacks the promise itself, around the filter: a process
reads and writes a sibling's memory through /proc/PID/mem, reads its environment through
/proc/PID/environ and reopens one of its descriptors (a memfd) through /proc/PID/fd/N, the
path equivalent of pidfd_getfd, under `ringfence run --seccomp strict` and `--preset hardened`.

KNOWN HOLE at the time of writing: all four succeed (the kernel grants them to the same uid
under the ptrace access checks of /proc; open, read and write are not calls a filter can refuse
by path).
meson runs this file with should_fail, so the suite stays green while the hole is there and turns
red (unexpected pass) when the engine closes it: then drop should_fail.
"""

import ast
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import BASE_ENV, SETPRIV, Suite, check, fail, require_program  # noqa: E402

suite = Suite("security-strict-process-memory")

ATTACK = r'''
import ctypes, os, time
secret = ctypes.create_string_buffer(b"RF-SECRET-TOKEN-0123456789")
addr = ctypes.addressof(secret)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    mfd = os.memfd_create("sibling-secret")
    os.write(mfd, b"RF-SECRET-IN-A-DESCRIPTOR")
    os.write(w, str(mfd).encode())
    time.sleep(30)
    os._exit(0)
os.close(w)
child_fd = int(os.read(r, 16))
res = {}
def attempt(name, fn):
    try:
        res[name] = fn()
    except OSError as e:
        res[name] = "refused: " + os.strerror(e.errno)
def read_mem():
    with open(f"/proc/{pid}/mem", "rb") as f:
        f.seek(addr)
        return f.read(len(secret.value)).decode(errors="replace")
def write_mem():
    with open(f"/proc/{pid}/mem", "r+b") as f:
        f.seek(addr)
        f.write(b"X")
        return "written"
def environ():
    with open(f"/proc/{pid}/environ", "rb") as f:
        return "read" if b"RF_TEST_MARK=1" in f.read() else "read, no marker"
attempt("proc_mem_read", read_mem)
attempt("proc_mem_write", write_mem)
def reopen_fd():
    with open(f"/proc/{pid}/fd/{child_fd}", "rb") as f:
        return f.read().decode(errors="replace")
attempt("proc_environ", environ)
attempt("proc_fd_reopen", reopen_fd)
os.kill(pid, 9)
os.waitpid(pid, 0)
print(repr(res))
'''


def attack(ctx, extra):
    require_program("/usr/bin/python3", "python3", "the attack script")
    proj = ctx.mkdtemp(owned=True)
    argv = [ctx.h.target, "run", "--no-profile", "--env", "RF_TEST_MARK=1"] + extra + [
        "--", "/usr/bin/python3", "-c", ATTACK]
    full = (SETPRIV if ctx.unpriv else []) + argv
    r = subprocess.run(full, cwd=proj, env=dict(BASE_ENV), capture_output=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    check(r.returncode == 0, f"attack script failed: exit {r.returncode}\n  "
          f"stderr={r.stderr.decode(errors='replace')[-1500:]}")
    res = ast.literal_eval(r.stdout.decode().strip().splitlines()[-1])
    got = [f"{k}: {v}" for k, v in sorted(res.items()) if not str(v).startswith("refused")]
    if got:
        fail(f"{' '.join(extra)}: a process reached its sibling's memory, environment or "
             f"descriptors around the filter:\n  " + "\n  ".join(got))


@suite.case()
def strict_profile(ctx):
    attack(ctx, ["--network", "off", "--seccomp", "strict"])


@suite.case()
def hardened_preset(ctx):
    attack(ctx, ["--preset", "hardened"])


if __name__ == "__main__":
    sys.exit(suite.main())
