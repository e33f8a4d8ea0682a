// SPDX-License-Identifier: LGPL-2.1-or-later
// probe: causes and fixes from made-up observations (the hosts this machine is not: Ubuntu's
// AppArmor restriction, Debian's sysctl, Docker, a masked /proc, no Landlock), levels and
// presets, the table and the JSON, the trial runner's timeout, and the cache's rules.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "cache.hpp"
#include "observations.hpp"
#include "ringfence/probe/probe.hpp"

using namespace rf::probe;

namespace {

Step ok(const char* name, const char* note = "") { return {Step::State::Ok, name, 0, note}; }

TrialResult trial(std::vector<Step> steps) {
  TrialResult t;
  t.steps = std::move(steps);
  return t;
}

// A host where everything works (as this test machine's root).
Observations healthy() {
  Observations o;
  o.facts.uid = 1000;
  o.facts.kernel_release = "6.8.0-45-generic";
  o.facts.max_user_namespaces = 63000;
  o.ns =
      trial({ok("userns"), ok("label", "unconfined"), ok("setgroups"), ok("uid_map"), ok("gid_map"),
             ok("mountns"), ok("private"), ok("tmpfs"), ok("ipc_uts"), ok("netns"), ok("lo_up"),
             ok("lo_echo"), ok("mount_setattr"), ok("overlay"), ok("pidns"), ok("proc"), ok("pivot_root")});
  o.seccomp = trial({ok("no_new_privs"), ok("filter"), ok("listener"), ok("notify")});
  o.pidfd = trial({ok("pidfd_open"), ok("pidfd_getfd")});
  o.landlock = trial({ok("abi", "6"), ok("ruleset"), ok("restrict_self"), ok("enforced")});
  o.cgroup = trial({ok("locate", "/sys/fs/cgroup/user.slice"), ok("controllers", "available: memory pids"),
                    ok("mkdir", "/sys/fs/cgroup/user.slice/ringfence-probe-1"), ok("attach"),
                    ok("memory.max"), ok("pids.max"), ok("rmdir")});
  o.facts.io_uring_disabled = 0;
  return o;
}

// The step fails with err; a fatal one also ends the trial there.
void fail_at(TrialResult& t, const char* name, int err, bool fatal = true) {
  for (size_t i = 0; i < t.steps.size(); ++i) {
    if (t.steps[i].name != name) continue;
    t.steps[i].state = Step::State::Failed;
    t.steps[i].err = err;
    if (fatal) t.steps.resize(i + 1);
    return;
  }
  FAIL("no step " << name);
}

const Check& check(const Report& r, const char* id) {
  const Check* c = find_check(r, id);
  REQUIRE_MESSAGE(c, "no check " << id);
  return *c;
}

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

const PresetReach& preset_of(const Report& r, const char* name) {
  for (const auto& p : r.presets)
    if (p.preset == name) return p;
  FAIL("no preset " << name);
  return r.presets.front();
}

}  // namespace

TEST_CASE("parse_steps: begun, finished, failed, unfinished") {
  auto steps = parse_steps(
      "b\tuserns\t0\t\no\tuserns\t0\tnote with spaces\nb\tuid_map\t0\t\nf\tuid_map\t1\t0 1000 1\n"
      "b\tmountns\t0\t\njunk\n");
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].state == Step::State::Ok);
  CHECK(steps[0].note == "note with spaces");
  CHECK(steps[1].state == Step::State::Failed);
  CHECK(steps[1].err == 1);
  CHECK(steps[1].note == "0 1000 1");
  CHECK(steps[2].state == Step::State::Begun);
}

TEST_CASE("a healthy host reaches the kernel level for every kernel-jail preset") {
  Report r = diagnose(healthy());
  CHECK(r.level == Level::Kernel);
  CHECK(r.level_reason.empty());
  for (const char* id :
       {"userns", "idmap", "mountns", "pidns_proc", "ipc_uts", "netns", "pivot_root", "mount_setattr",
        "overlay", "no_new_privs", "seccomp", "seccomp_notify", "pidfd_getfd", "landlock", "cgroup"}) {
    CHECK_MESSAGE(check(r, id).available == Availability::Yes, id);
    CHECK_MESSAGE(check(r, id).cause.empty(), id);
  }
  CHECK(r.landlock_abi == 6);
  CHECK(preset_of(r, "trusted").reached == Level::Soft);
  CHECK(has(preset_of(r, "trusted").note, "by design"));
  for (const char* p : {"balanced", "hardened", "read-only"}) {
    CHECK(preset_of(r, p).reached == Level::Kernel);
    CHECK(preset_of(r, p).note.empty());
  }
  CHECK(level_line(r, Level::Kernel, false) == "level: kernel");
}

