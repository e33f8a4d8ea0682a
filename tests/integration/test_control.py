#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""--argv0 (bubblewrap 0.9.0, newer than Debian's reference, so checked against the documented
behaviour: COMMAND is looked up and executed as usual, the program sees VALUE as argv[0];
bwrap-compat.md 1.2) and the literal layout of the --info-fd / --json-status-fd reports
(bwrap-compat.md 1.3). The differential suites compare the rest of these options with bwrap."""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import Live, Pipe, Suite, check, check_eq, fd_with_data  # noqa: E402

suite = Suite("integration-control")

ARGV0 = (0, 9, 0)


def roots(ctx):
    return [("pid ns", ctx.h.minimal_root()),
            ("no pid ns", ctx.h.minimal_root(unshare_all=False)),
            ("as pid 1", ctx.h.minimal_root() + ["--as-pid-1"])]


def argv_of(ctx, extra, command, root=None, **kw):
    r = ctx.run((ctx.h.minimal_root() if root is None else root) + list(extra) + ["--"]
                + list(command), **kw)
    check(r.rc == 0, f"expected exit 0\n  {r.describe()}")
    return json.loads(r.out)


@suite.case(min_version=ARGV0)
def argv0_is_what_the_command_sees(ctx):
    h = ctx.h
    for label, root in roots(ctx):
        j = argv_of(ctx, ["--argv0", "rf-custom-name"], [h.probe, "argv", "a", "b c"], root=root)
        check_eq(j["argv"], ["rf-custom-name", "argv", "a", "b c"], f"{label}: argv")
        check_eq(j["exe"], h.probe, f"{label}: the executed file (/proc/self/exe)")
        check_eq(j["comm"], "probe", f"{label}: comm (named after the executed file)")


@suite.case(min_version=ARGV0)
def argv0_command_looked_up_in_path(ctx):
    h = ctx.h
    for value in ("/usr/bin/false", "sh", "-login"):
        j = argv_of(ctx, ["--setenv", "PATH", h.probe_dir, "--argv0", value], ["probe", "argv"])
        check_eq(j["argv"], [value, "argv"], f"argv with --argv0 {value!r}")
        check_eq(j["exe"], h.probe, f"--argv0 {value!r}: COMMAND 'probe' found via PATH runs")


@suite.case(min_version=ARGV0)
def argv0_empty_value(ctx):
    j = argv_of(ctx, ["--argv0", ""], [ctx.h.probe, "argv"])
    check_eq(j["argv"], ["", "argv"], "argv with an empty --argv0")
    check_eq(j["exe"], ctx.h.probe, "the executed file")


@suite.case(min_version=ARGV0)
def argv0_default_is_command(ctx):
    j = argv_of(ctx, [], [ctx.h.probe, "argv"])
    check_eq(j["argv"], [ctx.h.probe, "argv"], "argv without --argv0")


@suite.case(min_version=ARGV0)
def argv0_from_args_fd(ctx):
    fd = fd_with_data(b"--argv0\0from-args-fd\0", 60)
    try:
        j = argv_of(ctx, ["--args", "60"], [ctx.h.probe, "argv"], pass_fds=[60])
    finally:
        os.close(fd)
    check_eq(j["argv"], ["from-args-fd", "argv"], "argv with --argv0 read from --args")


@suite.case(min_version=ARGV0)
def argv0_errors(ctx):
    h = ctx.h
    cases = [
        (["--argv0", "a", "--argv0", "b", "--", h.probe, "argv"],
         "bwrap: --argv0 used multiple times\n"),
        (["--argv0", "a", "--argv0", "a", "--", h.probe, "argv"],
         "bwrap: --argv0 used multiple times\n"),
        (["--argv0"], "bwrap: --argv0 takes one argument\n"),
        (["--argv0", "name", "--", "/nonexistent-rf"],
         "bwrap: execvp /nonexistent-rf: No such file or directory\n"),
    ]
    for extra, err in cases:
        r = ctx.run(h.minimal_root() + extra)
        check_eq((r.rc, r.stderr, r.stdout), (1, err, ""), f"bwrap {' '.join(extra)}")


@suite.case(min_version=ARGV0)
def argv0_exec_is_reported(ctx):
    """The command was exec'd, so --json-status-fd gets its exit-code line."""
    h = ctx.h
    status = Pipe(61)
    live = None
    try:
        live = Live(h, h.minimal_root() + ["--json-status-fd", "61", "--argv0", "x", "--",
                                           h.probe, "exit", "6"], user=ctx.user, pass_fds=[61])
        status.close_inside()
        check_eq(live.wait(), 6, "exit code")
        text, eof = status.read_until(5)
        check(eof, "status fd still open")
        check_eq(text.decode().split("\n")[1:], ['{ "exit-code": 6 }', ""],
                 "status lines after the first")
    finally:
        if live:
            live.cleanup()
        status.close()


