#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The action's run step: runs INPUT_RUN with INPUT_SHELL inside `ringfence run --preset
# INPUT_PRESET` in INPUT_WORKING_DIRECTORY (the project), then prints the refusals of the run as
# GitHub annotations (`ringfence violations --format github`), writes `exit-code` and
# `violations` to $GITHUB_OUTPUT, and exits with the step's code. ringfence's own failures
# (123: refused, the host cannot confine the step; 124: the timeout; 125: the sandbox could not
# be set up; 2 before the sandbox started: a bad input) also get an ::error:: line saying why.
#
# Every input arrives as an environment variable and is passed on as whole arguments: nothing of
# an input is ever parsed as shell code here (see action.yml on script injection).
#   INPUT_RUN                the command (required)
#   INPUT_WORKING_DIRECTORY  default .
#   INPUT_PRESET             default ci
#   INPUT_ALLOW_HOSTS        comma list of host sets
#   INPUT_ALLOW_HOST         hosts, one a line
#   INPUT_ENV                variable names (or NAME=VALUE), one a line
#   INPUT_CACHE              the cache directory; empty: no --cache
#   INPUT_SHELL              default bash
#   RINGFENCE                the binary; default: ringfence on PATH
set -uo pipefail

# say_error and output: the runner's error lines and step outputs.
# shellcheck source=common.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"
# Lines of a newline list, trimmed, empty ones left out.
lines_of() {
  local line
  while IFS= read -r line || [[ -n "$line" ]]; do
    line=${line%$'\r'}
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    [[ -n "$line" ]] && printf '%s\n' "$line"
  done <<<"$1"
  return 0
}
fail_early() {  # a wrong input: nothing ran
  say_error "$*"
  output "exit-code=2"
  output "violations=0"
  exit 2
}

if [[ -z "${INPUT_RUN:-}" ]]; then fail_early "the run input is empty: nothing to run"; fi
preset=${INPUT_PRESET:-ci}
workdir=${INPUT_WORKING_DIRECTORY:-.}
shell=${INPUT_SHELL:-bash}
rf=${RINGFENCE:-}
if [[ -z "$rf" ]]; then
  rf=$(command -v ringfence) || fail_early "no ringfence on PATH (install: none needs one)"
fi

# The shell is one program, a name or a path: GitHub's `shell: bash -x {0}` form is not taken.
if [[ -z "$shell" || "$shell" =~ [[:space:]] || "$shell" == *"{0}"* ]]; then
  fail_early "shell: '$shell' is not a program name or path (bash, sh, /usr/bin/zsh, ...)"
fi
case "${shell##*/}" in
  # As GitHub runs `shell: bash`: no startup files, errexit and pipefail.
  bash) shell_argv=("$shell" --noprofile --norc -e -o pipefail -c "$INPUT_RUN") ;;
  *) shell_argv=("$shell" -e -c "$INPUT_RUN") ;;
esac

args=(run --preset "$preset")
if [[ -n "${INPUT_CACHE:-}" ]]; then
  # 0700, as ringfence makes it: it refuses a cache directory others can write.
  (umask 077 && mkdir -p -- "$INPUT_CACHE") || fail_early "cache: cannot make $INPUT_CACHE"
  cache=$(cd -- "$INPUT_CACHE" && pwd) || fail_early "cache: cannot enter $INPUT_CACHE"
  args+=(--cache "$cache")  # absolute: the command runs in the working directory
fi
while IFS= read -r name; do
  if [[ ! "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*(=.*)?$ ]]; then
    fail_early "env: '$name' is not a variable name (NAME, or NAME=VALUE), one a line"
  fi
  args+=(--env "$name")
done < <(lines_of "${INPUT_ENV:-}")
sets=${INPUT_ALLOW_HOSTS:-}
sets=${sets//[[:space:]]/}
sets=${sets#,}
sets=${sets%,}
if [[ -n "$sets" ]]; then args+=(--allow-hosts "$sets"); fi
while IFS= read -r host; do
  args+=(--allow-host "$host")
done < <(lines_of "${INPUT_ALLOW_HOST:-}")
args+=(-- "${shell_argv[@]}")

cd -- "$workdir" || fail_early "working-directory: cannot enter '$workdir'"

# ringfence's own messages are kept (all of stderr is still shown) to say why it failed.
errlog=$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/ringfence-stderr.XXXXXX")
trap 'rm -f "$errlog"' EXIT
# Only the refusals of this run are printed after it, not older ones in the log.
since=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)

"$rf" "${args[@]}" 2> >(tee "$errlog" >&2)
code=$?
wait $! 2>/dev/null || true

# The last message of ringfence's own: a refusal to run first, else any but the denial hints.
reason=$(grep -a '^ringfence: refusing to run' "$errlog" | tail -n1)
if [[ -z "$reason" ]]; then
  reason=$(grep -a '^ringfence: ' "$errlog" | grep -av '^ringfence: refused ' | tail -n1)
fi
reason=${reason#ringfence: }
mention() { if [[ -n "$reason" ]]; then printf ' (ringfence: %s)' "$reason"; fi; }
case "$code" in
  123)
    say_error "ringfence refused to run the step$(mention): this runner cannot confine it as preset '$preset' requires (e.g. no unprivileged user namespaces, or a limit that cannot be enforced). Run 'ringfence doctor' on the runner for the cause and the fix; see docs/ci.md."
    ;;
  124)
    say_error "ringfence stopped the step with exit 124$(mention): the sandbox's timeout expired and it was killed."
    ;;
  125)
    say_error "ringfence could not set up the sandbox$(mention). Run 'ringfence doctor' on the runner for what this host can enforce; see docs/ci.md."
    ;;
esac
# Exit 2 is a usage error of ringfence's only when the sandbox never started: no level line.
if [[ "$code" == 2 && -n "$reason" ]] && ! grep -aq '^ringfence: level ' "$errlog"; then
  say_error "ringfence refused its command line (ringfence: $reason): check the inputs preset, allow-hosts, allow-host and env."
fi
if [[ "$code" == 123 || "$code" == 125 ]]; then
  echo "::group::ringfence doctor"
  "$rf" doctor || true
  echo "::endgroup::"
fi

annotations=$("$rf" violations --since "$since" --format github 2>/dev/null) || annotations=""
count=0
if [[ -n "$annotations" ]]; then
  printf '%s\n' "$annotations"
  count=$(grep -c '^::warning' <<<"$annotations" || true)
  echo "ringfence: $count refusal(s) in this step; 'ringfence why --since $since' explains them"
fi

output "exit-code=$code"
output "violations=$count"
exit "$code"
