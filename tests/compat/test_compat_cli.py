#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compat: the command line itself - --help, --version, usage, --args, --, parse errors."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat import CompatSuite, REFERENCE, forms, minimal, probe  # noqa: E402
from rftest import TestFailure, check, check_eq  # noqa: E402

C = CompatSuite("compat-cli")

USAGE_TAIL = " [OPTIONS...] [--] COMMAND [ARGS...]"
TARGET_VERSION = "bubblewrap 0.11.1\n"


def argv0_names(h, form):
    """What a usage line may name as argv[0] for this invocation form."""
    inv = h.invocation(form)
    if form == "default" and not h.bwrap_override:
        # `ringfence bwrap --help`: argv[0] is ringfence's path; "bwrap" is also accepted
        return {inv[0], f"{inv[0]} bwrap", "bwrap"}
    return {inv[0]}


def usage_outcome(h, form, r):
    """(exit, which stream, first line with argv0 normalised, other stream empty?)"""
    stream = "stdout" if r.out else ("stderr" if r.err else "none")
    text = r.stdout if stream == "stdout" else r.stderr
    first = text.split("\n", 1)[0]
    for name in sorted(argv0_names(h, form), key=len, reverse=True):
        if first == "usage: " + name + USAGE_TAIL:
            first = "usage: <argv0>" + USAGE_TAIL
            break
    other_empty = not (r.err if stream == "stdout" else r.out)
    return (r.rc, stream, first, other_empty)


def usage_scenario(args):
    def fn(ctx, form):
        return usage_outcome(ctx.h, form, ctx.run(args, form=form))
    return fn


for name, args in (("help", ["--help"]),
                   ("help-after-options", ["--unshare-all", "--chdir", "/x", "--help"]),
                   ("help-stops-parsing", ["--help", "--rf-bogus-option"]),
                   ("usage-no-arguments", []),
                   ("usage-options-but-no-command", ["--unshare-all", "--setenv", "A", "B"]),
                   ("usage-only-double-dash", ["--"])):
    C.scenario(name, covers=[a for a in args if a.startswith("-")])(usage_scenario(args))


@C.suite.case()
def help_usage_line_exact(ctx):
    # The hard link named bwrap must print its own argv[0], like bwrap does.
    r = ctx.run(["--help"], form="link")
    check_eq((r.rc, r.stdout.split("\n", 1)[0], r.stderr),
             (0, f"usage: {ctx.h.link}{USAGE_TAIL}", ""), "--help through the bwrap hard link")
    r = ctx.run(["--help"], form="reference")
    check_eq(r.stdout.split("\n", 1)[0], f"usage: {REFERENCE}{USAGE_TAIL}",
             "reference usage line (harness self-check)")


def expected_version(h):
    if h.bwrap_override:
        # self-check: the binary under test is a real bwrap; it reports its own version
        import subprocess
        return subprocess.run([h.bwrap_override, "--version"], capture_output=True,
                              text=True, timeout=10).stdout
    return TARGET_VERSION


C.options_used.add("--version")


@C.suite.case()
def version(ctx):
    """--version is checked against the documented behaviour (ringfence reports 0.11.1;
    Debian's reference is 0.8.0), not against the reference's text."""
    want = expected_version(ctx.h)
    check(re.fullmatch(r"bubblewrap \d+\.\d+\.\d+\n", want or ""), f"bad expectation {want!r}")
    problems = []
    for args in (["--version"], ["--unshare-all", "--version"],
                 ["--bind", "/nonexistent-rf", "/x", "--version"],
                 ["--version", "--rf-bogus-option"], ["--version", "--help"]):
        ref = ctx.run(args, form="reference")
        check(ref.rc == 0 and re.fullmatch(r"bubblewrap \d+\.\d+\.\d+\n", ref.stdout)
              and ref.stderr == "", f"reference {args}: {ref.describe()}")
        for label, form in forms(ctx.h):
            r = ctx.run(args, form=form)
            if (r.rc, r.stdout, r.stderr) != (0, want, ""):
                problems.append(f"[{label}] {args}: expected (0, {want!r}, ''), observed "
                                f"({r.rc}, {r.stdout!r}, {r.stderr!r})")
    if problems:
        raise TestFailure("\n  ".join(problems))


