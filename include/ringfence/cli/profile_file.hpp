// SPDX-License-Identifier: LGPL-2.1-or-later
// The profile file (TOML, docs/profile-file.md): the host's preset, toggles, binds, masks,
// environment and network rules, as plain data the front end merges under its command line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/presets/presets.hpp"

namespace rf::cli {

// "SRC[:DST]": a host path and where it appears in the sandbox (DST defaults to SRC). A leading
// "~/" means the home directory: the host's in SRC, the sandbox's in DST (expanded later).
struct BindSpec {
  std::string source;
  std::string dest;
  bool operator==(const BindSpec&) const = default;
};

// "~/x" -> HOME/x; other paths unchanged.
std::string expand_home(std::string_view path, std::string_view home);

// Checks the shape only: both paths absolute or "~/...", no "." or ".." components.
base::Result<BindSpec> parse_bind_spec(std::string_view text);

// Every field is optional or empty when the file does not set it.
struct Profile {
  std::string origin;  // the path it was read from (for messages)
  std::optional<presets::PresetName> preset;
  std::optional<std::string> agent;                          // "auto" or an agent profile name (checked)
  std::optional<std::string> project;                        // absolute
  std::optional<std::string> agent_state;                    // as --agent-state (a path: absolute or ~/)
  std::optional<presets::Level> require;                     // refuse to run below this level
  std::optional<presets::Level> level;                       // run at this level or lower (as --level)
  presets::Toggles toggles;                                  // [toggles], with [limits] in toggles.limits
  std::vector<BindSpec> bind;                                // [filesystem] bind
  std::vector<BindSpec> ro_bind;                             // [filesystem] ro_bind
  std::vector<std::string> mask;                             // [filesystem] mask (checked patterns)
  std::vector<std::string> unmask;                           // [filesystem] unmask (checked patterns)
  std::optional<bool> toolchains;                            // [filesystem] toolchains: auto (true) | off
  std::vector<std::string> env_pass;                         // [env] pass: names passed from the host
  std::vector<std::pair<std::string, std::string>> env_set;  // [env] set, sorted by name
  std::vector<std::string> net_allow;                        // [network] allow, as written
  std::vector<std::string> net_deny;                         // [network] deny, as written
  std::optional<bool> allow_listen;                          // [network] allow_listen
  std::vector<std::string> allow_hosts;                      // [network] allow_hosts (checked rules)
  std::vector<std::string> allow_host_sets;                  // [network] allow_host_sets (known names)
};

// Parse profile text. Errors read "ORIGIN:LINE:COL: message", for the first problem in the file:
// a TOML syntax error, an unknown key, a value of the wrong type or out of range.
base::Result<Profile> parse_profile(std::string_view text, std::string_view origin);
// Read and parse a file (a regular file of at most 1 MiB).
base::Result<Profile> load_profile(const std::string& path);

// $XDG_CONFIG_HOME/ringfence/profile.toml when XDG_CONFIG_HOME is an absolute path, else
// $HOME/.config/ringfence/profile.toml; nullopt when neither is usable.
std::optional<std::string> default_profile_path();
// The same rule with the variables given (tests).
std::optional<std::string> default_profile_path(const char* xdg_config_home, const char* home);

}  // namespace rf::cli
