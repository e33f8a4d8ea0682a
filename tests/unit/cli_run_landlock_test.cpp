// SPDX-License-Identifier: LGPL-2.1-or-later
// The landlock level of `ringfence run` as a plan: which level --level and the host give, and the
// Landlock rules (what is granted, what is left out) and notes it produces.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "cli_run_test_util.hpp"
#include "ringfence/cli/native_run.hpp"
#include "ringfence/spec/validate.hpp"

using rf::cli::HostFacts;
using rf::cli::RunOptions;
using rf::cli::RunPlan;
using rf::presets::Level;
using Rule = rf::spec::Spec::FsRule;

namespace {

using rf::test::has_note;
using rf::test::rights_of;

HostFacts host(Level level, int abi = 7) { return rf::test::host_at(level, abi); }

struct Tree {
  std::string base, proj, home;
  const char* saved_home = ::getenv("HOME");
  std::string old_home = saved_home ? saved_home : "";
  Tree() {
    char tmpl[] = "/tmp/rf-unit-landlock-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    base = tmpl;
    proj = base + "/proj";
    home = base + "/home";
    ::mkdir(proj.c_str(), 0755);
    ::mkdir(home.c_str(), 0755);
    ::setenv("HOME", home.c_str(), 1);
  }
  ~Tree() {
    if (saved_home) {
      ::setenv("HOME", old_home.c_str(), 1);
    } else {
      ::unsetenv("HOME");
    }
    ::rmdir(proj.c_str());
    ::rmdir(home.c_str());
    ::rmdir(base.c_str());
  }
};

RunOptions options(const Tree& t) { return rf::test::plain_run(t.proj); }

bool any_rule_under(const RunPlan& p, const std::string& dir) {
  return std::any_of(p.spec.landlock_rules.begin(), p.spec.landlock_rules.end(),
                     [&dir](const Rule& r) { return r.path == dir || r.path.rfind(dir + "/", 0) == 0; });
}

}  // namespace

TEST_CASE("run: a host without user namespaces but with Landlock runs the landlock level") {
  Tree t;
  auto plan = rf::cli::plan_run(options(t), host(Level::Landlock));
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(plan->level == Level::Landlock);
  CHECK(plan->spec.jail == rf::spec::Jail::Landlock);
  CHECK(rf::spec::validate_jail(plan->spec));
  CHECK(plan->spec.hide_launcher_argv);
  CHECK(!plan->spec.ns.user);
  CHECK(rights_of(*plan, t.proj) == (Rule::Read | Rule::Write | Rule::Execute));
  CHECK(rights_of(*plan, "/usr") == (Rule::Read | Rule::Execute));
  CHECK(rights_of(*plan, "/proc") == Rule::Read);
  CHECK(rights_of(*plan, "/dev/null") == (Rule::Read | Rule::Write));
  CHECK(rights_of(*plan, "/dev/tty") == (Rule::Read | Rule::Write | Rule::Ioctl));
  CHECK(!any_rule_under(*plan, t.home));  // the real home: nothing
  CHECK(!any_rule_under(*plan, "/tmp/rf-unit-landlock-none"));
  CHECK(rights_of(*plan, "/tmp") == -1);
  if (::access("/etc/shadow", F_OK) == 0) {
    CHECK(rights_of(*plan, "/etc") == -1);  // /etc is allowed entry by entry, around its secrets
    CHECK(rights_of(*plan, "/etc/shadow") == -1);
    CHECK(rights_of(*plan, "/etc/passwd") == (Rule::Read | Rule::Execute));
    CHECK(std::find(plan->masked.begin(), plan->masked.end(), "/etc/shadow") != plan->masked.end());
  }
  CHECK(has_note(*plan, "landlock level: masks do not apply"));
  CHECK(has_note(*plan, ".git/hooks"));
  CHECK(!has_note(*plan, "pathname unix sockets"));  // the connect policy limits them (below)
  CHECK(!has_note(*plan, "signal scoping"));         // ABI 7 scopes signals and abstract sockets
  CHECK(plan->level_summary.find("project masks") != std::string::npos);
  CHECK(plan->spec.supervision.connect.enabled);  // network off: the connect policy refuses all
  CHECK(plan->spec.supervision.connect.restrict_unix_paths);
  CHECK(std::find(plan->spec.supervision.connect.unix_path_allow.begin(),
                  plan->spec.supervision.connect.unix_path_allow.end(),
                  plan->project) != plan->spec.supervision.connect.unix_path_allow.end());
  CHECK(plan->spec.supervision.connect.deny == std::vector<std::string>{"*"});
  CHECK(plan->spec.supervision.connect.listen == rf::spec::ListenPolicy::None);  // no inet server
}

