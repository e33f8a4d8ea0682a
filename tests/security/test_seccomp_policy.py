#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Attacks on the seccomp policies (threat model SC-01, SC-02, SC-05, SC-10, SC-11, MNT-03,
NET-11, PRIV-01, PRIV-02, PRIV-07, IPC-06, TTY-01..03).

The rules under test are read from `ringfence policy show PROFILE` when the test runs, so a new
line in seccomp/ is attacked without touching this file. Every rule whose decision is not a
plain allow is tried with tests/helpers/try_syscall inside a real `ringfence run --seccomp
PROFILE` sandbox:
  - through the glibc wrapper, a raw syscall(), the i386 ABI (`int $0x80`) and the x32 ABI;
  - for a conditional rule, with arguments on its deny side and on its allow side, and with junk
    in the upper 32 bits of an argument the kernel reads as 32 bits;
  - the answer must be the declared errno (or SIGSYS); an allowed call must answer what it
    answers with no filter at all (the same rows run under Debian's bwrap without --seccomp).
A rule this file cannot exercise fails the test and says which table to extend.

The same rows also run under Debian's bwrap with the program from `ringfence policy compile`
(the compiled BPF must decide as the installed one does), and without any filter (the checks
are not vacuous: a row is counted as discriminating when the kernel alone answers differently).

Each (sandbox, user) is ONE sandbox running a shell script of several hundred try_syscall
calls; results are cached and judged by several cases.

usage: test_seccomp_policy.py RINGFENCE TRY_SYSCALL   (as root; also runs as uid 65534)
"""

import errno
import json
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import (BASE_ENV, SETPRIV, Skip, Suite, check, check_eq, fail, require_program,  # noqa: E402
                    fd_with_data)

suite = Suite("security-seccomp-policy")
PROFILES = ("default", "strict")
SANDBOX_TIMEOUT = 300
BPF_FD = 61

# ------------------------------------------------------------------------------------------------
# Constants the policies' conditions name (x86_64 values). A condition naming a constant that is
# not here fails the coverage case: add it (cross-checked below against python's own modules).

CONSTS = {
    # address families
    "AF_UNSPEC": 0, "AF_UNIX": 1, "AF_LOCAL": 1, "AF_INET": 2, "AF_AX25": 3, "AF_IPX": 4,
    "AF_APPLETALK": 5, "AF_NETROM": 6, "AF_BRIDGE": 7, "AF_ATMPVC": 8, "AF_X25": 9,
    "AF_INET6": 10, "AF_ROSE": 11, "AF_DECnet": 12, "AF_NETBEUI": 13, "AF_SECURITY": 14,
    "AF_KEY": 15, "AF_NETLINK": 16, "AF_ROUTE": 16, "AF_PACKET": 17, "AF_ASH": 18,
    "AF_ECONET": 19, "AF_ATMSVC": 20, "AF_RDS": 21, "AF_SNA": 22, "AF_IRDA": 23,
    "AF_PPPOX": 24, "AF_WANPIPE": 25, "AF_LLC": 26, "AF_IB": 27, "AF_MPLS": 28, "AF_CAN": 29,
    "AF_TIPC": 30, "AF_BLUETOOTH": 31, "AF_IUCV": 32, "AF_RXRPC": 33, "AF_ISDN": 34,
    "AF_PHONET": 35, "AF_IEEE802154": 36, "AF_CAIF": 37, "AF_ALG": 38, "AF_NFC": 39,
    "AF_VSOCK": 40, "AF_KCM": 41, "AF_QIPCRTR": 42, "AF_SMC": 43, "AF_XDP": 44, "AF_MCTP": 45,
    "AF_MAX": 46,
    "SOCK_STREAM": 1, "SOCK_DGRAM": 2, "SOCK_RAW": 3, "SOCK_SEQPACKET": 5,
    "NETLINK_ROUTE": 0, "NETLINK_SOCK_DIAG": 4, "NETLINK_KOBJECT_UEVENT": 15, "NETLINK_GENERIC": 16,
    "IPPROTO_IP": 0, "IPPROTO_ICMP": 1, "IPPROTO_TCP": 6, "IPPROTO_UDP": 17, "IPPROTO_ICMPV6": 58,
    "IPPROTO_SCTP": 132, "IPPROTO_UDPLITE": 136, "IPPROTO_MPTCP": 262,
    # terminal and file ioctls
    "TCGETS": 0x5401, "TCSETS": 0x5402, "TIOCSCTTY": 0x540E, "TIOCGPGRP": 0x540F,
    "TIOCSPGRP": 0x5410, "TIOCSTI": 0x5412, "TIOCGWINSZ": 0x5413, "TIOCSWINSZ": 0x5414,
    "FIONREAD": 0x541B, "TIOCLINUX": 0x541C, "TIOCCONS": 0x541D, "FIONBIO": 0x5421,
    "TIOCNOTTY": 0x5422, "TIOCSETD": 0x5423, "TIOCGETD": 0x5424, "FIOCLEX": 0x5451,
    # clone and unshare
    "CSIGNAL": 0xFF, "CLONE_NEWTIME": 0x80, "CLONE_VM": 0x100, "CLONE_FS": 0x200,
    "CLONE_FILES": 0x400, "CLONE_SIGHAND": 0x800, "CLONE_PIDFD": 0x1000,
    "CLONE_PTRACE": 0x2000, "CLONE_VFORK": 0x4000, "CLONE_PARENT": 0x8000,
    "CLONE_THREAD": 0x10000, "CLONE_NEWNS": 0x20000, "CLONE_SYSVSEM": 0x40000,
    "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000, "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000, "CLONE_NEWNET": 0x40000000,
    "CLONE_IO": 0x80000000, "SIGCHLD": 17,
    # personality
    "PER_LINUX": 0, "PER_LINUX_32BIT": 0x0800000, "PER_SVR4": 0x04100001, "PER_BSD": 6,
    "PER_LINUX32": 8, "UNAME26": 0x0020000, "ADDR_NO_RANDOMIZE": 0x0040000,
    "FDPIC_FUNCPTRS": 0x0080000, "MMAP_PAGE_ZERO": 0x0100000, "ADDR_COMPAT_LAYOUT": 0x0200000,
    "READ_IMPLIES_EXEC": 0x0400000, "ADDR_LIMIT_32BIT": 0x0800000, "SHORT_INODE": 0x1000000,
    "WHOLE_SECONDS": 0x2000000, "STICKY_TIMEOUTS": 0x4000000, "ADDR_LIMIT_3GB": 0x8000000,
    "PER_QUERY": 0xFFFFFFFF,
    # open flags (the libc rows of open and openat depend on them, see LIBC_DROPS_MODE)
    "O_RDONLY": 0, "O_WRONLY": 1, "O_RDWR": 2, "O_CREAT": 0o100, "O_DIRECTORY": 0o200000,
    "O_CLOEXEC": 0o2000000, "O_TMPFILE": 0o20200000,
    # file types and mode bits
    "S_IFREG": 0o100000, "S_IFIFO": 0o10000, "S_ISUID": 0o4000, "S_ISGID": 0o2000,
    "S_ISVTX": 0o1000,
    # IP and IPv6 socket options (levels are the IPPROTO_ numbers above)
    "SOL_SOCKET": 1, "IP_TOS": 1, "IP_OPTIONS": 4, "IP_RETOPTS": 7, "IPPROTO_IPV6": 41,
    "IPV6_2292RTHDR": 5, "IPV6_2292PKTOPTIONS": 6, "IPV6_UNICAST_HOPS": 16, "IPV6_V6ONLY": 26,
    "IPV6_RTHDR": 57,
    # ptrace and prctl options a condition might name
    "PTRACE_TRACEME": 0, "PTRACE_ATTACH": 16, "PTRACE_SEIZE": 0x4206,
    "PR_SET_DUMPABLE": 4, "PR_GET_DUMPABLE": 3, "PR_SET_MM": 35, "PR_SET_PTRACER": 0x59616D61,
}

# try_syscall's runtime values, as the filter sees them: a pid or fd, never 0 or -1.
RUNTIME = {"SELF": 2, "PARENT": 1, "TARGET": 3, "TARGET_PIDFD": 5, "PIPE_R": 4, "PIPE_W": 5}

# Which arguments the KERNEL reads as 32 bits (its SYSCALL_DEFINE types), for every argument a
# condition of the policies looks at. Junk above bit 31 of these must not change the decision,
# so they get --hi32-junk rows. Every conditioned argument must be listed in one of the two.
KERNEL_32BIT = {("ioctl", 1), ("ioctl", 0), ("socket", 0), ("socket", 1), ("socket", 2),
                ("socketpair", 0), ("socketpair", 1), ("socketpair", 2), ("personality", 0),
                ("prctl", 0), ("prlimit64", 0), ("kill", 0), ("kill", 1), ("fcntl", 0),
                ("fcntl", 1),
                # modes are umode_t (the kernel keeps 16 bits), levels and option names int
                ("chmod", 1), ("fchmod", 1), ("fchmodat", 2), ("fchmodat2", 2), ("open", 2),
                ("openat", 3), ("creat", 1), ("mknod", 1), ("mknodat", 2), ("setsockopt", 1),
                ("setsockopt", 2),
                # the kernel keeps the low 32 bits of the legacy clone's flags
                ("clone", 0)}
KERNEL_64BIT = {("unshare", 0),  # ksys_unshare(unsigned long): junk above bit 31 is EINVAL
                ("ptrace", 0), ("ptrace", 1)}

# Arguments for conditional rules: try_syscall value arguments (see `try_syscall --list`). The
# model below decides which side of the condition each set is on; every constant the condition
# names must be exercised on its deny side (`!=` and `&` atoms) or allow side (`==` atoms), and
# both sides must be present. fd 7 is /dev/ptmx (a terminal), opened by the script.
FAMILIES = ["AF_UNSPEC", "AF_AX25", "AF_IPX", "AF_APPLETALK", "AF_NETROM", "AF_ATMPVC", "AF_X25",
            "AF_ROSE", "AF_DECnet", "AF_KEY", "AF_PACKET", "AF_ATMSVC", "AF_RDS", "AF_PPPOX",
            "AF_LLC", "AF_CAN", "AF_TIPC", "AF_BLUETOOTH", "AF_ISDN", "AF_PHONET",
            "AF_IEEE802154", "AF_CAIF", "AF_ALG", "AF_NFC", "AF_VSOCK", "AF_KCM", "AF_QIPCRTR",
            "AF_SMC", "AF_XDP", "AF_MCTP", "AF_MAX"]
NS_FLAGS = ["CLONE_NEWNS", "CLONE_NEWCGROUP", "CLONE_NEWUTS", "CLONE_NEWIPC", "CLONE_NEWUSER",
            "CLONE_NEWPID", "CLONE_NEWNET", "CLONE_NEWTIME"]
SETID_MODES = ["0644", "0755", "01777", "04755", "02755", "06755", "04000", "02000"]
COND_ARGS = {
    "ioctl": [["-1", "TIOCSTI"], ["-1", "TIOCLINUX"], ["-1", "TIOCSETD"],
              ["7", "TIOCSTI"], ["7", "TIOCSETD"], ["7", "TIOCLINUX"],
              ["7", "TCGETS"], ["7", "TIOCGWINSZ"], ["7", "TIOCGETD"], ["PIPE_R", "FIONREAD"],
              ["-1", "TCGETS"]],
    "socket": ([["AF_UNIX"], ["AF_INET"], ["AF_INET6"],
                ["AF_NETLINK", "SOCK_RAW", "NETLINK_ROUTE"], ["AF_INET", "SOCK_DGRAM"],
                ["AF_VSOCK", "SOCK_STREAM"], ["AF_PACKET", "SOCK_RAW"], ["AF_PACKET", "SOCK_DGRAM"],
                ["AF_ALG", "SOCK_SEQPACKET"], ["AF_XDP", "SOCK_RAW"], ["AF_BLUETOOTH", "SOCK_RAW"],
                ["AF_NETLINK", "SOCK_DGRAM"],
                # protocols, by number (try_syscall knows few names): TCP 6, UDP 17, ping 1/58 and
                # MPTCP 262 allowed; UDP-Lite 136 and SCTP 132 refused; netlink sock_diag 4 and
                # uevent 15 allowed, generic 16 refused
                ["AF_INET", "SOCK_STREAM", "6"], ["AF_INET6", "SOCK_STREAM", "6"],
                ["AF_INET", "SOCK_DGRAM", "17"], ["AF_INET6", "SOCK_DGRAM", "17"],
                ["AF_INET", "SOCK_DGRAM", "1"], ["AF_INET6", "SOCK_DGRAM", "58"],
                ["AF_INET", "SOCK_STREAM", "262"], ["AF_INET6", "SOCK_STREAM", "262"],
                ["AF_INET", "SOCK_DGRAM", "136"], ["AF_INET6", "SOCK_DGRAM", "136"],
                ["AF_INET", "SOCK_STREAM", "132"],
                ["AF_NETLINK", "SOCK_RAW", "4"], ["AF_NETLINK", "SOCK_RAW", "15"],
                ["AF_NETLINK", "SOCK_RAW", "16"]]
               + [[f] for f in FAMILIES] + [[str(n)] for n in (47, 63, 255, 0x7fffffff)]),
    "socketpair": ([["AF_UNIX"], ["AF_UNIX", "SOCK_DGRAM"], ["AF_INET"], ["AF_INET6"],
                    ["AF_NETLINK", "SOCK_RAW"], ["AF_TIPC", "SOCK_SEQPACKET"]]
                   + [[f] for f in FAMILIES]),
    "clone": ([["SIGCHLD"], ["CLONE_FILES|SIGCHLD"], ["CLONE_FS|SIGCHLD"],
               ["CLONE_SYSVSEM|SIGCHLD"], ["CLONE_NEWTIME|SIGCHLD"], ["0"]]
              + [[f"{f}|SIGCHLD"] for f in NS_FLAGS if f != "CLONE_NEWTIME"]
              + [["CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWNET|SIGCHLD"]]),
    "unshare": ([["0"], ["CLONE_FILES"], ["CLONE_FS"], ["CLONE_SYSVSEM"]]
                + [[f] for f in NS_FLAGS] + [["CLONE_NEWUSER|CLONE_NEWNS"]]),
    "personality": [["PER_QUERY"], ["PER_LINUX"], ["PER_LINUX32"], ["ADDR_NO_RANDOMIZE"],
                    ["PER_LINUX32|ADDR_NO_RANDOMIZE"], ["READ_IMPLIES_EXEC"],
                    ["MMAP_PAGE_ZERO"], ["ADDR_COMPAT_LAYOUT"], ["ADDR_LIMIT_32BIT"],
                    ["ADDR_LIMIT_3GB"], ["UNAME26"], ["SHORT_INODE"], ["WHOLE_SECONDS"],
                    ["STICKY_TIMEOUTS"], ["PER_SVR4"], ["PER_BSD"],
                    ["ADDR_NO_RANDOMIZE|READ_IMPLIES_EXEC"], ["PER_LINUX32|MMAP_PAGE_ZERO"],
                    ["UNAME26|PER_LINUX32"], ["UNAME26|ADDR_NO_RANDOMIZE"], ["0x0080000"],
                    ["0x0800000"], ["0xfffffffe"]],
    # set-ID mode bits: each alone, both, and modes without them (sticky included)
    "chmod": [[m] for m in SETID_MODES],
    "fchmod": [[m] for m in SETID_MODES],
    "fchmodat": [["-", m] for m in SETID_MODES],
    "fchmodat2": [["-", m] for m in SETID_MODES],
    "open": [["-", m] for m in SETID_MODES + ["0"]],
    "openat": [["-", "-", m] for m in SETID_MODES + ["0"]],
    "creat": [[m] for m in SETID_MODES],
    "mknod": [["S_IFREG|" + m] for m in SETID_MODES] + [["S_IFIFO|0644"], ["S_IFIFO|04755"]],
    "mknodat": [["-", "S_IFREG|" + m] for m in SETID_MODES],
    # source routes: IP_OPTIONS, the IPv6 routing headers; the neighbouring options stay allowed
    "setsockopt": [["-", "IPPROTO_IP", "IP_TOS"], ["-", "IPPROTO_IP", "IP_OPTIONS"],
                   ["-", "IPPROTO_IP", "IPV6_RTHDR"], ["-", "IPPROTO_IPV6", "IPV6_V6ONLY"],
                   ["-", "IPPROTO_IPV6", "IPV6_RTHDR"], ["-", "IPPROTO_IPV6", "IPV6_2292RTHDR"],
                   ["-", "IPPROTO_IPV6", "IPV6_2292PKTOPTIONS"], ["-", "IPPROTO_IPV6", "IP_OPTIONS"],
                   ["-", "IPPROTO_IPV6", "IPV6_UNICAST_HOPS"], ["-", "SOL_SOCKET", "IP_OPTIONS"],
                   ["-", "IPPROTO_TCP", "IPV6_RTHDR"]],
    "prlimit64": [["0"], ["TARGET"], ["SELF"]],
}
# Extra argument sets for unconditional rules (try_syscall's defaults always run too).
EXTRA_ARGS = {
    # pid 0: with its default pid (TARGET) try_syscall makes a child that dies while the
    # tracee is stopped by the resulting SIGCHLD, and try_syscall then hangs
    "ptrace": [["PTRACE_TRACEME", "0"]],
    "keyctl": [["KEYCTL_GET_KEYRING_ID", "KEY_SPEC_USER_KEYRING"]],
    "clone3": [["CLONE_NEWUSER"]],  # flags live in memory: refused whatever they are
}
# glibc wrappers that refuse try_syscall's deliberately invalid arguments themselves, before any
# system call (a valid value would set the host clock if the filter failed): their libc rows
# are reported as skipped, the raw rows cover the call.
LIBC_CHECKS_FIRST = {
    "settimeofday": "glibc turns it into clock_settime and refuses tv_usec >= 1000000 itself",
    "clock_settime": "glibc refuses an out-of-range tv_nsec itself",
}
# glibc's open and openat read their mode argument only with O_CREAT or O_TMPFILE and pass 0
# otherwise: (flags argument, mode argument) of the calls whose libc rows the filter sees so.
LIBC_DROPS_MODE = {"open": (1, 2), "openat": (2, 3)}
O_CREAT_OR_TMPFILE = 0o100 | 0o20000000
# Refused calls the kernel refuses with the same EPERM even to uid 0 with every capability of a
# user namespace (they need capabilities of the initial namespace, or dmesg_restrict is set):
# no row can show the difference the filter makes. process_madvise (strict) needs CAP_SYS_NICE.
KERNEL_REFUSES_ANYWAY = {"swapon", "swapoff", "acct", "syslog", "vhangup", "process_madvise"}
# try_syscall calls that exist only on i386 (multiplexers): ENOSYS whatever the policy
# (docs/seccomp-policy.md, Architectures).
I386_ONLY_ENOSYS = ("socketcall", "ipc")
# Numbers no profile names: the @default answer (SC-04). 462 (mseal) and 463.. are implemented
# by this kernel, so without a filter they do not answer ENOSYS.
UNKNOWN_NUMBERS = [1000, 4000, 512, 547] + list(range(460, 471))


# ------------------------------------------------------------------------------------------------
# The policy model: `policy show` parsed, conditions evaluated in python.


def parse_value(text):
    v = 0
    for tok in text.split("|"):
        tok = tok.strip()
        if re.fullmatch(r"0[xX][0-9a-fA-F]+|[0-9]+", tok):
            v |= int(tok, 0) if not re.fullmatch(r"0[0-7]+", tok) else int(tok, 8)
        elif tok in CONSTS:
            v |= CONSTS[tok]
        else:
            raise KeyError(tok)
    return v


ATOM = re.compile(r"arg([0-5])\s*(?:(==|!=)\s*(\S+)|&\s*(\S+)(?:\s*(==|!=)\s*(\S+))?|in\s+(\S+))$")


def parse_expr(text):
    """'a && b || c' -> [[atom, atom], [atom]]; atom = (arg, op, mask, value)."""
    terms = []
    for term in text.split("||"):
        atoms = []
        for a in term.split("&&"):
            m = ATOM.match(a.strip())
            if not m:
                raise ValueError(f"cannot read comparison {a.strip()!r}")
            arg = int(m.group(1))
            if m.group(2):
                atoms.append((arg, m.group(2), None, parse_value(m.group(3))))
            elif m.group(4) and m.group(5):
                atoms.append((arg, "&" + m.group(5), parse_value(m.group(4)),
                              parse_value(m.group(6))))
            elif m.group(4):
                atoms.append((arg, "&", parse_value(m.group(4)), None))
            else:
                atoms.append((arg, "in", parse_value(m.group(7)), None))
        terms.append(atoms)
    return terms


def eval_expr(terms, args):
    """args: {index: value as the kernel reads it}."""
    def atom(a):
        arg, op, mask, val = a
        x = args[arg]
        return {"==": lambda: x == val, "!=": lambda: x != val,
                "&": lambda: (x & mask) != 0, "&==": lambda: (x & mask) == val,
                "&!=": lambda: (x & mask) != val, "in": lambda: (x & ~mask) == 0}[op]()
    return any(all(atom(a) for a in t) for t in terms)


def parse_action(text):
    text = text.strip()
    if text in ("allow", "log"):
        return ("allow",)
    if text == "kill":
        return ("kill",)
    m = re.fullmatch(r"errno (\w+)", text)
    if m:
        return ("errno", m.group(1))
    raise ValueError(f"unknown action {text!r}")


class Rule:
    def __init__(self, name, decision, where):
        self.name = name
        self.where = where
        self.text = decision
        self.error = None
        if ";" in decision:
            cond, _, act = decision.rpartition(";")
            self.cond_text = cond.strip()
            self.action = parse_action(act)
            try:
                self.terms = parse_expr(self.cond_text)
            except KeyError as e:
                self.terms = []
                self.error = f"unknown constant {e}: add it to CONSTS in {__file__}"
            except ValueError as e:
                self.terms = []
                self.error = f"{e}: teach parse_expr in {__file__} this comparison"
        else:
            self.cond_text = None
            self.terms = None
            self.action = parse_action(decision)

    @property
    def plain_allow(self):
        return self.terms is None and self.action == ("allow",)

    def cond_args(self):
        return sorted({a[0] for t in self.terms for a in t}) if self.terms else []


class Model:
    def __init__(self, profile, text):
        self.profile = profile
        self.rules = {}
        self.default = None
        for line in text.splitlines():
            if not line.strip() or line.startswith("# "):
                continue
            body, _, where = line.partition("  # ")
            if body.startswith("@default "):
                self.default = parse_action(body[len("@default "):])
                continue
            name, sep, decision = body.partition(": ")
            if not sep:
                fail(f"policy show {profile}: cannot read line {line!r}")
            m = re.match(r"(\S+:\d+)", where)
            self.rules[name] = Rule(name, decision, m.group(1) if m else where)
        check(self.default is not None, f"policy show {profile}: no @default line")

    def denying_rules(self):
        return [r for r in self.rules.values() if not r.plain_allow]


# ------------------------------------------------------------------------------------------------
# try_syscall's table


class Call:
    def __init__(self, line):
        parts = line.split()
        self.name, self.nr64, self.nr32 = parts[0], int(parts[1]), int(parts[2])
        self.libc = "[no glibc wrapper]" not in line
        params = line.split("  [")[0].split()[4:]
        self.value_args = []  # (syscall arg index, default text)
        self.fixed = {}
        idx = 0
        for w in params:
            if w.startswith("+"):
                continue
            m = re.match(r"(\w+)([=:!])(.*)", w)
            if m.group(2) == "=":
                self.value_args.append((idx, m.group(3)))
            elif m.group(2) == "!":
                self.fixed[idx] = m.group(3)
            idx += 1

    def arg_values(self, given):
        """{syscall arg index: 64-bit value} for the value and fixed arguments; None where a
        constant is not in CONSTS (an error only if a condition reads that argument)."""
        def value(text):
            if text in RUNTIME:
                return RUNTIME[text]
            if text.startswith("-"):
                return (1 << 64) + int(text, 0)
            try:
                return parse_value(text)
            except KeyError:
                return None
        out = {idx: value(text) for idx, text in self.fixed.items()}
        for i, (idx, default) in enumerate(self.value_args):
            out[idx] = value(given[i] if i < len(given) and given[i] != "-" else default)
        return out


_TABLE = None


def try_table(h):
    global _TABLE
    if _TABLE is None:
        r = subprocess.run([h.host_probe, "--list"], capture_output=True, text=True, timeout=10)
        check(r.returncode == 0, f"try_syscall --list failed: {r.stderr}")
        _TABLE = {c.name: c for c in (Call(line) for line in r.stdout.splitlines()[1:])}
    return _TABLE


_MODELS = {}


def model(h, profile):
    if profile not in _MODELS:
        r = subprocess.run([h.target, "policy", "show", profile], capture_output=True, text=True,
                           timeout=30)
        check(r.returncode == 0, f"ringfence policy show {profile} failed: {r.stderr}")
        _MODELS[profile] = Model(profile, r.stdout)
    return _MODELS[profile]


# ------------------------------------------------------------------------------------------------
# Rows: one try_syscall invocation each, with the decision every profile's model predicts.


class Row:
    def __init__(self, call, via, args, junk=None, why=""):
        self.call = call
        self.via = via
        self.args = list(args)
        self.junk = junk
        self.why = why

    @property
    def key(self):
        return (self.via, self.junk, self.call.name, tuple(self.args))

    def argv(self):
        a = ["./try_syscall", "--via", self.via]
        if self.junk is not None:
            a += ["--hi32-junk", str(self.junk)]
        return a + [self.call.name] + self.args

    def label(self):
        return " ".join(self.argv()[1:])

    def expect(self, m):
        """('allow',) | ('errno', NAME) | ('kill',) under model m."""
        if self.via == "x32":
            return ("kill",)  # x32 numbers are a foreign architecture: bad-arch kill
        if self.call.nr64 < 0 and self.call.name in I386_ONLY_ENOSYS:
            return ("errno", "ENOSYS")
        rule = m.rules.get(self.call.name)
        if rule is None:
            return m.default
        if rule.terms is None:
            return rule.action
        vals = self.call.arg_values(self.args)
        if self.via == "libc" and self.call.name in LIBC_DROPS_MODE:
            flags, mode = LIBC_DROPS_MODE[self.call.name]
            if vals.get(flags) is not None and not vals[flags] & O_CREAT_OR_TMPFILE:
                vals[mode] = 0
        # 32-bit arguments: the filter must decide on what the kernel reads (the low half)
        kernel = {i: (v & 0xFFFFFFFF if (self.call.name, i) in KERNEL_32BIT or self.via == "i386"
                      else v) for i, v in vals.items() if v is not None}
        if any(a not in kernel for a in rule.cond_args()):
            return ("unknown", f"the row gives no value for an argument `{rule.cond_text}` "
                    f"reads")
        return ("allow",) if eval_expr(rule.terms, kernel) else rule.action


_ROWS = None


def build_rows(h):
    """(rows, problems): every row for both profiles, and the rules that cannot be tested."""
    global _ROWS
    if _ROWS is None:
        _ROWS = _build_rows(h)
    return _ROWS


def _build_rows(h):
    table = try_table(h)
    problems = []
    rows = {}

    def add(row):
        rows.setdefault(row.key, row)

    def add_all_vias(call, args, why, junk_args=()):
        add(Row(call, "raw", args, why=why))
        if call.libc and call.name not in LIBC_CHECKS_FIRST:
            add(Row(call, "libc", args, why=why))
        if call.nr32 >= 0:
            add(Row(call, "i386", args, why=why))
        add(Row(call, "x32", args, why=why))
        for j in junk_args:
            add(Row(call, "raw", args, junk=j, why=why))

    for profile in PROFILES:
        m = model(h, profile)
        for rule in m.denying_rules():
            call = table.get(rule.name)
            if call is None or call.nr64 < 0:
                problems.append(f"{profile}: {rule.name} ({rule.text}) cannot be exercised: "
                                f"tests/helpers/try_syscall.c has no entry for it; add it to "
                                f"try_syscall's table (and args here if needed)")
                continue
            if rule.terms is None:
                for args in [[]] + EXTRA_ARGS.get(rule.name, []):
                    add_all_vias(call, args, f"{profile}: {rule.name}: {rule.text}")
                continue
            # conditional rule
            argsets = COND_ARGS.get(rule.name)
            if not argsets:
                problems.append(f"{profile}: conditional rule `{rule.name}: {rule.text}` has no "
                                f"arguments to exercise it: add it to COND_ARGS in {__file__}")
                continue
            if rule.error:
                problems.append(f"{profile}: `{rule.name}: {rule.text}`: {rule.error}")
                continue
            cond_args = rule.cond_args()
            bad = [a for a in cond_args if (rule.name, a) not in KERNEL_32BIT | KERNEL_64BIT]
            if bad:
                problems.append(f"{rule.name}: the condition reads arg{bad[0]}, whose kernel width "
                                f"is unknown here: add ({rule.name!r}, {bad[0]}) to KERNEL_32BIT "
                                f"or KERNEL_64BIT in {__file__}")
                continue
            junk = [a for a in cond_args if (rule.name, a) in KERNEL_32BIT]
            sides = {"deny": [], "allow": []}
            for args in argsets:
                vals = call.arg_values(args)
                unknown = [a for a in cond_args if vals.get(a) is None]
                if unknown:
                    problems.append(f"{rule.name} {args}: arg{unknown[0]} is not a value "
                                    f"argument of try_syscall or names a constant missing from "
                                    f"CONSTS")
                    continue
                ok = eval_expr(rule.terms, {i: v & 0xFFFFFFFF if (rule.name, i) in KERNEL_32BIT
                                            else v for i, v in vals.items()})
                sides["allow" if ok else "deny"].append(vals)
                add_all_vias(call, args, f"{profile}: {rule.name}: {rule.cond_text}", junk)
            for side in ("deny", "allow"):
                if not sides[side]:
                    problems.append(f"{profile}: `{rule.name}: {rule.text}`: no argument set in "
                                    f"COND_ARGS reaches its {side} side: add one")
            # every constant of the condition exercised where it matters
            for t in rule.terms:
                for arg, op, mask, val in t:
                    if op == "!=":
                        if not any(v.get(arg) is not None and v[arg] & 0xFFFFFFFF == val
                                   for v in sides["deny"]):
                            problems.append(f"{rule.name}: arg{arg} == {val:#x} (refused by "
                                            f"`{rule.cond_text}`) is never tried: add it to "
                                            f"COND_ARGS")
                    elif op == "==":
                        if not any(v.get(arg) == val for v in sides["allow"]):
                            problems.append(f"{rule.name}: arg{arg} == {val:#x} (allowed by "
                                            f"`{rule.cond_text}`) is never tried: add it to "
                                            f"COND_ARGS")
                    elif op == "&" or (op == "&==" and val == 0):
                        # each flag of the mask set alone must land on the side it decides
                        side = "allow" if op == "&" else "deny"
                        for bit in range(64):
                            if mask >> bit & 1 and not any(v.get(arg, 0) >> bit & 1
                                                           for v in sides[side]):
                                problems.append(f"{rule.name}: bit {1 << bit:#x} of the mask in "
                                                f"`{rule.cond_text}` is never set on the {side} "
                                                f"side: add it to COND_ARGS")
        # calls no rule names: the @default; calls denied in the other profile but allowed
        # here run there too (cross-profile rows come from the other profile's loop).
        for call in table.values():
            if call.nr64 >= 0 and call.name not in m.rules:
                add_all_vias(call, [], f"{profile}: not named: @default")
    for name in I386_ONLY_ENOSYS:
        call = table.get(name)
        if call and call.nr32 >= 0:
            add(Row(call, "i386", [], why="i386 multiplexer: ENOSYS"))
    # a few plain allowed calls and the x32 kills the threat model names (SC-01)
    for name in ("getpid", "getppid", "getuid", "read", "write", "openat", "uname", "unshare",
                 "keyctl", "mount"):
        if name in table:
            add(Row(table[name], "raw", [], why="allowed sanity / SC-01"))
            add(Row(table[name], "x32", [], why="SC-01: x32 numbers are killed"))
    return list(rows.values()), problems


# ------------------------------------------------------------------------------------------------
# Running rows in a sandbox


def script_for(rows):
    lines = ["# generated by test_seccomp_policy.py", "exec 7<>/dev/ptmx"]
    for i, r in enumerate(rows):
        lines.append(f"echo '@@ {i}'")
        lines.append(" ".join(shlex.quote(a) for a in r.argv()) + " 2>&1")
        lines.append("echo \"@@rc $?\"")
    lines.append("echo '@@ end'")
    return "\n".join(lines) + "\n"


def parse_output(text, n):
    """{row index: (parsed JSON or None, raw text, rc)}"""
    out = {}
    cur, buf = None, []
    for line in text.splitlines():
        if line.startswith("@@rc "):
            if cur is not None:
                raw = "\n".join(buf)
                j = None
                for b in buf:
                    if b.startswith("{"):
                        try:
                            j = json.loads(b)
                        except ValueError:
                            pass
                out[cur] = (j, raw, int(line.split()[1]))
            cur, buf = None, []
        elif line.startswith("@@ "):
            tok = line[3:].strip()
            cur = int(tok) if tok.isdigit() else None
            buf = []
        elif cur is not None:
            buf.append(line)
    return out


def outcome(j):
    """The answer in the terms a policy decides: ('kill', SIG) / ('errno', NAME) / ('ok',) /
    ('unsupported', why)."""
    if j is None:
        return ("none",)
    if "unsupported" in j:
        return ("unsupported", j["unsupported"])
    if "killed_by" in j:
        return ("kill", j["killed_by"])
    if j.get("errno"):
        return ("errno", j["errno_name"] or str(j["errno"]))
    return ("ok",)


_PROJECTS = {}
_RUNS = {}


def project(ctx):
    """The per-user project folder: try_syscall and the call script (owned by the user)."""
    if ctx.user not in _PROJECTS:
        d = ctx.mkdtemp(owned=True)
        dst = os.path.join(d, "try_syscall")
        shutil.copy2(ctx.h.host_probe, dst)
        os.chmod(dst, 0o755)
        os.chown(dst, ctx.uid, ctx.uid)
        _PROJECTS[ctx.user] = d
    return _PROJECTS[ctx.user]


def run_argv(ctx, argv, cwd, pass_fds=(), timeout=SANDBOX_TIMEOUT):
    """Run argv as the case's user in its own session; on timeout kill the session and fail
    with the tail of what it printed (for a call script: the row that hung)."""
    full = (SETPRIV if ctx.unpriv else []) + argv
    p = subprocess.Popen(full, cwd=cwd, env=dict(BASE_ENV), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=pass_fds,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as e:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.kill()
        p.wait()
        fail(f"timed out after {timeout}s: {' '.join(full)}\n  stdout tail="
             f"{(e.output or b'')[-600:]!r}\n  stderr tail={(e.stderr or b'')[-600:]!r}")
    return subprocess.CompletedProcess(full, p.returncode, out, err)


def rf_run_argv(ctx, seccomp, extra=()):
    a = [ctx.h.target, "run", "--no-profile", "--network", "off"]
    if seccomp is not None:
        a += ["--seccomp", seccomp]
    return a + list(extra) + ["--"]


def bwrap_argv(proj, with_fd, caps=False):
    """Debian's bwrap around the project. caps=False: no capabilities, as in ringfence run
    (the reference for allowed calls); caps=True: uid 0 with every capability of the sandbox's
    own user namespace (the kernel's answers when only the filter stands in the way)."""
    a = ["/usr/bin/bwrap", "--unshare-all", "--die-with-parent"]
    a += ["--uid", "0", "--gid", "0", "--cap-add", "ALL"] if caps else ["--cap-drop", "ALL"]
    a += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", proj, proj,
          "--chdir", proj]
    if with_fd:
        a += ["--seccomp", str(BPF_FD)]
    return a + ["--"]


def compiled(ctx, profile):
    out = os.path.join(ctx.h.root, f"{profile}.bpf")
    if not os.path.exists(out):
        r = subprocess.run([ctx.h.target, "policy", "compile", profile, "-o", out],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"policy compile {profile} failed: {r.stderr}")
        os.chmod(out, 0o644)
    with open(out, "rb") as f:
        return f.read()


def run_rows(ctx, target):
    """Run every row in one sandbox. target: ('rf', PROFILE) | ('bwrap', PROFILE) |
    ('bwrap', None) (no filter) | ('bwrap-caps', None) (no filter, capabilities in the
    sandbox's user namespace) | ('rf-file', PATH). Cached per user."""
    key = (ctx.user, target)
    if key in _RUNS:
        return _RUNS[key]
    rows, _ = build_rows(ctx.h)
    proj = project(ctx)
    with open(os.path.join(proj, "calls.sh"), "w") as f:
        f.write(script_for(rows))
    os.chmod(os.path.join(proj, "calls.sh"), 0o644)
    kind, what = target
    fds = ()
    if kind in ("rf", "rf-file"):
        argv = rf_run_argv(ctx, what) + ["sh", "calls.sh"]
    else:
        if what is not None:
            fd_with_data(compiled(ctx, what), BPF_FD)
            fds = (BPF_FD,)
        caps = kind == "bwrap-caps"
        if caps:
            # the calls are harmless by try_syscall's design even for real root; still, the
            # capabilities must be those of a new user namespace, never the host's
            r = run_argv(ctx, bwrap_argv(proj, False, caps) + ["readlink", "/proc/self/ns/user"],
                         proj, timeout=60)
            check(r.returncode == 0 and r.stdout.strip() and r.stdout.strip().decode()
                  != os.readlink("/proc/self/ns/user"),
                  f"bwrap --cap-add ALL is not in a user namespace of its own: {r.stdout!r} "
                  f"{r.stderr!r}")
        argv = bwrap_argv(proj, what is not None, caps) + ["sh", "calls.sh"]
    try:
        p = run_argv(ctx, argv, proj, pass_fds=fds)
    finally:
        if fds:
            os.close(BPF_FD)
    text = p.stdout.decode(errors="replace")
    if "@@ end" not in text:
        fail(f"{target} as {ctx.user}: the call script did not finish (exit {p.returncode})\n"
             f"  argv={' '.join(argv)}\n  stderr={p.stderr.decode(errors='replace')[-2000:]}\n"
             f"  stdout tail={text[-1500:]}")
    res = parse_output(text, len(rows))
    _RUNS[key] = (rows, res, p)
    return _RUNS[key]


def describe(e):
    return {"allow": "allowed", "kill": "killed by SIGSYS"}.get(e[0]) or f"{e[0]} {e[1]}"


def judge(ctx, target, profile):
    """Compare every row of a sandbox run with the model of profile. Returns a summary dict."""
    rows, res, _ = run_rows(ctx, target)
    _, base, _ = run_rows(ctx, ("bwrap", None))
    m = model(ctx.h, profile)
    bad, bad_rows, skipped = [], [], {}
    counts = {}
    for i, r in enumerate(rows):
        exp = r.expect(m)
        j, raw, rc = res.get(i, (None, "(no output)", -1))
        got = outcome(j)
        bj = base.get(i, (None, "", -1))[0]
        bgot = outcome(bj)
        if got[0] == "unsupported":
            skipped.setdefault(f"{r.via}: {got[1]}", []).append(r.label())
            continue
        if got[0] == "none":
            bad.append(f"{r.label()}: try_syscall printed no answer (exit {rc}): {raw[:300]!r}")
            continue
        if exp[0] == "unknown":
            ok, want = False, exp[1]
        elif exp[0] == "allow":
            ok = got == bgot
            want = f"allowed: the answer without a filter, {bgot}"
        elif exp[0] == "kill":
            ok = got == ("kill", "SIGSYS")
            want = "killed by SIGSYS"
        else:
            ok = got == ("errno", exp[1])
            want = f"errno {exp[1]}"
        tag = (r.via + ("+hi32" if r.junk is not None else ""), exp[0])
        counts[tag] = counts.get(tag, 0) + 1
        if not ok:
            bad_rows.append(r)
            rule = m.rules.get(r.call.name)
            bad.append(f"{r.label()}: expected {want}, observed {got}"
                       f"  [rule: {r.call.name}: {rule.text if rule else '(@default)'}"
                       f"{'  # ' + rule.where if rule else ''}]")
    return {"bad": bad, "bad_rows": bad_rows, "skipped": skipped, "counts": counts,
            "rows": len(rows)}


def print_summary(title, s):
    print(f"  {title}: {s['rows']} rows")
    for (via, exp), n in sorted(s["counts"].items()):
        print(f"    {via:10s} expected {exp:6s}: {n}")
    for why, labels in sorted(s["skipped"].items()):
        print(f"    SKIPPED {len(labels)} rows ({why}), e.g. {labels[0]}")


# ------------------------------------------------------------------------------------------------
# Cases


@suite.case(users=("root",))
def every_denying_rule_is_exercised(ctx):
    rows, problems = build_rows(ctx.h)
    # the constants above agree with python's own modules where they have them
    import socket
    import termios
    for name, v in CONSTS.items():
        for mod in (socket, termios, os):
            if hasattr(mod, name) and isinstance(getattr(mod, name), int):
                check_eq(getattr(mod, name), v, f"CONSTS[{name!r}] vs python's {mod.__name__}")
    counts = {}
    for p in PROFILES:
        m = model(ctx.h, p)
        d = m.denying_rules()
        counts[p] = (len(d), sum(1 for r in d if r.terms is not None))
    print(f"  rules attacked: " + ", ".join(f"{p}: {n} ({c} conditional)"
                                            for p, (n, c) in counts.items())
          + f"; {len(rows)} try_syscall rows per sandbox")
    libc_na = sorted({r.call.name for r in rows if not r.call.libc and r.via == "raw"})
    i386_na = sorted({r.call.name for r in rows if r.call.nr32 < 0 and r.via == "raw"})
    print(f"  n/a libc (glibc has no wrapper; raw covers it): {', '.join(libc_na)}")
    for name, why in LIBC_CHECKS_FIRST.items():
        print(f"  SKIPPED libc row of {name}: {why}")
    print(f"  n/a i386 (no i386 call of that name): {', '.join(i386_na) or '-'}")
    hi64 = sorted({f"{n} arg{a}" for n, a in KERNEL_64BIT})
    print(f"  n/a hi32 junk (the kernel reads all 64 bits): {', '.join(hi64)}")
    if problems:
        fail("rules the test cannot exercise:\n  " + "\n  ".join(problems))


def check_profile(ctx, profile, target, title):
    s = judge(ctx, target, profile)
    print_summary(title, s)
    if s["bad"]:
        fail(f"{len(s['bad'])} rows of {title} did not hold:\n  " + "\n  ".join(s["bad"]))


@suite.case()
def default_rules_hold_in_ringfence_run(ctx):
    check_profile(ctx, "default", ("rf", "default"), "ringfence run --seccomp default")


@suite.case()
def strict_rules_hold_in_ringfence_run(ctx):
    check_profile(ctx, "strict", ("rf", "strict"), "ringfence run --seccomp strict")


@suite.case()
def compiled_default_decides_the_same_under_bwrap(ctx):
    """policy compile's program, installed by Debian's bwrap --seccomp, against the same model,
    and row by row against ringfence run."""
    check_profile(ctx, "default", ("bwrap", "default"), "bwrap --seccomp <policy compile default>")
    compare_runs(ctx, ("rf", "default"), ("bwrap", "default"))


@suite.case()
def compiled_strict_decides_the_same_under_bwrap(ctx):
    check_profile(ctx, "strict", ("bwrap", "strict"), "bwrap --seccomp <policy compile strict>")
    compare_runs(ctx, ("rf", "strict"), ("bwrap", "strict"))


def compare_runs(ctx, a, b):
    rows, ra, _ = run_rows(ctx, a)
    _, rb, _ = run_rows(ctx, b)
    prof = a[1]
    m = model(ctx.h, prof)
    diff = []
    for i, r in enumerate(rows):
        if r.expect(m)[0] == "allow":
            continue  # allowed calls depend on the sandbox around them, not on the filter
        oa, ob = outcome(ra.get(i, (None,))[0]), outcome(rb.get(i, (None,))[0])
        if oa != ob:
            diff.append(f"{r.label()}: ringfence run {oa}, bwrap+compiled {ob}")
    if diff:
        fail("the compiled program and ringfence run disagree:\n  " + "\n  ".join(diff))


@suite.case()
def checks_are_not_vacuous(ctx):
    """Without a filter the refused calls answer differently: the filter, not the kernel, gives
    the answers the other cases check. The reference is Debian's bwrap running the same rows as
    uid 0 with every capability of its own user namespace: without capabilities (as in ringfence
    run) the kernel itself refuses most of these calls with EPERM, and only the filter's ENOSYS
    or EAFNOSUPPORT would tell the two apart."""
    rows, base, _ = run_rows(ctx, ("bwrap-caps", None))
    disc = {}   # (profile, call) -> [discriminating?] over its raw, libc and hi32 rows
    for p in PROFILES:
        m = model(ctx.h, p)
        for i, r in enumerate(rows):
            exp = r.expect(m)
            if exp[0] == "allow" or r.via in ("i386", "x32"):
                continue
            got = outcome(base.get(i, (None,))[0])
            check(got[0] != "none", f"no answer without a filter for {r.label()}")
            d = not ((exp[0] == "errno" and got == ("errno", exp[1]))
                     or (exp[0] == "kill" and got[0] == "kill"))
            disc.setdefault((p, r.call.name), []).append(d)
    n_rows = sum(len(v) for v in disc.values())
    n_disc = sum(sum(v) for v in disc.values())
    print(f"  {n_disc} of {n_rows} refused rows (raw, libc, hi32) answer differently without "
          f"the filter")
    partly = sorted(f"{p}:{n} {len(v) - sum(v)}/{len(v)}" for (p, n), v in disc.items()
                    if not all(v))
    if partly:
        print("  rows the kernel alone answers the same way, per call (still checked, but "
              "alone they would not notice a missing rule): " + ", ".join(partly))
    blind = sorted({n for (p, n), v in disc.items() if not any(v)})
    print(f"  calls with no discriminating row: {', '.join(blind) or '-'} (expected: "
          f"{', '.join(sorted(KERNEL_REFUSES_ANYWAY))})")
    unexplained = [n for n in blind if n not in KERNEL_REFUSES_ANYWAY]
    check(not unexplained, "no row of these refused calls answers differently without the "
          f"filter, so nothing shows the rule is in force: {', '.join(unexplained)}. Give "
          f"try_syscall arguments the kernel accepts, or, if the kernel refuses the call in any "
          f"sandbox, add it to KERNEL_REFUSES_ANYWAY")
    # the judge itself flags a sandbox without the filter: judged as if it were the profile,
    # the unfiltered run must fail rows of every refused call that can discriminate
    for p in PROFILES:
        s = judge(ctx, ("bwrap-caps", None), p)
        flagged = {r.call.name for r in s["bad_rows"]}
        missed = sorted(n for (q, n), v in disc.items() if q == p and any(v) and n not in flagged)
        check(not missed, f"{p}: judged against the {p} model, the run without a filter passes "
              f"for {', '.join(missed)}: the judge would not notice these rules missing")
        print(f"  {p}: the judge flags {len(s['bad'])} rows of the unfiltered run "
              f"({len(flagged)} calls)")
    # x32: the kernel has no x32 ABI here (ENOSYS), the filter kills
    idx = {r.key: i for i, r in enumerate(rows)}
    got = outcome(base[idx[("x32", None, "getpid", ())]][0])
    check_eq(got, ("errno", "ENOSYS"), "without a filter, x32 getpid")


@suite.case()
def permissive_policy_file_still_gets_always_policy(ctx):
    """A policy file of its own (`@default allow`) lifts the profile's ENOSYS default, so the
    left-out calls reach the kernel, but deny/always.policy and the x32 kill still apply."""
    d = ctx.mkdtemp(owned=True)
    pol = os.path.join(d, "permissive.policy")
    with open(pol, "w") as f:
        f.write("# test: everything allowed that always.policy does not refuse\n@default allow\n")
    os.chmod(pol, 0o644)
    r = subprocess.run([ctx.h.target, "policy", "show", pol], capture_output=True, text=True,
                       timeout=30)
    check(r.returncode == 0, f"policy show {pol}: {r.stderr}")
    m = Model("permissive", r.stdout)
    check_eq(m.default, ("allow",), "@default of the permissive file")
    _MODELS[pol] = m
    for p in PROFILES:
        # the always rules are the same set in every profile
        for rule in model(ctx.h, p).denying_rules():
            if "deny/always.policy" in rule.where:
                check(rule.name in m.rules and m.rules[rule.name].text == rule.text,
                      f"{rule.name}: {rule.text} from always.policy is missing in a file policy")
    proj = project(ctx)
    shutil.copy(pol, os.path.join(proj, "permissive.policy"))
    s = judge(ctx, ("rf-file", "permissive.policy"), pol)
    print_summary("ringfence run --seccomp permissive.policy", s)
    if s["bad"]:
        fail(f"{len(s['bad'])} rows did not hold:\n  " + "\n  ".join(s["bad"]))
    # and the same left-out calls answer differently from the default profile: the profile's
    # default is really in force there
    rows, rd, _ = run_rows(ctx, ("rf", "default"))
    _, rp, _ = run_rows(ctx, ("rf-file", "permissive.policy"))
    differ = [r.label() for i, r in enumerate(rows)
              if r.via == "raw" and outcome(rd[i][0]) != outcome(rp[i][0])]
    print(f"  {len(differ)} raw rows answer differently under default and the permissive file, "
          f"e.g. {', '.join(differ[:6])}")
    check(any(x.startswith("--via raw sethostname") or "memfd_secret" in x for x in differ),
          "sethostname/memfd_secret answer the same with and without the default profile")


@suite.case()
def i386_abi(ctx):
    """int $0x80 from a 64-bit process: the rules apply there too. Skipped (with the kernel's
    reason) where the host cannot take i386 calls at all."""
    r = subprocess.run([ctx.h.host_probe, "--via", "i386", "getpid"], capture_output=True,
                       text=True, timeout=10)
    j = json.loads(r.stdout)
    if "unsupported" in j:
        raise Skip(f"i386 rows not run on this host: {j['unsupported']} (every i386 row of the "
                   f"other cases is reported as SKIPPED)")
    for p in PROFILES:
        s = judge(ctx, ("rf", p), p)
        n = sum(v for (via, _), v in s["counts"].items() if via == "i386")
        check(n > 0, f"{p}: no i386 row was judged")


def sandbox_python(ctx, profile, code, proj=None):
    proj = proj or project(ctx)
    argv = rf_run_argv(ctx, profile) + ["/usr/bin/python3", "-c", code]
    return run_argv(ctx, argv, proj, timeout=120)


UNKNOWN_SWEEP = r'''
import ctypes, json, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = {}
for nr in %s:
    ctypes.set_errno(0)
    z = ctypes.c_long(0)
    r = libc.syscall(ctypes.c_long(nr), z, z, z, z, z, z)
    out[nr] = [r, ctypes.get_errno()]
print(json.dumps(out))
''' % (UNKNOWN_NUMBERS,)


@suite.case()
def unknown_syscall_numbers_get_enosys(ctx):
    """Numbers no profile names, including calls newer than libseccomp's table (mseal 462,
    setxattrat 463, ...): ENOSYS (SC-04). try_syscall takes names only, so the sweep is made
    with python's ctypes, one raw syscall() per number."""
    require_program("/usr/bin/python3", "python3", "the ctypes sweep")
    results = {}
    for p in PROFILES:
        r = sandbox_python(ctx, p, UNKNOWN_SWEEP)
        check_eq(r.returncode, 0, f"{p}: sweep exit (stderr {r.stderr[-500:]!r})")
        results[p] = json.loads(r.stdout)
        for nr, (ret, err) in results[p].items():
            check_eq((ret, err), (-1, 38), f"{p}: syscall {nr}")
    # without a filter: mseal (462) exists on this kernel and does not answer ENOSYS
    proj = project(ctx)
    r = run_argv(ctx, bwrap_argv(proj, False) + ["/usr/bin/python3", "-c", UNKNOWN_SWEEP], proj)
    check_eq(r.returncode, 0, f"sweep without a filter: {r.stderr[-500:]!r}")
    bare = json.loads(r.stdout)
    reach = [nr for nr, (ret, err) in bare.items() if err != 38]
    print(f"  without a filter these numbers reach the kernel: {', '.join(reach)}")
    check(reach, "every swept number answers ENOSYS even without a filter: the sweep "
          "shows nothing on this kernel")


SWEEP = r"""
import ctypes, json, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "?"

out = {}
for nr in json.loads(sys.argv[1]):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        # fd 0 becomes a private pipe: zero arguments name fd 0, and a call such as fchmod(0, 0)
        # must never reach the caller's stdin (the host's /dev/null)
        pr, pw = os.pipe()
        os.dup2(pr, 0)
        z = ctypes.c_long(0)
        ret = libc.syscall(ctypes.c_long(nr), z, z, z, z, z, z)
        err = ctypes.get_errno()
        os.write(w, json.dumps([ret, err]).encode())
        os._exit(0)
    os.close(w)
    # A call that blocks (pause, select without a timeout, ...) leaves the child asleep: after
    # 0.2 s asleep or stopped it is ended and counted as blocked. A child that is only slow to
    # get there on a busy host is still running and is waited for, up to 30 s.
    start = time.monotonic()
    blocked = False
    while True:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            break
        waited = time.monotonic() - start
        if (waited > 0.2 and state(pid) in ("S", "T", "t")) or waited > 30:
            blocked = True
            os.kill(pid, signal.SIGKILL)
            p, st = os.waitpid(pid, 0)
            break
        time.sleep(0.002)
    data = os.read(r, 200)
    os.close(r)
    if data:
        out[nr] = ["ret"] + json.loads(data)
    elif blocked:
        out[nr] = ["blocked"]
    elif os.WIFSIGNALED(st):
        out[nr] = ["signal", signal.Signals(os.WTERMSIG(st)).name]
    else:
        out[nr] = ["exit", os.WEXITSTATUS(st)]
print(json.dumps(out))
"""
# Numbers the sweep leaves out, and where they are covered instead: they create processes
# that would run on inside the sweep, or stop the caller under a tracer.
SWEEP_SKIP = {56: "clone (rows of clone)", 57: "fork", 58: "vfork", 435: "clone3 (rows)",
              101: "ptrace (rows of ptrace)"}
# Calls the kernel lets through seccomp itself (the uprobe trampolines): whatever the policy
# says, they answer as without a filter.
SECCOMP_EXEMPT = {335: "uretprobe", 336: "uprobe"}
# Allowed calls whose answer depends on a filter being installed at all, whatever it allows:
# seccomp(SECCOMP_SET_MODE_STRICT) cannot switch a filtered process to strict mode.
UNDER_ANY_FILTER = {317: ("errno", "EINVAL")}
SWEEP_MAX = 600


def sweep_outcome(v):
    import errno as errno_mod
    if v[0] == "ret":
        return ("ok",) if v[1] >= 0 else ("errno", errno_mod.errorcode.get(v[2], str(v[2])))
    if v[0] == "signal":
        return ("kill", v[1])
    if v[0] == "blocked":
        return ("blocked",)
    return ("exit", v[1])


def numbers_of(h, profile):
    """{x86_64 syscall number: name} for every call the profile names (libseccomp's pseudo code
    gives the numbers)."""
    r = subprocess.run([h.target, "policy", "show", profile, "--pfc"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, f"policy show {profile} --pfc: {r.stderr}")
    out, native = {}, False
    for line in r.stdout.splitlines():
        m = re.search(r"# filter for arch (\S+)", line)
        if m:
            native = m.group(1) == "x86_64"
            continue
        m = re.search(r'# filter for syscall "(\w+)" \((\d+)\)', line)
        if m and native:
            out[int(m.group(2))] = m.group(1)
    return out


@suite.case()
def every_syscall_number_decides_as_policy_show_says(ctx):
    """SC-04: every x86_64 number from 0 to 600, with zero arguments, under each profile. A
    number the profile names gets its rule (conditions evaluated on zero arguments): refused
    ones their declared answer, allowed ones the answer they give with no filter; every other
    number the @default. This checks the allow list too, not only the refusals."""
    require_program("/usr/bin/python3", "python3", "the sweep")
    nums = [n for n in range(SWEEP_MAX + 1) if n not in SWEEP_SKIP]
    proj = project(ctx)
    with open(os.path.join(proj, "sweep.py"), "w") as f:
        f.write(SWEEP)
    os.chmod(os.path.join(proj, "sweep.py"), 0o644)
    arg = json.dumps(nums)
    r = run_argv(ctx, bwrap_argv(proj, False) + ["/usr/bin/python3", "sweep.py", arg], proj)
    check(r.returncode == 0, f"sweep without a filter: exit {r.returncode} {r.stderr[-800:]!r}")
    bare = {int(k): sweep_outcome(v) for k, v in json.loads(r.stdout).items()}
    for p in PROFILES:
        m = model(ctx.h, p)
        named = numbers_of(ctx.h, p)
        # libseccomp leaves out rules whose action is the default's (clone3, io_uring: ENOSYS)
        missing = sorted(n for n in set(m.rules) - set(named.values())
                         if m.rules[n].terms is not None or m.rules[n].action != m.default)
        check(not missing, f"{p}: policy show names calls the pseudo code does not: {missing}")
        r = run_argv(ctx, rf_run_argv(ctx, p) + ["/usr/bin/python3", "sweep.py", arg], proj)
        check(r.returncode == 0, f"{p}: sweep exit {r.returncode} {r.stderr[-800:]!r}")
        got = {int(k): sweep_outcome(v) for k, v in json.loads(r.stdout).items()}
        bad, allowed = [], 0
        for n in nums:
            name = named.get(n)
            rule = m.rules.get(name) if name else None
            if n in SECCOMP_EXEMPT:
                exp = ("allow",)
            elif rule is None:
                exp = m.default
            elif rule.terms is None:
                exp = rule.action
            else:
                exp = ("allow",) if eval_expr(rule.terms, dict.fromkeys(range(6), 0)) \
                    else rule.action
            if exp[0] == "allow" and n in UNDER_ANY_FILTER:
                allowed += 1
                ok, want = got.get(n) == UNDER_ANY_FILTER[n], f"allowed: {UNDER_ANY_FILTER[n]}"
            elif exp[0] == "allow":
                allowed += 1
                ok, want = got.get(n) == bare.get(n), f"allowed: as without a filter {bare.get(n)}"
            elif exp[0] == "kill":
                ok, want = got.get(n) == ("kill", "SIGSYS"), "killed by SIGSYS"
            else:
                ok, want = got.get(n) == ("errno", exp[1]), f"errno {exp[1]}"
            if not ok:
                bad.append(f"{n} ({name or 'not named'}): expected {want}, observed {got.get(n)}")
        print(f"  {p}: {len(nums)} numbers, {allowed} allowed ({len(named)} named); not swept: "
              + ", ".join(f"{k} {v}" for k, v in sorted(SWEEP_SKIP.items())))
        if bad:
            fail(f"{p}: {len(bad)} numbers did not answer as the policy says:\n  "
                 + "\n  ".join(bad))


# ---- set-ID files and personas, attacked through a real project


SETID_ATTACK = r"""
import ctypes, errno, json, os, stat, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT_FDCWD = -100
out = {}

def rec(name, fn):
    try:
        fn()
        out[name] = 0
    except OSError as e:
        out[name] = e.errno

def raw(nr, *args):
    def go():
        ctypes.set_errno(0)
        a = [ctypes.c_long(x) if isinstance(x, int) else ctypes.c_char_p(x) for x in args]
        if libc.syscall(ctypes.c_long(nr), *a) < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    return go

def victim(name):
    with open(name, "wb") as f:
        f.write(b"#!/bin/sh\nid\n")
    os.chmod(name, 0o755)
    return name

for bits, tag in ((0o4000, "u+s"), (0o2000, "g+s")):
    mode = 0o755 | bits
    rec(f"chmod {tag}", lambda: os.chmod(victim(f"v-chmod-{tag}"), mode))
    def fch():
        fd = os.open(victim(f"v-fchmod-{tag}"), os.O_RDONLY)
        try:
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
    rec(f"fchmod {tag}", fch)
    def fchat():
        d = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.chmod(victim(f"v-fchmodat-{tag}"), mode, dir_fd=d)
        finally:
            os.close(d)
    rec(f"fchmodat {tag}", fchat)
    rec(f"raw chmod {tag}", raw(90, victim(f"v-rchmod-{tag}").encode(), mode))
    def rfch():
        fd = os.open(victim(f"v-rfchmod-{tag}"), os.O_RDONLY)
        try:
            raw(91, fd, mode)()
        finally:
            os.close(fd)
    rec(f"raw fchmod {tag}", rfch)
    rec(f"raw fchmodat {tag}", raw(268, AT_FDCWD, victim(f"v-rfchmodat-{tag}").encode(), mode))
    rec(f"raw fchmodat2 {tag}", raw(452, AT_FDCWD, victim(f"v-rfchmodat2-{tag}").encode(), mode, 0))
    # with the upper half of the mode register set: the kernel keeps 16 bits
    rec(f"raw chmod {tag} hi32", raw(90, victim(f"v-rchmodhi-{tag}").encode(), mode | 0xdead << 48))
    def create():
        os.close(os.open(f"n-open-{tag}", os.O_CREAT | os.O_WRONLY | os.O_EXCL, mode))
    rec(f"open O_CREAT {tag}", create)
    rec(f"raw openat O_CREAT {tag}", raw(257, AT_FDCWD, f"n-openat-{tag}".encode(),
                                       os.O_CREAT | os.O_WRONLY | os.O_EXCL, mode))
    rec(f"raw creat {tag}", raw(85, f"n-creat-{tag}".encode(), mode))
    def tmpfile():
        here = os.getcwd()
        fd = os.open(here, os.O_TMPFILE | os.O_WRONLY, mode)
        try:
            os.link(f"/proc/self/fd/{fd}", os.path.join(here, f"n-tmpfile-{tag}"))
        finally:
            os.close(fd)
    rec(f"O_TMPFILE {tag}", tmpfile)
    rec(f"mknod S_IFREG {tag}", lambda: os.mknod(f"n-mknod-{tag}", stat.S_IFREG | mode))
    how = ctypes.create_string_buffer(struct.pack("QQQ", os.O_CREAT | os.O_WRONLY, mode, 0), 24)
    rec(f"raw openat2 {tag}", raw(437, AT_FDCWD, f"n-openat2-{tag}".encode(), ctypes.addressof(how), 24))
# file capabilities: VFS_CAP_REVISION_2 with CAP_SETUID permitted and effective
fcap = struct.pack("<IIIII", 0x02000001, 1 << 7, 0, 0, 0)
rec("setxattr security.capability", lambda: os.setxattr(victim("v-fcap"), "security.capability", fcap))
# controls: ordinary modes still change, ordinary files are still made
rec("control chmod 0700", lambda: os.chmod(victim("v-control"), 0o700))
rec("control open 0644", lambda: os.close(os.open("n-control", os.O_CREAT | os.O_WRONLY, 0o644)))
# personas
libc.personality.restype = ctypes.c_int
def pers(p):
    def go():
        ctypes.set_errno(0)
        if libc.personality(ctypes.c_ulong(p)) == -1:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    return go
rec("personality ADDR_NO_RANDOMIZE", pers(0x0040000))
rec("personality PER_LINUX32|ADDR_NO_RANDOMIZE", pers(0x0040008))
rec("personality READ_IMPLIES_EXEC", pers(0x0400000))
rec("control personality query", pers(0xffffffff))
with open("/proc/self/personality") as f:
    out["personality after"] = f.read().strip()
rec("control personality UNAME26", pers(0x0020000))
rec("control personality PER_LINUX", pers(0))
mounts = [l.split() for l in open("/proc/self/mountinfo")]
out["project mount"] = [m[5] for m in mounts if m[4] == os.getcwd()]
print(json.dumps(out))
"""
FCAP = "security.capability"


@suite.case()
def setid_files_and_personas_refused(ctx):
    """A set-user-ID or set-group-ID file, or one with file capabilities, made inside the sandbox
    in the project keeps its mode on the host, where the next user runs it as its owner (root
    when the sandbox ran as root). Every way seccomp can see is tried in `ringfence run` (its
    default profile, and --seccomp default and strict): chmod, fchmod, fchmodat, fchmodat2 through
    glibc and raw syscalls (with junk above the 16 bits of the mode), open/openat/creat with
    O_CREAT, O_TMPFILE then link, mknod(S_IFREG), openat2, setxattr(security.capability). Each
    must fail with EPERM (openat2: ENOSYS) and no file in the project may have the bits or the
    attribute afterwards, seen from the host. The project mount is nosuid. personality()
    refuses ADDR_NO_RANDOMIZE and READ_IMPLIES_EXEC; the query and UNAME26 work."""
    require_program("/usr/bin/python3", "python3", "the attack script")
    for profile in (None, "default", "strict"):
        label = profile or "ringfence run's own default"
        proj = ctx.mkdtemp(owned=True)
        with open(os.path.join(proj, "attack.py"), "w") as f:
            f.write(SETID_ATTACK)
        os.chmod(os.path.join(proj, "attack.py"), 0o644)
        r = run_argv(ctx, rf_run_argv(ctx, profile) + ["/usr/bin/python3", "attack.py"], proj,
                     timeout=120)
        check_eq(r.returncode, 0, f"{label}: attack script exit (stderr {r.stderr[-800:]!r})")
        res = json.loads(r.stdout.decode().strip().splitlines()[-1])
        wrong = []
        for name, err in sorted(res.items()):
            if name in ("personality after", "project mount"):
                continue
            want = 0 if name.startswith("control") else 38 if "openat2" in name else 1
            if err != want:
                wrong.append(f"{name}: errno {err} ({errno.errorcode.get(err, 'success')}), "
                             f"expected {errno.errorcode.get(want, 'success')}")
        if res["personality after"] != "00000000":
            wrong.append(f"/proc/self/personality after the refused personas: "
                         f"{res['personality after']}")
        check(len(res["project mount"]) == 1 and "nosuid" in res["project mount"][0].split(","),
              f"{label}: the project mount is not nosuid: {res['project mount']}")
        marked = []
        for name in sorted(os.listdir(proj)):
            st = os.lstat(os.path.join(proj, name))
            if st.st_mode & (stat.S_ISUID | stat.S_ISGID):
                marked.append(f"{name} {stat.filemode(st.st_mode)}")
            try:
                os.getxattr(os.path.join(proj, name), FCAP, follow_symlinks=False)
                marked.append(f"{name} has {FCAP}")
            except OSError as e:
                check(e.errno in (errno.ENODATA, errno.ENOTSUP), f"getxattr {name}: {e}")
        if marked:
            wrong.append(f"set-ID files on the host after the run: {', '.join(marked)}")
        check(not wrong, f"{label}: {len(wrong)} attacks not refused:\n  " + "\n  ".join(wrong))
        made = sorted(n for n in os.listdir(proj) if n.startswith("v-"))
        check(len(made) == 18, f"{label}: the victims were not all made ({made})")
        print(f"  {label}: {len(res) - 2} calls judged, {len(made)} victim files, none set-ID; "
              f"project mount {res['project mount'][0]}")


# ---- workloads


HELLO_C = r'''
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "x32") == 0) syscall(39 | 0x40000000);  /* killed */
  printf("hello from cc pid=%d\n", (int)getpid());
  return argc > 1 ? 7 : 0;
}
'''


def rf_sh(ctx, profile, script, proj, timeout=180):
    return run_argv(ctx, rf_run_argv(ctx, profile) + ["sh", "-c", script], proj,
                    timeout=timeout)


@suite.case()
def ordinary_workloads_run(ctx):
    """sh, cc and the program it builds, git, python3 and exit codes, under both profiles."""
    require_program("/usr/bin/cc", "g++ (cc)", "the C build")
    require_program("/usr/bin/git", "git", "the git workload")
    for p in PROFILES:
        proj = ctx.mkdtemp(owned=True)
        with open(os.path.join(proj, "hello.c"), "w") as f:
            f.write(HELLO_C)
        os.chown(os.path.join(proj, "hello.c"), ctx.uid, ctx.uid)

        r = rf_sh(ctx, p, "echo shell ok; ls / >/dev/null && cat /etc/hostname >/dev/null; "
                  "echo $((6*7))", proj)
        check_eq((r.returncode, r.stdout.decode().split()), (0, ["shell", "ok", "42"]),
                 f"{p}: sh (stderr {r.stderr!r})")
        r = rf_sh(ctx, p, "cc -O1 -o hello hello.c && ./hello", proj)
        check(r.returncode == 0 and b"hello from cc" in r.stdout,
              f"{p}: cc + run: exit {r.returncode}\n  stdout={r.stdout!r}\n  stderr={r.stderr!r}")
        check(os.path.exists(os.path.join(proj, "hello")), f"{p}: the binary is in the project")
        r = rf_sh(ctx, p, "./hello arg", proj)
        check_eq(r.returncode, 7, f"{p}: exit code of the built program")
        r = rf_sh(ctx, p, "./hello x32", proj)
        check_eq(r.returncode, 159, f"{p}: a program killed by the policy (x32 call): 128+SIGSYS "
                 f"(stderr {r.stderr!r})")
        r = rf_sh(ctx, p, "git init -q repo && cd repo && echo x > f && git add f && "
                  "git -c user.name=t -c user.email=t@example.invalid commit -qm first && "
                  "git log --oneline | wc -l && git status --porcelain | wc -l", proj)
        check(r.returncode == 0 and r.stdout.split() == [b"1", b"0"],
              f"{p}: git init/commit: exit {r.returncode}\n  stdout={r.stdout!r}\n"
              f"  stderr={r.stderr!r}")
        require_program("/usr/bin/python3", "python3", "the python3 workload")
        r = sandbox_python(ctx, p, "import subprocess, socket, threading, os\n"
                           "t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
                           "s = socket.socket(); s.close()\n"
                           "print(subprocess.run(['sh', '-c', 'exit 3']).returncode)",
                           proj=proj)
        check_eq((r.returncode, r.stdout.strip()), (0, b"3"),
                 f"{p}: python3 (threads, socket, subprocess; stderr {r.stderr[-800:]!r})")
        # exit codes through the launcher and the pid-1 reaper
        for script, want in (("exit 0", 0), ("exit 42", 42), ("sleep 30 & exit 5", 5),
                             ("kill -TERM $$", 128 + 15), ("kill -KILL $$", 128 + 9)):
            r = rf_sh(ctx, p, script, proj, timeout=60)
            check_eq(r.returncode, want, f"{p}: exit code of `{script}`")
        check(b"ringfence: level " in r.stderr, f"{p}: no level line on stderr: {r.stderr!r}")


@suite.case()
def ptrace_refused_by_strict_only(ctx):
    """strace and PTRACE_TRACEME work under default and fail under strict."""
    proj = project(ctx)
    for p, ok in (("default", True), ("strict", False)):
        r = rf_sh(ctx, p, "./try_syscall --via libc ptrace PTRACE_TRACEME 0; "
                  "./try_syscall ptrace PTRACE_ATTACH TARGET", proj)
        lines = [json.loads(x) for x in r.stdout.decode().splitlines() if x.startswith("{")]
        check_eq(len(lines), 2, f"{p}: ptrace rows ({r.stderr!r})")
        for j in lines:
            if ok:
                check_eq(outcome(j), ("ok",), f"{p}: {j}")
            else:
                check_eq(outcome(j), ("errno", "EPERM"), f"{p}: {j}")
        require_program("/usr/bin/strace", "strace", "the strace workload")
        r = rf_sh(ctx, p, "strace -f -o /dev/null sh -c 'true' && echo traced", proj)
        if ok:
            check(r.returncode == 0 and b"traced" in r.stdout,
                  f"{p}: strace -f true: exit {r.returncode} stderr={r.stderr!r}")
        else:
            check(r.returncode != 0 and b"traced" not in r.stdout
                  and b"Operation not permitted" in r.stderr,
                  f"{p}: strace must fail with EPERM: exit {r.returncode} "
                  f"stdout={r.stdout!r} stderr={r.stderr!r}")


if __name__ == "__main__":
    sys.exit(suite.main())
