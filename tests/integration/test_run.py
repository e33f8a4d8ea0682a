#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""`ringfence run` (agent-sandbox.md): the project is the one writable place, the host's home
and secrets are absent, the environment is rebuilt, masks hide secret names, presets and
toggles do what they say, the profile file is applied (and its errors point at file:line),
the timeout and the parent watch leave no process behind, signals reach the command, exit
codes are distinct. Every case runs as root and as uid 65534."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import SETPRIV, Suite, check, check_eq, fail, kill_pids, require_program, Skip  # noqa: E402

suite = Suite("integration-run")
EXIT_BELOW_LEVEL, EXIT_TIMEOUT, EXIT_SETUP, EXIT_USAGE = 123, 124, 125, 2


class Env:
    """A fake host for one case: a home with secrets and agent config, a project with a .env
    and a .git, owned by the user the case runs as."""

    def __init__(self, ctx):
        h = ctx.h
        h._tmp_counter += 1
        self.base = os.path.join(h.root, f"run{h._tmp_counter}")
        self.home = os.path.join(self.base, "home")
        self.project = os.path.join(self.base, "project")
        for d in (self.home, self.project, os.path.join(self.home, ".ssh"),
                  os.path.join(self.home, ".claude"), os.path.join(self.project, ".git", "hooks"),
                  os.path.join(self.project, "src")):
            os.makedirs(d, exist_ok=True)
        files = {
            os.path.join(self.home, ".ssh", "id_rsa"): "HOST-SSH-KEY\n",
            os.path.join(self.home, "notes.txt"): "HOST-HOME-FILE\n",
            os.path.join(self.home, ".claude", "settings.json"): '{"x": 1}\n',
            os.path.join(self.home, ".claude.json"): '{"n": 1}\n',
            os.path.join(self.project, ".env"): "API_TOKEN=PROJECT-SECRET\n",
            os.path.join(self.project, "src", "id_rsa"): "NESTED-KEY\n",
            os.path.join(self.project, "main.c"): "int main(void){return 0;}\n",
            os.path.join(self.project, ".git", "config"): "[core]\n",
        }
        for p, text in files.items():
            with open(p, "w") as f:
                f.write(text)
        uid = 65534 if ctx.user == "unpriv" else 0
        self.runtime = os.path.join(self.base, "runtime")
        os.makedirs(self.runtime, mode=0o700)
        os.chmod(self.base, 0o755)
        for root, dirs, fs in os.walk(self.base):
            for n in dirs + fs:
                os.lchown(os.path.join(root, n), uid, uid)
        os.lchown(self.base, uid, uid)
        self.ctx = ctx
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "LANG": "C",
                    "AWS_SECRET_ACCESS_KEY": "CANARY-AWS", "GITHUB_TOKEN": "CANARY-GH",
                    "SSH_AUTH_SOCK": "/tmp/canary.sock", "RF_KEEP_ME": "kept",
                    "ANTHROPIC_API_KEY": "agent-key", "XDG_RUNTIME_DIR": "",
                    "XDG_CONFIG_HOME": os.path.join(self.base, "config")}

    def run(self, args, timeout=30, env=None, cwd=None):
        argv = [self.ctx.h.target, "run"] + args
        full = (SETPRIV if self.ctx.user == "unpriv" else []) + argv
        e = dict(self.env)
        e.update(env or {})
        p = subprocess.run(full, capture_output=True, text=True, timeout=timeout,
                           cwd=cwd or self.project, env=e)
        return p

    def sh(self, script, *opts, sh_args=(), **kw):
        return self.run(list(opts) + ["--", "sh", "-c", script] + list(sh_args), **kw)


def throwaway_homes(ctx, e):
    """The throwaway HOMEs in this case's own runtime directory (other suites run in parallel
    and make theirs under /tmp/ringfence-UID)."""
    d = os.path.join(e.env["XDG_RUNTIME_DIR"], "ringfence")
    return sorted(n for n in os.listdir(d) if n.startswith("home-")) if os.path.isdir(d) else []


@suite.case()
def project_writable_home_absent(ctx):
    e = Env(ctx)
    e.env["XDG_RUNTIME_DIR"] = e.runtime
    before = throwaway_homes(ctx, e)
    r = e.sh('echo x > out.txt && echo wrote; cat "$0/notes.txt" 2>&1; ls -A "$HOME"; '
             'echo "HOME=$HOME"; touch /usr/rf-x 2>&1 || echo usr-ro; '
             'touch "$0/../escape" 2>&1 || echo outside-ro; pwd', sh_args=[e.home])
    check_eq(r.returncode, 0, f"run exit code: {r.stderr}")
    out = r.stdout
    check("wrote" in out, f"the project is writable: {out!r}")
    with open(os.path.join(e.project, "out.txt")) as f:
        check_eq(f.read(), "x\n", "the write reached the host project")
    check("HOST-HOME-FILE" not in out, f"the host's home file is not readable: {out!r}")
    check(f"HOME={e.home}" in out, f"HOME keeps the caller's path: {out!r}")
    check("usr-ro" in out, f"/usr is read-only: {out!r}")
    check(not os.path.exists(os.path.join(e.base, "escape")), "nothing written next to the project")
    check(out.strip().endswith(e.project), f"cwd is the project: {out!r}")
    check_eq(throwaway_homes(ctx, e), before, "the throwaway HOME is removed at exit")
    check(os.path.isdir(os.path.join(e.runtime, "ringfence")), "the HOME was made in the runtime directory")
    check(r.stderr.startswith("ringfence: level kernel"), f"the level line: {r.stderr!r}")


def scratch_dirs(e):
    d = os.path.join(e.runtime, "ringfence")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


