// SPDX-License-Identifier: LGPL-2.1-or-later
// uid/gid maps for the new user namespace.
#include <fcntl.h>

#include <cerrno>

#include "ringfence/base/sys.hpp"
#include "steps.hpp"

namespace rf::engine {

base::Status write_id_maps_in_child(const ChildContext& ctx) {
  if (!ctx.ns.user) return {};
  // setgroups must be denied before an unprivileged gid_map write (and keeps dropped
  // supplementary groups from being regained, CVE-2014-8989). ENOENT: pre-3.19 kernels.
  auto fd = base::open_fd("/proc/self/setgroups", O_WRONLY);
  if (fd) {
    if (auto w = base::write_all(fd->get(), "deny\n"); !w) return base::Error(w.error().code(), "error writing to setgroups");
  } else if (fd.error().code() != ENOENT) {
    return base::Error(fd.error().code(), "error opening setgroups");
  }
  std::string uid_map = std::to_string(ctx.sandbox_uid) + " " + std::to_string(ctx.real_uid) + " 1\n";
  if (auto w = base::write_file("/proc/self/uid_map", uid_map); !w)
    return base::Error(w.error().code(), "setting up uid map");
  std::string gid_map = std::to_string(ctx.sandbox_gid) + " " + std::to_string(ctx.real_gid) + " 1\n";
  if (auto w = base::write_file("/proc/self/gid_map", gid_map); !w)
    return base::Error(w.error().code(), "setting up gid map");
  return {};
}

}  // namespace rf::engine
