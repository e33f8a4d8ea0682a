// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence run`: from options (+ profile file + preset) to a plan: the Spec the engine runs,
// the throwaway HOME to prepare and clean up, and a plain account of what is enforced.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/presets/presets.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::cli {

// A file of the agent's configuration copied into the throwaway HOME (and back, when the agent
// may change it), because agents replace such files by rename, which a bind mount refuses.
struct HomeCopy {
  std::string host;    // absolute path in the real home
  std::string inside;  // relative path in the throwaway HOME
  bool copy_back = false;
};

struct RunPlan {
  spec::Spec spec;
  presets::Settings settings;
  presets::Level level = presets::Level::Kernel;
  std::string agent;        // agent profile name
  std::string project;      // realpath of the project
  std::string home_inside;  // $HOME inside the sandbox
  std::string home_host;    // the throwaway directory (made by prepare_home)
  std::vector<HomeCopy> copies;
  std::vector<std::string> soft_agent_dirs;  // soft jail: agent directories linked into HOME
  // The landlock level: directories made in the throwaway HOME, then links (relative path in
  // HOME -> host path) to the agent's entries, which the Landlock rules grant one by one; and
  // the private TMPDIR (made by prepare_home, removed by finish_home).
  std::vector<std::string> home_dirs;
  std::vector<std::pair<std::string, std::string>> home_links;
  std::string tmp_host;
  // Entries of the project's .git that are missing and covered read-only: made (empty) by
  // prepare_home, just before the launch, so that the dry run changes nothing.
  struct GitEntry {
    std::string path;
    bool dir = false;
  };
  std::vector<GitEntry> git_make;
  // Writable entries of the agent's list missing in its directory on the host: made (empty
  // directories, by the user, following no link below `top`) by prepare_home, as git_make.
  struct AgentEntry {
    std::string top;  // the agent's directory on the host
    std::string rel;  // below it
  };
  std::vector<AgentEntry> agent_make;
  // Files of the project that host tools run later (presets/autorun.hpp), as found before the
  // start: the run ends with a warning naming those made or changed inside.
  struct Autorun {
    std::string rel;
    std::int64_t mtime_ns = 0;
    std::int64_t size = 0;
    bool dir = false;
  };
  std::vector<Autorun> autorun_before;
  bool autorun_scanned = false;
  std::vector<std::string> dropped_env;   // names only
  std::vector<std::string> masked;        // paths hidden in the project and on system paths
  std::vector<std::string> notes;         // what is not enforced, and why
  std::vector<std::string> limits;        // each --limit and what enforces it
  std::vector<std::string> exec_allowed;  // shell off: the only files that may be executed
  bool dry_run = false;
  std::optional<presets::Level> required;  // --require / the profile file's `require`
  std::string level_reason;                // why the level is below the preset's aim
  std::string level_summary;               // below kernel: what the level does not enforce, in short
  std::string profile_origin;              // the profile file used, if any
  struct NetRules {
    std::vector<std::string> allow, deny;  // as written (the network layer parses them)
  } net_rules;
};

// What the host can do, found by the caller (app, from the engine's probes): the front end
// only decides with it.
struct HostFacts {
  int landlock_abi = 0;  // 0: no Landlock
  // The highest level this host reaches, with the network on and off (off needs a network
  // namespace), and why not higher.
  presets::Level level_network_on = presets::Level::Kernel;
  presets::Level level_network_off = presets::Level::Kernel;
  std::string why_not_kernel;
  // Per cgroup controller ("memory", "pids", "cpu"): whether a cgroup made for the sandbox can
  // enforce its limit here, and where (or why not). A controller not listed is not enforceable.
  struct CgroupController {
    std::string name;
    bool usable = false;
    std::string detail;
  };
  std::vector<CgroupController> cgroup;
};

// Resolve preset, profile file and options into a plan. Nothing on the host changes.
base::Result<RunPlan> plan_run(const RunOptions& opts, const HostFacts& host);

// The throwaway HOME: a fresh 0700 directory (under $XDG_RUNTIME_DIR/ringfence or
// /tmp/ringfence-UID), the agent's copied files in it; sets plan.home_host and the HOME bind.
base::Status prepare_home(RunPlan& plan);
// After the run: copy changed agent files back, then remove the directory (unless kept) and
// the private TMPDIR; what could not be removed is added to not_removed, one "PATH: reason" each.
base::Status finish_home(const RunPlan& plan, std::vector<std::string>& not_removed);
// After the run: one line per file of the project that a host tool runs later (a git
// repository below the top, .git/commondir, .envrc, editor tasks, CI...) made or changed
// inside, at most 20 and then a count.
std::vector<std::string> autorun_warnings(const RunPlan& plan);

// The nameserver addresses of a resolv.conf (scope ids dropped), in order.
std::vector<std::string> nameservers_in(std::string_view resolv_conf);

// The dry run's text: settings, level, mounts, environment names, seccomp profile, notes.
std::string describe_plan(const RunPlan& plan);

}  // namespace rf::cli
