#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compat: every option the compatibility contract requires is exercised by some differential
case (a static check over the case tables; runs nothing). Options newer than the reference
bwrap (0.8.0) cannot be compared with it; they must be exercised by the named integration
module instead (checked by their literal presence in its source)."""

import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

REQUIRED = """--help --version --args --unshare-all --unshare-user --unshare-user-try --unshare-ipc
--unshare-pid --unshare-net --unshare-uts --unshare-cgroup --unshare-cgroup-try --share-net
--uid --gid --hostname --chdir --setenv --unsetenv --clearenv --bind --bind-try --dev-bind
--dev-bind-try --ro-bind --ro-bind-try --remount-ro --proc --dev --tmpfs --mqueue --dir
--symlink --chmod --perms --size --seccomp --add-seccomp-fd --new-session --die-with-parent
--as-pid-1 --cap-add --cap-drop -- --file --bind-data --ro-bind-data --lock-file --sync-fd
--block-fd --userns-block-fd --info-fd --json-status-fd --disable-userns
--assert-userns-disabled --userns --userns2 --pidns""".split()

MODULES = ["test_compat_cli", "test_compat_namespaces", "test_compat_filesystem",
           "test_compat_process", "test_compat_control", "test_compat_dataops",
           "test_compat_joined", "test_compat_flatpak"]

# option -> integration module that covers it against the documented behaviour
NEWER_THAN_REFERENCE = {"--argv0": "test_control"}


def main():
    used = set()
    for name in MODULES:
        used |= importlib.import_module(name).C.options_used
    missing = [o for o in REQUIRED if o not in used]
    for o in REQUIRED:
        print(("ok      " if o in used else "MISSING ") + o)
    integration = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration")
    for o, mod in NEWER_THAN_REFERENCE.items():
        try:
            with open(os.path.join(integration, mod + ".py")) as f:
                present = f'"{o}"' in f.read()
        except OSError:
            present = False
        print(("ok      " if present else "MISSING ") + f"{o} (integration/{mod}.py)")
        if not present:
            missing.append(o)
    if missing:
        print(f"FAIL: no differential case uses {missing}")
        return 1
    print(f"all {len(REQUIRED) + len(NEWER_THAN_REFERENCE)} required options are covered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
