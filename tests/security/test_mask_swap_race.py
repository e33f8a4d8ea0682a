#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Masks against a concurrent writer of the project: a host loop (standing for a second sandbox of
the same project, or any process that may write it) moves a directory holding a masked .env away
and puts a decoy directory in its place, again and again, while sandboxes start. Each sandbox
reads the .env under every name for 100 ms; the secret must never be readable.

What holds it: the scan before the start is one look at a tree that is changing (a directory
renamed while readdir(3) walks its parent can be missed by it), so the launcher's watch walks the
project again, adding each directory's inotify watch before reading it, covers every masked name
it finds (not only the scan's), handles every rename queued meanwhile, and the command waits at a
second sync point until those covers are mounted. A cover stays on its object wherever a rename
moves it. A start whose scan found another object at a name than the one it covers is refused
(exit 125), which counts as a clean outcome here. Before that change the race was won within 5 to
170 starts (as 65534; as root less often).
  python3 tests/security/test_mask_swap_race.py build/src/app/ringfence build/tests/helpers/try_syscall
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import BASE_ENV, SETPRIV, Suite, Swapper, check, fail, require_program  # noqa: E402

suite = Suite("security-mask-swap-race")
SETUP_FAILED = 125


class World:
    def __init__(self, ctx):
        require_program("/usr/bin/python3", "python3", "the reading script")
        self.ctx = ctx
        self.token = ctx.h.token
        self.proj = ctx.mkdtemp(owned=True)

    def own(self):
        for dirpath, dirnames, filenames in os.walk(self.proj):
            for n in [dirpath] + [os.path.join(dirpath, x) for x in dirnames + filenames]:
                os.lchown(n, self.ctx.uid, self.ctx.uid)

    def run(self, script, args, timeout=30, own=True):
        if own:
            self.own()
        argv = [self.ctx.h.target, "run", "--no-profile", "--network", "off", "--project",
                self.proj, "--", "/usr/bin/python3", "-c", script] + list(args)
        full = (SETPRIV if self.ctx.unpriv else []) + argv
        return subprocess.run(full, cwd=self.proj, env=dict(BASE_ENV), capture_output=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)


@suite.case()
def masked_dir_swapped_while_starting(ctx):
    w = World(ctx)
    real, decoy, parked = (os.path.join(w.proj, n) for n in ("sub", "decoy", "sub-parked"))
    for d, text in ((real, f"RF-SECRET-{w.token}\n"), (decoy, "decoy\n")):
        os.mkdir(d)
        with open(os.path.join(d, ".env"), "w") as f:
            f.write(text)
    w.own()
    # Reads every name again and again for 100 ms: a cover that comes late is still late.
    script = ("import sys, time\nout = set()\nend = time.monotonic() + 0.1\n"
              "while time.monotonic() < end:\n    for p in sys.argv[1:]:\n        try:\n"
              "            out.add(open(p).read())\n        except OSError:\n            pass\n"
              "print('RF-RESULT ' + repr(sorted(out)))")
    swapper = Swapper(real, decoy, parked)
    seen = {"ran": 0, "refused": 0}
    try:
        deadline = time.monotonic() + 25
        for _ in range(400):
            if time.monotonic() > deadline:
                break
            r = w.run(script=script, args=[f"{p}/.env" for p in (real, decoy, parked)],
                      timeout=30, own=False)
            out = r.stdout.decode(errors="replace")
            if w.token in out:
                fail(f"a sandbox read the masked secret after {seen} runs: {out[-300:]}")
            if "RF-RESULT" in out:
                seen["ran"] += 1
            elif r.returncode == SETUP_FAILED:
                seen["refused"] += 1
            else:
                fail(f"unexpected exit {r.returncode}: {r.stderr[-800:]!r}")
    finally:
        swapper.stop()
    check(swapper.swaps > 0 and seen["ran"] > 0, f"no run or no swap: {seen}, {swapper.swaps} swaps")
    print(f"  masked swap: {seen['ran']} ran, {seen['refused']} refused, {swapper.swaps} swaps")


if __name__ == "__main__":
    sys.exit(suite.main())
