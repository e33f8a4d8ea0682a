#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The bash completion completes the subcommands, their options and values, bwrap's options,
# skips option values, and hands over to the command after them; the zsh and fish ones at least
# parse (test_coverage.py in docs/man checks that each covers every option of the binary).
set -u
dir=$(dirname "$0")
# shellcheck source=/dev/null
source "$dir/ringfence.bash"
fail=0
expect() {  # expect NAME WANTED-WORD COMP_WORDS...
  local name=$1 want=$2
  shift 2
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _ringfence
  if printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "$want"; then
    echo "ok - $name"
  else
    echo "not ok - $name: wanted $want, got ${COMPREPLY[*]:-nothing}"
    fail=1
  fi
}
_command_offset() { COMPREPLY=("<command at $1>"); }
expect "option prefix" --ro-bind-data ringfence bwrap --ro-bind-d
expect "bwrap name" --unshare-all bwrap --unshare-a
expect "subcommand" bwrap ringfence bw
expect "path value" /etc bwrap --bind /et
expect "after two values" --die-with-parent bwrap --bind /etc /etc --die-with
expect "command after options" "<command at 3>" bwrap --tmpfs /tmp sh -
expect "command after --" "<command at 4>" bwrap --dev /dev -- x
expect "run option" --allow-hosts ringfence run --allow-hosts
expect "run value" hardened ringfence run --preset har
expect "run value after a flag" off ringfence run --dry-run --network of
expect "run host sets" npm,github ringfence run --allow-hosts npm,gi
expect "run command" "<command at 3>" ringfence run --dry-run sh -
expect "run command after a value" "<command at 4>" ringfence run --preset hardened make -
expect "run command after --" "<command at 4>" ringfence run --keep-home -- make -
expect "policy subcommand" compile ringfence policy comp
expect "policy compile output" --output ringfence policy compile --out
expect "agent-state reset agent" codex ringfence agent-state reset cod
expect "agent-state reset --yes" --yes ringfence agent-state reset codex --y
expect "verify level" landlock ringfence verify --level land
expect "doctor" --no-cache ringfence doctor --no
expect "apply" --include-risky ringfence apply --incl
expect "discard" --older-than ringfence discard --old
expect "changes" --stat ringfence changes --st
expect "bwrap mode by option" --share-net ringfence --unshare-all --share-n
if ! command -v zsh >/dev/null; then
  echo "not ok - zsh syntax: zsh is missing (install zsh: tools/install-deps installs it)"
  fail=1
elif zsh -n "$dir/_ringfence"; then
  echo "ok - zsh syntax"
else
  echo "not ok - zsh syntax"
  fail=1
fi
if ! command -v fish >/dev/null; then
  echo "not ok - fish syntax: fish is missing (install fish: tools/install-deps installs it)"
  fail=1
elif fish -n "$dir/ringfence.fish" && fish -n "$dir/bwrap.fish"; then
  echo "ok - fish syntax"
else
  echo "not ok - fish syntax"
  fail=1
fi
exit $fail
