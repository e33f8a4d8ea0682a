#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compat: environment, cwd, exit status, exec errors, fds, seccomp, sessions, pid 1,
--die-with-parent."""

import errno
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat import CompatSuite, minimal, probe  # noqa: E402
from rftest import bpf_filter, kill_pids, processes_matching, seccomp_supported_arch  # noqa: E402

C = CompatSuite("compat-process")


def base(*extra):
    return minimal(*extra, unshare_all=False)


# environment
C.case("env-inherited", minimal() + probe("json"))
C.case("env-setenv", minimal("--setenv", "RF_A", "1", "--setenv", "RF_B", "x=y z") + probe("json"))
C.case("env-setenv-overwrite", minimal("--setenv", "LANG", "fr_FR", "--setenv", "LANG", "de")
       + probe("json"))
C.case("env-setenv-empty", minimal("--setenv", "RF_EMPTY", "") + probe("json"))
C.case("env-unsetenv", minimal("--unsetenv", "LANG", "--unsetenv", "RF_NEVER") + probe("json"))
C.case("env-clearenv", minimal("--clearenv") + probe("json"))
C.case("env-clearenv-then-setenv", minimal("--setenv", "A", "1", "--clearenv", "--setenv", "B",
                                           "2") + probe("json"))
C.case("env-setenv-pwd", minimal("--setenv", "PWD", "/bogus") + probe("json"))
C.case("env-caller-pwd", minimal() + probe("json"), env={"PWD": "/bogus", "OLDPWD": "/x"})
C.case("env-setenv-path-lookup", minimal("--setenv", "PATH", "{probe_dir}", "--", "probe",
                                         "json"), json=True)
C.case("env-unset-path-lookup", minimal("--unsetenv", "PATH", "--", "probe", "json"), ref_rc=1)

# cwd
C.case("cwd-chdir", minimal("--chdir", "/usr/bin") + probe("json"))
C.case("cwd-chdir-repeated", minimal("--chdir", "/usr/bin", "--chdir", "/usr") + probe("json"))
C.case("cwd-chdir-relative", minimal("--chdir", "usr") + probe("json"))
C.case("cwd-chdir-missing", minimal("--chdir", "/nonexistent") + probe("json"), ref_rc=1)
C.case("cwd-chdir-file", minimal("--chdir", "/usr/bin/env") + probe("json"), ref_rc=1)
C.case("cwd-caller-cwd-inside", minimal() + probe("json"), cwd="/usr/share")
C.case("cwd-home-fallback", minimal() + probe("json"), env={"HOME": "/usr/lib"})
C.case("cwd-setenv-home-fallback", minimal("--setenv", "HOME", "/usr/include") + probe("json"))
C.case("cwd-home-missing-inside", minimal() + probe("json"), env={"HOME": "/nonexistent"})
C.case("cwd-no-home", minimal("--unsetenv", "HOME") + probe("json"))
C.case("cwd-root", minimal() + probe("json"), cwd="/")
C.case("umask-027", minimal() + probe("json"), umask=0o027)
C.case("umask-000", minimal() + probe("json"), umask=0o000)

# exit status and exec errors
for label, root in (("pidns", minimal), ("nopidns", base)):
    for n in (0, 1, 2, 77, 126, 127, 255):
        C.case(f"exit-{label}-{n}", root() + probe("exit", str(n)), ref_rc=n)
    for sig, code in ((signal.SIGKILL, 137), (signal.SIGTERM, 143), (signal.SIGHUP, 129),
                      (signal.SIGUSR2, 140)):
        C.case(f"signal-{label}-{sig.name}", root() + probe("kill", str(int(sig))), ref_rc=code)
    C.case(f"exec-missing-{label}", root("--", "/nonexistent-rf"), ref_rc=1)
    C.case(f"exec-not-in-path-{label}", root("--", "rf-no-such-command"), ref_rc=1)
    C.case(f"exec-directory-{label}", root("--", "/usr"), ref_rc=1)
    C.case(f"exec-not-executable-{label}", root("--", "/usr/share/common-licenses/GPL-3"),
           ref_rc=1)

# file descriptors and stdio
C.case("fds-default", minimal() + probe("json"))
C.case("fds-inherited", minimal() + probe("json"), data_fds={5: b"five", 9: b"nine"})
C.case("fds-inherited-no-pidns", base() + probe("json"), data_fds={3: b"three"})
C.case("stdin-passthrough", minimal() + probe("cat", "-"), stdin=b"piped into the sandbox\n")

# sessions and pid 1
C.case("session-default-pidns", minimal() + probe("json"))
C.case("session-default-nopidns", base() + probe("json"))
C.case("new-session-pidns", minimal("--new-session") + probe("json"))
C.case("new-session-nopidns", base("--new-session") + probe("json"))
C.case("as-pid-1", minimal("--as-pid-1") + probe("json"))
C.case("as-pid-1-exit", minimal("--as-pid-1") + probe("exit", "5"), ref_rc=5)
C.case("as-pid-1-no-pidns", base("--as-pid-1") + probe("json"), ref_rc=1)
C.case("reaper-reaps-orphans", minimal() + probe("reap-check"))
C.case("as-pid-1-keeps-zombies", minimal("--as-pid-1") + probe("reap-check"))

# seccomp
if seccomp_supported_arch():
    DENY_PGID = bpf_filter({"getpgid": errno.ENOMSG})
    DENY_SID = bpf_filter({"getsid": errno.EIDRM})
    ALLOW = bpf_filter()
    for label, root in (("pidns", minimal), ("nopidns", base)):
        C.case(f"seccomp-deny-{label}", root("--seccomp", "20") + probe("syscall", "getpgid"),
               data_fds={20: DENY_PGID})
        C.case(f"seccomp-allow-json-{label}", root("--seccomp", "20") + probe("json"),
               data_fds={20: ALLOW})
        C.case(f"add-seccomp-fd-two-{label}", root("--add-seccomp-fd", "20", "--add-seccomp-fd",
                                                   "21") + probe("syscall", "getsid"),
               data_fds={20: DENY_PGID, 21: DENY_SID})
    C.case("seccomp-repeated-last-wins", minimal("--seccomp", "20", "--seccomp", "21")
           + probe("syscall", "getpgid"), data_fds={20: DENY_PGID, 21: ALLOW})
    C.case("seccomp-bad-length", minimal("--seccomp", "20") + probe("json"),
           data_fds={20: b"\0" * 12}, ref_rc=1)
    # without a pid ns: with one, the reaper and COMMAND both print the error, interleaved
    C.case("seccomp-empty", base("--seccomp", "20") + probe("json"), data_fds={20: b""},
           ref_rc=1)
    C.case("seccomp-closed-fd", minimal("--seccomp", "20") + probe("json"), ref_rc=1)
    C.case("add-seccomp-fd-then-seccomp", minimal("--add-seccomp-fd", "20", "--seccomp", "21")
           + probe("json"), data_fds={20: ALLOW, 21: ALLOW}, ref_rc=1)
    C.case("add-seccomp-fd-reused", minimal("--add-seccomp-fd", "20", "--add-seccomp-fd", "20")
           + probe("json"), data_fds={20: ALLOW}, ref_rc=1)
    C.case("add-seccomp-fd-fds-consumed", minimal("--add-seccomp-fd", "20") + probe("json"),
           data_fds={20: ALLOW})

# beyond the required list
C.case("sync-fd", minimal("--sync-fd", "20") + probe("json"), data_fds={20: b""})
C.case("sync-fd-as-pid-1", minimal("--as-pid-1", "--sync-fd", "20") + probe("json"),
       data_fds={20: b""})
C.case("block-fd-ready", minimal("--block-fd", "20") + probe("json"), data_fds={20: b"go"})
C.case("block-fd-eof", minimal("--block-fd", "20") + probe("json"), data_fds={20: b""})
C.case("disable-userns", minimal("--unshare-user", "--disable-userns") + probe("json"))
C.case("disable-userns-without-userns", base("--disable-userns") + probe("json"),
       users=("root",), ref_rc=1)
C.case("as-pid-1-with-lock-file", minimal("--as-pid-1", "--lock-file", "/usr") + probe("json"),
       ref_rc=1)


# --die-with-parent: what survives a SIGKILL of the launcher (or of its parent)
def survivors(ctx, form, root, flag, kill_parent=False):
    h = ctx.h
    args = [a for a in root] + (["--die-with-parent"] if flag else [])
    from compat import expand
    argv = expand(h, h.fx, args + ["--", "{probe}", "sleep", "60"])
    wrapper = ["sh", "-c", '"$@"; exit $?', "sh"] if kill_parent else None
    inv = h.invocation(form)
    p = h.spawn(argv, user=ctx.user, form=form, wrapper=wrapper)
    try:
        started = bool(h.wait_for(lambda: h.sandboxed("sleep")))
        if not started:
            return ("never started", inv[0])
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        if flag:
            # generous: a loaded machine can take seconds to tear a pid namespace down
            h.wait_for(lambda: not h.sandboxed("sleep"), timeout=20)
        else:
            time.sleep(1.0)
        sleepers = set(h.sandboxed("sleep"))
        others = {q for q, _ in processes_matching(h.token)} - sleepers
        return ("sandbox alive" if sleepers else "sandbox gone",
                "launcher/reaper alive" if others else "launcher/reaper gone")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        kill_pids([q for q, _ in h.wait_no_leftovers(timeout=0)])
        h.wait_no_leftovers(timeout=2)


for label, root_fn in (("pidns", minimal), ("nopidns", base)):
    root_args = root_fn()

    def make(flag, kill_parent, root_args=root_args):
        return lambda ctx, form: survivors(ctx, form, root_args, flag, kill_parent)
    C.scenario(f"die-with-parent-launcher-killed-{label}",
               covers=["--die-with-parent"])(make(True, False))
    C.scenario(f"die-with-parent-caller-killed-{label}")(make(True, True))
    C.scenario(f"no-die-with-parent-launcher-killed-{label}")(make(False, False))


if __name__ == "__main__":
    sys.exit(C.main())