TEST_CASE("run: the listen policy follows the network and --allow-listen") {
  Tree t;
  RunOptions o = options(t);
  o.allow_listen = true;  // the network is off: no effect
  auto off = rf::cli::plan_run(o, host(Level::Landlock));
  REQUIRE_MESSAGE(off, (off ? "" : off.error().message()));
  CHECK(off->spec.supervision.connect.listen == rf::spec::ListenPolicy::None);
  o.network = "on";
  o.allow_listen = false;
  auto on = rf::cli::plan_run(o, host(Level::Landlock));
  REQUIRE_MESSAGE(on, (on ? "" : on.error().message()));
  CHECK(on->spec.supervision.connect.listen == rf::spec::ListenPolicy::LoopbackOnly);
  CHECK(rf::cli::describe_plan(*on).find("servers: bind and listen on loopback only") != std::string::npos);
  o.allow_listen = true;
  auto open = rf::cli::plan_run(o, host(Level::Landlock));
  REQUIRE_MESSAGE(open, (open ? "" : open.error().message()));
  CHECK(open->spec.supervision.connect.listen == rf::spec::ListenPolicy::Unrestricted);
  o.allow_unfiltered_network = true;  // no supervisor at all
  auto bare = rf::cli::plan_run(o, host(Level::Landlock));
  REQUIRE_MESSAGE(bare, (bare ? "" : bare.error().message()));
  CHECK(!bare->spec.supervision.connect.enabled);
  CHECK(rf::cli::describe_plan(*bare).find("servers:") == std::string::npos);
}

TEST_CASE("run: the landlock level with edits off, and on an older ABI") {
  Tree t;
  RunOptions o = options(t);
  o.edits = "off";
  auto plan = rf::cli::plan_run(o, host(Level::Landlock, 3));
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(rights_of(*plan, t.proj) == (Rule::Read | Rule::Execute));
  CHECK(!has_note(*plan, ".git/hooks"));
  CHECK(has_note(*plan, "no abstract-socket or signal scoping (Landlock ABI 3 < 6)"));
  CHECK(has_note(*plan, "ioctl on device nodes is not controlled"));
  CHECK(!has_note(*plan, "truncate(2) is not controlled"));
}

TEST_CASE("run: --level lowers the level, never raises it") {
  Tree t;
  RunOptions o = options(t);
  o.level = "landlock";
  auto plan = rf::cli::plan_run(o, host(Level::Kernel));
  REQUIRE(plan);
  CHECK(plan->level == Level::Landlock);
  CHECK(has_note(*plan, "level lowered to landlock by --level"));
  o.level = "soft";
  plan = rf::cli::plan_run(o, host(Level::Kernel));
  REQUIRE(plan);
  CHECK(plan->level == Level::Soft);
  CHECK(plan->spec.jail == rf::spec::Jail::Soft);
  CHECK(rf::spec::validate_jail(plan->spec));
  CHECK(plan->spec.hide_launcher_argv);
  CHECK(plan->level_summary.find("files outside the project") != std::string::npos);
  o.level = "kernel";
  plan = rf::cli::plan_run(o, host(Level::Landlock));
  REQUIRE(plan);
  CHECK(plan->level == Level::Landlock);
  o.level.reset();
  plan = rf::cli::plan_run(o, host(Level::Kernel));
  REQUIRE(plan);
  CHECK(plan->level == Level::Kernel);
  CHECK(plan->spec.jail == rf::spec::Jail::Kernel);
  CHECK(rf::spec::validate_jail(plan->spec));
  CHECK(plan->spec.hide_launcher_argv);
  // The host's level, when it names landlock but the kernel has none, is soft.
  plan = rf::cli::plan_run(o, host(Level::Landlock, 0));
  REQUIRE(plan);
  CHECK(plan->level == Level::Soft);
}
