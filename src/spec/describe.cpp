// SPDX-License-Identifier: LGPL-2.1-or-later
// Stable text dump of a Spec.
#include <cstdio>

#include "ringfence/base/strings.hpp"
#include "ringfence/spec/describe.hpp"

namespace rf::spec {

const char* op_name(OpKind kind) {
  switch (kind) {
    case OpKind::Bind: return "bind";
    case OpKind::RoBind: return "ro-bind";
    case OpKind::DevBind: return "dev-bind";
    case OpKind::RemountRo: return "remount-ro";
    case OpKind::Tmpfs: return "tmpfs";
    case OpKind::Proc: return "proc";
    case OpKind::Dev: return "dev";
    case OpKind::Mqueue: return "mqueue";
    case OpKind::Dir: return "dir";
    case OpKind::Symlink: return "symlink";
    case OpKind::Chmod: return "chmod";
    case OpKind::File: return "file";
    case OpKind::BindData: return "bind-data";
    case OpKind::RoBindData: return "ro-bind-data";
    case OpKind::Overlay: return "overlay";
    case OpKind::TmpOverlay: return "tmp-overlay";
    case OpKind::RoOverlay: return "ro-overlay";
  }
  return "?";
}

std::string describe(const Spec& s) {
  std::string out;
  auto line = [&](const std::string& l) { out += l + "\n"; };
  std::string ns;
  auto flag = [&](bool b, const char* n) {
    if (b) ns += std::string(ns.empty() ? "" : ",") + n;
  };
  flag(s.ns.user, "user");
  flag(s.ns.user_try, "user-try");
  flag(s.ns.ipc, "ipc");
  flag(s.ns.pid, "pid");
  flag(s.ns.net, "net");
  flag(s.ns.uts, "uts");
  flag(s.ns.cgroup, "cgroup");
  flag(s.ns.cgroup_try, "cgroup-try");
  line("namespaces " + (ns.empty() ? std::string("-") : ns));
  if (s.uid) line("uid " + std::to_string(*s.uid));
  if (s.gid) line("gid " + std::to_string(*s.gid));
  if (s.hostname) line("hostname " + base::json_quote(*s.hostname));
  for (const auto& op : s.fs_ops) {
    std::string l = std::string("op ") + op_name(op.kind);
    if (!op.source.empty()) l += " " + base::json_quote(op.source);
    l += " " + base::json_quote(op.dest);
    if (op.allow_missing) l += " try";
    if (op.perms) {
      char buf[16];
      std::snprintf(buf, sizeof buf, " perms=%04o", static_cast<unsigned>(*op.perms));
      l += buf;
    }
    if (op.size) l += " size=" + std::to_string(*op.size);
    if (op.inodes) l += " nr_inodes=" + std::to_string(*op.inodes);
    if (op.fd.valid()) l += " fd=" + std::to_string(op.fd.num);
    if (!op.source_beneath.empty()) l += " nofollow-below=" + base::json_quote(op.source_beneath);
    if (!op.dest_beneath.empty()) l += " dest-nofollow-below=" + base::json_quote(op.dest_beneath);
    if (op.source_in_sandbox) l += " source-in-sandbox";
    if (op.dest_identity)
      l += " dest-identity=" + std::to_string(op.dest_identity->first) + ":" +
           std::to_string(op.dest_identity->second);
    if (!op.work.empty()) l += " work=" + base::json_quote(op.work);
    for (const auto& layer : op.layers) l += " layer=" + base::json_quote(layer);
    line(l);
  }
  for (const auto& e : s.env_ops) {
    switch (e.kind) {
      case EnvOp::Kind::Set:
        line("env set " + base::json_quote(e.name) + " " + base::json_quote(e.value));
        break;
      case EnvOp::Kind::Unset: line("env unset " + base::json_quote(e.name)); break;
      case EnvOp::Kind::Clear: line("env clear"); break;
    }
  }
  if (s.chdir) line("chdir " + base::json_quote(*s.chdir));
  for (const auto& c : s.cap_ops)
    line(std::string("cap ") + (c.add ? "add " : "drop ") + (c.cap < 0 ? "ALL" : std::to_string(c.cap)));
  for (const auto& b : s.seccomp) line("seccomp " + std::to_string(b.bytes.size() / 8) + " instructions");
  if (s.seccomp_fd) line("seccomp-fd " + std::to_string(s.seccomp_fd->num));
  if (!s.inherit_fds) {
    std::string fds;
    for (Fd fd : s.pass_fds) fds += " " + std::to_string(fd.num);
    line("fds closed except 0 1 2" + fds);
  }
  if (s.argv0) line("argv0 " + base::json_quote(*s.argv0));
  for (const auto& f : s.lock_files) line("lock-file " + base::json_quote(f));
  auto fd_line = [&](const char* name, const std::optional<Fd>& fd) {
    if (fd) line(std::string(name) + " " + std::to_string(fd->num));
  };
  fd_line("sync-fd", s.sync_fd);
  fd_line("block-fd", s.block_fd);
  fd_line("userns-block-fd", s.userns_block_fd);
  fd_line("info-fd", s.info_fd);
  fd_line("json-status-fd", s.json_status_fd);
  fd_line("userns", s.userns_fd);
  fd_line("userns2", s.userns2_fd);
  fd_line("pidns", s.pidns_fd);
  if (s.disable_userns) line("disable-userns");
  if (s.assert_userns_disabled) line("assert-userns-disabled");
  if (s.new_session) line("new-session");
  if (s.die_with_parent) line("die-with-parent");
  if (s.as_pid_1) line("as-pid-1");
  std::string argv;
  for (const auto& a : s.argv) argv += " " + base::json_quote(a);
  line("argv" + argv);
  return out;
}

}  // namespace rf::spec
