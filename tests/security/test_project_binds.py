#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Attacks on the binds of `ringfence run` that lie in the project, the one tree the sandbox can
write (and so could have prepared in an earlier run, or a hostile project ships prepared).

Each case plants something in a real repository (git init on the host), runs `ringfence run`
with an attack script inside, and then checks on the host:
- no host file outside the project was visible (a canary in a host directory the sandbox must
  not see, and a fake HOME whose secret must not appear in the throwaway HOME);
- nothing was written outside the project;
- git's code paths (hooks, config, commondir, info/attributes, modules, worktrees) were not
  created or changed, and `.git` itself was not renamed away or replaced.
A run may also be refused (exit 125, naming the path): the attack then never ran.

Planted: .git/hooks -> /, .git/hooks -> the fake HOME, .git/config as a link into the project,
.git itself a link, .git/hooks missing, .git/hooks a file; --workspace's /workspace/.env and
/workspace/.git; a host loop that swaps .git/hooks for a link while sandboxes start; and real git
work inside (add, commit, branch, checkout, stash, rebase, gc) that must keep working.
"""

import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import BASE_ENV, SETPRIV, Suite, Swapper, check, fail, require_program  # noqa: E402

suite = Suite("security-project-binds")
GIT = "/usr/bin/git"
SETUP_FAILED = 125

# Runs inside the sandbox (cwd: the project). argv: canary path, fake home secret path.
ATTACK = r'''
import json, os, subprocess, sys
canary, home_secret = sys.argv[1], sys.argv[2]
res = {}
def attempt(name, fn):
    try:
        res[name] = fn()
    except OSError as e:
        res[name] = "refused: " + os.strerror(e.errno)
def read(p):
    with open(p, "rb") as f:
        return f.read().decode(errors="replace")
def write(p, data="RF-PLANTED\n"):
    with open(p, "a") as f:
        f.write(data)
    return "written"
def mk(p):
    os.makedirs(p, exist_ok=True)
    return "made"
attempt("host_canary", lambda: read(canary))
attempt("home_secret", lambda: read(home_secret))
attempt("root_listing", lambda: sorted(os.listdir("/")))
attempt("hook_write", lambda: write(".git/hooks/pre-commit", "#!/bin/sh\ntouch RF-HOOK-RAN\n"))
attempt("config_write", lambda: write(".git/config", "[core]\n\tfsmonitor = touch RF-FSMONITOR\n"))
attempt("config_unlink", lambda: (os.unlink(".git/config"), "unlinked")[1])
attempt("config_replace", lambda: (write(".git/config.new", "[core]\n\tfsmonitor = x\n"),
                                   os.rename(".git/config.new", ".git/config"), "replaced")[2])
attempt("hooks_rename", lambda: (os.rename(".git/hooks", ".git/hooks-away"), "renamed")[1])
attempt("hooks_new", lambda: (mk(".git/hooks/x"), "made")[1])
attempt("info_attributes", lambda: (mk(".git/info"), write(".git/info/attributes", "* filter=x\n"))[1])
attempt("modules_config", lambda: (mk(".git/modules/m"), write(".git/modules/m/config"))[1])
attempt("worktrees_entry", lambda: (mk(".git/worktrees/w"), write(".git/worktrees/w/commondir"))[1])
attempt("git_rename", lambda: (os.rename(".git", ".git-away"), "renamed")[1])
attempt("git_rmdir_replace", lambda: (os.rename(".git", "gone"), os.mkdir(".git"), "replaced")[2])
res["is_root_host"] = os.path.exists(canary)
print("RF-RESULT " + json.dumps(res))
'''


def sh(argv, **kw):
    return subprocess.run(argv, capture_output=True, timeout=60, **kw)


def chown_tree(path, uid):
    for dirpath, dirnames, filenames in os.walk(path):
        for n in [dirpath] + [os.path.join(dirpath, x) for x in dirnames + filenames]:
            os.lchown(n, uid, uid)


class World:
    """A git project, a canary outside it, a fake HOME, all owned by the case's user."""

    def __init__(self, ctx):
        require_program(GIT, "git", "the repositories the attacks plant links in")
        require_program("/usr/bin/python3", "python3", "the attack script")
        self.ctx = ctx
        self.token = ctx.h.token
        self.outside = ctx.mkdtemp(owned=True)
        self.canary = os.path.join(self.outside, "canary")
        with open(self.canary, "w") as f:
            f.write(f"RF-CANARY-{self.token}\n")
        self.home = ctx.mkdtemp(owned=True)
        self.home_secret = os.path.join(self.home, "secret")
        with open(self.home_secret, "w") as f:
            f.write(f"RF-HOME-SECRET-{self.token}\n")
        self.proj = ctx.mkdtemp(owned=True)
        r = sh([GIT, "init", "-q", self.proj])
        check(r.returncode == 0, f"git init: {r.stderr!r}")
        with open(os.path.join(self.proj, ".env"), "w") as f:
            f.write(f"RF-DOTENV-{self.token}\n")
        with open(os.path.join(self.proj, "a.txt"), "w") as f:
            f.write("one\n")

    def git(self, *rel):
        return os.path.join(self.proj, ".git", *rel)

    def own(self):
        for p in (self.outside, self.home, self.proj):
            chown_tree(p, self.ctx.uid)

    def snapshot(self):
        """Everything outside the project, and every git path that runs code on the host."""
        snap = {}
        for top in (self.outside, self.home):
            for dirpath, dirnames, filenames in os.walk(top):
                for n in dirnames + filenames:
                    p = os.path.join(dirpath, n)
                    snap[p] = describe(p)
        for rel in ("config", "commondir", "config.worktree", "hooks", "info", "modules",
                    "worktrees", ""):
            p = self.git(rel) if rel else os.path.join(self.proj, ".git")
            snap[p] = describe(p)
            if os.path.isdir(p) and not os.path.islink(p) and rel:
                for dirpath, dirnames, filenames in os.walk(p):
                    for n in dirnames + filenames:
                        q = os.path.join(dirpath, n)
                        snap[q] = describe(q)
        return snap

    def run(self, extra=(), script=ATTACK, args=None, timeout=60, own=True):
        if own:
            self.own()
        argv = [self.ctx.h.target, "run", "--no-profile", "--network", "off",
                "--project", self.proj] + list(extra) + ["--", "/usr/bin/python3", "-c", script]
        argv += args if args is not None else [self.canary, self.home_secret]
        env = dict(BASE_ENV, HOME=self.home)
        full = (SETPRIV if self.ctx.unpriv else []) + argv
        return subprocess.run(full, cwd=self.proj, env=env, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)


