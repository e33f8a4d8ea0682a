#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""uid/gid maps, capabilities, no_new_privs (bwrap-compat.md 2.7, 2.8)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import (NOBODY, Suite, all_caps_mask, caps_of, check, check_eq, host_caps,  # noqa
                    host_ns)

suite = Suite("integration-ids-caps")

CAP_NET_ADMIN = 1 << 12
CAP_NET_BIND_SERVICE = 1 << 10


def ids(j):
    return (j["uid"]["real"], j["uid"]["effective"], j["gid"]["real"], j["gid"]["effective"])


def check_caps(j, expected, what):
    got = caps_of(j)
    want = {k: expected.get(k, 0) for k in ("eff", "prm", "inh", "amb", "bnd")}
    if got != want:
        diff = ", ".join(f"{k}: expected {want[k]:#x} observed {got[k]:#x}"
                         for k in want if got[k] != want[k])
        check(False, f"{what}: capability sets differ ({diff})")
    check_eq(j["no_new_privs"], 1, f"{what}: NoNewPrivs")


def no_dev_root(h):
    """A root without --dev (so unprivileged runs need no nested user namespace)."""
    return ["--ro-bind", "/usr", "/usr", "--proc", "/proc"] + h.probe_bind()


# ---------------------------------------------------------------------------------------------
# uid / gid maps


@suite.case(users=("root",))
def root_with_userns_maps_root(ctx):
    j = ctx.probe_json()
    check_eq(ids(j), (0, 0, 0, 0), "ids of root in --unshare-all")
    check_eq(j["uid_map"], [[0, 0, 1]], "uid_map (root, --unshare-all)")
    check_eq(j["gid_map"], [[0, 0, 1]], "gid_map (root, --unshare-all)")
    check_eq(j["setgroups"], "deny", "setgroups (root, new userns)")


@suite.case(users=("root",))
def root_without_userns_keeps_host_ids(ctx):
    hn = host_ns()
    j = ctx.probe_json(root=no_dev_root(ctx.h))
    check_eq(j["ns"]["user"], hn["user"], "user namespace of root without --unshare-user")
    check_eq(ids(j), (0, 0, 0, 0), "ids of root without a userns")
    check_eq(j["uid_map"], [[0, 0, 4294967295]], "uid_map without a userns (the host's)")


@suite.case(users=("root",))
def root_uid_gid_in_userns(ctx):
    j = ctx.probe_json(["--uid", "1000", "--gid", "1001"])
    check_eq(ids(j), (1000, 1000, 1001, 1001), "ids with --uid 1000 --gid 1001 (root)")
    check_eq(j["uid_map"], [[1000, 0, 1]], "uid_map with --uid 1000 (root)")
    check_eq(j["gid_map"], [[1001, 0, 1]], "gid_map with --gid 1001 (root)")


@suite.case(users=("root",))
def root_uid_requires_userns(ctx):
    r = ctx.run(no_dev_root(ctx.h) + ["--uid", "1000", ctx.h.probe, "exit", "0"])
    check_eq((r.rc, r.stderr), (1, "bwrap: Specifying --uid requires --unshare-user or "
                                   "--userns\n"), "--uid without a user namespace (root)")
    r = ctx.run(no_dev_root(ctx.h) + ["--gid", "1000", ctx.h.probe, "exit", "0"])
    check_eq((r.rc, r.stderr), (1, "bwrap: Specifying --gid requires --unshare-user or "
                                   "--userns\n"), "--gid without a user namespace (root)")


