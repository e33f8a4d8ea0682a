#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every built man page renders at 80 columns without a single warning from man (groff).
# Arguments: the rendered pages.
set -u
if (($# == 0)); then
  echo "SKIP: no man pages were built (scdoc not found; tools/install-deps installs it)"
  exit 77
fi
if ! command -v man >/dev/null; then
  echo "SKIP: man is not installed (the man-db package; tools/install-deps installs it)"
  exit 77
fi
fail=0
for page in "$@"; do
  name=$(basename "$page")
  if [[ ! -s "$page" ]]; then
    echo "not ok - $name: missing or empty"
    fail=1
    continue
  fi
  out=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$page" 2>&1 >/dev/null)
  if [[ -n "$out" ]]; then
    echo "not ok - $name: man printed:"
    printf '%s\n' "$out" | sed 's/^/    /'
    fail=1
    continue
  fi
  # Each page has the sections every reader looks for.
  text=$(MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$page" 2>/dev/null)
  for section in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" EXAMPLES "SEE ALSO"; do
    if ! grep -qx "$section" <<<"$text"; then
      echo "not ok - $name: no $section section"
      fail=1
      continue 2
    fi
  done
  echo "ok - $name"
done
exit $fail
