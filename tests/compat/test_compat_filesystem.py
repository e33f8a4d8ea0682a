#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compat: filesystem operations. Runs in a private mount namespace of its own, where the
fixture directory gets a tmpfs submount ({fx}/dir/mnt, noexec) so recursive bind flags are
compared too."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import CompatSuite, minimal, probe  # noqa: E402

C = CompatSuite("compat-filesystem")


def base(*extra):
    return minimal(*extra, unshare_all=False)


def j(*paths):
    return probe("json", *paths)


# binds
for opt in ("--bind", "--ro-bind", "--dev-bind"):
    o = opt.strip("-")
    C.case(f"{o}-dir", minimal(opt, "{fx}/dir", "/d") + j("/d", "/d/f", "/d/sub", "/d/mnt",
                                                           "/d/mnt/m"))
    C.case(f"{o}-file", minimal(opt, "{fx}/file", "/a/b/f") + j("/a", "/a/b", "/a/b/f"))
    C.case(f"{o}-symlink-source", minimal(opt, "{fx}/link-to-dir", "/l") + j("/l", "/l/f"))
    C.case(f"{o}-over-existing", minimal(opt, "{fx}/dir", "/usr/share") + j("/usr/share/f"))
    C.case(f"{o}-missing-source", minimal(opt, "{fx}/nonexistent", "/x") + j("/x"), ref_rc=1)
    C.case(f"{o}-try-missing", minimal(opt + "-try", "{fx}/nonexistent", "/x") + j("/x"))
    C.case(f"{o}-try-existing", minimal(opt + "-try", "{fx}/dir", "/x") + j("/x", "/x/f"))
    C.case(f"{o}-relative-source", minimal(opt, "usr/share", "/x") + j("/x"),
           cwd="/", ref_rc=0)
    C.case(f"{o}-dev-null", minimal(opt, "/dev", "/hostdev") + probe("open", "/hostdev/null",
                                                                    "rw"))
C.case("ro-bind-write-top", minimal("--ro-bind", "{fx}/rw", "/rw") + probe("write", "/rw/x"))
C.case("ro-bind-write-submount", minimal("--ro-bind", "{fx}/dir", "/d")
       + probe("write", "/d/mnt/x"))
C.case("bind-write", minimal("--bind", "{fx}/rw", "/rw") + probe("write", "/rw/x"))
C.case("bind-nested-ro-inside-rw", minimal("--bind", "{fx}/dir", "/d", "--ro-bind", "{fx}/rw",
                                           "/d/sub") + j("/d/sub"))
C.case("bind-root-over-root", ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
                               "--", "{host_probe}", "json", "/usr", "/tmp"], json=True)
C.case("bind-dest-relative", minimal("--ro-bind", "{fx}/dir", "rel/d") + j("/rel/d"))
C.case("bind-twice-same-dest", minimal("--ro-bind", "{fx}/dir", "/x", "--bind", "{fx}/rw",
                                       "/x") + j("/x"))
C.case("bind-file-over-dir", minimal("--dir", "/x", "--ro-bind", "{fx}/file", "/x") + j("/x"),
       ref_rc=None)
C.case("bind-dir-over-file", minimal("--ro-bind", "{fx}/file", "/x", "--ro-bind", "{fx}/dir",
                                     "/x") + j("/x"), ref_rc=None)

# --remount-ro
C.case("remount-ro-tmpfs", minimal("--tmpfs", "/t", "--remount-ro", "/t") + j("/t"))
C.case("remount-ro-write", minimal("--tmpfs", "/t", "--remount-ro", "/t")
       + probe("write", "/t/x"))
C.case("remount-ro-not-recursive", minimal("--tmpfs", "/t", "--tmpfs", "/t/s",
                                           "--remount-ro", "/t") + j("/t", "/t/s"))
C.case("remount-ro-bind", minimal("--bind", "{fx}/dir", "/d", "--remount-ro", "/d") + j("/d"))
C.case("remount-ro-missing", minimal("--remount-ro", "/nonexistent") + j(), ref_rc=1)
C.case("remount-ro-root", minimal("--remount-ro", "/") + j("/"))
C.case("remount-ro-non-mountpoint", minimal("--dir", "/x", "--remount-ro", "/x") + j("/x"),
       ref_rc=None)

