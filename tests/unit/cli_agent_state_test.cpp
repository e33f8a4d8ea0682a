// SPDX-License-Identifier: LGPL-2.1-or-later
// The agent's state across runs: --agent-state and the profile file's agent_state, what the plan
// binds or links per mode and level, the first use's copy, the files written back to the state
// (never to the real home), the refusals of a state that is not the user's own, and
// `ringfence agent-state list | show | reset`.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_run_test_util.hpp"
#include "ringfence/base/remove_tree.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/cli/agent_state.hpp"
#include "ringfence/cli/host_snapshot.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/cli/native_run.hpp"
#include "ringfence/cli/profile_file.hpp"

using rf::cli::AgentStateCommand;
using rf::cli::AgentStateMode;
using rf::cli::HostSnapshot;
using rf::cli::RunOptions;
using rf::cli::RunPlan;
using rf::presets::Level;
using Words = std::vector<std::string>;

namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A project, a home with claude's and codex's files, a runtime and a state directory.
struct Tree {
  std::string base, proj, home, run, state;
  Tree() {
    char tmpl[] = "/tmp/rf-unit-state-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    base = tmpl;
    proj = base + "/proj";
    home = base + "/home";
    run = base + "/run";
    state = base + "/state";
    for (const auto& d : {proj, home, run}) ::mkdir(d.c_str(), 0700);
    ::mkdir((home + "/.claude").c_str(), 0700);
    ::mkdir((home + "/.claude/projects").c_str(), 0700);
    write(home + "/.claude/settings.json", "{\"x\": 1}\n");
    write(home + "/.claude/projects/old", "old\n");
    write(home + "/.claude.json", "{\"n\": 1}\n");
    REQUIRE(::symlink("/etc/passwd", (home + "/.claude/out").c_str()) == 0);   // a link out: skipped
    REQUIRE(::symlink("settings.json", (home + "/.claude/in").c_str()) == 0);  // inside: kept
    REQUIRE(::mkfifo((home + "/.claude/fifo").c_str(), 0600) == 0);            // skipped
  }
  ~Tree() { (void)rf::base::remove_tree(base); }
  HostSnapshot snapshot() const {
    HostSnapshot s;
    s.environment = {"HOME=" + home, "PATH=/usr/bin", "XDG_RUNTIME_DIR=" + run, "XDG_STATE_HOME=" + state};
    s.cwd = proj;
    s.uid = s.euid = ::getuid();
    s.gid = ::getgid();
    return s;
  }
  std::string agent_dir(const std::string& agent = "claude") const {
    return state + "/ringfence/agents/" + agent;
  }
};

RunOptions claude(const Tree& t, std::optional<std::string> mode = std::nullopt) {
  RunOptions o = rf::test::plain_run(t.proj);
  o.agent = "claude";
  o.agent_state = std::move(mode);
  return o;
}

const rf::spec::FsOp* op_at(const RunPlan& p, const std::string& dest) {
  for (const auto& o : p.spec.fs_ops)
    if (o.dest == dest) return &o;
  return nullptr;
}

bool binds_from(const RunPlan& p, const std::string& prefix) {
  return std::any_of(p.spec.fs_ops.begin(), p.spec.fs_ops.end(),
                     [&prefix](const auto& o) { return o.source.starts_with(prefix); });
}

rf::base::Result<RunPlan> plan(const Tree& t, const RunOptions& o, Level level = Level::Kernel) {
  return rf::cli::plan_run(o, rf::test::host_at(level), t.snapshot());
}

}  // namespace