def describe(p):
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return "missing"
    if os.path.islink(p):
        return "link -> " + os.readlink(p)
    if os.path.isdir(p):
        return "dir"
    with open(p, "rb") as f:
        return "file " + f.read().decode(errors="replace") + f" mode={st.st_mode:o}"


def host_changes(w, before, after):
    """What changed, except the empty directories ringfence makes in place of missing ones
    (hooks, info, modules, worktrees) to cover them read-only."""
    made = {w.git(n) for n in ("hooks", "info", "modules", "worktrees")}
    out = {}
    for p in set(before) | set(after):
        a, b = before.get(p), after.get(p)
        if a == b or (p in made and a in ("missing", None) and b == "dir" and not os.listdir(p)):
            continue
        out[p] = (a, b)
    return out


def results(r):
    for line in r.stdout.decode(errors="replace").splitlines():
        if line.startswith("RF-RESULT "):
            return json.loads(line[len("RF-RESULT "):])
    return None


def judge(w, r, before, what, refused_names=None):
    """The attack ran (and everything was refused) or the run was refused, naming the path."""
    err = r.stderr.decode(errors="replace")
    after = w.snapshot()
    changed = host_changes(w, before, after)
    problems = []
    if changed:
        problems.append("host files changed: " + "; ".join(
            f"{p}: {a} -> {b}" for p, (a, b) in sorted(changed.items())))
    if os.path.exists(os.path.join(w.proj, ".git-away")) or os.path.exists(
            os.path.join(w.proj, "gone")):
        problems.append(".git was renamed away")
    if r.returncode == SETUP_FAILED:
        if refused_names and not any(n in err for n in refused_names):
            problems.append(f"refused without naming {refused_names}: {err[-600:]}")
    else:
        res = results(r)
        if res is None:
            fail(f"{what}: no result (exit {r.returncode}): {err[-1500:]}")
        for k in ("host_canary", "home_secret"):
            if not str(res[k]).startswith("refused") and w.token in str(res[k]):
                problems.append(f"{k} visible inside: {res[k]!r}")
        if res["is_root_host"]:
            problems.append("the host's tree is visible inside: / = " + repr(res["root_listing"]))
        for k, v in res.items():
            if k in ("host_canary", "home_secret", "root_listing", "is_root_host") or v is None:
                continue
            if not str(v).startswith("refused"):
                problems.append(f"{k}: {v}")
    if problems:
        fail(f"{what} (exit {r.returncode}):\n  " + "\n  ".join(problems)
             + f"\n  stderr: {err[-800:]}")


