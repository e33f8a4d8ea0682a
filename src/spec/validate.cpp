// SPDX-License-Identifier: LGPL-2.1-or-later
// Cross-option rules, worded as bwrap words them.
#include "ringfence/spec/validate.hpp"

namespace rf::spec {

Namespaces effective_namespaces(const Spec& spec, uid_t caller_uid, bool userns_available,
                                bool cgroupns_available) {
  Namespaces ns = spec.ns;
  if (caller_uid != 0) ns.user = true;
  if (ns.user_try && userns_available) ns.user = true;
  ns.user_try = false;
  if (ns.cgroup_try && cgroupns_available) ns.cgroup = true;
  ns.cgroup_try = false;
  return ns;
}

base::Status validate(const Spec& spec, const Namespaces& ns, uid_t caller_uid, gid_t caller_gid) {
  if (spec.argv.empty() || spec.argv[0].empty()) return base::make_error("No command specified", 0);
  if (spec.uid && *spec.uid != caller_uid && !ns.user)
    return base::make_error("Specifying --uid requires --unshare-user or --userns", 0);
  if (spec.gid && *spec.gid != caller_gid && !ns.user)
    return base::make_error("Specifying --gid requires --unshare-user or --userns", 0);
  if (spec.hostname && !ns.uts) return base::make_error("Specifying --hostname requires --unshare-uts", 0);
  if (spec.as_pid_1 && !ns.pid) return base::make_error("Specifying --as-pid-1 requires --unshare-pid", 0);
  if (spec.as_pid_1 && !spec.lock_files.empty())
    return base::make_error("Specifying --as-pid-1 and --lock-file is not permitted", 0);
  for (const auto& op : spec.fs_ops) {
    if (op.dest.empty()) return base::make_error("empty destination path", 0);
    if (op.perms && *op.perms > 07777) return base::make_error("mode must be <= 07777", 0);
  }
  for (int fd : spec.pass_fds)
    if (fd < 0) return base::make_error("Invalid fd: " + std::to_string(fd), EBADF);
  return {};
}

}  // namespace rf::spec