@suite.case(users=("unpriv",))
def unpriv_default_maps(ctx):
    # With --dev the sandbox uid is mapped through a nested userns (devpts needs uid 0).
    j = ctx.probe_json()
    check_eq(ids(j), (NOBODY,) * 4, "ids of the unprivileged user in the sandbox")
    check_eq(j["uid_map"], [[NOBODY, 0, 1]], "uid_map (unpriv, with --dev)")
    check_eq(j["gid_map"], [[NOBODY, 0, 1]], "gid_map (unpriv, with --dev)")
    check_eq(j["setgroups"], "deny", "setgroups (unpriv)")
    # Without --dev: a single level mapping the caller's ids.
    j = ctx.probe_json(root=no_dev_root(ctx.h))
    check_eq(ids(j), (NOBODY,) * 4, "ids of the unprivileged user (no --dev)")
    check_eq(j["uid_map"], [[NOBODY, NOBODY, 1]], "uid_map (unpriv, no --dev)")
    check_eq(j["gid_map"], [[NOBODY, NOBODY, 1]], "gid_map (unpriv, no --dev)")
    check_eq(j["setgroups"], "deny", "setgroups (unpriv, no --dev)")


@suite.case(users=("unpriv",))
def unpriv_uid_gid(ctx):
    j = ctx.probe_json(["--uid", "1234", "--gid", "5678"])
    check_eq(ids(j), (1234, 1234, 5678, 5678), "ids with --uid 1234 --gid 5678 (unpriv)")
    check_eq(j["uid_map"], [[1234, 0, 1]], "uid_map with --uid 1234 (unpriv, --dev)")
    check_eq(j["gid_map"], [[5678, 0, 1]], "gid_map with --gid 5678 (unpriv, --dev)")
    j = ctx.probe_json(["--uid", "0", "--gid", "0"], root=no_dev_root(ctx.h) + ["--unshare-user"])
    check_eq(ids(j), (0, 0, 0, 0), "ids with --uid 0 --gid 0 (unpriv)")
    check_eq(j["uid_map"], [[0, NOBODY, 1]], "uid_map with --uid 0 (unpriv, no --dev)")
    check_eq(j["gid_map"], [[0, NOBODY, 1]], "gid_map with --gid 0 (unpriv, no --dev)")


@suite.case(users=("unpriv",))
def unpriv_userns_is_implied(ctx):
    hn = host_ns()
    j = ctx.probe_json(root=no_dev_root(ctx.h))
    check(j["ns"]["user"] != hn["user"], "an unprivileged run must imply --unshare-user")


@suite.case()
def sandbox_files_owned_by_caller(ctx):
    d = ctx.mkdtemp()
    r = ctx.probe(["--bind", d, "/out"], ["write", "/out/f"])
    check(r.json()["ok"], f"cannot write to a --bind of a dir owned by the caller: {r.stdout}")
    st = os.stat(os.path.join(d, "f"))
    check_eq((st.st_uid, st.st_gid), (ctx.uid, ctx.uid), "host owner of a file the sandbox made")


# ---------------------------------------------------------------------------------------------
# capabilities


@suite.case(users=("root",))
def caps_root_default(ctx):
    hc = host_caps()
    j = ctx.probe_json()
    check_caps(j, {"eff": hc["eff"], "prm": hc["eff"], "bnd": hc["bnd"]},
               "root, --unshare-all, no --cap-*: the caller's caps, no ambient")
    j = ctx.probe_json(root=no_dev_root(ctx.h))
    check_caps(j, {"eff": hc["eff"], "prm": hc["eff"], "bnd": hc["bnd"]},
               "root without userns, no --cap-*")


@suite.case(users=("root",))
def caps_root_drop_all(ctx):
    hc = host_caps()
    j = ctx.probe_json(["--cap-drop", "ALL"], root=no_dev_root(ctx.h))
    check_caps(j, {"bnd": hc["bnd"]}, "root without userns, --cap-drop ALL (bounding untouched)")
    j = ctx.probe_json(["--cap-drop", "ALL"])
    check_caps(j, {}, "root in a userns, --cap-drop ALL (bounding set cleared)")


