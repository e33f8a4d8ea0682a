// SPDX-License-Identifier: LGPL-2.1-or-later
// Cross-option rules, worded as bwrap words them.
#include "ringfence/spec/validate.hpp"

#include <initializer_list>
#include <string>

#include "ringfence/base/paths.hpp"
#include "ringfence/spec/owned_fds.hpp"

namespace rf::spec {

Namespaces effective_namespaces(const Spec& spec, uid_t caller_uid, bool userns_available,
                                bool cgroupns_available) {
  Namespaces ns = spec.ns;
  // A joined namespace (--userns) replaces a new one, for every caller.
  if (spec.userns_fd) {
    ns.user = ns.user_try = false;
  } else if (caller_uid != 0) {
    ns.user = true;
  }
  if (ns.user_try && userns_available) ns.user = true;
  ns.user_try = false;
  if (ns.cgroup_try && cgroupns_available) ns.cgroup = true;
  ns.cgroup_try = false;
  return ns;
}

namespace {

// The user namespace lockdown options, in bwrap's order. The bwrap front end already refuses
// these without an explicit --unshare-user; here they guard every front end, because both need
// a namespace of the sandbox's own: --disable-userns lowers max_user_namespaces in the user
// namespace it runs in (in the host's that would be a host-wide change), and --userns-block-fd
// has an outside tool map ids into it.
base::Status check_userns_options(const Spec& spec, const Namespaces& ns) {
  if (spec.userns_fd && (spec.ns.user || spec.ns.user_try))
    return base::Error(0, spec.ns.user ? "--userns not compatible --unshare-user"
                                       : "--userns not compatible --unshare-user-try");
  if (spec.userns_block_fd && !ns.user) return base::Error(0, "--userns-block-fd requires --unshare-user");
  if (spec.userns_block_fd && !spec.info_fd) return base::Error(0, "--userns-block-fd requires --info-fd");
  if (spec.disable_userns && !ns.user) return base::Error(0, "--disable-userns requires --unshare-user");
  if (spec.disable_userns && spec.userns_block_fd)
    return base::Error(0, "--disable-userns is not compatible with  --userns-block-fd");
  return {};
}

// Every fd the Spec names must be a real fd number (bwrap's parser refuses negative ones).
base::Status check_fds(const Spec& spec) {
  auto bad = [](Fd fd) { return base::Error(0, "Invalid fd: " + std::to_string(fd.num)); };
  for (const auto& op : spec.fs_ops) {
    bool has_fd = op.kind == OpKind::File || op.kind == OpKind::BindData || op.kind == OpKind::RoBindData;
    if (has_fd && !op.fd.valid() && !(op.empty && op.kind == OpKind::RoBindData)) return bad(op.fd);
  }
  for (const auto* fd :
       {&spec.sync_fd, &spec.block_fd, &spec.userns_block_fd, &spec.info_fd, &spec.json_status_fd,
        &spec.userns_fd, &spec.userns2_fd, &spec.pidns_fd, &spec.seccomp_fd})
    if (*fd && !(*fd)->valid()) return bad(**fd);
  for (Fd fd : spec.pass_fds)
    if (!fd.valid()) return bad(fd);
  return {};
}

// Paths in a tree the sandbox can write: binds, and covers (tmpfs, remount, data binds) of
// what is there; each path below the tree it names.
base::Status check_beneath(const FsOp& op) {
  bool bind = op.kind == OpKind::Bind || op.kind == OpKind::RoBind;
  bool cover = op.kind == OpKind::Tmpfs || op.kind == OpKind::RemountRo || op.kind == OpKind::BindData ||
               op.kind == OpKind::RoBindData;
  auto bad = [&op](const std::string& why) { return base::Error(0, op.dest + ": " + why); };
  if ((!op.source_beneath.empty() || op.source_in_sandbox) && (!bind || op.fd.valid()))
    return bad("a source in the sandbox or below a writable tree needs a plain bind");
  if (!op.source_beneath.empty() && op.source_in_sandbox)
    return bad("the source is either in the sandbox or below a tree");
  if (!op.dest_beneath.empty() && !bind && !cover)
    return bad("this operation cannot take a destination below a tree");
  if (!op.source_beneath.empty() &&
      !base::is_under(base::normalize(op.source), base::normalize(op.source_beneath)))
    return bad(op.source + " is not below " + op.source_beneath);
  if (!op.dest_beneath.empty() &&
      !base::is_under(base::normalize("/" + op.dest), base::normalize("/" + op.dest_beneath)))
    return bad("not below " + op.dest_beneath);
  return {};
}

const char* jail_name(Jail jail) {
  switch (jail) {
    case Jail::Kernel: return "kernel";
    case Jail::Landlock: return "landlock";
    case Jail::Soft: return "soft";
  }
  return "?";
}

// What the landlock and soft jails cannot do: they make no namespace and mount nothing, and they
// take none of bwrap's options. A field they would ignore is refused, not silently dropped.
base::Status check_namespace_free(const Spec& spec) {
  const std::string jail = std::string("the ") + jail_name(spec.jail) + " jail";
  auto no = [&jail](const std::string& what, const char* why) {
    return base::Error(0, jail + " cannot take " + what + ": " + why);
  };
  const Namespaces& n = spec.ns;
  if (n.user || n.user_try || n.ipc || n.pid || n.net || n.uts || n.cgroup || n.cgroup_try)
    return no("namespaces", "it runs the command in the host's");
  if (!spec.fs_ops.empty())
    return no("filesystem operations (the first at " + spec.fs_ops.front().dest + ")",
              "it has no mount namespace to apply them in");
  if (spec.uid || spec.gid || spec.hostname)
    return no("a uid, gid or hostname", "they need a user or UTS namespace of the sandbox's own");
  if (!spec.cap_ops.empty()) return no("capability operations", "it drops every capability");
  if (spec.proc_masks || spec.root_size || spec.root_inodes)
    return no("proc_masks or the bounds of the root tmpfs", "it mounts no /proc and no root");
  if (!spec.supervision.late_masks.patterns.empty())
    return no("masks for names created later", "it mounts nothing to cover them with");
  if (spec.supervision.pidns_pid_max) return no("a PID namespace's pid_max", "it makes no PID namespace");
  if (!named_fds(spec).empty())
    return no("bwrap's descriptors (--sync-fd, --file FD, ...)", "they are bwrap mode's");
  if (!spec.lock_files.empty() || spec.as_pid_1 || spec.disable_userns || spec.assert_userns_disabled)
    return no("--lock-file, --as-pid-1 or the user namespace lockdown", "they are bwrap mode's");
  return {};
}

}  // namespace

base::Status validate_jail(const Spec& spec) {
  if (!spec.landlock_rules.empty() && spec.jail != Jail::Landlock)
    return base::Error(0, "landlock rules (the first for " + spec.landlock_rules.front().path +
                              ") need the landlock jail: the " + jail_name(spec.jail) +
                              " jail applies no filesystem ruleset");
  if (spec.restrict_exec && spec.exec_allow.empty())
    return base::Error(0, "shell off (restrict_exec) with no file allowed: not even the command could run");
  if (!spec.restrict_exec && !spec.exec_allow.empty())
    return base::Error(0, "an exec allowlist (the first: " + spec.exec_allow.front() +
                              ") without shell off (restrict_exec) would not be enforced");
  if (!spec.refuse_exec_headers.empty()) {
    if (spec.jail != Jail::Kernel || !spec.restrict_exec)
      return base::Error(0, "the loader guard (refuse_exec_headers) needs the kernel jail and shell off");
    for (const auto& h : spec.refuse_exec_headers)
      if (h.empty() || h.size() > 128)
        return base::Error(0, "a loader guard's header of " + std::to_string(h.size()) +
                                  " bytes: binfmt_misc matches 1 to 128");
  }
  if (spec.jail != Jail::Kernel) RF_TRY(check_namespace_free(spec));
  if (spec.own_terminal && !spec.new_session)
    return base::Error(0, "a terminal of the sandbox's own (own_terminal) needs a new session");
  const auto& cp = spec.supervision.connect;
  if (!cp.allow_hosts.empty() && !cp.enabled)
    return base::Error(0, "the egress allowlist (allow_hosts, the first: " + cp.allow_hosts.front() +
                              ") needs the connect policy");
  if (!cp.allow_hosts.empty() && !cp.shared_network && (spec.jail != Jail::Kernel || !spec.ns.net))
    return base::Error(0, "the egress allowlist (allow_hosts, the first: " + cp.allow_hosts.front() +
                              ") needs the kernel jail and a network namespace, or shared_network");
  if (cp.shared_network && (cp.allow_hosts.empty() || spec.ns.net))
    return base::Error(0, "shared_network: only for the egress allowlist without a network namespace");
  return {};
}

base::Status validate(const Spec& spec, const Namespaces& ns, uid_t caller_uid, gid_t caller_gid) {
  // The jail's own rules first (none applies to what bwrap's front end makes); then bwrap's
  // lockdown options, which bwrap checks before it looks for a command.
  RF_TRY(validate_jail(spec));
  RF_TRY(check_userns_options(spec, ns));
  if (spec.argv.empty() || spec.argv[0].empty()) return base::Error(0, "No command specified");
  if (spec.uid && *spec.uid != caller_uid && !ns.user && !spec.userns_fd)
    return base::Error(0, "Specifying --uid requires --unshare-user or --userns");
  if (spec.gid && *spec.gid != caller_gid && !ns.user && !spec.userns_fd)
    return base::Error(0, "Specifying --gid requires --unshare-user or --userns");
  if (spec.hostname && !ns.uts) return base::Error(0, "Specifying --hostname requires --unshare-uts");
  if (spec.as_pid_1 && !ns.pid) return base::Error(0, "Specifying --as-pid-1 requires --unshare-pid");
  if (spec.as_pid_1 && !spec.lock_files.empty())
    return base::Error(0, "Specifying --as-pid-1 and --lock-file is not permitted");
  // The guard's binfmt_misc instance lives in the sandbox's user namespace, held by its pid 1.
  if (!spec.refuse_exec_headers.empty() && (!ns.user || !ns.pid || spec.as_pid_1))
    return base::Error(0,
                       "the loader guard needs a user and a PID namespace with a pid 1 of ringfence's own");
  // pid_max is the new PID namespace's own only with a user namespace of the sandbox's own
  // (whose pid 1 holds CAP_SYS_ADMIN over it) and one made by the clone, before anything forks.
  if (const auto& m = spec.supervision.pidns_pid_max) {
    if (!ns.user || !ns.pid || spec.pidns_fd || spec.userns_fd)
      return base::Error(0,
                         "a PID namespace's pid_max needs new user and PID namespaces made by the sandbox");
    if (*m < 301 || *m > 4194304)
      return base::Error(
          0, "a PID namespace's pid_max of " + std::to_string(*m) + ": the kernel takes 301 to 4194304");
  }
  for (const auto& op : spec.fs_ops) {
    if (op.dest.empty()) return base::Error(0, "empty destination path");
    if (op.perms && *op.perms > 07777) return base::Error(0, "mode must be <= 07777");
    RF_TRY(check_beneath(op));
  }
  return check_fds(spec);
}

}  // namespace rf::spec
