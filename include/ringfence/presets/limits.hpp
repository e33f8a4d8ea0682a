// SPDX-License-Identifier: LGPL-2.1-or-later
// Resource limits as data: the `--limit` syntax ("memory=2G,pids=256"), its parser and its
// canonical text. The engine maps them to rlimits, or to cgroup v2 files where one is delegated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ringfence/base/result.hpp"

namespace rf::presets {

// A limit value that lifts the limit ("unlimited" or "max"), e.g. to override a preset default.
inline constexpr std::uint64_t kUnlimited = UINT64_MAX;

// Every field is optional: unset means "not limited here" (a lower layer's value stands).
struct Limits {
  std::optional<std::uint64_t> memory;     // bytes: cgroup memory.max
  std::optional<std::uint64_t> pids;       // processes: cgroup pids.max, else RLIMIT_NPROC
  std::optional<std::uint64_t> nofile;     // open files: RLIMIT_NOFILE
  std::optional<std::uint32_t> cpu_milli;  // CPUs x 1000 ("1.5" = 1500; 0 = no quota): cpu.max
  std::optional<std::uint64_t> core;       // bytes: RLIMIT_CORE (0 = no core dumps)
  std::optional<std::uint64_t> fsize;      // bytes: RLIMIT_FSIZE
  std::optional<std::uint64_t> tmpfs;      // bytes: size= of each scratch tmpfs (/tmp, /var/tmp, /dev/shm)

  bool operator==(const Limits&) const = default;
  [[nodiscard]] bool empty() const { return *this == Limits{}; }
};

// The limit names, in canonical order: "memory, pids, nofile, cpu, core, fsize, tmpfs".
std::string_view limit_names();
bool is_limit_name(std::string_view name);

// Set one limit from its text form. Sizes (memory, core, fsize, tmpfs) take a plain byte count or a
// K, M, G or T suffix (powers of 1024, either case); counts (pids, nofile) are plain numbers;
// cpu is a count of CPUs with up to three decimals ("2", "0.5"). "unlimited"/"max" lift a limit
// (cpu included). The error names the limit and the bad value.
base::Status set_limit(Limits& limits, std::string_view name, std::string_view value);

// "memory=2G,pids=256,nofile=1024,cpu=2": items separated by commas (spaces around them are
// ignored); each limit at most once. The error quotes the bad item.
base::Result<Limits> parse_limits(std::string_view text);

// A duration in seconds: a number (seconds) or a number with a unit, ms, s, m or h ("90",
// "90s", "1.5m", "2h", "500ms"). Positive, at most 30 days. The error quotes the bad text.
base::Result<double> parse_duration(std::string_view text);

// The fields set in `higher` replace those of `lower`.
Limits merge(const Limits& lower, const Limits& higher);

// Canonical text, accepted back by parse_limits: "memory=2G,pids=256,core=0" (sizes in the
// largest exact unit); "" when nothing is set.
std::string format_limits(const Limits& limits);

}  // namespace rf::presets
