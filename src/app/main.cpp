// SPDX-License-Identifier: LGPL-2.1-or-later
// Entry point: choose the front end (bwrap-compatible or native), run, map the result to an
// exit code and one message. The only top-level catch.
#include <sys/utsname.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/log.hpp"
#include "ringfence/cli/bwrap_args.hpp"
#include "ringfence/cli/host_snapshot.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/cli/native_run.hpp"
#include "ringfence/cli/run_cache.hpp"
#include "ringfence/cli/run_review.hpp"
#include "ringfence/engine/launch.hpp"
#include "ringfence/presets/presets.hpp"
#include "ringfence/probe/probe.hpp"
#include "ringfence/verify/verify.hpp"

namespace {

using rf::cli::kExitBwrapFailure;

// Which table an internal error (an exception that reached main) is reported in: bwrap's 1, or
// native mode's 125, which a CI can tell from the command's own 1.
bool g_native_mode = false;

std::string_view basename_of(std::string_view p) {
  auto pos = p.rfind('/');
  return pos == std::string_view::npos ? p : p.substr(pos + 1);
}

void print_to(FILE* f, const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), f);
  std::fflush(f);
}

int run_bwrap_mode(std::string_view argv0, const std::vector<std::string>& args) {
  namespace log = rf::base::log;
  log::set_program("bwrap");
  auto parsed = rf::cli::parse_bwrap_args(args);
  if (parsed.level_prefix) log::set_level_prefix(true);
  for (const auto& w : parsed.warnings) log::warning(w);
  if (parsed.error) {
    log::error(parsed.error->describe());
    return kExitBwrapFailure;
  }
  switch (parsed.action) {
    case rf::cli::BwrapParse::Action::Help: print_to(stdout, rf::cli::bwrap_usage(argv0)); return 0;
    case rf::cli::BwrapParse::Action::Version: print_to(stdout, rf::cli::bwrap_version_line()); return 0;
    case rf::cli::BwrapParse::Action::Usage:
      print_to(stderr, rf::cli::bwrap_usage(argv0));
      return kExitBwrapFailure;
    case rf::cli::BwrapParse::Action::Run: break;
  }
  // The descriptors the command line names are given to the launch, which closes each where
  // bwrap does; the rest close with this table, after the last message.
  rf::spec::OwnedFds fds = rf::spec::adopt_named_fds(parsed.spec);
  auto r = rf::engine::launch(parsed.spec, fds);
  if (!r) {
    log::error(r.error().describe());
    return kExitBwrapFailure;
  }
  return r.value();
}

const char* const kNativeHelpTail =
    "\n"
    "bwrap mode: invoked as 'bwrap' (hard link or copy), as 'ringfence bwrap ...', or with a\n"
    "first argument that is an option, ringfence accepts bubblewrap's command line (see\n"
    "'ringfence bwrap --help').\n";

// What the removal of the throwaway HOME and TMPDIR left on the host: one line each, up to a
// bound (a tree made to fail everywhere must not flood the terminal).
void report_not_removed(const std::vector<std::string>& left) {
  namespace log = rf::base::log;
  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < left.size() && i < kShown; ++i) log::warning("cannot remove " + left[i]);
  if (left.size() > kShown)
    log::warning("and " + std::to_string(left.size() - kShown) + " more entries that cannot be removed");
}

