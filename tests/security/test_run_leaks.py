#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What `ringfence run` lets a command reach next to it, or leaves behind on the host, attacked
from inside, as root and as uid 65534, at every level:

  launcher_*   the launcher's environment holds credential variables with a random token (the
               ones the plan drops from the command's); the command reads /proc/$PPID/environ and
               opens /proc/$PPID/mem (reading every mapping it lists when that opens). Its parent
               is the launcher itself at the soft and landlock levels (forced with --level, and the
               fallback under syscall_jail --deny-userns), the sandbox's pid 1 at the kernel level.
               Neither the token nor the memory may be reached.
  scratch_*    the command makes its throwaway HOME and TMPDIR hard to remove: a directory tree
               under a `chmod 000` directory, a 0500 directory with entries, symlinks to a canary
               directory outside (which must keep its content: never followed), a chain of 300
               nested directories, and finally `chmod 000` on HOME and TMPDIR themselves. After
               the run nothing of them is left under $XDG_RUNTIME_DIR/ringfence (set to a fresh
               directory per case) and no removal failure is reported.
  etc_*        (kernel and landlock levels) the host's /etc gets, for the duration of the case, a
               root-only file (0600) holding a token, a 0700 directory with a world-readable file
               in it, and a world-readable directory holding a 0600 file; none of the three may be
               read in the sandbox, while /etc/passwd still can. Run as 65534 too: the cover must
               not break an unprivileged run. Removed afterwards, also on failure.

