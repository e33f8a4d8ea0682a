#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compat: whole invocations shaped like the ones real programs send to bwrap (Flatpak's app
launch: every option in an --args fd, --info-fd read by the caller, a --seccomp program,
--file/--bind-data/--ro-bind-data for generated files, --die-with-parent, --lock-file,
--sync-fd; an agent-style read-only sandbox with a writable project). Each runs under both
implementations and must give the same exit code, output, stderr and --info-fd report."""

import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat import CompatSuite, expand  # noqa: E402
from rftest import Pipe, check, fd_with_data  # noqa: E402

C = CompatSuite("compat-flatpak")

ARGS_FD, INFO_FD, SECCOMP_FD, FILE_FD, PASSWD_FD, GROUP_FD, SYNC_FD = 70, 71, 72, 73, 74, 75, 76
AUDIT_ARCH_X86_64 = 0xC000003E
NR_PERSONALITY = 135


def bpf(*insns):
    return b"".join(struct.pack("<HBBI", *i) for i in insns)


# Flatpak-like filter: on x86_64, personality() -> EPERM, everything else allowed.
SECCOMP = bpf(
    (0x20, 0, 0, 4),                    # ld [arch]
    (0x15, 0, 3, AUDIT_ARCH_X86_64),    # jeq x86_64 ? next : allow
    (0x20, 0, 0, 0),                    # ld [nr]
    (0x15, 0, 1, NR_PERSONALITY),       # jeq personality ? next : allow
    (0x06, 0, 0, 0x00050000 | 1),       # ret ERRNO(EPERM)
    (0x06, 0, 0, 0x7FFF0000),           # ret ALLOW
)

FLATPAK_INFO = b"[Application]\nname=org.example.App\nruntime=runtime/org.example.Platform\n"

SCRIPT = r"""
echo "ids: $(id -u) $(id -g)"
echo "cwd: $(pwd)"
echo "env: FLATPAK_ID=$FLATPAK_ID XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR HOME=$HOME LEAK=${LEAK-unset}"
cat /.flatpak-info
head -n 2 /etc/passwd
cat /etc/group
stat -c '%a %U %n' /run/user/"$(id -u)" /.flatpak-info /etc/passwd /etc/group
grep -E '^(Seccomp|NoNewPrivs):' /proc/self/status
setarch x86_64 -R true 2>/dev/null; echo "personality: $?"
echo data > /etc/passwd 2>/dev/null; echo "write ro-bind-data: $?"
echo data > /etc/group 2>/dev/null; echo "write bind-data: $?"
ls /app /usr/bin/sh >/dev/null && echo "app and usr visible"
ls /home 2>&1 | head -n 1
exit 7
"""


def flatpak_args(uid):
    return [
        "--unshare-all", "--share-net", "--die-with-parent", "--new-session",
        "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev",
        "--tmpfs", "/tmp", "--dir", "/app", "--ro-bind", "{fx}/dir", "/app/dir",
        "--perms", "0700", "--dir", f"/run/user/{uid}",
        "--perms", "0644", "--file", str(FILE_FD), "/.flatpak-info",
        "--ro-bind-data", str(PASSWD_FD), "/etc/passwd",
        "--perms", "0644", "--bind-data", str(GROUP_FD), "/etc/group",
        "--lock-file", "/.flatpak-info", "--sync-fd", str(SYNC_FD),
        "--clearenv", "--setenv", "FLATPAK_ID", "org.example.App",
        "--setenv", "XDG_RUNTIME_DIR", f"/run/user/{uid}", "--setenv", "HOME", "/app",
        "--setenv", "PATH", "/usr/bin", "--chdir", "/app",
        "--seccomp", str(SECCOMP_FD), "--info-fd", str(INFO_FD),
    ]


def normalise_info(text):
    try:
        info = json.loads(text)
    except ValueError:
        return {"<not json>": text}
    check(isinstance(info.get("child-pid"), int) and info["child-pid"] > 0,
          f"child-pid is a pid: {text!r}")
    return sorted(info.keys())


def flatpak_launch(ctx, form):
    h = ctx.h
    uid = 0 if ctx.user == "root" else 65534
    words = expand(h, h.fx, flatpak_args(uid))
    data = "".join(w + "\0" for w in words).encode()
    fds = [fd_with_data(data, ARGS_FD), fd_with_data(SECCOMP, SECCOMP_FD),
           fd_with_data(FLATPAK_INFO, FILE_FD),
           fd_with_data(b"root:x:0:0::/root:/bin/sh\nnobody:x:65534:65534::/:/bin/sh\n", PASSWD_FD),
           fd_with_data(b"root:x:0:\nnogroup:x:65534:\n", GROUP_FD)]
    sync_r, sync_w = os.pipe()
    os.dup2(sync_w, SYNC_FD, inheritable=True)
    os.close(sync_w)
    fds.append(SYNC_FD)
    info = Pipe(INFO_FD)
    try:
        r = ctx.run(["--args", str(ARGS_FD), "sh", "-c", SCRIPT], form=form,
                    pass_fds=fds + [INFO_FD], env={"LEAK": "secret"})
        info.close_inside()
        text, _ = info.read_until(5)
        for fd in fds:
            os.close(fd)
        fds = []
        # the sandbox side held --sync-fd: closed everywhere once it is gone
        os.set_blocking(sync_r, False)
        try:
            sync_eof = os.read(sync_r, 1) == b""
        except BlockingIOError:
            sync_eof = False
        return {"exit": r.rc, "stdout": r.stdout, "stderr": r.stderr,
                "info": normalise_info(text.decode() if isinstance(text, bytes) else text),
                "sync-fd closed": sync_eof}
    finally:
        for fd in fds:
            os.close(fd)
        os.close(sync_r)
        info.close()


C.scenario("flatpak-app-launch", covers=[
    "--args", "--info-fd", "--seccomp", "--file", "--bind-data", "--ro-bind-data",
    "--die-with-parent", "--lock-file", "--sync-fd", "--perms", "--new-session", "--clearenv",
    "--setenv", "--chdir", "--share-net", "--unshare-all"])(flatpak_launch)


# An agent-style sandbox: the whole host read-only, the project writable, no network, a
# private /tmp, the caller's home hidden behind a tmpfs.
AGENT_SCRIPT = r"""
touch /tmp/t && echo "tmp writable"
echo x > "$PROJ/out" && echo "project writable"
touch /usr/x 2>/dev/null || echo "usr read-only"
ls -A /root 2>/dev/null | wc -l
cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '
exit 0
"""


def agent_shell(ctx, form):
    h = ctx.h
    proj = os.path.join(h.fx, "rw")
    r = ctx.run(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                 "--tmpfs", "/root", "--bind", proj, proj, "--unshare-all", "--die-with-parent",
                 "--setenv", "PROJ", proj, "--chdir", proj, "sh", "-c", AGENT_SCRIPT], form=form)
    try:
        os.unlink(os.path.join(proj, "out"))
    except FileNotFoundError:
        pass
    return {"exit": r.rc, "stdout": r.stdout, "stderr": r.stderr}


C.scenario("agent-readonly-host", covers=["--ro-bind", "--bind", "--tmpfs"])(agent_shell)


if __name__ == "__main__":
    sys.exit(C.main())
