#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The bash completion completes bwrap's options, skips option values, and hands over to the
# command after them; the zsh one at least parses.
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
if ! command -v zsh >/dev/null; then
  echo "not ok - zsh syntax: zsh is missing (install zsh: tools/install-deps installs it)"
  fail=1
elif zsh -n "$dir/_ringfence"; then
  echo "ok - zsh syntax"
else
  echo "not ok - zsh syntax"
  fail=1
fi
exit $fail
