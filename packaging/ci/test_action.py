#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Tests the GitHub Actions composite action (action.yml) the way a runner calls it:
# - action.yml's steps run exactly packaging/ci/install.sh and run.sh, and inputs reach them only
#   through `env:` mappings: no `${{ ... }}` in any `run:` text (script injection), every input
#   passed as INPUT_<NAME>;
# - run.sh with INPUT_* set and a fake `ringfence` on PATH (it records its argv, prints stderr
#   lines and violation annotations, exits with a chosen code): the argv built, the exit code
#   passed through, the ::error:: line for 123/124/125, the annotations, $GITHUB_OUTPUT, and
#   inputs holding shell metacharacters passed as one argument, running nothing;
# - install.sh with install: none;
# - with a ringfence that knows `--preset ci` (the build's, given as the second argument), one
#   real step; skipped with a message where it does not.
# usage: test_action.py SOURCE_ROOT [RINGFENCE]
import json
import os
import re
import subprocess
import sys
import tempfile

src = os.path.abspath(sys.argv[1])
real = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] else ""  # meson gives it relative
ci = os.path.join(src, "packaging", "ci")
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


# --- action.yml --------------------------------------------------------------------------------

def yaml_lines(path):
    """(line number, indent, key or None, value, parent keys) for each line of a simple YAML
    file: enough for action.yml's shape (mappings, `- ` list items, `|` blocks)."""
    out = []
    stack = []  # (indent, key)
    block_indent = None  # inside a `|`/`>` block: lines indented deeper than this are text
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            indent = len(line) - len(line.lstrip(" "))
            if block_indent is not None:
                if indent > block_indent:
                    out.append((n, indent, None, line.strip(), [k for _, k in stack]))
                    continue
                block_indent = None
            text = line.strip()
            item = text.startswith("- ")
            if item:
                text = text[2:]
                indent += 2
            m = re.match(r"^([A-Za-z0-9_.-]+):(?:\s+(.*))?$", text)
            while stack and stack[-1][0] >= indent:
                stack.pop()
            if item:
                stack.append((indent - 1, "-"))
            if m:
                key, value = m.group(1), (m.group(2) or "")
                out.append((n, indent, key, value, [k for _, k in stack]))
                stack.append((indent, key))
                if value in ("|", ">", "|-", ">-"):
                    block_indent = indent
            else:
                out.append((n, indent, None, text, [k for _, k in stack]))
    return out


action = os.path.join(src, "action.yml")
lines = yaml_lines(action)
runs = []
inputs_declared = [k for (_, _, k, _, parents) in lines if k and parents == ["inputs"]]
passed = {}
for n, indent, key, value, parents in lines:
    where = "action.yml:%d" % n
    in_run = key == "run" and "steps" in parents or "run" in parents and "steps" in parents
    if key == "run" and "steps" in parents:
        runs.append(value)
    if in_run:
        check("${{" not in value, where + ": an expression in a run: block (script injection): " + value)
    if "${{" in value:
        allowed = (
            ("env" in parents and "steps" in parents and key is not None)
            or (parents[:1] == ["outputs"] and key == "value")
            or (parents[:1] == ["inputs"] and key == "default" and "inputs." not in value)
        )
        check(allowed, where + ": an expression outside an env: mapping, an output or a default: " + value)
    if "inputs." in value:
        check("env" in parents and "steps" in parents, where + ": inputs used outside env: " + value)
        m = re.fullmatch(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}", value)
        check(m is not None, where + ": an env value that is not exactly one input: " + value)
        if m:
            want = "INPUT_" + m.group(1).upper().replace("-", "_")
            check(key == want, where + ": %s carries inputs.%s (want %s)" % (key, m.group(1), want))
            passed[m.group(1)] = key
check(runs == ['bash "$GITHUB_ACTION_PATH/packaging/ci/install.sh"',
               'bash "$GITHUB_ACTION_PATH/packaging/ci/run.sh"'],
      "the steps run exactly install.sh and run.sh: %r" % runs)
want_inputs = ["run", "working-directory", "preset", "allow-hosts", "allow-host", "env", "cache", "shell",
               "install"]
check(sorted(inputs_declared) == sorted(want_inputs), "the inputs: %r" % inputs_declared)
check(sorted(passed) == sorted(want_inputs), "every input reaches a script: %r" % sorted(passed))
with open(action) as f:
    text = f.read()
check(re.search(r"(?m)^\s+default: \$\{\{ runner\.temp \}\}/ringfence-cache$", text) is not None,
      "cache defaults to ${{ runner.temp }}/ringfence-cache")
