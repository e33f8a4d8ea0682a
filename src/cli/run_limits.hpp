// SPDX-License-Identifier: LGPL-2.1-or-later
// The limits of a run: rlimits, the sandbox's cgroup, the PID namespace's pid_max, or what is
// reported as not enforced.
#pragma once

#include <sys/types.h>

#include "ringfence/cli/native_run.hpp"

namespace rf::cli {

// rlimits always; memory, pids and cpu through the sandbox's own cgroup where this host has one
// to give (HostFacts.cgroup), else pids falls back to RLIMIT_NPROC and the rest is reported. The
// preset's pids bound alone is the PID namespace's pid_max where the kernel has it per namespace.
void add_limits(RunPlan& plan, const HostFacts& host, uid_t uid);

}  // namespace rf::cli
