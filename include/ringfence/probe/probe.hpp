// SPDX-License-Identifier: LGPL-2.1-or-later
// What this host can enforce, found by performing each step for real in a throwaway child
// (never by reading a sysctl alone): the checks behind `ringfence doctor`, the level a run
// reaches, and the per-boot cache of the answer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::probe {

enum class Availability { Yes, Partial, No };

// Weakest first, with the same names and order as presets::Level (the probe layer may not
// include presets): convert by name, or by the underlying value.
enum class Level { Soft, Landlock, Kernel };

std::string_view level_name(Level level);          // "soft", "landlock", "kernel"
std::string_view availability_name(Availability);  // "yes", "partial", "no"

// One layer of the host, as tried.
struct Check {
  std::string id;     // stable key: "userns", "idmap", "landlock", ... (docs/doctor.md)
  std::string layer;  // for people: "user namespace"
  Availability available = Availability::No;
  std::string detail;      // what was done and what happened: the step and its errno text
  std::string cause;       // the likely cause when not (fully) available; empty otherwise
  std::string fix;         // what to do about it; may hold several lines (commands)
  std::string needed_for;  // "kernel level", "landlock level", "network policy", ... or ""

  bool operator==(const Check&) const = default;
};

// A fact read from the host (context for the checks, never a verdict on its own).
struct Fact {
  std::string id;     // "user.max_user_namespaces", "wsl2", "container", ...
  std::string value;  // "(absent)" when the file does not exist

  bool operator==(const Fact&) const = default;
};

// What one preset of `ringfence run` reaches on this host.
struct PresetReach {
  std::string preset;  // "trusted", "balanced", "hardened", "read-only"
  Level aim = Level::Kernel;
  Level reached = Level::Soft;
  std::string note;  // what does not hold at that level on this host; "" when all does

  bool operator==(const PresetReach&) const = default;
};

struct Report {
  std::vector<Check> checks;
  std::vector<Fact> facts;
  Level level = Level::Soft;  // the filesystem jail a kernel-jail preset reaches
  std::string level_reason;   // why not higher: the first check that blocks, "" at kernel
  int landlock_abi = 0;       // 0: no usable Landlock
  std::vector<PresetReach> presets;
  long long probed_at = 0;  // unix time at which the checks ran
  // How the cache was used: "off", "used", "written", "stale (...)", "ignored (...)",
  // "not written (...)". Not part of the cached content.
  std::string cache;
  std::string cache_path;

  // Everything but the cache fields.
  [[nodiscard]] bool same_content(const Report& other) const;
};

// Performs every check now (a few throwaway children, tens of milliseconds).
Report probe_host();

// The host's report, from the per-boot cache when use_cache and the cache is valid for this
// boot, kernel, binary, user and context (namespaces, seccomp state, LSM label, the userns
// sysctls); otherwise probed now and, when use_cache, stored. Cache problems never fail it:
// they are told in report.cache.
Report host_report(bool use_cache);

// The level a run aiming at `aim` reaches: kernel only when the kernel checks hold (and,
// with the network off, a network namespace works), else landlock, else soft.
Level reachable(const Report& report, Level aim, bool network_off);

const Check* find_check(const Report& report, std::string_view id);

// One line for a run's start-up, never silent about a fallback: "level: kernel", or
// "level: landlock, not kernel (user namespace: ...); `ringfence doctor` shows the fix".
std::string level_line(const Report& report, Level aim, bool network_off);

// A table a person reads at a glance: layer, available, detail, then cause and fix under any
// row that needs them; the host's facts; "level: X"; the per-preset line; the cache.
std::string format_table(const Report& report);
// The same content as JSON (one object; stable key order).
std::string to_json(const Report& report);
// Reads to_json's output back.
base::Result<Report> from_json(std::string_view text);

}  // namespace rf::probe