@suite.case()
def hooks_link_to_root(ctx):
    w = World(ctx)
    shutil.rmtree(w.git("hooks"))
    os.symlink("/", w.git("hooks"))
    before = w.snapshot()
    judge(w, w.run(), before, ".git/hooks -> /", [".git/hooks"])


@suite.case()
def hooks_link_to_home(ctx):
    w = World(ctx)
    shutil.rmtree(w.git("hooks"))
    os.symlink(w.home, w.git("hooks"))
    before = w.snapshot()
    judge(w, w.run(), before, ".git/hooks -> $HOME", [".git/hooks"])


@suite.case()
def config_link_into_project(ctx):
    w = World(ctx)
    shutil.move(w.git("config"), os.path.join(w.proj, "shared.cfg"))
    os.symlink("../shared.cfg", w.git("config"))
    before = w.snapshot()
    before["shared"] = describe(os.path.join(w.proj, "shared.cfg"))
    r = w.run()
    after_shared = describe(os.path.join(w.proj, "shared.cfg"))
    check(after_shared == before.pop("shared"), f"the linked config changed: {after_shared}")
    judge(w, r, before, ".git/config -> ../shared.cfg", [".git/config"])


@suite.case()
def git_dir_is_a_link(ctx):
    w = World(ctx)
    os.rename(os.path.join(w.proj, ".git"), os.path.join(w.proj, "real-git"))
    os.symlink("real-git", os.path.join(w.proj, ".git"))
    before = w.snapshot()
    for rel in ("config", "hooks"):
        before["real " + rel] = describe(os.path.join(w.proj, "real-git", rel))
    r = w.run()
    for rel in ("config", "hooks"):
        now = describe(os.path.join(w.proj, "real-git", rel))
        check(now == before.pop("real " + rel), f"real-git/{rel} changed: {now}")
    judge(w, r, before, ".git -> real-git", [".git"])


@suite.case()
def git_dir_link_to_root(ctx):
    w = World(ctx)
    shutil.rmtree(os.path.join(w.proj, ".git"))
    os.symlink("/", os.path.join(w.proj, ".git"))
    before = w.snapshot()
    judge(w, w.run(), before, ".git -> /", [".git"])


@suite.case()
def bind_source_through_a_link(ctx):
    """--bind of a project path the sandbox turned into a link (to /, to the fake HOME): refused
    at the kernel and landlock levels, never the link's target."""
    w = World(ctx)
    script = ("import os,sys; print('RF-RESULT ' + repr([os.path.exists(p) for p in sys.argv[1:]]))")
    for target in ("/", w.home):
        link = os.path.join(w.proj, "data")
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(target, link)
        for level in ([], ["--level", "landlock"]):
            r = w.run(level + ["--bind", f"{link}:/data"], script=script,
                      args=["/data" + w.canary, "/data/secret", w.canary, w.home_secret])
            err = r.stderr.decode(errors="replace")
            check(r.returncode == SETUP_FAILED and f"{link} is a symbolic link" in err,
                  f"--bind {link} (-> {target}) {level}: exit {r.returncode}, "
                  f"out {r.stdout[-300:]!r} err {err[-600:]}")


@suite.case()
def bind_dest_through_a_link(ctx):
    """--ro-bind to a destination in the project reached through a link the sandbox made:
    refused, nothing mounted where the link points."""
    w = World(ctx)
    os.symlink("/etc", os.path.join(w.proj, "etc-link"))
    r = w.run(["--ro-bind", f"{w.outside}:{w.proj}/etc-link/rf-x"], script="print('RF-RESULT ran')",
              args=[])
    err = r.stderr.decode(errors="replace")
    check(r.returncode == SETUP_FAILED and "symbolic link" in err,
          f"exit {r.returncode}, out {r.stdout[-300:]!r} err {err[-600:]}")
    check(not os.path.exists("/etc/rf-x"), "a mount point was made in the host's /etc")


