// SPDX-License-Identifier: LGPL-2.1-or-later
// Likely causes and fixes for a failed step, decided from the step, its errno and the facts.
#pragma once

#include <string>

#include "observations.hpp"

namespace rf::probe {

struct Cause {
  std::string cause;
  std::string fix;
};

// "EPERM (Operation not permitted)"; "" for 0.
std::string errno_text(int err);

// unshare(CLONE_NEWUSER) failed with err.
Cause userns_cause(const Facts& facts, int err);
// A step after the user namespace was made failed (maps, mounts, /proc, pivot_root, ...).
Cause after_userns_cause(const Observations& obs, const Step& step);
Cause seccomp_cause(const Facts& facts, const Step& step);
Cause notify_cause(const Facts& facts, const Step& step);
Cause pidfd_cause(const Facts& facts, const Step& step);
Cause landlock_cause(const Facts& facts, const Step& step);
// What an ABI below the newest one the design relies on (6) does not cover; "" when nothing.
std::string landlock_gaps(int abi);
Cause cgroup_cause(const Facts& facts, const TrialResult& trial, const Step& step);

// The container the facts and the user-namespace refusal point to, or "".
std::string container_evidence(const Observations& obs);
// Ubuntu's restriction: the label inside the new namespace, else the sysctl.
bool ubuntu_restriction(const Observations& obs);

}  // namespace rf::probe
