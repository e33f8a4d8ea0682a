#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a sandbox sees: the minimal root, its mounts, /dev, /proc, namespaces, hostname and the
loopback interface of a new network namespace (bwrap-compat.md 2.4-2.6)."""

import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import Suite, check, check_eq, host_mount_root, host_ns, mount_at, mounts_at  # noqa: E402

suite = Suite("integration-visible")

DEV_NODES = {"null": "1:3", "zero": "1:5", "full": "1:7", "random": "1:8", "urandom": "1:9",
             "tty": "5:0"}
DEV_LINKS = {"stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1",
             "stderr": "/proc/self/fd/2", "fd": "/proc/self/fd", "core": "/proc/kcore",
             "ptmx": "pts/ptmx"}
PROC_COVERS = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"}


def opts(m):
    return set(m["opts"])


@suite.case()
def root_directory_contents(ctx):
    h = ctx.h
    r = ctx.probe([], ["ls", "/"])
    check(r.rc == 0, f"ls / failed\n  {r.describe()}")
    expected = {"bin": "symlink", "lib": "symlink", "lib64": "symlink", "usr": "dir",
                "proc": "dir", "dev": "dir", "tmp": "dir", h.token: "dir"}
    check_eq(r.json(), expected, "entries of / in the minimal root")
    j = ctx.probe_json([], ["/", "/bin", "/lib", "/lib64", "/oldroot", "/newroot"])
    p = j["paths"]
    check_eq(p["/"]["type"], "dir", "/ type")
    check_eq(p["/"]["mode"], "0755", "mode of the sandbox root")
    check_eq(p["/"]["uid"], ctx.uid, "owner of the sandbox root")
    for link, target in (("/bin", "usr/bin"), ("/lib", "usr/lib"), ("/lib64", "usr/lib64")):
        check_eq(p[link].get("target"), target, f"{link} symlink target")
    check(not p["/oldroot"]["exists"] and not p["/newroot"]["exists"],
          "setup directories /oldroot or /newroot visible in the sandbox")
    r = ctx.probe([], ["ls", "/tmp"])
    check_eq(r.json(), {}, "the new --tmpfs /tmp must be empty (no scratch dirs visible)")


@suite.case()
def mount_table(ctx):
    h = ctx.h
    j = ctx.probe_json()
    points = [m["mnt"] for m in j["mounts"]]
    required = {"/", "/usr", "/proc", "/dev", "/dev/pts", "/tmp", h.probe_dir} | {
        f"/dev/{n}" for n in DEV_NODES}
    missing = required - set(points)
    check(not missing, f"mounts missing in the sandbox: {sorted(missing)}")
    extra = set(points) - required - PROC_COVERS
    check(not extra, f"unexpected mounts in the sandbox: {sorted(extra)}")
    dups = sorted({p for p in points if points.count(p) > 1})
    check(not dups, f"mount points mounted more than once: {dups}")
    for m in j["mounts"]:
        check("oldroot" not in m["mnt"] and "newroot" not in m["mnt"],
              f"setup mount leaked into the sandbox: {m}")
    root = mount_at(j, "/")
    check_eq(root["fstype"], "tmpfs", "fstype of /")
    usr = mount_at(j, "/usr")
    check({"ro", "nosuid", "nodev"} <= opts(usr), f"/usr must be ro,nosuid,nodev: {usr}")
    # a bind shows the source's place in its filesystem: /usr itself on an ordinary host,
    # a longer path where the host's own / is a bind of a subdirectory
    check_eq(usr["root"], host_mount_root("/usr"), "root of the /usr bind")
    proc = mount_at(j, "/proc")
    check_eq((proc["fstype"], proc["source"], proc["root"]), ("proc", "proc", "/"),
             "the /proc mount (fstype, source, root)")
    check({"nosuid", "nodev", "noexec"} <= opts(proc), f"/proc must be nosuid,nodev,noexec: "
                                                       f"{proc}")
    for cover in PROC_COVERS & set(points):
        check("ro" in opts(mount_at(j, cover)), f"{cover} covered but not read-only")
    dev = mount_at(j, "/dev")
    check_eq(dev["fstype"], "tmpfs", "fstype of /dev")
    check({"nosuid", "nodev"} <= opts(dev), f"/dev must be nosuid,nodev: {dev}")
    check("mode=755" in dev["super"], f"/dev tmpfs must be mode=755: {dev}")
    tmp = mount_at(j, "/tmp")
    check_eq(tmp["fstype"], "tmpfs", "fstype of /tmp")
    check({"nosuid", "nodev", "rw"} <= opts(tmp), f"/tmp must be rw,nosuid,nodev: {tmp}")
    check("mode=755" in tmp["super"], f"--tmpfs default mode is 0755: {tmp}")
    pb = mount_at(j, h.probe_dir)
    check({"ro", "nosuid", "nodev"} <= opts(pb), f"--ro-bind must be ro,nosuid,nodev: {pb}")


@suite.case()
def dev_contents(ctx):
    r = ctx.probe([], ["ls", "/dev"])
    check(r.rc == 0, f"ls /dev failed\n  {r.describe()}")
    expected = {n: "chr" for n in DEV_NODES}
    expected.update({n: "symlink" for n in DEV_LINKS})
    expected.update({"pts": "dir", "shm": "dir"})
    check_eq(r.json(), expected, "entries of /dev (stdout is a pipe, so no console)")
    paths = [f"/dev/{n}" for n in list(DEV_NODES) + list(DEV_LINKS)] + ["/dev/pts/ptmx",
                                                                         "/dev/shm"]
    j = ctx.probe_json([], paths)
    for n, dev in DEV_NODES.items():
        check_eq(j["paths"][f"/dev/{n}"].get("dev"), dev, f"device number of /dev/{n}")
        m = mount_at(j, f"/dev/{n}")
        check("nodev" not in opts(m), f"/dev/{n} must allow device access: {m}")
        check("nosuid" in opts(m), f"/dev/{n} must be nosuid: {m}")
    for n, target in DEV_LINKS.items():
        check_eq(j["paths"][f"/dev/{n}"].get("target"), target, f"/dev/{n} symlink target")
    check_eq(j["paths"]["/dev/shm"]["type"], "dir", "/dev/shm type")
    check(not mounts_at(j, "/dev/shm"), "/dev/shm must be a plain directory, not a mount")
    pts = mount_at(j, "/dev/pts")
    check_eq(pts["fstype"], "devpts", "fstype of /dev/pts")
    check({"nosuid", "noexec"} <= opts(pts), f"/dev/pts must be nosuid,noexec: {pts}")
    check({"mode=620", "ptmxmode=666"} <= set(pts["super"]),
          f"/dev/pts must be a new instance with mode=620,ptmxmode=666: {pts}")
    check_eq(j["paths"]["/dev/pts/ptmx"].get("dev"), "5:2", "/dev/pts/ptmx device")
    for path, mode in (("/dev/null", "rw"), ("/dev/zero", "r"), ("/dev/urandom", "r"),
                       ("/dev/ptmx", "rw")):
        r = ctx.probe([], ["open", path, mode])
        check(r.json()["ok"], f"cannot open {path} ({mode}) in the sandbox: {r.stdout}")
    r = ctx.probe([], ["write", "/dev/shm/x"])
    check(r.json()["ok"], f"/dev/shm is not writable: {r.stdout}")


@suite.case()
def proc_is_new_with_pid_ns(ctx):
    hn = host_ns()
    j = ctx.probe_json()
    check(j["ns"]["pid"] != hn["pid"], "--unshare-all did not create a pid namespace")
    check_eq((j["pid"], j["ppid"]), (2, 1), "(pid, ppid) of COMMAND under the pid-1 reaper")
    check(j["pid1_cmdline"], "/proc/1/cmdline unreadable in the sandbox")
    r = ctx.probe([], ["ls", "/proc"])
    pids = sorted(int(k) for k in r.json() if k.isdigit())
    check(pids and pids[0] == 1 and len(pids) <= 3,
          f"/proc must be a procfs of the new pid namespace (pids 1, 2); lists {pids}")
    check(str(os.getpid()) not in r.json() or os.getpid() <= 3,
          "host pids visible in the sandbox's /proc")


@suite.case()
def proc_without_pid_ns_is_host_proc(ctx):
    h = ctx.h
    hn = host_ns()
    root = ["--ro-bind", "/usr", "/usr", "--proc", "/proc"] + h.probe_bind()
    j = ctx.probe_json(root=root)
    check_eq(j["ns"]["pid"], hn["pid"], "pid namespace without --unshare-pid")
    with open("/proc/1/cmdline", "rb") as f:
        host_init = [a.decode() for a in f.read().split(b"\0")[:-1]]
    check_eq(j["pid1_cmdline"], host_init, "/proc/1/cmdline without --unshare-pid (host init)")


@suite.case()
def namespaces_unshare_all(ctx):
    hn = host_ns()
    j = ctx.probe_json()
    for n in ("cgroup", "ipc", "mnt", "net", "pid", "user", "uts"):
        check(j["ns"][n] != hn[n], f"--unshare-all: {n} namespace is the host's")
    check_eq(j["ns"]["time"], hn["time"], "time namespace (never unshared)")


@suite.case()
def namespaces_individually(ctx):
    hn = host_ns()
    base = ctx.h.minimal_root(unshare_all=False)
    j = ctx.probe_json(root=base)
    always = {"mnt"} | ({"user"} if ctx.unpriv else set())
    new = {n for n in hn if j["ns"][n] != hn[n]}
    check_eq(new, always, "namespaces that differ from the host with no --unshare-* option")
    for flag, ns in (("--unshare-ipc", "ipc"), ("--unshare-pid", "pid"), ("--unshare-net", "net"),
                     ("--unshare-uts", "uts"), ("--unshare-cgroup", "cgroup"),
                     ("--unshare-cgroup-try", "cgroup"), ("--unshare-user", "user"),
                     ("--unshare-user-try", "user")):
        j = ctx.probe_json(root=base + [flag])
        new = {n for n in hn if j["ns"][n] != hn[n]}
        check_eq(new, always | {ns}, f"namespaces that differ from the host with {flag}")


@suite.case()
def share_net(ctx):
    hn = host_ns()
    j = ctx.probe_json(["--share-net"])
    check_eq(j["ns"]["net"], hn["net"], "--unshare-all --share-net keeps the host network ns")
    check(j["ns"]["ipc"] != hn["ipc"], "--share-net must not cancel the other namespaces")
    base = ctx.h.minimal_root(unshare_all=False)
    j = ctx.probe_json(root=base + ["--share-net", "--unshare-all"])
    check(j["ns"]["net"] != hn["net"], "--share-net --unshare-all: the later option wins")


@suite.case()
def hostname(ctx):
    host = socket.gethostname()
    j = ctx.probe_json(["--hostname", "rf-sandbox"])
    check_eq(j["hostname"], "rf-sandbox", "hostname with --unshare-uts --hostname")
    check_eq(socket.gethostname(), host, "host hostname after the run")
    j = ctx.probe_json()
    check_eq(j["hostname"], host, "hostname with --unshare-uts only (copy of the host's)")
    j = ctx.probe_json(["--hostname", "first", "--hostname", "second"])
    check_eq(j["hostname"], "second", "repeated --hostname: last wins")


def host_has_ipv6_loopback():
    try:
        with open("/proc/net/if_inet6") as f:
            return any(line.split()[-1] == "lo" for line in f)
    except OSError:
        return False


@suite.case()
def loopback_in_new_netns(ctx):
    hn = host_ns()
    j = ctx.probe_json()
    check(j["ns"]["net"] != hn["net"], "--unshare-all did not create a network namespace")
    names = [i["name"] for i in j["net"]]
    check_eq(names, ["lo"], "interfaces in a new network namespace")
    lo = j["net"][0]
    check(lo["up"] and lo["loopback"], f"lo must be up: {lo}")
    check("127.0.0.1/8" in lo["addrs"], f"lo must carry 127.0.0.1/8: {lo}")
    # bind+listen+connect on 127.0.0.1 inside the sandbox's own namespace only
    r = ctx.probe([], ["tcp", "4"])
    res = r.json()
    check(res["ok"], f"TCP over 127.0.0.1 inside the sandbox failed at {res['stage']}: "
                     f"{res['errno']}")
    if host_has_ipv6_loopback():
        check("::1/128" in lo["addrs"], f"lo must carry ::1 when IPv6 is enabled: {lo}")
        res = ctx.probe([], ["tcp", "6"]).json()
        check(res["ok"], f"TCP over ::1 inside the sandbox failed at {res['stage']}: "
                         f"{res['errno']}")


@suite.case()
def mqueue(ctx):
    j = ctx.probe_json(["--mqueue", "/dev/mqueue"])
    m = mount_at(j, "/dev/mqueue")
    check_eq((m["fstype"], m["source"]), ("mqueue", "mqueue"), "--mqueue mount")


if __name__ == "__main__":
    sys.exit(suite.main())
