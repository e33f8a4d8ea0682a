#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Inherited file descriptors, environment operations and the working directory rules
(bwrap-compat.md 2.9)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import BASE_ENV, Suite, check_eq  # noqa: E402

suite = Suite("integration-fds-env-cwd")


def env_of(j):
    return dict(e.split("=", 1) for e in j["env"])


# ---------------------------------------------------------------------------------------------
# file descriptors


@suite.case()
def only_stdio_by_default(ctx):
    for root in (ctx.h.minimal_root(), ctx.h.minimal_root(unshare_all=False)):
        j = ctx.probe_json(root=root)
        check_eq(sorted(j["fds"], key=int), ["0", "1", "2"],
                 "descriptors open in COMMAND (the engine's own must not leak)")


@suite.case()
def inherited_fds_are_passed(ctx):
    d = ctx.mkdtemp()
    path = os.path.join(d, "inherited")
    with open(path, "w") as f:
        f.write("x")
    fds = []
    try:
        for num in (3, 5, 200):
            fd = os.open(path, os.O_RDONLY)
            if fd != num:
                os.dup2(fd, num)
                os.close(fd)
            fds.append(num)
        for root in (ctx.h.minimal_root(), ctx.h.minimal_root(unshare_all=False)):
            j = ctx.probe_json(root=root, pass_fds=fds)
            check_eq(sorted(j["fds"], key=int), ["0", "1", "2", "3", "5", "200"],
                     "descriptors in COMMAND when the caller passes 3, 5 and 200")
            for num in ("3", "5", "200"):
                check_eq(j["fds"][num], path, f"fd {num} target inside the sandbox")
    finally:
        for fd in fds:
            os.close(fd)


@suite.case()
def stdio_is_the_callers(ctx):
    r = ctx.probe([], ["cat", "-"], input=b"hello from stdin\n")
    check_eq((r.rc, r.out), (0, b"hello from stdin\n"), "COMMAND reads the caller's stdin")
    r = ctx.run(ctx.h.minimal_root() + ["--", "/usr/bin/sh", "-c", "echo out; echo err >&2"])
    check_eq((r.rc, r.out, r.err), (0, b"out\n", b"err\n"), "COMMAND's stdout and stderr")


# ---------------------------------------------------------------------------------------------
# environment


@suite.case()
def environment_inherited(ctx):
    j = ctx.probe_json()
    expected = dict(BASE_ENV, PWD="/")
    check_eq(env_of(j), expected, "environment of COMMAND (the caller's, plus PWD)")
    # PWD is always the final cwd, even if the caller sets another value.
    env = dict(BASE_ENV, PWD="/bogus", OLDPWD="/old")
    j = ctx.probe_json(env=env)
    check_eq(env_of(j), dict(BASE_ENV, PWD="/", OLDPWD="/old"), "environment with PWD set")


@suite.case()
def setenv_unsetenv(ctx):
    j = ctx.probe_json(["--setenv", "RF_A", "one", "--setenv", "RF_B", "two words=x",
                        "--setenv", "RF_A", "again", "--unsetenv", "LANG",
                        "--unsetenv", "RF_NEVER_SET", "--setenv", "RF_EMPTY", ""])
    expected = dict(BASE_ENV, PWD="/", RF_A="again", RF_B="two words=x", RF_EMPTY="")
    del expected["LANG"]
    check_eq(env_of(j), expected, "environment after --setenv/--unsetenv")


@suite.case()
def clearenv(ctx):
    j = ctx.probe_json(["--clearenv"])
    check_eq(j["env"], ["PWD=/"], "--clearenv leaves exactly PWD")
    j = ctx.probe_json(["--setenv", "RF_BEFORE", "1", "--clearenv", "--setenv", "RF_AFTER", "2"])
    check_eq(env_of(j), {"PWD": "/", "RF_AFTER": "2"}, "--setenv before/after --clearenv")
    j = ctx.probe_json(["--clearenv", "--chdir", "/usr"])
    check_eq(j["env"], ["PWD=/usr"], "--clearenv --chdir /usr")


# ---------------------------------------------------------------------------------------------
# working directory


@suite.case()
def chdir_option(ctx):
    j = ctx.probe_json(["--chdir", "/usr/bin"])
    check_eq((j["cwd"], env_of(j)["PWD"]), ("/usr/bin", "/usr/bin"), "cwd and PWD with --chdir")
    j = ctx.probe_json(["--chdir", "/usr/bin", "--chdir", "/usr/lib"])
    check_eq(j["cwd"], "/usr/lib", "repeated --chdir: last wins")
    j = ctx.probe_json(["--chdir", "/usr/bin"], cwd="/usr/share")
    check_eq(j["cwd"], "/usr/bin", "--chdir wins over the caller's cwd")
    r = ctx.probe(["--chdir", "/nonexistent-rf"], ["exit", "0"])
    check_eq((r.rc, r.stderr, r.stdout),
             (1, "bwrap: Can't chdir to /nonexistent-rf: No such file or directory\n", ""),
             "--chdir to a missing directory")


@suite.case()
def cwd_fallbacks(ctx):
    # 1. the caller's cwd, if that path exists inside
    j = ctx.probe_json(cwd="/usr/share")
    check_eq((j["cwd"], env_of(j)["PWD"]), ("/usr/share", "/usr/share"),
             "cwd when the caller's cwd exists in the sandbox")
    # 2. else $HOME (as set after option processing)
    j = ctx.probe_json(env=dict(BASE_ENV, HOME="/usr/lib"))
    check_eq((j["cwd"], env_of(j)["PWD"]), ("/usr/lib", "/usr/lib"),
             "cwd falls back to $HOME when the caller's cwd is not in the sandbox")
    j = ctx.probe_json(["--setenv", "HOME", "/usr/include"])
    check_eq(j["cwd"], "/usr/include", "cwd falls back to a HOME given with --setenv")
    # 3. else /
    j = ctx.probe_json()
    check_eq((j["cwd"], env_of(j)["PWD"]), ("/", "/"), "cwd when neither cwd nor HOME exist")
    j = ctx.probe_json(["--unsetenv", "HOME"])
    check_eq(j["cwd"], "/", "cwd without HOME")


@suite.case()
def umask_restored(ctx):
    for mask, text in ((0o022, "0022"), (0o027, "0027"), (0o077, "0077")):
        j = ctx.probe_json(umask=mask)
        check_eq(j["umask"], text, f"umask of COMMAND when the caller's umask is {text}")


if __name__ == "__main__":
    sys.exit(suite.main())
