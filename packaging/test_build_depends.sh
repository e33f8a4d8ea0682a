#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# debian/control's Build-Depends are exactly what tools/install-deps installs to build the
# packages: its build and deb groups, without build-essential (implied for every package) and
# lintian (which checks them afterwards), with
# debhelper as debhelper-compat.
# usage: test_build_depends.sh SOURCE_ROOT
set -euo pipefail
root=$1
want=$({ "$root/tools/install-deps" --list build; "$root/tools/install-deps" --list deb; } |
  grep -vx -e lintian -e build-essential | sed 's/^debhelper$/debhelper-compat/' | sort -u)
have=$(awk '/^Build-Depends:/ {on=1; sub(/^Build-Depends:/, "")} on && /^[A-Za-z-]+:/ && !/^Build-Depends:/ {on=0} on' \
  "$root/debian/control" | tr ',' '\n' | sed -e 's/(.*)//' -e 's/\[.*\]//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' |
  grep -v '^$' | sort -u)
if [[ "$want" == "$have" ]]; then
  echo "ok - Build-Depends: $(echo $have)"
  exit 0
fi
echo "not ok - debian/control's Build-Depends differ from tools/install-deps --list build/deb:"
diff <(echo "$want") <(echo "$have") | sed 's/^/    /' || true
exit 1
