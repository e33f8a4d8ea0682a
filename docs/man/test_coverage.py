#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every subcommand and every option that the binary's --help lists is documented in its man
page and offered by each completion (bash, zsh and fish).

The lists come from the binary itself: `ringfence --help`, `ringfence SUB --help`,
`ringfence SUB OP --help` for subcommands that have their own, and `ringfence bwrap --help`.
A man page documents an option when it names it in bold (`*--name*`). The completions are run,
not grepped: bash's functions are called with COMP_WORDS set, zsh's with _arguments and
_describe replaced by functions that print what they were given, and fish answers
`complete -C`.

usage: test_coverage.py RINGFENCE MAN_SOURCE_DIR COMPLETIONS_DIR
"""
import os
import re
import shutil
import subprocess
import sys

ringfence, man_dir, comp_dir = sys.argv[1:4]
failures = []


def check(ok, what):
    print(("ok - " if ok else "not ok - ") + what)
    if not ok:
        failures.append(what)


def help_of(*words):
    r = subprocess.run([ringfence, *words, "--help"], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        sys.exit(f"ringfence {' '.join(words)} --help exited {r.returncode}: {r.stderr}")
    return r.stdout


def sections(text):
    """CLI11 help: {'Options': [...lines], 'Subcommands': [...]}."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^(\w[\w ]*):\s*$", line)
        if m:
            cur = m.group(1)
            out[cur] = []
        elif cur and line.strip():
            out[cur].append(line)
        elif not line.strip():
            cur = None if cur and out.get(cur) else cur
    return out


def options_in(lines):
    opts = []
    for line in lines:
        m = re.match(r"^\s+(-[-\w,]+)", line)
        if m:
            opts += [o for o in m.group(1).split(",") if o.startswith("-")]
    return opts


def subcommands_in(lines):
    return [m.group(1) for m in (re.match(r"^\s+([a-z][a-z-]*)(\s{2,}|$)", l) for l in lines) if m]


def man_page(name):
    path = os.path.join(man_dir, name)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return None


def bolded(page, word):
    return f"*{word}*" in page


# --- the completions, asked --------------------------------------------------------------------

BASH = r'''
source "$1"; shift
_command_offset() { COMPREPLY=(); }
compopt() { :; }
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
_ringfence 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"
'''

ZSH = r'''
file=$1; shift
_arguments() {
  local spec
  for spec in "$@"; do
    spec=${spec#\(*\)}; spec=${spec#\*}
    [[ $spec == -* ]] && print -r -- ${spec%%[\[:]*}
  done
}
_describe() { local name=${@[-1]}; local e; for e in ${(P)name}; do print -r -- ${e%%:*}; done; }
_alternatives() { :; }
_values() { :; }
_files() { :; }
words=("$@")
CURRENT=${#words}
PREFIX=${words[-1]}
service=${words[1]}
fpath=(${file:h} $fpath)
autoload -Uz _ringfence
_ringfence
'''


def bash_offers(words):
    r = subprocess.run(["bash", "-c", BASH, "bash", os.path.join(comp_dir, "ringfence.bash"), *words],
                       capture_output=True, text=True, timeout=30)
    return set(r.stdout.split())


def zsh_offers(words):
    r = subprocess.run(["zsh", "-f", "-c", ZSH, "zsh", os.path.join(comp_dir, "_ringfence"), *words],
                       capture_output=True, text=True, timeout=30)
    return set(r.stdout.split())


def fish_offers(words):
    script = os.path.join(comp_dir, "bwrap.fish" if words[0] == "bwrap" else "ringfence.fish")
    line = " ".join(words)
    r = subprocess.run(["fish", "--no-config", "-c", f"source {script}; complete -C {shquote(line)}"],
                       capture_output=True, text=True, timeout=30)
    return {l.split("\t")[0] for l in r.stdout.splitlines()}


def shquote(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


shells = {"bash": bash_offers, "zsh": zsh_offers, "fish": fish_offers}
for shell in shells:
    if shutil.which(shell) is None:
        check(False, f"{shell} is installed (tools/install-deps installs it)")


def completions_offer(words, wanted, what):
    """Each shell, completing `words` (the last one is the word being typed), offers `wanted`."""
    for shell, ask in shells.items():
        if shutil.which(shell) is None:
            continue
        got = ask(words)
        missing = [w for w in wanted if w not in got]
        check(not missing, f"{shell} completion of '{' '.join(words)}' offers {what}" +
              (f": missing {' '.join(missing)}" if missing else ""))


# --- ringfence itself ----------------------------------------------------------------------------

top = sections(help_of())
subs = subcommands_in(top.get("Subcommands", []))
check(len(subs) >= 6, f"ringfence --help lists subcommands ({' '.join(subs)})")
top_opts = options_in(top.get("Options", []))
overview = man_page("ringfence.1.scd") or ""
check(bool(overview), "ringfence.1.scd exists")
for o in top_opts:
    check(bolded(overview, o), f"ringfence(1) documents {o}")
for s in subs + ["bwrap"]:
    check(bolded(overview, s), f"ringfence(1) lists the subcommand {s}")
completions_offer(["ringfence", ""], subs + ["bwrap"], "every subcommand")
completions_offer(["ringfence", "-"], top_opts, "the top-level options")

for sub in subs:
    page = man_page(f"ringfence-{sub}.1.scd")
    check(page is not None, f"ringfence-{sub}(1) exists")
    page = page or ""
    sec = sections(help_of(sub))
    opts = options_in(sec.get("Options", []))
    for o in opts:
        check(bolded(page, o), f"ringfence-{sub}(1) documents {o}")
    completions_offer(["ringfence", sub, "-"], opts, f"the options of {sub}")
    ops = subcommands_in(sec.get("Subcommands", []))
    if ops:
        completions_offer(["ringfence", sub, ""], ops, f"the subcommands of {sub}")
    for op in ops:
        check(bolded(page, op), f"ringfence-{sub}(1) documents {sub} {op}")
        op_opts = options_in(sections(help_of(sub, op)).get("Options", []))
        for o in op_opts:
            check(bolded(page, o), f"ringfence-{sub}(1) documents {sub} {op} {o}")
        # A positional argument may be needed before the options: complete after it too.
        completions_offer(["ringfence", sub, op, "-"], op_opts, f"the options of {sub} {op}")

# --- bwrap mode ----------------------------------------------------------------------------------

bw_help = subprocess.run([ringfence, "bwrap", "--help"], capture_output=True, text=True).stdout
bw_opts = [m.group(1) for m in (re.match(r"^\s+(--[\w-]+)", l) for l in bw_help.splitlines()) if m]
check(len(bw_opts) > 50, f"ringfence bwrap --help lists {len(bw_opts)} options")
bw_page = man_page("ringfence-bwrap.1.scd") or ""
for o in bw_opts:
    check(bolded(bw_page, o), f"ringfence-bwrap(1) documents {o}")
completions_offer(["ringfence", "bwrap", "-"], bw_opts, "every bwrap option")
completions_offer(["bwrap", "-"], bw_opts, "every bwrap option under the name bwrap")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
