#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# `ringfence verify`: the attack suite run live, as root and as 65534, as a table and as JSON; at a
# forced lower level (--level soft, and a host that refuses user namespaces, simulated by
# syscall_jail) the rows that level does not protect say "not protected at this level" and the
# network rows are skipped without a fixture; a broken sandbox (a stand-in attack program that
# reports success) is caught with exit 1; setup and usage errors give 125 and 2; SIGTERM stops it;
# nothing is left behind (temporary trees, /dev/shm canaries, SysV segments, processes).
#
# usage: test_verify.py RINGFENCE RF_ATTACK SYSCALL_JAIL
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from rftest import stage  # noqa: E402

if len(sys.argv) != 4:
    sys.exit("usage: test_verify.py RINGFENCE RF_ATTACK SYSCALL_JAIL")
RINGFENCE, RF_ATTACK, JAIL = stage(*sys.argv[1:4])
UNPRIV = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
# The staged launcher has no build tree beside it, so the attack program is named explicitly
# (verify's own lookup order: --attack-program, then this variable, then the install paths).
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/nonexistent-rf-home", "LANG": "C",
       "RINGFENCE_ATTACK_PROGRAM": RF_ATTACK}
failures = []


def check(name, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else f": {str(detail)[:3000]}"), flush=True)
    if not cond:
        failures.append(name)


def verify(args, user="root", jail=False, timeout=600):
    pre = (UNPRIV if user == "unpriv" else []) + ([JAIL, "--deny-userns", "--"] if jail else [])
    return subprocess.run(pre + [RINGFENCE, "verify"] + args, capture_output=True, text=True,
                          timeout=timeout, env=ENV, cwd="/")


def listed():
    r = subprocess.run([RF_ATTACK, "list"], capture_output=True, text=True, timeout=30)
    return {a["id"]: a for a in map(json.loads, r.stdout.splitlines())}


def leftovers():
    """What verify may leave: temporary trees, /dev/shm canaries, SysV segments, processes."""
    tmp = {e for e in os.listdir(tempfile.gettempdir()) if e.startswith("rf-verify-")}
    # verify's token: "rfcanary" and 32 hex digits; its SysV key: 0x10000000 | 7 of them.
    shm = ({e for e in os.listdir("/dev/shm") if re.fullmatch(r"rf-canary-rfcanary[0-9a-f]{32}", e)}
           if os.path.isdir("/dev/shm") else set())
    sysv = set()
    try:
        with open("/proc/sysvipc/shm") as f:
            sysv = {line.split()[0] for line in f.read().splitlines()[1:]
                    if 0x10000000 <= int(line.split()[0]) <= 0x1FFFFFFF and line.split()[3] == "4096"}
    except (OSError, ValueError, IndexError):
        pass
    procs = set()
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != os.getpid():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            if b"rf-verify-" in cmd or b".rf-attack" in cmd:
                procs.add((d, cmd.replace(b"\0", b" ").decode(errors="replace")))
    return tmp, shm, sysv, procs


def check_clean(name, before):
    time.sleep(0.3)
    after = leftovers()
    labels = ("temporary trees", "/dev/shm canaries", "SysV segments", "processes")
    for label, b, a in zip(labels, before, after):
        check(f"{name}: no {label} left", not (a - b), sorted(a - b))


def check_report(name, r, doc, level):
    """Consistency of one JSON report reached at `level`."""
    rows = doc["rows"]
    attacks = listed()
    check(f"{name}: a row for every listed attack", {x["id"] for x in rows} == set(attacks),
          set(attacks) ^ {x["id"] for x in rows})
    check(f"{name}: level {level}", doc["level"] == level, doc["level"])
    verdicts = {x["verdict"] for x in rows}
    check(f"{name}: verdicts are of the known classes",
          verdicts <= {"pass", "FAIL", "skipped", "not protected at this level", "error"}, verdicts)
    check(f"{name}: every row got a result (no error rows)", "error" not in verdicts,
          [x for x in rows if x["verdict"] == "error"])
    fails = [x["id"] for x in rows if x["verdict"] in ("FAIL", "error")]
    check(f"{name}: exit 1 exactly when a row fails", r.returncode == (1 if fails else 0),
          f"rc={r.returncode} fails={fails} {r.stderr}")
    check(f"{name}: no attack succeeded where the level protects (verify exits 0)", not fails and r.returncode == 0,
          f"rc={r.returncode} failing rows: {fails}")
    for x in rows:
        a = attacks[x["id"]]
        promised = level in a["protects"]
        if not promised and x["verdict"] not in ("skipped",):
            check(f"{name}: {x['id']} is not a pass at a level that does not protect it",
                  x["verdict"] == "not protected at this level", x)
        if promised and x["outcome"] == "blocked" and (x["fixture"] or {}).get("denied_hits", 0) == 0 \
                and "(undecided)" not in x["detail"]:
            check(f"{name}: {x['id']} blocked is a pass", x["verdict"] == "pass", x)
        if x["outcome"] == "succeeded" and promised:
            check(f"{name}: {x['id']} succeeded is a FAIL", x["verdict"] == "FAIL", x)
    return rows


