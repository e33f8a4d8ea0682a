#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Attacks on the agent directories `ringfence run --agent NAME --agent-state host` brings in from
the real home (the default brings in a copy kept by ringfence instead, and writes none of it).

The host runs what is in them later, outside any sandbox: ~/.claude/local/claude is the script
behind Claude Code's local install, ~/.gemini/.env is loaded by Gemini CLI (NODE_OPTIONS there
reaches every node child), settings name hooks and MCP server commands. So an agent directory is
read-only inside, and only an allowlist of entries in it (sessions, history, todos, logs, caches,
the credentials file the agent refreshes) is writable.

Each case makes a fake HOME (never the real one) with the agent's directories as an installed CLI
leaves them, runs `ringfence run --agent NAME --agent-state host` at the kernel level and with `--level landlock`,
as root and as uid 65534, and from inside:
- appends to, truncates, replaces by rename (from a writable entry), renames away, removes,
  hard-links into a writable entry and writes through a link made in a writable entry, each
  file outside the allowlist; creates new names (files, directories, links) at the top of the
  agent directory and in its read-only subdirectories, among them ~/.gemini/.env where the host
  lacks it; renames a writable entry away. Every one must fail.
- writes in each allowlisted entry (missing directories of the list are made on the host before
  the start): each must work and reach the host.
Then, on the host: nothing outside the allowlist changed (content, mode, kind, names).