# ------------------------------------------------------------------------------------------------
# Report layout, literally as documented

INFO_RE = re.compile(r'\{\n    "child-pid": (\d+)((?:,\n    "[a-z]+-namespace": \d+)*)\n\}\n')
STATUS1_RE = re.compile(r'\{ "child-pid": (\d+)((?:, "[a-z]+-namespace": \d+)*) \}\n')
EXIT_RE = re.compile(r'\{ "exit-code": (\d+) \}\n')


def reports(ctx, extra, command):
    h = ctx.h
    info, status = Pipe(60), Pipe(61)
    live = None
    try:
        live = Live(h, h.minimal_root(unshare_all=False) + list(extra)
                    + ["--info-fd", "60", "--json-status-fd", "61", "--"] + list(command),
                    user=ctx.user, pass_fds=[60, 61])
        info.close_inside()
        status.close_inside()
        rc = live.wait()
        itext, _ = info.read_until(5)
        stext, _ = status.read_until(5)
        return rc, itext.decode(), stext.decode()
    finally:
        if live:
            live.cleanup()
        info.close()
        status.close()


@suite.case()
def report_layout(ctx):
    h = ctx.h
    all_ns = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
              "--unshare-cgroup"]
    for extra, names in (([], ["mnt"]), (all_ns, ["cgroup", "ipc", "mnt", "net", "pid", "uts"]),
                         (["--unshare-user", "--unshare-uts"], ["mnt", "uts"])):
        rc, itext, stext = reports(ctx, extra, [h.probe, "exit", "0"])
        check_eq(rc, 0, f"{extra}: exit code")
        m = INFO_RE.fullmatch(itext)
        check(m is not None, f"{extra}: --info-fd text {itext!r} is not the documented layout")
        check_eq(re.findall(r'"([a-z]+)-namespace"', itext), names,
                 f"{extra}: namespaces listed (fixed order, unshared only, never user)")
        lines = stext.split("\n")
        check(len(lines) == 3 and lines[2] == "", f"{extra}: status {stext!r}: two lines")
        m1 = STATUS1_RE.fullmatch(lines[0] + "\n")
        check(m1 is not None, f"{extra}: status line 1 {lines[0]!r} is not the documented layout")
        check_eq(json.loads(lines[0]), json.loads(itext), f"{extra}: status line 1 vs info")
        check_eq(lines[1] + "\n", '{ "exit-code": 0 }\n', f"{extra}: status line 2")
    rc, _, stext = reports(ctx, [], [h.probe, "kill", "9"])
    check_eq((rc, stext.split("\n")[1:]), (137, ['{ "exit-code": 137 }', ""]),
             "SIGKILL: exit code and exit-code line")
    for cmd in (["/nonexistent-rf"], ["/usr"]):
        rc, itext, stext = reports(ctx, [], cmd)
        check(rc == 1 and STATUS1_RE.fullmatch(stext) is not None and INFO_RE.fullmatch(itext),
              f"exec failure {cmd}: expected exit 1, the info report and only line 1 of the "
              f"status, observed exit {rc}, info {itext!r}, status {stext!r}")
    rc, itext, stext = reports(ctx, ["--chdir", "/nonexistent"], [h.probe, "exit", "0"])
    check(rc == 1 and STATUS1_RE.fullmatch(stext) is not None,
          f"setup failure: expected exit 1 and only line 1 of the status, observed exit {rc}, "
          f"status {stext!r}")


if __name__ == "__main__":
    sys.exit(suite.main())