# --proc
C.case("proc-pid-ns", minimal() + probe("ls", "/proc"), ref_rc=0)
C.case("proc-no-pid-ns", base("--unshare-user") + j("/proc/1", "/proc/sys", "/proc/bus"),
       users=("unpriv",))
C.case("proc-other-dest", minimal("--proc", "/p2") + j("/p2/self", "/p2/1"))
C.case("proc-twice", minimal("--proc", "/proc") + j())

# --dev
C.case("dev-listing", minimal() + probe("ls", "/dev"))
C.case("dev-paths", minimal() + j("/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                  "/dev/urandom", "/dev/tty", "/dev/stdin", "/dev/stdout",
                                  "/dev/stderr", "/dev/fd", "/dev/core", "/dev/ptmx",
                                  "/dev/pts", "/dev/pts/ptmx", "/dev/shm", "/dev/console"))
C.case("dev-other-dest", minimal("--dev", "/d2") + probe("ls", "/d2"))
C.case("dev-ptmx-open", minimal() + probe("open", "/dev/ptmx", "rw"))
C.case("dev-shm-write", minimal() + probe("write", "/dev/shm/x"))
C.case("dev-without-proc", ["--ro-bind", "/usr", "/usr", "--dev", "/dev", "{probe_bind}"]
       + probe("ls", "/dev"))

# --tmpfs / --perms / --size
C.case("tmpfs", minimal("--tmpfs", "/t") + j("/t"))
C.case("tmpfs-perms", minimal("--perms", "0700", "--tmpfs", "/t") + j("/t"))
C.case("tmpfs-perms-sticky", minimal("--perms", "1777", "--tmpfs", "/t") + j("/t"))
C.case("tmpfs-size", minimal("--size", "1048576", "--tmpfs", "/t") + j("/t"))
C.case("tmpfs-size-hex", minimal("--size", "0x100000", "--tmpfs", "/t") + j("/t"))
C.case("tmpfs-size-octal", minimal("--size", "0400000", "--tmpfs", "/t") + j("/t"))
C.case("tmpfs-size-odd", minimal("--size", "12345", "--tmpfs", "/t") + j("/t"))
C.case("tmpfs-size-perms", minimal("--size", "65536", "--perms", "0750", "--tmpfs", "/t")
       + j("/t"))
C.case("tmpfs-perms-size", minimal("--perms", "0750", "--size", "65536", "--tmpfs", "/t")
       + j("/t"))
C.case("tmpfs-perms-next-only", minimal("--perms", "0700", "--tmpfs", "/t1", "--tmpfs", "/t2")
       + j("/t1", "/t2"))
C.case("tmpfs-nested-parents", minimal("--perms", "0750", "--tmpfs", "/a/b/c")
       + j("/a", "/a/b", "/a/b/c"))
C.case("tmpfs-over-root", ["--tmpfs", "/", "--ro-bind", "/usr", "/usr", "{probe_bind}"]
       + j("/"), ref_rc=None)
C.case("tmpfs-size-huge", minimal("--size", "99999999999999999999", "--tmpfs", "/t") + j(),
       ref_rc=1)

# --dir / --perms
C.case("dir", minimal("--dir", "/a/b/c") + j("/a", "/a/b", "/a/b/c"))
C.case("dir-perms", minimal("--perms", "0700", "--dir", "/a/b") + j("/a", "/a/b"))
C.case("dir-perms-group", minimal("--perms", "0750", "--dir", "/a/b") + j("/a", "/a/b"))
C.case("dir-perms-other", minimal("--perms", "0705", "--dir", "/a/b") + j("/a", "/a/b"))
C.case("dir-perms-setgid", minimal("--perms", "2755", "--dir", "/a") + j("/a"))
C.case("dir-existing", minimal("--perms", "0700", "--dir", "/tmp") + j("/tmp"))
C.case("dir-existing-file", minimal("--ro-bind", "{fx}/file", "/f", "--dir", "/f") + j("/f"),
       ref_rc=None)
