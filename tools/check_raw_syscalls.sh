#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fails when syscall( appears in src/ outside src/base/ (the kernel-call wrappers of
# include/ringfence/base/kernel.hpp live there) and the files listed below.
#
# usage: check_raw_syscalls.sh ROOT   exit 1 and print file:line for each raw call
set -euo pipefail

ROOT=${1:?usage: check_raw_syscalls.sh ROOT}
cd "$ROOT"

# Files that may call syscall(2) themselves, each with its reason.
EXEMPT=(
  # A freestanding program without libc or the C++ runtime: raw system calls by design.
  src/engine/reaper/reaper.c
)

status=0
while IFS= read -r hit; do
  file=${hit%%:*}
  exempt=0
  for e in "${EXEMPT[@]}"; do
    [[ $file == "$e" ]] && exempt=1
  done
  ((exempt)) && continue
  echo "$hit: raw syscall(); use the wrappers of ringfence/base/kernel.hpp"
  status=1
done < <(grep -rnE --include='*.c' --include='*.cc' --include='*.cpp' --include='*.h' --include='*.hpp' \
  '(^|[^A-Za-z0-9_])syscall[[:space:]]*\(' src | grep -v '^src/base/' || true)
exit $status
