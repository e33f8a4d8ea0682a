#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""`ringfence changes`, `apply` and `discard` on change sets made by a real overlay: the kernel
writes the upper directory (mount -t overlay ... userxattr, in a mount namespace of its own, as
root and in a user namespace as uid 65534), the change set's meta.json is written as the store's
format says, and the commands must read it as the kernel wrote it. The project stays untouched
until apply; apply makes it the merged view (risky entries left out until asked); the diff is
one git applies; conflicts refuse everything; --git-branch commits the merged view minus risky."""

import hashlib
import json
import os
import secrets
import shutil
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import SETPRIV, Suite, check, check_eq, fail  # noqa: E402

suite = Suite("integration-review")
GIT_ID = {"GIT_AUTHOR_NAME": "In", "GIT_AUTHOR_EMAIL": "i@x", "GIT_COMMITTER_NAME": "In",
          "GIT_COMMITTER_EMAIL": "i@x", "GIT_CONFIG_NOSYSTEM": "1"}

# What the sandbox does in the merged view: adds (a tree, a large file, a hard link), edits,
# deletes (a file, a directory), renames (a file, a directory), chmods, links (in and out),
# a commit, and risky files.
SANDBOX_SCRIPT = r"""
set -e
echo new > new.txt
mkdir -p tree/deep && echo leaf > tree/deep/leaf.txt
seq 1 300000 > large.txt
ln new.txt new-hardlink.txt
printf 'line one\nline two changed\nline three\n' > edit.txt
echo appended >> notes/todo.txt
rm gone.txt
rm -r olddir
mv renamed-from.txt renamed-to.txt
mv movedir moved
chmod +x script.sh
chmod 600 private.txt
ln -s new.txt link-in
ln -s ../../../../etc/passwd link-out
echo 'export X=1' > .envrc
mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml
git add -A
git commit -q -m inside
printf '#!/bin/sh\necho planted\n' > .git/hooks/post-checkout
chmod +x .git/hooks/post-checkout
"""

DUMP = r"""
import hashlib, json, os, stat, sys
root = sys.argv[1]
out = {}
for d, dirs, files in os.walk(root):
    for n in dirs + files:
        p = os.path.join(d, n)
        st = os.lstat(p)
        rel = os.path.relpath(p, root)
        m = st.st_mode
        if stat.S_ISLNK(m):
            out[rel] = ["link", os.readlink(p)]
        elif stat.S_ISDIR(m):
            out[rel] = ["dir", stat.S_IMODE(m)]
        elif stat.S_ISREG(m):
            with open(p, "rb") as f:
                out[rel] = ["file", stat.S_IMODE(m), hashlib.sha256(f.read()).hexdigest()]
        else:
            out[rel] = ["other", m]
