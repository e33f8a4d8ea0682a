// SPDX-License-Identifier: LGPL-2.1-or-later
// The limits of a run (run_limits.hpp) and whether this kernel has pid_max per PID namespace.
#include "run_limits.hpp"

#include <sys/resource.h>

#include <charconv>
#include <string>
#include <string_view>

#include "ringfence/presets/presets.hpp"

namespace rf::cli {

bool per_pidns_pid_max(std::string_view release) {
  unsigned major = 0, minor = 0;
  const char* p = release.data();
  const char* end = p + release.size();
  auto number = [&p, end](unsigned& out) {
    const auto r = std::from_chars(p, end, out);
    if (r.ec != std::errc() || r.ptr == p) return false;
    p = r.ptr;
    return true;
  };
  if (!number(major) || p == end || *p != '.') return false;
  ++p;
  if (!number(minor)) return false;
  return major > 6 || (major == 6 && minor >= 14);
}

void add_limits(RunPlan& plan, const HostFacts& host, uid_t uid) {
  const presets::Limits& l = plan.settings.limits;
  auto& out = plan.spec.supervision.rlimits;
  auto add = [&out](int res, const std::optional<std::uint64_t>& v) {
    if (v && *v != presets::kUnlimited) out.push_back({res, *v});
  };
  add(RLIMIT_NOFILE, l.nofile);
  add(RLIMIT_CORE, l.core);
  add(RLIMIT_FSIZE, l.fsize);
  if (l.nofile && *l.nofile != presets::kUnlimited) plan.limits.push_back("nofile: RLIMIT_NOFILE");
  if (l.core && *l.core != presets::kUnlimited) plan.limits.push_back("core: RLIMIT_CORE");
  if (l.fsize && *l.fsize != presets::kUnlimited) plan.limits.push_back("fsize: RLIMIT_FSIZE");
  auto controller = [&host](std::string_view name) -> const HostFacts::CgroupController* {
    for (const auto& c : host.cgroup)
      if (c.name == name && c.usable) return &c;
    return nullptr;
  };
  auto why_not = [&host](std::string_view name) {
    for (const auto& c : host.cgroup)
      if (c.name == name) return c.detail;
    return std::string("no cgroup information");
  };
  // A limit the user asked for that cannot hold refuses the run (a preset's default is best
  // effort): a CI job believing it is bounded must not run unbounded.
  const presets::Limits& asked = plan.asked_limits;
  auto unenforced = [&plan](const char* name, bool was_asked, const std::string& why) {
    plan.notes.push_back(std::string(name) + " limit: not enforced: " + why);
    if (was_asked)
      plan.unenforced_limits.push_back(
          "the " + std::string(name) + " limit cannot be enforced here: " + why +
          "; run ringfence in a cgroup delegated to you (systemd-run --user --scope -p Delegate=yes "
          "ringfence run ...)");
  };
  spec::CgroupLimits& cg = plan.spec.supervision.cgroup;
  if (l.memory && *l.memory != presets::kUnlimited) {
    if (const auto* c = controller("memory")) {
      cg.memory_bytes = *l.memory;
      plan.limits.push_back("memory: the sandbox's cgroup (" + c->detail + ")");
    } else {
      unenforced("memory", asked.memory && *asked.memory != presets::kUnlimited, why_not("memory"));
    }
  }
  if (l.cpu_milli && *l.cpu_milli != 0) {
    if (const auto* c = controller("cpu")) {
      cg.cpu_milli = *l.cpu_milli;
      plan.limits.push_back("cpu: the sandbox's cgroup (" + c->detail + ")");
    } else {
      unenforced("cpu", asked.cpu_milli && *asked.cpu_milli != 0, why_not("cpu"));
    }
  }
  // The preset's own bound, with no cgroup needed for memory or cpu: the PID namespace's
  // pid_max, which a new pid number checks in the namespace and each one below it. Once the
  // numbers wrap the kernel gives out only those from 300 up, so the maximum is set 299 above the
  // bound: the command can always have N tasks, and never more than N + 299 at once. A
  // --limit pids the user sets takes the cgroup, which counts exactly.
  const bool asked_pids = asked.pids && *asked.pids != presets::kUnlimited;
  const bool pid_max_fits = l.pids && *l.pids != presets::kUnlimited && *l.pids <= 4194304 - 300;
  if (pid_max_fits && !asked_pids && host.pidns_pid_max && !cg.any() &&
      plan.spec.jail == spec::Jail::Kernel && plan.spec.ns.user && plan.spec.ns.pid) {
    plan.spec.supervision.pidns_pid_max = *l.pids + 300;
    plan.limits.push_back("pids: the PID namespace's pid_max (" + std::to_string(*l.pids) +
                          " tasks always, at most " + std::to_string(*l.pids + 299) + " at once)");
  } else if (l.pids && *l.pids != presets::kUnlimited) {
    if (const auto* c = controller("pids")) {
      cg.pids = *l.pids;
      plan.limits.push_back("pids: the sandbox's cgroup (" + c->detail + ")");
    } else if (plan.spec.ns.user && uid == 0) {
      // uid 0 mapped to the host's root is never held by RLIMIT_NPROC.
      unenforced("pids", asked_pids,
                 "RLIMIT_NPROC does not bind uid 0 mapped to the host's root (" + why_not("pids") + ")");
    } else if (plan.spec.ns.user) {
      add(RLIMIT_NPROC, l.pids);
      plan.limits.push_back("pids: RLIMIT_NPROC in the sandbox's user namespace");
      plan.notes.push_back(
          "pids limit: applied as RLIMIT_NPROC, which counts every process of the user in the sandbox's user "
          "namespace on Linux 5.14 and later, every process of the user on the host before (" +
          why_not("pids") + ")");
    } else if (plan.settings.limits.pids == presets::preset(plan.settings.preset).limits.pids &&
               plan.settings.preset == presets::PresetName::Balanced) {
      // The default bound without a user namespace of its own would count the user's host
      // processes: a desktop's threads could exhaust it before the sandbox forks once.
      plan.notes.push_back(
          "pids limit: not enforced: without the sandbox's cgroup or user namespace, RLIMIT_NPROC "
          "would count every process of the user on the host (" +
          why_not("pids") + "); --limit pids=N applies it anyway");
    } else {
      add(RLIMIT_NPROC, l.pids);
      plan.limits.push_back("pids: RLIMIT_NPROC");
      plan.notes.push_back(
          "pids limit: applied as RLIMIT_NPROC, which counts every process of the user, not the "
          "sandbox's (" +
          why_not("pids") + ")");
    }
  }
}

}  // namespace rf::cli
