// SPDX-License-Identifier: LGPL-2.1-or-later
// The filesystem steps of `ringfence run`'s plan, in the order plan_run calls them.
#pragma once

#include "ringfence/cli/native_run.hpp"

namespace rf::cli {

// /usr, the /bin-/lib* links or directories, /etc, /opt read-only; host secrets covered; new
// /proc, minimal /dev, private /tmp, /var/tmp, /run.
base::Status add_system_dirs(RunPlan& plan);
// The throwaway HOME at the caller's home path (bound by prepare_home) and the agent's files.
base::Status add_home(RunPlan& plan, const presets::AgentProfile& agent);
// Soft jail: the agent's files for the throwaway HOME (directories linked, files copied).
base::Status add_soft_home(RunPlan& plan, const presets::AgentProfile& agent);
// The project at its own path (and /workspace), its .git/hooks and .git/config read-only.
base::Status add_project(RunPlan& plan, const RunOptions& opts);
// --bind / --ro-bind SRC[:DST].
base::Status add_extra_binds(RunPlan& plan, const RunOptions& opts);
// The default masks and --mask: every matching name in the project, hidden.
base::Status add_project_masks(RunPlan& plan, const RunOptions& opts);

}  // namespace rf::cli
