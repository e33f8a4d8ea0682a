// SPDX-License-Identifier: LGPL-2.1-or-later
// The landlock level of `ringfence run`: the soft jail's process model (no namespaces) with a
// Landlock filesystem ruleset over the host's tree.
#pragma once

#include "ringfence/cli/native_run.hpp"

namespace rf::cli {

// The rules known at plan time (system directories with /etc allowed piece by piece around its
// secrets, /dev nodes, /proc, the terminal, the project, --bind sources, the agent's entries),
// the links the throwaway HOME will hold, and the notes on what this level does not enforce.
base::Status add_landlock_jail(RunPlan& plan, const RunOptions& opts, const presets::AgentProfile& agent,
                               int landlock_abi, const std::string& cwd);

// In ThrowawayHome::prepare, once the throwaway HOME and the private TMPDIR (tmp_dir) exist: the
// HOME's directories and links, TMPDIR, and the rules for both.
base::Status prepare_landlock_home(RunPlan& plan, const std::string& tmp_dir);

}  // namespace rf::cli