@suite.case()
def killed_launcher_leaves_nothing_for_long(ctx):
    """A launcher killed with SIGKILL cannot remove its throwaway HOME and TMPDIR; the next run
    does (each is locked while its launcher lives), while the directories of a run still going
    and a --keep-home HOME stay."""
    e = Env(ctx)
    e.env["XDG_RUNTIME_DIR"] = e.runtime
    argv = [ctx.h.target, "run", "--level", "landlock", "--network", "off", "--", "sleep", "30"]
    full = (SETPRIV if ctx.user == "unpriv" else []) + argv
    victim = subprocess.Popen(full, cwd=e.project, env=dict(e.env), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 10
        while time.time() < deadline and not any(n.startswith("tmp-") for n in scratch_dirs(e)):
            time.sleep(0.05)
        left = [n for n in scratch_dirs(e) if n.startswith(("home-", "tmp-"))]
        check(any(n.startswith("home-") for n in left) and any(n.startswith("tmp-") for n in left),
              f"the running sandbox has its HOME and TMPDIR: {left}")
        # A second run while the first goes on: the first's directories are not touched.
        r = e.run(["--keep-home", "--", "true"])
        check_eq(r.returncode, 0, f"a run beside the first: {r.stderr}")
        now = scratch_dirs(e)
        check(all(n in now for n in left), f"a live run's directories stay: {left} -> {now}")
        kept = [n for n in now if n.startswith("kept-home-")]
        check_eq(len(kept), 1, f"--keep-home keeps its HOME under its own name: {now}")
        os.killpg(victim.pid, signal.SIGKILL)
    finally:
        try:
            os.killpg(victim.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        victim.wait()
    check(all(n in scratch_dirs(e) for n in left), f"SIGKILL left the directories behind: {scratch_dirs(e)}")
    r = e.run(["--", "true"])
    check_eq(r.returncode, 0, f"the next run: {r.stderr}")
    after = scratch_dirs(e)
    check(not any(n in after for n in left), f"the next run removed what the killed one left: {after}")
    check(kept[0] in after, f"the kept HOME stays: {after}")
    check_eq([n for n in after if n.startswith(("home-", "tmp-", "new-"))], [], "no other scratch directory is left")


@suite.case()
def secrets_masked(ctx):
    e = Env(ctx)
    r = e.sh('cat .env; echo "[$(cat .env | wc -c)]"; cat src/id_rsa; echo "[$(wc -c < src/id_rsa)]"; '
             'wc -c < /etc/shadow; echo hooks; touch .git/hooks/pre-commit 2>&1 || echo hooks-ro; '
             'echo y >> .git/config 2>&1 || echo config-ro')
    out = r.stdout
    check("PROJECT-SECRET" not in out and "NESTED-KEY" not in out, f"masked files are empty: {out!r}")
    check("[0]" in out, f"the masks are empty files: {out!r}")
    check("hooks-ro" in out and "config-ro" in out, f".git/hooks and .git/config are read-only: {out!r}")
    with open(os.path.join(e.project, ".env")) as f:
        check_eq(f.read(), "API_TOKEN=PROJECT-SECRET\n", "the host's .env is untouched")


@suite.case()
def mask_scan_bounded_never_partial(ctx):
    """A project with more entries than the mask scan may read is refused before anything runs
    (a secret past the bound would stay readable); within the bound, or with no bound, it is
    masked. A directory the caller cannot list is covered whole (the sandbox could chmod it and
    read what is inside)."""
    e = Env(ctx)
    uid = 65534 if ctx.unpriv else 0
    proj = os.path.join(e.base, "bounded")
    os.makedirs(os.path.join(proj, "sub"))
    for i in range(9):
        open(os.path.join(proj, f"f{i}"), "w").close()
    with open(os.path.join(proj, "sub", ".env"), "w") as f:
        f.write("TOKEN=PAST-THE-BOUND\n")
    os.makedirs(os.path.join(proj, "locked"))
    with open(os.path.join(proj, "locked", ".env"), "w") as f:
        f.write("TOKEN=IN-A-LOCKED-DIR\n")
    for root, dirs, files in os.walk(proj):
        for n in dirs + files:
            os.lchown(os.path.join(root, n), uid, uid)
    os.lchown(proj, uid, uid)
    os.chmod(os.path.join(proj, "locked"), 0)
    script = "touch ran; cat sub/.env; chmod 700 locked 2>&1; cat locked/.env 2>&1; echo done"
    # 12 entries: f0..f8, sub, locked, sub/.env (locked/ is covered, not entered, as the caller
    # cannot list it; root can, and reads its .env: 13)
    entries = 12 if ctx.unpriv else 13
    r = e.sh(script, "--mask-scan-limit", str(entries - 1), cwd=proj)
    check_eq(r.returncode, 125, f"past the bound the run is refused: {r.stdout!r} {r.stderr!r}")
    check("--mask-scan-limit" in r.stderr and "more than" in r.stderr, f"the refusal says why and how: {r.stderr!r}")
    check(not os.path.exists(os.path.join(proj, "ran")), "nothing ran in a refused project")
    for limit in (str(entries), "0"):
        r = e.sh(script, "--mask-scan-limit", limit, cwd=proj)
        check_eq(r.returncode, 0, f"--mask-scan-limit {limit}: {r.stderr!r}")
        check("done" in r.stdout, f"--mask-scan-limit {limit}: the command ran: {r.stdout!r}")
        check("PAST-THE-BOUND" not in r.stdout, f"--mask-scan-limit {limit}: sub/.env is masked: {r.stdout!r}")
        check("IN-A-LOCKED-DIR" not in r.stdout,
              f"--mask-scan-limit {limit}: locked/.env stays hidden after a chmod: {r.stdout!r}")
        os.unlink(os.path.join(proj, "ran"))
    r = e.sh("true", "--mask-scan-limit", "-1", cwd=proj)
    check_eq(r.returncode, 2, f"a negative bound is a usage error: {r.stderr!r}")
    os.chmod(os.path.join(proj, "locked"), 0o700)


@suite.case()
def thousands_of_masks(ctx):
    """A project with 6,000 masked files (key fixtures) runs with a small RLIMIT_NOFILE (256) and
    every one reads empty: masks share one empty file, so they take no descriptor and no inode
    of the sandbox's small root tmpfs each."""
    e = Env(ctx)
    uid = 65534 if ctx.unpriv else 0
    proj = os.path.join(e.base, "fixtures")
    os.makedirs(os.path.join(proj, "testdata"))
    for i in range(6000):
        with open(os.path.join(proj, "testdata", f"k{i}.pem"), "w") as f:
            f.write(f"KEY-{i}\n")
    for root, dirs, files in os.walk(proj):
        for n in dirs + files:
            os.lchown(os.path.join(root, n), uid, uid)
    os.lchown(proj, uid, uid)
    argv = ((SETPRIV if ctx.unpriv else []) + ["prlimit", "--nofile=256:256", "--", ctx.h.target, "run",
            "--", "sh", "-c", "cat testdata/*.pem | wc -c; ls testdata | wc -l"])
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=proj, env=e.env)
    check_eq(r.returncode, 0, f"run: {r.stderr[-1500:]!r}")
    check_eq(r.stdout.split(), ["0", "6000"], "6,000 masked files, all empty inside")


@suite.case()
def masks_cover_names_created_later(ctx):
    """A secret-looking name that appears in the project after the start (written, moved in, or
    inside a new directory) is hidden inside too, at the project's path and at /workspace; an
    ordinary new file is not; the sandbox cannot unmount the cover."""
    e = Env(ctx)
    os.makedirs(os.path.join(e.project, "sub"), exist_ok=True)
    os.chown(os.path.join(e.project, "sub"), *(2 * (65534 if ctx.unpriv else 0,)))
    script = ('touch started; while [ ! -e ready ]; do sleep 0.05; done; sleep 0.5; '
              'for f in .env.local sub/new/id_ed25519 moved.pem .git/late.key plain.txt; do '
              'printf "%s=[%s]\\n" "$f" "$(cat "$f" 2>&1)"; printf "ws:%s=[%s]\\n" "$f" "$(cat "/workspace/$f" 2>&1)"; done; '
              'umount .env.local 2>/dev/null && echo UNMOUNTED; cat .env.local')
    argv = (SETPRIV if ctx.unpriv else []) + [ctx.h.target, "run", "--workspace", "--", "sh", "-c", script]
    p = subprocess.Popen(argv, cwd=e.project, env=e.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        started = os.path.join(e.project, "started")
        deadline = time.monotonic() + 15
        while not os.path.exists(started) and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.02)
        check(os.path.exists(started), "the sandbox started")
        with open(os.path.join(e.project, ".env.local"), "w") as f:
            f.write("LATE-SECRET-1\n")
        os.makedirs(os.path.join(e.project, "sub", "new"))
        with open(os.path.join(e.project, "sub", "new", "id_ed25519"), "w") as f:
            f.write("LATE-SECRET-2\n")
        with open(os.path.join(e.project, "tmp-write"), "w") as f:
            f.write("LATE-SECRET-3\n")
        os.rename(os.path.join(e.project, "tmp-write"), os.path.join(e.project, "moved.pem"))
        # .git is a mount point of its own inside: a name made there is hidden too
        with open(os.path.join(e.project, ".git", "late.key"), "w") as f:
            f.write("LATE-SECRET-4\n")
        with open(os.path.join(e.project, "plain.txt"), "w") as f:
            f.write("ordinary\n")
        open(os.path.join(e.project, "ready"), "w").close()
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check_eq(p.returncode, 0, f"run exit code: {err!r}")
    check("LATE-SECRET" not in out, f"names created after the start are hidden: {out!r}")
    for name in (".env.local", "sub/new/id_ed25519", "moved.pem", ".git/late.key"):
        check(f"{name}=[]" in out and f"ws:{name}=[]" in out, f"{name} is empty at both places: {out!r}")
    check("plain.txt=[ordinary]" in out and "ws:plain.txt=[ordinary]" in out, f"an ordinary file is readable: {out!r}")
    check("UNMOUNTED" not in out, f"the sandbox cannot unmount a cover: {out!r}")
    with open(os.path.join(e.project, ".env.local")) as f:
        check_eq(f.read(), "LATE-SECRET-1\n", "the host's file is untouched")


@suite.case()
def late_masks_fail_closed_past_their_budget(ctx):
    """Covers for names created later are mounts, and a namespace holds a bounded number of
    them: a command that creates more covered names than the budget (2048) is stopped, with one
    line that says why, rather than left with names it could read once the covers run out."""
    e = Env(ctx)
    marker = f"rf-late-{os.getpid()}-{ctx.user}"
    script = ('i=0; while [ $i -lt 2300 ]; do : > ".env.$i"; i=$((i+1)); done; '
              'sleep 30.0417; echo SURVIVED')
    t0 = time.monotonic()
    r = e.sh(script, sh_args=[marker], timeout=90)
    took = time.monotonic() - t0
    check_eq(r.returncode, 125, f"the sandbox is stopped with the setup error code: {r.stdout!r} {r.stderr!r}")
    check("SURVIVED" not in r.stdout, f"the command did not go on: {r.stdout!r}")
    check(took < 30, f"stopped at once, not at the end of the command's sleep ({took:.1f}s)")
    lines = [x for x in r.stderr.splitlines() if "masks for names created later" in x]
    check_eq(len(lines), 1, f"one line says why (no flood): {r.stderr[-2000:]!r}")
    check("more than 2048 names to hide" in lines[0] and "the sandbox was stopped" in lines[0],
          f"the line names the budget and the consequence: {lines!r}")
    left = no_survivor(marker) + no_survivor("sleep 30.0417")
    check(not left, f"no process of the sandbox is left: {left}")
    for n in os.listdir(e.project):
        if n.startswith(".env."):
            os.unlink(os.path.join(e.project, n))


@suite.case()
def masks_refuse_a_project_past_the_watch_bound(ctx):
    """The walk before the start watches every directory of the project, so that a rename made
    while the sandbox starts cannot take a masked name out of its sight: a project with more
    directories than the watch's bound is refused (exit 125, one line naming the bound), never
    started with part of it unwatched."""
    e = Env(ctx)
    bound = 32768
    with open("/proc/sys/fs/inotify/max_user_watches") as f:
        bound = min(bound, int(f.read()) // 4)
    many = os.path.join(e.project, "many")
    os.mkdir(many)
    try:
        for i in range(bound + 1):
            os.mkdir(os.path.join(many, str(i)))
        r = e.sh("echo STARTED", timeout=120)
    finally:
        shutil.rmtree(many)
    check_eq(r.returncode, 125, f"the start is refused with the setup error code: {r.stdout!r} {r.stderr[-800:]!r}")
    check("STARTED" not in r.stdout, f"the command did not run: {r.stdout!r}")
    lines = [x for x in r.stderr.splitlines() if "directories to watch" in x]
    check_eq(len(lines), 1, f"one line says why: {r.stderr[-2000:]!r}")
    check(f"more than {bound} directories" in lines[0] and "the sandbox was not started" in lines[0],
          f"the line names the bound and the consequence: {lines!r}")


@suite.case()
def environment_rebuilt(ctx):
    e = Env(ctx)
    r = e.sh("env", "--env", "RF_KEEP_ME", "--env", "RF_SET=1")
    names = {line.split("=", 1)[0]: line.split("=", 1)[1] for line in r.stdout.splitlines() if "=" in line}
    for canary in ("AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "ANTHROPIC_API_KEY",
                   "XDG_CONFIG_HOME"):
        check(canary not in names, f"{canary} is dropped (got {sorted(names)})")
    check_eq(names.get("RF_KEEP_ME"), "kept", "--env NAME passes it")
    check_eq(names.get("RF_SET"), "1", "--env NAME=VALUE sets it")
    check("CANARY" not in r.stdout, "no canary value anywhere in the environment")
    r = e.sh("env", "--agent", "claude")
    check("ANTHROPIC_API_KEY=agent-key" in r.stdout, f"the agent's own key passes: {r.stdout!r}")
    check("GITHUB_TOKEN" not in r.stdout, "other credentials still dropped with an agent")


@suite.case()
def agent_config_in_home(ctx):
    e = Env(ctx)
    os.makedirs(os.path.join(e.home, ".claude", "projects"))
    os.chown(os.path.join(e.home, ".claude", "projects"), *(2 * (65534 if ctx.user == "unpriv" else 0,)))
    r = e.sh('ls -A "$HOME"; cat "$HOME/.claude/settings.json"; '
             'echo "{\\"n\\": 2}" > "$HOME/.claude.json.new" && mv "$HOME/.claude.json.new" "$HOME/.claude.json" '
             '&& echo renamed; echo hook >> "$HOME/.claude/settings.json" 2>/dev/null || echo settings-ro; '
             'mkdir -p "$HOME/.claude/hooks" && echo x > "$HOME/.claude/hooks/h" && echo hook-in-sandbox; '
             'echo p > "$HOME/.claude/projects/p" && echo project-state; cat "$HOME/.ssh/id_rsa" 2>&1',
             "--agent", "claude", "--agent-state", "host")
    out = r.stdout
    check('{"x": 1}' in out, f"the agent's directory is there: {out!r} {r.stderr!r}")
    check("HOST-SSH-KEY" not in out, f"no ssh keys: {out!r}")
    check("renamed" in out, f"the agent may replace its own file by rename: {out!r}")
    with open(os.path.join(e.home, ".claude.json")) as f:
        check_eq(f.read(), '{"n": 1}\n', "the private copy is never written back to the host")
    check("settings-ro" in out, f"the agent's settings are read-only: {out!r}")
    with open(os.path.join(e.home, ".claude", "settings.json")) as f:
        check_eq(f.read(), '{"x": 1}\n', "the host's settings are unchanged")
    check(not os.path.exists(os.path.join(e.home, ".claude", "hooks")),
          "a protected entry the host lacks cannot be created on the host")
    check("project-state" in out, f"the agent's own state directory is writable: {out!r}")
    with open(os.path.join(e.home, ".claude", "projects", "p")) as f:
        check_eq(f.read(), "p\n", "and kept on the host")


def tree_digest(top):
    """Every name below top with its kind and content hash (links: their target)."""
    import hashlib
    out = {}
    for root, dirs, files in os.walk(top):
        for n in dirs + files:
            path = os.path.join(root, n)
            rel = os.path.relpath(path, top)
            if os.path.islink(path):
                out[rel] = "link " + os.readlink(path)
            elif os.path.isdir(path):
                out[rel] = "dir"
            else:
                with open(path, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
    return out


def agent_state_cmd(e, args):
    argv = (SETPRIV if e.ctx.user == "unpriv" else []) + [e.ctx.h.target, "agent-state"] + args
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd=e.project, env=e.env,
                          stdin=subprocess.DEVNULL)


@suite.case()
def agent_state_kept_privately(ctx):
    """The agent's logins, trust and sessions are kept across runs in a state directory of
    ringfence's, and the real home is never written: a file the agent replaces by rename (mv over
    ~/.claude.json), new entries of ~/.claude and of ~/.codex (which the host lacks), a second run
    that sees them; throwaway keeps nothing; reset removes the state."""
    e = Env(ctx)
    state = os.path.join(e.base, "state")
    e.env["XDG_STATE_HOME"] = state
    before = tree_digest(e.home)
    r = e.sh('echo \'{"n": 2}\' > "$HOME/.claude.json.new" && mv "$HOME/.claude.json.new" "$HOME/.claude.json" '
             '&& echo renamed; echo s1 > "$HOME/.claude/new-session-file" && echo session; '
             'echo hook >> "$HOME/.claude/settings.json" && echo settings', "--agent", "claude")
    check_eq(r.returncode, 0, f"first claude run: {r.stderr}")
    check(r.stdout.split() == ["renamed", "session", "settings"], f"the state is writable inside: {r.stdout!r}")
    check("agent state: made " in r.stderr, f"the first use says it made the state: {r.stderr!r}")
    r = e.sh('echo \'{"token": "t1"}\' > "$HOME/.codex/auth.json" && echo auth', "--agent", "codex")
    check_eq((r.returncode, r.stdout), (0, "auth\n"), f"codex, never run on the host, may log in: {r.stderr}")
    r = e.sh('cat "$HOME/.claude.json" "$HOME/.claude/new-session-file"; tail -n1 "$HOME/.claude/settings.json"',
             "--agent", "claude")
    check_eq(r.stdout, '{"n": 2}\ns1\nhook\n', f"a second claude run sees what the first wrote: {r.stderr}")
    r = e.sh('cat "$HOME/.codex/auth.json"', "--agent", "codex")
    check_eq(r.stdout, '{"token": "t1"}\n', f"a second codex run is logged in: {r.stderr}")
    check_eq(tree_digest(e.home), before, "the real home: every file byte for byte the same, nothing new")
    claude_dir = os.path.join(state, "ringfence", "agents", "claude")
    with open(os.path.join(claude_dir, "home", ".claude.json")) as f:
        check_eq(f.read(), '{"n": 2}\n', "the renamed file is kept in the state directory")
    check_eq(os.stat(claude_dir).st_mode & 0o7777, 0o700, "the state directory is private")

    # throwaway: the host's copy inside, nothing kept
    kept = tree_digest(state)
    r = e.sh('cat "$HOME/.claude/settings.json"; echo \'{"n": 9}\' > "$HOME/.claude.json.new" && '
             'mv "$HOME/.claude.json.new" "$HOME/.claude.json"; echo t > "$HOME/.claude/throwaway-file"; '
             'echo x > "$HOME/.codex-like" && echo wrote', "--agent", "claude", "--agent-state", "throwaway")
    check_eq((r.returncode, r.stdout), (0, '{"x": 1}\nwrote\n'), f"throwaway: the host's own copy: {r.stderr}")
    check_eq(tree_digest(state), kept, "throwaway: the state directory is untouched")
    r = e.sh('cat "$HOME/.claude.json"; ls "$HOME/.claude"', "--agent", "claude", "--agent-state", "throwaway")
    check_eq(r.stdout, '{"n": 1}\nsettings.json\n', f"throwaway: nothing of an earlier run: {r.stderr}")
    check_eq(tree_digest(e.home), before, "throwaway: the real home unchanged")

    # the dry run names the state and its binds
    r = e.run(["--dry-run", "--agent", "claude", "--", "true"])
    check(f"agent state: {claude_dir} (one per agent" in r.stdout and
          f"bound read-write: {claude_dir}/home/.claude -> {e.home}/.claude" in r.stdout, r.stdout)

    # a state writable by others is refused, and nothing runs
    root = os.path.join(state, "ringfence")
    os.chmod(root, 0o777)
    r = e.sh("echo ran", "--agent", "claude")
    os.chmod(root, 0o700)
    check_eq((r.returncode, r.stdout), (EXIT_SETUP, ""), f"a world-writable state root: {r.stderr}")
    check(f"{root} is writable by everyone (mode 0777)" in r.stderr, r.stderr)

    r = agent_state_cmd(e, ["list"])
    check(r.returncode == 0 and f"claude\t" in r.stdout and os.path.join(root, "agents", "codex") in r.stdout,
          f"list: {r.stdout!r} {r.stderr!r}")
    r = agent_state_cmd(e, ["show", "claude"])
    check(r.returncode == 0 and "~/.claude.json" in r.stdout and "made: " in r.stdout, f"show: {r.stdout!r}")
    r = agent_state_cmd(e, ["reset", "claude"])
    check_eq(r.returncode, EXIT_USAGE, f"reset without --yes and without a terminal is refused: {r.stderr}")
    check(os.path.isdir(claude_dir), "and the state stays")
    r = agent_state_cmd(e, ["reset", "claude", "--yes"])
    check_eq(r.returncode, 0, f"reset --yes: {r.stderr}")
    check(not os.path.exists(claude_dir), "reset removes the state")
    check(os.path.isdir(os.path.join(root, "agents", "codex")), "and only that agent's")
    r = e.sh('cat "$HOME/.claude.json"', "--agent", "claude")
    check_eq(r.stdout, '{"n": 1}\n', f"after reset, the next run starts from the host's copy again: {r.stderr}")
    check_eq(tree_digest(e.home), before, "the real home unchanged at the end")


@suite.case()
def toggles(ctx):
    e = Env(ctx)
    r = e.sh("echo x > f 2>&1 || echo project-ro", "--edits", "off")
    check("project-ro" in r.stdout, f"--edits off: the project is read-only: {r.stdout!r}")
    r = e.sh("cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '", "--network", "off")
    check_eq(r.stdout.split(), ["lo"], "--network off: only lo")
    r = e.sh("ls / >/dev/null 2>&1; echo ls=$?", "--shell", "off")
    check("ls=126" in r.stdout, f"--shell off: other programs cannot be executed: {r.stdout!r} {r.stderr!r}")
    r = e.sh("echo ok", "--shell", "off")
    check_eq(r.stdout, "ok\n", "--shell off: the command itself runs")


MEMFD_EXEC = """
import os, sys
for flags in (0, 0x10, 0x8):  # none, MFD_EXEC, MFD_NOEXEC_SEAL
    try:
        fd = os.memfd_create("rf-copy", flags)
    except OSError as e:
        print(f"memfd {flags}: refused {e.strerror}", flush=True)
        continue
    os.write(fd, open("/usr/bin/id", "rb").read())
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(f"/proc/self/fd/{fd}", ["rf-memfd-id"])
        except OSError as e:
            print(f"exec {flags}: refused {e.strerror}", flush=True)
        os._exit(1)
    os.waitpid(pid, 0)
"""


@suite.case()
def shell_off_refuses_memfd_exec(ctx):
    """A memfd lies outside every Landlock hierarchy: with the shell off no copy of a program in
    one may run, whatever memfd_create is asked (vm.memfd_noexec in the sandbox's PID namespace
    for the host's root in the kernel jail, which keeps memfds usable; a filter refusing every
    memfd that could be executed for everyone else); with the shell on it does."""
    e = Env(ctx)
    require_program("/usr/bin/python3", "python3", "the memfd attack")
    sysctl = not ctx.unpriv and os.path.exists("/proc/sys/vm/memfd_noexec")
    dry = e.run(["--shell", "off", "--dry-run", "--", "/usr/bin/python3", "-c", "pass"])
    stated = "memfd_create is refused (EPERM) unless it asks for MFD_NOEXEC_SEAL" in dry.stdout
    check(stated != sysctl, f"--shell off: the dry run says how memfds are kept from running: {dry.stdout!r}")
    for level in ([], ["--level", "landlock"]):
        r = e.run(["--shell", "off"] + level + ["--", "/usr/bin/python3", "-c", MEMFD_EXEC])
        check("uid=" not in r.stdout, f"--shell off {level}: a program copied into a memfd ran: {r.stdout!r}")
        if sysctl and not level:
            check("memfd 0: refused" not in r.stdout,
                  f"--shell off as root: memfds stay usable, only not executable: {r.stdout!r}")
        else:
            check("memfd 0: refused Operation not permitted" in r.stdout,
                  f"--shell off {level}: an executable memfd is refused: {r.stdout!r} {r.stderr!r}")
    r = e.run(["--", "/usr/bin/python3", "-c", MEMFD_EXEC])
    check("uid=" in r.stdout, f"--shell on: the same copy runs (the test can tell): {r.stdout!r} {r.stderr!r}")


LOADER_ATTACK = """
import os, subprocess, sys
loader = "/lib64/ld-linux-x86-64.so.2"
def attempt(name, fn):
    try:
        fn()
        print(f"{name}: ran", flush=True)
    except OSError as e:
        print(f"{name}: refused {e.strerror}", flush=True)
def run(argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    if "VIA-LOADER" in r.stdout:
        return
    raise OSError(r.returncode, r.stderr.strip() or f"exit {r.returncode}")
attempt("path", lambda: run([loader, "/bin/echo", "VIA-LOADER"]))
attempt("usrlib", lambda: run([os.path.realpath(loader), "/bin/echo", "VIA-LOADER"]))
def by_fd(name, inheritable):
    fd = os.open(loader, os.O_RDONLY)
    os.set_inheritable(fd, inheritable)
    pid = os.fork()
    if pid == 0:
        try:
            os.execve(fd, ["ld.so", "/bin/echo", "VIA-LOADER"], {})
        except OSError as e:
            print(f"{name}: refused {e.strerror}", flush=True)
        os._exit(1)
    os.waitpid(pid, 0)
by_fd("fd", True)
by_fd("fd-cloexec", False)
def nested():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000 | 0x00020000) != 0:  # CLONE_NEWUSER | CLONE_NEWNS
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
attempt("nested-userns", nested)
r = subprocess.run([sys.executable, "-c", "print('child-python')"], capture_output=True, text=True)
print(r.stdout.strip() or f"child failed {r.returncode} {r.stderr}", flush=True)
"""


def userns_binfmt_misc():
    """Linux 6.7 gives each user namespace a binfmt_misc instance of its own (when the kernel has
    binfmt_misc at all)."""
    major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    with open("/proc/filesystems") as f:
        return (major, minor) >= (6, 7) and any(line.split()[-1] == "binfmt_misc" for line in f)


@suite.case()
def shell_off_refuses_the_loader_as_a_program(ctx):
    """Landlock cannot tell the ELF loader mapped as the command's interpreter from the loader run
    as a program, which runs any installed program (ld.so /bin/sh). In the kernel jail the
    sandbox's own binfmt_misc instance refuses the loader as a program (by path, by its other
    path, by fd) while every dynamically linked allowed program still starts; with the shell on
    the same attempts run."""
    e = Env(ctx)
    require_program("/usr/bin/python3", "python3", "the loader attack")
    argv = ["--", "/usr/bin/python3", "-c", LOADER_ATTACK]
    dry = e.run(["--shell", "off", "--network", "off", "--dry-run"] + argv)
    guarded = "only as an interpreter, never as a program: /lib64/ld-linux-x86-64.so.2" in dry.stdout
    if not userns_binfmt_misc():
        check(not guarded and "the ELF loader may be executed" in dry.stdout,
              f"without binfmt_misc in user namespaces the dry run says the loader is not guarded: {dry.stdout!r}")
        raise Skip("this kernel has no binfmt_misc for user namespaces (Linux 6.7)")
    check(guarded, f"the dry run says the loader is guarded: {dry.stdout!r}")
    r = e.run(["--shell", "off", "--network", "off"] + argv)
    out = r.stdout
    check("VIA-LOADER" not in out and "ran" not in out, f"the loader ran a program: {out!r} {r.stderr!r}")
    for name in ("path", "usrlib", "fd"):
        check(f"{name}: refused Permission denied" in out,
              f"shell off: the loader as a program ({name}) is refused with EACCES: {out!r} {r.stderr!r}")
    # binfmt_misc cannot hand a close-on-exec descriptor to an interpreter: ENOENT.
    check("fd-cloexec: refused" in out, f"shell off: the loader by a close-on-exec fd is refused: {out!r}")
    check("nested-userns: refused" in out, f"a nested user namespace (no guard there) is refused: {out!r}")
    check("child-python" in out, f"a dynamically linked allowed program still starts: {out!r} {r.stderr!r}")
    r = e.run(["--network", "off"] + argv)
    check("path: ran" in r.stdout and "fd: refused" not in r.stdout and "fd-cloexec: refused" not in r.stdout,
          f"shell on: the same attempts run a program through the loader (the test can tell): "
          f"{r.stdout!r} {r.stderr!r}")


def drive_terminal(argv, env, cwd, steps, rows=40, cols=100, timeout=20):
    """Runs argv on a pseudo terminal of the test's own (rows x cols), as an interactive user
    would, and plays `steps`: (bytes to type, text to wait for, or a (rows, cols) resize). Returns
    the whole output and whether every wait was met."""
    import fcntl
    import pty
    import select
    import struct
    import termios
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    out = b""
    ok = True

    def wait_for(text, limit):
        nonlocal out
        end = time.monotonic() + limit
        while text.encode() not in out and time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], 0.1)
            if r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    return False
                if not data:
                    return False
                out += data
        return text.encode() in out

    try:
        for typed, want in steps:
            if typed is None:  # a pause: want is the seconds
                time.sleep(want)
                continue
            if isinstance(typed, tuple):
                fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", typed[0], typed[1], 0, 0))
                time.sleep(0.3)
                continue
            os.write(fd, typed)
            if want and not wait_for(want, timeout):
                ok = False
                break
    finally:
        try:
            os.kill(pid, signal.SIGKILL) if not ok else None
        except ProcessLookupError:
            pass
        end = time.monotonic() + 10
        while time.monotonic() < end:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            try:
                if select.select([fd], [], [], 0.1)[0]:
                    out += os.read(fd, 65536)
            except OSError:
                time.sleep(0.05)
        os.close(fd)
    return out.decode(errors="replace"), ok


