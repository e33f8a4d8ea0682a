// SPDX-License-Identifier: LGPL-2.1-or-later
// plan_run: the kernel-level jail of `ringfence run` as a Spec. A tmpfs root with read-only
// system directories (host secrets covered), the project read-write at its own path, a
// throwaway HOME holding only the agent's files, private /tmp, new /proc, minimal /dev.
#include "ringfence/cli/native_run.hpp"

#include <fcntl.h>
#include <glob.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "exec_resolve.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/cli/profile_file.hpp"
#include "ringfence/cli/run_cache.hpp"
#include "ringfence/net/hosts.hpp"
#include "ringfence/policy/merge.hpp"
#include "ringfence/policy/policy.hpp"
#include "run_etc.hpp"
#include "run_fs.hpp"
#include "run_landlock.hpp"
#include "run_limits.hpp"
#include "run_network.hpp"
#include "run_toolchains.hpp"

namespace rf::cli {
namespace {

using base::Error;
using base::Result;
using base::Status;
using spec::FsOp;
using spec::OpKind;

Result<presets::Toggles> toggles_from(const RunOptions& o) {
  presets::Toggles t;
  auto on = [](const std::optional<std::string>& v) -> std::optional<bool> {
    if (!v) return std::nullopt;
    return *v == "on";
  };
  t.network = on(o.network);
  t.edits = on(o.edits);
  if (o.review || o.edits == std::optional<std::string>("review")) {
    if (o.edits == std::optional<std::string>("off"))
      return Error::usage("--review with --edits off: a review run's project is writable inside");
    t.edits = true;
    t.review = true;
  }
  t.shell = on(o.shell);
  t.web_search = on(o.web_search);
  t.fs_jail = on(o.fs_jail);
  if (o.new_session) t.new_session = true;
  if (o.keep_home) t.keep_home = true;
  if (o.timeout) t.timeout = static_cast<std::uint64_t>(*o.timeout + 0.999);
  if (o.limits) {
    auto l = presets::parse_limits(*o.limits);
    if (!l) return Error::usage("--limit: " + l.error().message());
    t.limits = *l;
  }
  return t;
}

// A relative path from the caller's directory, as the caller gave it.
Result<std::string> real_dir(const std::string& given, const char* what, const std::string& cwd) {
  const bool relative = !given.empty() && !given.starts_with('/') && !cwd.empty();
  const std::string path = relative ? cwd + "/" + given : given;
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return base::errno_error(std::string(what) + " " + given);
  struct stat st {};
  if (::stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
    return Error(ENOTDIR, std::string(what) + " " + given + " is not a directory");
  return std::string(buf);
}

// A project so broad that the sandbox could write what the host runs or keeps its secrets in:
// the home directory or a directory holding it, or a system directory as a whole. The reason, or
// "" when the project is narrow enough.
std::string broad_project(const std::string& project, const std::string& home) {
  if (project == "/") return "the whole host would be writable";
  char buf[PATH_MAX];
  const std::string real_home = !home.empty() && ::realpath(home.c_str(), buf) != nullptr ? buf : home;
  if (!real_home.empty() && project == real_home)
    return "it is the home directory: its ssh keys, shell start-up files and other projects would be "
           "writable by the sandbox";
  if (!real_home.empty() && base::is_under(real_home, project))
    return "it holds the home directory (" + real_home +
           "): its ssh keys, shell start-up files and "
           "other projects would be writable by the sandbox";
  for (const char* sys : {"/etc", "/usr", "/var", "/tmp", "/home", "/root", "/opt", "/srv", "/boot", "/run",
                          "/mnt", "/media", "/var/tmp"})
    if (project == sys) return std::string("it is the system directory ") + sys + " as a whole";
  return {};
}

}  // namespace

void prefetch_plan_inputs() { prefetch_private_entries("/etc"); }
void end_plan_prefetch() { end_private_entries_prefetch(); }

namespace {

// RES_OPTIONS (resolv.conf(5)'s options, read by glibc and c-ares) with `option` added.
void add_resolver_option(spec::Spec& s, const std::string& option) {
  for (auto& e : s.env_ops)
    if (e.kind == spec::EnvOp::Kind::Set && e.name == "RES_OPTIONS") {
      e.value += (e.value.empty() ? "" : " ") + option;
      return;
    }
  s.env_ops.push_back({spec::EnvOp::Kind::Set, "RES_OPTIONS", option});
}

Status build_kernel_jail(RunPlan& plan, const RunOptions& opts, const presets::AgentProfile& agent,
                         const HostSnapshot& snap) {
  spec::Spec& s = plan.spec;
  s.ns.user = s.ns.pid = s.ns.ipc = s.ns.uts = true;
  s.ns.cgroup_try = true;
  // Network off: lo only. The allowlist: lo only too, and the launcher connects for the sandbox.
  s.ns.net = !plan.settings.network || plan.allowlisted;
  s.cap_ops.push_back({false, -1});  // the command gets no capability, even as root
  s.proc_masks = true;
  RF_TRY(add_system_dirs(plan));
  RF_TRY(add_home(plan, agent));
  RF_TRY(add_project(plan, opts));
  RF_TRY(add_extra_binds(plan, opts, snap.cwd));
  RF_TRY(add_toolchains(plan, opts, snap));
  RF_TRY(add_project_masks(plan, opts));
  RF_TRY(add_workspace(plan, opts));
  if (plan.settings.network) add_connect_policy(plan, opts, snap);
  RF_TRY(add_sandbox_etc_files(plan));
  return {};
}

// The profile file: --profile FILE, else the per-user default when it exists (--no-profile: none).
Result<std::optional<Profile>> read_profile(const RunOptions& opts, const HostSnapshot& snap) {
  std::optional<std::string> path = opts.profile;
  if (!path && !opts.no_profile) {
    const auto xdg = snap.env("XDG_CONFIG_HOME"), home = snap.env("HOME");
    path = default_profile_path(xdg ? xdg->c_str() : nullptr, home ? home->c_str() : nullptr);
    if (path && ::access(path->c_str(), F_OK) != 0) path.reset();
  }
  if (!path) return std::optional<Profile>();
  RF_TRY_ASSIGN(profile, load_profile(*path));
  return std::optional<Profile>(std::move(profile));
}

// The command line over the profile file: single values replace, lists add up.
RunOptions with_profile(RunOptions o, const Profile& p, const std::string& home) {
  if (!o.preset && p.preset) o.preset = presets::preset(*p.preset).id;
  if (!o.agent && p.agent) o.agent = p.agent;
  if (!o.project && p.project) o.project = p.project;
  if (!o.agent_state && p.agent_state) o.agent_state = expand_home(*p.agent_state, home);
  if (!o.require && p.require) o.require = std::string(presets::level_name(*p.require));
  if (!o.level && p.level) o.level = std::string(presets::level_name(*p.level));
  if (!o.allow_listen && p.allow_listen) o.allow_listen = *p.allow_listen;
  if (!o.toolchains && p.toolchains) o.toolchains = *p.toolchains ? "auto" : "off";
  auto binds = [&home](const std::vector<BindSpec>& from, std::vector<std::string>& to) {
    std::vector<std::string> mine;
    for (const auto& b : from) mine.push_back(expand_home(b.source, home) + ":" + expand_home(b.dest, home));
    to.insert(to.begin(), mine.begin(), mine.end());
  };
  binds(p.bind, o.binds);
  binds(p.ro_bind, o.ro_binds);
  o.masks.insert(o.masks.begin(), p.mask.begin(), p.mask.end());
  o.unmask.insert(o.unmask.begin(), p.unmask.begin(), p.unmask.end());
  std::vector<std::string> env = p.env_pass;
  for (const auto& [k, v] : p.env_set) env.push_back(k + "=" + v);
  o.env.insert(o.env.begin(), env.begin(), env.end());
  return o;
}

// Nothing on the filesystem is confined: the environment is rebuilt, HOME is a throwaway
// directory (agent directories linked in, files copied), seccomp and rlimits apply.
// Without a mount namespace a unix socket path names the host's socket: only the sandbox's own
// directories (the project here; HOME and TMPDIR when ThrowawayHome::prepare makes them) and the system's
// name-resolution services stay reachable.
void restrict_unix_paths(RunPlan& plan) {
  spec::ConnectPolicy& cp = plan.spec.supervision.connect;
  if (!cp.enabled) {
    plan.notes.push_back(
        "unix sockets: every host socket path is reachable (tmux, the session bus, ssh-agent, "
        "docker.sock): the connect policy is off");
    return;
  }
  cp.restrict_unix_paths = true;
  cp.unix_path_allow = {plan.project, "/run/systemd/resolve", "/run/nscd", "/var/run/nscd"};
}

// The soft and landlock levels have no network namespace: "on" is the connect policy with the
// user's rules, "off" the connect policy refusing every inet destination (loopback included: the
// host's local services are not the sandbox's) and abstract sockets; unix paths limited either way.
void add_network_without_namespace(RunPlan& plan, const RunOptions& opts, const std::string& where,
                                   const HostSnapshot& snap) {
  if (plan.settings.network) {
    add_connect_policy(plan, opts, snap);
    if (plan.allowlisted) {  // the host's network: its loopback and servers as at this level
      auto& cp = plan.spec.supervision.connect;
      cp.shared_network = true;
      cp.listen = opts.allow_listen ? spec::ListenPolicy::Unrestricted : spec::ListenPolicy::LoopbackOnly;
      plan.notes.push_back("egress allowlist " + where +
                           ": the host's network is shared; DNS to any nameserver is answered by the "
                           "launcher's resolver, the host's loopback is refused unless --allow-net names it");
    }
  } else {
    add_connect_policy(plan, RunOptions{}, snap);
    plan.spec.supervision.connect.hints = !opts.quiet;
    plan.spec.supervision.connect.allow.clear();
    plan.spec.supervision.connect.deny = {"*"};
    plan.spec.supervision.connect.listen = spec::ListenPolicy::None;
    plan.notes.push_back("network off " + where +
                         ": enforced by the connect policy (every inet connection and "
                         "addressed send refused, loopback included), not by a network namespace");
  }
  restrict_unix_paths(plan);
}

// The soft and landlock levels mount nothing: no tmpfs of the sandbox's own to bound.
void note_tmpfs_limit(RunPlan& plan, const std::string& where) {
  const auto& t = plan.settings.limits.tmpfs;
  if (t && *t != presets::kUnlimited)
    plan.notes.push_back(
        "tmpfs limit: not enforced " + where +
        ": the sandbox mounts no tmpfs of its own (its HOME and TMPDIR are directories on the host)");
}

Status build_soft_jail(RunPlan& plan, const RunOptions& opts, const presets::AgentProfile& agent,
                       const HostSnapshot& snap) {
  plan.spec.jail = spec::Jail::Soft;
  plan.soft_agent_dirs.clear();
  if (!opts.binds.empty() || !opts.ro_binds.empty())
    plan.notes.push_back("--bind/--ro-bind: ignored in the soft jail (every path is reachable anyway)");
  RF_TRY(add_soft_home(plan, agent));
  plan.notes.push_back(
      "soft jail: files outside the project are NOT protected (reads by absolute path, writes "
      "anywhere the user may write), nor are other processes of the user");
  plan.notes.push_back("soft jail: the project is not write-protected and masks do not apply");
  add_network_without_namespace(plan, opts, "in the soft jail", snap);
  note_tmpfs_limit(plan, "in the soft jail");
  return {};
}

// No namespaces, as the soft jail, but a Landlock ruleset confines the files (run_landlock.cpp);
// the network as in the soft jail: the connect policy, which refuses everything when "off".
Status build_landlock_jail(RunPlan& plan, const RunOptions& opts, const presets::AgentProfile& agent, int abi,
                           const HostSnapshot& snap) {
  plan.soft_agent_dirs.clear();
  RF_TRY(add_landlock_jail(plan, opts, agent, abi, snap.cwd));
  RF_TRY(add_landlock_toolchains(plan, opts, snap));
  add_network_without_namespace(plan, opts, "at the landlock level", snap);
  note_tmpfs_limit(plan, "at the landlock level");
  return {};
}

// The step of planning that looks at the host's filesystem (what the binds, rules, masks and
// covers are made of: system directories, /etc, the agent's list, the project's masks and .git,
// bind sources), by level. Everything else plan_run decides from its inputs alone.
Status plan_host_paths(RunPlan& plan, const RunOptions& opts, const presets::AgentProfile& agent,
                       const HostFacts& host, const HostSnapshot& snap) {
  if (plan.level == presets::Level::Kernel) {
    RF_TRY(build_kernel_jail(plan, opts, agent, snap));
  } else if (plan.level == presets::Level::Landlock) {
    RF_TRY(build_landlock_jail(plan, opts, agent, host.landlock_abi, snap));
    plan.level_summary =
        "not enforced at this level: project masks, read-only .git/hooks, "
        "hiding other processes";
    if (host.landlock_abi < 6) plan.level_summary += ", signal and abstract-socket scoping";
  } else {
    RF_TRY(build_soft_jail(plan, opts, agent, snap));
    plan.level_summary =
        "not enforced at this level: files outside the project, masks, other processes of the user";
  }
  return {};
}

// A host rule as net::parse_host_rule reads it, written back: "*.npmjs.org:443".
std::string canonical_rule(const net::HostRule& r) {
  std::string out = (r.wildcard ? "*." : "") + r.name;
  if (r.ports) {
    out += ":" + std::to_string(r.ports->first);
    if (r.ports->last != r.ports->first) out += "-" + std::to_string(r.ports->last);
  }
  return out;
}

// Each rule into the allowlist once, where it first came; `what` names the option in errors.
Status add_hosts(RunPlan& plan, const std::vector<std::string>& rules, const std::string& origin,
                 const std::string& what) {
  for (const auto& text : rules) {
    auto r = net::parse_host_rule(text);
    if (!r) return Error::usage(what + ": " + r.error().message());
    std::string rule = canonical_rule(*r);
    auto& hosts = plan.allowed_hosts;
    if (std::none_of(hosts.begin(), hosts.end(), [&rule](const auto& h) { return h.rule == rule; }))
      hosts.push_back({rule, origin});
  }
  return {};
}

Status add_host_sets(RunPlan& plan, const std::vector<std::string>& sets, const std::string& origin,
                     const std::string& what) {
  for (const auto& name : sets) {
    auto set = presets::host_set_by_name(name);
    if (!set) return Error::usage(what + ": " + set.error().message());
    RF_TRY(add_hosts(plan, set->hosts, origin + "set " + set->name, what + " " + set->name));
  }
  return {};
}

// The allowlist's rules in order: --allow-host, --allow-hosts, the agent's, the profile file's.
Status collect_allowlist(RunPlan& plan, const RunOptions& opts, const presets::Preset& preset,
                         const std::optional<Profile>& profile, const presets::AgentProfile& agent) {
  RF_TRY(add_hosts(plan, opts.allow_hosts, "--allow-host", "--allow-host"));
  RF_TRY(add_host_sets(plan, opts.allow_host_sets, "", "--allow-hosts"));
  RF_TRY(add_host_sets(plan, preset.host_sets, "preset " + preset.id + ", ", "--preset " + preset.id));
  RF_TRY(add_hosts(plan, agent.hosts, "agent " + agent.name, "agent " + agent.name));
  if (profile) {
    RF_TRY(add_hosts(plan, profile->allow_hosts, "profile file", profile->origin + ": allow_hosts"));
    RF_TRY(add_host_sets(plan, profile->allow_host_sets, "profile file, ",
                         profile->origin + ": allow_host_sets"));
  }
  return {};
}

}  // namespace

Result<RunPlan> plan_run(const RunOptions& given, const HostFacts& host, const HostSnapshot& snap) {
  RunPlan plan;
  auto read = read_profile(given, snap);
  if (!read) return read.error().as_usage();  // the profile file is the caller's own input
  auto& profile = *read;
  const RunOptions opts = profile ? with_profile(given, *profile, snap.home()) : given;
  plan.dry_run = opts.dry_run;
  plan.verbose = opts.verbose;
  if (profile) plan.profile_origin = profile->origin;
  presets::Preset preset = presets::default_preset();
  if (opts.preset) {
    auto p = presets::preset_by_name(*opts.preset);
    if (!p) return Error::usage("--preset: " + p.error().message());
    preset = *p;
  }
  RF_TRY_ASSIGN(cli_toggles, toggles_from(opts));
  presets::Toggles toggles = profile ? presets::merge(profile->toggles, cli_toggles) : cli_toggles;
  // The egress allowlist turns the network on. The command line's --network off wins over the
  // profile file's allowlist (a run offline), never over its own --allow-host.
  const bool cli_allowlist = !opts.allow_hosts.empty() || !opts.allow_host_sets.empty();
  const bool profile_allowlist =
      profile && (!profile->allow_hosts.empty() || !profile->allow_host_sets.empty());
  const bool network_off_given = opts.network && *opts.network == "off";
  const std::string allowlist_by = !opts.allow_hosts.empty()       ? "--allow-host"
                                   : !opts.allow_host_sets.empty() ? "--allow-hosts"
                                   : profile && !profile->allow_hosts.empty()
                                       ? "the profile file's allow_hosts"
                                       : "the profile file's allow_host_sets";
  if (cli_allowlist && network_off_given)
    return Error::usage(allowlist_by +
                        " needs the network, and --network off turns it off (drop one of them)");
  // A preset's allowlist (ci: the package registries) as the profile file's: --network off and
  // --allow-unfiltered-network turn it off.
  const bool preset_allowlist =
      !preset.host_sets.empty() && !network_off_given && !opts.allow_unfiltered_network;
  plan.allowlisted = cli_allowlist || (profile_allowlist && !network_off_given) || preset_allowlist;
  if (profile_allowlist && network_off_given)
    plan.notes.push_back("the profile file's allow_hosts and allow_host_sets: not used (--network off)");
  if (plan.allowlisted && opts.allow_unfiltered_network)
    return Error::usage(
        allowlist_by +
        " is enforced by the connect policy, which --allow-unfiltered-network turns off (drop "
        "one of them)");
  if (plan.allowlisted) toggles.network = true;
  plan.settings = presets::resolve(preset, toggles);
  plan.asked_limits = toggles.limits;
  plan.limit_best_effort = opts.limit_best_effort;
  if (profile) plan.net_rules = {profile->net_allow, profile->net_deny};
  if (opts.require) {
    auto lvl = presets::level_by_name(*opts.require);
    if (!lvl) return Error::usage("--require: " + lvl.error().message());
    plan.required = *lvl;
  } else if (preset.require) {
    plan.required = *preset.require;  // the ci preset: never less than the kernel jail
  }
  if (opts.seccomp) plan.settings.seccomp = *opts.seccomp;
  // No agent named: the one the command is (auto), else generic.
  const presets::AgentProfile* agent = &presets::generic_agent();
  if (!opts.agent || *opts.agent == "auto") {
    agent = &presets::agent_for_command(opts.command);
  } else {
    auto a = presets::agent_by_name(*opts.agent);
    if (!a) return Error::usage("--agent: " + a.error().message());
    for (const auto& known : presets::all_agents())
      if (known.name == a->name) agent = &known;
  }
  plan.agent = agent->name;
  if (plan.allowlisted) RF_TRY(collect_allowlist(plan, opts, preset, profile, *agent));
  for (const auto& e : opts.env)
    if (auto c = presets::check_env_arg(e); !c) return Error::usage("--env: " + c.error().message());
  auto project = real_dir(opts.project.value_or("."), "project", snap.cwd);
  if (!project) return project.error().as_usage();
  plan.project = *project;
  if (plan.project == "/") return Error::usage("the project cannot be / (the whole host would be writable)");
  if (std::string why = broad_project(plan.project, snap.home()); !why.empty() && !opts.allow_broad_project)
    return Error::usage("the project " + plan.project + " is refused: " + why +
                        "; run in a project's own folder (--project DIR), or pass --allow-broad-project");
  plan.home_inside = snap.home();
  // The level: what the preset aims at (--level may lower it, never raise it), as far as this
  // host goes: the kernel jail, else the Landlock jail (no user namespaces), else the soft jail.
  presets::Level aim =
      plan.settings.fs_jail == presets::Level::Kernel ? presets::Level::Kernel : presets::Level::Soft;
  if (opts.level) {
    auto forced = presets::level_by_name(*opts.level);
    if (!forced) return Error::usage("--level: " + forced.error().message());
    if (*forced < aim) {
      aim = *forced;
      plan.notes.push_back("level lowered to " + std::string(presets::level_name(aim)) + " by --level");
    }
  }
  // The allowlist takes the network namespace of the sandbox's own where it can, as network
  // off does; without one it runs on the host's network (shared_network).
  presets::Level host_level =
      plan.settings.network && !plan.allowlisted ? host.level_network_on : host.level_network_off;
  if (host_level == presets::Level::Landlock && host.landlock_abi < 1) host_level = presets::Level::Soft;
  plan.level = std::min(aim, host_level);
  if (plan.level < aim) {
    plan.notes.push_back(
        "this host cannot run the " + std::string(presets::level_name(aim)) + " jail: " +
        (host.why_not_kernel.empty() ? std::string("see `ringfence doctor`") : host.why_not_kernel));
    plan.level_reason = host.why_not_kernel;
  }

  if (plan.settings.review && plan.level != presets::Level::Kernel)
    return Error(0,
                 "--review needs the kernel level (an overlay of the project in the sandbox's own mount "
                 "namespace); this run is at the " +
                     std::string(presets::level_name(plan.level)) + " level" +
                     (host.why_not_kernel.empty() ? std::string(" (see ringfence doctor)")
                                                  : ": " + host.why_not_kernel) +
                     ". Nothing was run, and the project is not written");

  spec::Spec& s = plan.spec;
  s.argv = opts.command;
  s.bwrap_messages = false;
  // The launcher's own command line (the ringfence options) is not the command's to read.
  s.hide_launcher_argv = true;
  s.inherit_fds = false;
  s.die_with_parent = true;
  s.new_session = plan.settings.new_session;
  s.own_terminal = plan.settings.new_session;  // a new session gets a terminal of its own
  s.supervision.forward_signals = true;
  s.supervision.watch_parent_process = true;
  if (plan.settings.timeout) s.supervision.timeout_ms = *plan.settings.timeout * 1000;
  RF_TRY_ASSIGN(
      state, plan_agent_state(opts.agent_state,
                              given.agent_state ? "--agent-state" : "the profile file's agent_state", *agent,
                              plan.project, snap));
  plan.agent_state = std::move(state);
  RunOptions with_cache = opts;  // --cache: bound like a --bind
  RF_TRY(add_cache_binds(plan, opts, with_cache.binds, snap.cwd));
  RF_TRY(plan_host_paths(plan, with_cache, *agent, host, snap));
  RF_TRY(add_gitconfig(plan, snap));

  const std::vector<std::string>& host_env = snap.environment;
  plan.dropped_env = presets::dropped_variables(host_env, *agent, opts.env);
  s.env_ops.push_back({spec::EnvOp::Kind::Clear, "", ""});
  for (const auto& kv : presets::build_environment(host_env, *agent, opts.env, plan.home_inside)) {
    auto eq = kv.find('=');
    s.env_ops.push_back({spec::EnvOp::Kind::Set, kv.substr(0, eq), kv.substr(eq + 1)});
  }
  apply_toolchains(plan, opts, snap);
  // Network off: package managers are told so, and fail at once from their caches instead of
  // retrying a network that is not there (npm waits 70 s by default). --env wins.
  if (!plan.settings.network) {
    for (const auto& [k, v] : presets::offline_variables()) {
      const bool given = std::any_of(s.env_ops.begin(), s.env_ops.end(), [&k](const spec::EnvOp& e) {
        return e.kind == spec::EnvOp::Kind::Set && e.name == k;
      });
      if (!given) s.env_ops.push_back({spec::EnvOp::Kind::Set, k, v});
    }
  }
  // The allowlist on the host's network: glibc's resolver takes an answer over UDP only from
  // the nameserver's own address, which the launcher's resolver cannot send from; over TCP
  // (use-vc) it does not look. Added to the options the command would have had.
  if (s.supervision.connect.shared_network) add_resolver_option(s, "use-vc");
  add_cache_variables(plan, opts.env);
  // What the command (and a prompt) can tell it runs in: set last, so no --env replaces them.
  s.env_ops.push_back({spec::EnvOp::Kind::Set, "RINGFENCE", "1"});
  s.env_ops.push_back(
      {spec::EnvOp::Kind::Set, "RINGFENCE_LEVEL", std::string(presets::level_name(plan.level))});
  // The caller's directory when it is inside the project, else the project itself.
  const std::string& here = snap.cwd;
  s.chdir = base::is_under(here, plan.project) ? here : plan.project;
  add_limits(plan, host, snap.uid);
  RF_TRY(restrict_shell(plan, host, snap));
  return plan;
}

Result<RunPlan> plan_run(const RunOptions& opts, const HostFacts& host) {
  RF_TRY_ASSIGN(plan, plan_run(opts, host, gather_host_snapshot()));
  RF_TRY(compile_plan_seccomp(plan));
  return plan;
}

}  // namespace rf::cli
