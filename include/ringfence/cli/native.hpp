// SPDX-License-Identifier: LGPL-2.1-or-later
// The native command line (CLI11): `ringfence run | policy | preset | doctor | verify ...`,
// parsed into plain data, and the native exit-code table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/cli/agent_state.hpp"
#include "ringfence/cli/review_command.hpp"
#include "ringfence/cli/violations.hpp"

namespace rf::cli {

// The exit-code table of both modes (docs/error-handling.md, "Exit codes"). Anything not listed
// is the command's own code, or 128 + the signal that killed it.
// bwrap mode: every failure of ringfence's own (usage, setup, exec, an internal error) is 1, as
// bubblewrap's.
inline constexpr int kExitBwrapFailure = 1;
// Native mode's reserved codes follow common conventions so that a CI never mistakes a sandbox
// failure for a test failure: 125 like container runtimes (also for an internal error), 124 like
// timeout(1).
inline constexpr int kExitUsage = 2;         // the command line itself is wrong
inline constexpr int kExitMemory = 122;      // the command was killed by the --limit memory cgroup (OOM)
inline constexpr int kExitBelowLevel = 123;  // refused: the host cannot reach --require LEVEL, or a --limit
inline constexpr int kExitTimeout = 124;     // --timeout expired; the whole sandbox was killed
inline constexpr int kExitSetup = 125;       // the sandbox could not be set up
inline constexpr int kExitCannotExec = 126;  // the command was found but could not be executed
inline constexpr int kExitNotFound = 127;    // the command was not found in the sandbox
inline constexpr int kExitPolicyKill = 159;  // 128 + SIGSYS: the seccomp policy killed the command

struct PolicyCommand {
  enum class Op { List, Check, Show, Compile } op = Op::List;
  std::string target;        // profile name or policy file
  std::string output;        // compile: -o FILE ("-" = stdout)
  bool pseudo_code = false;  // show --pfc: libseccomp's pseudo filter code
};

struct PresetCommand {
  enum class Op { List, Show } op = Op::List;
  std::string name;
};

// How many entries of the project the start-up mask scan reads before it refuses the project
// (--mask-scan-limit; 0 means no bound).
inline constexpr long kDefaultMaskScanLimit = 200000;

// `ringfence run`: every option as given (unset = not given), merged later with the profile
// file and the preset by the run front end.
struct RunOptions {
  std::optional<std::string> preset;
  std::optional<std::string> agent;
  std::optional<std::string> project;
  bool workspace = false;
  bool allow_broad_project = false;  // a project that is the home, holds it, or a system directory
  std::optional<std::string> network, edits, shell, web_search, fs_jail;  // "on" | "off"
  std::vector<std::string> binds, ro_binds, masks, env;
  std::vector<std::string> unmask;  // --unmask GLOB: project names no mask covers
  std::optional<long> mask_scan_limit;
  std::optional<double> timeout;
  std::optional<std::string> limits;
  bool limit_best_effort = false;  // run even when an explicit --limit cannot be enforced
  bool verbose = false;            // the dry run lists everything
  bool keep_home = false;
  bool review = false;  // --review (also --edits review)
  bool quiet = false;   // --quiet: no info lines, no denial hints
  // default | project | throwaway | host | DIR: where the agent's state is kept (agent_state.hpp).
  std::optional<std::string> agent_state;
  std::optional<std::string> cache;  // --cache DIR: persistent package caches (run_cache.cpp)
  std::optional<std::string> profile;
  bool no_profile = false;
  bool dry_run = false;
  std::optional<std::string> seccomp;  // policy name or file (overrides the preset's)
  std::optional<std::string> require;  // kernel | landlock | soft
  std::optional<std::string> level;    // kernel | landlock | soft: run at most this level
  bool allow_unsandboxed = false;
  std::vector<std::string> allow_net, deny_net;  // --allow-net / --deny-net network rules
  // The egress allowlist: --allow-host HOST[:PORT] rules, and --allow-hosts SET names (each
  // --allow-hosts value split at commas). Either one implies --network on.
  std::vector<std::string> allow_hosts, allow_host_sets;
  bool allow_unfiltered_network = false;  // network on without the connect policy
  bool allow_listen = false;              // network on: bind/listen on any address
  bool new_session = false;
  std::optional<std::string> toolchains;  // auto (default) | off
  std::vector<std::string> command;
};

struct DoctorCommand {
  bool json = false;      // --json: the same content for tools
  bool no_cache = false;  // --no-cache: probe again, and neither read nor write the cache
};

// `ringfence verify`: the attack suite in real sandboxes on this host.
struct VerifyCommand {
  std::optional<std::string> preset;          // trusted | balanced | hardened | read-only
  std::optional<std::string> level;           // kernel | landlock | soft: passed to `run --level`
  std::optional<std::string> attack_program;  // the rf-attack program to use
  bool json = false;
};

struct NativeCommand {
  enum class Kind {
    Help,
    Version,
    Policy,
    Preset,
    Run,
    Doctor,
    Verify,
    AgentState,
    Violations,
    Review
  } kind = Kind::Help;
  std::string text;  // Help: the text to print
  PolicyCommand policy;
  PresetCommand preset;
  RunOptions run;
  DoctorCommand doctor;
  VerifyCommand verify;
  AgentStateCommand agent_state;
  ViolationsCommand violations;  // `violations` and `why`
  ReviewCommand review;          // changes, apply, discard
};

// Parses argv after the program name. CLI11's exceptions stop here: a bad command line is an
// Error whose message is ready for the user (exit kExitUsage).
base::Result<NativeCommand> parse_native(const std::vector<std::string>& args);

// `ringfence policy ...`: prints to stdout/stderr, returns the exit code.
int run_policy_command(const PolicyCommand& cmd);

}  // namespace rf::cli