@suite.case()
def new_session_has_a_terminal_of_its_own(ctx):
    """--new-session (hardened's): the sandbox gets a pseudo terminal of its own: an interactive
    bash has job control, Ctrl-C interrupts a foreground sleep, window-size changes reach it, and
    the terminal it sees is not the caller's."""
    require_program("/usr/bin/bash", "bash", "an interactive shell on a terminal")
    e = Env(ctx)
    argv = ([SETPRIV[0]] + SETPRIV[1:] if ctx.user == "unpriv" else []) + [
        ctx.h.target, "run", "--network", "off", "--new-session", "--", "/usr/bin/bash", "--norc", "--noprofile", "-i"]
    if ctx.user == "unpriv":
        argv[0] = shutil.which(argv[0]) or argv[0]
    env = dict(e.env, TERM="xterm")
    out, ok = drive_terminal(argv, env, e.project, [
        (b"", "bash-"),  # bash's default prompt (the environment passes no PS1): it reads its terminal
        (b"stty size; tty\r", "40 100"),
        (b"sleep 30\r", None),
        (None, 0.5),
        (b"\x03", None),
        # readline may drop what is typed while it handles SIGINT: a pause, and a leading space
        (None, 0.5),
        (b" echo back-$((40+2))\r", "back-42"),
        ((30, 90), None),
        (b"stty size\r", "30 90"),
        (b"sleep 30 &\r", None),
        (b"jobs; echo jobs-listed\r", "jobs-listed"),
        (b"exit\r", None),
    ])
    check(ok, f"the interactive session answered every step (Ctrl-C interrupted the sleep): {out[-2000:]!r}")
    check("no job control" not in out, f"bash has job control: {out[-2000:]!r}")
    check("Running" in out, f"a background job is listed: {out[-2000:]!r}")
    check("/dev/pts/" in out and os.ttyname(0) not in out if os.isatty(0) else True, "a terminal of its own")


