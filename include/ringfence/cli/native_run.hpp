// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence run`: from options (+ profile file + preset) and a snapshot of the host to a plan:
// the Spec the engine runs, the throwaway HOME to prepare and clean up, and a plain account of
// what is enforced. The steps: gather_host_snapshot, plan_run, compile_plan_seccomp, then a
// ThrowawayHome prepared before the engine runs and finished after it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/cli/agent_state.hpp"
#include "ringfence/cli/host_snapshot.hpp"
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
  std::string home_host;    // the throwaway directory (made by ThrowawayHome::prepare)
  std::vector<HomeCopy> copies;
  AgentStatePlan agent_state;  // where the agent's entries come from, and are kept (agent_state.hpp)
  std::vector<std::string> soft_agent_dirs;  // soft jail: agent directories linked into HOME
  // The landlock level: directories made in the throwaway HOME, then links (relative path in
  // HOME -> host path) to the agent's entries, which the Landlock rules grant one by one; and
  // the private TMPDIR (made by ThrowawayHome::prepare, removed by ThrowawayHome::finish).
  std::vector<std::string> home_dirs;
  std::vector<std::pair<std::string, std::string>> home_links;
  std::string tmp_host;
  // Entries of the project's .git that are missing and covered read-only: made (empty) by
  // ThrowawayHome::prepare, just before the launch, so that the dry run changes nothing.
  struct GitEntry {
    std::string path;
    bool dir = false;
    std::string top;  // the git directory it lies in (empty: the project's .git)
  };
  std::vector<GitEntry> git_make;
  // A worktree's or a submodule's git directories outside the project, bound with the .git
  // protection (run_git.cpp); those without a commondir, watched for one made inside.
  std::vector<std::string> git_dirs_outside;
  std::vector<std::string> git_watch_commondir;
  // Toolchains (run_toolchains.cpp): the directories bound read-only, the PATH the command gets
  // (its entries missing inside dropped, listed in path_dropped) and the variables they need.
  std::vector<std::string> toolchains;
  std::optional<std::string> path_inside;
  std::vector<std::string> path_dropped;
  std::vector<std::pair<std::string, std::string>> toolchain_env;
  // Files written into the throwaway HOME by ThrowawayHome::prepare (the filtered gitconfig),
  // relative to it; and the gitconfig settings copied and left out (names only).
  struct HomeFile {
    std::string rel;
    std::string text;
  };
  std::vector<HomeFile> home_files;
  std::vector<std::string> gitconfig_kept, gitconfig_dropped;
  // The command when it is not found inside but is on the host: where, and what brings it in.
  std::string missing_command_hint;
  // Writable entries of the agent's list missing in its directory on the host: made (empty
  // directories, by the user, following no link below `top`) by ThrowawayHome::prepare, as git_make.
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
    unsigned mode = 0;  // st_mode: links, FIFOs, sockets and devices are risky by their type
  };
  std::vector<Autorun> autorun_before;
  std::string cache_dir;  // --cache, absolute
  bool autorun_scanned = false;
  std::vector<std::string> dropped_env;  // names only
  std::vector<std::string> masked;       // paths hidden in the project and on system paths
  // Project paths a mask names that stay readable (--unmask, or no secret in them at the start).
  std::vector<std::string> unmasked;
  std::vector<std::string> notes;   // what is not enforced, and why
  std::vector<std::string> limits;  // each --limit and what enforces it
  // Limits the user asked for (--limit, the profile's [limits]) that this host cannot enforce,
  // each with why and what would: the run is refused (kExitBelowLevel) unless best effort.
  std::vector<std::string> unenforced_limits;
  bool limit_best_effort = false;
  presets::Limits asked_limits;              // what the user set (not the preset's defaults)
  std::vector<std::string> exec_allowed;     // shell off: the only files that may be executed
  std::vector<std::string> loaders_guarded;  // shell off, kernel jail: loaders run only as interpreters
  bool dry_run = false;
  bool verbose = false;                    // --verbose: the dry run lists everything (every dropped variable)
  std::optional<presets::Level> required;  // --require / the profile file's `require`
  std::string level_reason;                // why the level is below the preset's aim
  std::string level_summary;               // below kernel: what the level does not enforce, in short
  std::string profile_origin;              // the profile file used, if any
  struct NetRules {
    std::vector<std::string> allow, deny;  // as written (the network layer parses them)
  } net_rules;
  // The egress allowlist (--allow-host, --allow-hosts, the profile file's allow_hosts and
  // allow_host_sets, then the agent's hosts): every host rule once, in its first place, with where
  // it came from ("--allow-host", "set npm", "agent claude", "profile file", "profile file, set go").
  struct AllowedHost {
    std::string rule;  // as net::parse_host_rule reads it: lowercase, no final dot
    std::string origin;
  };
  bool allowlisted = false;
  std::vector<AllowedHost> allowed_hosts;
  // Under the allowlist the sandbox's /etc/resolv.conf names only the sandbox's resolver: its
  // text, the path bound over in the sandbox (/etc/resolv.conf, or the file the host's link there
  // points to), and the directory ThrowawayHome::prepare writes it in (its bind's source).
  std::string resolv_conf;
  std::string resolv_conf_dest;
  // Network off, kernel jail: /etc/nsswitch.conf with name lookups from /etc/hosts only, so
  // that a lookup fails at once (no nameserver to wait for, nothing a tool retries); written
  // beside resolv.conf.
  std::string nsswitch_conf;
  std::string nsswitch_conf_dest;
  std::string etc_host;
};

