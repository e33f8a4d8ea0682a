// SPDX-License-Identifier: LGPL-2.1-or-later
// Install the Spec's classic-BPF programs in order: the last step before exec, so the filters
// never have to allow the setup calls.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include <cerrno>

#include "steps.hpp"

namespace rf::engine {

base::Status install_seccomp_in_child(const ChildContext& ctx) {
  for (const auto& prog : ctx.seccomp) {
    sock_fprog fprog{};
    fprog.len = static_cast<unsigned short>(prog.bytes.size() / sizeof(sock_filter));
    fprog.filter = reinterpret_cast<sock_filter*>(const_cast<char*>(prog.bytes.data()));
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0) {
      if (errno == EINVAL)
        return base::Error(
            0,
            "Unable to set up system call filtering as requested: prctl(PR_SET_SECCOMP) reported "
            "EINVAL. (Hint: this requires a kernel configured with CONFIG_SECCOMP and "
            "CONFIG_SECCOMP_FILTER.)");
      return base::errno_error("prctl(PR_SET_SECCOMP)");
    }
  }
  return {};
}

}  // namespace rf::engine
