#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# --bind-fd/--ro-bind-fd against Debian's bwrap (which carries the option): same content,
# flags, exit codes and messages; the fd is consumed (not visible in the command); a source fd
# whose object is gone is refused. As root and unprivileged.
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
        "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--unshare-pid"]
failures = []


def check(name, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


def run(prefix, launcher, args, fd):
    r = subprocess.run(prefix + launcher + args, capture_output=True, text=True, timeout=30,
                       pass_fds=[fd] if fd is not None else [])
    return r.returncode, r.stdout, r.stderr.replace("bwrap: ", "")


def main():
    work = tempfile.mkdtemp(prefix="rf-bindfd-")
    try:
        os.chmod(work, 0o755)
        d = os.path.join(work, "dir")
        os.mkdir(d)
        os.chmod(d, 0o777)
        with open(os.path.join(d, "f"), "w") as f:
            f.write("content\n")
        gone = os.path.join(work, "gone")
        os.mkdir(gone)
        script = ("cat /x/f; ls /proc/self/fd | sort -n | tr '\\n' ' '; echo; "
                  "grep ' /x ' /proc/self/mountinfo | cut -d' ' -f6; touch /x/new 2>&1; echo rc=$?")
        for who, prefix in (("root", []), ("unprivileged", UNPRIV)):
            for opt in ("--bind-fd", "--ro-bind-fd"):
                results = []
                for launcher in ([RINGFENCE, "bwrap"], ["/usr/bin/bwrap"]):
                    fd = os.open(d, os.O_PATH | os.O_DIRECTORY)
                    try:
                        results.append(run(prefix, launcher, BASE + [opt, str(fd), "/x", "sh", "-c", script], fd))
                    finally:
                        os.close(fd)
                    for leftover in ("new",):
                        p = os.path.join(d, leftover)
                        if os.path.exists(p):
                            os.unlink(p)
                check(f"{who} {opt}: same result as bwrap", results[0] == results[1],
                      f"\nringfence {results[0]}\nbwrap     {results[1]}")
                check(f"{who} {opt}: content visible", results[0][1].startswith("content\n"), results[0][1])
            # The fd's object was removed: there is no path to bind.
            fd = os.open(gone, os.O_PATH | os.O_DIRECTORY)
            os.rmdir(gone)
            try:
                rf = run(prefix, [RINGFENCE, "bwrap"], BASE + ["--bind-fd", str(fd), "/x", "true"], fd)
                bw = run(prefix, ["/usr/bin/bwrap"], BASE + ["--bind-fd", str(fd), "/x", "true"], fd)
            finally:
                os.close(fd)
                os.mkdir(gone)
            check(f"{who}: removed source refused like bwrap", rf == bw and rf[0] == 1, f"\n{rf}\n{bw}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
