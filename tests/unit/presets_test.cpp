// SPDX-License-Identifier: LGPL-2.1-or-later
// presets: the preset table, toggle resolution and merging, limit parsing, agent detection.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ringfence/presets/presets.hpp"

using namespace rf::presets;

namespace {

std::string limit_error(std::string_view text) {
  auto r = parse_limits(text);
  return r ? std::string("(parsed)") : r.error().message();
}

std::string agent_of(const std::vector<std::string>& argv) { return agent_for_command(argv).name; }

}  // namespace

TEST_CASE("the preset table follows agent-sandbox.md") {
  const Preset& trusted = preset(PresetName::Trusted);
  CHECK(trusted.id == "trusted");
  CHECK(trusted.fs_jail == Level::Soft);
  CHECK(trusted.project_writable);
  CHECK(trusted.network);
  CHECK(trusted.seccomp == "default");
  CHECK(trusted.ptrace);
  CHECK(trusted.limits.empty());

  const Preset& balanced = preset(PresetName::Balanced);
  CHECK(balanced.id == "balanced");
  CHECK(balanced.fs_jail == Level::Kernel);
  CHECK(balanced.project_writable);
  CHECK(balanced.network);
  CHECK(balanced.seccomp == "default");
  CHECK_FALSE(balanced.new_session);
  CHECK(balanced.limits.core == 0u);
  CHECK(balanced.limits.pids == 4096u);

  const Preset& hardened = preset(PresetName::Hardened);
  CHECK(hardened.id == "hardened");
  CHECK(hardened.fs_jail == Level::Kernel);
  CHECK(hardened.project_writable);
  CHECK_FALSE(hardened.network);
  CHECK(hardened.seccomp == "strict");
  CHECK(hardened.new_session);
  CHECK_FALSE(hardened.ptrace);
  CHECK_FALSE(hardened.web_search);
  CHECK(hardened.limits.pids == 512u);
  CHECK(hardened.limits.nofile == 1024u);
  CHECK(hardened.limits.core == 0u);

  const Preset& ro = preset(PresetName::ReadOnly);
  CHECK(ro.id == "read-only");
  CHECK_FALSE(ro.project_writable);
  CHECK_FALSE(ro.network);
  CHECK(ro.seccomp == "strict");
  CHECK(ro.fs_jail == Level::Kernel);

  const Preset& ci = preset(PresetName::Ci);
  CHECK(ci.id == "ci");
  CHECK(ci.project_writable);
  CHECK(ci.network);
  CHECK(ci.host_sets == std::vector<std::string>{"npm", "pypi", "crates", "go", "debian", "github"});
  REQUIRE(ci.require);
  CHECK(*ci.require == Level::Kernel);
  CHECK(ci.fs_jail == Level::Kernel);
  CHECK_FALSE(ci.web_search);
  CHECK(ci.limits.pids);
  for (const auto& other :
       {PresetName::Trusted, PresetName::Balanced, PresetName::Hardened, PresetName::ReadOnly}) {
    CHECK(preset(other).host_sets.empty());
    CHECK_FALSE(preset(other).require);
  }

  CHECK(default_preset().name == PresetName::Balanced);
  REQUIRE(all_presets().size() == 5);
  for (size_t i = 0; i < all_presets().size(); ++i) {
    CHECK(static_cast<size_t>(all_presets()[i].name) == i);
    CHECK(all_presets()[i].shell);
  }
}

TEST_CASE("preset_by_name takes the ids and lists them on error") {
  CHECK(preset_by_name("read-only")->name == PresetName::ReadOnly);
  CHECK(preset_by_name("hardened")->name == PresetName::Hardened);
  for (std::string_view bad : {"", "Balanced", "readonly", "read_only", "strict"}) {
    auto r = preset_by_name(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().message() ==
          "unknown preset \"" + std::string(bad) + "\" (valid: trusted, balanced, hardened, read-only, ci)");
  }
}

