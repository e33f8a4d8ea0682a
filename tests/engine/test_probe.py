#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The probe layer on this host and on simulated ones: as root and as 65534 everything the
# kernel level needs works; under a seccomp filter refusing CLONE_NEWUSER (Docker's default
# profile) and in a user namespace whose user.max_user_namespaces is 0 the user namespace check
# fails with the right cause and the level falls to landlock. The JSON has the table's content;
# the per-boot cache is used, ignored when stale or not ours, and never left half-written.
#
# usage: test_probe.py PROBE_HOST SYSCALL_JAIL
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

PROBE, JAIL = stage(sys.argv[1], sys.argv[2])
NOBODY = 65534
UNPRIV = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
KERNEL_CHECKS = ["userns", "idmap", "mountns", "pidns_proc", "ipc_uts", "pivot_root", "no_new_privs", "seccomp"]
failures = []


def check(name, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)
    return cond


def run(argv, env=None, prefix=(), timeout=60):
    e = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C"}
    e.update(env or {})
    t0 = time.monotonic()
    r = subprocess.run(list(prefix) + [PROBE] + argv, capture_output=True, text=True, env=e, timeout=timeout)
    r.elapsed = time.monotonic() - t0
    return r


def report(argv, **kw):
    r = run(["--json", "--check-json"] + argv, **kw)
    if not check(f"probe_host {' '.join(argv)} exits 0 and reads its JSON back", r.returncode == 0,
                 f"rc={r.returncode} {r.stderr}"):
        return None
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        check("the JSON parses", False, f"{e}: {r.stdout[:300]}")
        return None


def by_id(rep):
    return {c["id"]: c for c in rep["checks"]}


def content(rep):
    return {k: v for k, v in rep.items() if k != "cache"}


def reached(rep):
    return {p["preset"]: p["reached"] for p in rep["presets"]}


def expect_kernel(who, rep):
    if rep is None:
        return
    checks = by_id(rep)
    check(f"{who}: level kernel", rep["level"] == "kernel", rep["level_reason"])
    for cid in KERNEL_CHECKS + ["netns", "seccomp_notify", "pidfd_getfd", "mount_setattr", "overlay"]:
        c = checks.get(cid, {})
        check(f"{who}: {cid} available", c.get("available") == "yes", c.get("detail"))
        check(f"{who}: {cid} has no cause", not c.get("cause"), c.get("cause"))
    check(f"{who}: landlock usable", checks["landlock"]["available"] in ("yes", "partial"),
          checks["landlock"]["detail"])
    check(f"{who}: landlock ABI", rep["landlock_abi"] >= 1, rep["landlock_abi"])
    check(f"{who}: presets", reached(rep) == {"trusted": "soft", "balanced": "kernel", "hardened": "kernel",
                                              "read-only": "kernel", "ci": "kernel"}, reached(rep))
    check(f"{who}: --no-cache reads no cache", rep["cache"]["status"] == "off", rep["cache"])


def expect_fallback(who, rep, cause_part, detail_part):
    if rep is None:
        return
    u = by_id(rep)["userns"]
    check(f"{who}: user namespace not available", u["available"] == "no", u)
    check(f"{who}: detail names the step and errno", detail_part in u["detail"], u["detail"])
    check(f"{who}: cause", cause_part in u["cause"], u["cause"])
    check(f"{who}: a fix is given", len(u["fix"]) > 20, u["fix"])
    check(f"{who}: later namespace steps not tried", by_id(rep)["idmap"]["detail"] == "not tried: userns failed",
          by_id(rep)["idmap"]["detail"])
    check(f"{who}: level landlock (this kernel has Landlock)", rep["level"] == "landlock", rep["level"])
    check(f"{who}: the level says why", rep["level_reason"].startswith("user namespace: "), rep["level_reason"])
    check(f"{who}: balanced falls back to landlock", reached(rep)["balanced"] == "landlock", reached(rep))