TEST_CASE("agent state: --agent-state and the agent-state subcommand parse") {
  auto r = rf::cli::parse_native({"run", "--agent-state", "project", "--", "true"});
  REQUIRE(r);
  CHECK(r->run.agent_state == "project");
  r = rf::cli::parse_native({"run", "--", "true"});
  REQUIRE(r);
  CHECK(!r->run.agent_state);
  CHECK(!rf::cli::parse_native({"run", "--agent-state", "", "--", "true"}));
  r = rf::cli::parse_native({"agent-state", "list"});
  REQUIRE(r);
  CHECK(r->kind == rf::cli::NativeCommand::Kind::AgentState);
  CHECK(r->agent_state.op == AgentStateCommand::Op::List);
  r = rf::cli::parse_native({"agent-state", "show", "codex"});
  REQUIRE(r);
  CHECK(r->agent_state.op == AgentStateCommand::Op::Show);
  CHECK(r->agent_state.agent == "codex");
  r = rf::cli::parse_native({"agent-state", "reset", "claude", "--yes"});
  REQUIRE(r);
  CHECK(r->agent_state.op == AgentStateCommand::Op::Reset);
  CHECK(r->agent_state.yes);
  CHECK(!rf::cli::parse_native({"agent-state", "reset"}));  // AGENT is required
  CHECK(!rf::cli::parse_native({"agent-state"}));
}

TEST_CASE("agent state: the profile file's agent_state, under the command line") {
  auto p = rf::cli::parse_profile("agent = \"claude\"\nagent_state = \"project\"\n", "p.toml");
  REQUIRE(p);
  CHECK(p->agent_state == "project");
  p = rf::cli::parse_profile("agent_state = \"~/states/claude\"\n", "p.toml");
  REQUIRE(p);
  CHECK(p->agent_state == "~/states/claude");
  p = rf::cli::parse_profile("agent_state = \"relative/dir\"\n", "p.toml");
  REQUIRE(!p);
  CHECK(contains(p.error().message(), "p.toml:1:15: \"agent_state\" must be default, project"));
  p = rf::cli::parse_profile("[toggles]\nagent_state = \"project\"\n", "p.toml");
  REQUIRE(!p);
  CHECK(contains(p.error().message(), "top-level keys go before the first [table]"));

  Tree t;
  const std::string file = t.base + "/profile.toml";
  write(file, "agent_state = \"throwaway\"\n");
  RunOptions o = claude(t);
  o.no_profile = false;
  o.profile = file;
  auto from_file = plan(t, o);
  REQUIRE_MESSAGE(from_file, (from_file ? "" : from_file.error().message()));
  CHECK(from_file->agent_state.mode == AgentStateMode::Throwaway);
  CHECK(from_file->agent_state.origin == "the profile file's agent_state");
  o.agent_state = "project";
  auto from_cli = plan(t, o);
  REQUIRE(from_cli);
  CHECK(from_cli->agent_state.mode == AgentStateMode::Project);
  CHECK(from_cli->agent_state.origin == "--agent-state");
  write(file, "agent_state = \"~/kept\"\n");
  o.agent_state.reset();
  auto home_dir = plan(t, o);
  REQUIRE(home_dir);
  CHECK(home_dir->agent_state.dir == t.home + "/kept");
}

TEST_CASE("agent state: the default binds the state's entries, never the real home's") {
  Tree t;
  auto p = plan(t, claude(t));
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  const auto& s = p->agent_state;
  CHECK(s.mode == AgentStateMode::Shared);
  CHECK(s.dir == t.agent_dir());
  CHECK(s.dirs == std::vector<std::string>{".claude"});
  CHECK(s.files == std::vector<std::string>{".claude.json"});
  const auto* top = op_at(*p, t.home + "/.claude");
  REQUIRE(top);
  CHECK(top->kind == rf::spec::OpKind::Bind);
  CHECK(top->source == t.agent_dir() + "/home/.claude");
  CHECK(top->source_beneath == t.agent_dir() + "/home");
  CHECK(!binds_from(*p, t.home + "/"));  // nothing of the real home is bound
  CHECK(!op_at(*p, t.home + "/.claude/projects"));
  CHECK(p->copies.empty());
  CHECK(p->agent_make.empty());
  const std::string text = rf::cli::describe_plan(*p);
  CHECK(contains(text, "agent state: " + t.agent_dir() + " (one per agent, the default"));
  CHECK(contains(text,
                 "first use: the host's ~/.claude, ~/.claude.json copied into " + t.agent_dir() + "/home"));
  CHECK(contains(text, "bound read-write: " + t.agent_dir() + "/home/.claude -> " + t.home + "/.claude"));
  CHECK(contains(
      text, "copied into home, written back to the state at exit: " + t.agent_dir() + "/home/.claude.json"));
  // Without XDG_STATE_HOME: ~/.local/state.
  HostSnapshot snap = t.snapshot();
  snap.environment.pop_back();
  auto q = rf::cli::plan_run(claude(t), rf::test::host_at(Level::Kernel), snap);
  REQUIRE(q);
  CHECK(q->agent_state.dir == t.home + "/.local/state/ringfence/agents/claude");
}