C.case("dir-under-ro", minimal("--dir", "/usr/rf-new") + j(), ref_rc=1)
C.case("dir-under-file", minimal("--ro-bind", "{fx}/file", "/f", "--dir", "/f/x") + j(),
       ref_rc=1)
C.case("dir-relative", minimal("--dir", "rel/x") + j("/rel", "/rel/x"))
C.case("dir-dotdot", minimal("--dir", "/a/../b") + j("/a", "/b"), ref_rc=None)

# --symlink (new destinations only: conflicts changed after 0.8.0, see the integration suite)
C.case("symlink-abs", minimal("--symlink", "/usr/share", "/s") + j("/s", "/s/doc"))
C.case("symlink-rel", minimal("--symlink", "../x/y", "/a/s") + j("/a", "/a/s"))
C.case("symlink-dangling", minimal("--symlink", "nowhere", "/tmp/s") + j("/tmp/s"))
C.case("symlink-then-dir-through-it", minimal("--dir", "/real", "--symlink", "real", "/l",
                                              "--dir", "/l/sub") + j("/real/sub", "/l"))
C.case("symlink-under-ro", minimal("--symlink", "x", "/usr/rf-link") + j(), ref_rc=1)

# --chmod
C.case("chmod-dir", minimal("--dir", "/d", "--chmod", "0700", "/d") + j("/d"))
C.case("chmod-tmpfs", minimal("--tmpfs", "/t", "--chmod", "1777", "/t") + j("/t"))
C.case("chmod-root", minimal("--chmod", "0700", "/") + j("/"))
C.case("chmod-missing", minimal("--chmod", "0700", "/nope") + j(), ref_rc=1)
C.case("chmod-follows-symlink", minimal("--dir", "/real", "--symlink", "real", "/l",
                                        "--chmod", "0711", "/l") + j("/real", "/l"))
C.case("chmod-ro", minimal("--chmod", "0700", "/usr") + j(), ref_rc=1)
C.case("chmod-before-create", minimal("--chmod", "0700", "/d", "--dir", "/d") + j(), ref_rc=1)

# ordering
C.case("ops-in-order", minimal("--dir", "/o/early", "--tmpfs", "/o", "--dir", "/o/late")
       + j("/o/early", "/o/late"))
C.case("empty-root", ["{probe_bind}"] + j("/", "/usr", "/proc"))
C.case("root-listing", minimal() + probe("ls", "/"))

# beyond the required list: data ops and their --perms defaults
C.case("file", minimal("--file", "20", "/etc/f") + j("/etc", "/etc/f"),
       data_fds={20: b"file content\n"})
C.case("file-perms", minimal("--perms", "0640", "--file", "20", "/f") + j("/f"),
       data_fds={20: b"x"})
C.case("bind-data", minimal("--bind-data", "20", "/b") + j("/b"), data_fds={20: b"bound\n"})
C.case("ro-bind-data", minimal("--ro-bind-data", "20", "/b") + probe("write", "/b"),
       data_fds={20: b"bound\n"})
C.case("ro-bind-data-perms", minimal("--perms", "0444", "--ro-bind-data", "20", "/b") + j("/b"),
       data_fds={20: b"bound\n"})
C.case("file-cat", minimal("--file", "20", "/f") + probe("cat", "/f"), data_fds={20: b"abc"})
C.case("lock-file", minimal("--lock-file", "/usr/bin/env") + j())
# bwrap's pid 1 opens the lock files while the command already runs, so a command that prints
# would race with pid 1's failure. A command that sleeps prints nothing: the run must end at
# once with pid 1's error, exit 1 (an ignored lock file would sleep 15 s and exit 0).
C.case("lock-file-missing", minimal("--lock-file", "/nonexistent") + probe("sleep", "15"),
       ref_rc=1)


if __name__ == "__main__":
    compat.rftest.Harness.want_submount = True   # {fx}/dir/mnt becomes a tmpfs submount
    sys.exit(C.main())