TEST_CASE("Ubuntu's AppArmor restriction: the namespace is made, the map write fails") {
  Observations o = healthy();
  o.facts.apparmor_restrict_userns = 1;
  o.facts.apparmor_enabled = true;
  o.facts.exe = "/usr/bin/ringfence";
  o.ns.steps[1].note = "unprivileged_userns (enforce)";
  fail_at(o.ns, "uid_map", EPERM);
  Report r = diagnose(o);
  CHECK(check(r, "userns").available == Availability::Yes);
  const Check& maps = check(r, "idmap");
  CHECK(maps.available == Availability::No);
  CHECK(has(maps.detail, "uid_map: EPERM"));
  CHECK(has(maps.cause, "Ubuntu's AppArmor restriction"));
  CHECK(has(maps.fix, "/etc/apparmor.d/ringfence"));
  CHECK(has(maps.fix, "sudo apparmor_parser -r /etc/apparmor.d/ringfence"));
  CHECK(has(maps.fix, "kernel.apparmor_restrict_unprivileged_userns=0"));
  CHECK_FALSE(has(maps.fix, "put its path"));  // a standard install path
  CHECK(has(check(r, "mountns").detail, "not tried: uid_map failed"));
  CHECK(r.level == Level::Landlock);
  CHECK(has(r.level_reason, "uid/gid maps"));
  CHECK(preset_of(r, "balanced").reached == Level::Landlock);
  CHECK(has(level_line(r, Level::Kernel, false), "level: landlock, not kernel (uid/gid maps"));
}

TEST_CASE("Ubuntu's restriction seen only through the sysctl, failing at a mount") {
  Observations o = healthy();
  o.facts.apparmor_restrict_userns = 1;
  o.facts.exe = "/home/me/ringfence/build/src/app/ringfence";
  o.ns.steps[1].note = "unconfined";
  fail_at(o.ns, "tmpfs", EACCES);
  Report r = diagnose(o);
  CHECK(check(r, "idmap").available == Availability::Yes);
  CHECK(has(check(r, "mountns").cause, "Ubuntu's AppArmor restriction"));
  CHECK(has(check(r, "mountns").fix, "this binary is /home/me/ringfence/build/src/app/ringfence"));
}

TEST_CASE("Debian's unprivileged_userns_clone = 0") {
  Observations o = healthy();
  o.facts.unprivileged_userns_clone = 0;
  fail_at(o.ns, "userns", EPERM);
  Report r = diagnose(o);
  const Check& u = check(r, "userns");
  CHECK(u.available == Availability::No);
  CHECK(has(u.detail, "unshare(CLONE_NEWUSER): EPERM (Operation not permitted)"));
  CHECK(has(u.cause, "Debian's kernel.unprivileged_userns_clone = 0"));
  CHECK(has(u.fix, "sysctl -w kernel.unprivileged_userns_clone=1"));
  CHECK(has(check(r, "idmap").detail, "not tried: userns failed"));
  CHECK(r.level == Level::Landlock);
}

TEST_CASE("user.max_user_namespaces = 0") {
  Observations o = healthy();
  o.facts.max_user_namespaces = 0;
  fail_at(o.ns, "userns", ENOSPC);
  Report r = diagnose(o);
  CHECK(has(check(r, "userns").cause, "user.max_user_namespaces = 0"));
  CHECK(has(check(r, "userns").fix, "user.max_user_namespaces="));
  CHECK(r.level == Level::Landlock);
}

TEST_CASE("Docker's default seccomp profile: EPERM under a filter while the sysctl allows") {
  Observations o = healthy();
  o.facts.seccomp_mode = 2;
  o.facts.seccomp_filters = 1;
  o.facts.dockerenv = true;
  fail_at(o.ns, "userns", EPERM);
  Report r = diagnose(o);
  const Check& u = check(r, "userns");
  CHECK(has(u.cause, "Docker's default seccomp profile"));
  CHECK(has(u.cause, "/.dockerenv exists"));
  CHECK(has(u.fix, "--security-opt seccomp="));
  CHECK(has(u.fix, "--privileged"));
  CHECK(has(u.fix, "NOT recommended"));
  bool found = false;
  for (const auto& f : r.facts)
    if (f.id == "container") found = has(f.value, "Docker-like");
  CHECK(found);
  CHECK(r.level == Level::Landlock);
}

