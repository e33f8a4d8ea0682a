// SPDX-License-Identifier: LGPL-2.1-or-later
// Folding a compiled policy's programs into one, for callers that take a single program
// (bwrap's --seccomp) and to spare the kernel a second filter run per syscall.
#pragma once

#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/policy/bpf_program.hpp"

namespace rf::policy {

// One program equivalent to installing `programs` in order, for the lists compile() returns:
// a later program only narrows calls every earlier one allows (its default is ALLOW), so every
// "return ALLOW" of a program becomes a jump to the start of the next one. Fails when a
// program returns a computed value (not a constant) or the result exceeds the kernel's
// 4096-instruction limit.
base::Result<BpfProgram> merge_programs(const std::vector<BpfProgram>& programs);

}  // namespace rf::policy