TEST_CASE("levels by name") {
  CHECK(*level_by_name("kernel") == Level::Kernel);
  CHECK(*level_by_name("landlock") == Level::Landlock);
  CHECK(*level_by_name("soft") == Level::Soft);
  CHECK(level_name(Level::Landlock) == "landlock");
  CHECK(Level::Soft < Level::Landlock);
  CHECK(Level::Landlock < Level::Kernel);
  auto r = level_by_name("full");
  REQUIRE_FALSE(r);
  CHECK(r.error().message() == "unknown enforcement level \"full\" (valid: kernel, landlock, soft)");
}

TEST_CASE("describe(Preset) is stable text") {
  CHECK(describe(preset(PresetName::Hardened)) ==
        "preset: hardened\n"
        "summary: kernel jail, no network, strict seccomp, new session, limits, no ptrace\n"
        "filesystem: kernel jail\n"
        "project: read-write\n"
        "network: off\n"
        "seccomp: strict\n"
        "shell: on\n"
        "web search: off\n"
        "new session: yes\n"
        "ptrace: denied\n"
        "limits: pids=512,nofile=1024,core=0\n");
  std::string balanced = describe(default_preset());
  CHECK(balanced.starts_with("preset: balanced (default)\n"));
  CHECK(balanced.find("network: on (metadata endpoints always denied)\n") != std::string::npos);
  CHECK(describe(preset(PresetName::Trusted)).find("filesystem: soft jail\nproject: read-write\n") !=
        std::string::npos);
  CHECK(describe(preset(PresetName::Trusted)).find("limits: none\n") != std::string::npos);
}

TEST_CASE("resolve: no toggles gives the preset") {
  for (const Preset& p : all_presets()) {
    Settings s = resolve(p, {});
    CHECK(s.preset == p.name);
    CHECK(s.fs_jail == p.fs_jail);
    CHECK(s.project_writable == p.project_writable);
    CHECK(s.network == p.network);
    CHECK(s.seccomp == p.seccomp);
    CHECK(s.shell == p.shell);
    CHECK(s.web_search == p.web_search);
    CHECK(s.new_session == p.new_session);
    CHECK(s.ptrace == p.ptrace);
    CHECK(s.limits == p.limits);
    CHECK_FALSE(s.timeout);
    CHECK_FALSE(s.keep_home);
  }
}

TEST_CASE("resolve: every toggle overrides the preset, both ways") {
  Toggles on;
  on.fs_jail = on.network = on.edits = on.shell = on.web_search = on.new_session = on.keep_home = true;
  on.timeout = 600;
  Settings s = resolve(preset(PresetName::ReadOnly), on);
  CHECK(s.preset == PresetName::ReadOnly);
  CHECK(s.fs_jail == Level::Kernel);
  CHECK(s.network);
  CHECK(s.project_writable);
  CHECK(s.shell);
  CHECK(s.web_search);
  CHECK(s.new_session);
  CHECK(s.keep_home);
  CHECK(s.timeout == 600u);
  CHECK(s.seccomp == "strict");  // not a toggle
  CHECK_FALSE(s.ptrace);         // not a toggle

  Toggles off;
  off.fs_jail = off.network = off.edits = off.shell = off.web_search = off.new_session = off.keep_home =
      false;
  Settings t = resolve(preset(PresetName::Balanced), off);
  CHECK(t.fs_jail == Level::Soft);
  CHECK_FALSE(t.network);
  CHECK_FALSE(t.project_writable);
  CHECK_FALSE(t.shell);
  CHECK_FALSE(t.web_search);
  CHECK_FALSE(t.new_session);
  CHECK_FALSE(t.keep_home);
}

TEST_CASE("resolve: limits from toggles replace the preset's field by field") {
  Toggles t;
  t.limits.nofile = 4096;
  t.limits.memory = std::uint64_t{2} << 30;
  t.limits.pids = kUnlimited;
  Settings s = resolve(preset(PresetName::Hardened), t);
  CHECK(s.limits.nofile == 4096u);
  CHECK(s.limits.memory == (std::uint64_t{2} << 30));
  CHECK(s.limits.pids == kUnlimited);
  CHECK(s.limits.core == 0u);  // kept from the preset
  CHECK(format_limits(s.limits) == "memory=2G,pids=unlimited,nofile=4096,core=0");
}