TEST_CASE("no seccomp filter, sysctls allow, still EPERM: not blamed on Docker") {
  Observations o = healthy();
  fail_at(o.ns, "userns", EPERM);
  Report r = diagnose(o);
  CHECK_FALSE(has(check(r, "userns").cause, "Docker"));
  CHECK(has(check(r, "userns").cause, "security module"));
}

TEST_CASE("a masked /proc refuses the proc mount") {
  Observations o = healthy();
  o.facts.proc_overmounts = {"/proc/kcore", "/proc/keys", "/proc/timer_list"};
  fail_at(o.ns, "proc", EPERM, false);
  Report r = diagnose(o);
  const Check& p = check(r, "pidns_proc");
  CHECK(p.available == Availability::No);
  CHECK(has(p.cause, "/proc is masked"));
  CHECK(has(p.cause, "/proc/kcore"));
  CHECK(has(p.fix, "systempaths=unconfined"));
  CHECK(check(r, "pivot_root").available == Availability::Yes);
  CHECK(r.level == Level::Landlock);
}

TEST_CASE("no Landlock: built without it, or not enabled at boot") {
  Observations o = healthy();
  fail_at(o.ns, "userns", EPERM);
  fail_at(o.landlock, "abi", ENOSYS);
  Report r = diagnose(o);
  CHECK(check(r, "landlock").available == Availability::No);
  CHECK(has(check(r, "landlock").cause, "CONFIG_SECURITY_LANDLOCK"));
  CHECK(r.level == Level::Soft);
  CHECK(has(r.level_reason, "Landlock: ABI: ENOSYS"));
  CHECK(preset_of(r, "balanced").reached == Level::Soft);
  CHECK(has(preset_of(r, "balanced").note, "NOT confined"));

  o = healthy();
  fail_at(o.landlock, "abi", EOPNOTSUPP);
  r = diagnose(o);
  CHECK(has(check(r, "landlock").cause, "not enabled at boot"));
  CHECK(has(check(r, "landlock").fix, "lsm="));
  CHECK(r.level == Level::Kernel);  // the kernel jail does not need it
}

TEST_CASE("an older Landlock ABI is partial and names its gaps") {
  Observations o = healthy();
  o.landlock.steps[0].note = "4";
  Report r = diagnose(o);
  CHECK(check(r, "landlock").available == Availability::Partial);
  CHECK(has(check(r, "landlock").cause, "ABI 4"));
  CHECK(has(check(r, "landlock").cause, "abstract unix socket"));
  CHECK_FALSE(has(check(r, "landlock").cause, "TCP"));
  CHECK(r.landlock_abi == 4);
  fail_at(o.ns, "userns", EPERM);
  r = diagnose(o);
  CHECK(r.level == Level::Landlock);
  CHECK(has(preset_of(r, "balanced").note, "Landlock ABI 4"));
}

TEST_CASE("no network namespace: the network-off presets fall back, balanced does not") {
  Observations o = healthy();
  fail_at(o.ns, "netns", EPERM, false);
  Report r = diagnose(o);
  CHECK(r.level == Level::Kernel);
  CHECK(preset_of(r, "balanced").reached == Level::Kernel);
  CHECK(preset_of(r, "hardened").reached == Level::Landlock);
  CHECK(has(preset_of(r, "hardened").note, "network namespace"));
  CHECK(has(level_line(r, Level::Kernel, true), "not kernel (network namespace + lo"));
}

TEST_CASE("no user notifications: no connect policy with the network on") {
  Observations o = healthy();
  fail_at(o.seccomp, "listener", EBUSY);
  Report r = diagnose(o);
  CHECK(check(r, "seccomp_notify").available == Availability::No);
  CHECK(has(check(r, "seccomp_notify").cause, "listener"));
  CHECK(has(preset_of(r, "balanced").note, "no connect policy"));
  CHECK(preset_of(r, "hardened").note.empty());
  CHECK(r.level == Level::Kernel);
}

TEST_CASE("a hung or killed trial is reported, not trusted") {
  Observations o = healthy();
  o.ns.steps.resize(1);
  o.ns.steps.push_back({Step::State::Begun, "setgroups", 0, ""});
  o.ns.failure = "timed out after 5000 ms";
  o.ns.timed_out = true;
  Report r = diagnose(o);
  CHECK(check(r, "idmap").available == Availability::No);
  CHECK(has(check(r, "idmap").detail, "setgroups: did not finish (timed out after 5000 ms)"));
  CHECK(has(check(r, "idmap").cause, "did not finish: timed out"));
  CHECK(r.level == Level::Landlock);

  o = healthy();
  o.landlock.steps.resize(1);
  o.landlock.steps.push_back({Step::State::Begun, "ruleset", 0, ""});
  o.landlock.failure = "the trial process was killed by SIGSYS";
  r = diagnose(o);
  CHECK(check(r, "landlock").available == Availability::No);
  CHECK(has(check(r, "landlock").cause, "kills this system call (SIGSYS)"));
}