// `ringfence run`: snapshot the host, plan, compile the seccomp profile, prepare the throwaway
// HOME, run, finish it, map the outcome.
int run_native_run(const rf::cli::RunOptions& opts) {
  if (opts.quiet) rf::base::log::set_quiet(true);
  namespace log = rf::base::log;
  // What this host can do: probed once per boot (cached), each step tried for real.
  rf::cli::prefetch_plan_inputs();
  const rf::probe::Report probe = rf::probe::host_report(true);
  rf::cli::HostFacts host;
  host.landlock_abi = probe.landlock_abi;
  if (const auto* c = rf::probe::find_check(probe, "binfmt_misc"))
    host.userns_binfmt_misc = c->available == rf::probe::Availability::Yes;
  host.level_network_on =
      static_cast<rf::presets::Level>(rf::probe::reachable(probe, rf::probe::Level::Kernel, false));
  host.level_network_off =
      static_cast<rf::presets::Level>(rf::probe::reachable(probe, rf::probe::Level::Kernel, true));
  host.why_not_kernel = probe.level_reason;
  if (struct utsname u{}; ::uname(&u) == 0) host.pidns_pid_max = rf::cli::per_pidns_pid_max(u.release);
  for (const auto& c : rf::engine::cgroup_support().controllers)
    host.cgroup.push_back({c.name, c.usable, c.detail});
  // What planning reads of this process and host, read once here.
  rf::cli::HostSnapshot snapshot = rf::cli::gather_host_snapshot();
  // --cache: the directory exists before planning binds it (a dry run makes nothing).
  if (opts.cache && !opts.dry_run) {
    auto dir = rf::cli::cache_path(*opts.cache, snapshot.cwd);
    rf::base::Status made =
        dir ? rf::cli::prepare_cache_dir(*dir) : rf::base::Status(rf::base::unexpected(dir.error()));
    if (!made) {
      log::error(made.error().describe_with_cause());
      return made.error().is_usage() ? rf::cli::kExitUsage : rf::cli::kExitSetup;
    }
  }
  auto plan = rf::cli::plan_run(opts, host, snapshot);
  rf::cli::end_plan_prefetch();
  if (plan) {
    if (auto s = rf::cli::compile_plan_seccomp(*plan); !s) plan = s.error();
  }
  if (!plan) {
    log::error(plan.error().describe_with_cause());
    return plan.error().is_usage() ? rf::cli::kExitUsage : rf::cli::kExitSetup;
  }
  if (plan->dry_run) {
    print_to(stdout, rf::cli::describe_plan(*plan));
    return 0;
  }
  if (plan->required && *plan->required > plan->level) {
    log::error(std::string("refusing to run: this sandbox reaches level ") +
               std::string(rf::presets::level_name(plan->level)) + ", and level " +
               std::string(rf::presets::level_name(*plan->required)) + " is required");
    return rf::cli::kExitBelowLevel;
  }
  if (!plan->unenforced_limits.empty() && !plan->limit_best_effort) {
    for (const auto& l : plan->unenforced_limits)
      log::error("refusing to run: " + l + "; or pass --limit-best-effort to run without it");
    return rf::cli::kExitBelowLevel;
  }
  const std::string unenforced = !plan->level_summary.empty()
                                     ? " (" + plan->level_summary + "; see --dry-run)"
                                 : plan->notes.empty() ? std::string()
                                                       : " (see --dry-run: not everything is enforced)";
  log::info(std::string("level ") + std::string(rf::presets::level_name(plan->level)) + ", preset " +
            opts.preset.value_or("balanced") + ", network " +
            (plan->allowlisted ? "allowlisted (" + std::to_string(plan->allowed_hosts.size()) +
                                     (plan->allowed_hosts.size() == 1 ? " host rule)" : " host rules)")
             : plan->settings.network ? std::string("on")
                                      : std::string("off")) +
            ", seccomp " + plan->settings.seccomp + unenforced);
  if (!plan->path_dropped.empty()) {
    std::string dropped;
    for (const auto& d : plan->path_dropped) dropped += (dropped.empty() ? "" : ", ") + d;
    log::info("PATH entries not inside the sandbox: " + dropped);
  }
  if (plan->settings.network && !plan->spec.supervision.connect.enabled)
    log::warning("network on: the connect policy is not enforced; cloud metadata endpoints are reachable");
  std::size_t project_masked = 0;
  for (const auto& m : plan->masked)
    if (m.starts_with(plan->project + "/")) ++project_masked;
  if (project_masked > 0)
    log::info("masked " + std::to_string(project_masked) + " name" + (project_masked == 1 ? "" : "s") +
              " in the project (--dry-run lists them; --unmask GLOB leaves one readable)");
  // A review run: its change set, made before anything of the sandbox exists.
  std::optional<rf::cli::ReviewRun> review;
  if (plan->settings.review) {
    auto rv = rf::cli::start_review(*plan);
    if (!rv) {
      log::error(rv.error().describe_with_cause() + "; nothing was run");
      return rf::cli::kExitSetup;
    }
    review = std::move(*rv);
  }
  std::vector<std::string> not_removed;
  rf::cli::ThrowawayHome home(*plan, snapshot);
  if (auto h = home.prepare(); !h) {
    log::error(h.error().describe_with_cause());
    (void)home.finish(not_removed);
    report_not_removed(not_removed);
    return rf::cli::kExitSetup;
  }
  // From here on the launcher needs nothing of its environment (the plan holds the command's),
  // and the dropped credentials in it must not be readable by the command.
  snapshot.forget_environment();
  if (auto s = rf::engine::seal_launcher(); !s) {
    log::error("cannot clear the launcher's environment: " + s.error().describe_with_cause());
    (void)home.finish(not_removed);
    report_not_removed(not_removed);
    return rf::cli::kExitSetup;
  }
  rf::spec::OwnedFds no_fds;  // a native Spec names no descriptor of its caller
  const time_t started = ::time(nullptr);
  auto r = rf::engine::run_sandbox(plan->spec, no_fds);
  // A failed run's tool logs (npm's ~/.npm/_logs, a crash report) are in the HOME about to go.
  if (r && r->code != 0 && !plan->settings.keep_home && plan->spec.jail == rf::spec::Jail::Kernel) {
    auto written = rf::cli::files_written_since(plan->home_host, started, 2);
    if (written.count > 0) {
      std::string names;
      for (const auto& e : written.examples)
        names += (names.empty() ? "" : ", ") + plan->home_inside + "/" + e;
      log::info("the command failed; the " + std::to_string(written.count) + " file" +
                (written.count == 1 ? "" : "s") + " it wrote in its throwaway HOME (" + names +
                (written.count > written.examples.size() ? ", ..." : "") +
                ") are removed with it; --keep-home keeps them");
    }
  }
  if (auto h = home.finish(not_removed); !h) log::warning(h.error().describe_with_cause());
  report_not_removed(not_removed);
  if (review) {
    const bool killed =
        !r || r->timed_out || r->oom_killed || r->parent_exited || (r->code > 128 && r->code < 160);
    rf::cli::finish_review(*review, killed, r ? std::optional<int>(r->code) : std::nullopt);
  }
  for (const auto& w : rf::cli::autorun_warnings(*plan)) log::warning(w);
  // Said even with --quiet: the kept directory is what --keep-home asked for.
  if (plan->settings.keep_home) log::warning("home kept at " + plan->home_host);
  if (!r) {
    log::error(r.error().describe_with_cause());
    return rf::cli::kExitSetup;
  }
  if (!r->exec_failure.empty()) {
    const std::string& cmd = plan->spec.argv.front();
    const bool not_found = r->code == rf::cli::kExitNotFound;
    log::error(cmd +
               (not_found ? " was not found in the sandbox: " : " could not be executed in the sandbox: ") +
               r->exec_failure);
    if (not_found && !plan->missing_command_hint.empty()) log::info(plan->missing_command_hint);
    return not_found ? rf::cli::kExitNotFound : rf::cli::kExitCannotExec;
  }
  if (r->timed_out) {
    log::error("timed out: the sandbox was killed");
    return rf::cli::kExitTimeout;
  }
  if (r->parent_exited) return rf::cli::kExitSetup;
  if (r->oom_killed) {
    log::error("the memory limit was reached: the sandbox's cgroup killed a process (out of memory)");
    if (r->code == 128 + 9) return rf::cli::kExitMemory;
  }
  return r->code;
}