print(json.dumps(out, sort_keys=True))
"""


def manifest(root):
    r = subprocess.run([sys.executable, "-c", DUMP, root], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def chown_tree(path, uid):
    os.lchown(path, uid, uid)
    for d, dirs, files in os.walk(path):
        for n in dirs + files:
            os.lchown(os.path.join(d, n), uid, uid)


class Review:
    """A project with a git repository, a state directory and a change set, owned by the case's
    user, in a 0755 directory of the harness."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.uid = ctx.uid
        self.base = ctx.h.mkdtemp(owner=self.uid)
        self.project = os.path.join(self.base, "project")
        self.state = os.path.join(self.base, "state")
        self.home = os.path.join(self.base, "home")
        self.merged = os.path.join(self.base, "merged")
        for d in (self.project, self.state, self.home, self.merged):
            os.mkdir(d, 0o755)
        os.chmod(self.state, 0o700)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_STATE_HOME": self.state, "LANG": "C"}
        self.env.update(GIT_ID)
        self.dump = os.path.join(self.base, "dump.py")
        with open(self.dump, "w") as f:
            f.write(DUMP)

    def files(self, tree):
        for rel, text in tree.items():
            p = os.path.join(self.project, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)

    def as_user(self, argv, cwd=None, env=None, input=None):
        e = dict(self.env)
        e.update(env or {})
        full = (SETPRIV if self.ctx.unpriv else []) + argv
        return subprocess.run(full, cwd=cwd or self.project, env=e, capture_output=True, text=True,
                              timeout=120, input=input)

    def git(self, *args, cwd=None):
        r = self.as_user(["git", "-c", "safe.directory=*"] + list(args), cwd=cwd)
        check_eq(r.returncode, 0, f"git {args}: {r.stderr}")
        return r.stdout

    def rf(self, *args):
        return self.as_user([self.ctx.h.target] + list(args))

    def commit_project(self):
        chown_tree(self.project, self.uid)
        self.git("init", "-q", "-b", "main")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "start")
        return self.git("rev-parse", "HEAD").strip()

    def start(self, git_head=None):
        """The change set as the run side makes it: 0700 directories, meta.json "complete"."""
        time.sleep(0.15)
        root = os.path.join(self.state, "ringfence", "changes")
        os.makedirs(root, mode=0o700, exist_ok=True)
        os.chmod(os.path.dirname(root), 0o700)
        ns = time.time_ns()
        cid = time.strftime("%Y%m%d-%H%M%S", time.gmtime(ns // 10**9)) + "-" + secrets.token_hex(2)
        self.dir = os.path.join(root, cid)
        os.mkdir(self.dir, 0o700)
        for sub in ("upper", "work"):
            os.mkdir(os.path.join(self.dir, sub), 0o700)
        st = os.stat(self.project)
        meta = {"id": cid, "project": os.path.realpath(self.project), "project_dev": st.st_dev,
                "project_ino": st.st_ino, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ns // 10**9)),
                "started_ns": ns, "git_head": git_head, "masked": [], "state": "complete", "exit_code": 0}
        with open(os.path.join(self.dir, "meta.json"), "w") as f:
            json.dump(meta, f)
        chown_tree(self.state, self.uid)
        self.id = cid
        return cid

    def start_again(self):
        """Another change set of the same project (a later run)."""
        time.sleep(1.05)  # ids hold seconds
        return self.start()

    def sandbox(self, script):
        """Runs script in the merged view (overlay in a private mount namespace) and returns the
        merged view's manifest, read inside before the namespace goes."""
        opts = (f"lowerdir={self.project},upperdir={self.dir}/upper,workdir={self.dir}/work,userxattr")
        inner = (f"mount -t overlay overlay -o {opts} {self.merged} && cd {self.merged} && "
                 f"( {script} ) && /usr/bin/python3 {self.dump} {self.merged}")
        argv = ["unshare", "-Urm", "sh", "-c", inner] if self.ctx.unpriv else ["unshare", "-m", "sh", "-c", inner]
        r = self.as_user(argv, cwd=self.base, env={"HOME": self.home})
        check_eq(r.returncode, 0, f"the sandbox: {r.stderr}")
        check(not os.listdir(self.merged), "the overlay is gone with its mount namespace")
        return json.loads(r.stdout.strip().splitlines()[-1])

    def changes(self):
        r = self.rf("changes", "--json")
        check_eq(r.returncode, 0, f"changes --json: {r.stderr}")
        return json.loads(r.stdout)


PROJECT = {
    "edit.txt": "line one\nline two\nline three\n",
    "notes/todo.txt": "first\n",
    "gone.txt": "to be deleted\n",
    "olddir/a.txt": "a\n",
    "olddir/sub/b.txt": "b\n",
    "renamed-from.txt": "moving\n",
    "movedir/inside.txt": "moved along\n",
    "script.sh": "#!/bin/sh\necho hi\n",
    "private.txt": "mine\n",
    "untouched.txt": "same\n",
}


def risky_paths(doc):
    return {c["path"] for c in doc["changes"] if c["risky"]}


@suite.case()
def overlay_changes_apply(ctx):
    """The full round: the project is untouched by the run; changes --json names every kind and
    the risky ones; --diff applies with git; apply makes the project the merged view minus the
    risky entries, and --include-risky adds them."""
    rv = Review(ctx)
    rv.files(PROJECT)
    head = rv.commit_project()
    original = os.path.join(rv.base, "original")
    shutil.copytree(rv.project, original, symlinks=True)
    chown_tree(original, rv.uid)
    before = manifest(rv.project)
    rv.start(git_head=head)
    merged = rv.sandbox(SANDBOX_SCRIPT)
    check_eq(manifest(rv.project), before, "the project after the run (nothing reaches it before apply)")

    doc = rv.changes()
    check_eq(doc["id"], rv.id, "the latest change set of the project")
    kinds = {c["path"]: c["kind"] for c in doc["changes"]}
    for path, kind in {"new.txt": "added", "tree/deep/leaf.txt": "added", "large.txt": "added",
                       "edit.txt": "modified", "notes/todo.txt": "modified", "gone.txt": "deleted",
                       "olddir/sub/b.txt": "deleted", "olddir": "deleted", "renamed-from.txt": "deleted",
                       "renamed-to.txt": "added", "moved/inside.txt": "added", "movedir/inside.txt": "deleted",
                       "script.sh": "mode-changed", "private.txt": "mode-changed", "link-in": "added"}.items():
        check_eq(kinds.get(path), kind, f"the change of {path}")
    check("untouched.txt" not in kinds, "an untouched file is no change")
    risky = risky_paths(doc)
    for p in ("link-out", ".envrc", ".github/workflows/ci.yml", ".git/hooks/post-checkout"):
        check(p in risky, f"{p} is risky: {sorted(risky)}")
    check(not risky & {"new.txt", "edit.txt", ".git/index"}, f"ordinary changes are not risky: {risky}")

    diff = rv.rf("changes", "--diff")
    check_eq(diff.returncode, 0, f"changes --diff: {diff.stderr}")
    patch = os.path.join(rv.base, "changes.patch")
    with open(patch, "w") as f:
        f.write(diff.stdout)
    check("new file mode 120000" in diff.stdout and "old mode 100644\nnew mode 100755" in diff.stdout,
          "links and modes as git writes them")
    r = rv.as_user(["git", "-c", "safe.directory=*", "apply", "--check", patch], cwd=original)
    check_eq(r.returncode, 0, f"git apply --check of the diff against the original: {r.stderr}")
    stat_ = rv.rf("changes", "--stat")
    check(" files changed, " in stat_.stdout and "large.txt" in stat_.stdout, f"--stat: {stat_.stdout}")

    r = rv.rf("apply")
    check_eq(r.returncode, 0, f"apply: {r.stdout} {r.stderr}")
    for p in ("link-out", ".envrc", ".git/hooks/post-checkout"):
        check(p in r.stderr, f"apply names the skipped risky {p}: {r.stderr!r}")
    expected = {k: v for k, v in merged.items() if k not in risky}
    for k in risky:
        if k in before:
            expected[k] = before[k]
    # A risky directory left out takes its contents with it; what is left of it stays.
    expected = {k: v for k, v in expected.items()
                if not any(k.startswith(rp + "/") for rp in risky)}
    got = manifest(rv.project)
    check_eq(got, expected, "the project after apply: the merged view without the risky entries")
    a, b = os.stat(os.path.join(rv.project, "new.txt")), os.stat(os.path.join(rv.project, "new-hardlink.txt"))
    check_eq(a.st_ino, b.st_ino, "the hard link made in the sandbox is one in the project")
    check(not [n for n in os.listdir(rv.project) if n.startswith(".rf-apply")], "no temporary file left")

    r = rv.rf("apply", "--include-risky")
    check_eq(r.returncode, 0, f"apply --include-risky: {r.stdout} {r.stderr}")
    check_eq(manifest(rv.project), merged, "the project after apply --include-risky: the merged view")
    check_eq(rv.git("log", "-1", "--format=%s"), "inside\n", "the commit made inside is the project's")

    r = rv.rf("discard")
    check_eq(r.returncode, 0, f"discard: {r.stderr}")
    check(not os.path.exists(rv.dir), "discard removes the change set")
    r = rv.rf("changes")
    check_eq(r.returncode, 1, f"changes with no change set left: {r.stderr}")


# The same work done through `ringfence run --review`: .git/hooks is read-only inside (the
# run protects it), so the planted hook is .git/config's fsmonitor instead, which the review
# run lets the sandbox write (into the change set only).
RUN_SCRIPT = SANDBOX_SCRIPT.replace(
    "printf '#!/bin/sh\\necho planted\\n' > .git/hooks/post-checkout\nchmod +x .git/hooks/post-checkout\n",
    "mkfifo a-fifo\n")


@suite.case()
def run_review_end_to_end(ctx):
    """`ringfence run --review`: inside, every process sees a writable project; the host's
    project is byte-for-byte the same after the run; the masked .env is in no change set; apply
    makes the project the sandbox's final view minus the risky entries; nothing stays mounted;
    a run stopped by its timeout leaves a change set marked killed; below the kernel level
    --review is refused and nothing runs."""
    rv = Review(ctx)
    rv.files(dict(PROJECT, **{".env": "TOKEN=SECRET-IN-PROJECT\n"}))
    rv.commit_project()
    chown_tree(rv.state, rv.uid)
    # The conflict check counts a change within 50 ms before the start (the kernel's coarse
    # file clock) as after it: the commit above must be older than that.
    time.sleep(0.2)
    before = manifest(rv.project)
    mounts_before = open("/proc/self/mountinfo").read().count("overlay")
    rf = [rv.ctx.h.target, "run", "--no-profile", "--review", "--project", rv.project]
    script = RUN_SCRIPT + "cat .env; echo leaked > .env 2>/dev/null || echo env-read-only\n"
    r = rv.as_user(rf + ["--env", "GIT_AUTHOR_NAME=In", "--env", "GIT_AUTHOR_EMAIL=i@x",
                         "--env", "GIT_COMMITTER_NAME=In", "--env", "GIT_COMMITTER_EMAIL=i@x", "--",
                         "sh", "-c", script + f"/usr/bin/python3 -c '{DUMP}' {rv.project}"])
    check_eq(r.returncode, 0, f"the review run: {r.stderr[-2000:]} {r.stdout[-2000:]}")
    lines = r.stdout.strip().splitlines()
    merged = json.loads(lines[-1])
    check("SECRET-IN-PROJECT" not in r.stdout, "the masked .env is hidden inside a review run too")
    check("env-read-only" in r.stdout, f"the masked .env cannot be written inside: {r.stdout[-300:]!r}")
    check_eq(manifest(rv.project), before, "the project after the review run: untouched")
    check("review: change set " in r.stderr and "the project is untouched" in r.stderr,
          f"the run says its change set: {r.stderr[-1500:]!r}")
    check("risky change" in r.stderr, f"the run names its risky changes: {r.stderr[-1500:]!r}")
    check_eq(open("/proc/self/mountinfo").read().count("overlay"), mounts_before, "no overlay left mounted")
    doc = rv.changes()
    sub = rv.as_user([rv.ctx.h.target, "changes", "--json"], cwd=os.path.join(rv.project, "notes"))
    check_eq(sub.returncode, 0, f"changes from a folder inside the project: {sub.stderr}")
    check_eq(json.loads(sub.stdout)["id"], doc["id"], "from inside the project: the project's change set")
    paths = {c["path"] for c in doc["changes"]}
    check(".env" not in paths, f"the masked .env is in no change set: {sorted(paths)[:20]}")
    risky = risky_paths(doc)
    for p_ in ("link-out", ".envrc", ".github/workflows/ci.yml", "a-fifo"):
        check(p_ in risky, f"{p_} is risky: {sorted(risky)}")
    cs_dir = os.path.join(rv.state, "ringfence", "changes", doc["id"])
    with open(os.path.join(cs_dir, "meta.json")) as f:
        meta = json.load(f)
    check_eq((meta["state"], meta["exit_code"]), ("complete", 0), "meta.json records the end")
    check(meta["git_head"] and len(meta["git_head"]) == 40, f"meta.json has the project's HEAD: {meta}")

    r = rv.rf("apply")
    check_eq(r.returncode, 0, f"apply: {r.stdout} {r.stderr}")
    del merged[".env"]  # the mask's empty file inside; the host's stays as it was
    expected = {k: v for k, v in merged.items() if k not in risky and not any(k.startswith(x + "/") for x in risky)}
    for k in risky:
        if k in before:
            expected[k] = before[k]
    expected[".env"] = before[".env"]
    got = manifest(rv.project)
    for k in set(got) | set(expected):
        if k.startswith(".git/") or k == ".git":
            continue  # git's own files: compared through git below
        if got.get(k) != expected.get(k):
            fail(f"after apply, {k}: the project has {got.get(k)}, the sandbox's view {expected.get(k)}")
    check_eq(rv.git("log", "-1", "--format=%s"), "inside\n", "the commit made inside reached the project")

    # Stopped by its timeout: the change set holds what was written, marked killed.
    r = rv.as_user(rf + ["--timeout", "1", "--", "sh", "-c", "echo partial > partial.txt; sleep 30"])
    check(r.returncode != 0, f"the timed-out run fails: {r.returncode}")
    check(not os.path.exists(os.path.join(rv.project, "partial.txt")), "the stopped run wrote nothing to the project")
    doc = rv.changes()
    check([c["path"] for c in doc["changes"]] == ["partial.txt"], f"the stopped run's change set: {doc}")
    with open(os.path.join(rv.state, "ringfence", "changes", doc["id"], "meta.json")) as f:
        check_eq(json.load(f)["state"], "killed", "a stopped run's change set is marked killed")

    # Nothing changed: no change set is left.
    n = len(os.listdir(os.path.join(rv.state, "ringfence", "changes")))
    r = rv.as_user(rf + ["--", "true"])
    check_eq(r.returncode, 0, f"an idle review run: {r.stderr}")
    check("review: nothing changed" in r.stderr, f"an idle run says so: {r.stderr!r}")
    check_eq(len(os.listdir(os.path.join(rv.state, "ringfence", "changes"))), n, "an empty change set is dropped")

    # Below the kernel level: refused before anything runs.
    r = rv.as_user(rf + ["--level", "landlock", "--", "sh", "-c", "echo no > refused.txt"])
    check_eq(r.returncode, 125, f"--review at the landlock level: {r.stderr}")
    check("--review needs the kernel level" in r.stderr, f"the refusal says why: {r.stderr!r}")
    check(not os.path.exists(os.path.join(rv.project, "refused.txt")), "nothing ran")


@suite.case()
def conflicts_refuse_everything(ctx):
    """A file the host edited after the run started refuses the whole apply: nothing written,
    the conflicting path named, exit 1; an unknown id is refused too, a bad one is a usage error."""
    rv = Review(ctx)
    rv.files({"a.txt": "a\n", "b.txt": "b\n"})
    chown_tree(rv.project, rv.uid)
    rv.start()
    rv.sandbox("echo sandbox > a.txt; echo new > n.txt; rm b.txt")
    with open(os.path.join(rv.project, "a.txt"), "w") as f:
        f.write("host edit\n")
    before = manifest(rv.project)
    r = rv.rf("apply")
    check_eq(r.returncode, 1, f"apply with a conflict: {r.stdout} {r.stderr}")
    check("a.txt" in r.stderr and "nothing was written" in r.stderr, f"names the conflict: {r.stderr!r}")
    check_eq(manifest(rv.project), before, "the project after a refused apply")
    r = rv.rf("apply", "n.txt")
    check_eq(r.returncode, 0, f"a partial apply that avoids the conflict: {r.stderr}")
    check_eq(open(os.path.join(rv.project, "n.txt")).read(), "new\n", "the partial apply")
    check(os.path.exists(os.path.join(rv.project, "b.txt")), "and only that path")
    check_eq(rv.rf("changes", "20000101-000000-abcd").returncode, 1, "an unknown id")
    check_eq(rv.rf("changes", "not-an-id").returncode, 2, "a malformed id")
    check_eq(rv.rf("apply", "--bogus").returncode, 2, "an unknown option")


@suite.case()
def git_branch_commits_merged_view(ctx):
    """apply --git-branch: a new branch from the run's HEAD whose tree is the merged view without
    the risky entries and .git; the working tree and HEAD unchanged; an existing branch refused."""
    rv = Review(ctx)
    rv.files(PROJECT)
    head = rv.commit_project()
    before = manifest(rv.project)
    rv.start(git_head=head)
    merged = rv.sandbox(SANDBOX_SCRIPT)
    risky = risky_paths(rv.changes())
    r = rv.rf("apply", "--git-branch", "review/one")
    check_eq(r.returncode, 0, f"apply --git-branch: {r.stdout} {r.stderr}")
    outside_git = lambda m: {k: v for k, v in m.items() if k != ".git" and not k.startswith(".git/")}  # noqa: E731
    check_eq(outside_git(manifest(rv.project)), outside_git(before), "the working tree after --git-branch")
    check_eq(rv.git("rev-parse", "HEAD").strip(), head, "HEAD after --git-branch")
    tree = {}
    for line in rv.git("ls-tree", "-r", "review/one").splitlines():
        meta, path = line.split("\t", 1)
        mode, _, sha = meta.split()
        body = rv.git("cat-file", "blob", sha)
        tree[path] = (mode, body)
    want = {}
    for path, entry in merged.items():
        if path == ".git" or path.startswith(".git/") or path in risky:
            continue
        if entry[0] == "link":
            want[path] = ("120000", entry[1])
        elif entry[0] == "file":
            want[path] = ("100755" if entry[1] & 0o111 else "100644", entry[2])
    got = {p: (m, hashlib.sha256(b.encode()).hexdigest() if m != "120000" else b) for p, (m, b) in tree.items()}
    check_eq(got, want, "the branch's tree: the merged view without risky entries and .git")
    check_eq(rv.git("rev-parse", "review/one^").strip(), head, "the branch starts at the run's HEAD")
    r = rv.rf("apply", "--git-branch", "review/one")
    check_eq(r.returncode, 1, f"an existing branch: {r.stderr}")
    check("already exists" in r.stderr, f"and says so: {r.stderr!r}")
    check(not os.path.exists(os.path.join(rv.dir, "git-index")), "the temporary index is removed")


@suite.case()
def list_and_discard(ctx):
    """changes --list shows every change set; discard --older-than and --keep remove the old
    ones, discard ID one, an unknown id is refused; a link in the store is removed, not followed."""
    rv = Review(ctx)
    rv.files({"a.txt": "a\n"})
    chown_tree(rv.project, rv.uid)
    ids = []
    for age_days in (30, 2, 1, 0):
        cid = rv.start() if not ids else rv.start_again()
        meta_path = os.path.join(rv.dir, "meta.json")
        with open(meta_path) as f:
            meta = json.load(f)
        meta["started_ns"] -= age_days * 86400 * 10**9
        meta["id"] = cid
        with open(meta_path, "w") as f:
            json.dump(meta, f)
        ids.append(cid)
    r = rv.rf("changes", "--list")
    check_eq(r.returncode, 0, f"changes --list: {r.stderr}")
    check_eq([line.split()[0] for line in r.stdout.splitlines()], sorted(ids), "the listed ids, oldest first")
    victim = ctx.h.mkdtemp(owner=rv.uid)
    with open(os.path.join(victim, "keep"), "w") as f:
        f.write("k")
    link = os.path.join(os.path.dirname(rv.dir), "20000101-000000-0bad")
    os.symlink(victim, link)
    os.lchown(link, rv.uid, rv.uid)
    check_eq(rv.rf("discard", "20000101-000000-0bad").returncode, 0, "discard of a link in the store")
    check(os.path.exists(os.path.join(victim, "keep")) and not os.path.lexists(link), "the link went, not its target")
    r = rv.rf("discard", "--older-than", "10")
    check_eq(r.returncode, 0, f"discard --older-than: {r.stderr}")
    check(f"discarded {sorted(ids)[0]}" in r.stdout, f"the 30-day-old one: {r.stdout!r}")
    r = rv.rf("discard", "--keep", "1")
    check_eq(r.returncode, 0, f"discard --keep 1: {r.stderr}")
    left = rv.rf("changes", "--list").stdout.split()
    check_eq(left[0] if left else None, sorted(ids)[-1], "the newest is kept")
    check_eq(rv.rf("discard", "20000101-000000-abcd").returncode, 1, "discard of an unknown id")


@suite.case()
def unsafe_store_refused(ctx):
    """A change set that others may write is never read."""
    rv = Review(ctx)
    rv.files({"a.txt": "a\n"})
    chown_tree(rv.project, rv.uid)
    rv.start()
    os.chmod(rv.dir, 0o777)
    r = rv.rf("changes")
    check_eq(r.returncode, 1, f"changes on a world-writable change set: {r.stderr}")
    check("writable by group or others" in r.stderr, f"says why: {r.stderr!r}")


if __name__ == "__main__":
    sys.exit(suite.main())
