#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Attacks on the listen policy: servers that would make a sandbox reachable from outside.

With the network off at the landlock and soft levels there is no network namespace: a server
on 0.0.0.0 (or on the host's loopback) would be a way in to a sandbox that is meant to be
offline. With the network on at any level the host's network is shared: a server on a
non-loopback address serves the project to the whole network, and an abstract unix name is the
host's (a squatted service name). tests/helpers/listen_racer (static, raw system calls) tries,
as root and as uid 65534:

  bind 0.0.0.0, bind ::, bind AF_UNSPEC+INADDR_ANY (the kernel's AF_INET compatibility form),
  listen on an unbound TCP socket (it binds every address), bind+listen on 127.0.0.1, ::1 and
  ::ffff:127.0.0.1, bind 127.0.0.1:80 (a privileged port the supervisor must not grant) and a
  free unprivileged port (which it must), UDP
  binds, accept and accept4 on an inet socket, a unix path bind+listen in the project and an
  accept on it, an abstract unix bind (stream and datagram), an autobind, and the x32 forms;
  then a thread flips the first byte of a unix path sockaddr to NUL (an abstract name) while
  the main thread binds (stream sockets, then datagram sockets) in a loop: once the kernel binds
  an abstract name the sandbox is stopped, with one violation line.

Modes: --level landlock and --level soft with --network off (no inet server at all: binds only
to loopback, no inet listen or accept), the default level and --level landlock with --network
on (bind and listen only on loopback), --network on --allow-listen (everything binds), and
--level soft --network off --allow-listen (the flag does not open a network that is off).
Every refusal is EACCES and has its line in the violation log, which a flood of refusals
fills only to its limit. Nothing is ever sent.
`--dry-run` shows the servers line, and `[network] allow_listen` in a profile file works as
the flag.

usage: test_listen_policy.py RINGFENCE LISTEN_RACER
"""

import ctypes
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

NOBODY = 65534
SETPRIV = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
SKIP = 77

# What each probe of `listen_racer probe` must give, per listen policy.
NONE = {
    "any4_bind": "EACCES", "any4_listen": "EACCES", "any6_bind": "EACCES", "any6_listen": "EACCES",
    "unspec4_bind": "EACCES", "unspec4_listen": "EACCES", "unbound_listen": "EACCES",
    "lo4_bind": "OK", "lo4_listen": "EACCES", "lo6_bind": "OK", "lo6_listen": "EACCES",
    "mapped_bind": "OK", "mapped_listen": "EACCES", "port80_bind": "EACCES", "port80_listen": "EACCES",
    "udp_any4_bind": "EACCES", "udp_lo4_bind": "OK", "inet_accept": "EACCES", "inet_accept_plain": "EACCES",
    "unix_path_bind": "OK", "unix_path_listen": "OK", "unix_accept": "EAGAIN",
    "abstract_bind": "EACCES", "abstract_listen": "EACCES", "abstract_dgram_bind": "EACCES",
    "autobind_bind": "OK", "autobind_listen": "OK", "fixed_port_bind": "OK", "fixed_port_listen": "EACCES",
}
LOOPBACK = dict(NONE, lo4_listen="OK", lo6_listen="OK", mapped_listen="OK", fixed_port_listen="OK",
                inet_accept="EINVAL", inet_accept_plain="EINVAL")
OPEN = {k: "OK" for k in NONE}
OPEN.update(inet_accept="EINVAL", inet_accept_plain="EINVAL", unix_accept="EAGAIN",
            port80_bind="EACCES", port80_listen="EACCES")  # the kernel's own refusal: no capability
X32 = {"ENOSYS", "SYS"}  # refused, or killed by the seccomp policy that refuses x32 altogether

# mode: (arguments, level expected, expectations, listen policy)
MODES = {
    "landlock-off": (["--level", "landlock", "--network", "off"], "landlock", NONE, "none"),
    "soft-off": (["--level", "soft", "--network", "off"], "soft", NONE, "none"),
    "soft-off-allow": (["--level", "soft", "--network", "off", "--allow-listen"], "soft", NONE, "none"),
    "kernel-on": (["--network", "on"], "kernel", LOOPBACK, "loopback"),
    "landlock-on": (["--level", "landlock", "--network", "on"], "landlock", LOOPBACK, "loopback"),
    "kernel-on-allow": (["--network", "on", "--allow-listen"], "kernel", OPEN, "open"),
}

failures = []


def bad(msg):
    failures.append(msg)
    print("FAIL: " + msg, flush=True)


def make_dirs(work, user, tag):
    uid = 0 if user == "root" else NOBODY
    out = {}
    for what in ("project", "home", "xdg"):
        d = os.path.join(work, f"{what}-{user}-{tag}")
        os.makedirs(d)
        os.chown(d, uid, uid)
        os.chmod(d, 0o700)
        out[what] = d
    return out


def run(argv, user, dirs, timeout=120):
    env = {"PATH": "/usr/bin:/bin", "HOME": dirs["home"], "XDG_RUNTIME_DIR": dirs["xdg"], "LANG": "C"}
    full = (SETPRIV if user == "unpriv" else []) + argv
    return subprocess.run(full, capture_output=True, text=True, env=env, timeout=timeout, cwd=dirs["project"])


def violations(dirs):
    log = os.path.join(dirs["xdg"], "ringfence", "violations.jsonl")
    if not os.path.exists(log):
        return []
    with open(log) as f:
        return [json.loads(x) for x in f if x.strip()]


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return None


def racer_in(dirs, racer, user):
    """The racer inside the project: the only host directory every level shows."""
    dst = os.path.join(dirs["project"], "listen_racer")
    shutil.copy2(racer, dst)
    os.chmod(dst, 0o755)
    if user == "unpriv":
        os.chown(dst, NOBODY, NOBODY)
    return dst


def free_port():
    """An unprivileged port free on 127.0.0.1 now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reference(work, racer, user):
    """The probes outside any sandbox: what the host itself gives (IPv6 may be off)."""
    dirs = make_dirs(work, user, "reference")
    r = run([racer_in(dirs, racer, user), "probe", dirs["project"], "rf-listen-ref-" + user, str(free_port())],
            user, dirs)
    return last_json(r.stdout) or {}


def expected_for(table, host):
    """A probe the host itself cannot do (no IPv6 loopback, say) gives the host's answer."""
    out = dict(table)
    for k, v in table.items():
        if v == "OK" and host.get(k, "OK") != "OK":
            out[k] = host[k]
    return out


def check_log(tag, policy, lines, name):
    refused = [x for x in lines if x.get("syscall") in ("bind", "listen", "accept", "accept4")]
    if policy == "open":
        if refused:
            bad(f"{tag}: --allow-listen, yet {len(refused)} server calls were refused: {refused[:2]}")
        return

    def has(what, **want):
        for x in refused:
            if all(x.get(k) == v for k, v in want.items()):
                if x.get("errno") != "EACCES" or x.get("action") != "deny":
                    bad(f"{tag}: the violation line for {what} is not a deny with EACCES: {x}")
                return
        bad(f"{tag}: no violation line for {what} ({len(refused)} server lines)")

    has("bind 0.0.0.0", syscall="bind", family="inet", address="0.0.0.0")
    has("bind ::", syscall="bind", family="inet6", address="::")
    has("listen on an unbound socket", syscall="listen", family="inet", address="0.0.0.0", port=0)
    has("bind 127.0.0.1:80", syscall="bind", family="inet", address="127.0.0.1", port=80)
    has("the abstract bind", syscall="bind", family="unix", address="@" + name)
    if policy == "none":
        has("listen on 127.0.0.1", syscall="listen", family="inet", address="127.0.0.1")
        has("accept4 on an inet socket", syscall="accept4", family="inet")
        has("accept on an inet socket", syscall="accept", family="inet")


def probe_mode(rf, racer, work, user, mode, host):
    args, level, table, policy = MODES[mode]
    tag = f"[{user}] {mode}"
    dirs = make_dirs(work, user, mode)
    name = f"rf-listen-{user}-{mode}"
    argv = [rf, "run", "--no-profile", "--project", dirs["project"], *args, "--",
            racer_in(dirs, racer, user), "probe", dirs["project"], name, str(free_port())]
    r = run(argv, user, dirs)
    if f"ringfence: level {level}," not in r.stderr:
        bad(f"{tag}: did not run at the {level} level: {r.stderr.strip()[:300]}")
        return
    got = last_json(r.stdout)
    if r.returncode != 0 or got is None:
        bad(f"{tag}: the probe failed (exit {r.returncode}): {r.stdout[-300:]} {r.stderr[-300:]}")
        return
    want = expected_for(table, host)
    for k, v in want.items():
        if got.get(k) != v:
            bad(f"{tag}: {k}: expected {v}, got {got.get(k)}")
    for k in ("x32_bind", "x32_listen"):
        if got.get(k) not in X32:
            bad(f"{tag}: {k}: expected ENOSYS or SIGSYS, got {got.get(k)}")
    check_log(tag, policy, violations(dirs), name)
    print(f"ok: {tag}: {sum(got.get(k) == v for k, v in want.items())}/{len(want)} probes as expected",
          flush=True)


STOPPED = "the sandbox was stopped: a unix socket was bound to the abstract name @"


def race_mode(rf, racer, work, user, mode):
    """A thread turns the path of a unix bind into an abstract name after the supervisor's check:
    the kernel binds the abstract name, and the sandbox is stopped (a datagram socket needs no
    listen to receive from the host, and a bound name is squatted); with --allow-listen the same
    race runs to its end."""
    args, level, _table, policy = MODES[mode]
    for kind in ("stream", "dgram"):
        tag = f"[{user}] {mode} {kind} race"
        dirs = make_dirs(work, user, f"{mode}-{kind}-race")
        argv = [rf, "run", "--no-profile", "--project", dirs["project"], *args, "--",
                racer_in(dirs, racer, user), "race", dirs["project"], kind, "1500"]
        r = run(argv, user, dirs)
        got = last_json(r.stdout)
        if policy == "open":
            if r.returncode != 0 or got is None:
                bad(f"{tag}: the racer failed (exit {r.returncode}): {r.stderr[-300:]}")
            elif got["abstract_bound"] == 0:
                print(f"note: {tag}: the race never bound an abstract name (the control shows nothing)")
            continue
        if r.returncode == 0 and got is not None and got["abstract_bound"] == 0:
            print(f"note: {tag}: the race never bound an abstract name in 1.5 s: {got}", flush=True)
            continue
        if r.returncode != 125 or STOPPED not in r.stderr:
            bad(f"{tag}: an abstract name was bound and the sandbox went on (exit {r.returncode}, "
                f"{got}): {r.stderr[-400:]}")
            continue
        if got is not None:
            bad(f"{tag}: the racer finished its loop although the sandbox was stopped: {got}")
        stops = [x for x in violations(dirs) if x.get("syscall") == "bind" and "was stopped" in x.get("rule", "")]
        if len(stops) != 1:
            bad(f"{tag}: the stop has {len(stops)} lines in the violation log, not one")
        print(f"ok: {tag}: stopped once the kernel bound an abstract name", flush=True)


LOG_LIMIT = 2 << 20


def flood(rf, racer, work, user):
    """Refused binds as fast as the supervisor answers: the violation log stops at its limit."""
    tag = f"[{user}] flood"
    dirs = make_dirs(work, user, "flood")
    count = 14000
    r = run([rf, "run", "--no-profile", "--project", dirs["project"], "--network", "on", "--",
             racer_in(dirs, racer, user), "flood", str(count)], user, dirs, timeout=300)
    got = last_json(r.stdout)
    if r.returncode != 0 or got is None or got["refused"] != count:
        bad(f"{tag}: {got} of {count} binds refused (exit {r.returncode}): {r.stderr[-300:]}")
        return
    lines = violations(dirs)
    log = os.path.join(dirs["xdg"], "ringfence", "violations.jsonl")
    size = os.path.getsize(log)
    denials = [x for x in lines if x.get("action") == "deny"]
    if size > LOG_LIMIT:
        bad(f"{tag}: the log holds {size} bytes, over the limit of {LOG_LIMIT}")
    if not lines or lines[-1].get("action") != "log-limit":
        bad(f"{tag}: the last line is not the limit line: {lines[-1:]}")
    if f"{count - len(denials)} denials were not written to the violation log" not in r.stderr:
        bad(f"{tag}: no warning naming the {count - len(denials)} dropped denials: {r.stderr[-300:]!r}")
    print(f"ok: {tag}: {len(denials)} of {count} refusals logged, {size} bytes", flush=True)


def dry_runs(rf, work):
    dirs = make_dirs(work, "root", "dry")
    cases = [
        (["--network", "on"], "servers: bind and listen on loopback only"),
        (["--network", "on", "--allow-listen"], "servers: bind and listen on any address"),
        (["--level", "landlock", "--network", "off"], "servers: bind only to loopback, no inet listen or accept"),
        (["--network", "on", "--allow-unfiltered-network"], None),
    ]
    for args, line in cases:
        r = run([rf, "run", "--no-profile", "--project", dirs["project"], "--dry-run", *args, "--", "true"],
                "root", dirs)
        if r.returncode != 0:
            bad(f"dry-run {args}: exit {r.returncode}: {r.stderr[-300:]}")
        elif line and line not in r.stdout:
            bad(f"dry-run {args}: no '{line}' line")
        elif not line and "servers:" in r.stdout:
            bad(f"dry-run {args}: a servers line without the supervisor")
    profile = os.path.join(dirs["home"], "profile.toml")
    with open(profile, "w") as f:
        f.write("[network]\nallow_listen = true\n")
    r = run([rf, "run", "--profile", profile, "--project", dirs["project"], "--dry-run", "--network", "on",
             "--", "true"], "root", dirs)
    if "servers: bind and listen on any address" not in r.stdout:
        bad(f"profile [network] allow_listen = true: not shown by --dry-run: {r.stdout[-300:]} {r.stderr[-300:]}")
    with open(profile, "w") as f:
        f.write("[network]\nallow_listen = 3\n")
    r = run([rf, "run", "--profile", profile, "--project", dirs["project"], "--dry-run", "--", "true"],
            "root", dirs)
    if r.returncode == 0:
        bad("profile [network] allow_listen = 3 was accepted")
    print("ok: --dry-run and the profile file", flush=True)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: must run as root (it also switches to uid 65534 itself)")
        return SKIP
    rf, racer = (os.path.realpath(p) for p in sys.argv[1:3])
    # Every bind and listen here (0.0.0.0 and :: included, when allowed) happens in a network
    # namespace of the test's own, with only lo: nothing is ever offered to a real network.
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x40000000) != 0:  # CLONE_NEWNET
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    work = tempfile.mkdtemp(prefix="rf-listen-", dir="/tmp")
    os.chmod(work, 0o755)
    stage = os.path.join(work, "bin")
    os.makedirs(stage)
    os.chmod(stage, 0o755)
    for p in (rf, racer):
        shutil.copy2(p, stage)
    rf, racer = (os.path.join(stage, os.path.basename(p)) for p in (rf, racer))
    try:
        dry_runs(rf, work)
        for user in ("root", "unpriv"):
            host = reference(work, racer, user)
            for mode in MODES:
                probe_mode(rf, racer, work, user, mode, host)
            for mode in ("landlock-off", "soft-off", "kernel-on", "kernel-on-allow"):
                race_mode(rf, racer, work, user, mode)
            flood(rf, racer, work, user)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("all listen policy attacks refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