TEST_CASE("merge(Toggles): the higher layer wins where it is set") {
  Toggles file;
  file.network = false;
  file.timeout = 60;
  file.limits.memory = 1024;
  file.keep_home = true;
  Toggles flags;
  flags.network = true;
  flags.edits = false;
  flags.limits.pids = 10;
  Toggles m = merge(file, flags);
  CHECK(m.network == true);
  CHECK(m.edits == false);
  CHECK(m.timeout == 60u);
  CHECK(m.keep_home == true);
  CHECK(m.limits.memory == 1024u);
  CHECK(m.limits.pids == 10u);
  CHECK_FALSE(m.shell);
  CHECK(merge(file, Toggles{}) == file);
  CHECK(merge(Toggles{}, flags) == flags);
}

TEST_CASE("describe(Settings) shows timeout and keep-home") {
  Toggles t;
  t.timeout = 90;
  t.keep_home = true;
  std::string text = describe(resolve(preset(PresetName::Trusted), t));
  CHECK(text.starts_with("preset: trusted\nfilesystem: soft jail\n"));
  CHECK(text.ends_with("limits: none\ntimeout: 90s\nkeep home: yes\n"));
  CHECK(describe(resolve(default_preset(), {})).find("timeout: none\n") != std::string::npos);
}

TEST_CASE("parse_limits: units, counts, cpus") {
  auto r = parse_limits("memory=2G,pids=256,nofile=1024,cpu=2");
  REQUIRE(r);
  CHECK(r->memory == (std::uint64_t{2} << 30));
  CHECK(r->pids == 256u);
  CHECK(r->nofile == 1024u);
  CHECK(r->cpu_milli == 2000u);
  CHECK_FALSE(r->core);
  CHECK_FALSE(r->fsize);

  CHECK(parse_limits("memory=512")->memory == 512u);
  CHECK(parse_limits("memory=4k")->memory == 4096u);
  CHECK(parse_limits("memory=4K")->memory == 4096u);
  CHECK(parse_limits("memory=3M")->memory == 3u << 20);
  CHECK(parse_limits("fsize=1T")->fsize == std::uint64_t{1} << 40);
  CHECK(parse_limits("core=0")->core == 0u);
  CHECK(parse_limits("cpu=0.5")->cpu_milli == 500u);
  CHECK(parse_limits("cpu=1.25")->cpu_milli == 1250u);
  CHECK(parse_limits("cpu=0.001")->cpu_milli == 1u);
  CHECK(parse_limits("cpu=unlimited")->cpu_milli == 0u);
  CHECK(parse_limits("nofile=max")->nofile == kUnlimited);
  CHECK(parse_limits("memory=unlimited")->memory == kUnlimited);
  CHECK(parse_limits(" memory = 1G , pids=3 ")->pids == 3u);
  CHECK(parse_limits("memory=16383P").has_value() == false);
}

