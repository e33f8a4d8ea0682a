// SPDX-License-Identifier: LGPL-2.1-or-later
// describe_plan: what `ringfence run --dry-run` prints, one fact per line and each once.
#include <algorithm>
#include <string>

#include "ringfence/cli/native_run.hpp"
#include "ringfence/presets/presets.hpp"
#include "ringfence/spec/describe.hpp"
#include "run_toolchains.hpp"

namespace rf::cli {

namespace {

// One filesystem op as the dry run shows it: `source -> destination (ro|rw)` for binds; masks
// are the `masked:` lines already.
std::string describe_op(const spec::FsOp& o, const RunPlan& plan) {
  using K = spec::OpKind;
  auto src = [&]() -> std::string {
    if (!o.source.empty()) return o.source;
    if (o.dest == plan.home_inside) return "(a new throwaway directory)";
    if (o.dest == plan.resolv_conf_dest || o.dest == plan.nsswitch_conf_dest) return "(a generated file)";
    return "(made at the start)";
  };
  const std::string maybe = o.allow_missing ? ", if present" : "";
  switch (o.kind) {
    case K::Bind: return "bind " + src() + " -> " + o.dest + " (rw" + maybe + ")";
    case K::RoBind: return "bind " + src() + " -> " + o.dest + " (ro" + maybe + ")";
    case K::DevBind: return "bind " + src() + " -> " + o.dest + " (rw, devices" + maybe + ")";
    case K::Symlink: return "link " + o.dest + " -> " + o.source;
    case K::Tmpfs:
      return std::find(plan.masked.begin(), plan.masked.end(), o.dest) != plan.masked.end()
                 ? std::string()
                 : "tmpfs " + o.dest +
                       (o.size ? " (" + std::to_string(*o.size >> 20) + " MiB)" : std::string());
    case K::Proc: return "proc " + o.dest;
    case K::Dev: return "dev " + o.dest + " (null, zero, full, random, urandom, tty, pts)";
    case K::Mqueue: return "mqueue " + o.dest;
    case K::Dir: return "dir " + o.dest;
    case K::BindData:
    case K::RoBindData:
    case K::File:
      if (o.empty || std::find(plan.masked.begin(), plan.masked.end(), o.dest) != plan.masked.end())
        return {};
      return "file " + o.dest + (o.kind == K::BindData ? " (rw)" : " (ro)");
    case K::RemountRo:
    case K::Chmod: return {};
    case K::Overlay:
    case K::TmpOverlay:
    case K::RoOverlay: return "overlay " + o.dest;
  }
  return {};
}

}  // namespace

std::string describe_plan(const RunPlan& plan) {
  std::string out;
  auto line = [&out](const std::string& s) { out += s + "\n"; };
  line("level: " + std::string(presets::level_name(plan.level)) +
       (plan.required ? " (required: " + std::string(presets::level_name(*plan.required)) + ")" : ""));
  if (!plan.profile_origin.empty()) line("profile file: " + plan.profile_origin);
  line("agent: " + plan.agent);
  line("project: " + plan.project +
       (plan.settings.review             ? " (review: an overlay; every write is kept in a change set)"
        : plan.settings.project_writable ? " (read-write)"
                                         : " (read-only)"));
  // Without a mount namespace HOME is the throwaway directory's own path, made at the start.
  line("home: " +
       (plan.spec.jail != spec::Jail::Kernel
            ? std::string("a new directory under $XDG_RUNTIME_DIR/ringfence or /tmp/ringfence-UID")
            : plan.home_inside) +
       " (a throwaway directory" + (plan.settings.keep_home ? ", kept)" : ", removed at exit)"));
  const auto& cp = plan.spec.supervision.connect;
  if (plan.allowlisted) {
    const std::size_t n = plan.allowed_hosts.size();
    const bool shared = cp.shared_network;
    line("network: allowlisted (" + std::to_string(n) + " host rule" + (n == 1 ? "" : "s") +
         (shared ? "; the host's network, every connect decided by ringfence, which makes the connections "
                   "the rules allow)"
                 : "; the sandbox has its own network namespace, lo only, and ringfence makes the "
                   "connections the rules allow)"));
    for (const auto& h : plan.allowed_hosts) line("  allow host " + h.rule + " (" + h.origin + ")");
    std::string to;
    for (const auto& r : cp.resolvers) to += (to.empty() ? "" : ", ") + r;
    line((shared ? std::string("DNS: to any nameserver (port 53), sent to ringfence's resolver on 127.0.0.1")
                 : std::string("DNS: the sandbox's resolver ") + spec::kSandboxResolver) +
         " (served by ringfence), forwarding allowed names to: " + to);
    line("other names: NXDOMAIN, never leave the machine");
    if (shared)
      line("/etc/resolv.conf: the host's (nothing is mounted at this level); RES_OPTIONS gets use-vc");
    else
      line("/etc/resolv.conf: generated, at " + plan.resolv_conf_dest + ": " +
           plan.resolv_conf.substr(0, plan.resolv_conf.find('\n')));
  } else {
    line("network: " +
         std::string(plan.settings.network ? "on"
                     : plan.spec.jail != spec::Jail::Kernel
                         ? "off (the connect policy refuses every inet connection, loopback included)"
                         : "off (loopback only)"));
    if (!plan.nsswitch_conf.empty())
      line("name lookups: /etc/hosts only (a generated " + plan.nsswitch_conf_dest +
           ", hosts: files): a lookup fails at once, nothing to wait for or retry");
  }
  if (cp.enabled) {
    line("connect policy: metadata floor always denied; " + std::to_string(cp.allow.size()) + " allow, " +
         std::to_string(cp.deny.size()) + " deny rules" + (plan.allowlisted ? " (by address)" : ""));
    for (const auto& r : cp.allow) line("  allow " + r);
    for (const auto& r : cp.deny) line("  deny " + r);
    if (!plan.allowlisted)
      for (const auto& r : cp.resolvers) line("  DNS resolver (port 53 kept reachable): " + r);
    if (cp.restrict_unix_paths) {
      std::string dirs;
      for (const auto& d : cp.unix_path_allow) dirs += (dirs.empty() ? "" : ", ") + d;
      line("  unix sockets: only under " + dirs +
           " (and the throwaway HOME and TMPDIR); any other path: EACCES");
    }
    line(cp.listen == spec::ListenPolicy::None ? "servers: bind only to loopback, no inet listen or accept, "
                                                 "no abstract unix name (EACCES)"
         : cp.listen == spec::ListenPolicy::LoopbackOnly
             ? "servers: bind and listen on loopback only, no abstract unix name (EACCES; --allow-listen)"
         : plan.allowlisted
             ? "servers: bind and listen on any address of the sandbox's own network namespace (reachable "
               "from inside only)"
             : "servers: bind and listen on any address (--allow-listen)");
    line("violation log: " + cp.violation_log);
  }
  // The settings, but the facts already given above (project, network) once.
  const std::string settings = presets::describe(plan.settings);
  for (std::size_t at = 0; at < settings.size();) {
    std::size_t end = settings.find('\n', at);
    if (end == std::string::npos) end = settings.size();
    const std::string l = settings.substr(at, end - at);
    at = end + 1;
    if (!l.starts_with("project: ") && !l.starts_with("network: ")) line(l);
  }
  out += describe_toolchains(plan);
  for (const auto& m : plan.masked) line("masked: " + m);
  for (const auto& m : plan.unmasked) line("not masked (--unmask, or no secret in it at the start): " + m);
  out += describe_agent_state(plan);
  for (const auto& c : plan.copies) line("copied into home: " + c.host + (c.copy_back ? " (and back)" : ""));
  for (const auto& n : plan.limits) line("limit " + n);
  if (!plan.dropped_env.empty()) {
    // One line: the names (never values), the first few unless --verbose.
    constexpr std::size_t kShown = 8;
    std::string names;
    const std::size_t shown =
        plan.verbose ? plan.dropped_env.size() : std::min(kShown, plan.dropped_env.size());
    for (std::size_t i = 0; i < shown; ++i) names += (i ? ", " : "") + plan.dropped_env[i];
    if (shown < plan.dropped_env.size())
      names += " and " + std::to_string(plan.dropped_env.size() - shown) + " more (--verbose lists them)";
    line("environment dropped (" + std::to_string(plan.dropped_env.size()) + "): " + names);
  }
  for (const auto& f : plan.exec_allowed) line("may execute: " + f);
  for (const auto& f : plan.loaders_guarded) line("only as an interpreter, never as a program: " + f);
  for (const auto& n : plan.notes) line("not enforced: " + n);
  for (const auto& n : plan.unenforced_limits)
    line(std::string(plan.limit_best_effort ? "run anyway (--limit-best-effort): "
                                            : "refused (exit 123; --limit-best-effort runs anyway): ") +
         n);
  if (plan.spec.jail == spec::Jail::Landlock) {
    line(
        "landlock rules (all else refused; also the throwaway HOME and a private TMPDIR, "
        "read-write-execute):");
    for (const auto& r : plan.spec.landlock_rules) {
      using R = spec::Spec::FsRule;
      std::string rights;
      if (r.rights & R::Read) rights += "read ";
      if (r.rights & R::Write) rights += "write ";
      if (r.rights & R::Execute) rights += "execute ";
      if (r.rights & R::Ioctl) rights += "ioctl ";
      if (!rights.empty()) rights.pop_back();
      line("  " + r.path + " (" + rights + ")");
    }
    for (const auto& [rel, host] : plan.home_links) line("linked into home: " + rel + " -> " + host);
  }
  for (const auto& o : plan.spec.fs_ops) {
    if (std::string f = describe_op(o, plan); !f.empty()) line(f);
  }
  // The engine's own view of the rest (namespaces, capabilities, seccomp, fds, the command);
  // its filesystem ops and environment are the lines above and the environment's rebuild.
  line("sandbox:");
  const std::string spec_text = spec::describe(plan.spec);
  for (std::size_t at = 0; at < spec_text.size();) {
    std::size_t end = spec_text.find('\n', at);
    if (end == std::string::npos) end = spec_text.size();
    const std::string l = spec_text.substr(at, end - at);
    at = end + 1;
    if (!l.starts_with("op ")) line(l);
  }
  return out;
}

}  // namespace rf::cli