def main():
    ns_ok = subprocess.run(UNPRIV + ["unshare", "--user", "--net", "true"], capture_output=True).returncode == 0
    if not ns_ok:
        print("SKIP: unprivileged user namespaces are unavailable")
        return 77
    before = leftovers()

    for user in ("root", "unpriv"):
        r = verify(["--json"], user)
        try:
            doc = json.loads(r.stdout)
        except ValueError:
            check(f"{user}: --json is one JSON document", False, r.stdout[:2000] + r.stderr)
            continue
        rows = check_report(f"{user} json", r, doc, "kernel")
        by_id = {x["id"]: x for x in rows}
        for rid in ("S-01", "S-02", "S-03", "S-04", "S-05", "S-06", "S-07", "S-08.asm", "S-08.exec"):
            check(f"{user}: {rid} passes at the kernel level", by_id.get(rid, {}).get("verdict") == "pass",
                  by_id.get(rid))
        net = [x for x in rows if x["network"]]
        check(f"{user}: the network rows ran in the fixture", net and all(x["fixture"] is not None for x in net
                                                                            if x["verdict"] != "skipped"), net[:3])
        check(f"{user}: the uid is reported", doc["uid"] == (0 if user == "root" else 65534), doc["uid"])
        check(f"{user}: the fake home was not the real one", doc["fake_home"].startswith(tempfile.gettempdir()),
              doc["fake_home"])

        r = verify([], user)
        head = r.stdout.split("\n", 1)[0]
        check(f"{user}: table header names level, preset and kernel",
              re.match(r"ringfence verify: level kernel, preset balanced, kernel \S+, uid \d+$", head), head)
        check(f"{user}: table has the columns", "ID" in r.stdout and "EXPECTED" in r.stdout and "VERDICT" in r.stdout,
              r.stdout[:500])
        check(f"{user}: table ends with the summary", re.search(r"\nsummary: \d+ pass, \d+ FAIL", r.stdout),
              r.stdout[-500:])
        check(f"{user}: the table's exit code matches the JSON's", r.returncode == doc["exit_code"],
              f"{r.returncode} {doc['exit_code']}")
        check_clean(user, before)

    # Forced lower on a host that could do more: the soft level protects little.
    r = verify(["--json", "--level", "soft"])
    doc = json.loads(r.stdout)
    rows = check_report("--level soft", r, doc, "soft")
    check("--level soft: the requested level is reported", doc["requested_level"] == "soft", doc["requested_level"])
    check("--level soft: some rows are not protected at this level",
          any(x["verdict"] == "not protected at this level" and x["expected"] == "not protected at soft" for x in rows))
    r = verify(["--level", "soft"])
    check("--level soft: the table says 'not protected at this level'",
          "not protected at soft" in r.stdout and "not protected at this level" in r.stdout, r.stdout[:2000])
    check_clean("--level soft", before)

    # A host that refuses user namespaces: no fixture, so no network row runs.
    for user in ("root", "unpriv"):
        r = verify(["--json"], user, jail=True)
        doc = json.loads(r.stdout)
        check(f"jail {user}: falls below kernel", doc["level"] in ("landlock", "soft"), doc["level"])
        rows = check_report(f"jail {user}", r, doc, doc["level"])
        net = [x for x in rows if x["network"]]
        check(f"jail {user}: network rows skipped for want of a fixture",
              net and all(x["verdict"] == "skipped" and "hermetic fixture" in x["reason"] and x["fixture"] is None
                          for x in net), net[:3])
        check_clean(f"jail {user}", before)

    work = tempfile.mkdtemp(prefix="rfv-test-")
    os.chmod(work, 0o755)
    try:
        # A broken sandbox: the attack program reports a success.
        standin = os.path.join(work, "rf-attack")
        with open(standin, "w") as f:
            f.write("""#!/bin/sh
case "$1" in
list)
  echo '{"id":"S-05","row":"S-05","title":"read a masked dotenv","protects":["kernel","landlock"]}'
  echo '{"id":"ENV-01","row":"ENV-01","title":"credential variables","protects":["kernel","landlock","soft"]}'
  echo '{"id":"PRIV-05","row":"PRIV-05","title":"uid 0 inside (report)","protects":[]}';;
run)
  echo '{"id":"S-05","title":"read a masked dotenv","outcome":"succeeded","errno":0,"detail":"read .env"}'
  echo '{"id":"ENV-01","title":"credential variables","outcome":"blocked","errno":0,"detail":"none present"}'
  echo '{"id":"PRIV-05","title":"uid 0 inside","outcome":"succeeded","errno":0,"detail":"reported"}';;
*) exit 1;;
esac
""")
        os.chmod(standin, 0o755)
        for user in ("root", "unpriv"):
            r = verify(["--attack-program", standin, "--json"], user)
            doc = json.loads(r.stdout) if r.stdout.startswith("{") else {"rows": []}
            by_id = {x["id"]: x for x in doc["rows"]}
            check(f"broken {user}: exit 1", r.returncode == 1, f"rc={r.returncode} {r.stderr}")
            check(f"broken {user}: the succeeded attack is a FAIL", by_id.get("S-05", {}).get("verdict") == "FAIL",
                  by_id.get("S-05"))
            check(f"broken {user}: the blocked attack passes", by_id.get("ENV-01", {}).get("verdict") == "pass",
                  by_id.get("ENV-01"))
            check(f"broken {user}: a report-only row is not a FAIL",
                  by_id.get("PRIV-05", {}).get("verdict") == "not protected at this level", by_id.get("PRIV-05"))
            r = verify(["--attack-program", standin], user)
            check(f"broken {user}: the table shows FAIL", r.returncode == 1 and re.search(r"S-05 .* FAIL", r.stdout)
                  and "failed rows:" in r.stdout, r.stdout)
            r = verify(["--attack-program", standin, "--level", "soft"], user)
            check(f"broken {user}, soft: an unprotected success is not a FAIL", r.returncode == 0
                  and re.search(r"S-05 .*not protected at this level", r.stdout), r.stdout + r.stderr)

        # Setup failures: 125 with a message naming the path; usage errors: 2.
        r = verify(["--attack-program", "/nonexistent/rf-attack"])
        check("missing attack program: exit 125", r.returncode == 125, f"rc={r.returncode}")
        check("missing attack program: the message names it",
              "/nonexistent/rf-attack" in r.stderr and "No such file" in r.stderr, r.stderr)
        badlist = os.path.join(work, "badlist")
        with open(badlist, "w") as f:
            f.write("#!/bin/sh\necho 'not json'\n")
        os.chmod(badlist, 0o755)
        r = verify(["--attack-program", badlist])
        check("an attack list that does not parse: exit 125", r.returncode == 125 and "line 1" in r.stderr,
              f"rc={r.returncode} {r.stderr}")
        for bad in (["--level", "max"], ["--preset", "paranoid"], ["--bogus"]):
            r = verify(bad)
            check(f"usage error {bad}: exit 2", r.returncode == 2 and r.stderr, f"rc={r.returncode} {r.stderr}")
        check_clean("errors", before)

        # SIGTERM while the sandboxes run: stopped, 128+15, nothing left.
        slow = os.path.join(work, "slow")
        with open(slow, "w") as f:
            f.write("#!/bin/sh\nif [ \"$1\" = list ]; then\n"
                    "  echo '{\"id\":\"X-01\",\"row\":\"X-01\",\"title\":\"slow\",\"protects\":[\"kernel\"]}'\n"
                    "else sleep 60; fi\n")
        os.chmod(slow, 0o755)
        p = subprocess.Popen([RINGFENCE, "verify", "--attack-program", slow], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=ENV)
        time.sleep(1.5)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        check("SIGTERM: exit 143", p.returncode == 143, f"rc={p.returncode} {err}")
        check("SIGTERM: says it cleaned up", "interrupted by signal 15" in err, err)
        check_clean("SIGTERM", before)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"{'FAIL' if failures else 'PASS'}: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