def hosts():
    expect_kernel("root", report(["--no-cache"]))
    expect_kernel("uid 65534", report(["--no-cache"], prefix=UNPRIV))
    for who, prefix in (("root", []), ("uid 65534", UNPRIV)):
        rep = report(["--no-cache"], prefix=prefix + [JAIL, "--deny-userns", "--"])
        expect_fallback(f"{who}, seccomp refuses CLONE_NEWUSER", rep, "Docker's default seccomp profile",
                        "unshare(CLONE_NEWUSER): EPERM")
        if rep:
            u = by_id(rep)["userns"]
            check(f"{who}, seccomp jail: --privileged is not recommended", "NOT recommended" in u["fix"], u["fix"])
            check(f"{who}, seccomp jail: container fact", "Docker-like" in rep["facts"]["container"],
                  rep["facts"]["container"])
    # No user namespaces and no Landlock: the soft level, said plainly.
    rep = report(["--no-cache"], prefix=UNPRIV + [JAIL, "--deny-userns", "--enosys", "landlock_create_ruleset", "--"])
    if rep:
        ll = by_id(rep)["landlock"]
        check("no userns, no Landlock: landlock not available", ll["available"] == "no", ll)
        check("no userns, no Landlock: detail", ll["detail"] == "ABI: ENOSYS (Function not implemented)", ll["detail"])
        check("no userns, no Landlock: cause", "CONFIG_SECURITY_LANDLOCK" in ll["cause"], ll["cause"])
        check("no userns, no Landlock: level soft", rep["level"] == "soft", rep["level"])
        check("no userns, no Landlock: the reason names both", "user namespace: " in rep["level_reason"]
              and "Landlock: " in rep["level_reason"], rep["level_reason"])
        check("no userns, no Landlock: balanced is NOT confined", reached(rep)["balanced"] == "soft"
              and "NOT confined" in rep["presets"][1]["note"], rep["presets"])
    # A kernel without mount_setattr: reported, with the engine's fallback; the level holds.
    rep = report(["--no-cache"], prefix=UNPRIV + [JAIL, "--enosys", "mount_setattr", "--"])
    if rep:
        ms = by_id(rep)["mount_setattr"]
        check("no mount_setattr: not available", ms["available"] == "no" and "ENOSYS" in ms["detail"], ms)
        check("no mount_setattr: the fallback is named", "classic remounts" in ms["fix"], ms["fix"])
        check("no mount_setattr: level still kernel", rep["level"] == "kernel", rep["level_reason"])
    limit = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"'
    nested = UNPRIV + ["unshare", "-U", "-r", "-m", "sh", "-c", limit, "sh"]
    rep = report(["--no-cache"], prefix=nested)
    expect_fallback("max_user_namespaces=0", rep, "user.max_user_namespaces = 0", "unshare(CLONE_NEWUSER): ENOSPC")
    if rep:
        u = by_id(rep)["userns"]
        check("max_user_namespaces=0: not blamed on Docker", "Docker" not in u["cause"], u["cause"])
        check("max_user_namespaces=0: fix is the sysctl", "sysctl -w user.max_user_namespaces=" in u["fix"], u["fix"])


def table_matches_json(table, rep):
    """Every JSON field appears in the table, where a person expects it."""
    lines = table.splitlines()
    width = max(len(c["layer"]) for c in rep["checks"]) + 2
    for c in rep["checks"]:
        row = c["layer"].ljust(width) + c["available"].ljust(11) + c["detail"]
        if not check(f"table row for {c['id']}", row in lines, row):
            continue
        i = lines.index(row) + 1
        for label, text in (("cause", c["cause"]), ("fix", c["fix"])):
            if not text:
                continue
            want = []
            for n, part in enumerate(text.split("\n")):
                want.append(("    " + (label + ":").ljust(7) if n == 0 else " " * 11) + part)
            check(f"table {label} for {c['id']}", lines[i:i + len(want)] == want, (lines[i:i + len(want)], want))
            i += len(want)
    for k, v in rep["facts"].items():
        check(f"table fact {k}", f"    {k}: {v}" in lines, v)
    level = f"level: {rep['level']}" + (f" ({rep['level_reason']})" if rep["level_reason"] else "")
    check("table level line", level in lines, level)
    presets = "presets: " + ", ".join(f"{p['preset']} {p['reached']}" for p in rep["presets"])
    check("table presets line", presets in lines, presets)
    for p in rep["presets"]:
        if p["note"]:
            check(f"table note for {p['preset']}", f"    {p['preset']}: {p['note']}" in lines, p["note"])
    check("table cache line", f"cache: {rep['cache']['status']} ({rep['cache']['path']})" in lines, lines[-1])


