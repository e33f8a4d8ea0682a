// SPDX-License-Identifier: LGPL-2.1-or-later
// The agent profiles (config under $HOME, own environment variables) and `--agent auto`:
// recognising an agent by its executable name, or by the script a node/npx/bun wrapper runs.
#include <algorithm>
#include <array>

#include "ringfence/base/paths.hpp"
#include "ringfence/presets/agents.hpp"

namespace rf::presets {

namespace {

ConfigPath dir_ro(std::string path) {
  return {std::move(path), true, Access::ReadOnly, Transfer::Bind, true};
}
// Inside a read-only agent directory: bound back writable. Made (empty, by the user) on the host
// where missing, so that the agent can work from its first run.
ConfigPath dir_rw(std::string path) {
  return {std::move(path), true, Access::ReadWrite, Transfer::Bind, true};
}
// Inside a read-only agent directory: a file the agent writes in place (credentials it
// refreshes, history it appends to). Not made where missing: an empty one may not parse.
ConfigPath file_rw(std::string path) {
  return {std::move(path), false, Access::ReadWrite, Transfer::Bind, true};
}
ConfigPath private_copy(std::string path) {
  return {std::move(path), false, Access::ReadWrite, Transfer::Copy, true};
}

// Each agent keeps its login and state under its own dot-directory. That directory is read-only,
// and only what the agent writes to work is bound back writable in it: sessions and history,
// todos, logs and telemetry caches, the credentials file it refreshes. Everything else stays as
// the host has it, and no new name can be made beside them: settings (permissions, hooks, MCP
// server commands), hooks, plugins, commands, skills, instruction files, environment files the
// CLI loads (~/.gemini/.env), the launcher script of a local install (~/.claude/local/claude),
// which later sessions on the host run unsandboxed (threat-model.md PER-03). Anything wider (the
// editor's ~/.config/Cursor, the whole ~/.config) stays out: it holds other tools' state and
// secrets.
std::vector<AgentProfile> make_agents() {
  std::vector<AgentProfile> out;
  out.push_back(AgentProfile{
      "claude",
      "Claude Code",
      {dir_ro(".claude"), dir_rw(".claude/projects"), dir_rw(".claude/todos"), dir_rw(".claude/statsig"),
       dir_rw(".claude/shell-snapshots"), dir_rw(".claude/session-env"), dir_rw(".claude/file-history"),
       dir_rw(".claude/debug"), dir_rw(".claude/plans"), file_rw(".claude/history.jsonl"),
       file_rw(".claude/.credentials.json"),
       // Rewritten by rename at every start; holds MCP servers and per-project tool grants.
       private_copy(".claude.json")},
      {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "DISABLE_AUTOUPDATER",
       "DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING", "DISABLE_BUG_COMMAND",
       "DISABLE_NON_ESSENTIAL_MODEL_CALLS", "MAX_THINKING_TOKENS", "MCP_TIMEOUT", "MCP_TOOL_TIMEOUT",
       "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS", "BASH_MAX_OUTPUT_LENGTH"},
      {"ANTHROPIC_", "CLAUDE_CODE_"},
      {"claude"},
      {"@anthropic-ai/claude-code"},
      // The API; the logins (a Console account, a Claude subscription); feature flags, fetched
      // at every start. Not sentry.io (error reports): the agent works without it.
      {"api.anthropic.com", "console.anthropic.com", "claude.ai", "statsig.anthropic.com"},
  });
  out.push_back(AgentProfile{
      "codex",
      "OpenAI Codex CLI",
      // config.toml (approval and sandbox policy, MCP servers, the notify command) stays read-only.
      {dir_ro(".codex"), dir_rw(".codex/sessions"), dir_rw(".codex/archived_sessions"), dir_rw(".codex/log"),
       file_rw(".codex/history.jsonl"), file_rw(".codex/auth.json"), file_rw(".codex/version.json")},
      {"OPENAI_API_KEY", "CODEX_API_KEY"},
      {"OPENAI_", "CODEX_"},
      {"codex"},
      {"@openai/codex"},
      // The API (API-key login); the ChatGPT sign-in, and the backend a ChatGPT plan's requests go to.
      {"api.openai.com", "auth.openai.com", "chatgpt.com"},
  });
  out.push_back(AgentProfile{
      "gemini",
      "Gemini CLI",
      // tmp: chats, checkpoints and shell history per project; history: its checkpoint repositories.
      {dir_ro(".gemini"), dir_rw(".gemini/tmp"), dir_rw(".gemini/history"),
       file_rw(".gemini/oauth_creds.json"), file_rw(".gemini/google_accounts.json"),
       file_rw(".gemini/installation_id")},
      // GOOGLE_APPLICATION_CREDENTIALS is not passed: it names a service-account key file on the
      // host, outside the sandbox; Vertex users pass it (and bind the file) explicitly.
      {"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA",
       "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"},
      {"GEMINI_"},
      {"gemini"},
      {"@google/gemini-cli"},
      // The Gemini API (API key), Code Assist (a Google login), and the Google sign-in: tokens,
      // the account's profile.
      {"generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com",
       "accounts.google.com", "www.googleapis.com"},
  });
  out.push_back(AgentProfile{
      "cursor",
      "Cursor CLI",
      // ~/.cursor: cli-config.json (its permission rules), mcp.json, and the chats it writes;
      // ~/.config/cursor: the CLI's login. Not ~/.config/Cursor, the editor's data (extensions,
      // every workspace).
      {dir_ro(".cursor"), dir_rw(".cursor/chats"), dir_ro(".config/cursor"),
       file_rw(".config/cursor/auth.json")},
      {"CURSOR_API_KEY", "CURSOR_AUTH_TOKEN", "NO_OPEN_BROWSER"},
      {},
      {"cursor-agent", "cursor"},
      {},  // installed by its own script, not from npm
      // Its backend (api2, api3...) and its login's polling, all under cursor.sh.
      {"*.cursor.sh"},
  });
  out.push_back(AgentProfile{
      "cline",
      "Cline CLI",
      // Cline keeps its provider keys in ~/.cline/data (secrets.json), not in the environment; a
      // key wanted from the environment comes with --env. Its globalState.json also holds the
      // approval settings: read-only.
      {dir_ro(".cline"), dir_rw(".cline/data/tasks"), dir_rw(".cline/data/checkpoints"),
       dir_rw(".cline/data/cache"), dir_rw(".cline/data/workspace"), dir_rw(".cline/logs"),
       file_rw(".cline/data/secrets.json")},
      {},
      {},
      {"cline"},
      {"cline"},
      // The provider is the user's choice: Cline's own, Anthropic, OpenRouter and OpenAI here;
      // any other comes with --allow-host.
      {"api.cline.bot", "api.anthropic.com", "openrouter.ai", "api.openai.com"},
  });
  out.push_back(AgentProfile{"generic", "any other command", {}, {}, {}, {}, {}, {}});
  return out;
}

std::string_view basename_of(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// "cli.js" -> "cli": scripts named after their command (codex's bin/codex.js).
std::string_view strip_script_suffix(std::string_view name) {
  for (std::string_view ext : {".js", ".mjs", ".cjs", ".ts"}) {
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext) {
      return name.substr(0, name.size() - ext.size());
    }
  }
  return name;
}

// "@openai/codex@0.2" -> "@openai/codex"; "cline@latest" -> "cline".
std::string_view strip_version(std::string_view spec) {
  size_t at = spec.find('@', spec.starts_with("@") ? 1 : 0);
  return at == std::string_view::npos ? spec : spec.substr(0, at);
}

const AgentProfile* by_command(std::string_view name) {
  for (const auto& a : all_agents()) {
    if (std::find(a.commands.begin(), a.commands.end(), name) != a.commands.end()) return &a;
  }
  return nullptr;
}

const AgentProfile* by_package(std::string_view package) {
  for (const auto& a : all_agents()) {
    if (std::find(a.packages.begin(), a.packages.end(), package) != a.packages.end()) return &a;
  }
  return nullptr;
}

// A package installed under node_modules: ".../node_modules/@scope/name/..." or ".../name/...".
const AgentProfile* by_installed_path(std::string_view path) {
  std::vector<std::string> parts = base::components(path);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i] != "node_modules") continue;
    std::string package = parts[i + 1];
    if (package.starts_with("@") && i + 2 < parts.size()) package += "/" + parts[i + 2];
    if (const AgentProfile* a = by_package(package)) return a;
  }
  return nullptr;
}