def nul(*words):
    return b"".join(w.encode() + b"\0" for w in words)


# --args
C.case("args-setenv", ["--args", "20"] + minimal() + probe("json"),
       data_fds={20: nul("--setenv", "RF_FROM_ARGS", "yes")})
C.case("args-at-position", minimal("--tmpfs", "/t", "--args", "20", "--dir", "/t/d2")
       + probe("json", "/t/d1", "/t/d2", "/t/late"),
       data_fds={20: nul("--dir", "/t/d1", "--symlink", "d1", "/t/late")})
C.case("args-repeated", ["--args", "20", "--args", "21"] + minimal() + probe("json"),
       data_fds={20: nul("--setenv", "A", "1"), 21: nul("--setenv", "B", "2", "--unsetenv",
                                                       "A")})
C.case("args-non-option-stops-file",
       ["--args", "20"] + minimal() + probe("json"),
       data_fds={20: nul("--setenv", "A", "one", "stop-here", "--setenv", "B", "two")})
C.case("args-empty", ["--args", "20"] + minimal() + probe("json"), data_fds={20: b""})
C.case("args-no-trailing-nul", ["--args", "20"] + minimal() + probe("json"),
       data_fds={20: b"--setenv\0A\0last"})
C.case("args-nested", ["--args", "20", "true"], data_fds={20: nul("--args", "21"), 21: b""},
       ref_rc=1)
C.case("args-bad-fd", ["--args", "77", "true"], ref_rc=1)
C.case("args-invalid-fd", ["--args", "2x", "true"], ref_rc=1)
C.case("args-negative-fd", ["--args", "-3", "true"], ref_rc=1)
C.case("args-missing-value", ["--args"], ref_rc=1)
C.case("args-error-inside", ["--args", "20", "true"], data_fds={20: nul("--rf-bogus")},
       ref_rc=1)
C.case("args-fd-closed-after-use", ["--args", "20"] + minimal() + probe("json"),
       data_fds={20: nul("--setenv", "A", "1")})

# -- and COMMAND detection
C.case("double-dash", minimal() + probe("json"))
C.case("command-without-double-dash", minimal() + ["{probe}", "json"], json=True)
C.case("double-dash-dash-command", minimal("--", "-rf-dash-command"), ref_rc=1)
C.case("dash-word-is-option", minimal("-rf-dash-command"), ref_rc=1)
C.case("args-after-command-untouched", minimal() + probe("json", "--unshare-all", "--bind"))