// What the host can do, found by the caller (app, from the engine's probes): the front end
// only decides with it.
struct HostFacts {
  int landlock_abi = 0;  // 0: no Landlock
  // A user namespace may have a binfmt_misc instance of its own (Linux 6.7): the kernel jail
  // can then keep the ELF loader from running as a program under --shell off.
  bool userns_binfmt_misc = false;
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
  // kernel.pid_max is per PID namespace (Linux 6.14): the preset's pids bound can be the
  // sandbox's namespace's own, without a cgroup. Never on an older kernel, where the same write
  // by a user namespace whose root is the host's would change the host's pid_max.
  bool pidns_pid_max = false;
};

// Whether a kernel release ("6.18.44-...", uname's) makes kernel.pid_max per PID namespace:
// 6.14 and later. A release it cannot read is taken as older.
bool per_pidns_pid_max(std::string_view release);

// Starts what planning reads of the host and can read ahead (the walk of /etc for entries that
// are not for everyone) on a thread, so that it runs beside the probe and the rest of planning;
// end_plan_prefetch() waits for what planning did not take. The launcher must call it before
// the sandbox starts (the sandbox's helpers are forks of the launcher).
void prefetch_plan_inputs();
void end_plan_prefetch();

// Resolve preset, profile file and options into a plan. Nothing on the host changes, and
// nothing of the process is read: the environment, the working directory, the caller's ids and
// home and the resolvers come from `snapshot`. What it still looks at on the host is the
// filesystem the binds are made of (plan_host_paths, run_fs.hpp). The seccomp profile is not
// compiled here (compile_plan_seccomp).
base::Result<RunPlan> plan_run(const RunOptions& opts, const HostFacts& host, const HostSnapshot& snapshot);
// The same with this process's snapshot, its seccomp profile compiled.
base::Result<RunPlan> plan_run(const RunOptions& opts, const HostFacts& host);
// The plan's seccomp profile (settings.seccomp), compiled here in the launcher before any
// sandbox exists and added after the programs planning put first (--shell off's memfd filter).
base::Status compile_plan_seccomp(RunPlan& plan);
// The merged seccomp program of a profile name (built in: compiled with ringfence) or a policy
// file (compiled, then cached per user: run_seccomp.cpp). `cache_note`, when given, says where
// a policy file's program came from.
base::Result<std::string> seccomp_program(const std::string& name, std::string* cache_note = nullptr);

// The throwaway HOME of a plan, owned: prepare() removes what runs whose launcher was killed
// left there, then makes a fresh 0700 directory (under
// $XDG_RUNTIME_DIR/ringfence or /tmp/ringfence-UID) with the agent's copied files in it and sets
// plan.home_host and the HOME bind (and the missing git and agent entries, the autorun scan, the
// generated /etc/resolv.conf of the egress allowlist in a directory of its own); finish() copies
// changed agent files back, then removes the directory (unless kept), the private TMPDIR and the
// resolv.conf directory, adding what could not be removed to not_removed, one "PATH: reason"
// each. The destructor finishes (quietly) a home that was never finished.
class ThrowawayHome {
public:
  ThrowawayHome(RunPlan& plan, const HostSnapshot& host);
  ~ThrowawayHome();
  ThrowawayHome(const ThrowawayHome&) = delete;
  ThrowawayHome& operator=(const ThrowawayHome&) = delete;

  base::Status prepare();
  base::Status finish(std::vector<std::string>& not_removed);

private:
  RunPlan& plan_;
  std::optional<std::string> runtime_dir_;  // $XDG_RUNTIME_DIR as given
  std::optional<std::string> real_home_;    // $HOME as given: the soft jail's links point there
  uid_t uid_ = 0;
  bool finished_ = false;
  // flock(2)s on the HOME and TMPDIR directories, held while the launcher lives: a directory
  // with a final name whose lock is free lost its launcher (SIGKILL), and the next run removes it.
  base::UniqueFd home_lock_, tmp_lock_, etc_lock_;
};
// The regular files under `dir` modified at or after `since` (no link followed, the walk
// bounded): how many, and the first max_examples of them relative to `dir`.
struct WrittenFiles {
  std::size_t count = 0;
  std::vector<std::string> examples;
};
WrittenFiles files_written_since(const std::string& dir, time_t since, std::size_t max_examples);

// After the run: one line per file of the project that a host tool runs later (a git
// repository below the top, .git/commondir, .envrc, editor tasks, CI...) made or changed
// inside, at most 20 and then a count.
std::vector<std::string> autorun_warnings(const RunPlan& plan);

// The nameserver addresses of a resolv.conf (scope ids dropped), in order.
std::vector<std::string> nameservers_in(std::string_view resolv_conf);
// The sandbox's /etc/nsswitch.conf with the network off: the host's, name lookups from
// /etc/hosts only (its `hosts:` line replaced, or added).
std::string offline_nsswitch(std::string_view host_nsswitch_conf);

// The dry run's text: settings, level, mounts, environment names, seccomp profile, notes.
std::string describe_plan(const RunPlan& plan);

}  // namespace rf::cli