usage: test_agent_dirs.py RINGFENCE PROBE (the harness wants a probe; none is run)
"""

import json
import os
import stat
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import BASE_ENV, SETPRIV, Suite, check, fail, require_program  # noqa: E402

suite = Suite("security-agent-dirs")
PY = "/usr/bin/python3"
LEVELS = {"kernel": [], "landlock": ["--level", "landlock"]}

# The fake home's files as an installed CLI leaves them (path relative to HOME: content; a
# trailing "/" is a directory).
HOME_FILES = {
    ".claude/local/claude": "#!/bin/sh\nexec node \"$HOME/.claude/local/node_modules/.bin/claude\" \"$@\"\n",
    ".claude/local/package.json": "{\"dependencies\": {}}\n",
    ".claude/settings.json": "{\"hooks\": {}}\n",
    ".claude/CLAUDE.md": "be careful\n",
    ".claude/commands/": None,
    ".claude/projects/-work-p/s1.jsonl": "{\"s\": 1}\n",
    ".claude/history.jsonl": "{\"h\": 1}\n",
    ".claude/.credentials.json": "{\"token\": \"old\"}\n",
    ".claude.json": "{\"mcpServers\": {}}\n",
    ".gemini/settings.json": "{\"mcpServers\": {}}\n",
    ".gemini/GEMINI.md": "rules\n",
    ".gemini/oauth_creds.json": "{\"t\": \"old\"}\n",
    ".codex/config.toml": "approval_policy = \"untrusted\"\n",
    ".codex/auth.json": "{\"k\": \"old\"}\n",
    ".codex/history.jsonl": "{}\n",
    ".codex/sessions/2025/s.jsonl": "{}\n",
    ".cursor/cli-config.json": "{\"permissions\": {}}\n",
    ".cursor/extensions/e/package.json": "{}\n",
    ".config/cursor/auth.json": "{\"a\": \"old\"}\n",
    ".cline/data/settings/cline_mcp_settings.json": "{}\n",
    ".cline/data/globalState.json": "{\"yolo\": false}\n",
    ".cline/data/secrets.json": "{\"s\": \"old\"}\n",
    ".cline/hooks/": None,
}

# Per agent: paths in the writable entries (a write in each must reach the host), the protected
# files attacked one by one, the directories in which no new name may appear, names that must
# not be creatable, a writable entry to stage replacements and links in, and the allowlist
# (`entries`): everything that changed on the host must lie in one of them.
AGENTS = {
    "claude": {
        "writable": [".claude/projects/-work-p/s2.jsonl", ".claude/todos/t.json", ".claude/statsig/s",
                     ".claude/shell-snapshots/snap.sh", ".claude/history.jsonl", ".claude/.credentials.json"],
        "protected": [".claude/local/claude", ".claude/settings.json", ".claude/CLAUDE.md"],
        "no_new": [".claude", ".claude/local", ".claude/commands"],
        "new_names": [".claude/hooks", ".claude/settings.local.json", ".claude/agents"],
        "stage": ".claude/projects",
        "entries": [".claude/projects", ".claude/todos", ".claude/statsig", ".claude/shell-snapshots",
                    ".claude/session-env", ".claude/file-history", ".claude/debug", ".claude/plans",
                    ".claude/history.jsonl", ".claude/.credentials.json"],
    },
    "gemini": {
        "writable": [".gemini/tmp/abc/chats.json", ".gemini/history/abc", ".gemini/oauth_creds.json"],
        "protected": [".gemini/settings.json", ".gemini/GEMINI.md"],
        "no_new": [".gemini"],
        "new_names": [".gemini/.env", ".gemini/extensions", ".gemini/commands"],
        "stage": ".gemini/tmp",
        "entries": [".gemini/tmp", ".gemini/history", ".gemini/oauth_creds.json"],
    },
    "codex": {
        "writable": [".codex/sessions/2025/s2.jsonl", ".codex/log/codex-tui.log", ".codex/history.jsonl",
                     ".codex/auth.json"],
        "protected": [".codex/config.toml"],
        "no_new": [".codex"],
        "new_names": [".codex/AGENTS.md", ".codex/prompts", ".codex/.env"],
        "stage": ".codex/sessions",
        "entries": [".codex/sessions", ".codex/archived_sessions", ".codex/log", ".codex/history.jsonl",
                    ".codex/auth.json"],
    },
    "cursor": {
        "writable": [".cursor/chats/c.json", ".config/cursor/auth.json"],
        "protected": [".cursor/cli-config.json", ".cursor/extensions/e/package.json"],
        "no_new": [".cursor", ".cursor/extensions", ".config/cursor"],
        "new_names": [".cursor/mcp.json", ".cursor/rules", ".config/cursor/cli-config.json"],
        "stage": ".cursor/chats",
        "entries": [".cursor/chats", ".config/cursor/auth.json"],
    },
    "cline": {
        "writable": [".cline/data/tasks/t/ui.json", ".cline/logs/l.log", ".cline/data/secrets.json"],
        "protected": [".cline/data/globalState.json", ".cline/data/settings/cline_mcp_settings.json"],
        "no_new": [".cline", ".cline/data", ".cline/data/settings", ".cline/hooks"],
        "new_names": [".cline/rules", ".cline/plugins", ".cline/data/workflows"],
        "stage": ".cline/data/tasks",
        "entries": [".cline/data/tasks", ".cline/data/checkpoints", ".cline/data/cache", ".cline/data/workspace",
                    ".cline/logs", ".cline/data/secrets.json"],
    },
}

# Runs inside the sandbox. argv[1]: the plan (JSON). Prints RF-RESULT {name: "ok" | "refused: ..."}.
ATTACK = r'''
import json, os, sys
plan = json.loads(sys.argv[1])
home = os.environ["HOME"]
res = {}
def p(rel):
    return os.path.join(home, rel)
def attempt(name, fn):
    try:
        fn()
        res[name] = "ok"
    except OSError as e:
        res[name] = "refused: " + os.strerror(e.errno)
def append(path, data="RF-PLANTED\n"):
    with open(path, "a") as f:
        f.write(data)
def write_file(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(data)
stage = p(plan["stage"])
for i, rel in enumerate(plan["protected"]):
    t = p(rel)
    attempt(f"append {rel}", lambda: append(t))
    attempt(f"truncate {rel}", lambda: os.truncate(t, 0))
    attempt(f"open-trunc {rel}", lambda: open(t, "w").close())
    def replace():
        src = os.path.join(stage, f"rf-new-{i}")
        with open(src, "w") as f:
            f.write("RF-REPLACED\n")
        os.rename(src, t)
    attempt(f"replace {rel}", replace)
    attempt(f"rename-away {rel}", lambda: os.rename(t, t + ".away"))
    attempt(f"unlink {rel}", lambda: os.unlink(t))
    attempt(f"hardlink-write {rel}", lambda: (os.link(t, os.path.join(stage, f"rf-hl-{i}")),
                                              append(os.path.join(stage, f"rf-hl-{i}"))))
    def via_link():
        l = os.path.join(stage, f"rf-sl-{i}")
        os.symlink(t, l)
        append(l)
    attempt(f"write-via-link {rel}", via_link)
for rel in plan["no_new"]:
    d = p(rel)
    attempt(f"create-file in {rel}", lambda: open(os.path.join(d, "rf-new-file"), "x").close())
    attempt(f"mkdir in {rel}", lambda: os.mkdir(os.path.join(d, "rf-new-dir")))
    attempt(f"symlink in {rel}", lambda: os.symlink("/tmp", os.path.join(d, "rf-new-link")))
    attempt(f"mknod-fifo in {rel}", lambda: os.mkfifo(os.path.join(d, "rf-new-fifo")))
for rel in plan["new_names"]:
    attempt(f"create {rel}", lambda: write_file(p(rel), "NODE_OPTIONS=--require /tmp/x.js\n"))
    attempt(f"mkdir {rel}", lambda: os.mkdir(p(rel)))
attempt(f"rename-away {plan['stage']}", lambda: os.rename(stage, stage + ".away"))
attempt(f"rmdir {plan['stage']}", lambda: os.rmdir(stage))
for rel in plan["writable"]:
    attempt(f"write {rel}", lambda: (os.makedirs(os.path.dirname(p(rel)), exist_ok=True),
                                     append(p(rel), "RF-ALLOWED\n")))
print("RF-RESULT " + json.dumps(res))
'''


def snapshot(top):
    """Every name below top: its kind, mode and content (links: their target)."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for n in dirnames + filenames:
            path = os.path.join(dirpath, n)
            rel = os.path.relpath(path, top)
            st = os.lstat(path)
            if os.path.islink(path):
                snap[rel] = "link -> " + os.readlink(path)
            elif os.path.isdir(path):
                snap[rel] = f"dir mode={st.st_mode:o}"
            elif not stat.S_ISREG(st.st_mode):  # a FIFO the attack made: never opened
                snap[rel] = f"special mode={st.st_mode:o}"
            else:
                with open(path, "rb") as f:
                    snap[rel] = f"file mode={st.st_mode:o} " + f.read().decode(errors="replace")
    return snap


