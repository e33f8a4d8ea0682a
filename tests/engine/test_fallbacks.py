#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The engine's fallbacks for older kernels give the same sandbox: clone3, openat2 and
# mount_setattr are made to fail with ENOSYS (as on kernels without them) and the mount
# table, flags and escape resistance are compared with a normal run. As root and unprivileged.
# Pid 1 without its reaper program (no memfd_create, no execveat) stays the launcher's clone
# and still reports the command's status.
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

RINGFENCE, JAIL = stage(sys.argv[1], sys.argv[2])
UNPRIV = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
MINIMAL = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
           "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
failures = []


def run(prefix, args, enosys=()):
    jail = [JAIL] + [a for n in enosys for a in ("--enosys", n)] + ["--"] if enosys else []
    cmd = prefix + jail + [RINGFENCE, "bwrap"] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


def mount_view(text):
    # mount point and per-mount options: what the sandbox sees, without ids and devices
    return sorted(" ".join(line.split()[4:6]) for line in text.splitlines() if line)


def check(name, cond, detail=""):
    if not cond:
        failures.append(f"{name}: {detail}")
        print(f"not ok - {name}: {detail}")
    else:
        print(f"ok - {name}")


def main():
    work = tempfile.mkdtemp(prefix="rf-fallback-")
    os.chmod(work, 0o755)
    host_dir = os.path.join(work, "hostdir")
    os.mkdir(host_dir)
    os.chmod(host_dir, 0o777)
    src = os.path.join(work, "src")
    os.mkdir(src)
    os.chmod(src, 0o755)
    view = MINIMAL + ["--unshare-all", "--bind", src, "/src", "--tmpfs", "/t", "--remount-ro", "/t",
                      "--ro-bind", "/etc", "/etc", "cat", "/proc/self/mountinfo"]
    escape = MINIMAL + ["--symlink", host_dir, "/tmp/evil", "--symlink", "../../.." + host_dir, "/tmp/evil2",
                        "--dir", "/tmp/evil/made-by-dir", "--bind", src, "/tmp/evil2/made-by-bind", "true"]
    try:
        for who, prefix in (("root", []), ("unprivileged", UNPRIV)):
            base = run(prefix, view)
            check(f"{who}: baseline runs", base.returncode == 0, base.stderr)
            for missing in (["clone3"], ["openat2"], ["mount_setattr"], ["clone3", "openat2", "mount_setattr"]):
                label = f"{who}: without {'+'.join(missing)}"
                r = run(prefix, view, missing)
                check(label + " runs", r.returncode == 0, r.stderr)
                check(label + " same mounts", mount_view(r.stdout) == mount_view(base.stdout),
                      f"\n{mount_view(r.stdout)}\n!=\n{mount_view(base.stdout)}")
                e = run(prefix, escape, missing)
                check(label + " planted symlink refused", e.returncode == 1 and "Can't mkdir" in e.stderr,
                      f"rc={e.returncode} {e.stderr}")
                check(label + " host dir untouched", os.listdir(host_dir) == [], str(os.listdir(host_dir)))
        # argc of pid 1: 1 once it runs the reaper program, the launcher's argc when it stayed
        pid1 = MINIMAL + ["--unshare-all", "sh", "-c", 'sleep 0.5; tr "\\0" "\\n" </proc/1/cmdline | wc -l; exit 7']
        for who, prefix in (("unprivileged", UNPRIV), ("root, --cap-drop ALL", [])):
            extra = ["--cap-drop", "ALL"] if not prefix else []
            base = run(prefix, extra + pid1)
            check(f"{who}: pid 1 runs the reaper program", (base.returncode, base.stdout.strip()) == (7, "1"),
                  f"rc={base.returncode} argc={base.stdout.strip()} {base.stderr}")
            for missing in (["execveat"], ["memfd_create"]):
                r = run(prefix, extra + pid1, missing)
                argc = r.stdout.strip()
                check(f"{who}: without {missing[0]} pid 1 stays and reports the status",
                      r.returncode == 7 and argc.isdigit() and int(argc) > 1,
                      f"rc={r.returncode} argc={argc} {r.stderr}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"1..{len(failures)} failures" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
