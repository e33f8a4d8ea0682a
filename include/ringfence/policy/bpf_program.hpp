// SPDX-License-Identifier: LGPL-2.1-or-later
// One compiled seccomp program: the only policy header the engine includes, so installing a
// filter needs nothing of the language itself.
#pragma once

#include <string>

namespace rf::policy {

// A classic-BPF seccomp program: raw `struct sock_filter` entries (8 bytes each), ready for
// prctl(PR_SET_SECCOMP) or bwrap's --seccomp. A compiled policy is a list of these, installed
// in list order, all of them (the later ones refine the earlier ones).
struct BpfProgram {
  std::string bytes;
  std::string role;  // "main" or "refine"
};

}  // namespace rf::policy