int run_native_preset(const rf::cli::PresetCommand& cmd) {
  if (cmd.op == rf::cli::PresetCommand::Op::List) {
    for (const auto& p : rf::presets::all_presets()) print_to(stdout, p.id + "\t" + p.summary + "\n");
    return 0;
  }
  auto p = rf::presets::preset_by_name(cmd.name);
  if (!p) {
    rf::base::log::error(p.error().describe_with_cause());
    return rf::cli::kExitUsage;
  }
  print_to(stdout, rf::presets::describe(*p));
  return 0;
}

int run_native_doctor(const rf::cli::DoctorCommand& cmd) {
  const rf::probe::Report r = rf::probe::host_report(!cmd.no_cache);
  print_to(stdout, cmd.json ? rf::probe::to_json(r) : rf::probe::format_table(r));
  return 0;
}

// `ringfence verify`: the network fixture needs a private user and network namespace, which the
// probe says whether this host gives.
int run_native_verify(const rf::cli::VerifyCommand& cmd) {
  namespace log = rf::base::log;
  const rf::probe::Report probe = rf::probe::host_report(true);
  rf::verify::HostInfo host;
  host.private_netns = true;
  for (const char* id : {"userns", "idmap", "netns"}) {
    const rf::probe::Check* c = rf::probe::find_check(probe, id);
    if (c && c->available == rf::probe::Availability::Yes) continue;
    host.private_netns = false;
    host.why_no_netns = c ? c->layer + ": " + c->detail : std::string(id) + ": not probed";
    break;
  }
  rf::verify::Options o;
  o.preset = cmd.preset;
  o.level = cmd.level;
  o.attack_program = cmd.attack_program;
  auto r = rf::verify::run(o, host);
  if (!r) {
    log::error("verify: " + r.error().describe_with_cause());
    return rf::cli::kExitSetup;
  }
  if (r->interrupted_by) {
    log::error("verify: interrupted by signal " + std::to_string(r->interrupted_by) +
               "; its sandboxes were stopped and its temporary files removed");
    return 128 + r->interrupted_by;
  }
  print_to(stdout, cmd.json ? rf::verify::to_json(*r) : rf::verify::format_table(*r));
  return rf::verify::exit_code(*r);
}

