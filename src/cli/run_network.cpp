// SPDX-License-Identifier: LGPL-2.1-or-later
// The network part of `ringfence run`'s plan: the connect policy, the egress allowlist's
// settings, the generated /etc files (the allowlist's resolv.conf, the offline nsswitch.conf),
// and the readers of the host's resolv.conf.
#include "run_network.hpp"

#include "ringfence/cli/violations.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/sys.hpp"
#include "run_etc.hpp"

namespace rf::cli {

using base::Status;
using spec::FsOp;
using spec::OpKind;

std::string offline_nsswitch(std::string_view host) {
  std::string out;
  bool hosts = false;
  std::size_t pos = 0;
  while (pos < host.size()) {
    std::size_t end = host.find('\n', pos);
    if (end == std::string_view::npos) end = host.size();
    std::string_view line = host.substr(pos, end - pos);
    pos = end + 1;
    std::string_view key =
        line.substr(line.find_first_not_of(" \t") == std::string_view::npos ? line.size()
                                                                            : line.find_first_not_of(" \t"));
    if (key.starts_with("hosts:")) {
      if (hosts) continue;
      hosts = true;
      out += "hosts: files\n";
      continue;
    }
    out += std::string(line) + "\n";
  }
  if (!hosts) out += "hosts: files\n";
  return out;
}

std::vector<std::string> nameservers_in(std::string_view resolv_conf) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < resolv_conf.size()) {
    std::size_t end = resolv_conf.find('\n', pos);
    if (end == std::string_view::npos) end = resolv_conf.size();
    std::string_view line = resolv_conf.substr(pos, end - pos);
    pos = end + 1;
    constexpr std::string_view kKey = "nameserver";
    if (line.substr(0, kKey.size()) != kKey || line.size() == kKey.size() ||
        (line[kKey.size()] != ' ' && line[kKey.size()] != '\t'))
      continue;
    line.remove_prefix(kKey.size());
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    std::size_t stop = line.find_first_of(" \t#;\r");
    std::string addr(line.substr(0, stop));
    if (auto pct = addr.find('%'); pct != std::string::npos) addr.resize(pct);  // fe80::1%eth0
    if (!addr.empty()) out.push_back(addr);
  }
  return out;
}

namespace {

// The violation log: $XDG_RUNTIME_DIR/ringfence/violations.jsonl, else /tmp/ringfence-UID/.
}  // namespace

std::string default_violation_log(const HostSnapshot& snap) {
  if (std::string x = snap.runtime_dir(); !x.empty()) return x + "/ringfence/violations.jsonl";
  return "/tmp/ringfence-" + std::to_string(snap.uid) + "/violations.jsonl";
}

// Network on: the connect policy, enforced by the launcher's supervisor (the engine parses the
// rules). --allow-unfiltered-network runs without it, and says so.
void add_connect_policy(RunPlan& plan, const RunOptions& opts, const HostSnapshot& snap) {
  if (opts.allow_unfiltered_network) {
    plan.notes.push_back(
        "network on: the connect policy (metadata floor, rules) is not enforced "
        "(--allow-unfiltered-network)");
    return;
  }
  spec::ConnectPolicy& cp = plan.spec.supervision.connect;
  cp.enabled = true;
  cp.resolvers = snap.nameservers;
  cp.allow = plan.net_rules.allow;
  cp.deny = plan.net_rules.deny;
  cp.allow.insert(cp.allow.end(), opts.allow_net.begin(), opts.allow_net.end());
  cp.deny.insert(cp.deny.end(), opts.deny_net.begin(), opts.deny_net.end());
  cp.violation_log = default_violation_log(snap);
  cp.hints = !opts.quiet;  // the first denial of each kind explained on stderr
  // The host's network is shared: a server on it would be reachable from the whole network.
  cp.listen = opts.allow_listen ? spec::ListenPolicy::Unrestricted : spec::ListenPolicy::LoopbackOnly;
  if (!plan.allowlisted) return;
  // The sandbox's own network namespace (lo only): the launcher answers its DNS and makes the
  // connections the rules allow. A server there is reachable from inside only.
  for (const auto& h : plan.allowed_hosts) cp.allow_hosts.push_back(h.rule);
  // No nameserver in the host's resolv.conf: glibc's default, the host's own 127.0.0.1.
  if (cp.resolvers.empty()) cp.resolvers = {"127.0.0.1"};
  cp.listen = spec::ListenPolicy::Unrestricted;
}

namespace {

// A generated /etc file bound read-only over the host's (over the file a link there points to).
// Its content is written by ThrowawayHome::prepare, which fills in the bind's source, after
// /run's tmpfs is mounted.
Status add_etc_file(RunPlan& plan, const std::string& path, std::string content, std::string& content_out,
                    std::string& dest_out) {
  RF_TRY_ASSIGN(dest, bind_target(path));
  content_out = std::move(content);
  dest_out = dest;
  FsOp o;
  o.kind = OpKind::RoBind;
  o.dest = dest;
  plan.spec.fs_ops.push_back(o);
  return {};
}

}  // namespace

Status add_sandbox_etc_files(RunPlan& plan) {
  // The allowlist: the sandbox's resolver only.
  if (plan.allowlisted)
    RF_TRY(add_etc_file(plan, "/etc/resolv.conf",
                        std::string("nameserver ") + spec::kSandboxResolver + "\noptions edns0\n",
                        plan.resolv_conf, plan.resolv_conf_dest));
  // Network off: the host's nsswitch.conf with its hosts line reduced to `files` (lookups fail
  // at once); its other lines (passwd, group) as the host has them.
  if (!plan.settings.network) {
    auto read = base::read_file("/etc/nsswitch.conf");
    const std::string host = read ? *read : std::string("passwd: files\ngroup: files\nshadow: files\n");
    RF_TRY(add_etc_file(plan, "/etc/nsswitch.conf", offline_nsswitch(host), plan.nsswitch_conf,
                        plan.nsswitch_conf_dest));
  }
  return {};
}

}  // namespace rf::cli
