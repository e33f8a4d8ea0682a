// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence run`'s planning from a host snapshot: what it takes from the snapshot and not from
// the process, the seccomp step, the walk of the agent's list and what each level makes of it,
// and the throwaway HOME's owner.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "cli_run_test_util.hpp"
#include "ringfence/base/remove_tree.hpp"
#include "ringfence/cli/host_snapshot.hpp"
#include "ringfence/cli/native_run.hpp"
#include "ringfence/spec/validate.hpp"
#include "run_fs.hpp"

using rf::cli::AgentDecision;
using rf::cli::AgentItem;
using rf::cli::HostFacts;
using rf::cli::HostSnapshot;
using rf::cli::RunOptions;
using rf::cli::RunPlan;
using rf::presets::Level;
using Rule = rf::spec::Spec::FsRule;

namespace {

using rf::test::has_note;
using rf::test::rights_of;

HostFacts host(Level level, int abi = 7) { return rf::test::host_at(level, abi); }

// A variable of the real environment set to another value for the test's time.
struct RealEnv {
  std::string name;
  std::optional<std::string> saved;
  RealEnv(std::string n, const std::string& value) : name(std::move(n)) {
    if (const char* v = ::getenv(name.c_str())) saved = v;
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~RealEnv() {
    if (saved)
      ::setenv(name.c_str(), saved->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// A project, a home holding an agent's files, a runtime directory, all below one temp directory.
struct Tree {
  std::string base, proj, home, run;
  Tree() {
    char tmpl[] = "/tmp/rf-unit-plan-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    base = tmpl;
    proj = base + "/proj";
    home = base + "/home";
    run = base + "/run";
    for (const auto& d : {proj, proj + "/sub", home, run}) ::mkdir(d.c_str(), 0700);
  }
  ~Tree() { (void)rf::base::remove_tree(base); }
  // The claude agent's list, partly: .claude, a directory in it, a link where a directory should
  // be, a missing writable directory, a file, and the private copy.
  void claude_home() const {
    ::mkdir((home + "/.claude").c_str(), 0700);
    ::mkdir((home + "/.claude/projects").c_str(), 0700);
    REQUIRE(::symlink("/etc", (home + "/.claude/todos").c_str()) == 0);
    write(home + "/.claude/history.jsonl", "{}\n");
    write(home + "/.claude.json", "{}\n");
  }
  HostSnapshot snapshot() const {
    HostSnapshot s;
    s.environment = {"HOME=" + home, "PATH=/snapshot/bin:/usr/bin", "XDG_RUNTIME_DIR=" + run, "LANG=C.UTF-8"};
    s.cwd = proj + "/sub";
    s.uid = s.euid = ::getuid();
    s.gid = ::getgid();
    s.nameservers = {"192.0.2.53"};
    return s;
  }
};

RunOptions options(const Tree& t) { return rf::test::plain_run(t.proj); }

std::optional<std::string> env_of(const RunPlan& p, const std::string& name) {
  for (const auto& e : p.spec.env_ops)
    if (e.kind == rf::spec::EnvOp::Kind::Set && e.name == name) return e.value;
  return std::nullopt;
}

const rf::spec::FsOp* op_at(const RunPlan& p, const std::string& dest) {
  for (const auto& o : p.spec.fs_ops)
    if (o.dest == dest) return &o;
  return nullptr;
}

const AgentItem* item(const std::vector<AgentItem>& items, const std::string& path) {
  for (const auto& i : items)
    if (i.config->path == path) return &i;
  return nullptr;
}

}  // namespace

TEST_CASE("run plan: HOME, PATH, XDG_RUNTIME_DIR, the cwd and the resolvers come from the snapshot") {
  Tree t;
  RealEnv home("HOME", t.base + "/not-this-home");
  RealEnv path("PATH", "/not/this/path");
  RealEnv xdg("XDG_RUNTIME_DIR", t.base + "/not-this-run");
  RunOptions o = options(t);
  o.project = "..";  // relative: from the snapshot's cwd (proj/sub), not the process's
  auto plan = rf::cli::plan_run(o, host(Level::Landlock), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(plan->project == t.proj);
  CHECK(plan->home_inside == t.home);
  CHECK(env_of(*plan, "HOME") == t.home);
  CHECK(env_of(*plan, "PATH") == "/snapshot/bin:/usr/bin");
  CHECK(plan->spec.chdir == t.proj + "/sub");
  const auto& cp = plan->spec.supervision.connect;
  REQUIRE(cp.enabled);
  CHECK(cp.violation_log == t.run + "/ringfence/violations.jsonl");
  CHECK(cp.resolvers == std::vector<std::string>{"192.0.2.53"});
}

TEST_CASE("run plan: without XDG_RUNTIME_DIR and HOME the snapshot's uid and passwd home decide") {
  Tree t;
  HostSnapshot s = t.snapshot();
  s.environment = {"PATH=/usr/bin"};
  s.uid = 4242;
  s.passwd_home = t.home;
  auto plan = rf::cli::plan_run(options(t), host(Level::Landlock), s);
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(plan->home_inside == t.home);
  CHECK(plan->spec.supervision.connect.violation_log == "/tmp/ringfence-4242/violations.jsonl");
  s.passwd_home.clear();
  CHECK(s.home() == "/home/sandbox");
  CHECK(s.env("PATH") == "/usr/bin");
  CHECK(!s.env("PAT"));
  s.forget_environment();
  CHECK(s.environment.empty());
  CHECK(!s.env("PATH"));
}

TEST_CASE("run plan: the seccomp profile is compiled by its own step") {
  Tree t;
  auto plan = rf::cli::plan_run(options(t), host(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(plan->spec.seccomp.empty());
  REQUIRE(rf::cli::compile_plan_seccomp(*plan));
  CHECK(plan->spec.seccomp.size() == 1);
  // The process's own snapshot, compiled: as plan_run with two arguments gives it.
  RealEnv home("HOME", t.home);
  auto whole = rf::cli::plan_run(options(t), host(Level::Kernel));
  REQUIRE(whole);
  CHECK(whole->spec.seccomp.size() == 1);
  CHECK(whole->spec.seccomp.front().bytes == plan->spec.seccomp.front().bytes);
}

TEST_CASE("run plan: with no agent named, the agent is recognised from the command") {
  Tree t;
  RunOptions o = options(t);
  o.command = {"claude", "--resume"};
  auto plan = rf::cli::plan_run(o, host(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(plan->agent == "claude");
  o.command = {"make", "test"};
  plan = rf::cli::plan_run(o, host(Level::Kernel), t.snapshot());
  REQUIRE(plan);
  CHECK(plan->agent == "generic");
  o.agent = "generic";
  o.command = {"claude"};
  plan = rf::cli::plan_run(o, host(Level::Kernel), t.snapshot());
  REQUIRE(plan);
  CHECK(plan->agent == "generic");
}

TEST_CASE("run plan: the command can tell it runs in ringfence, and at which level") {
  Tree t;
  for (Level level : {Level::Kernel, Level::Landlock}) {
    RunOptions o = options(t);
    o.env = {"RINGFENCE=0"};  // not the caller's to change
    auto plan = rf::cli::plan_run(o, host(level), t.snapshot());
    REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
    rf::spec::Spec& s = plan->spec;
    std::optional<std::string> last;
    for (const auto& e : s.env_ops)
      if (e.kind == rf::spec::EnvOp::Kind::Set && e.name == "RINGFENCE") last = e.value;
    CHECK(last == "1");
    CHECK(env_of(*plan, "RINGFENCE_LEVEL") == std::string(level == Level::Kernel ? "kernel" : "landlock"));
  }
}

TEST_CASE("run plan: a project that is the home, holds it, or is a system directory is refused") {
  Tree t;
  for (const std::string& broad : {t.home, t.base, std::string("/tmp"), std::string("/etc")}) {
    RunOptions o = options(t);
    o.project = broad;
    auto plan = rf::cli::plan_run(o, host(Level::Kernel), t.snapshot());
    REQUIRE_FALSE_MESSAGE(plan, broad);
    CHECK_MESSAGE(plan.error().message().find("the project " + broad + " is refused: ") == 0, broad);
    CHECK(plan.error().message().find("--allow-broad-project") != std::string::npos);
    if (!broad.starts_with(t.base)) continue;  // planning scans the project: not the host's /tmp
    o.allow_broad_project = true;
    CHECK_MESSAGE(rf::cli::plan_run(o, host(Level::Kernel), t.snapshot()), broad);
  }
  // The project itself and a folder beside the home are fine.
  CHECK(rf::cli::plan_run(options(t), host(Level::Kernel), t.snapshot()));
}

TEST_CASE("shell off: the kernel jail guards the command's ELF loader where binfmt_misc allows it") {
  Tree t;
  RunOptions o = options(t);
  o.shell = "off";
  o.command = {"/bin/sh"};
  HostFacts h = host(Level::Kernel);
  h.userns_binfmt_misc = true;
  auto plan = rf::cli::plan_run(o, h, t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  REQUIRE(plan->loaders_guarded.size() == 1);
  REQUIRE(plan->spec.refuse_exec_headers.size() == 1);
  const std::string& head = plan->spec.refuse_exec_headers.front();
  CHECK(head.size() == 128);
  CHECK(head.compare(0, 4,
                     "\x7f"
                     "ELF") == 0);
  CHECK_FALSE(has_note(*plan, "the ELF loader may be executed"));
  // Without binfmt_misc in user namespaces, or at the landlock level: said, not guarded.
  h.userns_binfmt_misc = false;
  plan = rf::cli::plan_run(o, h, t.snapshot());
  REQUIRE(plan);
  CHECK(plan->spec.refuse_exec_headers.empty());
  CHECK(has_note(*plan, "this kernel has no binfmt_misc for user namespaces"));
  h = host(Level::Landlock);
  h.userns_binfmt_misc = true;
  plan = rf::cli::plan_run(o, h, t.snapshot());
  REQUIRE(plan);
  CHECK(plan->spec.refuse_exec_headers.empty());
  CHECK(has_note(*plan, "the landlock level has no user namespace to guard it in"));
}

TEST_CASE("agent walk: a file, a directory, a link, a missing entry and a copy, decided once") {
  Tree t;
  t.claude_home();
  rf::presets::AgentProfile agent;
  agent.name = "test";
  auto entry = [](std::string path, bool dir, rf::presets::Access a, bool optional = true) {
    rf::presets::ConfigPath c;
    c.path = std::move(path);
    c.directory = dir;
    c.access = a;
    c.optional = optional;
    return c;
  };
  using rf::presets::Access;
  agent.config = {entry(".claude", true, Access::ReadOnly),
                  entry(".claude/projects", true, Access::ReadWrite),
                  entry(".claude/todos", true, Access::ReadWrite),
                  entry(".claude/statsig", true, Access::ReadWrite),
                  entry(".claude/history.jsonl", false, Access::ReadWrite),
                  entry(".claude/gone.json", false, Access::ReadWrite),
                  entry(".absent", true, Access::ReadWrite),
                  entry(".claude.json", false, Access::ReadWrite)};
  agent.config.back().transfer = rf::presets::Transfer::Copy;
  auto items = rf::cli::walk_agent_config(agent, t.home);
  REQUIRE_MESSAGE(items, (items ? "" : items.error().message()));
  REQUIRE(items->size() == agent.config.size());
  CHECK(item(*items, ".claude")->decision == AgentDecision::Grant);
  CHECK(item(*items, ".claude")->parent.empty());
  CHECK(item(*items, ".claude/projects")->decision == AgentDecision::Grant);
  CHECK(item(*items, ".claude/projects")->parent == ".claude");
  CHECK(item(*items, ".claude/projects")->below() == "projects");
  CHECK(item(*items, ".claude/todos")->decision == AgentDecision::LeftAsIs);
  CHECK(item(*items, ".claude/todos")->note.find("a symbolic link") != std::string::npos);
  CHECK(item(*items, ".claude/statsig")->decision == AgentDecision::Make);
  CHECK(item(*items, ".claude/history.jsonl")->decision == AgentDecision::Grant);
  CHECK(item(*items, ".claude/history.jsonl")->host == t.home + "/.claude/history.jsonl");
  CHECK(item(*items, ".claude/gone.json")->decision == AgentDecision::Skip);
  CHECK(item(*items, ".absent")->decision == AgentDecision::Skip);
  CHECK(item(*items, ".claude.json")->decision == AgentDecision::Copy);
  // A missing entry that is not optional refuses the run.
  agent.config.push_back(entry(".needed", true, Access::ReadOnly, false));
  auto refused = rf::cli::walk_agent_config(agent, t.home);
  REQUIRE(!refused);
  CHECK(refused.error().message().find("needs " + t.home + "/.needed") != std::string::npos);
}

TEST_CASE("agent walk at the kernel level: binds into the throwaway HOME") {
  Tree t;
  t.claude_home();
  RunOptions o = options(t);
  o.agent = "claude";
  o.agent_state = "host";  // the real home's entries, as the profile binds them
  auto plan = rf::cli::plan_run(o, host(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  const auto* top = op_at(*plan, t.home + "/.claude");
  REQUIRE(top);
  CHECK(top->kind == rf::spec::OpKind::RoBind);
  const auto* dir = op_at(*plan, t.home + "/.claude/projects");
  REQUIRE(dir);
  CHECK(dir->kind == rf::spec::OpKind::Bind);
  CHECK(dir->source_beneath == t.home + "/.claude");
  CHECK(dir->dest_beneath == t.home + "/.claude");
  const auto* file = op_at(*plan, t.home + "/.claude/history.jsonl");
  REQUIRE(file);
  CHECK(file->kind == rf::spec::OpKind::Bind);
  CHECK(!op_at(*plan, t.home + "/.claude/todos"));  // the link: left as it is
  CHECK(has_note(*plan, "agent: " + t.home + "/.claude/todos is a symbolic link"));
  CHECK(op_at(*plan, t.home + "/.claude/statsig"));  // missing: made before the start
  CHECK(std::any_of(plan->agent_make.begin(), plan->agent_make.end(),
                    [&t](const auto& e) { return e.top == t.home + "/.claude" && e.rel == "statsig"; }));
  CHECK(std::any_of(plan->copies.begin(), plan->copies.end(),
                    [](const auto& c) { return c.inside == ".claude.json" && !c.copy_back; }));
}

TEST_CASE("agent walk at the landlock level: links into the throwaway HOME and rules") {
  Tree t;
  t.claude_home();
  RunOptions o = options(t);
  o.agent = "claude";
  o.agent_state = "host";  // the real home's entries, as the profile binds them
  auto plan = rf::cli::plan_run(o, host(Level::Landlock), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(rights_of(*plan, t.home + "/.claude") == (Rule::Read | Rule::Execute));
  CHECK(rights_of(*plan, t.home + "/.claude/projects") == (Rule::Read | Rule::Write | Rule::Execute));
  CHECK(rights_of(*plan, t.home + "/.claude/history.jsonl") == (Rule::Read | Rule::Write | Rule::Execute));
  CHECK(rights_of(*plan, t.home + "/.claude/todos") == -1);
  CHECK(has_note(*plan, "agent: " + t.home + "/.claude/todos is a symbolic link"));
  CHECK(rights_of(*plan, t.home + "/.claude/statsig") == (Rule::Read | Rule::Write | Rule::Execute));
  CHECK(std::any_of(plan->agent_make.begin(), plan->agent_make.end(),
                    [&t](const auto& e) { return e.top == t.home + "/.claude" && e.rel == "statsig"; }));
  // Only the top-level entries are linked; nested ones are reached through them.
  const std::pair<std::string, std::string> link{".claude", t.home + "/.claude"};
  CHECK(std::find(plan->home_links.begin(), plan->home_links.end(), link) != plan->home_links.end());
  CHECK(std::none_of(plan->home_links.begin(), plan->home_links.end(),
                     [](const auto& l) { return l.first.starts_with(".claude/"); }));
  CHECK(std::any_of(plan->copies.begin(), plan->copies.end(),
                    [](const auto& c) { return c.inside == ".claude.json"; }));
}

TEST_CASE("throwaway HOME: made under the snapshot's runtime directory, removed by finish or its owner") {
  Tree t;
  t.claude_home();
  RunOptions o = options(t);
  o.agent = "claude";
  o.agent_state = "host";  // the real home's entries, as the profile binds them
  const HostSnapshot snap = t.snapshot();
  auto plan = rf::cli::plan_run(o, host(Level::Kernel), snap);
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  std::string made;
  {
    rf::cli::ThrowawayHome home(*plan, snap);
    REQUIRE(home.prepare());
    made = plan->home_host;
    CHECK(made.starts_with(t.run + "/ringfence/home-"));
    CHECK(::access((made + "/.claude.json").c_str(), F_OK) == 0);
    CHECK(::access((t.home + "/.claude/statsig").c_str(), F_OK) == 0);  // the missing entry, made
  }  // never finished: its owner removes it
  CHECK(::access(made.c_str(), F_OK) != 0);
  rf::cli::ThrowawayHome again(*plan, snap);
  REQUIRE(again.prepare());
  CHECK(plan->home_host != made);
  std::vector<std::string> left;
  CHECK(again.finish(left));
  CHECK(left.empty());
  CHECK(::access(plan->home_host.c_str(), F_OK) != 0);
}

TEST_CASE("run plan: a limit asked for that cannot hold refuses the run; a preset's default is best effort") {
  Tree t;
  auto no_cgroup = [] {
    auto h = host(Level::Kernel);
    h.cgroup = {{"memory", false, "cgroup v1 memory group is not writable"},
                {"cpu", false, "no cpu controller"},
                {"pids", false, "no pids controller"}};
    return h;
  };
  RunOptions o = options(t);
  o.limits = "memory=50M,cpu=1";
  auto plan = rf::cli::plan_run(o, no_cgroup(), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  REQUIRE(plan->unenforced_limits.size() == 2);
  CHECK(plan->unenforced_limits[0].find("the memory limit cannot be enforced here: cgroup v1 memory group") ==
        0);
  CHECK(plan->unenforced_limits[0].find("Delegate=yes") != std::string::npos);
  CHECK(plan->unenforced_limits[1].find("the cpu limit") == 0);
  CHECK_FALSE(plan->limit_best_effort);
  CHECK(rf::cli::describe_plan(*plan).find("refused (exit 123") != std::string::npos);
  o.limit_best_effort = true;
  plan = rf::cli::plan_run(o, no_cgroup(), t.snapshot());
  REQUIRE(plan);
  CHECK(plan->limit_best_effort);
  CHECK(rf::cli::describe_plan(*plan).find("run anyway (--limit-best-effort)") != std::string::npos);
  // The preset's own limits (balanced: pids, core) never refuse a run.
  o = options(t);
  plan = rf::cli::plan_run(o, no_cgroup(), t.snapshot());
  REQUIRE(plan);
  CHECK(plan->unenforced_limits.empty());
  // Enforced where the cgroup can be made.
  auto with_cgroup = host(Level::Kernel);
  with_cgroup.cgroup = {{"memory", true, "cgroup v2"}};
  o.limits = "memory=50M";
  plan = rf::cli::plan_run(o, with_cgroup, t.snapshot());
  REQUIRE(plan);
  CHECK(plan->unenforced_limits.empty());
  CHECK(plan->spec.supervision.cgroup.memory_bytes == 50u << 20);
}

TEST_CASE(
    "run plan: with the network off name lookups come from /etc/hosts only and package managers are "
    "offline") {
  CHECK(rf::cli::offline_nsswitch(
            "passwd: files systemd\nhosts:          files mdns4_minimal [NOTFOUND=return] dns\n"
            "  hosts: dns\nnetworks: files\n") == "passwd: files systemd\nhosts: files\nnetworks: files\n");
  CHECK(rf::cli::offline_nsswitch("passwd: files\n") == "passwd: files\nhosts: files\n");
  Tree t;
  RunOptions o = options(t);
  o.network = "off";
  o.env = {"GOPROXY=https://proxy.example"};
  auto plan = rf::cli::plan_run(o, host(Level::Kernel), t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  CHECK(plan->nsswitch_conf.find("hosts: files\n") != std::string::npos);
  CHECK(plan->nsswitch_conf.find("dns") == std::string::npos);
  CHECK_FALSE(plan->nsswitch_conf_dest.empty());
  CHECK(env_of(*plan, "npm_config_offline") == "true");
  CHECK(env_of(*plan, "CARGO_NET_OFFLINE") == "true");
  CHECK(env_of(*plan, "GOPROXY") == "https://proxy.example");  // --env wins
  CHECK(rf::cli::describe_plan(*plan).find("name lookups: /etc/hosts only") != std::string::npos);
  o.network = "on";
  o.env.clear();
  plan = rf::cli::plan_run(o, host(Level::Kernel), t.snapshot());
  REQUIRE(plan);
  CHECK(plan->nsswitch_conf.empty());
  CHECK_FALSE(env_of(*plan, "npm_config_offline"));
}

TEST_CASE("pids: the preset's bound is the PID namespace's pid_max where the kernel has it per namespace") {
  CHECK(rf::cli::per_pidns_pid_max("6.14.0"));
  CHECK(rf::cli::per_pidns_pid_max("6.18.44-fc-v1045"));
  CHECK(rf::cli::per_pidns_pid_max("7.0"));
  CHECK_FALSE(rf::cli::per_pidns_pid_max("6.13.12-arch1"));
  CHECK_FALSE(rf::cli::per_pidns_pid_max("5.15.0-91-generic"));
  CHECK_FALSE(rf::cli::per_pidns_pid_max("6"));
  CHECK_FALSE(rf::cli::per_pidns_pid_max(""));
  CHECK_FALSE(rf::cli::per_pidns_pid_max("x.y"));

  Tree t;
  HostFacts h = host(Level::Kernel);
  h.cgroup.push_back({"pids", true, "test"});
  h.cgroup.push_back({"memory", true, "test"});
  h.pidns_pid_max = true;
  auto plan = rf::cli::plan_run(options(t), h, t.snapshot());
  REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message()));
  // Balanced's 4096: always that many, never 300 more (the numbers below 300 are not reused).
  CHECK(plan->spec.supervision.pidns_pid_max == std::optional<std::uint64_t>(4096 + 300));
  CHECK_FALSE(plan->spec.supervision.cgroup.any());
  CHECK(rf::spec::validate_jail(plan->spec));

  // An older kernel: the cgroup, never a pid_max write.
  h.pidns_pid_max = false;
  plan = rf::cli::plan_run(options(t), h, t.snapshot());
  REQUIRE(plan);
  CHECK_FALSE(plan->spec.supervision.pidns_pid_max);
  CHECK(plan->spec.supervision.cgroup.pids == std::optional<std::uint64_t>(4096));

  // A bound the user sets is counted exactly, by the cgroup; so is one beside a memory limit.
  h.pidns_pid_max = true;
  RunOptions o = options(t);
  o.limits = "pids=600";
  plan = rf::cli::plan_run(o, h, t.snapshot());
  REQUIRE(plan);
  CHECK_FALSE(plan->spec.supervision.pidns_pid_max);
  CHECK(plan->spec.supervision.cgroup.pids == std::optional<std::uint64_t>(600));
  o.limits = "memory=1G";
  plan = rf::cli::plan_run(o, h, t.snapshot());
  REQUIRE(plan);
  CHECK_FALSE(plan->spec.supervision.pidns_pid_max);
  CHECK(plan->spec.supervision.cgroup.pids == std::optional<std::uint64_t>(4096));

  // The soft jail has no PID namespace to bound.
  o = options(t);
  o.fs_jail = "off";
  plan = rf::cli::plan_run(o, h, t.snapshot());
  REQUIRE(plan);
  CHECK_FALSE(plan->spec.supervision.pidns_pid_max);
}

TEST_CASE("pids: a pid_max the spec cannot hold is refused") {
  rf::spec::Spec s;
  s.argv = {"true"};
  s.supervision.pidns_pid_max = 1000;
  rf::spec::Namespaces ns;
  ns.pid = true;
  CHECK_FALSE(rf::spec::validate(s, ns, 0, 0));  // no user namespace of its own
  ns.user = true;
  CHECK(rf::spec::validate(s, ns, 0, 0));
  s.supervision.pidns_pid_max = 300;
  CHECK_FALSE(rf::spec::validate(s, ns, 0, 0));
  s.supervision.pidns_pid_max = 4194305;
  CHECK_FALSE(rf::spec::validate(s, ns, 0, 0));
  s.supervision.pidns_pid_max = 1000;
  s.jail = rf::spec::Jail::Soft;
  CHECK_FALSE(rf::spec::validate_jail(s));
}
