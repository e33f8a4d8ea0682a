// SPDX-License-Identifier: LGPL-2.1-or-later
// The presets of `ringfence run` (trusted, balanced, hardened, read-only) as data, the toggles
// that override them, and their resolution into Settings. Includes the rest of the layer's API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/presets/agents.hpp"
#include "ringfence/presets/environment.hpp"
#include "ringfence/presets/host_sets.hpp"
#include "ringfence/presets/limits.hpp"
#include "ringfence/presets/masks.hpp"

namespace rf::presets {

// Enforcement levels, weakest first (agent-sandbox.md, "Enforcement levels"): a preset names the
// level it aims for, `--require` the lowest a run may start at.
enum class Level { Soft, Landlock, Kernel };

std::string_view level_name(Level level);  // "soft", "landlock", "kernel"
// The error lists the valid names.
base::Result<Level> level_by_name(std::string_view name);

enum class PresetName { Trusted, Balanced, Hardened, ReadOnly, Ci };

struct Preset {
  PresetName name = PresetName::Balanced;
  std::string id;                 // "read-only": what --preset and the profile file take
  std::string summary;            // one line for `ringfence preset show`
  Level fs_jail = Level::Kernel;  // Kernel: full jail; Soft: env scrub and HOME redirect only
  bool project_writable = true;
  bool network = true;  // on: the host's network under the connect policy (metadata floor)
  std::string seccomp;  // catalog profile name: "default" or "strict"
  bool shell = true;    // false: only the command and its interpreter may be executed
  bool web_search = true;
  bool new_session = false;
  bool ptrace = true;  // ptrace between sandboxed processes (debuggers, strace)
  Limits limits;
  // The network as an egress allowlist of these host sets (host_sets.hpp); empty: not.
  std::vector<std::string> host_sets;
  // The lowest level a run of this preset may start at (as --require); none: any.
  std::optional<Level> require;
};

// The presets in table order (trusted, balanced, hardened, read-only, ci).
const std::vector<Preset>& all_presets();
const Preset& preset(PresetName name);
// balanced.
const Preset& default_preset();
// By id ("read-only"); the error lists the valid names.
base::Result<Preset> preset_by_name(std::string_view name);
// Stable multi-line text, one "key: value" per line (`ringfence preset show NAME`).
std::string describe(const Preset& preset);

// The host's switches. Unset fields keep the preset's value.
struct Toggles {
  std::optional<bool> fs_jail;  // on: kernel jail; off: soft jail
  std::optional<bool> network;
  std::optional<bool> edits;   // off: the project is read-only
  std::optional<bool> review;  // edits go to a change set (an overlay), not to the project
  std::optional<bool> shell;
  std::optional<bool> web_search;
  std::optional<bool> new_session;
  std::optional<std::uint64_t> timeout;  // seconds; kill the whole sandbox after it
  Limits limits;                         // each field set replaces the preset's
  std::optional<bool> keep_home;         // keep the throwaway HOME after the run

  bool operator==(const Toggles&) const = default;
};

// The fields set in `higher` replace those of `lower` (the profile file, then the command line).
Toggles merge(const Toggles& lower, const Toggles& higher);

// What a run does: a preset with the toggles applied.
struct Settings {
  PresetName preset = PresetName::Balanced;
  Level fs_jail = Level::Kernel;
  bool project_writable = true;
  bool review = false;  // project_writable, with every write kept in a change set
  bool network = true;
  std::string seccomp;
  bool shell = true;
  bool web_search = true;
  bool new_session = false;
  bool ptrace = true;
  std::optional<std::uint64_t> timeout;  // seconds; none: no timeout
  Limits limits;
  bool keep_home = false;

  bool operator==(const Settings&) const = default;
};

Settings resolve(const Preset& preset, const Toggles& toggles);
// Stable multi-line text of the resolved settings (the dry run).
std::string describe(const Settings& settings);

}  // namespace rf::presets
