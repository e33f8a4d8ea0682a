# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by install.sh and run.sh: what both say to the runner.

# An ::error:: line, escaped as the runner wants: an input's newline cannot start a command line.
say_error() {
  local m="$*"
  m=${m//'%'/%25}
  m=${m//$'\r'/%0D}
  m=${m//$'\n'/%0A}
  printf '::error title=ringfence::%s\n' "$m"
}
output() { if [[ -n "${GITHUB_OUTPUT:-}" ]]; then printf '%s\n' "$1" >>"$GITHUB_OUTPUT"; fi; }