def owned_dir(uid):
    d = tempfile.mkdtemp(prefix="rf-probe-test-")
    os.chmod(d, 0o700)
    os.chown(d, uid, uid)
    return d


def edit(path, fn):
    with open(path) as f:
        doc = json.load(f)
    fn(doc)
    with open(path, "w") as f:
        json.dump(doc, f)


def cache(uid, prefix):
    who = f"cache as uid {uid}"
    xdg = owned_dir(uid)
    try:
        env = {"XDG_RUNTIME_DIR": xdg}
        path = os.path.join(xdg, "ringfence", "probe.json")
        first = report([], env=env, prefix=prefix)
        if first is None:
            return
        check(f"{who}: written", first["cache"] == {"status": "written", "path": path}, first["cache"])
        st = os.stat(path)
        check(f"{who}: file 0600, ours", (st.st_mode & 0o777, st.st_uid) == (0o600, uid), oct(st.st_mode))
        dst = os.stat(os.path.dirname(path))
        check(f"{who}: directory 0700, ours", (dst.st_mode & 0o777, dst.st_uid) == (0o700, uid), oct(dst.st_mode))
        check(f"{who}: no temporary file left", os.listdir(os.path.dirname(path)) == ["probe.json"],
              os.listdir(os.path.dirname(path)))

        second = report([], env=env, prefix=prefix)
        check(f"{who}: used on the second run", second["cache"]["status"] == "used", second["cache"])
        check(f"{who}: same content from the cache", content(second) == content(first))
        r = run([], env=env, prefix=prefix)
        second["cache"]["status"] = "used"
        table_matches_json(r.stdout, second)

        # Timing: the cached answer costs no trial children.
        fresh = [run(["--json", "--no-cache"], env=env, prefix=prefix).elapsed for _ in range(3)]
        cached = [run(["--json"], env=env, prefix=prefix).elapsed for _ in range(3)]
        check(f"{who}: cached runs are faster ({statistics.median(cached):.3f}s vs "
              f"{statistics.median(fresh):.3f}s)", statistics.median(cached) < statistics.median(fresh))

        # The content really comes from the file: an edit (key untouched) shows.
        edit(path, lambda d: d["report"]["checks"][0].update(detail="EDITED"))
        os.chown(path, uid, uid)
        rep = report([], env=env, prefix=prefix)
        check(f"{who}: the cached content is what is shown", by_id(rep)["userns"]["detail"] == "EDITED",
              by_id(rep)["userns"]["detail"])

        # A different boot id: stale, probed again and rewritten.
        edit(path, lambda d: d["key"].update(boot_id="00000000-0000-0000-0000-000000000000"))
        os.chown(path, uid, uid)
        rep = report([], env=env, prefix=prefix)
        check(f"{who}: stale boot id", rep["cache"]["status"] == "stale (boot_id differs), rewritten", rep["cache"])
        check(f"{who}: stale content replaced", by_id(rep)["userns"]["detail"] != "EDITED")
        check(f"{who}: used again after the rewrite", report([], env=env, prefix=prefix)["cache"]["status"] == "used")

        # A different kernel release in the key: stale too.
        edit(path, lambda d: d["key"].update(kernel="1.0.0"))
        os.chown(path, uid, uid)
        rep = report([], env=env, prefix=prefix)
        check(f"{who}: stale kernel", rep["cache"]["status"] == "stale (kernel differs), rewritten", rep["cache"])

        # Writable by others: ignored, and replaced by a file of ours.
        os.chmod(path, 0o666)
        rep = report([], env=env, prefix=prefix)
        check(f"{who}: group/world-writable file ignored",
              rep["cache"]["status"] == "ignored (writable by others), rewritten", rep["cache"])
        check(f"{who}: rewritten 0600", os.stat(path).st_mode & 0o777 == 0o600, oct(os.stat(path).st_mode))

        # Not owned by us: ignored.
        stranger = 0 if uid != 0 else NOBODY
        edit(path, lambda d: d["report"]["checks"][0].update(detail="EDITED"))
        os.chmod(path, 0o644)
        os.chown(path, stranger, stranger)
        rep = report([], env=env, prefix=prefix)
        check(f"{who}: a file owned by uid {stranger} is ignored",
              rep["cache"]["status"] == f"ignored (owned by uid {stranger}), rewritten", rep["cache"])
        check(f"{who}: its content is not shown", by_id(rep)["userns"]["detail"] != "EDITED")

        # A symlink in place of the file: never followed.
        target = os.path.join(os.path.dirname(path), "elsewhere.json")
        os.rename(path, target)
        os.symlink("elsewhere.json", path)
        os.lchown(path, uid, uid)
        rep = report([], env=env, prefix=prefix)
        check(f"{who}: a symlink is not followed", rep["cache"]["status"].startswith("ignored ("), rep["cache"])
        check(f"{who}: the symlink is replaced by a file", not os.path.islink(path))
        os.unlink(target)

        # A directory open to others: neither read nor written.
        os.chmod(os.path.dirname(path), 0o755)
        rep = report([], env=env, prefix=prefix)
        check(f"{who}: a directory open to others is not used",
              rep["cache"]["status"].startswith("ignored (") and "open to other users" in rep["cache"]["status"]
              and "not written" in rep["cache"]["status"], rep["cache"])
        os.chmod(os.path.dirname(path), 0o700)

        # Another binary (a copy, then touched): stale.
        copy = os.path.join(xdg, "probe_host_copy")
        shutil.copy2(PROBE, copy)
        os.chown(copy, uid, uid)
        e = {"PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": xdg}
        r = subprocess.run(list(prefix) + [copy, "--json"], capture_output=True, text=True, env=e, timeout=60)
        check(f"{who}: another binary does not use this cache",
              json.loads(r.stdout)["cache"]["status"] == "stale (exe differs), rewritten", r.stdout[-200:])
    finally:
        shutil.rmtree(xdg)


