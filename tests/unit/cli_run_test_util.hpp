// SPDX-License-Identifier: LGPL-2.1-or-later
// Helpers for the `ringfence run` plan tests: host facts of a given level, the options of a
// plain run in a project, and what to look for in a plan.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "ringfence/base/remove_tree.hpp"
#include "ringfence/cli/host_snapshot.hpp"

#include "ringfence/cli/native_run.hpp"
#include "ringfence/presets/presets.hpp"

namespace rf::test {

// A host that reaches `level` with the network on and off, with Landlock at `abi`.
inline rf::cli::HostFacts host_at(rf::presets::Level level, int abi = 7) {
  rf::cli::HostFacts h;
  h.landlock_abi = abi;
  h.level_network_on = h.level_network_off = level;
  if (level != rf::presets::Level::Kernel)
    h.why_not_kernel = "user namespace: unshare(CLONE_NEWUSER): Operation not permitted";
  return h;
}

// `ringfence run --no-profile --network off --project PROJECT -- true`.
inline rf::cli::RunOptions plain_run(const std::string& project) {
  rf::cli::RunOptions o;
  o.project = project;
  o.no_profile = true;
  o.network = "off";
  o.command = {"true"};
  return o;
}

// The rights of the Landlock rule on exactly this path; -1 when there is none.
inline long rights_of(const rf::cli::RunPlan& p, const std::string& path) {
  for (const auto& r : p.spec.landlock_rules)
    if (r.path == path) return r.rights;
  return -1;
}

// A note of the plan contains `text`.
inline bool has_note(const rf::cli::RunPlan& p, const std::string& text) {
  return std::any_of(p.notes.begin(), p.notes.end(),
                     [&text](const std::string& n) { return n.find(text) != std::string::npos; });
}

// A temporary project, home and runtime directory, removed at the end, and a snapshot of a
// caller living there (its environment: HOME, PATH, XDG_RUNTIME_DIR and `extra_env`).
struct RunTree {
  std::string base, proj, home, run;
  std::vector<std::string> extra_env;
  explicit RunTree(const char* prefix = "rf-unit-run") {
    std::string tmpl = std::string("/tmp/") + prefix + "-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    base = tmpl;
    proj = base + "/proj";
    home = base + "/home";
    run = base + "/run";
    for (const auto& d : {proj, home, run}) ::mkdir(d.c_str(), 0700);
  }
  ~RunTree() { (void)rf::base::remove_tree(base); }
  RunTree(const RunTree&) = delete;
  RunTree& operator=(const RunTree&) = delete;
  [[nodiscard]] rf::cli::HostSnapshot snapshot() const {
    rf::cli::HostSnapshot s;
    s.environment = {"HOME=" + home, "PATH=/usr/bin", "XDG_RUNTIME_DIR=" + run};
    s.environment.insert(s.environment.end(), extra_env.begin(), extra_env.end());
    s.cwd = proj;
    s.uid = s.euid = ::getuid();
    s.gid = ::getgid();
    s.nameservers = {"192.0.2.53"};
    return s;
  }
};

}  // namespace rf::test