def inside_any(rel, roots):
    return any(rel == r or rel.startswith(r + "/") for r in roots)


class World:
    def __init__(self, ctx):
        require_program(PY, "python3", "the attack script")
        self.ctx = ctx
        self.home = ctx.mkdtemp(owned=True)
        self.proj = ctx.mkdtemp(owned=True)
        for rel, text in HOME_FILES.items():
            path = os.path.join(self.home, rel)
            if text is None:
                os.makedirs(path, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        os.chmod(os.path.join(self.home, ".claude/local/claude"), 0o755)
        for dirpath, dirnames, filenames in os.walk(self.home):
            for n in [dirpath] + [os.path.join(dirpath, x) for x in dirnames + filenames]:
                os.lchown(n, ctx.uid, ctx.uid)

    def run(self, agent, level, plan):
        # --agent-state host: the real home's entries, bound as the agent profile says (the default
        # keeps the agent's state in a directory of ringfence's and writes none of the real home).
        argv = [self.ctx.h.target, "run", "--no-profile", "--network", "off", "--agent", agent,
                "--agent-state", "host", "--project", self.proj] + LEVELS[level] + ["--", PY, "-c", ATTACK, json.dumps(plan)]
        env = dict(BASE_ENV, HOME=self.home, XDG_RUNTIME_DIR="")
        full = (SETPRIV if self.ctx.unpriv else []) + argv
        return subprocess.run(full, cwd=self.proj, env=env, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)


def attack(ctx, agent):
    spec = AGENTS[agent]
    # Allowed to change on the host: the allowlisted entries (the directories among them are
    # made when missing), nothing else.
    allowed = spec["entries"]
    problems = []
    for level in LEVELS:
        w = World(ctx)
        before = snapshot(w.home)
        r = w.run(agent, level, spec)
        res = None
        for line in r.stdout.splitlines():
            if line.startswith("RF-RESULT "):
                res = json.loads(line[len("RF-RESULT "):])
        if res is None:
            fail(f"{agent} at {level}: no result (exit {r.returncode}): {r.stderr[-1500:]}")
        for name, v in res.items():
            if name.startswith("write "):
                if v != "ok":
                    problems.append(f"{level}: {name} must work: {v}")
            elif v == "ok":
                problems.append(f"{level}: {name} succeeded")
        after = snapshot(w.home)
        for rel in sorted(set(before) | set(after)):
            if before.get(rel) != after.get(rel) and not inside_any(rel, allowed):
                problems.append(f"{level}: host {rel} changed: {before.get(rel)!r} -> {after.get(rel)!r}")
        for rel in spec["writable"]:
            got = after.get(rel, "missing")
            if "RF-ALLOWED" not in got:
                problems.append(f"{level}: the write to {rel} did not reach the host: {got!r}")
        for rel in spec["protected"]:
            if after.get(rel) != before.get(rel):
                problems.append(f"{level}: {rel} changed on the host")
    if problems:
        fail(f"--agent {agent}:\n  " + "\n  ".join(problems))


def make_case(agent):
    def case(ctx):
        attack(ctx, agent)
    case.__name__ = f"agent_{agent}"
    return case


for _agent in AGENTS:
    suite.case(name=f"agent_{_agent}")(make_case(_agent))


if __name__ == "__main__":
    sys.exit(suite.main())