@suite.case()
def gitfile_stays(ctx):
    """A .git file (a linked worktree's "gitdir: ..."): read-only and not replaceable, so it
    cannot be pointed at a repository the sandbox made."""
    w = World(ctx)
    shutil.move(os.path.join(w.proj, ".git"), os.path.join(w.outside, "repo.git"))
    with open(os.path.join(w.proj, ".git"), "w") as f:
        f.write(f"gitdir: {w.outside}/repo.git\n")
    script = r'''
import json, os
res = {}
for name, fn in (("write", lambda: open(".git", "w").write("gitdir: evil\n")),
                 ("rename", lambda: os.rename(".git", "gitfile-away")),
                 ("unlink", lambda: os.unlink(".git"))):
    try:
        fn()
        res[name] = "done"
    except OSError as e:
        res[name] = "refused: " + os.strerror(e.errno)
print("RF-RESULT " + json.dumps(res))
'''
    r = w.run(script=script, args=[])
    res = results(r)
    check(res is not None, f"no result (exit {r.returncode}): {r.stderr[-1000:]!r}")
    bad = {k: v for k, v in res.items() if not v.startswith("refused")}
    check(not bad, f"the .git file was changed inside: {bad}")
    with open(os.path.join(w.proj, ".git")) as f:
        check(f.read() == f"gitdir: {w.outside}/repo.git\n", "the .git file changed on the host")


@suite.case()
def hooks_missing(ctx):
    w = World(ctx)
    shutil.rmtree(w.git("hooks"))
    before = w.snapshot()
    r = w.run()
    # An empty directory may be left in the place of the missing one; nothing in it.
    if describe(w.git("hooks")) == "dir" and not os.listdir(w.git("hooks")):
        before[w.git("hooks")] = "dir"
    judge(w, r, before, ".git/hooks missing")


@suite.case()
def hooks_is_a_file(ctx):
    w = World(ctx)
    shutil.rmtree(w.git("hooks"))
    with open(w.git("hooks"), "w") as f:
        f.write("not a directory\n")
    before = w.snapshot()
    judge(w, w.run(), before, ".git/hooks a file", [".git/hooks"])


@suite.case()
def workspace_is_protected(ctx):
    w = World(ctx)
    script = r'''
import json, os
res = {}
for p in ("/workspace/.env", "./.env"):
    try:
        res[p] = open(p).read()
    except OSError as e:
        res[p] = "refused: " + os.strerror(e.errno)
for p in ("/workspace/.git/config", "/workspace/.git/hooks/post-checkout"):
    try:
        with open(p, "a") as f:
            f.write("[core]\n\tfsmonitor = touch RF-WS\n")
        res[p] = "written"
    except OSError as e:
        res[p] = "refused: " + os.strerror(e.errno)
try:
    os.rename("/workspace/.git", "/workspace/.git-away")
    res["rename"] = "renamed"
except OSError as e:
    res["rename"] = "refused: " + os.strerror(e.errno)
try:
    with open("/workspace/b.txt", "w") as f:
        f.write("b\n")
    res["write_project"] = "written"
except OSError as e:
    res["write_project"] = "refused: " + os.strerror(e.errno)
print("RF-RESULT " + json.dumps(res))
'''
    before = w.snapshot()
    r = w.run(["--workspace"], script=script, args=[])
    res = results(r)
    check(res is not None, f"no result (exit {r.returncode}): {r.stderr[-1500:]!r}")
    problems = []
    for k, v in res.items():
        if k == "write_project" or str(v).startswith("refused"):
            continue
        if not k.endswith(".env") or w.token in str(v):
            problems.append(f"{k}: {v!r}")
    check(res["write_project"] == "written", f"/workspace is not writable: {res}")
    check(os.path.exists(os.path.join(w.proj, "b.txt")), "/workspace is not the project")
    changed = host_changes(w, before, w.snapshot())
    if problems or changed:
        fail("--workspace: " + "; ".join(problems + [f"host changed: {p}" for p in changed]))


GIT_WORK = r'''
set -e
g() { git -c user.name=rf -c user.email=rf@example.invalid "$@"; }
first=$(git symbolic-ref --short HEAD)
echo two >> a.txt
g add a.txt
g commit -qm one
g branch side
g checkout -q side
echo side > s.txt
g add s.txt
g commit -qm side
g checkout -q -
echo three >> a.txt
g stash -q
g stash pop -q
g commit -qam three
g rebase -q side
g switch -q -c topic
echo topic > t.txt
g add t.txt
g commit -qm topic
g switch -q "$first"
g merge -q --no-ff -m merge topic
g cherry-pick -n topic >/dev/null 2>&1 || true
g reset -q --hard HEAD
g gc -q
g repack -adq
g tag v1
if g config rf.key value 2>/dev/null; then echo RF-CONFIG-WRITTEN; fi
echo RF-GIT-OK
'''


