// SPDX-License-Identifier: LGPL-2.1-or-later
// From observations to the report: one check per layer (its steps, what happened, the likely
// cause and fix), the host facts, the level and what each preset reaches. Pure: it reads
// nothing from the host.
#include <cerrno>
#include <initializer_list>
#include <utility>

#include "causes.hpp"
#include "observations.hpp"

namespace rf::probe {
namespace {

using StepList = std::initializer_list<std::pair<const char*, const char*>>;  // step name, label

struct Outcome {
  Availability available = Availability::No;
  std::string detail;
  const Step* failed = nullptr;  // the step that failed or did not finish
};

// The first step of t that did not succeed, as "label: ERRNO (text); note".
std::string failed_text(const Step& s, const char* label, const TrialResult& t) {
  std::string d = label;
  if (s.state == Step::State::Begun) return d + ": did not finish (" + t.failure + ")";
  d += ": ";
  d += s.err ? errno_text(s.err) : "failed";
  if (!s.note.empty()) d += "; " + s.note;
  return d;
}

// The steps in order: all ok -> Yes with their notes; else No at the first that failed.
// `blocked` says why a step that never ran did not (an earlier check failed).
Outcome outcome(const TrialResult& t, StepList steps, const std::string& blocked) {
  Outcome o;
  std::string parts;
  for (const auto& [name, label] : steps) {
    const Step* s = t.find(name);
    if (!s) {
      if (blocked.empty())
        o.detail = t.failure.empty() ? "not tried" : "not reached: " + t.failure;
      else
        o.detail = "not tried: " + blocked;
      return o;
    }
    if (s->state != Step::State::Ok) {
      o.detail = failed_text(*s, label, t);
      o.failed = s;
      return o;
    }
    parts += (parts.empty() ? "" : "; ") + std::string(label) + " ok" +
             (s->note.empty() ? "" : " (" + s->note + ")");
  }
  o.available = Availability::Yes;
  o.detail = parts;
  return o;
}

// A step that never reported its result: the trial hung or was killed in it.
Cause unfinished_cause(const TrialResult& t) {
  if (t.failure.find("SIGSYS") != std::string::npos)
    return {"a seccomp filter on this process kills this system call (SIGSYS) instead of refusing it",
            "allow the call in the seccomp profile this process runs under (the container runtime's)"};
  return {"the step did not finish: " + t.failure, "report it with the output of `ringfence doctor --json`"};
}

void add(Report& r, const char* id, const char* layer, const char* needed_for, const Outcome& o,
         const Cause& c = {}) {
  r.checks.push_back({id, layer, o.available, o.detail, c.cause, c.fix, needed_for});
}

// The cause of o's failed step: `why` for a step that failed, the trial's end for one that
// never finished.
template <typename Why>
Cause cause_of(const Outcome& o, const TrialResult& t, Why why) {
  if (!o.failed) return {};
  if (o.failed->state == Step::State::Begun) return unfinished_cause(t);
  return why(*o.failed);
}

// Why a namespace step was not tried: the first failed step of the chain the others need.
std::string blocked_in_ns(const TrialResult& t) {
  for (const char* name : {"userns", "setgroups", "uid_map", "gid_map", "mountns", "private", "tmpfs"}) {
    const Step* s = t.find(name);
    if (s && s->state != Step::State::Ok) return std::string(name) + " failed";
  }
  return t.failure;
}

void namespace_checks(const Observations& o, Report& r) {
  const TrialResult& t = o.ns;
  const std::string blocked = blocked_in_ns(t);
  const char* kKernel = "kernel level";
  Outcome u = outcome(t, {{"userns", "unshare(CLONE_NEWUSER)"}}, "");
  add(r, "userns", "user namespace", kKernel, u,
      cause_of(u, t, [&](const Step& s) { return userns_cause(o.facts, s.err); }));
  auto after = [&](const char* id, const char* layer, const char* needed, StepList steps) {
    Outcome x = outcome(t, steps, blocked);
    add(r, id, layer, needed, x, cause_of(x, t, [&](const Step& s) { return after_userns_cause(o, s); }));
  };
  after("idmap", "uid/gid maps", kKernel,
        {{"setgroups", "setgroups"}, {"uid_map", "uid_map"}, {"gid_map", "gid_map"}});
  after("mountns", "mount namespace + tmpfs", kKernel,
        {{"mountns", "unshare(CLONE_NEWNS)"}, {"private", "/ made private"}, {"tmpfs", "mount tmpfs"}});
  after("pidns_proc", "PID namespace + /proc", kKernel,
        {{"pidns", "unshare(CLONE_NEWPID)"}, {"proc", "mount proc"}});
  after("ipc_uts", "IPC + UTS namespaces", kKernel,
        {{"ipc_uts", "unshare(CLONE_NEWIPC|CLONE_NEWUTS), sethostname"}});
  after("netns", "network namespace + lo", "network off",
        {{"netns", "unshare(CLONE_NEWNET)"}, {"lo_up", "lo up"}, {"lo_echo", "UDP on 127.0.0.1"}});
  after("pivot_root", "pivot_root", kKernel, {{"pivot_root", "pivot_root into a tmpfs"}});
  after("mount_setattr", "mount_setattr", "optional (classic remount fallback)",
        {{"mount_setattr", "mount_setattr"}});
  after("overlay", "overlayfs in a user namespace", "overlay options only", {{"overlay", "mount overlay"}});
  after("binfmt_misc", "binfmt_misc in a user namespace", "shell off: the loader guard",
        {{"binfmt_misc", "fsopen binfmt_misc"}});
}

void seccomp_checks(const Observations& o, Report& r) {
  const Facts& f = o.facts;
  Outcome nnp = outcome(o.seccomp, {{"no_new_privs", "prctl(PR_SET_NO_NEW_PRIVS)"}}, "");
  add(r, "no_new_privs", "no_new_privs", "kernel and landlock levels", nnp,
      cause_of(nnp, o.seccomp, [](const Step& s) {
        return Cause{"unexpected error " + errno_text(s.err),
                     "report it with the output of `ringfence doctor --json`"};
      }));
  Outcome sc = outcome(o.seccomp, {{"filter", "seccomp(SECCOMP_SET_MODE_FILTER)"}}, "no_new_privs failed");
  add(r, "seccomp", "seccomp filter", "kernel and landlock levels", sc,
      cause_of(sc, o.seccomp, [&](const Step& s) { return seccomp_cause(f, s); }));
  Outcome n = outcome(o.seccomp, {{"listener", "SECCOMP_FILTER_FLAG_NEW_LISTENER"}, {"notify", "round trip"}},
                      "seccomp filter failed");
  add(r, "seccomp_notify", "seccomp user notifications", "network policy (network on)", n,
      cause_of(n, o.seccomp, [&](const Step& s) { return notify_cause(f, s); }));
  Outcome p = outcome(o.pidfd, {{"pidfd_open", "pidfd_open"}, {"pidfd_getfd", "pidfd_getfd"}}, "");
  add(r, "pidfd_getfd", "pidfd_open + pidfd_getfd", "network policy (network on)", p,
      cause_of(p, o.pidfd, [&](const Step& s) { return pidfd_cause(f, s); }));
}

void landlock_check(const Observations& o, Report& r) {
  Outcome l = outcome(
      o.landlock,
      {{"abi", "ABI"}, {"ruleset", "ruleset"}, {"restrict_self", "restrict_self"}, {"enforced", "enforced"}},
      "");
  Cause c = cause_of(l, o.landlock, [&](const Step& s) { return landlock_cause(o.facts, s); });
  const Step* abi = o.landlock.find("abi");
  r.landlock_abi = 0;
  if (l.available == Availability::Yes && abi) {
    r.landlock_abi = std::atoi(abi->note.c_str());
    std::string gaps = landlock_gaps(r.landlock_abi);
    if (!gaps.empty()) {
      l.available = Availability::Partial;
      c = {"Landlock ABI " + std::to_string(r.landlock_abi) + ": " + gaps,
           "a newer kernel (ABI 6 needs 6.12 or later); the kernel level does not depend on it"};
    }
  }
  add(r, "landlock", "Landlock", "landlock level, shell off", l, c);
}

void cgroup_check(const Observations& o, Report& r) {
  const TrialResult& t = o.cgroup;
  Outcome base = outcome(t, {{"locate", "own cgroup v2"}, {"mkdir", "create a child group"}}, "");
  Check c{"cgroup", "cgroup v2 delegation", base.available, base.detail, "", "", "memory and pids limits"};
  auto why_cgroup = [&](const Step& s) { return cgroup_cause(o.facts, t, s); };
  if (base.failed) {
    Cause why = cause_of(base, t, why_cgroup);
    c.cause = why.cause;
    c.fix = why.fix;
  } else if (base.available == Availability::Yes) {
    Outcome use =
        outcome(t, {{"attach", "move a process in"}, {"memory.max", "memory.max"}, {"pids.max", "pids.max"}},
                "the trial stopped");
    const Step* removed = t.find("rmdir");
    c.detail = base.detail + "; " + use.detail;
    if (!removed || removed->state != Step::State::Ok)
      c.detail += "; removing it: " + (removed ? errno_text(removed->err) : t.failure);
    if (use.failed) {
      c.available = Availability::Partial;
      Cause why = cause_of(use, t, why_cgroup);
      c.cause = why.cause;
      c.fix = why.fix;
    }
  }
  r.checks.push_back(c);
}

void io_uring_check(const Facts& f, Report& r) {
  Check c{"io_uring", "io_uring sysctl", Availability::No, "", "", "", "defence in depth"};
  const std::string seccomp_note =
      "ringfence's seccomp profiles deny io_uring inside the sandbox anyway (ENOSYS)";
  if (!f.io_uring_disabled) {
    c.detail = "kernel.io_uring_disabled is absent (kernel before 6.6)";
    c.cause = "io_uring cannot be switched off host-wide on this kernel";
    c.fix = "none needed: " + seccomp_note;
  } else if (*f.io_uring_disabled >= 2) {
    c.available = Availability::Yes;
    c.detail = "kernel.io_uring_disabled = 2: io_uring is off for every process";
  } else {
    c.available = *f.io_uring_disabled == 1 ? Availability::Partial : Availability::No;
    c.detail = "kernel.io_uring_disabled = " + std::to_string(*f.io_uring_disabled) +
               (*f.io_uring_disabled == 1 ? ": io_uring only for kernel.io_uring_group" : ": io_uring is on");
    c.cause = "io_uring's operations bypass seccomp; " + seccomp_note;
    c.fix = "optional: sudo sysctl -w kernel.io_uring_disabled=2";
  }
  r.checks.push_back(c);
}

std::string optional_value(const std::optional<long>& v) { return v ? std::to_string(*v) : "(absent)"; }

void add_facts(const Observations& o, Report& r) {
  const Facts& f = o.facts;
  auto fact = [&r](const char* id, std::string value) { r.facts.push_back({id, std::move(value)}); };
  fact("kernel", f.kernel_release);
  fact("uid", std::to_string(f.uid));
  const std::string wsl = wsl_kind(f);
  fact("wsl", wsl.empty() ? "no" : wsl + " (" + f.kernel_release + ")");
  const std::string container = container_evidence(o);
  fact("container", container.empty() ? "none detected" : container);
  fact("user.max_user_namespaces", optional_value(f.max_user_namespaces));
  fact("kernel.unprivileged_userns_clone", optional_value(f.unprivileged_userns_clone));
  fact("kernel.apparmor_restrict_unprivileged_userns", optional_value(f.apparmor_restrict_userns));
  fact("kernel.io_uring_disabled", optional_value(f.io_uring_disabled));
  fact("kernel.yama.ptrace_scope", optional_value(f.ptrace_scope));
  fact("apparmor", f.apparmor_enabled ? "enabled" : "not enabled");
  fact("lsm_label", f.lsm_label.empty() ? "(none)" : f.lsm_label);
  fact("seccomp", f.seccomp_mode == 0
                      ? "none on this process"
                      : "mode " + std::to_string(f.seccomp_mode) + ", " + std::to_string(f.seccomp_filters) +
                            " filter(s) already on this process");
  fact("no_new_privs", f.no_new_privs ? "already set on this process" : "not set");
  std::string over;
  for (const auto& m : f.proc_overmounts) over += (over.empty() ? "" : " ") + m;
  fact("proc_overmounts", over.empty() ? "none" : over);
}

}  // namespace

Report diagnose(const Observations& o) {
  Report r;
  namespace_checks(o, r);
  seccomp_checks(o, r);
  landlock_check(o, r);
  cgroup_check(o, r);
  io_uring_check(o.facts, r);
  add_facts(o, r);
  conclude(r);
  return r;
}

}  // namespace rf::probe