# Parse-time errors: exact text and exit code.
ERRORS = {
    "unknown-option": ["--rf-unknown-option", "true"],
    "unknown-short": ["-x", "true"],
    "equals-syntax": ["--chdir=/usr", "true"],
    "bind-one-arg": ["--bind", "/usr"],
    "bind-try-one-arg": ["--bind-try", "/usr"],
    "dev-bind-one-arg": ["--dev-bind", "/usr"],
    "dev-bind-try-one-arg": ["--dev-bind-try", "/usr"],
    "ro-bind-no-arg": ["--ro-bind"],
    "ro-bind-try-one-arg": ["--ro-bind-try", "/usr"],
    "symlink-one-arg": ["--symlink", "a"],
    "setenv-one-arg": ["--setenv", "A"],
    "unsetenv-no-arg": ["--unsetenv"],
    "chmod-one-arg": ["--chmod", "0755"],
    "chdir-no-arg": ["--chdir"],
    "tmpfs-no-arg": ["--tmpfs"],
    "dir-no-arg": ["--dir"],
    "proc-no-arg": ["--proc"],
    "dev-no-arg": ["--dev"],
    "mqueue-no-arg": ["--mqueue"],
    "remount-ro-no-arg": ["--remount-ro"],
    "hostname-no-arg": ["--hostname"],
    "uid-no-arg": ["--uid"],
    "gid-no-arg": ["--gid"],
    "perms-no-arg": ["--perms"],
    "size-no-arg": ["--size"],
    "seccomp-no-arg": ["--seccomp"],
    "add-seccomp-fd-no-arg": ["--add-seccomp-fd"],
    "cap-add-no-arg": ["--cap-add"],
    "cap-drop-no-arg": ["--cap-drop"],
    "seccomp-invalid-fd": ["--seccomp", "1x", "true"],
    "seccomp-empty-fd": ["--seccomp", "", "true"],
    "add-seccomp-fd-closed": ["--add-seccomp-fd", "77", "true"],
    "chmod-not-octal": ["--chmod", "999", "/x", "true"],
    "chmod-too-big": ["--chmod", "10000", "/x", "true"],
    "perms-not-octal": ["--perms", "8", "--dir", "/x", "true"],
    "perms-too-big": ["--perms", "17777", "--dir", "/x", "true"],
    "perms-twice": ["--perms", "0755", "--perms", "0700", "--dir", "/x", "true"],
    "perms-before-bind": ["--perms", "0755", "--bind", "/usr", "/x", "true"],
    "perms-before-command": ["--perms", "0755", "true"],
    "size-zero": ["--size", "0", "--tmpfs", "/x", "true"],
    "size-not-number": ["--size", "abc", "--tmpfs", "/x", "true"],
    "size-negative": ["--size", "-1", "--tmpfs", "/x", "true"],
    "size-trailing-junk": ["--size", "10k", "--tmpfs", "/x", "true"],
    "size-before-dir": ["--size", "100", "--dir", "/x", "true"],
    "size-twice": ["--size", "100", "--size", "200", "--tmpfs", "/x", "true"],
    "uid-invalid": ["--uid", "abc", "true"],
    "uid-negative": ["--uid", "-1", "--unshare-user", "true"],
    "gid-invalid": ["--gid", "x", "true"],
    "cap-add-unknown": ["--cap-add", "kill", "true"],
    "cap-drop-unknown": ["--cap-drop", "CAP_RF_NOPE", "true"],
    "hostname-without-uts": ["--hostname", "x", "true"],
    "as-pid-1-without-pid-ns": ["--unshare-user", "--as-pid-1", "true"],
    "seccomp-with-add-seccomp-fd": ["--seccomp", "20", "--add-seccomp-fd", "21", "true"],
    "bind-missing-source": ["--bind", "/nonexistent-rf", "/x", "true"],
    "ro-bind-missing-source": ["--ro-bind", "/nonexistent-rf", "/x", "true"],
    "dev-bind-missing-source": ["--dev-bind", "/nonexistent-rf/sub", "/x", "true"],
    # bwrap reads the --seccomp fd late: the other errors of the command line come first.
    "seccomp-closed-fd-then-hostname": ["--seccomp", "99", "--hostname", "x", "true"],
    "seccomp-closed-fd-then-missing-source": ["--seccomp", "99", "--bind", "/nonexistent-rf", "/x",
                                              "true"],
    "seccomp-closed-fd": ["--seccomp", "99", "--ro-bind", "/", "/", "true"],
}
for name, args in ERRORS.items():
    C.case("error-" + name, args, ref_rc=1)


@C.suite.case(users=("root",))
def uid_without_userns_as_root(ctx):
    # root without a user namespace may not change uid/gid
    from compat import CCase, run_case
    for name, args in (("uid", ["--uid", "5", "true"]), ("gid", ["--gid", "5", "true"])):
        run_case(ctx, CCase(name, args, ref_rc=1))


if __name__ == "__main__":
    sys.exit(C.main())
