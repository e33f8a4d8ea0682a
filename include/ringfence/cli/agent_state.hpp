// SPDX-License-Identifier: LGPL-2.1-or-later
// The agent's state across runs (docs/run.md, "Agent state"): a directory of ringfence's own per
// agent (or per project, or one the user names) that holds the agent's entries of its HOME
// (~/.claude, ~/.claude.json, ~/.codex...), seeded once by a copy of the host's, presented in the
// sandbox's HOME and never written back to the real home. And `ringfence agent-state`.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::presets {
struct AgentProfile;
}

namespace rf::cli {

struct HostSnapshot;
struct RunPlan;

enum class AgentStateMode {
  Shared,     // $XDG_STATE_HOME/ringfence/agents/AGENT (the default)
  Project,    // $XDG_STATE_HOME/ringfence/agents/AGENT/projects/NAME-HASH
  Dir,        // a directory the user names
  Throwaway,  // a copy of the host's entries in the throwaway HOME, dropped at exit
  Host,       // the real home's entries, bound as the agent profile says (its writable ones read-write)
};

// At most this much of the host's configuration is copied into a state (or throwaway) HOME on
// first use; past either bound the copy is refused and nothing of it is left.
inline constexpr std::uint64_t kStateCopyMaxBytes = 1ull << 30;  // 1 GiB
inline constexpr std::uint64_t kStateCopyMaxEntries = 100000;

struct AgentStatePlan {
  AgentStateMode mode = AgentStateMode::Host;
  std::string origin;     // what chose the mode: "--agent-state", "the profile file", "the default"
  std::string root;       // Shared, Project: the state root ($XDG_STATE_HOME/ringfence), checked below
  std::string dir;        // Shared, Project, Dir: the state directory
  std::string host_home;  // the real home: the first use copies the agent's entries from here
  std::string project;    // Project: the project's path (written in the state for `show`)
  // The agent profile's top-level entries (relative to HOME): its directories are bound (kernel
  // level) or linked (landlock, soft) from DIR/home, its files copied in and written back to
  // DIR/home at exit (an agent replaces them by rename, which a bind mount refuses).
  std::vector<std::string> dirs;
  std::vector<std::string> files;
  std::string warning;    // Host, chosen: what the sandbox may write that the host runs later
  bool prepared = false;  // prepare_agent_state succeeded: finish_agent_state writes files back

  // A state of ringfence's (Shared, Project, Dir) or a throwaway copy, for an agent with entries.
  bool active() const { return mode != AgentStateMode::Host && (!dirs.empty() || !files.empty()); }
  bool kept() const { return active() && mode != AgentStateMode::Throwaway; }
  std::string home() const { return dir + "/home"; }
};

// The state root: $XDG_STATE_HOME/ringfence when XDG_STATE_HOME is absolute, else
// $HOME/.local/state/ringfence (the snapshot's home).
std::string state_root(const HostSnapshot& snapshot);
// The per-project state's name: the project's basename (letters, digits, "._-" kept, at most 32)
// and the first 16 hex digits of the SHA-256 of its path: "myapp-1f0e3c...".
std::string project_state_name(const std::string& project);
// Lowercase hex SHA-256 (the project name's hash; exposed for tests).
std::string sha256_hex(const std::string& data);

// --agent-state / the profile file's agent_state (`given`, nullopt: the default) for this agent
// and project. "default", "project", "throwaway", "host", else a directory (absolute, or relative
// to the snapshot's cwd). Plans only: nothing on the host changes.
base::Result<AgentStatePlan> plan_agent_state(const std::optional<std::string>& given,
                                              const std::string& origin, const presets::AgentProfile& agent,
                                              const std::string& project, const HostSnapshot& snapshot);

// Opens (making it 0700 where missing) the state directory, refusing one that is not the user's
// own, is group- or world-writable, or is a symbolic link, and the same for each directory from
// the state root down to it; the first use copies the host's entries into DIR/home (regular files,
// directories and links that stay inside, bounded), then the agent's directories are made there.
// Throwaway copies the host's entries into the throwaway HOME instead. Files are copied into the
// throwaway HOME; at the soft and landlock levels the directories are linked there. Called by
// ThrowawayHome::prepare once plan.home_host exists; `info` gets what the user should read.
base::Status prepare_agent_state(RunPlan& plan, uid_t uid, std::vector<std::string>& info);
// The agent's files, as the run left them in the throwaway HOME, written back to DIR/home
// (never to the real home); a link or a file past the bound is not taken.
base::Status finish_agent_state(const RunPlan& plan, uid_t uid);
// The dry run's lines: which state, what is bound or copied from it.
std::string describe_agent_state(const RunPlan& plan);

// `ringfence agent-state list | show AGENT | reset AGENT [--yes]`.
struct AgentStateCommand {
  enum class Op { List, Show, Reset } op = Op::List;
  std::string agent;
  bool yes = false;
};
// Prints to stdout/stderr, returns the exit code (0; kExitUsage for an unknown agent or a reset
// refused without --yes; kExitSetup when the state cannot be read or removed).
int run_agent_state_command(const AgentStateCommand& cmd, const HostSnapshot& snapshot);
// The same with an answer source (tests): `confirm` is asked when stdin is a terminal.
int run_agent_state_command(const AgentStateCommand& cmd, const HostSnapshot& snapshot, bool interactive,
                            bool (*confirm)(const std::string& question));

}  // namespace rf::cli
