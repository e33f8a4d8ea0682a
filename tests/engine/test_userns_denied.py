#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# On a host that denies user namespaces (simulated: a seccomp filter refusing CLONE_NEWUSER,
# as Docker's default profile does; and a user namespace whose max_user_namespaces is 0),
# bwrap mode fails as bwrap does: its message, exit 1, nothing started, nothing left behind.
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

RINGFENCE, JAIL = stage(sys.argv[1], sys.argv[2])
UNPRIV = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
ARGS = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/lib", "/lib",
        "/usr/bin/touch", "/tmp/rf-userns-denied-marker"]
failures = []


def check(name, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


def main():
    import os
    marker = "/tmp/rf-userns-denied-marker"
    if os.path.exists(marker):
        os.unlink(marker)
    r = subprocess.run(UNPRIV + [JAIL, "--deny-userns", "--", RINGFENCE, "bwrap"] + ARGS,
                       capture_output=True, text=True, timeout=30)
    check("unprivileged, userns refused by seccomp: exit 1", r.returncode == 1, f"rc={r.returncode}")
    check("unprivileged, userns refused by seccomp: bwrap's message",
          r.stderr.startswith("bwrap: No permissions to creating new namespace"), r.stderr)
    check("unprivileged, userns refused by seccomp: command not run", not os.path.exists(marker))

    # max_user_namespaces = 0 inside a user namespace we own: a nested one cannot be made.
    # The engine runs as uid 0 of that namespace (the only id it maps).
    limit = "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\""
    nested = UNPRIV + ["unshare", "-U", "-r", "-m", "sh", "-c", limit, "sh", RINGFENCE, "bwrap"]
    r = subprocess.run(nested + ["--unshare-user"] + ARGS, capture_output=True, text=True, timeout=30)
    check("max_user_namespaces=0, --unshare-user: exit 1", r.returncode == 1, f"rc={r.returncode} {r.stderr}")
    check("max_user_namespaces=0, --unshare-user: clear message",
          r.stderr.startswith("bwrap: Creating new namespace failed"), r.stderr)
    check("max_user_namespaces=0, --unshare-user: command not run", not os.path.exists(marker))
    r = subprocess.run(nested + ["--unshare-user-try", "--unshare-pid", "--proc", "/proc"] + ARGS[:-2] +
                       ["/usr/bin/cat", "/proc/self/uid_map"], capture_output=True, text=True, timeout=30)
    check("max_user_namespaces=0, --unshare-user-try: runs without a new user namespace",
          r.returncode == 0 and r.stdout.split() == ["0", "65534", "1"], f"rc={r.returncode} {r.stdout} {r.stderr}")

    # Root without any namespace request still works under the same filter (no user
    # namespace is needed by root), and --unshare-user-try falls back silently... only where
    # the host says so: bwrap tries and fails, so does ringfence.
    r = subprocess.run([JAIL, "--deny-userns", "--", RINGFENCE, "bwrap"] + ARGS[:-2] + ["/usr/bin/true"],
                       capture_output=True, text=True, timeout=30)
    check("root, no user namespace asked: runs", r.returncode == 0, r.stderr)
    r = subprocess.run([JAIL, "--deny-userns", "--", RINGFENCE, "bwrap", "--unshare-user"] + ARGS[:-2] +
                       ["/usr/bin/true"], capture_output=True, text=True, timeout=30)
    check("root, --unshare-user refused: exit 1", r.returncode == 1, f"rc={r.returncode} {r.stderr}")
    check("root, --unshare-user refused: message", r.stderr.startswith("bwrap: Creating new namespace failed"),
          r.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