int run_native(const std::vector<std::string>& args) {
  auto cmd = rf::cli::parse_native(args);
  if (!cmd) {
    rf::base::log::error(cmd.error().describe_with_cause() + " (see 'ringfence --help')");
    return rf::cli::kExitUsage;
  }
  switch (cmd->kind) {
    case rf::cli::NativeCommand::Kind::Help: print_to(stdout, cmd->text + kNativeHelpTail); return 0;
    case rf::cli::NativeCommand::Kind::Version: break;
    case rf::cli::NativeCommand::Kind::Policy: return rf::cli::run_policy_command(cmd->policy);
    case rf::cli::NativeCommand::Kind::Preset: return run_native_preset(cmd->preset);
    case rf::cli::NativeCommand::Kind::Run: return run_native_run(cmd->run);
    case rf::cli::NativeCommand::Kind::Doctor: return run_native_doctor(cmd->doctor);
    case rf::cli::NativeCommand::Kind::Verify: return run_native_verify(cmd->verify);
    case rf::cli::NativeCommand::Kind::AgentState:
      return rf::cli::run_agent_state_command(cmd->agent_state, rf::cli::gather_host_snapshot());
    case rf::cli::NativeCommand::Kind::Violations:
      return rf::cli::run_violations_command(cmd->violations, rf::cli::gather_host_snapshot());
    case rf::cli::NativeCommand::Kind::Review: return rf::cli::run_review_command(cmd->review);
  }
  print_to(stdout, std::string("ringfence ") + RF_VERSION + "\n");
  return 0;
}

bool is_native_command(const std::string& a) {
  return a == "run" || a == "policy" || a == "preset" || a == "doctor" || a == "verify" ||
         a == "agent-state" || a == "violations" || a == "why" || a == "changes" || a == "apply" ||
         a == "discard" || a == "--help" || a == "-h" || a == "--help-all";
}

int run(int argc, char** argv) {
  // Every diagnostic line, the engine threads' too, goes to stderr through the one sink.
  rf::base::log::set_sink(rf::base::log::stderr_sink());
  std::string_view argv0 = argc > 0 && argv[0] ? argv[0] : "ringfence";
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);

  if (basename_of(argv0) == "bwrap") return run_bwrap_mode(argv0, args);
  if (!args.empty() && args[0] == "bwrap") {
    args.erase(args.begin());
    return run_bwrap_mode("bwrap", args);
  }
  rf::base::log::set_program("ringfence");
  if (args.empty()) {
    auto help = rf::cli::parse_native({"--help"});
    print_to(stderr, (help ? help->text : std::string()) + kNativeHelpTail);
    return rf::cli::kExitUsage;
  }
  if (is_native_command(args[0])) {
    g_native_mode = true;
    return run_native(args);
  }
  if (args.size() == 1 && args[0] == "--version") {
    print_to(stdout, std::string("ringfence ") + RF_VERSION + "\n");
    return 0;
  }
  // Anything else that starts with an option is bubblewrap's command line (nested sandboxes
  // re-run the binary as "/proc/self/exe --unshare-all ...").
  if (args[0].size() > 1 && args[0][0] == '-') return run_bwrap_mode(argv0, args);
  rf::base::log::error("unknown command '" + args[0] + "' (see 'ringfence --help')");
  return rf::cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ringfence: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "ringfence: internal error\n");
  }
  return g_native_mode ? rf::cli::kExitSetup : kExitBwrapFailure;
}
