// SPDX-License-Identifier: LGPL-2.1-or-later
// The network part of `ringfence run`'s plan (see run_network.cpp).
#pragma once

#include "ringfence/base/result.hpp"
#include "ringfence/cli/host_snapshot.hpp"
#include "ringfence/cli/native_run.hpp"

namespace rf::cli {

// Network on: the connect policy, enforced by the launcher's supervisor (the engine parses the
// rules); with the allowlist, its host rules, the host's nameservers and the listen policy of
// the sandbox's own network namespace. --allow-unfiltered-network runs without it, and says so.
void add_connect_policy(RunPlan& plan, const RunOptions& opts, const HostSnapshot& snap);
// Kernel jail: the generated /etc files the plan's network settings ask for.
base::Status add_sandbox_etc_files(RunPlan& plan);

}  // namespace rf::cli
