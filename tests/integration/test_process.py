#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Process lifecycle: exit status, exec failures, the pid-1 reaper, --die-with-parent,
--new-session, --as-pid-1, seccomp filters (bwrap-compat.md 2.1-2.3, 1.2)."""

import errno
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import (Skip, Suite, bpf_filter, check, check_eq, fd_with_data, fail,  # noqa: E402
                    kill_pids, seccomp_supported_arch)

suite = Suite("integration-process")


def roots(ctx):
    """(label, root args) with and without a pid namespace (reaper vs direct child)."""
    return [("pid ns", ctx.h.minimal_root()),
            ("no pid ns", ctx.h.minimal_root(unshare_all=False))]


@suite.case()
def exit_status(ctx):
    for label, root in roots(ctx):
        for n in (0, 3, 42, 255):
            r = ctx.probe([], ["exit", str(n)], root=root)
            check_eq(r.rc, n, f"{label}: exit code of COMMAND exiting {n}")
            check_eq(r.stderr, "", f"{label}: stderr of a run exiting {n}")
        for sig, code in ((signal.SIGKILL, 137), (signal.SIGTERM, 143), (signal.SIGINT, 130),
                          (signal.SIGUSR1, 138)):
            r = ctx.probe([], ["kill", str(int(sig))], root=root)
            check_eq(r.rc, code, f"{label}: exit code of COMMAND killed by {sig.name}")


@suite.case()
def exit_status_when_killed_from_outside(ctx):
    h = ctx.h
    for label, root in roots(ctx):
        for sig, code in ((signal.SIGKILL, 137), (signal.SIGTERM, 143)):
            p = h.spawn(root + ["--", h.probe, "sleep", "30"], user=ctx.user)
            try:
                pids = h.wait_for(lambda: h.sandboxed("sleep"))
                check(pids, f"{label}: the sandboxed probe never started")
                os.kill(pids[0], sig)
                rc = p.wait(timeout=10)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            check_eq(rc, code, f"{label}: launcher exit code when COMMAND gets {sig.name}")


@suite.case()
def exec_failure(ctx):
    for label, root in roots(ctx):
        for cmd in ("/nonexistent-rf-command", "rf-no-such-command"):
            r = ctx.run(root + ["--", cmd])
            check_eq((r.rc, r.stderr, r.stdout),
                     (1, f"bwrap: execvp {cmd}: No such file or directory\n", ""),
                     f"{label}: exec of a missing command")
        r = ctx.run(root + ["--", "/usr"])
        check_eq((r.rc, r.stderr), (1, "bwrap: execvp /usr: Permission denied\n"),
                 f"{label}: exec of a directory")


@suite.case()
def command_found_via_path(ctx):
    r = ctx.run(ctx.h.minimal_root() + ["--setenv", "PATH", ctx.h.probe_dir, "--", "probe",
                                        "exit", "9"])
    check_eq(r.rc, 9, f"COMMAND looked up in the PATH set by --setenv\n  {r.describe()}")


@suite.case()
def orphans_are_reaped_in_pid_ns(ctx):
    r = ctx.probe([], ["reap-check"])
    res = r.json()
    check(res["orphan_gone"] and res["zombies"] == [],
          f"an orphan that exited stayed a zombie in the sandbox's pid namespace: {res}")
    # Control: as pid 1 the probe itself inherits orphans and never reaps them.
    res = ctx.probe(["--as-pid-1"], ["reap-check"]).json()
    check(res["zombies"], f"control case: with --as-pid-1 the orphan should stay a zombie: {res}")


@suite.case()
def launcher_does_not_wait_for_orphans(ctx):
    h = ctx.h
    # stdout goes to a file: the pid-1 reaper keeps the caller's stdio open until the orphan
    # is gone, so a pipe would only see EOF then; the launcher's own exit is what counts.
    t0 = time.monotonic()
    p = h.spawn(h.minimal_root() + ["--", h.probe, "orphan", "2500"], user=ctx.user)
    try:
        rc = p.wait(timeout=15)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    dt = time.monotonic() - t0
    check_eq(rc, 0, "exit code of `probe orphan`")
    check(dt < 2.0, f"the launcher waited {dt:.1f}s for an orphan (bwrap returns as soon as "
                    "COMMAND exits)")
    # The reaper keeps running until the orphan exits, then everything is gone.
    gone = h.wait_for(lambda: not h.wait_no_leftovers(timeout=0), timeout=6)
    check(gone, "sandbox processes still alive 6s after a 2.5s orphan: "
                f"{h.wait_no_leftovers(timeout=0)}")


def die_with_parent_case(ctx, root, label, wrapper=None, flag=True):
    """Start `probe sleep 60`, SIGKILL the launcher (or the wrapper that started it), and
    return whether the sandboxed probe is still alive 1.5s later."""
    h = ctx.h
    extra = ["--die-with-parent"] if flag else []
    p = h.spawn(root + extra + ["--", h.probe, "sleep", "60"], user=ctx.user, wrapper=wrapper)
    try:
        pids = h.wait_for(lambda: h.sandboxed("sleep"))
        if not pids:
            with open(p.err_path, "rb") as f:
                err = f.read()
            fail(f"{label}: the sandboxed probe never started (exit {p.poll()}, stderr {err!r})")
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        if flag:
            gone = h.wait_for(lambda: not h.sandboxed("sleep"), timeout=5)
            return not gone
        time.sleep(1.5)
        alive = bool(h.sandboxed("sleep"))
        return alive
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        kill_pids(h.sandboxed("sleep"))


@suite.case()
def die_with_parent_launcher_killed(ctx):
    for label, root in roots(ctx):
        alive = die_with_parent_case(ctx, root, label)
        check(not alive, f"{label}: --die-with-parent: the sandboxed sleep survived SIGKILL of "
                         "the launcher")


@suite.case()
def die_with_parent_caller_killed(ctx):
    # The launcher's parent is a shell that forks it; killing the shell must take the
    # launcher and the sandbox down.
    wrapper = ["sh", "-c", '"$@"; exit $?', "sh"]
    for label, root in roots(ctx):
        alive = die_with_parent_case(ctx, root, label, wrapper=wrapper)
        check(not alive, f"{label}: --die-with-parent: the sandboxed sleep survived SIGKILL of "
                         "the launcher's parent")
        left = ctx.h.wait_for(lambda: not ctx.h.wait_no_leftovers(timeout=0), timeout=5)
        check(left, f"{label}: launcher survived its parent with --die-with-parent: "
                    f"{ctx.h.wait_no_leftovers(timeout=0)}")


@suite.case()
def no_die_with_parent_sandbox_survives(ctx):
    # bwrap forwards no signals: without --die-with-parent the sandbox outlives a killed
    # launcher (this is also the control proving the detection above works).
    for label, root in roots(ctx):
        alive = die_with_parent_case(ctx, root, label, flag=False)
        check(alive, f"{label}: without --die-with-parent the sandbox died with the launcher")


@suite.case()
def new_session(ctx):
    root = ctx.h.minimal_root(unshare_all=False)
    r = ctx.probe([], ["json"], root=root)
    j = r.json()
    check_eq(j["sid"], r.pid, "session of COMMAND without --new-session (the launcher's)")
    r = ctx.probe(["--new-session"], ["json"], root=root)
    j = r.json()
    check(j["sid"] != r.pid, "--new-session: COMMAND still in the launcher's session")
    check_eq(j["sid"], j["pid"], "--new-session without a reaper: COMMAND leads its session")
    j = ctx.probe_json()
    check_eq(j["sid"], 0, "pid ns without --new-session: the session leader is outside")
    j = ctx.probe_json(["--new-session"])
    check(j["sid"] != 0, f"pid ns with --new-session: no session inside the sandbox ({j['sid']})")


@suite.case()
def as_pid_1(ctx):
    h = ctx.h
    j = ctx.probe_json(["--as-pid-1"])
    check_eq((j["pid"], j["ppid"]), (1, 0), "(pid, ppid) with --as-pid-1")
    check_eq(j["pid1_cmdline"], [h.probe, "json"], "/proc/1/cmdline with --as-pid-1")
    j = ctx.probe_json()
    check_eq((j["pid"], j["ppid"]), (2, 1), "(pid, ppid) without --as-pid-1")
    r = ctx.probe(["--as-pid-1"], ["exit", "0"], root=h.minimal_root(unshare_all=False))
    check_eq((r.rc, r.stderr), (1, "bwrap: Specifying --as-pid-1 requires --unshare-pid\n"),
             "--as-pid-1 without --unshare-pid")


def with_fds(ctx, datas, fn):
    fds = []
    try:
        for i, data in enumerate(datas):
            fds.append(fd_with_data(data, 20 + i))
        return fn(fds)
    finally:
        for fd in fds:
            os.close(fd)


@suite.case()
def seccomp_filter(ctx):
    if not seccomp_supported_arch():
        raise Skip(f"no syscall table for {os.uname().machine}")
    deny = bpf_filter({"getpgid": errno.ENOMSG})
    for label, root in roots(ctx):
        def go(fds):
            r = ctx.probe(["--seccomp", str(fds[0])], ["syscall", "getpgid"], root=root,
                          pass_fds=fds)
            check_eq(r.json(), {"errno": "ENOMSG", "ok": False},
                     f"{label}: getpgid under --seccomp returning ENOMSG")
        with_fds(ctx, [deny], go)

        def go2(fds):
            r = ctx.probe(["--seccomp", str(fds[0])], ["json"], root=root, pass_fds=fds)
            check_eq(r.rc, 0, f"{label}: run under an allow-all filter\n  {r.describe()}")
            j = r.json()
            check_eq(j["seccomp"], 2, f"{label}: seccomp mode under --seccomp")
            check(str(fds[0]) not in j["fds"], f"{label}: the --seccomp fd leaked into "
                                               f"COMMAND: {j['fds']}")
        with_fds(ctx, [bpf_filter()], go2)


@suite.case()
def add_seccomp_fd(ctx):
    if not seccomp_supported_arch():
        raise Skip(f"no syscall table for {os.uname().machine}")
    a = bpf_filter({"getpgid": errno.ENOMSG})
    b = bpf_filter({"getsid": errno.EIDRM})

    def go(fds):
        args = ["--add-seccomp-fd", str(fds[0]), "--add-seccomp-fd", str(fds[1])]
        r1 = ctx.probe(args, ["syscall", "getpgid"], pass_fds=fds)
        check_eq(r1.json(), {"errno": "ENOMSG", "ok": False}, "getpgid under the first filter")
    with_fds(ctx, [a, b], go)

    def go2(fds):
        args = ["--add-seccomp-fd", str(fds[0]), "--add-seccomp-fd", str(fds[1])]
        r = ctx.probe(args, ["syscall", "getsid"], pass_fds=fds)
        check_eq(r.json(), {"errno": "E43", "ok": False}, "getsid under the second filter")
    with_fds(ctx, [a, b], go2)

    def go3(fds):
        args = ["--add-seccomp-fd", str(fds[0]), "--add-seccomp-fd", str(fds[1])]
        r = ctx.probe(args, ["json"], pass_fds=fds)
        j = r.json()
        check_eq(j["seccomp"], 2, "seccomp mode with --add-seccomp-fd")
        leaked = {str(fds[0]), str(fds[1])} & set(j["fds"])
        check(not leaked, f"--add-seccomp-fd descriptors leaked into COMMAND: {sorted(leaked)}")
    with_fds(ctx, [a, b], go3)


@suite.case()
def seccomp_bad_input(ctx):
    if not seccomp_supported_arch():
        raise Skip(f"no syscall table for {os.uname().machine}")

    def go(fds):
        r = ctx.probe(["--seccomp", str(fds[0])], ["exit", "0"], pass_fds=fds)
        check_eq((r.rc, r.stderr), (1, "bwrap: Invalid seccomp data, must be multiple of 8\n"),
                 "--seccomp with 7 bytes")
    with_fds(ctx, [b"\0" * 7], go)

    def go2(fds):
        r = ctx.probe(["--seccomp", str(fds[0]), "--add-seccomp-fd", str(fds[1])], ["exit", "0"],
                      pass_fds=fds)
        check_eq((r.rc, r.stderr), (1, "bwrap: --add-seccomp-fd cannot be combined with "
                                       "--seccomp\n"), "--seccomp then --add-seccomp-fd")
    with_fds(ctx, [bpf_filter(), bpf_filter()], go2)

    r = ctx.probe(["--seccomp", "77"], ["exit", "0"])
    check_eq((r.rc, r.stderr), (1, "bwrap: Can't read seccomp data: Bad file descriptor\n"),
             "--seccomp with a closed fd")


if __name__ == "__main__":
    sys.exit(suite.main())
