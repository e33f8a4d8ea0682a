#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The landlock level of `ringfence run`, forced two ways: under a seccomp filter refusing
# CLONE_NEWUSER (the host reaches landlock by itself, as in a Docker container), and with
# `--level landlock` on a host that could do more. As root and as uid 65534. Every attack is
# first made without the sandbox (the control: it works there), then inside, where it must be
# refused: the real home, other projects, writes outside the project, the host's /tmp, /etc's
# secrets, executing from the project with the shell off, signals and ptrace to a process of the
# same uid outside, an abstract unix socket outside, capabilities of a root caller, devices.
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

RINGFENCE, JAIL = stage(sys.argv[1], sys.argv[2])
UNPRIV = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
EACCES, EPERM = 13, 1
failures = []

# Runs inside the sandbox (and once outside, as the control); prints one JSON object: for each
# attempt 0 (it worked) or the errno it failed with.
PROBE = r'''
import ctypes, json, os, socket, subprocess, sys
a = json.loads(sys.argv[1])
out = {}
def attempt(name, fn):
    try:
        fn()
        out[name] = 0
    except OSError as e:
        out[name] = e.errno
def rd(p):
    with open(p, "rb") as f:
        f.read(1)
def wr(p):
    with open(p, "wb") as f:
        f.write(b"x")
def opened(p, flags):
    os.close(os.open(p, flags))
def ptrace_attach(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, pid, 0, 0) != 0:  # PTRACE_ATTACH
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
def abstract(name):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect("\0" + name)
    s.close()
def execute(p):
    subprocess.run([p], check=False)
def unix_path(p):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(p)
    s.close()
tmp = "/tmp/rf-ll-attack-%d" % os.getpid()
attempt("read_real_home", lambda: rd(a["canary"]))
attempt("read_other_project", lambda: rd(a["other_file"]))
attempt("write_project", lambda: wr(os.path.join(a["project"], "written")))
attempt("write_other_project", lambda: wr(os.path.join(a["other"], "written")))
attempt("write_real_home", lambda: wr(os.path.join(a["home"], "written")))
attempt("write_host_tmp", lambda: wr(tmp))
if os.path.exists(tmp) and out["write_host_tmp"] == 0:
    os.unlink(tmp)
attempt("write_tmpdir", lambda: wr(os.path.join(os.environ.get("TMPDIR", "/nonexistent"), "x")))
attempt("write_home", lambda: wr(os.path.join(os.environ["HOME"], "x")))
attempt("read_shadow", lambda: rd("/etc/shadow"))
attempt("read_passwd", lambda: rd("/etc/passwd"))
attempt("read_usr", lambda: rd("/usr/bin/env"))
attempt("exec_project", lambda: execute(os.path.join(a["project"], "mytrue")))
attempt("signal_outside", lambda: os.kill(a["sleeper"], 0))
attempt("signal_parent", lambda: os.kill(os.getppid(), 0))
attempt("proc_mem_outside", lambda: opened("/proc/%d/mem" % a["sleeper"], os.O_RDONLY))
attempt("proc_environ_outside", lambda: rd("/proc/%d/environ" % a["sleeper"]))
attempt("ptrace_outside", lambda: ptrace_attach(a["sleeper"]))
if a.get("abstract"):
    attempt("abstract_connect", lambda: abstract(a["abstract"]))
if a.get("unix_path"):
    attempt("unix_path_outside", lambda: unix_path(a["unix_path"]))
if a.get("unix_path_inside"):
    attempt("unix_path_inside", lambda: unix_path(a["unix_path_inside"]))
attempt("dev_null", lambda: wr("/dev/null"))
attempt("dev_other", lambda: opened(a["devnode"], os.O_RDONLY))
attempt("sysrq", lambda: opened("/proc/sysrq-trigger", os.O_WRONLY))
attempt("proc_sys_write", lambda: opened("/proc/sys/kernel/hostname", os.O_WRONLY))
attempt("read_own_proc", lambda: rd("/proc/self/status"))
status = {}
for line in open("/proc/self/status"):
    k, _, v = line.partition(":")
    status[k] = v.strip()
out["CapEff"] = status.get("CapEff")
out["CapBnd"] = status.get("CapBnd")
out["NoNewPrivs"] = status.get("NoNewPrivs")
out["TMPDIR"] = os.environ.get("TMPDIR", "")
print(json.dumps(out))
'''


