#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `meson install --destdir D` lays out exactly what a user needs, where the build's options say:
# the binary in bindir (and the bwrap hard link with -Dinstall_bwrap=true), rf-attack in
# libexecdir/ringfence, the man pages in mandir/man1 and man5, the bash, zsh and fish
# completions, the AppArmor profile (and in sysconfdir/apparmor.d with -Dinstall_apparmor=true),
# and the docs in datadir/doc/ringfence. Nothing else is installed.
# usage: test_install_layout.sh BUILD_DIR
set -euo pipefail
build=$1
dest=$(mktemp -d "${TMPDIR:-/tmp}/rf-install-test.XXXXXX")
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null

opts=$(meson introspect "$build" --buildoptions)
opt() {
  python3 -c 'import json,sys; o={x["name"]: x["value"] for x in json.load(sys.stdin)}; v=o[sys.argv[1]]; print(str(v).lower() if isinstance(v, bool) else v)' "$1" <<<"$opts"
}
prefix=$(opt prefix)
abs() { case "$1" in /*) echo "$1" ;; *) echo "$prefix/$1" ;; esac; }
bindir=$(abs "$(opt bindir)")
libexecdir=$(abs "$(opt libexecdir)")
mandir=$(abs "$(opt mandir)")
datadir=$(abs "$(opt datadir)")
sysconfdir=$(abs "$(opt sysconfdir)")
install_bwrap=$(opt install_bwrap)
install_apparmor=$(opt install_apparmor)
pc_dir() {  # pc_dir PACKAGE OPTION DEFAULT: the completion directory as completions/meson.build picks it
  local v
  v=$(opt "$2")
  if [[ -n "$v" ]]; then echo "$v"; return; fi
  pkg-config --variable=completionsdir --define-variable=datadir="$datadir" "$1" 2>/dev/null || echo "$3"
}
bashdir=$(pc_dir bash-completion bashcompletiondir "$datadir/bash-completion/completions")
zshdir=$(opt zshcompletiondir); zshdir=${zshdir:-$datadir/zsh/site-functions}
fishdir=$(pc_dir fish fishcompletiondir "$datadir/fish/vendor_completions.d")

expected=(
  "$bindir/ringfence"
  "$libexecdir/ringfence/rf-attack"
  "$datadir/ringfence/apparmor/ringfence"
)
[[ $install_bwrap == true ]] && expected+=("$bindir/bwrap")
[[ $install_apparmor == true ]] && expected+=("$sysconfdir/apparmor.d/ringfence")
[[ $bashdir != no ]] && expected+=("$bashdir/ringfence") && [[ $install_bwrap == true ]] && expected+=("$bashdir/bwrap")
[[ $zshdir != no ]] && expected+=("$zshdir/_ringfence") && [[ $install_bwrap == true ]] && expected+=("$zshdir/_bwrap")
[[ $fishdir != no ]] && expected+=("$fishdir/ringfence.fish") && [[ $install_bwrap == true ]] && expected+=("$fishdir/bwrap.fish")
if [[ -f "$build/docs/man/ringfence.1" ]]; then
  for p in ringfence ringfence-run ringfence-bwrap ringfence-policy ringfence-preset ringfence-doctor \
    ringfence-verify ringfence-agent-state ringfence-changes ringfence-apply ringfence-discard \
    ringfence-violations ringfence-why; do
    expected+=("$mandir/man1/$p.1")
  done
  expected+=("$mandir/man5/ringfence-policy.5" "$mandir/man5/ringfence-profile.5")
  [[ $install_bwrap == true ]] && expected+=("$mandir/man1/bwrap.1")
else
  echo "# the man pages were not built (no scdoc, or -Dman_pages=disabled): not expected"
fi
for d in README.md architecture.md compat-bwrap.md doctor.md error-handling.md network-policy.md \
  profile-file.md run.md seccomp-policy.md security-tests.md verify.md review.md ci.md; do
  expected+=("$datadir/doc/ringfence/$d")
done

fail=0
for f in "${expected[@]}"; do
  if [[ -f "$dest$f" && ! -L "$dest$f" ]]; then
    echo "ok - $f"
  else
    echo "not ok - $f is not installed (as a regular file)"
    fail=1
  fi
done
for f in "$bindir/ringfence" "$libexecdir/ringfence/rf-attack"; do
  [[ -x "$dest$f" ]] || { echo "not ok - $f is not executable"; fail=1; }
done
if [[ $install_bwrap == true ]]; then
  if [[ "$dest$bindir/bwrap" -ef "$dest$bindir/ringfence" ]] || cmp -s "$dest$bindir/bwrap" "$dest$bindir/ringfence"; then
    echo "ok - bwrap is a hard link to (or a copy of) ringfence"
  else
    echo "not ok - bwrap is not ringfence"
    fail=1
  fi
  out=$("$dest$bindir/bwrap" --version 2>&1) || true
  [[ $out == "bubblewrap "* ]] && echo "ok - the installed bwrap answers as bubblewrap" ||
    { echo "not ok - the installed bwrap --version printed: $out"; fail=1; }
fi
# Nothing else: every installed file is one of the above.
while IFS= read -r f; do
  f=${f#"$dest"}
  if ! printf '%s\n' "${expected[@]}" | grep -qxF -- "$f"; then
    echo "not ok - unexpected installed file $f"
    fail=1
  fi
done < <(find "$dest" \( -type f -o -type l \))
exit $fail
