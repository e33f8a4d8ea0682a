// SPDX-License-Identifier: LGPL-2.1-or-later
// The environment allowlist and the rebuild of the sandbox environment from it. Values never
// appear in messages: only names do.
#include <algorithm>
#include <array>
#include <map>

#include "ringfence/presets/environment.hpp"

namespace rf::presets {

namespace {

using EnvMap = std::map<std::string, std::string, std::less<>>;

// SHELL passes: agents choose the shell they run commands with from it, and it is a path, not a
// secret. TMPDIR does not: it names a host directory, and the sandbox has its own /tmp.
const std::vector<std::string> kAllowlist = {
    "PATH", "TERM",    "COLORTERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "LANG", "LANGUAGE", "TZ",
    "USER", "LOGNAME", "SHELL",     "NO_COLOR",     "FORCE_COLOR",          "CI",
};
const std::vector<std::string> kAllowlistPrefixes = {"LC_"};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The last '_'-separated word of a name.
std::string_view last_word(std::string_view name) {
  size_t us = name.rfind('_');
  return us == std::string_view::npos ? name : name.substr(us + 1);
}

// CODEX_HOME, CLAUDE_CONFIG_DIR...: a host location the sandbox does not have. An agent found
// through such a variable would miss the config its profile binds, so prefixes never pass them.
bool names_host_location(std::string_view name) {
  std::string word = upper(last_word(name));
  return word == "HOME" || word == "DIR";
}

bool allowed(std::string_view name, const AgentProfile& agent) {
  auto listed = [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  auto prefixed = [&](const std::vector<std::string>& prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&](const std::string& p) { return name.starts_with(p); });
  };
  if (listed(kAllowlist) || prefixed(kAllowlistPrefixes) || listed(agent.env)) return true;
  return prefixed(agent.env_prefixes) && !looks_like_credential(name) && !names_host_location(name);
}

// Host variables by name; the first of duplicates wins, as with getenv(3).
EnvMap parse_host(const std::vector<std::string>& host_env) {
  EnvMap out;
  for (const auto& item : host_env) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    out.emplace(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

EnvMap rebuild(const EnvMap& host, const AgentProfile& agent, const std::vector<std::string>& extra) {
  EnvMap out;
  for (const auto& [name, value] : host) {
    if (name != "HOME" && allowed(name, agent)) out[name] = value;
  }
  for (const auto& item : extra) {
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    if (!valid_env_name(name) || name == "HOME") continue;
    if (eq != std::string::npos) {
      out[name] = item.substr(eq + 1);
    } else if (auto it = host.find(name); it != host.end()) {
      out[name] = it->second;
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& env_allowlist() { return kAllowlist; }
const std::vector<std::string>& env_allowlist_prefixes() { return kAllowlistPrefixes; }

bool valid_env_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool looks_like_credential(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kSuffixes = {
      "KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS", "JWT"};
  static constexpr std::array<std::string_view, 6> kWords = {"PASS",    "AUTH",    "COOKIE",
                                                             "PRIVATE", "SECRETS", "PASSPHRASE"};
  std::string n = upper(name);
  size_t start = 0;
  for (;;) {
    size_t us = n.find('_', start);
    std::string_view word = std::string_view(n).substr(start, us == std::string::npos ? us : us - start);
    for (auto s : kSuffixes) {
      if (ends_with(word, s)) return true;
    }
    if (std::find(kWords.begin(), kWords.end(), word) != kWords.end()) return true;
    if (us == std::string::npos) return false;
    start = us + 1;
  }
}

base::Status check_env_arg(std::string_view item) {
  std::string_view name = item.substr(0, item.find('='));
  if (item.empty()) return base::Error(0, "empty --env item (expected NAME or NAME=VALUE)");
  if (!valid_env_name(name)) {
    // Only the name is quoted: the value may be a secret.
    return base::Error(0, "bad variable name \"" + std::string(name) +
                              "\" in --env (expected NAME or NAME=VALUE; NAME is letters, digits, _)");
  }
  if (name == "HOME") return base::Error(0, "--env HOME: HOME is always the sandbox's home directory");
  return {};
}

std::vector<std::string> build_environment(const std::vector<std::string>& host_env,
                                           const AgentProfile& agent, const std::vector<std::string>& extra,
                                           const std::string& home) {
  EnvMap env = rebuild(parse_host(host_env), agent, extra);
  env["HOME"] = home;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::vector<std::string> dropped_variables(const std::vector<std::string>& host_env,
                                           const AgentProfile& agent, const std::vector<std::string>& extra) {
  EnvMap host = parse_host(host_env);
  EnvMap kept = rebuild(host, agent, extra);
  std::vector<std::string> out;
  for (const auto& [name, value] : host) {
    if (name != "HOME" && !kept.contains(name)) out.push_back(name);
  }
  return out;
}

const std::vector<std::pair<std::string, std::string>>& offline_variables() {
  static const std::vector<std::pair<std::string, std::string>> vars = {
      {"npm_config_offline", "true"}, {"CARGO_NET_OFFLINE", "true"}, {"GOPROXY", "off"},
      {"PIP_RETRIES", "0"},           {"UV_OFFLINE", "1"},
  };
  return vars;
}

}  // namespace rf::presets
