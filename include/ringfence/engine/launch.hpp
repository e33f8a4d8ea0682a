// SPDX-License-Identifier: LGPL-2.1-or-later
// The engine's one entry point: turn a Spec into a running, confined process and wait for it.
#pragma once

#include "ringfence/base/result.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

// How a sandbox ended.
struct Outcome {
  int code = 0;                // the command's status in bwrap's encoding (or 137 when killed)
  bool timed_out = false;      // spec.supervision.timeout_ms expired; the sandbox was killed
  bool parent_exited = false;  // the launcher's parent process exited; the sandbox was killed
};

// The highest Landlock ABI the kernel offers, 0 when it has none (or it is disabled).
int landlock_abi();

// As launch(), with the whole outcome (native mode's supervision).
base::Result<Outcome> run_sandbox(const spec::Spec& spec);

// Runs spec.argv confined as the Spec says, waits for it and returns its exit code in bwrap's
// encoding: n for exit(n), 128+s when killed by signal s. Any setup failure (in the parent or in
// the child before exec, including exec itself) is returned as an Error whose message is
// already worded for the user (bwrap's texts when spec.bwrap_messages).
base::Result<int> launch(const spec::Spec& spec);

}  // namespace rf::engine