TEST_CASE("parse_limits: errors name the bad item") {
  CHECK(limit_error("") == "empty limit list (expected e.g. memory=2G,pids=256)");
  CHECK(limit_error("memory=2X") ==
        "limit \"memory=2X\": bad value \"2X\" for limit memory: expected bytes, or a number with a K, M, "
        "G or T suffix");
  CHECK(limit_error("pids=256,swap=1G") ==
        "limit \"swap=1G\": unknown limit \"swap\" (valid: memory, pids, nofile, cpu, core, fsize, tmpfs)");
  CHECK(limit_error("pids") == "limit \"pids\" needs a value (e.g. pids=...)");
  CHECK(limit_error("pids=1,,nofile=2") == "empty item in limit list \"pids=1,,nofile=2\"");
  CHECK(limit_error("pids=1,") == "empty item in limit list \"pids=1,\"");
  CHECK(limit_error("pids=1,pids=2") == "limit \"pids=2\": pids is given twice");
  CHECK(limit_error("pids=1k") ==
        "limit \"pids=1k\": bad value \"1k\" for limit pids: expected a whole number");
  CHECK(limit_error("nofile=-1") ==
        "limit \"nofile=-1\": bad value \"-1\" for limit nofile: expected a whole number");
  CHECK(limit_error("pids=0") ==
        "limit \"pids=0\": bad value \"0\" for limit pids: 0 would stop everything; use a positive number");
  CHECK(
      limit_error("memory=0") ==
      "limit \"memory=0\": bad value \"0\" for limit memory: 0 would stop everything; use a positive number");
  CHECK(limit_error("cpu=0").find("expected a number of CPUs") != std::string::npos);
  CHECK(limit_error("cpu=1.2345").find("bad value \"1.2345\"") != std::string::npos);
  CHECK(limit_error("cpu=.5").find("bad value \".5\"") != std::string::npos);
  CHECK(limit_error("cpu=1.").find("bad value \"1.\"") != std::string::npos);
  CHECK(limit_error("memory=18446744073709551616").find("bad value") != std::string::npos);
  CHECK(limit_error("memory=17179869184G").find("bad value") != std::string::npos);
  CHECK(limit_error("memory=G").find("bad value \"G\"") != std::string::npos);
  CHECK(limit_error("=5").find("unknown limit \"\"") != std::string::npos);
}

TEST_CASE("format_limits round-trips through parse_limits") {
  for (std::string_view text : {"memory=2G,pids=256,nofile=1024,cpu=2", "memory=1536M,cpu=0.25,core=0",
                                "memory=1000,fsize=5K", "nofile=unlimited,cpu=unlimited", "cpu=1.5"}) {
    auto r = parse_limits(text);
    REQUIRE(r);
    CHECK(format_limits(*r) == text);
  }
  CHECK(format_limits(Limits{}).empty());
}

TEST_CASE("set_limit and is_limit_name") {
  Limits l;
  CHECK(set_limit(l, "memory", "1G"));
  CHECK(l.memory == (std::uint64_t{1} << 30));
  CHECK_FALSE(set_limit(l, "memory", "lots"));
  CHECK(l.memory == (std::uint64_t{1} << 30));
  for (std::string_view n : {"memory", "pids", "nofile", "cpu", "core", "fsize"}) CHECK(is_limit_name(n));
  CHECK_FALSE(is_limit_name("nproc"));
}

TEST_CASE("agents by name") {
  std::vector<std::string> names;
  for (const auto& a : all_agents()) names.push_back(a.name);
  CHECK(names == std::vector<std::string>{"claude", "codex", "gemini", "cursor", "cline", "generic"});
  CHECK(agent_by_name("codex")->title == "OpenAI Codex CLI");
  auto r = agent_by_name("Claude");
  REQUIRE_FALSE(r);
  CHECK(r.error().message() ==
        "unknown agent \"Claude\" (valid: auto, claude, codex, gemini, cursor, cline, generic)");
  CHECK(generic_agent().name == "generic");
  CHECK(generic_agent().config.empty());
  CHECK(generic_agent().env.empty());
  CHECK(generic_agent().env_prefixes.empty());
}