usage: test_run_leaks.py RINGFENCE SYSCALL_JAIL
"""

import ast
import os
import secrets
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import BASE_ENV, SETPRIV, Suite, check, fail, require_program, stage  # noqa: E402

suite = Suite("security-run-leaks")
JAIL = {"path": None}

# The ways a run reaches each level: (name, wrapper before ringfence, options of `run`).
LEVELS = {
    "kernel": ([], []),
    "landlock": ([], ["--level", "landlock"]),
    "soft": ([], ["--level", "soft"]),
    "fallback": (["JAIL", "--deny-userns", "--"], []),
    "fallback-soft": (["JAIL", "--deny-userns", "--"], ["--level", "soft"]),
}

PARENT_ATTACK = r'''
import os, sys
token = sys.argv[1][::-1].encode()   # given reversed: the launcher's argv must not hold it
ppid = os.getppid()
res = {"ppid": ppid}
try:
    with open(f"/proc/{ppid}/environ", "rb") as f:
        env = f.read()
    res["environ"] = "TOKEN FOUND" if token in env else f"read, {len(env)} bytes, no token"
except OSError as e:
    res["environ"] = "refused: " + os.strerror(e.errno)
try:
    fd = os.open(f"/proc/{ppid}/mem", os.O_RDONLY)
except OSError as e:
    res["mem"] = "refused: " + os.strerror(e.errno)
else:
    found, read = False, 0
    try:
        with open(f"/proc/{ppid}/maps") as m:
            for line in m:
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                if "r" not in line.split()[1] or hi - lo > (64 << 20):
                    continue
                try:
                    chunk = os.pread(fd, hi - lo, lo)
                except OSError:
                    continue
                read += len(chunk)
                found = found or token in chunk
    except OSError:
        pass
    os.close(fd)
    res["mem"] = f"OPENED ({read} bytes read" + (", TOKEN FOUND)" if found else ")")
print(repr(res))
'''


def run(ctx, level, argv, env_extra=None, cwd=None, timeout=120):
    wrapper, opts = LEVELS[level]
    wrapper = [JAIL["path"] if w == "JAIL" else w for w in wrapper]
    env = dict(BASE_ENV)
    env.update(env_extra or {})
    full = (SETPRIV if ctx.unpriv else []) + wrapper + [ctx.h.target, "run", "--no-profile"] + opts + [
        "--"] + argv
    r = subprocess.run(full, cwd=cwd, env=env, capture_output=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    return r, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def expect_level(err, level):
    want = {"kernel": "kernel", "landlock": "landlock", "soft": "soft", "fallback": "landlock",
            "fallback-soft": "soft"}[level]
    check(f"level {want}," in err, f"expected a run at the {want} level; stderr={err[-800:]!r}")


# ------------------------------------------------------------------------------------------------
# The launcher's environment and memory

def launcher_case(ctx, level):
    require_program("/usr/bin/python3", "python3", "the attack script")
    proj = ctx.mkdtemp(owned=True)
    token = "rfcanary" + secrets.token_hex(12)
    creds = {"AWS_SECRET_ACCESS_KEY": token, "GITHUB_TOKEN": token, "RF_LEAK_CANARY": token}
    r, out, err = run(ctx, level, ["/usr/bin/python3", "-c", PARENT_ATTACK, token[::-1]],
                      env_extra=creds, cwd=proj)
    check(r.returncode == 0, f"the attack script failed: exit {r.returncode}; stderr={err[-1500:]!r}")
    expect_level(err, level)
    res = ast.literal_eval(out.strip().splitlines()[-1])
    if "TOKEN FOUND" in res["environ"] or not res["mem"].startswith("refused"):
        fail(f"{level}: the command reached its parent (pid {res['ppid']}): environ: {res['environ']}; "
             f"mem: {res['mem']}")
    check(token not in out + err, "the token appeared in the run's output")


for _lvl in LEVELS:
    suite.case(name=f"launcher_{_lvl}")(lambda ctx, _l=_lvl: launcher_case(ctx, _l))


# ------------------------------------------------------------------------------------------------
# Scratch directories left behind

SCRATCH_SCRIPT = r'''
set -e
canary="$1"
for d in "$HOME" ${TMPDIR:+"$TMPDIR"}; do
  mkdir -p "$d/a/b" && touch "$d/a/b/f" && chmod 000 "$d/a"
  mkdir -p "$d/ro/sub" && touch "$d/ro/f" "$d/ro/sub/g" && chmod 0500 "$d/ro"
  ln -s "$canary" "$d/link"
  mkdir "$d/hidden" && ln -s "$canary" "$d/hidden/link" && ln -s "$canary/keep" "$d/hidden/file" \
    && chmod 000 "$d/hidden"
  p="$d/deep"; i=0
  while [ $i -lt 300 ]; do p="$p/d"; i=$((i + 1)); done
  mkdir -p "$p" && touch "$p/f" && chmod 0500 "$p"
  chmod 000 "$d"
done
echo "made: HOME=$HOME TMPDIR=${TMPDIR:-}"
'''


def scratch_case(ctx, level):
    proj = ctx.mkdtemp(owned=True)
    runtime = ctx.mkdtemp(owned=True, mode=0o700)
    canary = ctx.mkdtemp(owned=True)
    os.makedirs(os.path.join(canary, "sub"))
    for rel in ("keep", "sub/keep"):
        with open(os.path.join(canary, rel), "w") as f:
            f.write("canary\n")
    if ctx.unpriv:
        for root, dirs, files in os.walk(canary):
            for n in dirs + files:
                os.chown(os.path.join(root, n), ctx.uid, ctx.uid)
    r, out, err = run(ctx, level, ["/bin/sh", "-c", SCRATCH_SCRIPT, "sh", canary],
                      env_extra={"XDG_RUNTIME_DIR": runtime}, cwd=proj)
    check(r.returncode == 0 and "made:" in out,
          f"the script failed: exit {r.returncode}; stdout={out[-500:]!r} stderr={err[-1500:]!r}")
    expect_level(err, level)
    base = os.path.join(runtime, "ringfence")
    left = sorted(n for n in (os.listdir(base) if os.path.isdir(base) else [])
                  if n.startswith("home-") or n.startswith("tmp-"))
    kept = sorted(os.path.relpath(os.path.join(rt, n), canary)
                  for rt, ds, fs in os.walk(canary) for n in ds + fs)
    problems = []
    if left:
        problems.append(f"left under {base}: {', '.join(left)}")
    if kept != ["keep", "sub", "sub/keep"]:
        problems.append(f"the canary directory outside was changed (a symlink followed): {kept}")
    if "cannot remove" in err:
        problems.append("removal failures reported: " + err[err.find("cannot remove"):][:800])
    if problems:
        fail(f"{level}: " + "; ".join(problems) + f"\n  ({out.strip()})")
    # Leave nothing of a failed run either (the case's own tree is removed by the harness).
    subprocess.run(["chmod", "-R", "u+rwx", base], capture_output=True)


for _lvl in LEVELS:
    suite.case(name=f"scratch_{_lvl}")(lambda ctx, _l=_lvl: scratch_case(ctx, _l))


# ------------------------------------------------------------------------------------------------
# Root-only entries of /etc

ETC_ATTACK = r'''
import os, sys
token = sys.argv[1][::-1]
res = {}
for p in sys.argv[2:]:
    try:
        if os.path.isdir(p):
            names = os.listdir(p)
            res[p] = "listed: " + ",".join(sorted(names))
            for n in names:
                try:
                    with open(os.path.join(p, n)) as f:
                        if token in f.read():
                            res[p] += " TOKEN FOUND in " + n
                except OSError:
                    pass
        else:
            with open(p) as f:
                data = f.read()
            res[p] = "TOKEN FOUND" if token in data else f"read {len(data)} bytes"
    except OSError as e:
        res[p] = "refused: " + os.strerror(e.errno)
print(repr(res))
'''


def etc_case(ctx, level):
    require_program("/usr/bin/python3", "python3", "the attack script")
    proj = ctx.mkdtemp(owned=True)
    token = "rfcanary" + secrets.token_hex(12)
    tag = secrets.token_hex(4)
    secret = f"/etc/rf-test-secret-{tag}"
    private_dir = f"/etc/rf-test-dir-{tag}"
    public_dir = f"/etc/rf-test-pub-{tag}"
    made = [secret, private_dir, public_dir]
    try:
        fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, f"password={token}\n".encode())
        os.close(fd)
        os.mkdir(private_dir, 0o700)
        with open(os.path.join(private_dir, "psk"), "w") as f:
            f.write(f"psk={token}\n")
        os.chmod(os.path.join(private_dir, "psk"), 0o644)
        os.mkdir(public_dir, 0o755)
        os.chmod(public_dir, 0o755)
        fd = os.open(os.path.join(public_dir, "key"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, f"key={token}\n".encode())
        os.close(fd)
        paths = [secret, private_dir, os.path.join(private_dir, "psk"), os.path.join(public_dir, "key"),
                 "/etc/passwd"]
        r, out, err = run(ctx, level, ["/usr/bin/python3", "-c", ETC_ATTACK, token[::-1]] + paths,
                          cwd=proj)
        check(r.returncode == 0, f"the attack script failed: exit {r.returncode}; stderr={err[-1500:]!r}")
        expect_level(err, level)
        res = ast.literal_eval(out.strip().splitlines()[-1])
        got = [f"{p}: {v}" for p, v in res.items() if "TOKEN FOUND" in v]
        if got:
            fail(f"{level}: root-only /etc entries readable in the sandbox:\n  " + "\n  ".join(got))
        check(res["/etc/passwd"].startswith("read") and not res["/etc/passwd"].startswith("read 0 "),
              f"/etc/passwd is no longer readable: {res['/etc/passwd']}")
        check(token not in out + err, "the token appeared in the run's output")
    finally:
        for p in made:
            if os.path.isdir(p):
                shutil.rmtree(p, ignore_errors=True)
            elif os.path.lexists(p):
                os.unlink(p)


for _lvl in ("kernel", "landlock", "fallback"):
    suite.case(name=f"etc_{_lvl}")(lambda ctx, _l=_lvl: etc_case(ctx, _l))


def setup(h):
    JAIL["path"] = stage(JAIL["path"])[0]


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    JAIL["path"] = sys.argv[2]
    # The harness wants a probe; the jail stands in (nothing here runs it as one).
    sys.exit(suite.main(sys.argv[1:], setup=setup))
