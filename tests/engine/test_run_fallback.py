#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ringfence run` on a host that refuses user namespaces (simulated: a seccomp filter refusing
# CLONE_NEWUSER, as Docker's default profile does): never silently unsandboxed. It falls back to
# the landlock level (this host has Landlock; test_run_landlock.py attacks it), or with
# `--level soft` to the soft jail, and says so on its level line; --require kernel refuses with
# 123, "network off" still holds at both levels (the connect policy refuses every inet
# destination, loopback included, while a listener on the host's loopback sees nothing), and HOME
# is still a throwaway directory.
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

RINGFENCE, JAIL = stage(sys.argv[1], sys.argv[2])
UNPRIV = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
failures = []


def check(name, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


def run(user, args, cwd, env):
    pre = UNPRIV if user == "unpriv" else []
    return subprocess.run(pre + [JAIL, "--deny-userns", "--", RINGFENCE, "run"] + args,
                          capture_output=True, text=True, timeout=60, cwd=cwd, env=env)


def main():
    base = tempfile.mkdtemp(prefix="rf-fallback-")
    os.chmod(base, 0o755)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    seen = []

    def accept_loop():
        while not stop.is_set():
            try:
                c, _ = listener.accept()
                seen.append(c)
            except OSError:
                pass
    stop = threading.Event()
    t = threading.Thread(target=accept_loop)
    t.start()
    try:
        for user in ("root", "unpriv"):
            proj = os.path.join(base, user)
            os.mkdir(proj)
            if user == "unpriv":
                os.chown(proj, 65534, 65534)
            env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent-rf-home", "LANG": "C",
                   "AWS_SECRET_ACCESS_KEY": "CANARY", "XDG_RUNTIME_DIR": ""}
            script = (f'echo "HOME=$HOME"; env | grep -c CANARY; '
                      f'python3 -c "import socket; s=socket.socket(); s.settimeout(3); '
                      f'print(s.connect_ex((\'127.0.0.1\', {port})))"')
            for level, extra in (("landlock", []), ("soft", ["--level", "soft"])):
                tag = f"{user}, {level}"
                r = run(user, extra + ["--network", "off", "--", "sh", "-c", script], proj, env)
                check(f"{tag}: runs", r.returncode == 0, f"rc={r.returncode} {r.stderr}")
                check(f"{tag}: the level line says {level}", r.stderr.startswith(f"ringfence: level {level}"),
                      r.stderr)
                lines = r.stdout.split("\n")
                check(f"{tag}: HOME is a throwaway directory", len(lines) > 1 and "/ringfence" in lines[0]
                      and "nonexistent" not in lines[0], r.stdout)
                check(f"{tag}: credentials dropped", len(lines) > 1 and lines[1] == "0", r.stdout)
                check(f"{tag}: network off refuses loopback too (ECONNREFUSED)",
                      len(lines) > 2 and lines[2] == "111", r.stdout)
            r = run(user, ["--network", "off", "--dry-run", "--", "true"], proj, env)
            check(f"{user}: the dry run names the cause", "CLONE_NEWUSER" in r.stdout and "level: landlock" in r.stdout,
                  r.stdout[:2000])
            r = run(user, ["--require", "kernel", "--", "true"], proj, env)
            check(f"{user}: --require kernel refuses (123)", r.returncode == 123, f"rc={r.returncode} {r.stderr}")
        check("the host's listener saw no connection", not seen, f"{len(seen)} connections")
    finally:
        stop.set()
        t.join()
        listener.close()
        shutil.rmtree(base, ignore_errors=True)
    print(f"{'FAIL' if failures else 'PASS'}: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