// What a wrapper's script or package argument names.
const AgentProfile* by_script(std::string_view arg) {
  if (const AgentProfile* a = by_command(strip_script_suffix(basename_of(arg)))) return a;
  if (const AgentProfile* a = by_package(strip_version(arg))) return a;
  return by_installed_path(arg);
}

bool is_wrapper(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kWrappers = {"node", "nodejs", "npx", "bun",    "bunx",
                                                                "deno", "pnpx",   "tsx", "ts-node"};
  return std::find(kWrappers.begin(), kWrappers.end(), name) != kWrappers.end();
}

// Wrapper options whose value is the next argument (and not the script).
bool takes_value(std::string_view opt) {
  static constexpr std::array<std::string_view, 8> kOptions = {
      "-r", "--require", "--import", "--loader", "--experimental-loader", "--config", "--cwd", "--env-file"};
  return std::find(kOptions.begin(), kOptions.end(), opt) != kOptions.end();
}

bool is_subcommand(std::string_view word) {
  return word == "run" || word == "x" || word == "exec" || word == "dlx";
}

// argv[i] is a wrapper: find the first script or package it starts. npx's `-p PKG` names a
// package too.
const AgentProfile* through_wrapper(const std::vector<std::string>& argv, size_t i) {
  for (++i; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    if (arg == "-p" || arg == "--package") {
      if (i + 1 < argv.size()) {
        if (const AgentProfile* a = by_script(argv[i + 1])) return a;
      }
      ++i;
    } else if (arg.starts_with("--package=")) {
      if (const AgentProfile* a = by_script(arg.substr(10))) return a;
    } else if (takes_value(arg)) {
      ++i;
    } else if (arg.starts_with("-")) {
      continue;
    } else if (!is_subcommand(arg)) {
      return by_script(arg);
    }
  }
  return nullptr;
}