TEST_CASE("cgroup: not delegated, or delegated without controllers") {
  Observations o = healthy();
  fail_at(o.cgroup, "mkdir", EACCES);
  Report r = diagnose(o);
  CHECK(check(r, "cgroup").available == Availability::No);
  CHECK(has(check(r, "cgroup").cause, "not delegated to uid 1000"));
  CHECK(has(check(r, "cgroup").fix, "Delegate=yes"));
  o = healthy();
  fail_at(o.cgroup, "memory.max", ENOENT, false);
  fail_at(o.cgroup, "pids.max", ENOENT, false);
  r = diagnose(o);
  CHECK(check(r, "cgroup").available == Availability::Partial);
  CHECK(has(check(r, "cgroup").cause, "controllers are not enabled"));
}

TEST_CASE("io_uring sysctl") {
  Observations o = healthy();
  o.facts.io_uring_disabled = 2;
  CHECK(check(diagnose(o), "io_uring").available == Availability::Yes);
  o.facts.io_uring_disabled = 0;
  CHECK(check(diagnose(o), "io_uring").available == Availability::No);
  CHECK(has(check(diagnose(o), "io_uring").fix, "kernel.io_uring_disabled=2"));
  o.facts.io_uring_disabled.reset();
  CHECK(has(check(diagnose(o), "io_uring").detail, "absent"));
}

TEST_CASE("WSL detection from the kernel's strings") {
  Facts f;
  f.kernel_release = "5.15.153.1-microsoft-standard-WSL2";
  CHECK(wsl_kind(f) == "WSL2");
  f.kernel_release = "4.4.0-19041-Microsoft";
  CHECK(wsl_kind(f) == "WSL1");
  f.kernel_release = "6.8.0-45-generic";
  CHECK(wsl_kind(f).empty());
}

TEST_CASE("JSON reads back to the same report, odd characters included") {
  Observations o = healthy();
  o.facts.lsm_label = "quote \" backslash \\ tab \t newline \n unicode \xc3\xa9 \x01";
  fail_at(o.ns, "uid_map", EPERM);
  o.facts.apparmor_restrict_userns = 1;
  Report r = diagnose(o);
  r.probed_at = 1700000000;
  r.cache = "used";
  r.cache_path = "/run/user/1000/ringfence/probe.json";
  auto back = from_json(to_json(r));
  REQUIRE_MESSAGE(back, back.error().describe());
  CHECK(back->same_content(r));
  CHECK(back->cache == "used");
  CHECK(back->cache_path == r.cache_path);
  CHECK_FALSE(from_json("{\"checks\": [], \"facts\": {}, \"presets\": [], \"level\": \"kernell\"}"));
  CHECK_FALSE(from_json("{\"checks\": [}"));
  CHECK_FALSE(from_json("{\"level\": \"kernel\"} x"));
  CHECK_FALSE(from_json("[1, 2]"));
  auto esc = from_json(R"({"level": "soft", "checks": [{"available": "no", "detail": "\u00e9\ud83d\ude00"}],
                          "facts": {}, "presets": []})");
  REQUIRE(esc);
  CHECK(esc->checks[0].detail == "\xc3\xa9\xf0\x9f\x98\x80");
}

TEST_CASE("the table shows every check, its cause and fix, the level and the presets") {
  Observations o = healthy();
  o.facts.apparmor_restrict_userns = 1;
  fail_at(o.ns, "uid_map", EPERM);
  Report r = diagnose(o);
  std::string t = format_table(r);
  for (const auto& c : r.checks) {
    CHECK_MESSAGE(has(t, ("\n" + c.layer).c_str()), c.layer);
    CHECK(has(t, c.detail.c_str()));
  }
  CHECK(has(t, "    cause: Ubuntu's AppArmor restriction"));
  CHECK(has(t, "    fix:   install ringfence's AppArmor profile"));
  CHECK(has(t, "\n             sudo apparmor_parser -r /etc/apparmor.d/ringfence\n"));
  CHECK(has(t, "\nlevel: landlock (uid/gid maps: "));
  CHECK(has(
      t, "\npresets: trusted soft, balanced landlock, hardened landlock, read-only landlock, ci landlock\n"));
  CHECK(has(t, "\ncache: off\n"));
}

