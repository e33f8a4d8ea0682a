// SPDX-License-Identifier: LGPL-2.1-or-later
// cli: the ci preset (registries only, the kernel level required, limits) and --cache (the
// package caches kept in a directory: made safely, bound, each tool pointed there).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "cli_run_test_util.hpp"
#include "ringfence/cli/host_snapshot.hpp"
#include "ringfence/cli/native_run.hpp"
#include "ringfence/cli/run_cache.hpp"

using rf::cli::HostSnapshot;
using rf::cli::RunOptions;
using rf::presets::Level;

namespace {

struct Tree : rf::test::RunTree {
  Tree() : RunTree("rf-unit-ci") { extra_env = {"MAVEN_OPTS=-Xmx1g", "GITHUB_TOKEN=secret"}; }
  RunOptions options() const {
    RunOptions o = rf::test::plain_run(proj);
    o.network.reset();
    o.agent = "generic";
    o.preset = "ci";
    return o;
  }
};

std::string env_of(const rf::cli::RunPlan& p, const std::string& name) {
  std::string v = "<unset>";
  for (const auto& e : p.spec.env_ops)
    if (e.kind == rf::spec::EnvOp::Kind::Set && e.name == name) v = e.value;
  return v;
}

bool has_host(const rf::cli::RunPlan& p, const std::string& rule) {
  return std::any_of(p.allowed_hosts.begin(), p.allowed_hosts.end(),
                     [&rule](const auto& h) { return h.rule == rule; });
}

}  // namespace

TEST_CASE("ci preset: the package registries only, the kernel level required, secrets dropped") {
  Tree t;
  auto plan = rf::cli::plan_run(t.options(), rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, plan.error().message());
  CHECK(plan->allowlisted);
  CHECK(plan->settings.network);
  CHECK(has_host(*plan, "registry.npmjs.org"));
  CHECK(has_host(*plan, "pypi.org"));
  CHECK(has_host(*plan, "github.com"));
  CHECK_FALSE(has_host(*plan, "api.anthropic.com"));
  REQUIRE(plan->required);
  CHECK(*plan->required == Level::Kernel);
  CHECK(plan->settings.limits.pids);
  CHECK(env_of(*plan, "GITHUB_TOKEN") == "<unset>");
  // A secret the step needs is named.
  RunOptions o = t.options();
  o.env = {"GITHUB_TOKEN"};
  plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE(plan);
  CHECK(env_of(*plan, "GITHUB_TOKEN") == "secret");
  // --network off wins over the preset's allowlist; --require can only be asked for explicitly.
  o = t.options();
  o.network = "off";
  plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE(plan);
  CHECK_FALSE(plan->allowlisted);
  CHECK_FALSE(plan->settings.network);
  // On a host without user namespaces the plan is made, and the launcher refuses it (124).
  plan = rf::cli::plan_run(t.options(), rf::test::host_at(Level::Landlock), t.snapshot());
  REQUIRE(plan);
  CHECK(plan->level == Level::Landlock);
  CHECK(*plan->required > plan->level);
}

TEST_CASE("cache: made safely, bound, each tool pointed at it, --env keeps the caller's") {
  Tree t;
  const std::string cache = t.base + "/cache";
  RunOptions o = t.options();
  o.cache = cache;
  // A dry run before the directory exists: said, nothing made.
  o.dry_run = true;
  auto plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, plan.error().message());
  CHECK(rf::test::has_note(*plan, "made by the run"));
  struct stat st {};
  CHECK(::stat(cache.c_str(), &st) != 0);
  o.dry_run = false;
  CHECK_FALSE(rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot()));  // missing
  REQUIRE(rf::cli::prepare_cache_dir(cache));
  for (const char* sub :
       {"npm", "pip", "cargo-registry", "go/mod", "go/build", "maven", "gradle", "ccache"}) {
    INFO(sub);
    REQUIRE(::stat((cache + "/" + sub).c_str(), &st) == 0);
    CHECK(S_ISDIR(st.st_mode));
    CHECK((st.st_mode & 0777) == 0700);
  }
  o.env = {"PIP_CACHE_DIR=/elsewhere"};
  plan = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, plan.error().message());
  CHECK(env_of(*plan, "NPM_CONFIG_CACHE") == cache + "/npm");
  CHECK(env_of(*plan, "GOMODCACHE") == cache + "/go/mod");
  CHECK(env_of(*plan, "PIP_CACHE_DIR") == "/elsewhere");
  CHECK(env_of(*plan, "MAVEN_OPTS").find("-Dmaven.repo.local=" + cache + "/maven") != std::string::npos);
  bool bound = false, registry = false;
  for (const auto& op : plan->spec.fs_ops) {
    bound = bound || (op.kind == rf::spec::OpKind::Bind && op.dest == cache);
    registry = registry || (op.kind == rf::spec::OpKind::Bind && op.dest == t.home + "/.cargo/registry");
  }
  CHECK(bound);
  CHECK(registry);
}

TEST_CASE("cache: refused where others could plant packages, through links, and on system paths") {
  Tree t;
  CHECK_FALSE(rf::cli::cache_path("/", "/tmp"));
  CHECK_FALSE(rf::cli::cache_path("/usr/local/cache", "/tmp"));
  CHECK_FALSE(rf::cli::cache_path("", "/tmp"));
  CHECK_FALSE(rf::cli::cache_path("c/../d", t.base));
  CHECK(*rf::cli::cache_path("c/./d", t.base) == t.base + "/c/d");
  const std::string open_dir = t.base + "/open";
  ::mkdir(open_dir.c_str(), 0777);
  ::chmod(open_dir.c_str(), 0777);
  auto r = rf::cli::prepare_cache_dir(open_dir);
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("writable by others") != std::string::npos);
  REQUIRE(::symlink(t.home.c_str(), (t.base + "/link").c_str()) == 0);
  r = rf::cli::prepare_cache_dir(t.base + "/link/cache");
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("a link is not followed") != std::string::npos);
  struct stat st {};
  CHECK(::stat((t.home + "/cache").c_str(), &st) != 0);  // nothing made through the link
}
