// SPDX-License-Identifier: LGPL-2.1-or-later
// The native command line: one CLI11 app with a subcommand per tool. CLI11 reports errors by
// throwing; this file is the edge where they become Results.
#include <CLI/CLI.hpp>

#include <algorithm>

#include "ringfence/base/strings.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/net/hosts.hpp"
#include "ringfence/presets/limits.hpp"
#include "ringfence/presets/presets.hpp"

namespace rf::cli {
namespace {

const char* const kOnOff = "on|off";

void add_policy(CLI::App& app, NativeCommand& out) {
  auto* policy = app.add_subcommand("policy", "Inspect and compile seccomp policies");
  policy->require_subcommand(1);
  auto& p = out.policy;
  auto* list = policy->add_subcommand("list", "List the built-in profiles");
  list->callback([&p] { p.op = PolicyCommand::Op::List; });
  auto* check = policy->add_subcommand("check", "Parse and compile a profile or policy file; report errors");
  check->add_option("target", p.target, "Profile name or policy file")->required();
  check->callback([&p] { p.op = PolicyCommand::Op::Check; });
  auto* show = policy->add_subcommand("show", "Print the resolved rule of every syscall");
  show->add_option("target", p.target, "Profile name or policy file")->required();
  show->add_flag("--pfc", p.pseudo_code, "Print libseccomp's pseudo filter code instead");
  show->callback([&p] { p.op = PolicyCommand::Op::Show; });
  auto* compile = policy->add_subcommand(
      "compile", "Write the raw BPF program (one, for bwrap's --seccomp) of a profile");
  compile->add_option("target", p.target, "Profile name or policy file")->required();
  compile->add_option("-o,--output", p.output, "Output file ('-' for stdout)")->required();
  compile->callback([&p] { p.op = PolicyCommand::Op::Compile; });
  policy->callback([&out] { out.kind = NativeCommand::Kind::Policy; });
}

void add_preset(CLI::App& app, NativeCommand& out) {
  auto* preset = app.add_subcommand("preset", "List the presets or show one");
  preset->require_subcommand(1);
  auto& p = out.preset;
  preset->add_subcommand("list", "List the presets")->callback([&p] { p.op = PresetCommand::Op::List; });
  auto* show = preset->add_subcommand("show", "Show what a preset sets");
  show->add_option("name", p.name, "trusted | balanced | hardened | read-only")->required();
  show->callback([&p] { p.op = PresetCommand::Op::Show; });
  preset->callback([&out] { out.kind = NativeCommand::Kind::Preset; });
}

void add_violations(CLI::App& app, NativeCommand& out) {
  auto& v = out.violations;
  for (const bool why : {false, true}) {
    auto* sub =
        why ? app.add_subcommand("why",
                                 "Explain the refusals of the last run: what, and the flag that allows it")
            : app.add_subcommand("violations", "Print the violation log of the last run (or --since, --all)");
    sub->add_flag("--last", v.last, "The last run's lines (the default)");
    sub->add_option("--since", v.since, "From then on: a duration back (10m, 2h, 1d) or a UTC time");
    sub->add_flag("--all", v.all, "Every line of the log");
    sub->add_option("--log", v.log, "Another log file than the user's");
    if (!why) {
      sub->add_flag("--json", v.json, "The lines as they are (JSON lines)");
      sub->add_option("--format", v.format, "github: GitHub Actions ::warning annotations")
          ->check(CLI::IsMember({"text", "github"}));
    }
    sub->callback([&out, why] {
      out.kind = NativeCommand::Kind::Violations;
      out.violations.op = why ? ViolationsCommand::Op::Why : ViolationsCommand::Op::List;
    });
  }
}

void add_doctor(CLI::App& app, NativeCommand& out) {
  auto* doctor = app.add_subcommand("doctor", "What this host can enforce, why not, and how to fix it");
  doctor->add_flag("--json", out.doctor.json, "The same report as JSON");
  doctor->add_flag("--no-cache", out.doctor.no_cache, "Probe again; do not use the per-boot cache");
  doctor->callback([&out] { out.kind = NativeCommand::Kind::Doctor; });
}

void add_agent_state(CLI::App& app, NativeCommand& out) {
  auto* state = app.add_subcommand("agent-state", "List, show or reset the agents' kept state");
  state->require_subcommand(1);
  auto& s = out.agent_state;
  state->add_subcommand("list", "The agents with a state directory: path and size")->callback([&s] {
    s.op = AgentStateCommand::Op::List;
  });
  auto* show = state->add_subcommand("show", "An agent's state: path, entries, size, when it was made");
  show->add_option("agent", s.agent, "claude | codex | gemini | cursor | cline")->required();
  show->callback([&s] { s.op = AgentStateCommand::Op::Show; });
  auto* reset = state->add_subcommand("reset", "Remove an agent's state (its per-project states too)");
  reset->add_option("agent", s.agent, "claude | codex | gemini | cursor | cline")->required();
  reset->add_flag("--yes", s.yes, "Do not ask (needed when stdin is not a terminal)");
  reset->callback([&s] { s.op = AgentStateCommand::Op::Reset; });
  state->callback([&out] { out.kind = NativeCommand::Kind::AgentState; });
}

template <typename T>
CLI::Option* opt(CLI::App* app, const std::string& name, std::optional<T>& dest, const std::string& help);

void add_verify(CLI::App& app, NativeCommand& out) {
  auto* verify = app.add_subcommand("verify", "Attack a real sandbox on this host and report what held");
  auto& v = out.verify;
  opt(verify, "--preset", v.preset,
      "The preset to attack: trusted | balanced (default) | hardened | read-only");
  opt(verify, "--level", v.level, "Attack the sandbox at this level or lower: kernel | landlock | soft");
  opt(verify, "--attack-program", v.attack_program, "The rf-attack program (default: the installed one)")
      ->type_name("PATH");
  verify->add_flag("--json", v.json, "The same report as one JSON document");
  verify->callback([&out] {
    out.kind = NativeCommand::Kind::Verify;
    const auto& l = out.verify.level;
    if (l && *l != "kernel" && *l != "landlock" && *l != "soft")
      throw CLI::ValidationError("--level", "expected kernel, landlock or soft, got '" + *l + "'");
    if (const auto& p = out.verify.preset; p)
      if (auto known = presets::preset_by_name(*p); !known)
        throw CLI::ValidationError("--preset", known.error().message());
  });
}

template <typename T>
CLI::Option* opt(CLI::App* app, const std::string& name, std::optional<T>& dest, const std::string& help) {
  return app->add_option_function<T>(
      name, [&dest](const T& v) { dest = v; }, help);
}

void add_run(CLI::App& app, NativeCommand& out) {
  auto* run = app.add_subcommand("run", "Run COMMAND confined to a project folder");
  auto& r = out.run;
  opt(run, "--preset", r.preset, "trusted | balanced (default) | hardened | read-only");
  opt(run, "--agent", r.agent, "Agent profile: claude, codex, gemini, cursor, cline, generic, auto");
  opt(run, "--project", r.project, "The writable project folder (default: the current folder)");
  run->add_flag("--workspace", r.workspace, "Also show the project at /workspace");
  opt(run, "--network", r.network, "Network: off (loopback only) or on (connect policy)")->type_name(kOnOff);
  opt(run, "--edits", r.edits, "off: the project is read-only; review: as --review")
      ->type_name("on|off|review");
  run->add_flag("--quiet", r.quiet,
                "No information lines and no hints on denials (the violation log still has them)");
  run->add_flag(
      "--review", r.review,
      "Keep the edits in a change set (ringfence changes, apply, discard); the project is untouched");
  opt(run, "--shell", r.shell, "off: only COMMAND (and its interpreter) may be executed")->type_name(kOnOff);
  opt(run, "--web-search", r.web_search, "Recorded for the host; web search runs outside")->type_name(kOnOff);
  opt(run, "--fs-jail", r.fs_jail, "off: no filesystem jail (env scrub and HOME redirect only)")
      ->type_name(kOnOff);
  run->add_option("--bind", r.binds, "Bind SRC (at DST) read-write; repeatable")->type_name("SRC[:DST]");
  run->add_option("--ro-bind", r.ro_binds, "Bind SRC (at DST) read-only; repeatable")->type_name("SRC[:DST]");
  run->add_option("--unmask", r.unmask,
                  "Leave project names matching GLOB readable (wins over the masks); repeatable")
      ->type_name("GLOB");
  run->add_option("--mask", r.masks, "Hide PATH or GLOB inside the project; repeatable")
      ->type_name("PATH|GLOB");
  opt(run, "--mask-scan-limit", r.mask_scan_limit,
      "Refuse a project with more than N entries to scan for masks (default " +
          std::to_string(kDefaultMaskScanLimit) + "; 0: no bound)")
      ->type_name("N");
  run->add_option("--env", r.env, "Pass K from the host, or set K=V; repeatable")->type_name("K[=V]");
  run->add_option_function<std::string>(
         "--timeout",
         [&r](const std::string& v) {
           auto d = presets::parse_duration(v);
           if (!d) throw CLI::ValidationError("--timeout", d.error().message());
           r.timeout = *d;
         },
         "Kill the whole sandbox after DURATION (90, 90s, 5m, 2h)")
      ->type_name("DURATION");
  opt(run, "--limit", r.limits,
      "memory=SIZE,pids=N,nofile=N,cpu=N,core=SIZE,fsize=SIZE,tmpfs=SIZE (K, M, G, T; unlimited)")
      ->type_name("LIMITS");
  run->add_flag("--limit-best-effort", r.limit_best_effort,
                "Run even when a --limit (or the profile's [limits]) cannot be enforced here");
  run->add_flag("--keep-home", r.keep_home, "Keep the throwaway HOME and print where it is");
  opt(run, "--cache", r.cache,
      "Keep package caches (npm, pip, cargo, go, maven, gradle, ccache) in DIR across runs, read-write")
      ->type_name("DIR");
  opt(run, "--agent-state", r.agent_state,
      "Where the agent's config and state are kept: default (one per agent), project, throwaway, host, or "
      "DIR")
      ->type_name("MODE|DIR");
  run->add_flag("--allow-broad-project", r.allow_broad_project,
                "Allow a project that is the home directory, holds it, or is a system directory");
  opt(run, "--profile", r.profile, "Profile file (TOML); default: ~/.config/ringfence/profile.toml");
  run->add_flag("--no-profile", r.no_profile, "Ignore the per-user default profile file");
  run->add_flag("--dry-run", r.dry_run, "Print the resolved sandbox and exit");
  run->add_flag("--verbose", r.verbose, "With --dry-run: list everything (every dropped variable)");
  opt(run, "--seccomp", r.seccomp, "Seccomp policy: a profile name or a policy file");
  opt(run, "--require", r.require, "Refuse to run below this level: kernel | landlock | soft");
  opt(run, "--level", r.level, "Run at this level or lower, never higher: kernel | landlock | soft");
  run->add_flag("--allow-unsandboxed", r.allow_unsandboxed, "Run even when no protection is possible");
  run->add_flag("--new-session", r.new_session, "Start COMMAND in a new session (setsid)");
  run->add_option("--allow-net", r.allow_net, "Network on: allow connections to RULE; repeatable")
      ->type_name("RULE");
  run->add_option("--deny-net", r.deny_net, "Network on: deny connections to RULE; repeatable")
      ->type_name("RULE");
  run->add_option("--allow-host", r.allow_hosts,
                  "Egress allowlist: only these host names (and their ports) are reachable; repeatable; "
                  "implies --network on (kernel level only)")
      ->type_name("HOST[:PORT]");
  run->add_option("--allow-hosts", r.allow_host_sets,
                  "Egress allowlist: the hosts of named sets (npm, pypi, github, crates, go, debian); "
                  "repeatable; implies --network on")
      ->type_name("SET[,SET...]")
      ->delimiter(',');
  run->add_flag("--allow-listen", r.allow_listen,
                "Network on: allow binding and listening on any address and abstract unix names");
  opt(run, "--toolchains", r.toolchains,
      "auto (default): bind the home's toolchains and PATH's folders read-only; off: none")
      ->check(CLI::IsMember({"auto", "off"}))
      ->type_name("auto|off");
  run->add_flag("--allow-unfiltered-network", r.allow_unfiltered_network,
                "Network on without the connect policy (where the kernel cannot enforce it)");
  // Everything from the first word that is not an option on belongs to COMMAND.
  run->prefix_command();
  run->callback([&out, run] {
    out.kind = NativeCommand::Kind::Run;
    out.run.command = run->remaining();
    if (!out.run.command.empty() && out.run.command.front() == "--")
      out.run.command.erase(out.run.command.begin());
  });
}

void check_run(const RunOptions& r) {
  if (r.command.empty())
    throw CLI::ValidationError("run", "COMMAND is missing (ringfence run [OPTIONS] -- COMMAND [ARGS...])");
  for (const auto* v : {&r.network, &r.edits, &r.shell, &r.web_search, &r.fs_jail})
    if (*v && **v != "on" && **v != "off" && !(v == &r.edits && **v == "review"))
      throw CLI::ValidationError("run", "expected on or off, got '" + **v + "'");
  if (r.mask_scan_limit && *r.mask_scan_limit < 0)
    throw CLI::ValidationError("--mask-scan-limit", "must be 0 (no bound) or a positive number of entries");
  if (r.timeout && !(*r.timeout > 0))
    throw CLI::ValidationError("--timeout", "must be a positive number of seconds");
  if (r.require && *r.require != "kernel" && *r.require != "landlock" && *r.require != "soft")
    throw CLI::ValidationError("--require", "expected kernel, landlock or soft, got '" + *r.require + "'");
  if (r.agent_state && r.agent_state->empty())
    throw CLI::ValidationError("--agent-state", "expected default, project, throwaway, host or a directory");
  if (r.level && *r.level != "kernel" && *r.level != "landlock" && *r.level != "soft")
    throw CLI::ValidationError("--level", "expected kernel, landlock or soft, got '" + *r.level + "'");
  for (const auto& h : r.allow_hosts)
    if (auto rule = net::parse_host_rule(h); !rule)
      throw CLI::ValidationError("--allow-host", rule.error().message());
  for (const auto& set : r.allow_host_sets)
    if (auto known = presets::host_set_by_name(set); !known)
      throw CLI::ValidationError("--allow-hosts", known.error().message());
  const char* allowlist = !r.allow_hosts.empty() ? "--allow-host" : "--allow-hosts";
  if ((!r.allow_hosts.empty() || !r.allow_host_sets.empty()) && r.network && *r.network == "off")
    throw CLI::ValidationError(allowlist,
                               "needs the network, and --network off turns it off (drop one of them)");
  if ((!r.allow_hosts.empty() || !r.allow_host_sets.empty()) && r.allow_unfiltered_network)
    throw CLI::ValidationError(
        allowlist,
        "is enforced by the connect policy, which --allow-unfiltered-network turns off "
        "(drop one of them)");
}

// "unknown option --netwrok (did you mean --network?)": the closest option of `app` within two
// edits, if there is one.
std::string unknown_option(const CLI::App& app, const std::string& word) {
  const std::string name = word.substr(0, word.find('='));
  std::string best;
  std::size_t best_d = 3;
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& l : o->get_lnames()) {
      const std::size_t d = base::edit_distance(name, "--" + l);
      if (d < best_d) {
        best_d = d;
        best = "--" + l;
      }
    }
  }
  return "unknown option " + name + (best.empty() ? std::string() : " (did you mean " + best + "?)");
}