def check(name, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


def as_user(user, argv):
    return (UNPRIV if user == "unpriv" else []) + argv


def sandbox(user, mode, args, cwd, env, check_rc=None):
    pre = [JAIL, "--deny-userns", "--"] if mode == "jail" else []
    extra = ["--level", "landlock"] if mode == "level" else []
    return subprocess.run(as_user(user, pre + [RINGFENCE, "run"] + extra + args),
                          capture_output=True, text=True, timeout=60, cwd=cwd, env=env)


def parse(r):
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {}


def no_caps(user, res):
    # A root caller loses the bounding set too; an unprivileged one cannot change it (no
    # CAP_SETPCAP) and has nothing to regain from it under no_new_privs.
    bnd_ok = user != "root" or res.get("CapBnd", "").strip("0") == ""
    return res.get("CapEff") == "0000000000000000" and bnd_ok and res.get("NoNewPrivs") == "1"


def refused(res, key, want=None):
    v = res.get(key)
    return v not in (None, 0) and (want is None or v == want)


def devnode():
    for d in ("/dev/kmsg", "/dev/mem", "/dev/vda", "/dev/sda", "/dev/loop0", "/dev/tty0"):
        if os.path.exists(d):
            return d
    return "/dev/null"


def setup(base, user):
    uid = 65534 if user == "unpriv" else 0
    top = os.path.join(base, user)
    home, proj, other = (os.path.join(top, n) for n in ("home", "proj", "other"))
    for d in (top, home, proj, other, os.path.join(home, ".claude"), os.path.join(home, ".claude", "projects")):
        os.makedirs(d, exist_ok=True)
    files = {os.path.join(home, "canary"): "HOME-CANARY", os.path.join(other, "file"): "OTHER-CANARY",
             os.path.join(home, ".claude", "settings.json"): "{}", os.path.join(home, ".claude", "projects", "s"): "1",
             os.path.join(proj, ".env"): "TOKEN=masked-at-kernel-level"}
    for p, text in files.items():
        with open(p, "w") as f:
            f.write(text)
    shutil.copy("/bin/true", os.path.join(proj, "mytrue"))
    for root, dirs, names in os.walk(top):
        for n in dirs + names + [""]:
            p = os.path.join(root, n) if n else root
            os.chown(p, uid, uid)
            os.chmod(p, 0o755 if os.path.isdir(p) or n == "mytrue" else 0o644)
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C", "XDG_RUNTIME_DIR": ""}
    return home, proj, other, env


def attack_args(home, proj, other, sleeper, abstract_name, unix_path):
    return {"canary": os.path.join(home, "canary"), "other_file": os.path.join(other, "file"), "project": proj,
            "other": other, "home": home, "sleeper": sleeper, "abstract": abstract_name, "devnode": devnode(),
            "unix_path": unix_path, "unix_path_inside": os.path.join(proj, "project.sock")}


def main():
    base = tempfile.mkdtemp(prefix="rf-landlock-")
    os.chmod(base, 0o755)
    abstract_name = f"rf-landlock-test-{os.getpid()}"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind("\0" + abstract_name)
    listener.listen(16)
    listener.setblocking(False)
    sleepers = []
    path_listeners = []
    try:
        for user in ("root", "unpriv"):
            home, proj, other, env = setup(base, user)
            sleeper = subprocess.Popen(as_user(user, ["sleep", "300"]))
            sleepers.append(sleeper)
            # A pathname socket of the host, outside the project (as tmux's or the D-Bus session
            # bus's), refused by the connect policy; one in the project stays reachable.
            sock_path = os.path.join(other, "host.sock")
            for path in (sock_path, os.path.join(proj, "project.sock")):
                pl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                pl.bind(path)
                os.chmod(path, 0o777)
                pl.listen(64)
                path_listeners.append(pl)
            args = json.dumps(attack_args(home, proj, other, sleeper.pid, abstract_name, sock_path))
            probe = ["--", "python3", "-c", PROBE, args]

            # The control: the same attempts with no sandbox at all work.
            r = subprocess.run(as_user(user, ["python3", "-c", PROBE, args]), capture_output=True, text=True,
                               timeout=60, cwd=proj, env=env)
            c = parse(r)
            check(f"{user}: control: without a sandbox the real home is readable", c.get("read_real_home") == 0, r)
            check(f"{user}: control: without a sandbox the same-uid process can be signalled",
                  c.get("signal_outside") == 0, c)
            check(f"{user}: control: without a sandbox the abstract socket answers", c.get("abstract_connect") == 0, c)
            check(f"{user}: control: without a sandbox the host's /tmp is writable", c.get("write_host_tmp") == 0, c)
            if user == "root":
                check("root: control: without a sandbox /etc/shadow is readable", c.get("read_shadow") == 0, c)

            for mode in ("jail", "level"):
                tag = f"{user}, {'userns refused' if mode == 'jail' else '--level landlock'}"
                # Network on without the connect policy: the abstract connect meets Landlock's
                # scoping alone (with the policy, the supervisor refuses it first).
                r = sandbox(user, mode, ["--network", "on", "--allow-unfiltered-network"] + probe, proj, env)
                check(f"{tag}: runs", r.returncode == 0, f"rc={r.returncode} {r.stderr}")
                check(f"{tag}: the level line says landlock", r.stderr.startswith("ringfence: level landlock"),
                      r.stderr)
                res = parse(r)
                check(f"{tag}: the real home is unreadable (EACCES)", refused(res, "read_real_home", EACCES), res)
                check(f"{tag}: another project is unreadable (EACCES)", refused(res, "read_other_project", EACCES),
                      res)
                check(f"{tag}: the project is writable", res.get("write_project") == 0, res)
                check(f"{tag}: writing another project fails", refused(res, "write_other_project", EACCES), res)
                check(f"{tag}: writing the real home fails", refused(res, "write_real_home", EACCES), res)
                check(f"{tag}: the host's /tmp is not writable", refused(res, "write_host_tmp", EACCES), res)
                check(f"{tag}: TMPDIR is private and writable", res.get("write_tmpdir") == 0 and
                      res.get("TMPDIR", "").startswith("/tmp/ringfence-") and "/tmp-" in res.get("TMPDIR", ""), res)
                check(f"{tag}: the throwaway HOME is writable", res.get("write_home") == 0, res)
                check(f"{tag}: /etc/shadow is unreadable", refused(res, "read_shadow", EACCES), res)
                check(f"{tag}: /etc/passwd and /usr are readable",
                      res.get("read_passwd") == 0 and res.get("read_usr") == 0, res)
                check(f"{tag}: shell on: a program in the project runs", res.get("exec_project") == 0, res)
                check(f"{tag}: a same-uid process outside cannot be signalled (EPERM)",
                      refused(res, "signal_outside", EPERM), res)
                check(f"{tag}: the launcher cannot be signalled (EPERM)", refused(res, "signal_parent", EPERM), res)
                check(f"{tag}: /proc/PID/mem of a same-uid process outside is refused",
                      refused(res, "proc_mem_outside"), res)
                check(f"{tag}: /proc/PID/environ of a same-uid process outside is refused",
                      refused(res, "proc_environ_outside"), res)
                check(f"{tag}: ptrace of a same-uid process outside is refused (EPERM)",
                      refused(res, "ptrace_outside", EPERM), res)
                check(f"{tag}: an abstract unix socket outside is refused (EPERM)",
                      refused(res, "abstract_connect", EPERM), res)
                check(f"{tag}: /dev/null works, {devnode()} is refused",
                      res.get("dev_null") == 0 and refused(res, "dev_other"), res)
                check(f"{tag}: /proc/sysrq-trigger and /proc/sys are not writable",
                      refused(res, "sysrq") and refused(res, "proc_sys_write"), res)
                check(f"{tag}: no capability left, no_new_privs", no_caps(user, res), res)
                check(f"{tag}: without the connect policy (--allow-unfiltered-network) a host unix socket is "
                      "reachable, as the dry run says", res.get("unix_path_outside") == 0, res)

                # Edits off and shell off: the project is read-only, and only the command (and
                # its interpreter) may be executed.
                r = sandbox(user, mode, ["--edits", "off", "--shell", "off", "--network", "off"] + probe, proj, env)
                res = parse(r)
                check(f"{tag}: edits off: runs", r.returncode == 0, f"rc={r.returncode} {r.stderr}")
                check(f"{tag}: edits off: the project is read-only (EACCES)",
                      refused(res, "write_project", EACCES), res)
                check(f"{tag}: the connect policy refuses a pathname unix socket of the host outside the "
                      "project (EACCES)", refused(res, "unix_path_outside", EACCES), res)
                check(f"{tag}: a unix socket in the project stays reachable", res.get("unix_path_inside") == 0, res)
                check(f"{tag}: shell off: a program in the project is refused (EACCES)",
                      refused(res, "exec_project", EACCES), res)
                # A static command needs no ELF loader, so none is executable: the loader cannot
                # be used to run another program (syscall_jail is static and execs its argv; a
                # copy in the project, where programs may run).
                jail = os.path.join(proj, "static-exec")
                shutil.copy(JAIL, jail)
                os.chown(jail, 65534 if user == "unpriv" else 0, -1)
                loader = ["--", jail, "--", "/lib64/ld-linux-x86-64.so.2", "/bin/sh", "-c", "echo RAN-VIA-LOADER"]
                r = sandbox(user, mode, ["--shell", "off", "--network", "off"] + loader, proj, env)
                check(f"{tag}: shell off, static command: the ELF loader cannot be executed (EACCES)",
                      "RAN-VIA-LOADER" not in r.stdout and "Permission denied" in r.stderr and
                      "static-exec: Permission denied" not in r.stderr, f"rc={r.returncode} {r.stdout} {r.stderr}")
                r = sandbox(user, mode, ["--network", "off"] + loader, proj, env)
                check(f"{tag}: shell on: the same command runs a shell through the loader (the check can fail)",
                      "RAN-VIA-LOADER" in r.stdout, f"rc={r.returncode} {r.stdout} {r.stderr}")
                os.unlink(jail)

                # The agent's directory: writable entries writable, the rest not, and nothing
                # can be added at its top level.
                script = ("import os\n"
                          "h = os.environ['HOME'] + '/.claude/'\n"
                          "def w(p):\n"
                          "    try:\n"
                          "        open(h + p, 'a').write('x'); return 0\n"
                          "    except OSError as e:\n"
                          "        return e.errno\n"
                          "print(w('projects/s'), w('settings.json'), w('new'), w('hooks'), "
                          "open(h + 'settings.json').read())\n")
                r = sandbox(user, mode, ["--agent", "claude", "--agent-state", "host", "--network", "off", "--",
                                         "python3", "-c", script],
                            proj, env)
                check(f"{tag}: agent: a writable entry is writable, settings.json is not, new entries are refused",
                      r.returncode == 0 and r.stdout.split() == ["0", str(EACCES), str(EACCES), str(EACCES), "{}"] and
                      not os.path.exists(os.path.join(home, ".claude", "new")) and
                      not os.path.exists(os.path.join(home, ".claude", "hooks")), f"{r.stdout} {r.stderr}")

                r = sandbox(user, mode, ["--network", "off", "--dry-run", "--", "true"], proj, env)
                out = r.stdout
                check(f"{tag}: the dry run says landlock and what it does not enforce",
                      "level: landlock" in out and "not enforced: landlock level: masks do not apply" in out
                      and ".git/hooks" in out and "unix sockets: only under" in out and "masked: /etc/shadow" in out,
                      out[:3000])
                r = sandbox(user, mode, ["--require", "landlock", "--", "true"], proj, env)
                check(f"{tag}: --require landlock runs", r.returncode == 0, f"rc={r.returncode} {r.stderr}")
                r = sandbox(user, mode, ["--require", "kernel", "--", "true"], proj, env)
                check(f"{tag}: --require kernel refuses (123)", r.returncode == 123, f"rc={r.returncode} {r.stderr}")

            # The soft level (forced): no filesystem confinement, said in the dry run; still no
            # capability for root.
            r = sandbox(user, "jail", ["--level", "soft", "--"] + probe[1:], proj, env)
            res = parse(r)
            check(f"{user}, --level soft: runs at soft", r.returncode == 0 and
                  r.stderr.startswith("ringfence: level soft"), f"rc={r.returncode} {r.stderr}")
            check(f"{user}, --level soft: the real home is readable (not protected, as declared)",
                  res.get("read_real_home") == 0, res)
            check(f"{user}, --level soft: no capability left, no_new_privs", no_caps(user, res), res)
            r = sandbox(user, "jail", ["--level", "soft", "--dry-run", "--", "true"], proj, env)
            check(f"{user}, --level soft: the dry run lists what is not protected",
                  "level: soft" in r.stdout and "files outside the project are NOT protected" in r.stdout
                  and "masks do not apply" in r.stdout, r.stdout[:3000])
            r = sandbox(user, "jail", ["--level", "kernel", "--dry-run", "--", "true"], proj, env)
            check(f"{user}: --level never raises the level", "level: landlock" in r.stdout, r.stdout[:500])
        try:
            conn, _ = listener.accept()
            conn.close()
            accepted = 1
        except BlockingIOError:
            accepted = 0
        # Only the two controls connected; no sandboxed attempt did.
        pending = 0
        while True:
            try:
                listener.accept()[0].close()
                pending += 1
            except BlockingIOError:
                break
        check("the abstract listener saw only the controls' connections", accepted + pending == 2,
              f"{accepted + pending} connections")
    finally:
        for s in sleepers:
            s.kill()
            s.wait()
        for pl in path_listeners:
            pl.close()
        listener.close()
        shutil.rmtree(base, ignore_errors=True)
    print(f"{'FAIL' if failures else 'PASS'}: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
