#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compat: sandboxes that join namespaces made by an earlier one (bwrap-compat.md 1.2):
--pidns (alone, and as the parent of a new pid namespace with --unshare-pid) and --userns2
(the nested user namespace of an earlier sandbox), with their error cases.

Sandbox A holds with `probe hold`; sandbox B joins A's namespaces by fd. Every scenario also
checks, on every run (the reference's included), that B really is in A's namespaces, so a
case where both sides fail the same way cannot pass."""

import fcntl
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat import CompatSuite, expand, minimal, normalise_probe, probe  # noqa: E402
from rftest import NOBODY, Live, Pipe, check, check_eq, fail, host_ns  # noqa: E402

C = CompatSuite("compat-joined")

INFO_FD, B_INFO_FD, USERNS_FD, USERNS2_FD, PIDNS_FD = 60, 61, 66, 67, 68
NS_GET_USERNS, NS_GET_PARENT = 0xB701, 0xB702  # ioctls on a namespace fd (linux/nsfs.h)


def base(*extra):
    return minimal(*extra, unshare_all=False)


class Holder:
    """Sandbox A, started with the given form, reporting its child-pid on --info-fd."""

    def __init__(self, ctx, form, args):
        h = ctx.h
        self.info = Pipe(INFO_FD)
        self.live = None
        self.fds = []
        argv = expand(h, h.fx, list(args) + ["--info-fd", str(INFO_FD)] + probe("hold"))
        self.argv = h.invocation(form) + argv
        self.live = Live(h, argv, user=ctx.user, form=form, pass_fds=[INFO_FD])
        self.info.close_inside()
        text, _ = self.info.read_until(10)
        check(text, f"sandbox A gave no report: {self.live.stderr!r}")
        check(self.live.first_line() is not None, f"sandbox A never started: {self.live.stderr!r}")
        self.pid = json.loads(text)["child-pid"]

    def ns_fd(self, name, num, parent=False, owner=False):
        """A's namespace NAME at fd NUM; parent: its parent; owner: the user namespace that
        owns it (A's command may sit in a nested one)."""
        fd = os.open(f"/proc/{self.pid}/ns/{name}", os.O_RDONLY | os.O_CLOEXEC)
        if parent or owner:
            p = fcntl.ioctl(fd, NS_GET_PARENT if parent else NS_GET_USERNS)
            os.close(fd)
            fd = p
        os.dup2(fd, num, inheritable=True)
        os.close(fd)
        self.fds.append(num)
        return num

    def inode(self, name):
        return os.stat(f"/proc/{self.pid}/ns/{name}").st_ino

    def close(self):
        if self.live:
            self.live.release()
            self.live.wait()
            self.live.cleanup()
        self.info.close()
        for fd in self.fds:
            os.close(fd)


def joined(ctx, form, a_args, b_opts, checks):
    """Run B (b_opts(holder) + a minimal root + probe json) against a holder A; returns the
    normalised probe output, exit code and stderr; checks(holder, raw_probe) asserts that B
    really joined."""
    h = ctx.h
    a = Holder(ctx, form, a_args)
    try:
        opts = b_opts(a)
        argv = expand(h, h.fx, opts + base() + probe("json"))
        r = ctx.run(argv, form=form, pass_fds=a.fds)
        raw = json.loads(r.out) if r.rc == 0 else None
        if raw is not None:
            checks(a, raw)
        out = r.stdout
        if raw is not None:
            # A's pid 1 (compat.py): ringfence's shows only argv[0], as B's own pid 1 would
            a_pid1 = raw.get("pid1_cmdline") == a.argv or (
                raw.get("pid1_cmdline") == a.argv[:1] and raw["ns"]["pid"] == a.inode("pid"))
            out = normalise_probe(raw, r.pid, h.invocation(form) + argv, host_ns())
            if a_pid1:
                out["pid1_cmdline"] = "<A's launcher argv>"
        return {"exit": r.rc, "stdout": out, "stderr": r.stderr}
    finally:
        a.close()


def in_a_pidns(a, j):
    check_eq(j["ns"]["pid"], a.inode("pid"), "B's pid namespace is A's")
    check_eq(j["pid"], 3, "B's pid in A's namespace (A has pid 1 and 2)")


def under_a_pidns(a, j):
    check(j["ns"]["pid"] != a.inode("pid"), "B has a pid namespace of its own")
    check_eq(j["pid"], 2, "B's command is pid 2 under its own pid 1")


A_USER = minimal("--unshare-user")
C.scenario("pidns-joined", covers=["--pidns", "--userns"])(
    lambda ctx, form: joined(ctx, form, A_USER, lambda a: [
        "--userns", str(a.ns_fd("pid", USERNS_FD, owner=True)), "--pidns", str(a.ns_fd("pid", PIDNS_FD))],
        in_a_pidns))
C.scenario("pidns-joined-proc", covers=["--pidns", "--proc"])(
    lambda ctx, form: joined(ctx, form, A_USER, lambda a: [
        "--userns", str(a.ns_fd("pid", USERNS_FD, owner=True)), "--pidns", str(a.ns_fd("pid", PIDNS_FD)),
        "--unshare-ipc"], in_a_pidns))
C.scenario("pidns-joined-unshare-pid", covers=["--pidns", "--unshare-pid"])(
    lambda ctx, form: joined(ctx, form, A_USER, lambda a: [
        "--userns", str(a.ns_fd("pid", USERNS_FD, owner=True)), "--pidns", str(a.ns_fd("pid", PIDNS_FD)),
        "--unshare-pid"], under_a_pidns))


# bubblewrap's test-specifying-pidns.sh, the way Flatpak enters a running sandbox: A has one
# user namespace (no --dev, so no nested one) and a pid namespace; B is given A's child-pid's
# /proc/PID/ns/user and /proc/PID/ns/pid as they are, and must see A's processes. Opening those
# needs ptrace access to A's pid 1, which is not dumpable in ringfence: an unprivileged caller
# passes only because that pid 1 runs a program whose memory belongs to A's user namespace,
# which the caller owns (src/engine/reaper_exec.cpp).
NO_DEV = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
          "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "{probe_bind}"]


def open_as_caller(ctx, path, num):
    """PATH opened by the caller of the sandboxes (65534 for unprivileged runs), at fd NUM."""
    if not ctx.unpriv:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    else:
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.setgroups([])
                os.setresgid(NOBODY, NOBODY, NOBODY)
                os.setresuid(NOBODY, NOBODY, NOBODY)
                socket.send_fds(child, [b"ok"], [os.open(path, os.O_RDONLY)])
            except OSError as e:
                child.send(f"{e.strerror}".encode())
                code = 1
            os._exit(code)
        os.waitpid(pid, 0)
        msg, fds, _, _ = socket.recv_fds(parent, 256, 1)
        parent.close()
        child.close()
        if not fds:
            fail(f"opening {path} as {NOBODY}: {msg.decode()}")
        fd = fds[0]
    os.dup2(fd, num, inheritable=True)
    os.close(fd)
    return num


def pidns_of_child_pid(ctx, form):
    h = ctx.h
    a = Holder(ctx, form, NO_DEV + ["--unshare-user", "--unshare-pid"])
    try:
        opts = []
        for name, num in (("user", USERNS_FD), ("pid", PIDNS_FD)):
            opts += [f"--{name}ns", str(open_as_caller(ctx, f"/proc/{a.pid}/ns/{name}", num))]
            a.fds.append(num)
        r = ctx.run(expand(h, h.fx, opts + NO_DEV + probe("ls", "/proc")), form=form, pass_fds=a.fds)
        pids = sorted(int(k) for k in json.loads(r.out) if k.isdigit()) if r.rc == 0 else None
        if pids is not None:
            check(1 in pids and 2 in pids, f"B sees A's pid 1 and command: {pids}")
            with open(f"/proc/{a.pid}/task/{a.pid}/children") as f:
                a_cmd = int(f.read().split()[0])
            check_eq(os.stat(f"/proc/{a_cmd}/ns/pid").st_ino, a.inode("pid"), "A's command in A's pid ns")
        return {"exit": r.rc, "stderr": r.stderr, "pids": pids}
    finally:
        a.close()


C.scenario("pidns-of-child-pid", covers=["--pidns", "--userns", "--info-fd"])(pidns_of_child_pid)


def pidns_info(ctx, form):
    """--info-fd with --pidns: child-pid is the sandbox process as seen from the caller."""
    h = ctx.h
    a = Holder(ctx, form, A_USER)
    info = Pipe(B_INFO_FD)
    try:
        opts = ["--userns", str(a.ns_fd("pid", USERNS_FD, owner=True)), "--pidns",
                str(a.ns_fd("pid", PIDNS_FD)), "--info-fd", str(B_INFO_FD)]
        argv = expand(h, h.fx, opts + base() + probe("hold"))
        b = Live(h, argv, user=ctx.user, form=form, pass_fds=a.fds + [B_INFO_FD])
        try:
            info.close_inside()
            text, _ = info.read_until(10)
            check(b.first_line() is not None, f"sandbox B never started: {b.stderr!r}")
            cp = json.loads(text)["child-pid"]
            with open(f"/proc/{cp}/status") as f:
                nspid = [line.split()[1:] for line in f if line.startswith("NSpid:")][0]
            check_eq(os.stat(f"/proc/{cp}/ns/pid").st_ino, a.inode("pid"),
                     "child-pid is in A's pid namespace")
            keys = sorted(json.loads(text).keys())
            b.release()
            return {"keys": keys, "nspid-inside": nspid[-1], "exit": b.wait()}
        finally:
            b.cleanup()
    finally:
        info.close()
        a.close()


C.scenario("pidns-info-fd", covers=["--pidns", "--info-fd"])(pidns_info)


# --userns2: A runs with a uid other than 0 and --dev, so its command is in a second user
# namespace nested in the first; B joins the first with --userns and moves to the second.
A_NESTED = minimal("--unshare-user", "--uid", "1000", "--gid", "1000")


def in_a_nested_userns(a, j):
    check_eq(j["uid_map"], [[1000, 0, 1]], "B's uid map is the nested namespace's")
    check_eq((j["uid"]["real"], j["gid"]["real"]), (1000, 1000), "B's ids in the nested namespace")


def own_bounding_set():
    with open("/proc/self/status") as f:
        return [line.split()[1] for line in f if line.startswith("CapBnd:")][0]


# Entering a user namespace gives back a full bounding set (the kernel resets it on setns);
# bwrap leaves it so after --userns2, ringfence drops it again by its usual rules: everything for
# an unprivileged caller, the caller's own set for root.
def bounding_set_again(ref, user):
    if isinstance(ref.get("stdout"), dict):
        ref["stdout"]["caps"]["bnd"] = "0" * 16 if user == "unpriv" else own_bounding_set()
    return ref


C.scenario("userns2-nested", covers=["--userns2", "--userns"],
           documented=("the bounding set is dropped again after --userns2", bounding_set_again))(
    lambda ctx, form: joined(ctx, form, A_NESTED, lambda a: [
        "--userns", str(a.ns_fd("user", USERNS_FD, parent=True)),
        "--userns2", str(a.ns_fd("user", USERNS2_FD))], in_a_nested_userns))


def host_pidns(ctx, form):
    """--pidns with the caller's own pid namespace: root may enter it (the sandbox then runs
    as an ordinary host process), an unprivileged caller in a new user namespace may not.
    Only the first line of stderr is compared: bwrap's monitor adds a second one (below)."""
    h = ctx.h
    fd = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    os.dup2(fd, PIDNS_FD, inheritable=True)
    os.close(fd)
    try:
        r = ctx.run(expand(h, h.fx, ["--pidns", str(PIDNS_FD)] + base() + probe("exit", "7")),
                    form=form, pass_fds=[PIDNS_FD])
        return {"exit": r.rc, "stderr": r.stderr.splitlines()[:1]}
    finally:
        os.close(PIDNS_FD)


C.scenario("pidns-host", covers=["--pidns"])(host_pidns)


# bwrap follows the sandbox's own error with a second line from its monitor, "Unexpected short
# read from pid socket"; ringfence reports the sandbox's error only.
def short_read(ref, user):
    ref["stderr"] = ref["stderr"].replace("bwrap: Unexpected short read from pid socket\n", "")
    return ref


C.case("pidns-bad-fd", minimal("--pidns", "99") + probe("exit", "0"), ref_rc=1,
       documented=("the monitor's second message after a failed --pidns is not printed",
                   short_read))
C.case("pidns-not-a-number", minimal("--pidns", "x") + probe("exit", "0"), ref_rc=1)
C.case("userns2-not-a-number", minimal("--userns2", "-3") + probe("exit", "0"), ref_rc=1)


# A failed --userns2 leaves Debian's bwrap 0.8.0 hanging (its monitor exits, the sandbox side
# waits for it forever), so these are checked against the documented behaviour: the error, exit
# 1, nothing left running.
def userns2_fails(ctx, opts, want):
    h = ctx.h
    r = ctx.run(expand(h, h.fx, opts + minimal() + probe("exit", "0")))
    check_eq((r.rc, r.stderr), (1, want), "a failed --userns2")


C.suite.case(min_version=(0, 11, 1), name="userns2-bad-fd")(lambda ctx: userns2_fails(
    ctx, ["--userns2", "99"], "bwrap: Setting userns2 failed: Bad file descriptor\n"))
C.suite.case(min_version=(0, 11, 1), name="userns2-repeated-bad")(lambda ctx: userns2_fails(
    ctx, ["--userns2", "98", "--userns2", "99"],
    "bwrap: Only the last --userns2 option will take effect\n"
    "bwrap: Setting userns2 failed: Bad file descriptor\n"))


def userns2_wrong_kind(ctx):
    """--userns2 given a pid namespace: setns refuses it (EINVAL)."""
    h = ctx.h
    a = Holder(ctx, "default", A_NESTED)
    try:
        opts = ["--userns", str(a.ns_fd("user", USERNS_FD, parent=True)),
                "--userns2", str(a.ns_fd("pid", USERNS2_FD))]
        r = ctx.run(expand(h, h.fx, opts + base() + probe("exit", "0")), pass_fds=a.fds)
        check_eq((r.rc, r.stderr), (1, "bwrap: Setting userns2 failed: Invalid argument\n"),
                 "--userns2 with a pid namespace fd")
    finally:
        a.close()


C.suite.case(min_version=(0, 11, 1), name="userns2-wrong-kind")(userns2_wrong_kind)

if __name__ == "__main__":
    sys.exit(C.main())