// Usage lines with the whole command ("ringfence agent-state reset"), and run's COMMAND.
class UsageFormatter : public CLI::Formatter {
public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    for (const CLI::App* p = app->get_parent(); p != nullptr; p = p->get_parent())
      name = p->get_name() + " " + name;
    std::string usage = CLI::Formatter::make_usage(app, name);
    if (app->get_name() == "run" && app->get_parent() && !app->get_parent()->get_parent()) {
      const auto nl = usage.rfind('\n');
      usage.insert(nl == std::string::npos ? usage.size() : nl, " [--] COMMAND [ARGS...]");
    }
    return usage;
  }
};

}  // namespace

base::Result<NativeCommand> parse_native(const std::vector<std::string>& args) {
  NativeCommand out;
  CLI::App app{"ringfence: a Linux sandbox for coding agents and CI jobs, and a drop-in bwrap", "ringfence"};
  app.formatter(std::make_shared<UsageFormatter>());
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show the help of every subcommand");
  add_run(app, out);
  add_policy(app, out);
  add_preset(app, out);
  add_doctor(app, out);
  add_verify(app, out);
  add_agent_state(app, out);
  add_violations(app, out);
  add_review_commands(app, out);
  // `run ... -- COMMAND`: the words after the first "--" are the command, whatever they look like.
  std::vector<std::string> words = args;
  std::vector<std::string> command;
  if (!words.empty() && words.front() == "run") {
    auto dd = std::find(words.begin(), words.end(), "--");
    if (dd != words.end()) {
      command.assign(dd + 1, words.end());
      words.erase(dd, words.end());
    }
  }
  try {
    std::vector<std::string> rev(words.rbegin(), words.rend());  // CLI11 takes them reversed
    app.parse(rev);
    // A word like an option where COMMAND would start is a mistyped option, not a program.
    if (out.kind == NativeCommand::Kind::Run && !out.run.command.empty() &&
        out.run.command.front().starts_with("-"))
      return base::Error(0, "run: " + unknown_option(*app.get_subcommand("run"), out.run.command.front()));
    if (out.kind == NativeCommand::Kind::Run && !command.empty()) {
      if (!out.run.command.empty())
        throw CLI::ValidationError("run",
                                   "COMMAND given both before and after --: " + out.run.command.front());
      out.run.command = command;
    }
    if (out.kind == NativeCommand::Kind::Run) check_run(out.run);
  } catch (const CLI::CallForHelp&) {
    out.kind = NativeCommand::Kind::Help;
    const CLI::App* sub = &app;
    while (!sub->get_subcommands().empty()) sub = sub->get_subcommands().front();
    out.text = sub->help();
  } catch (const CLI::CallForAllHelp&) {
    out.kind = NativeCommand::Kind::Help;
    out.text = app.help("", CLI::AppFormatMode::All);
  } catch (const CLI::ParseError& e) {
    return base::Error(0, e.what());
  }
  return out;
}

}  // namespace rf::cli
