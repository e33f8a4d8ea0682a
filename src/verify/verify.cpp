// SPDX-License-Identifier: LGPL-2.1-or-later
// The verify driver: find the attack program, plant the canaries, run the attacks in sandboxes
// made by re-executing ringfence (`run`), the network ones inside the hermetic fixture, retry
// rows that came back empty or whose fixture saw traffic one by one, and judge every row.
#include <limits.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>

#include "host_canaries.hpp"
#include "process.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/presets/presets.hpp"
#include "ringfence/verify/verify.hpp"
#include "workspace.hpp"

extern char** environ;

namespace rf::verify {
namespace {

using base::Error;
using base::Result;

#ifndef RF_ATTACK_INSTALLED
#define RF_ATTACK_INSTALLED "/usr/local/libexec/ringfence/rf-attack"
#endif

// The names the sandbox must scrub, each holding the canary token.
const char* const kCanaryVariables[] = {"RF_VERIFY_SECRET_TOKEN", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"};
constexpr double kListTimeout = 30;
// rf-attack takes at most 256 ids or prefixes per run.
constexpr size_t kMaxSelectors = 200;

Result<std::string> real_path(const std::string& p, const std::string& what) {
  char buf[PATH_MAX];
  if (::realpath(p.c_str(), buf) == nullptr) return base::errno_error(what + " " + p);
  if (::access(buf, X_OK) != 0) return base::errno_error(what + " " + p + " is not executable");
  return std::string(buf);
}

Result<std::string> self_path(const Options& o) {
  if (!o.self_exe.empty()) return o.self_exe;
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return base::errno_error("readlink /proc/self/exe");
  return std::string(buf, static_cast<size_t>(n));
}

// --attack-program, $RINGFENCE_ATTACK_PROGRAM, next to the installed binary, the configured
// libexec path, the build tree.
Result<std::string> find_attack_program(const Options& o, const std::string& self) {
  if (o.attack_program) return real_path(*o.attack_program, "--attack-program");
  if (const char* e = ::getenv("RINGFENCE_ATTACK_PROGRAM"); e && *e)
    return real_path(e, "RINGFENCE_ATTACK_PROGRAM");
  const std::string dir = base::parent(self);
  const std::vector<std::string> candidates = {
      base::join(base::parent(dir), "libexec/ringfence/rf-attack"),
      RF_ATTACK_INSTALLED,
      base::join(base::parent(base::parent(dir)), "tests/helpers/attack/rf-attack"),
  };
  std::string looked;
  for (const auto& c : candidates) {
    if (::access(c.c_str(), X_OK) == 0) return real_path(c, "attack program");
    looked += (looked.empty() ? "" : ", ") + c;
  }
  return Error(ENOENT, "the attack program rf-attack was not found (looked for " + looked +
                           "); give its path with --attack-program or RINGFENCE_ATTACK_PROGRAM");
}

}  // namespace

std::vector<std::string> selectors_for(const std::vector<std::string>& ids, const std::vector<Attack>& all) {
  // A row's id as a prefix when it picks only wanted attacks (one word for NET-01's 40 variants),
  // else the attack's own id.
  auto only_wanted = [&](const std::string& prefix) {
    for (const auto& a : all)
      if (a.id.rfind(prefix, 0) == 0 && std::find(ids.begin(), ids.end(), a.id) == ids.end()) return false;
    return true;
  };
  std::vector<std::string> out;
  for (const auto& id : ids) {
    auto a = std::find_if(all.begin(), all.end(), [&id](const Attack& x) { return x.id == id; });
    std::string sel = id;
    if (a != all.end() && !a->row.empty() && id.rfind(a->row, 0) == 0 && only_wanted(a->row)) sel = a->row;
    if (std::find(out.begin(), out.end(), sel) == out.end()) out.push_back(sel);
  }
  return out;
}

namespace {

std::vector<std::string> child_environment(const Workspace& ws, const std::string& token) {
  std::vector<std::string> env;
  auto replaced = [](std::string_view kv) {
    for (std::string_view name : {"HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "RF_ATTACK_CANARY"})
      if (kv.substr(0, name.size() + 1) == std::string(name) + "=") return true;
    for (const char* name : kCanaryVariables)
      if (kv.substr(0, std::string_view(name).size() + 1) == std::string(name) + "=") return true;
    return false;
  };
  for (char** e = environ; e && *e; ++e)
    if (!replaced(*e)) env.emplace_back(*e);
  env.push_back("HOME=" + ws.home());
  env.push_back("XDG_RUNTIME_DIR=" + ws.runtime_dir());
  env.push_back("RF_ATTACK_CANARY=" + token);
  for (const char* name : kCanaryVariables) env.push_back(std::string(name) + "=" + token);
  return env;
}

std::string why_no_result(const Captured& c, double timeout) {
  std::string why;
  if (c.timed_out || c.exit_code == 124)
    why = "the sandbox timed out after " + std::to_string(static_cast<int>(timeout)) + " s";
  else if (c.exit_code == 159)
    why = "the seccomp policy killed the attack program (SIGSYS)";
  else if (c.exit_code > 128)
    why = "the attack program was killed by signal " + std::to_string(c.exit_code - 128);
  else
    why = "the sandboxed run exited with " + std::to_string(c.exit_code);
  std::string tail = tail_lines(c.err, 2);
  return tail.empty() ? why : why + " (" + tail + ")";
}

// One sandboxed run's results.
struct RunOutput {
  std::map<std::string, Observation> obs;
  std::string level;
  std::optional<FixtureSummary> fixture;
  std::string why_missing;
  int interrupted = 0;
};

class Driver {
public:
  Driver(const Options& o, std::string self, std::string program, const Workspace& ws,
         std::vector<std::string> env, const std::vector<Attack>& all, SignalGuard& signals, Report& rep)
      : o_(o),
        self_(std::move(self)),
        program_(std::move(program)),
        ws_(ws),
        env_(std::move(env)),
        all_(all),
        signals_(signals),
        rep_(rep) {
    auto p = presets::preset_by_name(rep_.preset);
    preset_network_ = !p || p->network;
  }

  // Runs the attacks `selectors` pick (n of them) in one sandbox: the preset's own (network ""),
  // or network on/off in the fixture. `first`: a sandbox that does not start is verify's setup
  // failure, not a row's.
  Result<RunOutput> sandbox_run(const std::string& network, const std::vector<std::string>& selectors,
                                size_t n, const std::string& what, bool first) {
    const double timeout = o_.run_timeout > 0 ? o_.run_timeout : 30.0 + 4.0 * static_cast<double>(n);
    std::vector<std::string> argv;
    std::string log;
    if (!network.empty()) {
      log = ws_.logs() + "/fixture-" + std::to_string(rep_.runs.size()) + ".jsonl";
      argv = {program_, "fixture", "--log", log, "--"};
    }
    std::vector<std::string> run = {self_,
                                    "run",
                                    "--no-profile",
                                    "--preset",
                                    rep_.preset,
                                    "--project",
                                    ws_.project(),
                                    "--env",
                                    "RF_ATTACK_CANARY",
                                    "--timeout",
                                    std::to_string(static_cast<long>(timeout))};
    argv.insert(argv.end(), run.begin(), run.end());
    if (o_.level) argv.insert(argv.end(), {"--level", *o_.level});
    if (!network.empty()) argv.insert(argv.end(), {"--network", network});
    argv.insert(argv.end(), {"--", ws_.attack_copy(), "run", "--project", ws_.project(), "--home-canary",
                             ws_.home_canary()});
    if (!host_socket_.empty()) argv.insert(argv.end(), {"--host-socket", host_socket_});
    if (sysv_key_) argv.insert(argv.end(), {"--sysv-key", std::to_string(*sysv_key_)});
    if (!network.empty()) argv.push_back("--net-fixture");
    if (network == "off" || (network.empty() && !preset_network_)) argv.push_back("--network-off");
    argv.insert(argv.end(), selectors.begin(), selectors.end());

    RF_TRY_ASSIGN(c, run_captured(argv, env_, ws_.project(), timeout + 30, signals_));
    RunOutput out;
    out.interrupted = c.interrupted;
    if (c.interrupted) return out;
    out.level = parse_level_line(c.err);
    int junk = 0;
    for (auto& ob : parse_results(c.out, junk)) out.obs[ob.id] = ob;
    if (!log.empty())
      if (auto text = base::read_file(log)) out.fixture = parse_fixture_log(*text);
    rep_.runs.push_back(RunRecord{what, out.level, c.exit_code, selectors, out.fixture});
    if (junk > 0)
      rep_.notes.push_back(what + ": the attack program printed " + std::to_string(junk) +
                           " line(s) that are not results (ignored)");
    const bool refused = c.exit_code == 2 || c.exit_code == 123 || c.exit_code == 125;
    if (first && out.obs.empty() && (refused || (!network.empty() && !out.fixture && c.exit_code != 0))) {
      std::string who = network.empty() ? "the sandbox" : "the network fixture or its sandbox";
      return Error(0, who + " (" + what + ") could not be set up: exit " + std::to_string(c.exit_code) +
                          (c.err.empty() ? "" : ": " + tail_lines(c.err, 4)));
    }
    if (c.exit_code != 0 || out.obs.size() < n) out.why_missing = why_no_result(c, timeout);
    return out;
  }

  // A group of attacks that share a sandbox kind, in runs of at most kMaxSelectors selectors.
  Result<bool> run_group(const std::string& network, const std::vector<const Attack*>& attacks,
                         const std::string& what) {
    std::vector<std::string> ids;
    for (const auto* a : attacks) ids.push_back(a->id);
    const auto sels = selectors_for(ids, all_);
    const size_t parts = (sels.size() + kMaxSelectors - 1) / kMaxSelectors;
    for (size_t k = 0; k < parts; ++k) {
      std::vector<std::string> part(
          sels.begin() + static_cast<long>(k * kMaxSelectors),
          sels.begin() + static_cast<long>(std::min(sels.size(), (k + 1) * kMaxSelectors)));
      std::vector<const Attack*> picked;
      for (const auto* a : attacks)
        if (std::any_of(part.begin(), part.end(),
                        [a](const std::string& p) { return a->id.rfind(p, 0) == 0; }) &&
            !results_.count(a->id))
          picked.push_back(a);
      std::string name = parts == 1 ? what : what + " (part " + std::to_string(k + 1) + ")";
      RF_TRY_ASSIGN(ok, run_part(network, part, picked, name));
      if (!ok) return false;
    }
    return true;
  }

  // One run, then the rows that came back empty alone, and, in the fixture, each row alone when
  // the run's fixture saw denied traffic (which row caused it).
  Result<bool> run_part(const std::string& network, const std::vector<std::string>& sels,
                        const std::vector<const Attack*>& attacks, const std::string& what) {
    RF_TRY_ASSIGN(batch, sandbox_run(network, sels, attacks.size(), what, true));
    if (batch.interrupted) return interrupted(batch.interrupted);
    if (level_.empty() || network.empty()) level_ = batch.level;
    for (const auto* a : attacks) {
      auto it = batch.obs.find(a->id);
      results_[a->id] = {it == batch.obs.end() ? std::nullopt : std::optional(it->second), batch.level,
                         batch.fixture, batch.why_missing};
    }
    const bool attribute = batch.fixture && batch.fixture->denied_hits > 0 && attacks.size() > 1;
    long alone_hits = 0;
    for (const auto* a : attacks) {
      RowResult& r = results_[a->id];
      if ((r.obs && !attribute) || attacks.size() == 1) continue;
      RF_TRY_ASSIGN(one, sandbox_run(network, {a->id}, 1, a->id + " alone", false));
      if (one.interrupted) return interrupted(one.interrupted);
      auto it = one.obs.find(a->id);
      if (it != one.obs.end() && (!r.obs || r.obs->outcome != Outcome::Succeeded)) r.obs = it->second;
      if (!r.obs) r.why = one.why_missing;
      r.level = one.level.empty() ? r.level : one.level;
      if (attribute) {
        r.fixture = one.fixture;
        if (one.fixture) alone_hits += one.fixture->denied_hits;
      }
    }
    if (attribute && alone_hits == 0) {
      rep_.notes.push_back(what + ": the fixture saw " + std::to_string(batch.fixture->denied_hits) +
                           " denied hit(s) that no attack run alone reproduced; every row of that run fails");
      for (const auto* a : attacks) results_[a->id].fixture = batch.fixture;
    }
    if (network == "on" && batch.fixture && batch.fixture->allowed_hits == 0)
      rep_.notes.push_back(what +
                           ": the fixture's allowed address saw no traffic (the sandbox may have had no "
                           "network at all, so its denials prove less)");
    return true;
  }

  void set_host_canaries(const HostCanaries& c) {
    host_socket_ = c.host_socket();
    sysv_key_ = c.sysv_key();
  }

  struct RowResult {
    std::optional<Observation> obs;
    std::string level;
    std::optional<FixtureSummary> fixture;
    std::string why;
  };
  std::map<std::string, RowResult> results_;
  std::string level_;

private:
  bool interrupted(int sig) {
    rep_.interrupted_by = sig;
    return false;
  }

  const Options& o_;
  std::string self_, program_;
  const Workspace& ws_;
  std::vector<std::string> env_;
  const std::vector<Attack>& all_;
  bool preset_network_ = true;
  std::string host_socket_;
  std::optional<long> sysv_key_;
  SignalGuard& signals_;
  Report& rep_;
};

Result<std::vector<Attack>> list_attacks(const std::string& program, SignalGuard& signals, Report& rep) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  RF_TRY_ASSIGN(c, run_captured({program, "list"}, env, "/", kListTimeout, signals));
  if (c.interrupted) {
    rep.interrupted_by = c.interrupted;
    return std::vector<Attack>();
  }
  if (c.timed_out || c.exit_code != 0)
    return Error(0, program + " list " +
                        (c.timed_out ? "timed out" : "exited with " + std::to_string(c.exit_code)) +
                        (c.err.empty() ? "" : ": " + tail_lines(c.err, 3)));
  auto list = parse_list(c.out);
  if (!list) return std::move(list.error()).context(program + " list");
  return list;
}

void judge_all(const std::vector<Attack>& attacks, const Driver& d, const HostInfo& host, Report& rep) {
  for (const auto& a : attacks) {
    auto it = d.results_.find(a.id);
    if (it == d.results_.end()) {
      if (!a.network.empty() && !host.private_netns) {
        Observation skip{a.id, a.title, Outcome::Skipped, 0,
                         "no private network namespace for a hermetic fixture" +
                             (host.why_no_netns.empty() ? std::string() : " (" + host.why_no_netns + ")")};
        rep.rows.push_back(judge(a, &skip, d.level_, std::nullopt, ""));
      }
      continue;  // not run: verify was interrupted
    }
    const auto& r = it->second;
    rep.rows.push_back(judge(a, r.obs ? &*r.obs : nullptr, r.level, r.fixture, r.why));
  }
}

}  // namespace

base::Result<Report> run(const Options& o, const HostInfo& host) {
  Report rep;
  rep.preset = o.preset.value_or("balanced");
  rep.requested_level = o.level.value_or("");
  utsname u{};
  if (::uname(&u) == 0) rep.kernel = u.release;
  rep.uid = std::to_string(::getuid());
  RF_TRY_ASSIGN(signals, SignalGuard::make());
  RF_TRY_ASSIGN(self, self_path(o));
  RF_TRY_ASSIGN(program, find_attack_program(o, self));
  rep.attack_program = program;
  RF_TRY_ASSIGN(attacks, list_attacks(program, signals, rep));
  if (rep.interrupted_by) return rep;
  RF_TRY_ASSIGN(token, make_token());
  auto ws = Workspace::create(token, program);
  if (!ws) return std::move(ws.error()).context("verify's temporary files");
  rep.fake_home = ws->home();
  rep.project = ws->project();
  HostCanaries canaries(token, ws->root() + "/host.sock", rep.notes);
  Driver d(o, self, program, *ws, child_environment(*ws, token), attacks, signals, rep);
  d.set_host_canaries(canaries);

  std::vector<const Attack*> main, on, off;
  for (const auto& a : attacks) (a.network.empty() ? main : a.network == "on" ? on : off).push_back(&a);
  struct Group {
    std::string network, what;
    const std::vector<const Attack*>* attacks;
  };
  for (const Group& g :
       {Group{"", "main", &main}, Group{"off", "network off", &off}, Group{"on", "network on", &on}}) {
    if (g.attacks->empty() || rep.interrupted_by) continue;
    if (!g.network.empty() && !host.private_netns) continue;
    RF_TRY(d.run_group(g.network, *g.attacks, g.what));
  }
  rep.level = d.level_;
  for (const auto& r : rep.runs) {
    std::string note = "the " + r.what + " sandbox reached level " + r.level + ", the main one " + rep.level;
    if (!r.level.empty() && !rep.level.empty() && r.level != rep.level &&
        r.what.find(" alone") == std::string::npos &&
        std::find(rep.notes.begin(), rep.notes.end(), note) == rep.notes.end())
      rep.notes.push_back(note);
  }
  judge_all(attacks, d, host, rep);
  canaries.remove();
  if (auto removed = ws->remove(); !removed)
    rep.notes.push_back("temporary files left behind: " + removed.error().describe());
  return rep;
}

}  // namespace rf::verify
