#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compat: namespaces, ids, hostname, capabilities, network."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compat import CompatSuite, minimal, probe  # noqa: E402

C = CompatSuite("compat-namespaces")

NO_DEV = ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "{probe_bind}"]


def base(*extra):
    return minimal(*extra, unshare_all=False)


# --unshare-* and --share-net, alone and combined
C.case("no-unshare", base() + probe("json"))
for flag in ("--unshare-user", "--unshare-user-try", "--unshare-ipc", "--unshare-pid",
             "--unshare-net", "--unshare-uts", "--unshare-cgroup", "--unshare-cgroup-try"):
    C.case("flag" + flag, base(flag) + probe("json"))
C.case("unshare-all", minimal() + probe("json"))
C.case("unshare-all-share-net", minimal("--share-net") + probe("json"))
C.case("share-net-then-unshare-all", base("--share-net", "--unshare-all") + probe("json"))
C.case("share-net-then-unshare-net", base("--share-net", "--unshare-net") + probe("json"))
C.case("unshare-net-then-share-net", base("--unshare-net", "--share-net") + probe("json"))
C.case("unshare-pid-and-user", base("--unshare-pid", "--unshare-user") + probe("json"))
C.case("unshare-user-twice", base("--unshare-user", "--unshare-user-try") + probe("json"))
C.case("no-dev-no-unshare", NO_DEV + probe("json"))
C.case("no-dev-unshare-all", NO_DEV + ["--unshare-all"] + probe("json"))

# uid / gid
C.case("uid-gid", minimal("--uid", "1234", "--gid", "5678") + probe("json"))
C.case("uid-only", minimal("--uid", "1234") + probe("json"))
C.case("gid-only", minimal("--gid", "5678") + probe("json"))
C.case("uid-0", minimal("--uid", "0", "--gid", "0") + probe("json"))
C.case("uid-repeated", minimal("--uid", "10", "--uid", "20") + probe("json"))
C.case("uid-gid-no-dev", NO_DEV + ["--unshare-user", "--uid", "1234", "--gid", "5678"]
       + probe("json"))
C.case("uid-0-no-dev", NO_DEV + ["--unshare-user", "--uid", "0"] + probe("json"))
C.case("uid-same-as-caller-without-userns", NO_DEV + ["--uid", "0"] + probe("json"),
       users=("root",))
C.case("uid-nobody", minimal("--uid", "65534", "--gid", "65534") + probe("json"))

# hostname
C.case("hostname", minimal("--hostname", "rf-compat") + probe("json"))
C.case("hostname-repeated", minimal("--hostname", "a", "--hostname", "b") + probe("json"))
C.case("uts-without-hostname", base("--unshare-uts") + probe("json"))
C.case("hostname-with-unshare-uts-later", base("--hostname", "h", "--unshare-uts")
       + probe("json"))
C.case("hostname-without-uts", base("--hostname", "h") + probe("json"), ref_rc=1)

# capabilities (processed in order; root starts from its effective set)
CAPS = {
    "default": [],
    "add-net-admin": ["--cap-add", "CAP_NET_ADMIN"],
    "add-lowercase": ["--cap-add", "cap_net_bind_service"],
    "add-all": ["--cap-add", "ALL"],
    "add-all-lowercase": ["--cap-add", "all"],
    "drop-all": ["--cap-drop", "ALL"],
    "drop-all-add-one": ["--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN"],
    "add-all-drop-one": ["--cap-add", "ALL", "--cap-drop", "CAP_NET_RAW"],
    "drop-one": ["--cap-drop", "CAP_CHOWN"],
    "add-then-drop-same": ["--cap-add", "CAP_KILL", "--cap-drop", "CAP_KILL"],
    "uid0-add-all": ["--uid", "0", "--cap-add", "ALL"],
    "uid-nonzero-add": ["--uid", "1000", "--cap-add", "CAP_NET_ADMIN"],
}


def applied_request(drop_bits):
    # docs/compat-bwrap.md, "Capabilities of a root caller without a user namespace": bwrap's
    # capset of an unclamped --cap-add ALL fails and it keeps the caller's set, ignoring the
    # drops; ringfence applies the request clamped to the caller's set, inheritable and ambient
    # included.
    def fn(ref, user):
        caps = ref["stdout"]["caps"]
        applied = int(caps["prm"], 16) & ~drop_bits
        for k in ("eff", "prm", "inh", "amb"):
            caps[k] = f"{applied:016x}"
        return ref
    return ("root without a user namespace, --cap-add ALL", fn)


CAP_NET_RAW_BIT = 1 << 13
ROOT_ALL_DOCUMENTED = {
    "add-all": applied_request(0),
    "add-all-lowercase": applied_request(0),
    "add-all-drop-one": applied_request(CAP_NET_RAW_BIT),
    "uid0-add-all": applied_request(0),
}
for name, args in CAPS.items():
    C.case("caps-" + name, minimal(*args) + probe("json"))
    documented = ROOT_ALL_DOCUMENTED.get(name)
    C.case("caps-no-userns-" + name, NO_DEV + args + probe("json"),
           ref_rc=0 if "--uid" not in args else None,
           users=("root",) if documented else ("root", "unpriv"), documented=documented)
    if documented:  # the unprivileged caller always has a user namespace: no difference
        C.case("caps-no-userns-" + name + "-unpriv", NO_DEV + args + probe("json"),
               ref_rc=0 if "--uid" not in args else None, users=("unpriv",))
C.case("caps-unknown", minimal("--cap-add", "CAP_RF_NOPE") + probe("json"), ref_rc=1)
C.case("caps-no-prefix", minimal("--cap-add", "net_admin") + probe("json"), ref_rc=1)

# network
C.case("net-loopback-tcp4", minimal() + probe("tcp", "4"))
C.case("net-loopback-tcp6", minimal() + probe("tcp", "6"))
C.case("net-unshare-net-only", base("--unshare-net") + probe("json"))

# ipc / mqueue
C.case("mqueue-with-ipc-ns", minimal("--mqueue", "/dev/mqueue") + probe("json"))


if __name__ == "__main__":
    sys.exit(C.main())
