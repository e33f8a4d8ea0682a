#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compat: the data operations --file, --bind-data and --ro-bind-data (bwrap-compat.md 1.2):
content (empty, binary, large, from a pipe), modes (0666 / 0600 defaults, --perms, parents),
read-only vs writable, destinations that exist or cannot be made, bad descriptors; and that the
data lives nowhere else: the bound file is an unlinked one (link count 0), no other path in the
sandbox holds the data, and no file on the host or descriptor of the launcher does. (Simple
cases for these options also live in test_compat_filesystem.py.)"""

import os
import secrets
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat import CompatSuite, expand, minimal, probe  # noqa: E402
from rftest import Live, check, check_eq, fd_with_data, processes_matching  # noqa: E402

C = CompatSuite("compat-dataops")


def j(*paths):
    return probe("json", *paths)


BINARY = bytes(range(256)) * 4 + b"\0\0end"
LARGE = b"".join(b"%07d large data line\n" % i for i in range(12000))   # ~260 KiB

# --file
C.case("file-empty", minimal("--file", "20", "/f") + j("/f"), data_fds={20: b""})
C.case("file-binary", minimal("--file", "20", "/f") + probe("cat", "/f"), data_fds={20: BINARY})
C.case("file-large", minimal("--file", "20", "/f") + probe("cat", "/f"), data_fds={20: LARGE})
C.case("file-from-pipe", minimal("--file", "0", "/f") + probe("cat", "/f"),
       stdin=b"read from a pipe until EOF\n")
C.case("file-perms-parents", minimal("--perms", "0600", "--file", "20", "/a/b/f")
       + j("/a", "/a/b", "/a/b/f"), data_fds={20: b"x"})
C.case("file-perms-setuid", minimal("--perms", "4755", "--file", "20", "/f") + j("/f"),
       data_fds={20: b"x"})
C.case("file-perms-0000", minimal("--perms", "0000", "--file", "20", "/f") + j("/f"),
       data_fds={20: b"x"})
C.case("file-default-parents", minimal("--file", "20", "/a/b/f") + j("/a", "/a/b", "/a/b/f"),
       data_fds={20: b"x"})
C.case("file-in-tmpfs", minimal("--tmpfs", "/t", "--file", "20", "/t/f") + j("/t", "/t/f"),
       data_fds={20: b"x"})
C.case("file-writable", minimal("--file", "20", "/f") + probe("write", "/f", "new"),
       data_fds={20: b"x"})
C.case("file-twice-same-dest", minimal("--perms", "0640", "--file", "20", "/f", "--file", "21",
                                       "/f") + j("/f"), data_fds={20: b"first", 21: b"2nd"})
C.case("file-twice-same-dest-content", minimal("--file", "20", "/f", "--file", "21", "/f")
       + probe("cat", "/f"), data_fds={20: b"first content", 21: b"2nd"})
C.case("file-relative-dest", minimal("--file", "20", "rel/f") + j("/rel", "/rel/f"),
       data_fds={20: b"x"})
C.case("file-same-fd-twice", minimal("--file", "20", "/f1", "--file", "20", "/f2")
       + j("/f1", "/f2"), data_fds={20: b"once"}, ref_rc=1)
C.case("file-under-ro", minimal("--file", "20", "/usr/rf-x") + j(), data_fds={20: b"x"},
       ref_rc=1)
C.case("file-dest-is-dir", minimal("--file", "20", "/tmp") + j(), data_fds={20: b"x"}, ref_rc=1)
C.case("file-fd-closed", minimal("--file", "69", "/f") + j(), ref_rc=1)
C.case("file-fd-write-only", minimal("--file", "1", "/f") + probe("exit", "0"), ref_rc=1)
C.case("file-fd-invalid", minimal("--file", "x1", "/f") + j(), ref_rc=1)
C.case("file-missing-dest", minimal("--file", "20"), data_fds={20: b"x"}, ref_rc=1)
C.case("file-perms-then-other-op", minimal("--perms", "0600", "--bind", "{fx}/dir", "/d",
                                           "--file", "20", "/f") + j(), data_fds={20: b"x"},
       ref_rc=1)
C.case("file-no-pidns", minimal("--file", "20", "/f", unshare_all=False) + j("/f"),
       data_fds={20: b"x"})

# --bind-data / --ro-bind-data
for opt in ("--bind-data", "--ro-bind-data"):
    o = opt.strip("-")
    C.case(f"{o}-default", minimal(opt, "20", "/b") + j("/b"), data_fds={20: b"data\n"})
    C.case(f"{o}-empty", minimal(opt, "20", "/b") + probe("cat", "/b"), data_fds={20: b""})
    C.case(f"{o}-binary", minimal(opt, "20", "/b") + probe("cat", "/b"), data_fds={20: BINARY})
    C.case(f"{o}-large", minimal(opt, "20", "/b") + probe("cat", "/b"), data_fds={20: LARGE})
    C.case(f"{o}-from-pipe", minimal(opt, "0", "/b") + probe("cat", "/b"),
           stdin=b"piped data\n")
    C.case(f"{o}-perms", minimal("--perms", "0644", opt, "20", "/b") + j("/b"),
           data_fds={20: b"x"})
    C.case(f"{o}-perms-parents", minimal("--perms", "0640", opt, "20", "/a/b/c")
           + j("/a", "/a/b", "/a/b/c"), data_fds={20: b"x"})
    C.case(f"{o}-default-parents", minimal(opt, "20", "/a/b/c") + j("/a", "/a/b", "/a/b/c"),
           data_fds={20: b"x"})
    C.case(f"{o}-write", minimal(opt, "20", "/b") + probe("write", "/b", "new"),
           data_fds={20: b"x"})
    C.case(f"{o}-open-rw", minimal(opt, "20", "/b") + probe("open", "/b", "rw"),
           data_fds={20: b"x"})
    C.case(f"{o}-unlinked", minimal(opt, "20", "/b") + probe("stat", "/b"), data_fds={20: b"x"})
    C.case(f"{o}-over-file", minimal("--file", "20", "/f", opt, "21", "/f")
           + probe("cat", "/f"), data_fds={20: b"under", 21: b"over"})
    C.case(f"{o}-over-file-json", minimal("--file", "20", "/f", opt, "21", "/f") + j("/f"),
           data_fds={20: b"under", 21: b"over"})
    C.case(f"{o}-over-usr-file", minimal(opt, "20", "/usr/bin/env") + probe("cat", "/usr/bin/env"),
           data_fds={20: b"replaced"})
    C.case(f"{o}-over-dir", minimal(opt, "20", "/tmp") + j(), data_fds={20: b"x"}, ref_rc=1)
    C.case(f"{o}-under-ro", minimal(opt, "20", "/usr/rf-x") + j(), data_fds={20: b"x"}, ref_rc=1)
    C.case(f"{o}-fd-closed", minimal(opt, "69", "/b") + j(), ref_rc=1)
    C.case(f"{o}-fd-write-only", minimal(opt, "1", "/b") + probe("exit", "0"), ref_rc=1)
    C.case(f"{o}-missing-dest", minimal(opt, "20"), data_fds={20: b"x"}, ref_rc=1)
    C.case(f"{o}-no-pidns", minimal(opt, "20", "/b", unshare_all=False) + j("/b"),
           data_fds={20: b"x"})
    # not compared: bwrap 0.8.0 fails `--remount-ro` on the bound file (it looks for
    # "/newroot/b (deleted)" in the mount table) and a second data bind on the same
    # destination (with the random temp name in the message)
C.case("bind-data-fds-consumed", minimal("--bind-data", "20", "/a", "--ro-bind-data", "21", "/b",
                                         "--file", "22", "/c") + j(),
       data_fds={20: b"a", 21: b"b", 22: b"c"})
C.case("bind-data-then-chmod", minimal("--bind-data", "20", "/b", "--chmod", "0755", "/b")
       + j("/b"), data_fds={20: b"x"})

# no other path in the sandbox holds the data: a root without /usr, so the probe can read all
TOKEN = "rf-scratch-token-7d1e"
for label, extra in (("", []), ("-pidns", ["--unshare-pid"]), ("-userns", ["--unshare-user"])):
    C.case(f"data-nowhere-else{label}",
           ["{probe_bind}", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"] + extra
           + ["--bind-data", "20", "/d/b", "--ro-bind-data", "21", "/d/r", "--file", "22", "/d/f"]
           + probe("grep", TOKEN, "/", "/proc", "/sys"),
           data_fds={20: f"bind {TOKEN}".encode(), 21: f"ro {TOKEN}".encode(),
                     22: f"file {TOKEN}".encode()})
    C.case(f"data-root-listing{label}",
           ["{probe_bind}", "--proc", "/proc"] + extra
           + ["--bind-data", "20", "/b", "--ro-bind-data", "21", "/r"] + probe("ls", "/"),
           data_fds={20: b"x", 21: b"y"})


# ------------------------------------------------------------------------------------------------
# Nothing on the host holds the data while the sandbox runs or after it: no file under the
# usual scratch places, no descriptor of the launcher's processes.

SCAN_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run")
STARTED = time.time()


def host_files_with(token, limit_files=400000):
    """Regular files in the host's temporary places holding the token. Only files changed since
    this program started can hold it (it is random), so only those are read; the walk itself is
    bounded (a shared /tmp can hold build trees)."""
    found, seen = [], 0
    needle = token.encode()
    for top in SCAN_DIRS:
        for root, dirs, files in os.walk(top):
            for f in files:
                p = os.path.join(root, f)
                seen += 1
                if seen > limit_files:
                    return found + [f"(scan stopped after {limit_files} files)"]
                try:
                    st = os.lstat(p)
                    if not os.path.stat.S_ISREG(st.st_mode) or st.st_size > (1 << 20):
                        continue
                    if max(st.st_mtime, st.st_ctime) < STARTED - 2:
                        continue
                    with open(p, "rb") as fh:
                        if needle in fh.read(1 << 20):
                            found.append(p)
                except OSError:
                    continue
    return sorted(found)


def launcher_fds_with(h, token):
    """Regular files (not the memfds the test handed in) open in the launcher's processes on
    the host that contain token."""
    found = []
    for pid, _ in processes_matching(h.token):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if not target.startswith("/") or target.startswith("/memfd:"):
                    continue
                with open(f"/proc/{pid}/fd/{fd}", "rb") as fh:
                    if token.encode() in fh.read(1 << 20):
                        found.append(f"pid {pid} fd {fd} -> {target}")
            except OSError:
                continue
    return found


def no_host_copy(ctx, form, args):
    h = ctx.h
    token = "rfdata" + secrets.token_hex(8)
    datas = {20: f"bind {token}".encode(), 21: f"ro {token}".encode(),
             22: f"file {token}".encode()}
    fds = [fd_with_data(v, k) for k, v in datas.items()]
    live = None
    try:
        argv = expand(h, h.fx, list(args) + ["--bind-data", "20", "/d/b", "--ro-bind-data", "21",
                                             "/d/r", "--file", "22", "/d/f"]
                      + probe("hold", "/d/b", "/d/r", "/d/f"))
        live = Live(h, argv, user=ctx.user, form=form, pass_fds=fds)
        for fd in fds:
            os.close(fd)
        fds = []
        line = live.first_line()
        check(line is not None, f"the command never started: {live.stderr!r}")
        res = {"paths": {k: {x: v[x] for x in ("mode", "size", "type")}
                         for k, v in __import__("json").loads(line)["paths"].items()}}
        res["host files with the data while running"] = host_files_with(token)
        res["launcher descriptors with the data"] = launcher_fds_with(h, token)
        live.release()
        res["exit"] = live.wait()
        res["stderr"] = live.stderr
        res["host files with the data after exit"] = host_files_with(token)
        for k in ("host files with the data while running", "launcher descriptors with the data",
                  "host files with the data after exit"):
            check_eq(res[k], [], k)
        return res
    finally:
        if live:
            live.cleanup()
        for fd in fds:
            os.close(fd)


for label, root in (("pidns", minimal()), ("nopidns", minimal(unshare_all=False))):
    C.scenario(f"data-not-on-host-{label}", covers=["--bind-data", "--ro-bind-data", "--file"])(
        lambda ctx, form, root=root: no_host_copy(ctx, form, root))


if __name__ == "__main__":
    sys.exit(C.main())
