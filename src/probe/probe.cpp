// SPDX-License-Identifier: LGPL-2.1-or-later
// The probe's entry points: run the trials, diagnose, and keep the answer for this boot.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "cache.hpp"
#include "observations.hpp"
#include "ringfence/probe/probe.hpp"

namespace rf::probe {
namespace {

// Each trial is a few system calls; a trial still running after this is reported as hung.
constexpr int kTrialTimeoutMs = 5000;

// The cgroup trial removes its group itself; if it died before, the group is removed here.
void remove_probe_group(const TrialResult& t) {
  const Step* made = t.find("mkdir");
  const Step* removed = t.find("rmdir");
  if (!made || made->state != Step::State::Ok || (removed && removed->state == Step::State::Ok)) return;
  if (made->note.find("/ringfence-probe-") == std::string::npos) return;  // only what the trial names
  for (int i = 0; i < 50; ++i) {
    if (::rmdir(made->note.c_str()) == 0 || errno != EBUSY) return;
    ::usleep(2000);
  }
}

Report probe_with(Facts facts) {
  Observations o;
  o.facts = std::move(facts);
  o.ns = run_trial(namespaces_trial, kTrialTimeoutMs);
  o.seccomp = run_trial(seccomp_trial, kTrialTimeoutMs);
  o.pidfd = run_trial(pidfd_trial, kTrialTimeoutMs);
  o.landlock = run_trial(landlock_trial, kTrialTimeoutMs);
  o.cgroup = run_trial(cgroup_trial, kTrialTimeoutMs);
  remove_probe_group(o.cgroup);
  Report r = diagnose(o);
  r.probed_at = static_cast<long long>(std::time(nullptr));
  return r;
}

}  // namespace

Report probe_host() {
  Report r = probe_with(gather_facts());
  r.cache = "off";
  return r;
}

Report host_report(bool use_cache) {
  if (!use_cache) return probe_host();
  Facts facts = gather_facts();
  const std::string dir = cache_dir();
  const CacheKey key = cache_key(facts);
  CacheRead cached = read_cache(dir, key);
  if (cached.report) {
    cached.report->cache = "used";
    cached.report->cache_path = dir + "/probe.json";
    return std::move(*cached.report);
  }
  Report r = probe_with(std::move(facts));
  base::Status w = write_cache(dir, key, r);
  r.cache_path = dir + "/probe.json";
  std::string wrote = w ? "written" : "not written: " + w.error().describe();
  r.cache =
      cached.status == "missing" ? wrote : cached.status + ", " + (w ? std::string("rewritten") : wrote);
  return r;
}

}  // namespace rf::probe
