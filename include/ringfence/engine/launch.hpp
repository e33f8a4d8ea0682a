// SPDX-License-Identifier: LGPL-2.1-or-later
// The engine's one entry point: turn a Spec into a running, confined process and wait for it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/spec/owned_fds.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

// How a sandbox ended.
struct Outcome {
  int code = 0;                // the command's status in bwrap's encoding (or 137 when killed)
  bool timed_out = false;      // spec.supervision.timeout_ms expired; the sandbox was killed
  bool parent_exited = false;  // the launcher's parent process exited; the sandbox was killed
  bool oom_killed = false;     // the cgroup memory limit killed a process of the sandbox
  // Native mode: the sandbox was set up but the command could not be executed (code is then 127
  // for a command not found, 126 for one found but not executable, as shells have it); the
  // exec's error, worded for the user. bwrap mode reports it as an error, as bubblewrap does.
  std::string exec_failure;
};

// Where this host can enforce the cgroup limits (spec.supervision.cgroup), per controller
// ("memory", "pids", "cpu"): usable with the group it would be made under, or why not.
struct CgroupSupport {
  struct Controller {
    std::string name;
    bool usable = false;
    std::string detail;  // "cgroup v2 under DIR" / "cgroup v1 under DIR", or the reason
  };
  std::vector<Controller> controllers;
  [[nodiscard]] const Controller* find(std::string_view name) const;
};
CgroupSupport cgroup_support();

// The highest Landlock ABI the kernel offers, 0 when it has none (or it is disabled).
int landlock_abi();

// Native mode, once the plan holds everything the launcher still needs from its environment:
// the environment is cleared (the C array, and the block the kernel shows as /proc/PID/environ
// overwritten with zeros) and the launcher made non-dumpable, so that a command of the same uid
// reads neither its /proc/PID/environ nor its /proc/PID/mem (nor ptraces it). Every clone made
// afterwards starts from this state.
base::Status seal_launcher();

// As launch(), with the whole outcome (native mode's supervision).
base::Result<Outcome> run_sandbox(const spec::Spec& spec, spec::OwnedFds& fds);

// Runs spec.argv confined as the Spec says, waits for it and returns its exit code in bwrap's
// encoding: n for exit(n), 128+s when killed by signal s. Any setup failure (in the parent or in
// the child before exec, including exec itself) is returned as an Error whose message is
// already worded for the user (bwrap's texts when spec.bwrap_messages).
// `fds` owns every descriptor the Spec names (spec::named_fds; a Spec naming one it does not hold
// is refused). The engine takes out and closes each where bwrap does (a data or seccomp fd once
// read, the info fd once written, --sync-fd, --block-fd and --bind-fd sources after clone,
// --userns-block-fd once it is readable); the namespace fds and the JSON status fd stay in it,
// open, as bwrap keeps them open until it exits.
base::Result<int> launch(const spec::Spec& spec, spec::OwnedFds& fds);

}  // namespace rf::engine