@suite.case()
def git_work_still_possible(ctx):
    w = World(ctx)
    sh([GIT, "-c", "safe.directory=*", "-C", w.proj, "-c", "user.name=rf", "-c", "user.email=rf@example.invalid",
        "commit", "-q", "--allow-empty", "-m", "root"])
    before = w.snapshot()
    w.own()
    argv = [ctx.h.target, "run", "--no-profile", "--network", "off", "--project", w.proj,
            "--", "/bin/sh", "-c", GIT_WORK]
    full = (SETPRIV if ctx.unpriv else []) + argv
    r = subprocess.run(full, cwd=w.proj, env=dict(BASE_ENV, HOME=w.home), capture_output=True,
                       timeout=120, stdin=subprocess.DEVNULL)
    out = r.stdout.decode(errors="replace")
    check("RF-CONFIG-WRITTEN" not in out, "git config wrote .git/config inside")
    check(r.returncode == 0 and "RF-GIT-OK" in out,
          f"git work failed inside (exit {r.returncode}): {out[-800:]} "
          f"{r.stderr.decode(errors='replace')[-1500:]}")
    log = sh([GIT, "-c", "safe.directory=*", "-C", w.proj, "log", "--oneline", "side"])
    # root, one, side: the commits made inside are the host's
    check(log.returncode == 0 and len(log.stdout.splitlines()) == 3, f"host log: {log!r}")
    changed = host_changes(w, before, w.snapshot())
    check(not changed, "git work changed protected paths: " + "; ".join(
        f"{p}: {a} -> {b}" for p, (a, b) in sorted(changed.items())))


AUTORUN = r'''
set -e
echo '{"changed": 1}' > .vscode/settings.json
echo 'echo new' > sub/.envrc
git init -q nested
mkdir -p .github/workflows
echo '{}' > .vscode/tasks.json
echo 'on: push' > .github/workflows/ci.yml
echo ../elsewhere > .git/commondir
echo plain > notes.txt
ln -s /etc/shadow docs-link
ln -s notes.txt inside-link
mkfifo stuck-fifo
'''