TEST_CASE("agent state: project, a directory, throwaway and host") {
  Tree t;
  auto p = plan(t, claude(t, "project"));
  REQUIRE(p);
  CHECK(p->agent_state.mode == AgentStateMode::Project);
  CHECK(p->agent_state.dir == t.agent_dir() + "/projects/proj-" + rf::cli::sha256_hex(t.proj).substr(0, 16));
  CHECK(op_at(*p, t.home + "/.claude")->source == p->agent_state.dir + "/home/.claude");

  p = plan(t, claude(t, "../mine"));  // relative: from the cwd (the project)
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  CHECK(p->agent_state.mode == AgentStateMode::Dir);
  CHECK(p->agent_state.dir == t.base + "/mine");
  for (const std::string& bad : {t.proj + "/state", t.home, t.base, t.home + "/.claude/state"}) {
    auto refused = plan(t, claude(t, bad));
    REQUIRE_MESSAGE(!refused, bad);
    CHECK(refused.error().is_usage());
  }

  p = plan(t, claude(t, "throwaway"));
  REQUIRE(p);
  CHECK(p->agent_state.active());
  CHECK(!p->agent_state.kept());
  CHECK(!op_at(*p, t.home + "/.claude"));  // a copy in the throwaway HOME: no bind at all
  CHECK(!binds_from(*p, t.home + "/"));
  CHECK(contains(rf::cli::describe_plan(*p), "agent state: throwaway (--agent-state)"));

  p = plan(t, claude(t, "host"));
  REQUIRE(p);
  CHECK(!p->agent_state.active());
  CHECK(op_at(*p, t.home + "/.claude")->source == t.home + "/.claude");
  CHECK(op_at(*p, t.home + "/.claude/projects")->kind == rf::spec::OpKind::Bind);
  CHECK(contains(p->agent_state.warning, "the sandbox writes into the real home: ~/.claude/projects"));
  CHECK(contains(rf::cli::describe_plan(*p), "warning: --agent-state host"));

  RunOptions generic = rf::test::plain_run(t.proj);  // `true`: the generic agent
  p = plan(t, generic);
  REQUIRE(p);
  CHECK(!p->agent_state.active());
  CHECK(contains(rf::cli::describe_plan(*p), "agent state: none"));
}

TEST_CASE("agent state at the landlock and soft levels: the state's directories linked and granted") {
  Tree t;
  auto p = plan(t, claude(t), Level::Landlock);
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message()));
  using Rule = rf::spec::Spec::FsRule;
  CHECK(rf::test::rights_of(*p, t.agent_dir() + "/home/.claude") ==
        (Rule::Read | Rule::Write | Rule::Execute));
  CHECK(rf::test::rights_of(*p, t.home + "/.claude") == -1);
  CHECK(p->home_links.empty());
  CHECK(contains(rf::cli::describe_plan(*p), "linked into home: " + t.agent_dir() + "/home/.claude"));
  p = plan(t, claude(t), Level::Soft);
  REQUIRE(p);
  CHECK(p->soft_agent_dirs.empty());
  CHECK(p->copies.empty());
}

