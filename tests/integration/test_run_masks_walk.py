#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""`ringfence run`'s masks in a large project: the walk before the start matches each name on its
last component once no pattern names a directory above it, so it must still find secrets deep
inside a 36,000-file tree, keep --unmask of a directory for everything below it, and the watch for
names created later must do the same. Every case runs as root and as uid 65534."""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import SETPRIV, Suite, check, check_eq  # noqa: E402

suite = Suite("integration-run-masks-walk")


class Tree:
    def __init__(self, ctx, files=0):
        self.ctx = ctx
        self.uid = 65534 if ctx.unpriv else 0
        self.project = ctx.mkdtemp()
        self.env = {"PATH": "/usr/bin:/bin", "HOME": ctx.mkdtemp(), "LANG": "C", "XDG_RUNTIME_DIR": ""}
        # node_modules-like: 60 packages x 30 directories x `files / 1800` files
        per = files // 1800
        for a in range(60 if per else 0):
            for b in range(30):
                d = os.path.join(self.project, "node_modules", f"pkg{a}", f"lib{b}")
                os.makedirs(d)
                for c in range(per):
                    with open(os.path.join(d, f"f{c}.js"), "w") as f:
                        f.write("x")

    def write(self, rel, text):
        path = os.path.join(self.project, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def own(self):
        for root, dirs, names in os.walk(self.project):
            for n in dirs + names:
                os.lchown(os.path.join(root, n), self.uid, self.uid)
        os.chown(self.project, self.uid, self.uid)

    def argv(self, args):
        return (SETPRIV if self.ctx.unpriv else []) + [self.ctx.h.target, "run", "--no-profile",
                                                        "--network", "off"] + args

    def run(self, args, timeout=120):
        return subprocess.run(self.argv(args), capture_output=True, text=True, timeout=timeout,
                              cwd=self.project, env=self.env)


DEEP = ["node_modules/pkg17/lib23/.env", "node_modules/pkg59/lib0/id_rsa", "node_modules/pkg3/lib7/x/y/z/key.pem",
        "src/a/b/c/d/e/f/g/.aws/credentials", "node_modules/pkg40/lib9/.ssh/id_ed25519"]


def show(paths):
    return "for f in " + " ".join(paths) + "; do printf '%s=[%s]\\n' \"$f\" \"$(cat \"$f\" 2>&1)\"; done"


def run_with_late_names(t, args, paths, make_late, wait=60):
    """Runs `show(paths)` in the sandbox once make_late() has made its names on the host after
    the start; the run's exit code, stdout and stderr."""
    script = "touch started; while [ ! -e ready ]; do sleep 0.05; done; sleep 0.5; " + show(paths)
    p = subprocess.Popen(t.argv(args + ["--", "sh", "-c", script]), cwd=t.project, env=t.env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        started = os.path.join(t.project, "started")
        deadline = time.monotonic() + wait
        while not os.path.exists(started) and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
        check(os.path.exists(started), "the sandbox started")
        make_late()
        open(os.path.join(t.project, "ready"), "w").close()
        out, err = p.communicate(timeout=wait)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode, out, err


@suite.case()
def secrets_deep_in_a_large_tree(ctx):
    """36,000 files: every secret-named file deep inside is empty in the sandbox, an ordinary
    file next to one is readable, and a secret created after the start deep inside is hidden."""
    t = Tree(ctx, files=36000)
    for i, rel in enumerate(DEEP):
        t.write(rel, f"DEEP-SECRET-{i}\n")
    t.write("node_modules/pkg17/lib23/readme.md", "ordinary\n")
    t.own()
    late = ["node_modules/pkg33/lib12/.env.production", "node_modules/pkg33/lib12/new/dir/server.key"]

    def make_late():
        for i, rel in enumerate(late):
            t.write(rel, f"LATE-SECRET-{i}\n")

    code, out, err = run_with_late_names(t, [], DEEP + ["node_modules/pkg17/lib23/readme.md"] + late, make_late)
    check_eq(code, 0, f"run: {err[-1500:]!r}")
    check("SECRET" not in out, f"no secret is readable inside: {out!r}")
    for rel in DEEP + late:
        # a file is covered empty; one in a masked directory (.aws/, .ssh/) is not there at all
        hidden = f"{rel}=[]" in out or f"{rel}=[cat: {rel}: No such file or directory]" in out
        check(hidden, f"{rel} is hidden inside: {out!r}")
    for rel in ("src/a/b/c/d/e/f/g/.aws/credentials", "node_modules/pkg40/lib9/.ssh/id_ed25519"):
        check(f"{rel}=[cat: {rel}: No such file or directory]" in out, f"the directory of {rel} is masked whole")
    check("node_modules/pkg17/lib23/readme.md=[ordinary]" in out, f"an ordinary file is readable: {out!r}")


@suite.case()
def unmask_of_a_directory_holds_below_it(ctx):
    """--unmask of a directory leaves every secret-named file below it readable, before and after
    the start, while the same names elsewhere stay hidden; a mask of a directory hides all in it."""
    t = Tree(ctx)
    t.write("fixtures/.env", "FIXTURE-1\n")
    t.write("fixtures/sub/deeper/key.pem", "FIXTURE-2\n")
    t.write("other/.env", "OTHER-SECRET\n")
    t.write("vault/plain.txt", "VAULT-SECRET\n")
    t.own()
    late = {"fixtures/sub/late.env": "FIXTURE-LATE-1", "fixtures/new/.env": "FIXTURE-LATE-2",
            "other/new/.env": "OTHER-LATE", "vault/late.txt": "VAULT-LATE"}

    def make_late():
        for rel, text in late.items():
            t.write(rel, text + "\n")

    paths = ["fixtures/.env", "fixtures/sub/deeper/key.pem", "other/.env", "vault/plain.txt"] + list(late)
    code, out, err = run_with_late_names(t, ["--unmask", "fixtures", "--mask", "vault/"], paths, make_late, wait=30)
    check_eq(code, 0, f"run: {err[-1500:]!r}")
    for rel, text in (("fixtures/.env", "FIXTURE-1"), ("fixtures/sub/deeper/key.pem", "FIXTURE-2"),
                      ("fixtures/new/.env", "FIXTURE-LATE-2")):
        check(f"{rel}=[{text}]" in out, f"{rel} stays readable under --unmask fixtures: {out!r}")
    check("fixtures/sub/late.env=[FIXTURE-LATE-1]" in out, f"an ordinary late name is readable: {out!r}")
    check("OTHER" not in out and "other/.env=[]" in out and "other/new/.env=[]" in out,
          f"the same names elsewhere are hidden: {out!r}")
    check("VAULT" not in out, f"nothing in a masked directory is readable: {out!r}")


if __name__ == "__main__":
    sys.exit(suite.main())