// argv[i] is env(1): skip its options and assignments; the rest is a command line.
size_t after_env(const std::vector<std::string>& argv, size_t i) {
  for (++i; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    if (arg == "-u" || arg == "--unset" || arg == "-C" || arg == "--chdir") {
      ++i;
    } else if (arg == "--") {
      return i + 1;
    } else if (!arg.starts_with("-") && arg.find('=') == std::string_view::npos) {
      return i;
    }
  }
  return i;
}

}  // namespace

const std::vector<AgentProfile>& all_agents() {
  static const std::vector<AgentProfile> kAgents = make_agents();
  return kAgents;
}

const AgentProfile& generic_agent() { return all_agents().back(); }

base::Result<AgentProfile> agent_by_name(std::string_view name) {
  std::string valid;
  for (const auto& a : all_agents()) {
    if (a.name == name) return a;
    valid += (valid.empty() ? "" : ", ") + a.name;
  }
  return base::Error(0, "unknown agent \"" + std::string(name) + "\" (valid: auto, " + valid + ")");
}

const AgentProfile& agent_for_command(const std::vector<std::string>& argv) {
  size_t i = 0;
  while (i < argv.size()) {
    std::string_view name = basename_of(argv[i]);
    if (name == "env") {
      i = after_env(argv, i);
      continue;
    }
    if (const AgentProfile* a = by_command(name)) return *a;
    if (is_wrapper(name)) {
      if (const AgentProfile* a = through_wrapper(argv, i)) return *a;
    }
    break;
  }
  return generic_agent();
}

}  // namespace rf::presets