TEST_CASE("run_trial: steps come back; a hung trial and its children are killed") {
  TrialResult t = run_trial(
      [](StepWriter& w) {
        w.ok("one", "x");
        w.fail("two", EPERM);
      },
      2000);
  CHECK(t.failure.empty());
  CHECK(t.ok("one"));
  REQUIRE(t.find("two"));
  CHECK(t.find("two")->err == EPERM);

  // Orphans come to us, so the killed grandchild can be reaped and its signal seen.
  REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
  static int pids[2];
  int p[2];
  REQUIRE(::pipe(p) == 0);
  static int report_fd;
  report_fd = p[1];
  t = run_trial(
      [](StepWriter& w) {
        w.begin("hang");
        pid_t g = ::fork();
        if (g == 0) {
          for (;;) ::pause();
        }
        int mine[2] = {::getpid(), g};
        (void)!::write(report_fd, mine, sizeof mine);
        for (;;) ::pause();
      },
      300);
  ::close(p[1]);
  REQUIRE(::read(p[0], pids, sizeof pids) == sizeof pids);
  ::close(p[0]);
  CHECK(t.timed_out);
  CHECK(has(t.failure, "timed out"));
  REQUIRE(t.find("hang"));
  CHECK(t.find("hang")->state == Step::State::Begun);
  CHECK(::kill(pids[0], 0) != 0);  // killed and reaped by run_trial
  int status = 0;
  pid_t got = 0;
  for (int i = 0; i < 400 && (got = ::waitpid(pids[1], &status, WNOHANG)) == 0; ++i) ::usleep(5000);
  REQUIRE(got == pids[1]);  // the grandchild died with the trial's process group
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);

  t = run_trial(
      [](StepWriter& w) {
        w.begin("crash");
        ::abort();
      },
      2000);
  CHECK(has(t.failure, "killed by SIGABRT"));
}

TEST_CASE("cache: used when the key matches; stale, or ignored when not ours or open to others") {
  char tmpl[] = "/tmp/rf-probe-cache-XXXXXX";
  REQUIRE(::mkdtemp(tmpl));
  const std::string dir = std::string(tmpl) + "/ringfence";
  Report r = diagnose(healthy());
  r.probed_at = 42;
  CacheKey key = {{"format", "1"}, {"boot_id", "b1"}, {"uid", "1000"}};
  CHECK(read_cache(dir, key).status == "missing");
  REQUIRE(write_cache(dir, key, r));
  struct stat st {};
  REQUIRE(::stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat((dir + "/probe.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CacheRead c = read_cache(dir, key);
  CHECK(c.status == "used");
  REQUIRE(c.report);
  CHECK(c.report->same_content(r));

  CacheKey other = key;
  other[1].second = "b2";
  CHECK(read_cache(dir, other).status == "stale (boot_id differs)");
  CHECK(read_cache(dir, {{"format", "1"}, {"boot_id", "b1"}, {"uid", "1000"}, {"new", "x"}}).status ==
        "stale (new differs)");

  ::chmod((dir + "/probe.json").c_str(), 0622);
  CHECK(read_cache(dir, key).status == "ignored (writable by others)");
  ::chmod((dir + "/probe.json").c_str(), 0600);
  ::chmod(dir.c_str(), 0755);
  CHECK(has(read_cache(dir, key).status, "is open to other users"));
  CHECK_FALSE(write_cache(dir, key, r));
  ::chmod(dir.c_str(), 0700);

  ::rename((dir + "/probe.json").c_str(), (dir + "/real.json").c_str());
  REQUIRE(::symlink("real.json", (dir + "/probe.json").c_str()) == 0);
  CHECK(has(read_cache(dir, key).status, "ignored ("));
  ::unlink((dir + "/probe.json").c_str());

  const int fd = ::open((dir + "/probe.json").c_str(), O_CREAT | O_WRONLY, 0600);
  REQUIRE(fd >= 0);
  CHECK(::write(fd, "{\"key\": ", 8) == 8);
  ::close(fd);
  CHECK(has(read_cache(dir, key).status, "ignored (JSON:"));

  if (::geteuid() == 0) {
    REQUIRE(write_cache(dir, key, r));
    CHECK(::chown((dir + "/probe.json").c_str(), 65534, 65534) == 0);
    CHECK(read_cache(dir, key).status == "ignored (owned by uid 65534)");
    CHECK(::chown(dir.c_str(), 65534, 65534) == 0);
    CHECK(read_cache(dir, key).status == "ignored (" + dir + " is owned by uid 65534)");
  }
  CHECK(std::system(("rm -rf " + std::string(tmpl)).c_str()) == 0);
}