@suite.case(users=("root",))
def caps_root_add(ctx):
    j = ctx.probe_json(["--cap-drop", "ALL", "--cap-add", "CAP_NET_ADMIN"])
    check_caps(j, dict.fromkeys(("eff", "prm", "inh", "amb", "bnd"), CAP_NET_ADMIN),
               "root in a userns, --cap-drop ALL --cap-add CAP_NET_ADMIN")
    j = ctx.probe_json(["--cap-add", "ALL"])
    full = all_caps_mask()
    check_caps(j, dict.fromkeys(("eff", "prm", "inh", "amb", "bnd"), full),
               "root in a userns, --cap-add ALL")


@suite.case(users=("root",))
def caps_root_nonzero_uid(ctx):
    j = ctx.probe_json(["--uid", "1000"])
    c = caps_of(j)
    check_eq((c["eff"], c["prm"], c["inh"], c["amb"]), (0, 0, 0, 0),
             "caps of a non-zero --uid in a userns (lost on exec)")


@suite.case(users=("unpriv",))
def caps_unpriv_default(ctx):
    check_caps(ctx.probe_json(), {}, "unpriv default: no caps, bounding set cleared")
    check_caps(ctx.probe_json(root=no_dev_root(ctx.h)), {},
               "unpriv without --dev: no caps, bounding set cleared")
    check_caps(ctx.probe_json(["--uid", "0"]), {}, "unpriv --uid 0 without --cap-add")


@suite.case(users=("unpriv",))
def caps_unpriv_add(ctx):
    j = ctx.probe_json(["--cap-add", "CAP_NET_ADMIN"])
    check_caps(j, dict.fromkeys(("eff", "prm", "inh", "amb", "bnd"), CAP_NET_ADMIN),
               "unpriv --cap-add CAP_NET_ADMIN")
    j = ctx.probe_json(["--cap-add", "cap_net_bind_service"])
    check_caps(j, dict.fromkeys(("eff", "prm", "inh", "amb", "bnd"), CAP_NET_BIND_SERVICE),
               "unpriv --cap-add cap_net_bind_service (lower case)")
    j = ctx.probe_json(["--uid", "0", "--cap-add", "ALL"])
    full = all_caps_mask()
    check_caps(j, dict.fromkeys(("eff", "prm", "inh", "amb", "bnd"), full),
               "unpriv --uid 0 --cap-add ALL")
    j = ctx.probe_json(["--cap-add", "ALL", "--cap-drop", "CAP_NET_ADMIN"])
    check_caps(j, dict.fromkeys(("eff", "prm", "inh", "amb", "bnd"), full & ~CAP_NET_ADMIN),
               "unpriv --cap-add ALL --cap-drop CAP_NET_ADMIN (processed in order)")
    j = ctx.probe_json(["--cap-drop", "CAP_NET_ADMIN", "--cap-add", "all"])
    check_caps(j, dict.fromkeys(("eff", "prm", "inh", "amb", "bnd"), full),
               "unpriv --cap-drop CAP_NET_ADMIN --cap-add all (processed in order)")


@suite.case()
def unknown_cap(ctx):
    for name in ("kill", "CAP_NOPE"):
        r = ctx.probe(["--cap-add", name], ["exit", "0"])
        check_eq((r.rc, r.stderr, r.stdout), (1, f"bwrap: unknown cap: {name}\n", ""),
                 f"--cap-add {name}")
    r = ctx.probe(["--cap-drop", "nope"], ["exit", "0"])
    check_eq((r.rc, r.stderr), (1, "bwrap: unknown cap: nope\n"), "--cap-drop nope")


@suite.case()
def no_new_privs_and_no_seccomp_by_default(ctx):
    for extra in ([], ["--cap-add", "ALL", "--uid", "0"]):
        j = ctx.probe_json(extra)
        check_eq(j["no_new_privs"], 1, f"NoNewPrivs with {extra}")
        check_eq(j["seccomp"], 0, f"seccomp mode with {extra} (no filter requested)")
    j = ctx.probe_json(root=no_dev_root(ctx.h))
    check_eq(j["no_new_privs"], 1, "NoNewPrivs without namespaces beyond mount")


if __name__ == "__main__":
    sys.exit(suite.main())
