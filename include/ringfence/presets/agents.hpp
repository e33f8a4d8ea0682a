// SPDX-License-Identifier: LGPL-2.1-or-later
// Agent profiles as data: which files under $HOME an agent CLI needs in its throwaway HOME, and
// which environment variables belong to it; plus recognising an agent from a command line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::presets {

enum class Access { ReadOnly, ReadWrite };

// How the engine brings a host path into the throwaway HOME.
enum class Transfer {
  Bind,  // bind-mount the host path, with `access`
  // A copy, writable inside and never written back. For files the agent replaces by rename (a
  // rename onto a bind-mounted file fails with EBUSY) and that also hold settings the host's
  // later sessions trust (MCP server commands, permissions): writing them back would let the
  // sandbox widen the host agent (threat-model.md PER-03).
  Copy,
};

// One path of an agent's configuration. The list is ordered: a directory comes before the
// entries inside it, which replace that part of it. An agent's own directory is read-only and
// its writable entries are an allowlist inside it, so that nothing else there (settings, hooks,
// plugins, instructions, environment files, launcher scripts the host runs later, unsandboxed:
// PER-03) can be changed, replaced or created, even where the host lacks it. An entry inside an
// earlier one is reached without following a link below that directory; a link there is left
// as it is, read-only.
struct ConfigPath {
  std::string path;  // relative to $HOME, e.g. ".claude"
  bool directory = true;
  Access access = Access::ReadWrite;
  Transfer transfer = Transfer::Bind;
  // Missing on the host: nothing to bring in (else the run refuses to start). A ReadWrite
  // directory inside an earlier directory is made there (by the user) instead; a file is not.
  bool optional = true;
};

struct AgentProfile {
  std::string name;                       // "claude": --agent NAME, profile-file `agent`
  std::string title;                      // "Claude Code"
  std::vector<ConfigPath> config;         // what the throwaway HOME holds
  std::vector<std::string> env;           // variables passed by exact name (its keys among them)
  std::vector<std::string> env_prefixes;  // variables passed by prefix (never credentials: below)
  std::vector<std::string> commands;      // executable names that mean this agent
  std::vector<std::string> packages;      // npm package names that mean this agent
  // The service the agent cannot work without (its model API, its login), as host rules
  // (net::parse_host_rule): added to an egress allowlist, never an allowlist by themselves.
  std::vector<std::string> hosts;
};

// claude, codex, gemini, cursor, cline, generic (in this order); generic is always last.
const std::vector<AgentProfile>& all_agents();
// The profile that passes nothing and binds nothing.
const AgentProfile& generic_agent();
// By name; the error lists the valid names.
base::Result<AgentProfile> agent_by_name(std::string_view name);
// `--agent auto`: the agent that argv runs, else generic. Looks at argv[0]'s basename, and
// through wrappers (env, node, npx, bun, deno...) at the script path or package they start:
// `node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js` is claude.
const AgentProfile& agent_for_command(const std::vector<std::string>& argv);

}  // namespace rf::presets