def no_leftovers():
    # Trial children are gone and the cgroup trial removed its groups.
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    check("no probe process left", PROBE not in out, [ln for ln in out.splitlines() if PROBE in ln])
    left = []
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        sep = f.index("-")
        if f[sep + 1] == "cgroup2":
            for root, dirs, _ in os.walk(f[4]):
                left += [os.path.join(root, d) for d in dirs if d.startswith("ringfence-probe-")]
                if root.count("/") > 8:
                    dirs[:] = []
    check("no ringfence-probe-* cgroup left", not left, left)


def fallback_dir():
    # Without XDG_RUNTIME_DIR the cache goes to /tmp/ringfence-UID, made 0700.
    d = f"/tmp/ringfence-{NOBODY}"
    existed = os.path.isdir(d)
    rep = report([], env={}, prefix=UNPRIV)
    if rep:
        check("no XDG_RUNTIME_DIR: /tmp/ringfence-UID", rep["cache"]["path"] == f"{d}/probe.json", rep["cache"])
        st = os.stat(d)
        check("no XDG_RUNTIME_DIR: directory 0700 and ours", (st.st_mode & 0o777, st.st_uid) == (0o700, NOBODY))
    if os.path.exists(f"{d}/probe.json"):
        os.unlink(f"{d}/probe.json")
    if not existed and os.path.isdir(d) and not os.listdir(d):
        os.rmdir(d)


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (runs as root and as 65534)")
        return 77
    hosts()
    cache(0, [])
    cache(NOBODY, UNPRIV)
    fallback_dir()
    no_leftovers()
    print(f"{len(failures)} failure(s)" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
