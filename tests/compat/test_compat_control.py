#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compat: the control descriptors and what they report (bwrap-compat.md 1.2, 1.3, 2.1-2.3):
--info-fd and --json-status-fd output (text compared with pids and namespace inodes normalised;
the values themselves checked against the sandbox: child-pid is the right process, every
reported inode is the sandbox's), --block-fd, --userns-block-fd, --sync-fd, --lock-file,
--disable-userns and --assert-userns-disabled, with their error cases.

Scenarios start the launcher in the background and look at it while it runs; each returns the
facts it observed (compared with /usr/bin/bwrap's) and also checks the documented invariants on
every run, the reference's included, so a broken case cannot pass silently."""

import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat import CompatSuite, expand, minimal, normalise_probe, probe  # noqa: E402
from rftest import (Live, Pipe, check, check_eq, fail, fd_with_data, host_ns,  # noqa: E402
                    lock_holder, ns_inodes_of, pid_status, try_lock)

C = CompatSuite("compat-control")

NS_ORDER = ["cgroup", "ipc", "mnt", "net", "pid", "uts"]
INFO_FD, STATUS_FD, SYNC_FD, BLOCK_FD, UBLOCK_FD, CTL_FD, USERNS_FD = 60, 61, 62, 63, 64, 65, 66


def base(*extra):
    """Minimal root without --unshare-all (no pid namespace unless asked for)."""
    return minimal(*extra, unshare_all=False)


# ------------------------------------------------------------------------------------------------
# Static differential cases: parse errors, validation errors, data and descriptor handling

# missing arguments and bad descriptors (parse time)
for opt in ("--info-fd", "--json-status-fd", "--sync-fd", "--block-fd", "--userns-block-fd",
            "--lock-file"):
    o = opt.strip("-")
    C.case(f"{o}-missing-arg", minimal(opt), ref_rc=1)
    if opt != "--lock-file":
        for bad, label in (("abc", "junk"), ("-1", "negative"), ("", "empty"), ("5x", "trailing")):
            C.case(f"{o}-invalid-{label}", minimal(opt, bad) + probe("exit", "0"), ref_rc=1)

# validation after parsing: the order of the checks shows in which message wins
C.case("userns-block-fd-without-unshare-user", base("--userns-block-fd", "20", "--info-fd", "21")
       + probe("exit", "0"), data_fds={20: b"", 21: b""}, ref_rc=1)
C.case("userns-block-fd-without-anything", base("--userns-block-fd", "20") + probe("exit", "0"),
       data_fds={20: b""}, ref_rc=1)
C.case("userns-block-fd-without-info-fd", base("--unshare-user", "--userns-block-fd", "20")
       + probe("exit", "0"), data_fds={20: b""}, ref_rc=1)
C.case("userns-block-fd-with-disable-userns",
       base("--unshare-user", "--disable-userns", "--userns-block-fd", "20", "--info-fd", "21")
       + probe("exit", "0"), data_fds={20: b"", 21: b""}, ref_rc=1)
C.case("userns-block-fd-invalid-before-validation", base("--userns-block-fd", "x")
       + probe("exit", "0"), ref_rc=1)
# unprivileged: the implied --unshare-user comes after these checks, so they still fail
C.case("disable-userns-implied-userns-not-enough", base("--disable-userns") + probe("exit", "0"),
       ref_rc=1)
C.case("disable-userns-with-user-try", base("--unshare-user-try", "--disable-userns")
       + probe("exit", "0"), ref_rc=1)
C.case("disable-userns-with-unshare-all", minimal("--disable-userns") + probe("exit", "0"),
       ref_rc=1)
C.case("as-pid-1-with-lock-file-no-pidns", base("--as-pid-1", "--lock-file", "/usr")
       + probe("exit", "0"), ref_rc=1)
C.case("lock-file-as-pid-1-order", minimal("--lock-file", "/usr", "--as-pid-1")
       + probe("exit", "0"), ref_rc=1)
C.case("info-fd-repeated", base("--info-fd", "20", "--info-fd", "21") + probe("json"),
       data_fds={20: b"", 21: b""})



def launcher_exit(ctx, form, args):
    """Only the launcher's exit code and stderr. (bwrap's monitor dies on the failed write and
    leaves its clone child blocked forever on the go-ahead it never gets: whatever is left of
    the sandbox is killed afterwards, not compared.)"""
    h = ctx.h
    live = Live(h, expand(h, h.fx, args), user=ctx.user, form=form)
    try:
        rc = live.wait(10)
        return {"exit": rc, "stderr": live.stderr, "stdout": live.stdout}
    finally:
        live.cleanup()


# output descriptors that cannot be written (69: not open; 0: the read end of a pipe)
for label, opt, fd in (("info-fd-closed", "--info-fd", "69"),
                       ("json-status-fd-closed", "--json-status-fd", "69"),
                       ("info-fd-read-only", "--info-fd", "0"),
                       ("json-status-fd-read-only", "--json-status-fd", "0")):
    for ns_label, root in (("", base), ("-pidns", minimal)):
        C.scenario(label + ns_label, covers=[opt])(
            lambda ctx, form, args=root(opt, fd) + probe("exit", "0"):
            launcher_exit(ctx, form, args))

# --block-fd and --sync-fd on descriptors that are not open: nothing blocks or is held
C.case("block-fd-closed", base("--block-fd", "69") + probe("exit", "4"), ref_rc=4)
C.case("sync-fd-closed", minimal("--sync-fd", "69") + probe("exit", "4"), ref_rc=4)
C.case("sync-fd-closed-no-pidns", base("--sync-fd", "69") + probe("exit", "4"), ref_rc=4)

# which descriptors the command sees, and who its parent is (a reaper is forced by
# --sync-fd / --lock-file even without a pid namespace)
C.case("sync-fd-no-pidns", base("--sync-fd", "20") + probe("json"), data_fds={20: b""})
C.case("lock-file-no-pidns", base("--lock-file", "/usr/bin/env") + probe("json"))
C.case("lock-file-twice", minimal("--lock-file", "/usr/bin/env", "--lock-file", "/usr")
       + probe("json"))
C.case("lock-file-relative", base("--lock-file", "usr/bin/env") + probe("json"), cwd="/")
C.case("lock-file-missing-no-pidns", base("--lock-file", "/nonexistent") + probe("exit", "0"),
       ref_rc=1)
C.case("lock-file-created-in-sandbox", minimal("--tmpfs", "/t", "--dir", "/t/d",
                                               "--lock-file", "/t/d") + probe("json"))
C.case("block-fd-no-pidns", base("--block-fd", "20") + probe("json"), data_fds={20: b"go"})
C.case("control-fds-not-inherited", minimal("--info-fd", "20", "--json-status-fd", "21",
                                            "--block-fd", "22", "--sync-fd", "23")
       + probe("json"), data_fds={20: b"", 21: b"", 22: b"x", 23: b""})
C.case("control-fds-not-inherited-no-pidns",
       base("--info-fd", "20", "--json-status-fd", "21", "--block-fd", "22", "--sync-fd", "23")
       + probe("json"), data_fds={20: b"", 21: b"", 22: b"x", 23: b""})

# the lock as seen from inside: held by the command's parent (the reaper), a read lock
C.case("lock-file-seen-inside", minimal("--file", "20", "/tmp/l", "--lock-file", "/tmp/l")
       + probe("lock", "/tmp/l"), data_fds={20: b"lock me"})
C.case("lock-file-seen-inside-no-pidns", base("--lock-file", "/usr/bin/env")
       + probe("lock", "/usr/bin/env"))
C.case("no-lock-file-seen-inside", minimal("--file", "20", "/tmp/l") + probe("lock", "/tmp/l",
                                                                          "200"),
       data_fds={20: b"lock me"})

# --disable-userns / --assert-userns-disabled
C.case("disable-userns-probe", base("--unshare-user", "--disable-userns") + probe("userns",
                                                                                 "write"))
C.case("disable-userns-probe-pidns", minimal("--unshare-user", "--disable-userns")
       + probe("userns", "write"))
C.case("userns-allowed-probe", base("--unshare-user") + probe("userns", "write"))
C.case("disable-userns-unshare-tool", base("--unshare-user", "--disable-userns")
       + ["--", "unshare", "-U", "true"], ref_rc=1)
C.case("disable-userns-uid-0", base("--unshare-user", "--disable-userns", "--uid", "0", "--gid",
                                    "0") + probe("json"))
C.case("disable-userns-uid-1234", base("--unshare-user", "--disable-userns", "--uid", "1234")
       + probe("json"))
C.case("disable-userns-no-dev", ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "{probe_bind}",
                                 "--unshare-user", "--disable-userns"] + probe("json"))
C.case("disable-userns-as-pid-1", minimal("--unshare-user", "--disable-userns", "--as-pid-1")
       + probe("userns"))
C.case("assert-userns-disabled-host", base("--assert-userns-disabled") + probe("exit", "0"),
       users=("root",), ref_rc=1)
C.case("assert-userns-disabled-userns", base("--unshare-user", "--assert-userns-disabled")
       + probe("exit", "0"), ref_rc=1)
C.case("assert-userns-disabled-after-disable", base("--unshare-user", "--disable-userns",
                                                    "--assert-userns-disabled")
       + probe("userns"))


# ------------------------------------------------------------------------------------------------
# --info-fd / --json-status-fd


def norm_report(text):
    """Report text with pids and namespace inodes replaced (layout kept byte for byte)."""
    t = re.sub(r'("child-pid": )\d+', r"\1<pid>", text)
    return re.sub(r'("[a-z]+-namespace": )\d+', r"\1<ns>", t)


def parse_info(text, what):
    try:
        obj = json.loads(text)
    except ValueError:
        fail(f"{what} is not one JSON object: {text!r}")
    check(isinstance(obj, dict) and list(obj)[:1] == ["child-pid"],
          f"{what}: first key must be child-pid: {text!r}")
    keys = [k[:-len("-namespace")] for k in list(obj)[1:]]
    check(all(k in NS_ORDER for k in keys) and keys == sorted(keys, key=NS_ORDER.index),
          f"{what}: namespace keys not in the order {NS_ORDER} (user never listed): {text!r}")
    check("mnt" in keys, f"{what}: mnt-namespace missing: {text!r}")
    return obj


def parse_status(text, what):
    lines = text.split("\n")
    check(lines[-1] == "", f"{what}: does not end with a newline: {text!r}")
    objs = []
    for line in lines[:-1]:
        try:
            objs.append(json.loads(line))
        except ValueError:
            fail(f"{what}: line is not JSON: {line!r} (in {text!r})")
    return objs


def check_ns_values(obj, probe_ns, hns, what, outside=None):
    """Every reported inode is the sandbox's (as the probe sees it, and as /proc/PID/ns of the
    reported child shows it); namespaces not listed are the host's."""
    listed = {k[:-len("-namespace")]: v for k, v in obj.items() if k.endswith("-namespace")}
    for n in NS_ORDER:
        if n in listed:
            check_eq(listed[n], probe_ns.get(n), f"{what}: {n}-namespace vs the command's "
                                                 f"/proc/self/ns/{n}")
            if outside is not None:
                check_eq(listed[n], outside.get(n), f"{what}: {n}-namespace vs "
                                                    f"/proc/<child-pid>/ns/{n}")
        else:
            check_eq(probe_ns.get(n), hns.get(n), f"{what}: {n} namespace not reported, so the "
                                                  "command must be in the host's")


def child_relation(cp, pj, hns, outside_nspid=None, outside_pidns=None):
    """What child-pid is, relative to the command (probe JSON pj)."""
    if pj["ns"]["pid"] == hns["pid"]:
        if cp == pj["pid"]:
            return "the command"
        if cp == pj["ppid"]:
            return "the command's parent"
        return "other"
    if outside_nspid is None:
        return "unverified (new pid namespace, sandbox gone)"
    if outside_nspid.split()[-1] == "1" and outside_pidns == pj["ns"]["pid"]:
        who = "the command" if pj["pid"] == 1 else (
            "the command's parent" if pj["ppid"] == 1 else "other")
        return f"pid 1 of the sandbox's pid namespace ({who})"
    return f"other (NSpid {outside_nspid!r})"


def expected_relation(args):
    if "--unshare-pid" in args or "--unshare-all" in args:
        return ("pid 1 of the sandbox's pid namespace (the command)" if "--as-pid-1" in args
                else "pid 1 of the sandbox's pid namespace (the command's parent)")
    if "--sync-fd" in args or "--lock-file" in args:
        return "the command's parent"
    return "the command"


def report_hold(ctx, form, args, info=True, status=True, extra_fds=None):
    """Start `probe hold` with the report fds; while it runs, check the reports against the
    sandbox seen from outside; then let it exit and read the exit-code line."""
    h = ctx.h
    hns = host_ns()
    pipes, opts = {}, []
    if info:
        pipes["info"] = Pipe(INFO_FD)
        opts += ["--info-fd", str(INFO_FD)]
    if status:
        pipes["status"] = Pipe(STATUS_FD)
        opts += ["--json-status-fd", str(STATUS_FD)]
    data = []
    for num, content in (extra_fds or {}).items():
        data.append(fd_with_data(content, num))
    argv = expand(h, h.fx, list(args) + opts + probe("hold"))
    live = None
    try:
        live = Live(h, argv, user=ctx.user, form=form,
                    pass_fds=[p.num for p in pipes.values()] + data)
        for p in pipes.values():
            p.close_inside()
        for fd in data:
            os.close(fd)
        data = []
        res = {}
        if info:
            text, eof = pipes["info"].read_until(10)
            check(eof, f"--info-fd not closed after the report while the sandbox runs: {text!r}"
                  f"\n  stderr={live.stderr!r}")
            res["info"] = norm_report(text.decode())
            info_obj = parse_info(text.decode(), "--info-fd")
        if status:
            text, eof = pipes["status"].read_until(10, stop=lambda d: d.endswith(b"\n"))
            check(not eof, f"--json-status-fd closed while the sandbox runs: {text!r}"
                  f"\n  stderr={live.stderr!r}")
            res["status-while-running"] = norm_report(text.decode())
            status_obj = parse_status(text.decode(), "--json-status-fd")[0]
            if info:
                check_eq(list(status_obj.items()), list(info_obj.items()),
                         "json-status line 1 vs the --info-fd object")
            else:
                info_obj = status_obj
        line = live.first_line()
        check(line is not None, f"the command never started: stderr={live.stderr!r}")
        pj = json.loads(line)
        cp = info_obj["child-pid"]
        st = pid_status(cp)
        check(st is not None, f"child-pid {cp} is not a live process while the sandbox runs")
        outside = ns_inodes_of(cp)
        check_ns_values(info_obj, pj["ns"], hns, "report", outside)
        res["child-pid"] = child_relation(cp, pj, hns, st.get("NSpid"), outside.get("pid"))
        check_eq(res["child-pid"], expected_relation(args), "what child-pid designates")
        res["command fds"] = sorted(pj["fds"], key=int)
        live.release()
        res["exit"] = live.wait()
        if status:
            rest, eof = pipes["status"].read_until(10)
            check(eof, f"--json-status-fd still open after the launcher exited: {rest!r}")
            res["status-after-exit"] = norm_report(rest.decode())
        res["stderr"] = live.stderr
        return res
    finally:
        if live:
            live.cleanup()
        for p in pipes.values():
            p.close()
        for fd in data:
            os.close(fd)


HOLD_VARIANTS = {
    "default": base(),
    "unshare-all": minimal(),
    "unshare-pid": base("--unshare-pid"),
    "net-ipc-uts": base("--unshare-net", "--unshare-ipc", "--unshare-uts"),
    "cgroup": base("--unshare-cgroup"),
    "cgroup-try": base("--unshare-cgroup-try"),
    "user": base("--unshare-user"),
    "user-pid": base("--unshare-user", "--unshare-pid"),
    "as-pid-1": minimal("--as-pid-1"),
    "sync-fd-no-pidns": base("--sync-fd", "20"),
    "lock-file-no-pidns": base("--lock-file", "/usr/bin/env"),
    "lock-file-pidns": minimal("--lock-file", "/usr/bin/env"),
    "disable-userns": base("--unshare-user", "--disable-userns", "--unshare-pid"),
}
for label, args in HOLD_VARIANTS.items():
    fds = {20: b""} if "--sync-fd" in args else None
    C.scenario(f"reports-{label}", covers=["--info-fd", "--json-status-fd"] + [
        a for a in args if a.startswith("--")])(
        lambda ctx, form, args=args, fds=fds: report_hold(ctx, form, args, extra_fds=fds))
C.scenario("report-info-only")(lambda ctx, form: report_hold(ctx, form, minimal(), status=False))
C.scenario("report-status-only")(lambda ctx, form: report_hold(ctx, form, minimal(), info=False))
C.scenario("report-status-only-no-pidns")(
    lambda ctx, form: report_hold(ctx, form, base(), info=False))


def report_run(ctx, form, args, command):
    """Run to completion with both report fds (pipes, read after exit): exit code, stderr,
    normalised reports, and (for `probe json`) the reported inodes checked against the
    command's own view."""
    h = ctx.h
    hns = host_ns()
    info, status = Pipe(INFO_FD), Pipe(STATUS_FD)
    try:
        argv = expand(h, h.fx, list(args) + ["--info-fd", str(INFO_FD), "--json-status-fd",
                                             str(STATUS_FD)] + command)
        live = Live(h, argv, user=ctx.user, form=form, pass_fds=[INFO_FD, STATUS_FD])
        try:
            info.close_inside()
            status.close_inside()
            rc = live.wait()
            itext, ieof = info.read_until(5)
            stext, seof = status.read_until(5)
            check(ieof and seof, "report fds still open after the launcher exited")
            res = {"exit": rc, "stderr": live.stderr, "info": norm_report(itext.decode()),
                   "status": norm_report(stext.decode())}
            out = live.stdout
        finally:
            live.cleanup()
        if itext:
            iobj = parse_info(itext.decode(), "--info-fd")
            sobjs = parse_status(stext.decode(), "--json-status-fd")
            check(sobjs and list(sobjs[0].items()) == list(iobj.items()),
                  f"json-status line 1 {stext!r} vs info {itext!r}")
            check(len(sobjs) <= 2 and all(list(o) == ["exit-code"] for o in sobjs[1:]),
                  f"json-status: expected at most one exit-code object after line 1: {stext!r}")
            res["exit-code reported"] = sobjs[1]["exit-code"] if len(sobjs) == 2 else None
            if res["exit-code reported"] is not None:
                check_eq(res["exit-code reported"], rc, "exit-code vs the launcher's exit code")
            if command[-1] == "json" and rc == 0:
                pj = json.loads(out)
                check_ns_values(iobj, pj["ns"], hns, "report")
                rel = child_relation(iobj["child-pid"], pj, hns)
                check(not rel.startswith("other"), f"child-pid designates {rel}")
                res["child-pid"] = rel
                pj["fds"] = live.mask_stdio(pj["fds"])
                res["stdout"] = normalise_probe(pj, live.p.pid, h.invocation(form) + argv, hns)
        return res
    finally:
        info.close()
        status.close()


RUN_VARIANTS = []
for label, root in (("pidns", minimal), ("nopidns", base)):
    RUN_VARIANTS += [
        (f"exit-0-{label}", root(), probe("exit", "0")),
        (f"exit-3-{label}", root(), probe("exit", "3")),
        (f"sigkill-{label}", root(), probe("kill", "9")),
        (f"sigterm-{label}", root(), probe("kill", "15")),
        (f"exec-missing-{label}", root(), ["--", "/nonexistent-rf"]),
        (f"exec-not-executable-{label}", root(), ["--", "/usr/share/common-licenses/GPL-3"]),
        (f"chdir-missing-{label}", root("--chdir", "/nonexistent"), probe("exit", "0")),
        (f"bind-missing-{label}", root("--bind", "{fx}/nonexistent", "/x"), probe("exit", "0")),
        (f"json-{label}", root(), probe("json")),
    ]
RUN_VARIANTS += [
    ("exit-5-as-pid-1", minimal("--as-pid-1"), probe("exit", "5")),
    ("sigkill-as-pid-1", minimal("--as-pid-1"), ["--", "sh", "-c", "kill -9 $$; exit 7"]),
    ("exec-missing-as-pid-1", minimal("--as-pid-1"), ["--", "/nonexistent-rf"]),
    ("json-sync-fd-no-pidns", base("--sync-fd", "69"), probe("json")),
    ("json-user", base("--unshare-user", "--unshare-net"), probe("json")),
    ("json-disable-userns", base("--unshare-user", "--disable-userns", "--unshare-ipc"),
     probe("json")),
    ("background-job-exit-3", minimal(), ["--", "sh", "-c", "{probe} sleep 0.3 & exit 3"]),
]


def reports_nothing(ref, user):
    # docs/compat-bwrap.md, "Status fds": a missing bind source is found before anything is
    # started, so ringfence fails with the same message and exit code but writes no report
    # (bwrap resolves sources in its child, after writing both).
    ref["info"] = ""
    ref["status"] = ""
    ref.pop("exit-code reported", None)
    return ref


for label, args, command in RUN_VARIANTS:
    documented = ("missing bind source", reports_nothing) if label.startswith("bind-missing") else None
    C.scenario(f"status-{label}", documented=documented)(
        lambda ctx, form, args=args, command=command: report_run(ctx, form, args, command))


# ------------------------------------------------------------------------------------------------
# --block-fd


def block_run(ctx, form, args, release):
    """The command (probe write /w/marker) must not run until the block fd is released: a byte
    written (release="byte", two are written and the second must still be in the pipe) or EOF
    (release="eof")."""
    h = ctx.h
    d = ctx.mkdtemp()
    marker = os.path.join(d, "marker")
    blk, info = Pipe(BLOCK_FD, inside="r"), Pipe(INFO_FD)
    spare = os.dup(blk.num)     # our own read end: what bwrap left in the pipe
    live = None
    try:
        argv = expand(h, h.fx, list(args) + ["--bind", d, "/w", "--block-fd", str(BLOCK_FD),
                                             "--info-fd", str(INFO_FD)]
                      + probe("write", "/w/marker", "ran"))
        live = Live(h, argv, user=ctx.user, form=form, pass_fds=[BLOCK_FD, INFO_FD])
        blk.close_inside()
        info.close_inside()
        text, eof = info.read_until(10)
        res = {"info before release": bool(text) and eof}
        time.sleep(0.5)
        res["running before release"] = live.running()
        res["command ran before release"] = os.path.exists(marker)
        check(res["running before release"] and not res["command ran before release"],
              f"the command did not wait for --block-fd: {res}, stderr={live.stderr!r}")
        if release == "byte":
            blk.write(b"xy")
        else:
            blk.close_ours()
        res["exit"] = live.wait()
        res["stdout"] = live.stdout
        res["stderr"] = live.stderr
        res["command ran after release"] = os.path.exists(marker)
        check(res["command ran after release"], f"the command never ran: {res}")
        if release == "byte":
            os.set_blocking(spare, False)
            try:
                res["left in the pipe"] = os.read(spare, 10).decode()
            except BlockingIOError:
                res["left in the pipe"] = ""
        return res
    finally:
        if live:
            live.cleanup()
        blk.close()
        info.close()
        os.close(spare)


for label, root in (("pidns", minimal()), ("nopidns", base())):
    for release in ("byte", "eof"):
        C.scenario(f"block-fd-{release}-{label}", covers=["--block-fd"])(
            lambda ctx, form, root=root, release=release: block_run(ctx, form, root, release))


# ------------------------------------------------------------------------------------------------
# --userns-block-fd


def userns_block_run(ctx, form, args, uid_map, gid_map, setgroups=None):
    """The launcher reports the child on --info-fd and waits on --userns-block-fd without
    writing any uid/gid map; the test writes the maps for the child (as root, like
    newuidmap would), then releases it."""
    h = ctx.h
    hns = host_ns()
    info, blk = Pipe(INFO_FD), Pipe(UBLOCK_FD, inside="r")
    live = None
    try:
        argv = expand(h, h.fx, list(args) + ["--unshare-user", "--info-fd", str(INFO_FD),
                                             "--userns-block-fd", str(UBLOCK_FD)]
                      + probe("json"))
        live = Live(h, argv, user=ctx.user, form=form, pass_fds=[INFO_FD, UBLOCK_FD])
        info.close_inside()
        blk.close_inside()
        text, eof = info.read_until(5)
        check(text, f"no --info-fd report before the release: stderr={live.stderr!r}")
        check(eof, f"--info-fd report {text!r} written but the descriptor not closed within 5s "
                   "while the launcher waits on --userns-block-fd: a caller that reads the "
                   "report to EOF first (as bubblewrap's own userns-block-fd demo does) "
                   "deadlocks")
        cp = parse_info(text.decode(), "--info-fd")["child-pid"]
        res = {"info": norm_report(text.decode())}
        time.sleep(0.2)
        maps = {}
        for name in ("uid_map", "gid_map"):
            try:
                with open(f"/proc/{cp}/{name}") as f:
                    maps[name] = f.read()
            except OSError as e:
                maps[name] = f"unreadable: {e.strerror}"
        res["maps before release"] = maps
        check_eq(maps, {"uid_map": "", "gid_map": ""},
                 "uid/gid maps of the child before the release (the launcher writes none)")
        res["running before release"] = live.running()
        for name, value in (("setgroups", setgroups), ("uid_map", uid_map),
                            ("gid_map", gid_map)):
            if value is not None:
                with open(f"/proc/{cp}/{name}", "w") as f:
                    f.write(value + "\n")
        blk.write(b"1")
        res["exit"] = live.wait()
        res["stderr"] = live.stderr
        if res["exit"] == 0:
            pj = json.loads(live.stdout)
            pj["fds"] = live.mask_stdio(pj["fds"])
            res["stdout"] = normalise_probe(pj, live.p.pid, h.invocation(form) + argv, hns)
        else:
            res["stdout"] = live.stdout
        return res
    finally:
        if live:
            live.cleanup()
        info.close()
        blk.close()


UBLOCK = {
    "root": [("root-0", base(), "0 0 1", "0 0 1", None),
             ("root-1000", base("--uid", "1000", "--gid", "1000"), "1000 0 1", "1000 0 1",
              None),
             ("root-setgroups-deny", minimal(), "0 0 1", "0 0 1", "deny"),
             ("root-no-maps", base(), None, None, None),
             ("root-uid-map-only", base(), "0 0 1", None, None)],
    "unpriv": [("unpriv-0", base(), "0 65534 1", "0 65534 1", None),
               ("unpriv-65534", minimal(), "65534 65534 1", "65534 65534 1", None),
               ("unpriv-uid-5-ignored", base("--uid", "5"), "0 65534 1", "0 65534 1", None),
               ("unpriv-no-maps", base(), None, None, None)],
}
for user, variants in UBLOCK.items():
    for label, args, um, gm, sg in variants:
        C.scenario(f"userns-block-fd-{label}", users=(user,), covers=["--userns-block-fd"])(
            lambda ctx, form, args=args, um=um, gm=gm, sg=sg:
            userns_block_run(ctx, form, args, um, gm, sg))


# ------------------------------------------------------------------------------------------------
# --sync-fd


def sync_run(ctx, form, args):
    """sh -c 'probe wait-fd CTL & exit 3': the launcher exits with 3 at once; the sync fd
    reaches EOF only when the sandbox is gone, i.e. (pid namespace) once the background job
    that the reaper inherited exits, which the test triggers by closing CTL."""
    h = ctx.h
    sync, ctl = Pipe(SYNC_FD), Pipe(CTL_FD, inside="r")
    live = None
    try:
        argv = expand(h, h.fx, list(args) + ["--sync-fd", str(SYNC_FD), "--", "sh", "-c",
                                             f"{{probe}} wait-fd {CTL_FD} & exit 3"])
        live = Live(h, argv, user=ctx.user, form=form, pass_fds=[SYNC_FD, CTL_FD])
        sync.close_inside()
        ctl.close_inside()
        res = {"exit": live.wait(), "stderr": live.stderr}
        res["EOF while the background job lives"] = sync.at_eof(0.5)
        ctl.close_ours()
        res["EOF once it exited"] = res["EOF while the background job lives"] or sync.at_eof(10)
        check(res["EOF once it exited"], "the sync fd was never closed")
        return res
    finally:
        if live:
            live.cleanup()
        sync.close()
        ctl.close()


def sync_hold(ctx, form, args):
    """While the command runs the sync fd stays open; it is closed when the sandbox ends."""
    h = ctx.h
    sync = Pipe(SYNC_FD)
    live = None
    try:
        argv = expand(h, h.fx, list(args) + ["--sync-fd", str(SYNC_FD)] + probe("hold"))
        live = Live(h, argv, user=ctx.user, form=form, pass_fds=[SYNC_FD])
        sync.close_inside()
        line = live.first_line()
        check(line is not None, f"the command never started: {live.stderr!r}")
        res = {"command fds": sorted(json.loads(line)["fds"], key=int)}
        res["EOF while running"] = sync.at_eof(0.3)
        check(not res["EOF while running"], "the sync fd was closed while the sandbox runs")
        live.release()
        res["exit"] = live.wait()
        res["EOF after exit"] = sync.at_eof(10)
        check(res["EOF after exit"], "the sync fd still open after the sandbox ended")
        return res
    finally:
        if live:
            live.cleanup()
        sync.close()


for label, root in (("pidns", minimal()), ("nopidns", base()),
                    ("as-pid-1", minimal("--as-pid-1"))):
    C.scenario(f"sync-fd-background-{label}", covers=["--sync-fd"])(
        lambda ctx, form, root=root: sync_run(ctx, form, root))
    C.scenario(f"sync-fd-hold-{label}")(lambda ctx, form, root=root: sync_hold(ctx, form, root))


# ------------------------------------------------------------------------------------------------
# --lock-file, seen from the host


def lock_run(ctx, form, args, nfiles=1):
    """Host files bound into the sandbox and locked with --lock-file: while it runs a write
    lock from outside conflicts and F_GETLK names child-pid as the holder of a read lock; a
    read lock from outside still succeeds; after the exit the write lock succeeds."""
    h = ctx.h
    d = ctx.mkdtemp(owned=False)
    files, opts = [], []
    for i in range(nfiles):
        f = os.path.join(d, f"lock{i}")
        with open(f, "w") as fh:
            fh.write("lock me\n")
        os.chmod(f, 0o644)
        files.append(f)
        opts += ["--ro-bind", f, f"/locks/l{i}", "--lock-file", f"/locks/l{i}"]
    info = Pipe(INFO_FD)
    live = None
    try:
        argv = expand(h, h.fx, list(args) + opts + ["--info-fd", str(INFO_FD)] + probe("hold"))
        res = {"before": [try_lock(f, "write") for f in files]}
        live = Live(h, argv, user=ctx.user, form=form, pass_fds=[INFO_FD])
        info.close_inside()
        text, _ = info.read_until(10)
        check(text, f"no --info-fd report: stderr={live.stderr!r}")
        cp = json.loads(text)["child-pid"]
        check(live.first_line() is not None, f"the command never started: {live.stderr!r}")
        holders = []
        for f in files:
            h.wait_for(lambda f=f: lock_holder(f)[0] is not None, timeout=5)
            kind, pid = lock_holder(f)
            holders.append((kind, "child-pid" if pid == cp else ("none" if pid is None
                                                                 else "other")))
        res["holders while running"] = holders
        res["write lock while running"] = [try_lock(f, "write") for f in files]
        res["read lock while running"] = [try_lock(f, "read") for f in files]
        check(all(x == ("read", "child-pid") for x in holders),
              f"lock holders while running: {holders} (child-pid {cp})")
        check(all(e != "OK" for e in res["write lock while running"]),
              "a write lock from outside succeeded while the sandbox holds --lock-file")
        live.release()
        res["exit"] = live.wait()
        res["stderr"] = live.stderr
        if h.wait_for(lambda: all(lock_holder(f)[0] is None for f in files), timeout=5):
            res["write lock after exit"] = [try_lock(f, "write") for f in files]
        else:
            res["write lock after exit"] = "still held 5s after the launcher exited"
        check_eq(res["write lock after exit"], ["OK"] * nfiles, "write lock after the exit")
        return res
    finally:
        if live:
            live.cleanup()
        info.close()


for label, root, n in (("pidns", minimal(), 1), ("nopidns", base(), 1), ("two-files", minimal(),
                                                                         2)):
    C.scenario(f"lock-file-host-{label}", covers=["--lock-file"])(
        lambda ctx, form, root=root, n=n: lock_run(ctx, form, root, n))


# ------------------------------------------------------------------------------------------------
# --assert-userns-disabled inside a user namespace made by an earlier sandbox (--userns)


def assert_in_existing(ctx, form, locked):
    """Sandbox A (--unshare-user [--disable-userns]) holds; sandbox B joins A's user namespace
    with --userns and asserts that user namespaces are disabled there."""
    h = ctx.h
    info = Pipe(INFO_FD)
    a = None
    nsfd = None
    try:
        argv = expand(h, h.fx, minimal("--unshare-user") + (["--disable-userns"] if locked
                                                            else [])
                      + ["--info-fd", str(INFO_FD)] + probe("hold"))
        a = Live(h, argv, user=ctx.user, form=form, pass_fds=[INFO_FD])
        info.close_inside()
        text, _ = info.read_until(10)
        check(text, f"sandbox A gave no report: {a.stderr!r}")
        check(a.first_line() is not None, f"sandbox A never started: {a.stderr!r}")
        cp = json.loads(text)["child-pid"]
        nsfd = os.open(f"/proc/{cp}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
        os.dup2(nsfd, USERNS_FD, inheritable=True)
        os.close(nsfd)
        nsfd = USERNS_FD
        res = {}
        for label, extra in (("assert", ["--assert-userns-disabled"]), ("plain", [])):
            r = ctx.run(expand(h, h.fx, ["--userns", str(USERNS_FD)] + extra + base()
                               + probe("userns")), form=form, pass_fds=[USERNS_FD])
            res[label] = {"exit": r.rc, "stdout": r.stdout, "stderr": r.stderr}
        a.release()
        res["A exit"] = a.wait()
        return res
    finally:
        if a:
            a.cleanup()
        info.close()
        if nsfd is not None:
            os.close(nsfd)


C.scenario("assert-userns-disabled-joined-locked", covers=["--assert-userns-disabled",
                                                          "--disable-userns", "--userns"])(
    lambda ctx, form: assert_in_existing(ctx, form, True))
C.scenario("assert-userns-disabled-joined-unlocked")(
    lambda ctx, form: assert_in_existing(ctx, form, False))


if __name__ == "__main__":
    sys.exit(C.main())