TEST_CASE("agent profiles: config under HOME") {
  const auto claude = *agent_by_name("claude");
  REQUIRE(claude.config.size() >= 2);
  CHECK(claude.config.front().path == ".claude");
  CHECK(claude.config.front().directory);
  CHECK(claude.config.front().access == Access::ReadOnly);
  CHECK(claude.config.front().transfer == Transfer::Bind);
  CHECK(claude.config.back().path == ".claude.json");
  CHECK_FALSE(claude.config.back().directory);
  CHECK(claude.config.back().transfer == Transfer::Copy);  // renamed over: a file bind gives EBUSY
  CHECK(agent_by_name("codex")->config.at(0).path == ".codex");
  CHECK(agent_by_name("gemini")->config.at(0).path == ".gemini");
  CHECK(agent_by_name("cline")->config.at(0).path == ".cline");
  const auto cursor = *agent_by_name("cursor");
  CHECK(cursor.config.front().path == ".cursor");
  CHECK(std::any_of(cursor.config.begin(), cursor.config.end(),
                    [](const ConfigPath& c) { return c.path == ".config/cursor"; }));
  for (const auto& a : all_agents()) {
    for (const auto& c : a.config) {
      CAPTURE(c.path);
      CHECK(c.optional);
      CHECK_FALSE(c.path.starts_with("/"));
      CHECK(c.path.find("..") == std::string::npos);
      CHECK(c.path != ".config");
      CHECK(c.path != ".config/Cursor");
    }
  }
}

// The access a path of HOME gets from an agent's list: the last entry covering it wins (entries
// inside a directory are mounted over it); nullopt where the list does not bring it in.
namespace {
std::optional<Access> access_of(const AgentProfile& a, const std::string& path) {
  std::optional<Access> got;
  for (const auto& c : a.config)
    if (c.path == path || (c.directory && path.starts_with(c.path + "/"))) got = c.access;
  return got;
}
}  // namespace

// The agent's directory is read-only; only an allowlist inside it is writable, so what steers
// later sessions on the host (threat-model.md PER-03) stays read-only, present or not.
TEST_CASE("agent profiles: writable entries are an allowlist inside read-only directories") {
  struct Want {
    std::string agent;
    std::vector<std::string> read_only;
    std::vector<std::string> writable;
  };
  const std::vector<Want> wants = {
      {"claude",
       {".claude", ".claude/settings.json", ".claude/CLAUDE.md", ".claude/hooks", ".claude/commands",
        ".claude/agents", ".claude/skills", ".claude/plugins", ".claude/local/claude", ".claude/ide/1.lock",
        ".claude/new-name"},
       {".claude/projects/p.jsonl", ".claude/todos/t.json", ".claude/statsig/s", ".claude/shell-snapshots/s",
        ".claude/history.jsonl", ".claude/.credentials.json"}},
      {"codex",
       {".codex", ".codex/config.toml", ".codex/AGENTS.md", ".codex/prompts", ".codex/rules/r"},
       {".codex/sessions/2025/s.jsonl", ".codex/history.jsonl", ".codex/auth.json",
        ".codex/log/codex-tui.log"}},
      {"gemini",
       {".gemini", ".gemini/.env", ".gemini/settings.json", ".gemini/GEMINI.md", ".gemini/commands",
        ".gemini/extensions"},
       {".gemini/tmp/abc/chats", ".gemini/history/abc", ".gemini/oauth_creds.json"}},
      {"cursor",
       {".cursor", ".cursor/cli-config.json", ".cursor/mcp.json", ".cursor/rules", ".cursor/extensions",
        ".config/cursor", ".config/cursor/cli-config.json"},
       {".cursor/chats/c", ".config/cursor/auth.json"}},
      {"cline",
       {".cline", ".cline/data", ".cline/data/settings", ".cline/data/globalState.json", ".cline/hooks",
        ".cline/plugins", ".cline/rules", ".cline/cron"},
       {".cline/data/tasks/t", ".cline/data/secrets.json", ".cline/logs/l"}},
  };
  for (const auto& w : wants) {
    const auto agent = *agent_by_name(w.agent);
    for (const auto& path : w.read_only) {
      CAPTURE(path);
      CHECK(access_of(agent, path) == Access::ReadOnly);
    }
    for (const auto& path : w.writable) {
      CAPTURE(path);
      CHECK(access_of(agent, path) == Access::ReadWrite);
    }
  }
  for (const auto& a : all_agents()) {
    for (const auto& c : a.config) {
      CAPTURE(c.path);
      if (c.transfer == Transfer::Copy) continue;
      // Writable only inside a read-only directory of the list that comes before it.
      if (c.access == Access::ReadWrite) {
        auto parent = std::find_if(a.config.begin(), a.config.end(), [&](const ConfigPath& p) {
          return p.directory && c.path.starts_with(p.path + "/");
        });
        REQUIRE(parent != a.config.end());
        CHECK(parent->access == Access::ReadOnly);
        CHECK(parent < std::find_if(
                           a.config.begin(), a.config.end(), [&](const ConfigPath& p) { return &p == &c; }));
      }
    }
  }
}