@suite.case()
def autorun_files_named_after_the_run(ctx):
    """Files host tools run later, made or changed inside, are named when the run ends; one that
    is there before and stays the same is not."""
    w = World(ctx)
    with open(os.path.join(w.proj, ".envrc"), "w") as f:
        f.write("echo before\n")
    os.mkdir(os.path.join(w.proj, "sub"))
    os.mkdir(os.path.join(w.proj, ".vscode"))
    with open(os.path.join(w.proj, ".vscode", "settings.json"), "w") as f:
        f.write("{}\n")
    with open(os.path.join(w.proj, ".pre-commit-config.yaml"), "w") as f:
        f.write("repos: []\n")
    w.own()
    argv = [ctx.h.target, "run", "--no-profile", "--network", "off", "--project", w.proj,
            "--", "/bin/sh", "-c", AUTORUN]
    r = subprocess.run((SETPRIV if ctx.unpriv else []) + argv, cwd=w.proj,
                       env=dict(BASE_ENV, HOME=w.home), capture_output=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    err = r.stderr.decode(errors="replace")
    check(r.returncode == 0, f"exit {r.returncode}: {err[-1500:]}")
    for rel, how in ((".vscode/settings.json", "changed"), ("sub/.envrc", "made"), ("nested/.git", "made"),
                     (".vscode/tasks.json", "made"), (".github/workflows/ci.yml", "made"),
                     (".git/commondir", "made")):
        check(f"{w.proj}/{rel} was {how} in the sandbox" in err, f"{rel} ({how}) not named: {err}")
    # risky by their type: a link out of the project (a host tool following it reads or writes
    # outside), a FIFO (a host tool opening it hangs); a link that stays inside is not named
    for rel, why in (("docs-link", "symbolic link out of the project"), ("stuck-fifo", "FIFO")):
        check(f"{w.proj}/{rel} was made in the sandbox ({why}" in err, f"{rel} not named: {err}")
    for rel in (".envrc", ".pre-commit-config.yaml", "notes.txt", "inside-link"):
        check(f"{w.proj}/{rel} was" not in err, f"{rel} named though it is not new: {err}")


PLANT_COMMONDIR = r'''
set -e
mkdir -p planted/objects planted/refs
cp .git/HEAD planted/HEAD
printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch %s; false"\n' "$1" > planted/config
echo ../planted > .git/commondir
'''


@suite.case()
def commondir_planted_inside_is_moved_aside(ctx):
    """A .git/commondir made inside would point the host's next git at a config of the sandbox's
    (core.fsmonitor runs a program at `git status`): after the run it is no longer there, the
    move is said, and the host's git status runs nothing."""
    w = World(ctx)
    ran = os.path.join(w.outside, "fsmonitor-ran")
    w.own()
    argv = [ctx.h.target, "run", "--no-profile", "--network", "off", "--project", w.proj,
            "--", "/bin/sh", "-c", PLANT_COMMONDIR, "sh", ran]
    r = subprocess.run((SETPRIV if ctx.unpriv else []) + argv, cwd=w.proj,
                       env=dict(BASE_ENV, HOME=w.home), capture_output=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    err = r.stderr.decode(errors="replace")
    check(r.returncode == 0, f"exit {r.returncode}: {err[-1500:]}")
    check(not os.path.lexists(w.git("commondir")), "the planted .git/commondir is still there")
    check(os.path.isfile(w.git("commondir.refused")), "the planted commondir was not kept aside")
    check(f"{w.proj}/.git/commondir was made in the sandbox" in err and "moved to commondir.refused" in err,
          f"the move is not said: {err}")
    host_git = (SETPRIV if ctx.unpriv else []) + [GIT, "-C", w.proj, "status", "--porcelain"]
    st = sh(host_git, env=dict(BASE_ENV, HOME=w.home))
    check(st.returncode == 0, f"host git status fails after the run: {st.stderr!r}")
    check(not os.path.exists(ran), "the host's git status ran the planted fsmonitor")
    # The control: the same planted directory, pointed at by hand, does run it (the attack is real).
    with open(w.git("commondir"), "w") as f:
        f.write("../planted\n")
    sh(host_git, env=dict(BASE_ENV, HOME=w.home))
    os.unlink(w.git("commondir"))
    check(os.path.exists(ran), "control: git did not take the planted config through commondir")


@suite.case()
def hooks_swapped_while_starting(ctx):
    """A host loop turns .git/hooks into a link to / and back while sandboxes start: not one of
    them may see the host's tree."""
    w = World(ctx)
    script = ("import os,sys; print('RF-RESULT ' + ('HOST' if os.path.exists(sys.argv[1]) "
              "else 'ok'))")
    w.own()
    hooks, parked, link = w.git("hooks"), w.git("hooks-parked"), w.git("hooks-link")
    os.symlink("/", link)
    swapper = Swapper(hooks, link, parked)
    seen = {"ran": 0, "refused": 0}
    stages = {}
    try:
        deadline = time.monotonic() + 40
        for _ in range(150):
            if time.monotonic() > deadline:
                break
            r = w.run(script=script, args=[w.canary], timeout=30, own=False)
            out = r.stdout.decode(errors="replace")
            err = r.stderr.decode(errors="replace")
            if "RF-RESULT HOST" in out:
                fail(f"a sandbox saw the host's tree after {seen} runs")
            if "RF-RESULT ok" in out:
                seen["ran"] += 1
            elif r.returncode == SETUP_FAILED:
                seen["refused"] += 1
                # where the link was caught: the plan, the launcher's look, the child's bind
                stage = ("plan" if "links in the project are not followed" in err
                         else "child" if "Can't bind mount" in err or "changed while" in err
                         else "launcher" if "Can't bind" in err or "Can't find source" in err
                         else "other: " + err[-200:])
                stages[stage] = stages.get(stage, 0) + 1
            else:
                fail(f"unexpected exit {r.returncode}: {r.stderr[-800:]!r}")
    finally:
        swapper.stop()
    check(swapper.swaps > 0, "the swapper never swapped")
    check(seen["ran"] + seen["refused"] > 0, "no sandbox started")
    print(f"  race: {seen['ran']} ran, {seen['refused']} refused {stages}, {swapper.swaps} swaps")


if __name__ == "__main__":
    sys.exit(suite.main())