for out in ("exit-code", "violations"):
    check(re.search(r"(?m)^  %s:\n(?:    .*\n)*?    value: \$\{\{ steps\.run\.outputs\.%s \}\}$" % (out, out),
                    text) is not None, "output %s comes from the run step" % out)

# --- run.sh with a fake ringfence ----------------------------------------------------------------

FAKE = r'''#!/usr/bin/env python3
import json, os, sys
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd()}) + "\n")
cmd = sys.argv[1] if len(sys.argv) > 1 else ""
if cmd == "run":
    sys.stdout.write("step output\n")
    sys.stderr.write(os.environ.get("FAKE_STDERR", ""))
    sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
if cmd == "violations":
    sys.stdout.write(os.environ.get("FAKE_VIOLATIONS", ""))
elif cmd == "doctor":
    print("doctor: the report")
'''

tmp = tempfile.mkdtemp(prefix="rf-action-test.")
bindir = os.path.join(tmp, "bin")
os.mkdir(bindir)
fake = os.path.join(bindir, "ringfence")
with open(fake, "w") as f:
    f.write(FAKE)
os.chmod(fake, 0o755)
project = os.path.join(tmp, "project")
os.makedirs(os.path.join(project, "sub"))


def run_step(env_inputs, fake_exit=0, stderr="", violations="", use_fake=True, extra_env=None):
    log = os.path.join(tmp, "log.jsonl")
    out = os.path.join(tmp, "github_output")
    for p in (log, out):
        if os.path.exists(p):
            os.unlink(p)
    env = {
        "PATH": (bindir + ":" if use_fake else "") + "/usr/bin:/bin",
        "HOME": tmp,
        "RUNNER_TEMP": tmp,
        "GITHUB_OUTPUT": out,
        "FAKE_LOG": log,
        "FAKE_EXIT": str(fake_exit),
        "FAKE_STDERR": stderr,
        "FAKE_VIOLATIONS": violations,
        "GITHUB_ACTION_PATH": src,
    }
    env.update(extra_env or {})
    env.update(env_inputs)
    p = subprocess.run(["bash", os.path.join(ci, "run.sh")], cwd=project, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    calls = []
    if os.path.exists(log):
        with open(log) as f:
            calls = [json.loads(l) for l in f]
    outputs = {}
    if os.path.exists(out):
        with open(out) as f:
            for l in f:
                k, _, v = l.rstrip("\n").partition("=")
                outputs[k] = v
    return p, calls, outputs


def run_argv(calls):
    return next((c for c in calls if c["argv"][:1] == ["run"]), None)


cache = os.path.join(tmp, "cache")
p, calls, outputs = run_step({
    "INPUT_RUN": "npm ci && npm test",
    "INPUT_WORKING_DIRECTORY": "sub",
    "INPUT_PRESET": "ci",
    "INPUT_ALLOW_HOSTS": "npm, github",
    "INPUT_ALLOW_HOST": "registry.example.com\n  mirror.example.org:8443  \n\n",
    "INPUT_ENV": "NODE_AUTH_TOKEN\nCI\r\n",
    "INPUT_CACHE": cache,
    "INPUT_SHELL": "bash",
})
r = run_argv(calls)
check(p.returncode == 0, "a step that exits 0 exits 0 (got %d: %s)" % (p.returncode, p.stdout + p.stderr))
check(r is not None, "run.sh calls ringfence run")
if r:
    check(r["argv"] == ["run", "--preset", "ci", "--cache", cache, "--env", "NODE_AUTH_TOKEN", "--env", "CI",
                        "--allow-hosts", "npm,github", "--allow-host", "registry.example.com",
                        "--allow-host", "mirror.example.org:8443", "--",
                        "bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", "npm ci && npm test"],
          "the argv built: %r" % r["argv"])
    check(r["cwd"] == os.path.join(project, "sub"), "it runs in the working directory: " + r["cwd"])
check(os.path.isdir(cache) and (os.stat(cache).st_mode & 0o077) == 0, "the cache directory is made, 0700")
check(outputs == {"exit-code": "0", "violations": "0"}, "outputs of a clean step: %r" % outputs)
check("::error" not in p.stdout, "no ::error:: for a clean step")
v = next((c for c in calls if c["argv"][:1] == ["violations"]), None)
check(v is not None and "--format" in v["argv"] and v["argv"][v["argv"].index("--format") + 1] == "github"
      and "--since" in v["argv"], "violations --since START --format github is asked: %r" % (v and v["argv"]))

# Defaults: preset ci, no cache when empty, sh as the shell, the current folder.
p, calls, outputs = run_step({"INPUT_RUN": "make test", "INPUT_SHELL": "sh", "INPUT_CACHE": ""})
r = run_argv(calls)
check(r is not None and r["argv"] == ["run", "--preset", "ci", "--", "sh", "-e", "-c", "make test"],
      "defaults: %r" % (r and r["argv"]))
check(r is not None and r["cwd"] == project, "the default working directory is the current one")

# The command's exit code is passed through, with the refusals as annotations.
ann = ("::warning title=ringfence::refused connect to 203.0.113.5:443 (not in --allow-host); to allow: --allow-host NAME\n"
       "::warning title=ringfence::refused connect to 169.254.169.254:80 (the metadata floor)\n")
p, calls, outputs = run_step({"INPUT_RUN": "false"}, fake_exit=3, violations=ann)
check(p.returncode == 3, "the step's exit code is passed through (got %d)" % p.returncode)
check(ann in p.stdout, "the annotations are printed: " + p.stdout)
check("ringfence why" in p.stdout, "the annotations point to ringfence why")
check(outputs == {"exit-code": "3", "violations": "2"}, "outputs with refusals: %r" % outputs)
check("::error" not in p.stdout, "no ::error:: when the command itself failed")

# ringfence's own failures: an ::error:: line saying why, doctor's report, the code kept.
for code, stderr, words in (
        (123, "ringfence: refusing to run: this sandbox reaches level landlock (user namespaces: denied)\n",
         ["refused to run", "refusing to run: this sandbox reaches level landlock", "ringfence doctor"]),
        (124, "", ["exit 124", "timeout"]),
        (125, "ringfence: refused connect to 1.2.3.4:80 (hint)\nringfence: clone3: Operation not permitted\n",
         ["could not set up the sandbox", "clone3: Operation not permitted", "ringfence doctor"])):
    p, calls, outputs = run_step({"INPUT_RUN": "true"}, fake_exit=code, stderr=stderr)
    errors = [l for l in p.stdout.splitlines() if l.startswith("::error")]
    check(p.returncode == code, "exit %d is kept (got %d)" % (code, p.returncode))
    check(len(errors) == 1 and all(w in errors[0] for w in words),
          "exit %d: one ::error:: line with %r: %r" % (code, words, errors))
    check(("doctor: the report" in p.stdout) == (code != 124), "exit %d: doctor's report is shown but for 124" % code)
    check(stderr in p.stderr, "exit %d: ringfence's stderr still reaches the log" % code)
    check(outputs.get("exit-code") == str(code), "exit %d: the exit-code output" % code)

# A usage error of ringfence's (exit 2, no level line: nothing started) is said; a command's 2 is not.
p, calls, outputs = run_step({"INPUT_RUN": "true", "INPUT_ALLOW_HOSTS": "pipy"}, fake_exit=2,
                             stderr='ringfence: unknown host set "pipy" (did you mean pypi?)\n')
errors = [l for l in p.stdout.splitlines() if l.startswith("::error")]
check(p.returncode == 2 and len(errors) == 1 and 'unknown host set "pipy"' in errors[0],
      "a usage error of ringfence's gets one ::error:: line: %r" % errors)
p, calls, outputs = run_step({"INPUT_RUN": "make"}, fake_exit=2,
                             stderr="ringfence: level kernel, preset ci\nmake: *** [all] Error 1\n")
check(p.returncode == 2 and "::error" not in p.stdout, "a command's own exit 2 gets no ::error:: line")

# Shell metacharacters in inputs: one argument each, nothing run.
marker = os.path.join(tmp, "pwned")
evil = '"; touch %s #' % marker
p, calls, outputs = run_step({
    "INPUT_RUN": evil,
    "INPUT_PRESET": "ci$(touch %s)" % marker,
    "INPUT_ALLOW_HOST": "`touch %s`" % marker,
    "INPUT_CACHE": os.path.join(tmp, "c;touch " + marker),
})
r = run_argv(calls)
check(r is not None and r["argv"][-1] == evil and r["argv"][2] == "ci$(touch %s)" % marker
      and "`touch %s`" % marker in r["argv"], "metacharacters passed as one argument: %r" % (r and r["argv"]))
check(not os.path.exists(marker), "an input with shell metacharacters ran nothing")
p, calls, outputs = run_step({"INPUT_RUN": "true", "INPUT_ENV": 'X"; touch %s #' % marker})
check(p.returncode == 2 and "::error" in p.stdout and run_argv(calls) is None,
      "an env entry that is not a name is refused, nothing run")
check(not os.path.exists(marker), "an env entry with shell metacharacters ran nothing")
p, calls, outputs = run_step({"INPUT_RUN": "true", "INPUT_WORKING_DIRECTORY": "nowhere\n::warning::injected 100%"})
check(p.returncode == 2 and "::error title=ringfence::working-directory: cannot enter 'nowhere%0A::warning::injected 100%25'"
      in p.stdout and "\n::warning::injected" not in p.stdout, "an ::error:: line is escaped: " + p.stdout)
p, calls, outputs = run_step({"INPUT_RUN": "true", "INPUT_SHELL": "bash -x {0}"})
check(p.returncode == 2 and "::error" in p.stdout and run_argv(calls) is None, "a shell with arguments is refused")
p, calls, outputs = run_step({"INPUT_RUN": ""})
check(p.returncode == 2 and "::error" in p.stdout and run_argv(calls) is None, "an empty run is refused")
p, calls, outputs = run_step({"INPUT_RUN": "true"}, use_fake=False)
check(p.returncode == 2 and "no ringfence on PATH" in p.stdout, "no ringfence on PATH: said")
# RINGFENCE names the binary (install.sh's output).
p, calls, outputs = run_step({"INPUT_RUN": "true"}, use_fake=False, extra_env={"RINGFENCE": fake})
check(p.returncode == 0 and run_argv(calls) is not None, "RINGFENCE names the binary")

# --- install.sh, install: none -----------------------------------------------------------------
out = os.path.join(tmp, "install_output")
env = {"PATH": bindir + ":/usr/bin:/bin", "GITHUB_OUTPUT": out, "INPUT_INSTALL": "none", "RUNNER_TEMP": tmp,
       "FAKE_LOG": os.path.join(tmp, "install.log")}
p = subprocess.run(["bash", os.path.join(ci, "install.sh")], env=env, stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT, text=True)
check(p.returncode == 0 and open(out).read() == "ringfence=%s\n" % fake, "install: none finds it on PATH: " + p.stdout)
env["PATH"] = "/usr/bin:/bin"
p = subprocess.run(["bash", os.path.join(ci, "install.sh")], env=env, stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT, text=True)
check(p.returncode != 0 and "::error" in p.stdout, "install: none without a ringfence fails with ::error::")
env["INPUT_INSTALL"] = "apt"
p = subprocess.run(["bash", os.path.join(ci, "install.sh")], env=env, stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT, text=True)
check(p.returncode == 2 and "::error" in p.stdout, "an unknown install value is refused")

# --- the real binary ---------------------------------------------------------------------------
skipped = ""
if not real or not os.access(real, os.X_OK):
    skipped = "no ringfence binary given"
else:
    probe = subprocess.run([real, "run", "--preset", "ci", "--dry-run", "--", "true"], cwd=project,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if probe.returncode != 0:
        skipped = "this ringfence has no --preset ci yet (%s)" % probe.stdout.strip().splitlines()[-1:]
if skipped:
    print("SKIP the real-binary case: " + skipped)
else:
    p, calls, outputs = run_step(
        {"INPUT_RUN": 'test -z "${RF_TEST_SECRET:-}"; test "$RF_TEST_KEPT" = yes; echo inside > made-inside; '
                      'python3 -c "import socket; socket.getaddrinfo(\'not-allowed.example.com\', 443)" || true',
         "INPUT_ENV": "RF_TEST_KEPT", "INPUT_CACHE": os.path.join(tmp, "real-cache")},
        use_fake=False, extra_env={"RINGFENCE": real, "RF_TEST_SECRET": "s3cret", "RF_TEST_KEPT": "yes"})
    if p.returncode in (123, 124, 125):
        errors = [l for l in p.stdout.splitlines() if l.startswith("::error")]
        check(len(errors) == 1, "real: this host cannot confine the step, and one ::error:: says so: %r" % errors)
        print("real binary: the host refused (exit %d): %s" % (p.returncode, errors[:1]))
    else:
        check(p.returncode == 0, "real: the step ran confined, the secret dropped, the named variable kept "
              "(exit %d: %s)" % (p.returncode, p.stdout + p.stderr))
        check(os.path.exists(os.path.join(project, "made-inside")), "real: the project is writable")
        check(outputs.get("exit-code") == "0", "real: outputs %r" % outputs)
        check(int(outputs.get("violations", "0")) >= 1 and "::warning title=ringfence::" in p.stdout
              and "not-allowed.example.com" in p.stdout, "real: the refused lookup is an annotation: " + p.stdout)
        print("real binary: the step ran confined (%s refusals annotated)" % outputs.get("violations"))

subprocess.run(["rm", "-rf", tmp])
print("%d checks, %d failed" % (checks, len(failures)))
sys.exit(1 if failures else 0)