TEST_CASE("agent_for_command: executable names") {
  CHECK(agent_of({"claude"}) == "claude");
  CHECK(agent_of({"/home/u/.local/bin/claude", "-p", "hi"}) == "claude");
  CHECK(agent_of({"codex", "exec", "x"}) == "codex");
  CHECK(agent_of({"/usr/local/bin/gemini"}) == "gemini");
  CHECK(agent_of({"cursor-agent"}) == "cursor");
  CHECK(agent_of({"cursor"}) == "cursor");
  CHECK(agent_of({"cline"}) == "cline");
  CHECK(agent_of({"bash"}) == "generic");
  CHECK(agent_of({"make", "claude"}) == "generic");
  CHECK(agent_of({"claude-wrapper"}) == "generic");
  CHECK(agent_of({"/opt/claude/bin/python"}) == "generic");
  CHECK(agent_of({}) == "generic");
  CHECK(agent_of({""}) == "generic");
}

TEST_CASE("agent_for_command: through node, npx, bun and env") {
  CHECK(agent_of({"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}) == "claude");
  CHECK(agent_of({"/usr/bin/node", "--no-warnings",
                  "/home/u/.npm-global/lib/node_modules/@anthropic-ai/"
                  "claude-code/cli.js",
                  "-p", "x"}) == "claude");
  CHECK(agent_of({"node", "-r", "/tmp/hook.js", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}) ==
        "codex");
  CHECK(agent_of({"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}) == "codex");
  CHECK(agent_of({"node", "/x/node_modules/@google/gemini-cli/dist/index.js"}) == "gemini");
  CHECK(agent_of({"node", "/x/node_modules/cline/dist/cli.mjs"}) == "cline");
  CHECK(agent_of({"node", "/home/u/bin/claude"}) == "claude");
  CHECK(agent_of({"npx", "@anthropic-ai/claude-code"}) == "claude");
  CHECK(agent_of({"npx", "-y", "@openai/codex@latest", "exec"}) == "codex");
  CHECK(agent_of({"npx", "--package=@google/gemini-cli", "gemini"}) == "gemini");
  CHECK(agent_of({"npx", "-p", "@google/gemini-cli", "gemini"}) == "gemini");
  CHECK(agent_of({"bunx", "cline@latest"}) == "cline");
  CHECK(agent_of({"bun", "run", "/x/node_modules/@anthropic-ai/claude-code/cli.js"}) == "claude");
  CHECK(agent_of({"env", "FOO=1", "-u", "BAR", "claude"}) == "claude");
  CHECK(agent_of({"/usr/bin/env", "--", "node", "/x/node_modules/@openai/codex/bin/codex.js"}) == "codex");
  // Not agents: other scripts, directories merely named like an agent, later arguments.
  CHECK(agent_of({"node", "server.js", "claude"}) == "generic");
  CHECK(agent_of({"node", "/home/u/cline/app.js"}) == "generic");
  CHECK(agent_of({"node", "/home/u/node_modules/claude-code-helper/x.js"}) == "generic");
  CHECK(agent_of({"npx", "eslint", "codex"}) == "generic");
  CHECK(agent_of({"node"}) == "generic");
  CHECK(agent_of({"env"}) == "generic");
  CHECK(agent_of({"python3", "/x/node_modules/@openai/codex/bin/codex.js"}) == "generic");
}
