#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The action's install step. INPUT_INSTALL=source builds ringfence from the action's own
# checkout ($GITHUB_ACTION_PATH, else this script's repository) and installs it into a prefix
# under $RUNNER_TEMP; none uses the ringfence on PATH. Either way the binary's path is written
# to $GITHUB_OUTPUT as `ringfence=PATH`, and with source its bin directory is added to
# $GITHUB_PATH for the job's later steps. A second use in the same job reuses the install.
# Inputs come from the environment only (see action.yml).
set -euo pipefail

# say_error and output: the runner's error lines and step outputs.
# shellcheck source=common.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"

mode=${INPUT_INSTALL:-source}
case "$mode" in
  none)
    if ! bin=$(command -v ringfence); then
      say_error "install: none, but no ringfence is on PATH: install it first, or use install: source"
      exit 1
    fi
    echo "ringfence: using $bin ($("$bin" --version 2>/dev/null | head -n1 || true))"
    output "ringfence=$bin"
    exit 0
    ;;
  source) ;;
  *)
    say_error "install: unknown value '$mode' (source or none)"
    exit 2
    ;;
esac

src=${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
prefix=$temp/ringfence
build=$temp/ringfence-build
bin=$prefix/bin/ringfence
rev=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo "$src")

if [[ -x "$bin" && "$(cat "$prefix/.source" 2>/dev/null)" == "$rev" ]]; then
  echo "ringfence: already installed from $rev in $prefix"
else
  echo "::group::ringfence: build dependencies"
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      say_error "install: source needs root (or sudo) to install the build dependencies with tools/install-deps build"
      exit 1
    fi
    sudo=(sudo -n)
  fi
  "${sudo[@]}" "$src/tools/install-deps" build
  echo "::endgroup::"

  echo "::group::ringfence: build and install into $prefix"
  rm -rf "$build"
  # No -Werror: a runner's newer compiler may warn where Debian 12's does not.
  meson setup "$build" "$src" --prefix "$prefix" --buildtype release -Dwerror=false \
    -Dtests=false -Dman_pages=disabled
  ninja -C "$build"
  meson install -C "$build" --quiet
  printf '%s\n' "$rev" >"$prefix/.source"
  echo "::endgroup::"
fi

"$bin" --version
if [[ -n "${GITHUB_PATH:-}" ]]; then printf '%s\n' "$prefix/bin" >>"$GITHUB_PATH"; fi
output "ringfence=$bin"