CERT_PEM = "-----BEGIN CERTIFICATE-----\nMIIBfixture\n-----END CERTIFICATE-----\n"
KEY_PEM = "-----BEGIN PRIVATE KEY-----\nMIIEfixture\n-----END PRIVATE KEY-----\n"


@suite.case()
def masks_by_content_and_unmask(ctx):
    """A default mask of a name whose format tells (.npmrc, .pypirc, .netrc, *.pem) covers the
    file only when it holds a secret; --unmask leaves a name readable; the start names the count."""
    e = Env(ctx)
    files = {"plain/.npmrc": "save-exact=true\n", "tok/.npmrc": "//registry.npmjs.org/:_authToken=npm_CANARY\n",
             ".pypirc": "[pypi]\nusername = __token__\npassword = pypi-CANARY\n",
             ".netrc": "machine example.com login bob\n", "testdata/cert.pem": CERT_PEM,
             "testdata/key.pem": KEY_PEM}
    for rel, text in files.items():
        path = os.path.join(e.project, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        if ctx.user == "unpriv":
            os.chown(os.path.dirname(path), 65534, 65534)
            os.chown(path, 65534, 65534)
    script = "for f in " + " ".join(files) + "; do printf '%s=%s\\n' $f $(wc -c < $f); done"
    r = e.sh(script, "--network", "off")
    check_eq(r.returncode, 0, f"the run: {r.stderr!r}")
    sizes = dict(x.split("=", 1) for x in r.stdout.split())
    for rel, text in files.items():
        want = 0 if "CANARY" in text or "PRIVATE KEY" in text else len(text)
        check_eq(int(sizes.get(rel, -1)), want, f"{rel} is {'masked' if want == 0 else 'readable'}: {sizes}")
    check("masked 5 names in the project" in r.stderr, f"the start counts the masked names: {r.stderr!r}")
    r = e.sh(script, "--network", "off", "--unmask", "testdata/*.pem", "--unmask", ".env")
    sizes = dict(x.split("=", 1) for x in r.stdout.split())
    check_eq(int(sizes.get("testdata/key.pem", -1)), len(KEY_PEM), f"--unmask leaves the key readable: {sizes}")
    check_eq(int(sizes.get("tok/.npmrc", -1)), 0, f"other masks still apply: {sizes}")
    r = e.run(["--network", "off", "--dry-run", "--", "true"])
    check("not masked (--unmask, or no secret in it at the start): " + e.project + "/plain/.npmrc" in r.stdout,
          f"the dry run names what a mask left readable: {r.stdout[:2000]!r}")
    r = e.run(["--network", "off", "--unmask", "../x", "--", "true"])
    check_eq(r.returncode, EXIT_USAGE, f"a bad --unmask pattern is a usage error: {r.stderr!r}")
    # The file found clean at the start is exempt as that object only: a token-bearing .npmrc
    # renamed over it while the sandbox runs is covered.
    plain = os.path.join(e.project, "plain", ".npmrc")
    argv = [ctx.h.target, "run", "--network", "off", "--", "sh", "-c",
            "while [ ! -e plain/go ]; do sleep 0.05; done; sleep 0.5; wc -c < plain/.npmrc"]
    p = subprocess.Popen((SETPRIV if ctx.user == "unpriv" else []) + argv, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=e.project, env=e.env)
    time.sleep(1.0)
    with open(plain + ".new", "w") as f:
        f.write("//registry.npmjs.org/:_authToken=npm_LATE_CANARY\n")
    os.rename(plain + ".new", plain)
    open(os.path.join(e.project, "plain", "go"), "w").close()
    out, err = p.communicate(timeout=30)
    check_eq(out.strip(), "0", f"a secret renamed over the clean .npmrc after the start is covered: {err!r}")


@suite.case()
def presets_and_levels(ctx):
    e = Env(ctx)
    r = e.sh('echo "HOME=$HOME"; cat "$0/notes.txt"', "--preset", "trusted", sh_args=[e.home])
    check(r.stderr.startswith("ringfence: level soft"), f"trusted is the soft jail: {r.stderr!r}")
    check("HOME=" + e.home not in r.stdout, f"HOME is redirected: {r.stdout!r}")
    check("HOST-HOME-FILE" in r.stdout, "the soft jail does not hide files (and says so)")
    r = e.run(["--preset", "trusted", "--require", "kernel", "--", "true"])
    check_eq(r.returncode, EXIT_BELOW_LEVEL, f"--require above the level: {r.stderr!r}")
    r = e.run(["--preset", "hardened", "--dry-run", "--", "true"])
    check_eq(r.returncode, 0, "dry run")
    for want in ("level: kernel", "network: off", "seccomp: strict", "masked: " + e.project + "/.env",
                 "environment dropped (", "bind " + e.project + " -> " + e.project + " (rw)"):
        check(want in r.stdout, f"the dry run shows {want!r}: {r.stdout[:3000]!r}")
    check("CANARY" not in r.stdout, "the dry run never prints values of dropped variables")
    lines = [x for x in r.stdout.splitlines() if x.strip()]
    repeated = sorted({x for x in lines if lines.count(x) > 1})
    check(not repeated, f"the dry run says each fact once: {repeated}")
    keys = [x.split(":", 1)[0] for x in lines if x.split(":", 1)[0] in ("project", "network", "seccomp")]
    check(sorted(keys) == ["network", "project", "seccomp"], f"project, network, seccomp once each: {keys}")
    r = e.run(["--preset", "hardened", "--dry-run", "--verbose", "--", "true"])
    check("AWS_SECRET_ACCESS_KEY" in r.stdout and "CANARY" not in r.stdout,
          f"--verbose names every dropped variable, never a value: {r.stdout[:3000]!r}")
    r = e.run(["--preset", "nope", "--", "true"])
    check_eq(r.returncode, EXIT_USAGE, "an unknown preset")
    check("trusted" in r.stderr and "read-only" in r.stderr, f"the error lists the presets: {r.stderr!r}")


@suite.case()
def profile_file(ctx):
    e = Env(ctx)
    path = os.path.join(e.base, "profile.toml")
    with open(path, "w") as f:
        f.write('preset = "read-only"\n[filesystem]\nmask = ["main.c"]\n[env]\nset = { RF_FROM_FILE = "yes" }\n')
    r = e.sh("cat main.c | wc -c; echo x > g 2>&1 || echo ro; echo $RF_FROM_FILE", "--profile", path)
    check_eq(r.stdout.split(), ["0", "ro", "yes"], f"the profile's preset, mask and env: {r.stderr!r}")
    r = e.sh("echo x > g && echo rw", "--profile", path, "--edits", "on")
    check_eq(r.stdout.strip(), "rw", "the command line wins over the profile file")
    with open(path, "w") as f:
        f.write('preset = "balanced"\n[toggles]\nnetwork = "maybe"\n')
    r = e.run(["--profile", path, "--", "true"])
    check_eq(r.returncode, EXIT_USAGE, "a bad profile file stops the run")
    check(f"{path}:3:" in r.stderr, f"the error points at file:line: {r.stderr!r}")
    # native mode shows an error's cause: here the call that failed
    missing = os.path.join(e.base, "no-such-profile.toml")
    r = e.run(["--profile", missing, "--", "true"])
    check_eq(r.returncode, EXIT_USAGE, "a missing profile file stops the run")
    check(f": No such file or directory [open {missing}]" in r.stderr,
          f"the error names the call that failed: {r.stderr!r}")
    # the per-user default profile
    cfg = os.path.join(e.base, "config", "ringfence")
    os.makedirs(cfg)
    with open(os.path.join(cfg, "profile.toml"), "w") as f:
        f.write('[env]\nset = { RF_DEFAULT_PROFILE = "1" }\n')
    os.chmod(os.path.join(e.base, "config"), 0o755)
    r = e.sh("echo $RF_DEFAULT_PROFILE")
    check_eq(r.stdout.strip(), "1", f"the per-user default profile: {r.stderr!r}")
    r = e.sh("echo ${RF_DEFAULT_PROFILE:-none}", "--no-profile")
    check_eq(r.stdout.strip(), "none", "--no-profile")


@suite.case()
def allowlist_plan_and_usage(ctx):
    e = Env(ctx)
    r = e.run(["--allow-hosts", "npm", "--allow-host", "git.example.com:22", "--agent", "claude",
               "--dry-run", "--", "true"])
    check_eq(r.returncode, 0, f"dry run: {r.stderr!r}")
    for want in ("network: allowlisted (7 host rules", "  allow host git.example.com:22 (--allow-host)\n",
                 "  allow host registry.npmjs.org (set npm)\n", "  allow host api.anthropic.com (agent claude)\n",
                 "DNS: the sandbox's resolver 127.0.0.53 (served by ringfence), forwarding allowed names to: ",
                 "other names: NXDOMAIN, never leave the machine\n"):
        check(want in r.stdout, f"the dry run shows {want!r}: {r.stdout[:3000]!r}")
    r = e.run(["--allow-host", "example.org", "--", "cat", "/etc/resolv.conf"])
    check_eq(r.returncode, 0, f"a run with the allowlist: {r.stderr!r}")
    if "level: kernel" in e.run(["--allow-host", "example.org", "--dry-run", "--", "true"]).stdout:
        check_eq(r.stdout, "nameserver 127.0.0.53\noptions edns0\n",
                 "the sandbox's resolv.conf names its resolver only")
    r = e.run(["--allow-hosts", "npm,pipy", "--", "true"])
    check_eq(r.returncode, EXIT_USAGE, "an unknown host set")
    check("did you mean pypi?" in r.stderr, f"the closest set is named: {r.stderr!r}")
    r = e.run(["--network", "off", "--allow-host", "example.org", "--", "true"])
    check_eq(r.returncode, EXIT_USAGE, f"--network off with --allow-host: {r.stderr!r}")
    # below the kernel level: the host's network, DNS to the launcher's resolver, glibc over TCP
    r = e.run(["--level", "landlock", "--allow-host", "example.org", "--dry-run", "--", "true"])
    check_eq(r.returncode, 0, f"the allowlist at the landlock level: {r.stderr!r}")
    for want in ("network: allowlisted (1 host rule; the host's network",
                 "DNS: to any nameserver (port 53), sent to ringfence's resolver on 127.0.0.1",
                 "RES_OPTIONS gets use-vc"):
        check(want in r.stdout, f"the landlock dry run shows {want!r}: {r.stdout[:3000]!r}")
    r = e.run(["--level", "landlock", "--allow-host", "example.org", "--", "sh", "-c", "echo $RES_OPTIONS"])
    check_eq((r.returncode, r.stdout.strip()), (0, "use-vc"), f"a landlock run with the allowlist: {r.stderr!r}")


@suite.case()
def denial_hints_and_why(ctx):
    """A refused connect is explained on stderr once per kind with the flag that allows it
    (--quiet: not at all), and `ringfence why` / `violations` read it back from the log. Only
    loopback addresses are named: a refusal that failed would not leave the machine."""
    e = Env(ctx)
    e.env["XDG_RUNTIME_DIR"] = e.runtime
    script = ("import socket\n"
              "for port in (9, 9, 13):\n"
              "    try:\n"
              "        socket.create_connection(('127.0.0.1', port), timeout=2)\n"
              "    except OSError as x:\n"
              "        print(x.errno)\n")
    rules = ["--deny-net", "127.0.0.1:9", "--deny-net", "127.0.0.1:13"]
    r = e.run(rules + ["--", "python3", "-c", script])
    check_eq(r.returncode, 0, f"the run: {r.stderr!r}")
    check_eq(r.stdout.split(), ["111", "111", "111"], f"the connects are refused: {r.stdout!r}")
    hints = [x for x in r.stderr.splitlines() if x.startswith("ringfence: refused connect")]
    check_eq(len(hints), 1, f"one hint for the kind (a deny rule), not one per refusal: {r.stderr!r}")
    check("127.0.0.1:9 (the rule 'deny 127.0.0.1:9'" in hints[0] and "to allow: remove that rule" in hints[0],
          f"the hint names the rule and what allows it: {hints}")
    rf = [e.ctx.h.target]
    run_as = SETPRIV if ctx.user == "unpriv" else []
    why = subprocess.run(run_as + rf + ["why"], capture_output=True, text=True, env=e.env, timeout=30)
    check_eq(why.returncode, 0, f"ringfence why: {why.stderr!r}")
    check("2x refused connect to 127.0.0.1:9" in why.stdout and "127.0.0.1:13" in why.stdout,
          f"why explains each refusal of the last run, counted: {why.stdout!r}")
    js = subprocess.run(run_as + rf + ["violations", "--json"], capture_output=True, text=True, env=e.env,
                        timeout=30)
    rows = [json.loads(x) for x in js.stdout.splitlines()]
    check_eq(len(rows), 3, f"violations --json: the last run's three lines: {js.stdout!r}")
    check(len({x["run"] for x in rows}) == 1, f"one run id: {rows}")
    gh = subprocess.run(run_as + rf + ["violations", "--format", "github"], capture_output=True, text=True,
                        env=e.env, timeout=30)
    check(all(x.startswith("::warning title=ringfence::refused connect to 127.0.0.1:") for x in gh.stdout.splitlines())
          and len(gh.stdout.splitlines()) == 3, f"GitHub annotations: {gh.stdout!r}")
    q = e.run(rules + ["--quiet", "--", "python3", "-c", script])
    check_eq(q.returncode, 0, f"--quiet run: {q.stderr!r}")
    check_eq(q.stderr, "", f"--quiet: no information line and no hint: {q.stderr!r}")
    why2 = subprocess.run(run_as + rf + ["why"], capture_output=True, text=True, env=e.env, timeout=30)
    check("2x refused connect to 127.0.0.1:9" in why2.stdout, f"the quiet run is in the log all the same: {why2.stdout!r}")


@suite.case()
def ci_preset_and_cache(ctx):
    """--preset ci: the package registries as the allowlist, secrets dropped unless named, the
    kernel level required (123 below it); --cache DIR: the caches made safely and kept across
    runs, each tool pointed there."""
    e = Env(ctx)
    e.env["XDG_RUNTIME_DIR"] = e.runtime
    r = e.run(["--preset", "ci", "--dry-run", "--", "true"])
    check_eq(r.returncode, 0, f"ci dry run: {r.stderr!r}")
    for want in ("allow host registry.npmjs.org (preset ci, set npm)", "allow host pypi.org",
                 "allow host github.com"):
        check(want in r.stdout, f"the ci allowlist shows {want!r}: {r.stdout[:2500]!r}")
    cache = os.path.join(e.base, "ci-cache")
    script = ('echo "npm=$NPM_CONFIG_CACHE pip=$PIP_CACHE_DIR gh=${GITHUB_TOKEN:-none}"; '
              'echo kept > "$NPM_CONFIG_CACHE/marker"; ls "$HOME/.cargo/registry" >/dev/null && echo cargo-ok')
    r = e.run(["--preset", "ci", "--cache", cache, "--", "sh", "-c", script])
    check_eq(r.returncode, 0, f"a ci run with a cache: {r.stderr!r}")
    check(f"npm={cache}/npm pip={cache}/pip gh=none" in r.stdout, f"the tools point at the cache: {r.stdout!r}")
    check("cargo-ok" in r.stdout, f"cargo's registry is bound: {r.stdout!r}")
    with open(os.path.join(cache, "npm", "marker")) as f:
        check_eq(f.read(), "kept\n", "what a run writes in the cache stays for the next")
    check_eq(os.stat(cache).st_mode & 0o777, 0o700, "the cache directory is made 0700")
    r = e.run(["--preset", "ci", "--cache", cache, "--env", "GITHUB_TOKEN", "--", "sh", "-c",
               'cat "$NPM_CONFIG_CACHE/marker"; echo "gh=$GITHUB_TOKEN"'])
    check_eq((r.returncode, r.stdout), (0, "kept\ngh=CANARY-GH\n"), f"the next run, a secret named: {r.stderr!r}")
    os.chmod(cache, 0o777)
    r = e.run(["--preset", "ci", "--cache", cache, "--", "true"])
    check_eq(r.returncode, EXIT_SETUP, f"a cache others can write is refused: {r.stderr!r}")
    check("writable by others" in r.stderr, f"and said: {r.stderr!r}")
    r = e.run(["--preset", "ci", "--level", "landlock", "--", "true"])
    check_eq(r.returncode, EXIT_BELOW_LEVEL, f"ci below the kernel level: {r.stderr!r}")


def no_survivor(marker):
    out = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    return out


@suite.case()
def lifetime(ctx):
    e = Env(ctx)
    mark = f"{ctx.h.token}-bg"
    t0 = time.monotonic()
    r = e.sh(f'exec -a {mark} sleep 60 & trap "" TERM; sleep 60', "--timeout", "1")
    check_eq(r.returncode, EXIT_TIMEOUT, f"timed out: {r.stderr!r}")
    check(time.monotonic() - t0 < 10, "the timeout kills (SIGTERM, then SIGKILL after a grace period)")
    check_eq(no_survivor(mark), [], "no process of the sandbox survives a timeout")
    r = e.sh(f'(exec -a {mark} sleep 60) & echo started')
    check_eq(r.returncode, 0, "exit code")
    time.sleep(0.2)
    check_eq(no_survivor(mark), [], "a background process does not outlive the run")
    r = e.sh("exit 7")
    check_eq(r.returncode, 7, "the command's exit code")
    r = e.sh("kill -SEGV $$")
    check_eq(r.returncode, 128 + signal.SIGSEGV, "128+signal")
    r = e.run(["--bogus-option", "--", "true"])
    check_eq(r.returncode, EXIT_USAGE, f"a bad command line: {r.stderr!r}")
    r = e.run(["--", "/nonexistent-rf-cmd"])
    check_eq(r.returncode, 127, f"a command not found exits 127, as in a shell: {r.stderr!r}")


@suite.case()
def setup_failure_names_the_step(ctx):
    """A step of the child recipe that fails is named in one line, with the setup exit code."""
    e = Env(ctx)
    r = e.run(["--ro-bind", f"{e.project}/src:/proc/sys/x", "--", "true"])
    check_eq(r.returncode, EXIT_SETUP, f"a failed setup step: {r.stderr!r}")
    lines = [x for x in r.stderr.splitlines() if "setup failed" in x]
    check_eq(lines, ["ringfence: sandbox setup failed at filesystem: Can't mkdir /proc/sys/x: No such file or directory"],
             f"one line names the step and says why: {r.stderr!r}")
    # Only the exec failed: the shells' codes, 127 (not found) and 126 (not executable), with
    # one line; the soft and landlock jails run the same recipe and report the same way.
    with open(os.path.join(e.project, "not-a-program"), "w") as f:
        f.write("text\n")
    for level in ("kernel", "soft", "landlock"):
        r = e.run(["--level", level, "--", "/nonexistent-rf-cmd"])
        if not r.stderr.startswith(f"ringfence: level {level}"):
            continue  # this host does not reach the level
        check_eq(r.returncode, 127, f"{level}: a command not found: {r.stderr!r}")
        check("ringfence: /nonexistent-rf-cmd was not found in the sandbox: execvp /nonexistent-rf-cmd: "
              "No such file or directory\n" in r.stderr, f"{level}: the line says so: {r.stderr!r}")
        r = e.run(["--level", level, "--", "./not-a-program"])
        check_eq(r.returncode, 126, f"{level}: a file that is not executable: {r.stderr!r}")
        check("ringfence: ./not-a-program could not be executed in the sandbox: execvp ./not-a-program: "
              "Permission denied\n" in r.stderr, f"{level}: the line says so: {r.stderr!r}")


@suite.case()
def signals_and_parent(ctx):
    e = Env(ctx)
    argv = (SETPRIV if ctx.user == "unpriv" else []) + [ctx.h.target, "run", "--", "sh", "-c",
                                                         'trap "echo got-term; exit 4" TERM; sleep 30 & wait']
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=e.project, env=e.env)
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=20)
    check_eq((p.returncode, out), (4, "got-term\n"), f"SIGTERM to ringfence reaches the command: {err!r}")
    # the parent process exits: the sandbox goes with it
    mark = f"{ctx.h.token}-orphan"
    wrapper = (SETPRIV if ctx.user == "unpriv" else []) + [
        "sh", "-c", f'{ctx.h.target} run -- sh -c "exec -a {mark} sleep 60" & sleep 1; exit 0']
    subprocess.run(wrapper, cwd=e.project, env=e.env, timeout=20, capture_output=True)
    for _ in range(50):
        if not no_survivor(mark):
            break
        time.sleep(0.1)
    left = no_survivor(mark)
    kill_pids([int(x) for x in left])
    check_eq(left, [], "the sandbox does not outlive the process that started ringfence")


