// SPDX-License-Identifier: LGPL-2.1-or-later
// uid/gid maps for the new user namespace.
#include <fcntl.h>
#include <sched.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include "ringfence/base/sys.hpp"
#include "steps.hpp"

namespace rf::engine {
namespace {

base::Status write_one(int dir_fd, const std::string& path, const std::string& line, const char* what) {
  base::UniqueFd fd(::openat(dir_fd, path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return base::errno_error(what);
  if (auto w = base::write_all(fd.get(), line); !w) return w.error().reworded(what);
  return {};
}

base::Status write_maps(int dir_fd, const std::string& dir, uid_t uid_in, uid_t uid_out, gid_t gid_in,
                        gid_t gid_out) {
  RF_TRY(write_one(dir_fd, dir + "uid_map", std::to_string(uid_in) + " " + std::to_string(uid_out) + " 1\n",
                   "setting up uid map"));
  RF_TRY(write_one(dir_fd, dir + "gid_map", std::to_string(gid_in) + " " + std::to_string(gid_out) + " 1\n",
                   "setting up gid map"));
  return {};
}

}  // namespace

base::Status write_id_maps_in_child(const ChildContext& ctx) {
  // --userns-block-fd: an outside tool (newuidmap) wrote the maps while we waited.
  if (!ctx.ns.user || ctx.spec->userns_block_fd) return {};
  // setgroups must be denied before an unprivileged gid_map write (and keeps dropped
  // supplementary groups from being regained, CVE-2014-8989). ENOENT: pre-3.19 kernels.
  auto fd = base::open_fd("/proc/self/setgroups", O_WRONLY);
  if (fd) {
    if (auto w = base::write_all(fd->get(), "deny\n"); !w)
      return w.error().reworded("error writing to setgroups");
  } else if (fd.error().code() != ENOENT) {
    return fd.error().reworded("error opening setgroups");
  }
  uid_t inside_uid = ctx.devpts_ids ? 0 : ctx.sandbox_uid;
  gid_t inside_gid = ctx.devpts_ids ? 0 : ctx.sandbox_gid;
  return write_maps(AT_FDCWD, "/proc/self/", inside_uid, ctx.real_uid, inside_gid, ctx.real_gid);
}

base::Status enter_nested_userns_in_child(const ChildContext& ctx, int proc_fd) {
  if (::unshare(CLONE_NEWUSER) != 0) return base::errno_error("unshare user namespace");
  // setgroups stays "deny": a new user namespace inherits it from its parent. The sandbox ids
  // map onto what the first namespace gave us: 0 (devpts) or the sandbox ids themselves.
  uid_t outer_uid = ctx.devpts_ids ? 0 : ctx.sandbox_uid;
  gid_t outer_gid = ctx.devpts_ids ? 0 : ctx.sandbox_gid;
  return write_maps(proc_fd, "self/", ctx.sandbox_uid, outer_uid, ctx.sandbox_gid, outer_gid);
}

base::Status switch_ids_in_child(const ChildContext& ctx) {
  const auto& spec = *ctx.spec;
  if (spec.gid && *spec.gid != ::getgid() && ::setgid(*spec.gid) != 0)
    return base::errno_error("unable to switch to gid " + std::to_string(*spec.gid));
  if (spec.uid && *spec.uid != ::getuid()) {
    ::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0);
    if (::setuid(*spec.uid) != 0)
      return base::errno_error("unable to switch to uid " + std::to_string(*spec.uid));
    // setuid cleared the effective set; the capability step still needs CAP_SETPCAP.
    if (cap_t c = cap_get_proc()) {
      for (cap_value_t i = 0; i <= CAP_LAST_CAP; ++i) {
        cap_flag_value_t v = CAP_CLEAR;
        if (cap_get_flag(c, i, CAP_PERMITTED, &v) == 0 && v == CAP_SET)
          cap_set_flag(c, CAP_EFFECTIVE, 1, &i, CAP_SET);
      }
      cap_set_proc(c);
      cap_free(c);
    }
  }
  return {};
}

base::Status limit_user_namespaces_in_child(int proc_fd) {
  base::UniqueFd fd(::openat(proc_fd, "sys/user/max_user_namespaces", O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return base::errno_error("cannot open /proc/sys/user/max_user_namespaces");
  if (auto w = base::write_all(fd.get(), "1"); !w)
    return w.error().reworded("sysctl user.max_user_namespaces = 1");
  return {};
}

base::Status check_userns_disabled_in_child() {
  // If this succeeds we are in a new namespace; the sandbox is abandoned anyway.
  if (::unshare(CLONE_NEWUSER) == 0)
    return base::Error(0, "creation of new user namespaces was not disabled as requested");
  return {};
}

}  // namespace rf::engine