TEST_CASE("agent state: the first use copies the host's entries; the files go back to the state only") {
  Tree t;
  const HostSnapshot snap = t.snapshot();
  auto p = rf::cli::plan_run(claude(t), rf::test::host_at(Level::Kernel), snap);
  REQUIRE(p);
  {
    rf::cli::ThrowawayHome home(*p, snap);
    auto prepared = home.prepare();
    REQUIRE_MESSAGE(prepared, (prepared ? "" : prepared.error().describe()));
    const std::string sh = t.agent_dir() + "/home";
    CHECK(read(sh + "/.claude/settings.json") == "{\"x\": 1}\n");
    CHECK(read(sh + "/.claude/projects/old") == "old\n");
    CHECK(read(sh + "/.claude.json") == "{\"n\": 1}\n");
    CHECK(!exists(sh + "/.claude/out"));   // the link out
    CHECK(!exists(sh + "/.claude/fifo"));  // not a regular file
    char target[64] = {};
    CHECK(::readlink((sh + "/.claude/in").c_str(), target, sizeof target - 1) > 0);
    CHECK(std::string(target) == "settings.json");
    struct stat st {};
    REQUIRE(::stat(t.agent_dir().c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0700);
    CHECK(contains(read(t.agent_dir() + "/made"), "copied ~/.claude, ~/.claude.json"));
    // The run replaces its file by rename in the throwaway HOME (as the agent does at every start).
    CHECK(read(p->home_host + "/.claude.json") == "{\"n\": 1}\n");
    write(p->home_host + "/.claude.json.tmp", "{\"n\": 2}\n");
    REQUIRE(::rename((p->home_host + "/.claude.json.tmp").c_str(),
                     (p->home_host + "/.claude.json").c_str()) == 0);
    std::vector<std::string> left;
    REQUIRE(home.finish(left));
  }
  CHECK(read(t.agent_dir() + "/home/.claude.json") == "{\"n\": 2}\n");
  CHECK(read(t.home + "/.claude.json") == "{\"n\": 1}\n");  // the real home: never written
  // The second run starts from the state, not from the host again.
  write(t.home + "/.claude/settings.json", "{\"x\": 9}\n");
  auto q = rf::cli::plan_run(claude(t), rf::test::host_at(Level::Kernel), snap);
  REQUIRE(q);
  rf::cli::ThrowawayHome home(*q, snap);
  REQUIRE(home.prepare());
  CHECK(read(q->home_host + "/.claude.json") == "{\"n\": 2}\n");
  CHECK(read(t.agent_dir() + "/home/.claude/settings.json") == "{\"x\": 1}\n");
  // A link the run left at the file's place is not followed back.
  ::unlink((q->home_host + "/.claude.json").c_str());
  REQUIRE(::symlink("/etc/passwd", (q->home_host + "/.claude.json").c_str()) == 0);
  std::vector<std::string> left;
  CHECK(!home.finish(left));
  CHECK(read(t.agent_dir() + "/home/.claude.json") == "{\"n\": 2}\n");
}

TEST_CASE("agent state: throwaway copies into the throwaway HOME and keeps nothing") {
  Tree t;
  const HostSnapshot snap = t.snapshot();
  auto p = rf::cli::plan_run(claude(t, "throwaway"), rf::test::host_at(Level::Kernel), snap);
  REQUIRE(p);
  rf::cli::ThrowawayHome home(*p, snap);
  REQUIRE(home.prepare());
  CHECK(read(p->home_host + "/.claude/settings.json") == "{\"x\": 1}\n");
  CHECK(read(p->home_host + "/.claude.json") == "{\"n\": 1}\n");
  write(p->home_host + "/.claude.json", "{\"n\": 3}\n");
  std::vector<std::string> left;
  REQUIRE(home.finish(left));
  CHECK(!exists(t.state + "/ringfence"));
  CHECK(read(t.home + "/.claude.json") == "{\"n\": 1}\n");
}

TEST_CASE("agent state: a state that is a link, writable by others, or not the user's is refused") {
  Tree t;
  const HostSnapshot snap = t.snapshot();
  auto attempt = [&](const RunOptions& o, uid_t uid = ::getuid()) {
    auto p = rf::cli::plan_run(o, rf::test::host_at(Level::Kernel), snap);
    REQUIRE(p);
    p->home_host = t.base + "/scratch-home";
    ::mkdir(p->home_host.c_str(), 0700);
    std::vector<std::string> info;
    auto s = rf::cli::prepare_agent_state(*p, uid, info);
    (void)rf::base::remove_tree(p->home_host);
    return s ? std::string() : s.error().describe();
  };
  ::mkdir(t.state.c_str(), 0700);
  ::mkdir((t.state + "/ringfence").c_str(), 0770);
  ::chmod((t.state + "/ringfence").c_str(), 0770);
  std::string e = attempt(claude(t));
  CHECK(contains(e, t.state + "/ringfence is writable by its group (mode 0770)"));
  CHECK(!exists(t.state + "/ringfence/agents"));  // nothing made below a refused directory
  ::chmod((t.state + "/ringfence").c_str(), 0700);
  ::mkdir((t.state + "/ringfence/agents").c_str(), 0700);
  REQUIRE(::symlink(t.base.c_str(), (t.state + "/ringfence/agents/claude").c_str()) == 0);
  e = attempt(claude(t));
  CHECK(contains(e, t.agent_dir() + " is a symbolic link: refused"));
  ::unlink(t.agent_dir().c_str());
  e = attempt(claude(t), ::getuid() + 1);
  CHECK(contains(e, t.state + "/ringfence belongs to uid " + std::to_string(::getuid())));
  CHECK(attempt(claude(t)).empty());
  // A state's entry the agent's directory should be, found as a link: refused, not followed.
  (void)rf::base::remove_tree(t.agent_dir() + "/home/.claude");
  REQUIRE(::symlink("/etc", (t.agent_dir() + "/home/.claude").c_str()) == 0);
  e = attempt(claude(t));
  CHECK(contains(e, t.agent_dir() + "/home/.claude is not a directory (a link or a file): refused"));
  // A directory the user names: checked itself; made 0700 when missing.
  ::mkdir((t.base + "/open").c_str(), 0777);
  ::chmod((t.base + "/open").c_str(), 0777);
  e = attempt(claude(t, t.base + "/open"));
  CHECK(contains(e, t.base + "/open is writable by everyone (mode 0777)"));
  CHECK(attempt(claude(t, t.base + "/fresh")).empty());
  CHECK(read(t.base + "/fresh/home/.claude.json") == "{\"n\": 1}\n");
}

TEST_CASE("agent state: the first use's copy is all or nothing") {
  Tree t;
  const HostSnapshot snap = t.snapshot();
  auto p = rf::cli::plan_run(claude(t), rf::test::host_at(Level::Kernel), snap);
  REQUIRE(p);
  p->home_host = t.base + "/scratch-home";
  ::mkdir(p->home_host.c_str(), 0700);
  if (::geteuid() != 0) {  // root reads it anyway
    ::chmod((t.home + "/.claude/settings.json").c_str(), 0);
    std::vector<std::string> info;
    auto s = rf::cli::prepare_agent_state(*p, ::getuid(), info);
    REQUIRE(!s);
    CHECK(contains(s.error().message(), "cannot read " + t.home + "/.claude/settings.json"));
    CHECK(!exists(t.agent_dir() + "/home"));
    CHECK(::rmdir(t.agent_dir().c_str()) == 0);  // empty: no half-made copy left
  }
}

TEST_CASE("agent state: the per-project name") {
  CHECK(rf::cli::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(rf::cli::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(rf::cli::sha256_hex(std::string(100, 'a')).size() == 64);
  CHECK(rf::cli::project_state_name("/src/my app") ==
        "my_app-" + rf::cli::sha256_hex("/src/my app").substr(0, 16));
  CHECK(rf::cli::project_state_name("/src/..x").starts_with("x-"));
  CHECK(rf::cli::project_state_name("/src/a") != rf::cli::project_state_name("/other/a"));
}

namespace {
bool yes_answer(const std::string&) { return true; }
bool no_answer(const std::string&) { return false; }
}  // namespace

TEST_CASE("agent-state list, show and reset") {
  Tree t;
  const HostSnapshot snap = t.snapshot();
  for (const char* mode : {"default", "project"}) {
    auto p = rf::cli::plan_run(claude(t, mode), rf::test::host_at(Level::Kernel), snap);
    REQUIRE(p);
    rf::cli::ThrowawayHome home(*p, snap);
    REQUIRE(home.prepare());
  }
  AgentStateCommand cmd;
  CHECK(rf::cli::run_agent_state_command(cmd, snap, false, no_answer) == 0);
  cmd.op = AgentStateCommand::Op::Show;
  cmd.agent = "claude";
  CHECK(rf::cli::run_agent_state_command(cmd, snap, false, no_answer) == 0);
  cmd.agent = "nope";
  CHECK(rf::cli::run_agent_state_command(cmd, snap, false, no_answer) == rf::cli::kExitUsage);
  cmd.agent = "generic";  // no entries in HOME: no state
  CHECK(rf::cli::run_agent_state_command(cmd, snap, false, no_answer) == rf::cli::kExitUsage);
  cmd.op = AgentStateCommand::Op::Reset;
  cmd.agent = "claude";
  CHECK(rf::cli::run_agent_state_command(cmd, snap, false, yes_answer) ==
        rf::cli::kExitUsage);  // no terminal
  CHECK(exists(t.agent_dir() + "/home/.claude.json"));
  CHECK(rf::cli::run_agent_state_command(cmd, snap, true, no_answer) == 0);  // answered no
  CHECK(exists(t.agent_dir() + "/home/.claude.json"));
  CHECK(rf::cli::run_agent_state_command(cmd, snap, true, yes_answer) == 0);
  CHECK(!exists(t.agent_dir()));
  CHECK(rf::cli::run_agent_state_command(cmd, snap, false, no_answer) == 0);  // nothing left to reset
  cmd.yes = true;
  auto p = rf::cli::plan_run(claude(t), rf::test::host_at(Level::Kernel), snap);
  REQUIRE(p);
  {
    rf::cli::ThrowawayHome home(*p, snap);
    REQUIRE(home.prepare());
  }
  CHECK(rf::cli::run_agent_state_command(cmd, snap, false, no_answer) == 0);
  CHECK(!exists(t.agent_dir()));
  CHECK(read(t.home + "/.claude.json") == "{\"n\": 1}\n");
}

TEST_CASE("agent state: a first use's copy left by a killed launcher goes once it is an hour old") {
  Tree t;
  const HostSnapshot snap = t.snapshot();
  REQUIRE(::mkdir(t.state.c_str(), 0700) == 0);
  REQUIRE(::mkdir((t.state + "/ringfence").c_str(), 0700) == 0);
  REQUIRE(::mkdir((t.state + "/ringfence/agents").c_str(), 0700) == 0);
  REQUIRE(::mkdir(t.agent_dir().c_str(), 0700) == 0);
  const std::string old_copy = t.agent_dir() + "/home.new-old123",
                    new_copy = t.agent_dir() + "/home.new-new123";
  REQUIRE(::mkdir(old_copy.c_str(), 0700) == 0);
  REQUIRE(::mkdir(new_copy.c_str(), 0700) == 0);
  write(old_copy + "/half", "x");
  struct timespec times[2] = {{::time(nullptr) - 7200, 0}, {::time(nullptr) - 7200, 0}};
  REQUIRE(::utimensat(AT_FDCWD, old_copy.c_str(), times, 0) == 0);
  auto p = rf::cli::plan_run(claude(t), rf::test::host_at(Level::Kernel), snap);
  REQUIRE(p);
  rf::cli::ThrowawayHome home(*p, snap);
  REQUIRE(home.prepare());
  CHECK(!exists(old_copy));
  CHECK(exists(new_copy));  // perhaps a first use still copying
  CHECK(exists(t.agent_dir() + "/home/.claude.json"));
}