def chown_tree(ctx, top):
    uid = 65534 if ctx.unpriv else 0
    os.lchown(top, uid, uid)
    for root, dirs, fs in os.walk(top):
        for n in dirs + fs:
            os.lchown(os.path.join(root, n), uid, uid)


def write_file(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


@suite.case()
def toolchains_of_the_home(ctx):
    """A tool in ~/.local/bin runs inside (read-only there); a credentials file in a bound
    toolchain folder reads as empty, ~/.cargo's is absent; missing PATH entries are dropped and
    listed; with --toolchains off the tool is not found, and the message says where it is."""
    e = Env(ctx)
    write_file(os.path.join(e.home, ".local", "bin", "rftool"), "#!/bin/sh\necho rftool-ran\n", 0o755)
    # As Claude Code's installer: a link in ~/.local/bin to a versioned file elsewhere in the home.
    write_file(os.path.join(e.home, ".local", "share", "rfapp", "versions", "1.2"), "#!/bin/sh\necho rfapp-ran\n",
               0o755)
    os.symlink(os.path.join(e.home, ".local", "share", "rfapp", "versions", "1.2"),
               os.path.join(e.home, ".local", "bin", "rfapp"))
    write_file(os.path.join(e.home, ".cargo", "bin", "cargo-x"), "#!/bin/sh\n", 0o755)
    write_file(os.path.join(e.home, ".cargo", "credentials.toml"), "token = 'CARGO-CANARY'\n")
    write_file(os.path.join(e.home, ".nvm", ".npmrc"), "//r/:_authToken=NPM-CANARY\n")
    chown_tree(ctx, e.home)
    path = f"{e.home}/.local/bin:{e.home}/.cargo/bin:/nonexistent-rf/bin:/usr/bin:/bin"
    r = e.sh('rftool; rfapp; touch "$HOME/.local/bin/x" 2>/dev/null || echo bin-ro; '
             'cat "$HOME/.cargo/credentials.toml" 2>/dev/null || echo no-cargo-creds; '
             'echo "npmrc[$(cat "$HOME/.nvm/.npmrc")]"; echo "PATH=$PATH"', env={"PATH": path})
    check_eq(r.returncode, 0, f"the run: {r.stderr!r}")
    for want in ("rftool-ran\n", "rfapp-ran\n", "bin-ro\n", "no-cargo-creds\n", "npmrc[]\n",
                 f"PATH={e.home}/.local/bin:{e.home}/.cargo/bin:/usr/bin:/bin\n"):
        check(want in r.stdout, f"{want!r} in {r.stdout!r}")
    check("ringfence: PATH entries not inside the sandbox: /nonexistent-rf/bin\n" in r.stderr,
          f"the dropped entry is said once: {r.stderr!r}")
    r = e.run(["--toolchains", "off", "--", "rftool"], env={"PATH": path})
    check_eq(r.returncode, 127, f"--toolchains off: not found: {r.stderr!r}")
    check(f"ringfence: rftool is {e.home}/.local/bin/rftool on the host, outside the sandbox; "
          f"--toolchains auto binds ~/.local/bin, or --ro-bind {e.home}/.local/bin\n" in r.stderr,
          f"the message says where it is: {r.stderr!r}")
    r = e.run(["--dry-run", "--", "true"], env={"PATH": path})
    check("toolchain (read-only): ~/.local/bin\n" in r.stdout, f"the dry run lists it: {r.stdout!r}")
    # The landlock level grants the same folders read and execute (where the host reaches it).
    r = e.run(["--level", "landlock", "--", "sh", "-c", "rftool; rfapp"], env={"PATH": path})
    if r.stderr.startswith("ringfence: level landlock"):
        check_eq((r.returncode, r.stdout), (0, "rftool-ran\nrfapp-ran\n"), f"landlock: {r.stderr!r}")


def mounted_srv(ctx):
    """A tmpfs on /srv in this program's private mount namespace, for a PATH folder outside the home."""
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755", "rf-srv", "/srv"], check=True)


@suite.case()
def toolchains_outside_the_home(ctx):
    """A PATH folder outside the home and the system directories (/srv/tools/bin) is bound
    read-only and its tool runs; a PATH folder in /tmp is not, and is dropped."""
    if os.getuid() != 0:
        raise Skip("mounting a tmpfs on /srv needs root")
    e = Env(ctx)
    mounted_srv(ctx)
    try:
        write_file("/srv/rf-tools/bin/rftool2", "#!/bin/sh\necho rftool2-ran\n", 0o755)
        os.makedirs(os.path.join(e.base, "tmpbin"))
        path = f"/srv/rf-tools/bin:{e.base}/tmpbin:/usr/bin:/bin"
        r = e.sh('rftool2; touch /srv/rf-tools/bin/x 2>/dev/null || echo srv-ro; echo "PATH=$PATH"',
                 env={"PATH": path})
        check_eq(r.returncode, 0, f"the run: {r.stderr!r}")
        check("rftool2-ran\n" in r.stdout and "srv-ro\n" in r.stdout, f"bound read-only: {r.stdout!r}")
        check("PATH=/srv/rf-tools/bin:/usr/bin:/bin\n" in r.stdout, f"the /tmp folder is dropped: {r.stdout!r}")
        check(f"PATH entries not inside the sandbox: {e.base}/tmpbin" in r.stderr, f"and said: {r.stderr!r}")
    finally:
        subprocess.run(["umount", "/srv"], check=True)


GITCONFIG = """[user]
\tname = Rf Tester
\temail = rf@example.com
[credential]
\thelper = "!f() { echo HELPER-RAN >&2; echo password=CANARY-PW; }; f"
[core]
\tsshCommand = ssh -i /nonexistent/key
\thooksPath = /nonexistent/hooks
[alias]
\tboom = "!echo ALIAS-RAN"
\tst = status
"""


@suite.case()
def git_identity_without_credentials(ctx):
    """`git commit` inside takes the host's identity from a filtered ~/.gitconfig; its credential
    helper, core.sshCommand, core.hooksPath and "!" aliases are not there; git config --global works."""
    e = Env(ctx)
    write_file(os.path.join(e.home, ".gitconfig"), GITCONFIG)
    chown_tree(ctx, e.home)
    r = e.sh('git init -q repo && cd repo && git commit -q --allow-empty -m inside && '
             'git log -1 --format="%an <%ae>"; git config --global --get credential.helper || echo no-helper; '
             'git config --global --get core.sshCommand || echo no-ssh; '
             'git config --global --get core.hooksPath || echo no-hookspath; '
             'git config --global --get alias.boom || echo no-bang-alias; git config --global alias.st; '
             'git config --global rf.set yes && echo config-global-ok')
    check_eq(r.returncode, 0, f"the run: {r.stderr!r}")
    for want in ("Rf Tester <rf@example.com>\n", "no-helper\n", "no-ssh\n", "no-hookspath\n",
                 "no-bang-alias\n", "status\n", "config-global-ok\n"):
        check(want in r.stdout, f"{want!r} in {r.stdout!r}")
    check("HELPER-RAN" not in r.stderr + r.stdout, "the credential helper never ran")
    with open(os.path.join(e.home, ".gitconfig")) as f:
        check_eq(f.read(), GITCONFIG, "the host's gitconfig is untouched")


def host_git(ctx, *args, cwd=None):
    """git on the host as the case's user (files owned by it)."""
    argv = (SETPRIV if ctx.unpriv else []) + ["git", "-c", "user.name=Host", "-c", "user.email=h@x",
                                               "-c", "protocol.file.allow=always"] + list(args)
    r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": "/"})
    check_eq(r.returncode, 0, f"host git {args}: {r.stderr}")
    return r.stdout


@suite.case()
def worktree_project_commits(ctx):
    """A linked worktree is a project: a commit inside reaches the main repository; the main
    repository's hooks and config stay read-only; a commondir made there is moved aside."""
    e = Env(ctx)
    write_file(os.path.join(e.home, ".gitconfig"), "[user]\n\tname = In\n\temail = i@x\n")
    chown_tree(ctx, e.home)
    main = os.path.join(e.base, "main")
    os.makedirs(main)
    chown_tree(ctx, main)
    host_git(ctx, "init", "-q", "-b", "main", main)
    host_git(ctx, "commit", "-q", "--allow-empty", "-m", "first", cwd=main)
    wt = os.path.join(e.base, "wt")
    host_git(ctx, "worktree", "add", "-q", "-b", "feature", wt, cwd=main)
    r = e.sh('git commit -q --allow-empty -m from-inside && echo committed; '
             f'echo evil > {main}/.git/hooks/pre-commit 2>/dev/null || echo hooks-ro; '
             f'echo "[core]" >> {main}/.git/config 2>/dev/null || echo config-ro; '
             f'echo x > {main}/.git/commondir',
             "--project", wt, cwd=wt)
    check_eq(r.returncode, 0, f"the run: {r.stderr!r}")
    for want in ("committed\n", "hooks-ro\n", "config-ro\n"):
        check(want in r.stdout, f"{want!r} in {r.stdout!r}: {r.stderr!r}")
    check_eq(host_git(ctx, "log", "-1", "--format=%s", "feature", cwd=main), "from-inside\n",
             "the commit is in the main repository")
    check(not os.path.exists(os.path.join(main, ".git", "hooks", "pre-commit")), "no hook was planted")
    check(not os.path.exists(os.path.join(main, ".git", "commondir")), "the planted commondir is moved aside")
    check(f"{main}/.git/commondir was made in the sandbox" in r.stderr, f"and said: {r.stderr!r}")


@suite.case()
def submodule_project_commits(ctx):
    """A submodule checkout (.git: "gitdir: ../.git/modules/NAME") is a project: a commit inside
    reaches the submodule's repository, whose hooks stay read-only."""
    e = Env(ctx)
    write_file(os.path.join(e.home, ".gitconfig"), "[user]\n\tname = In\n\temail = i@x\n")
    chown_tree(ctx, e.home)
    origin, sup = os.path.join(e.base, "origin"), os.path.join(e.base, "super")
    os.makedirs(origin)
    os.makedirs(sup)
    chown_tree(ctx, origin)
    chown_tree(ctx, sup)
    host_git(ctx, "init", "-q", origin)
    host_git(ctx, "commit", "-q", "--allow-empty", "-m", "first", cwd=origin)
    host_git(ctx, "init", "-q", sup)
    host_git(ctx, "submodule", "add", "-q", origin, "mod", cwd=sup)
    mod = os.path.join(sup, "mod")
    with open(os.path.join(mod, ".git")) as f:
        check(f.read().startswith("gitdir: ../.git/modules/mod"), "a submodule's gitfile")
    r = e.sh('git commit -q --allow-empty -m sub-inside && echo committed; '
             f'echo evil > {sup}/.git/modules/mod/hooks/pre-commit 2>/dev/null || echo hooks-ro',
             "--project", mod, cwd=mod)
    check_eq(r.returncode, 0, f"the run: {r.stderr!r}")
    check("committed\n" in r.stdout and "hooks-ro\n" in r.stdout, f"{r.stdout!r}: {r.stderr!r}")
    check_eq(host_git(ctx, "log", "-1", "--format=%s", cwd=mod), "sub-inside\n", "the commit is in the submodule")
    check(not os.path.exists(os.path.join(sup, ".git", "modules", "mod", "hooks", "pre-commit")),
          "no hook was planted")


if __name__ == "__main__":
    sys.exit(suite.main())
