// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence violations` (the violation log of a run, as text, JSON lines or GitHub
// annotations) and `ringfence why` (each kind of refusal explained with the flag that would
// allow it, net/explain.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/cli/host_snapshot.hpp"

namespace rf::cli {

struct ViolationsCommand {
  enum class Op { List, Why } op = Op::List;
  bool last = false;   // the last run's lines (the default, which --last names)
  bool all = false;    // every line of the log (and of the one it rotated to PATH.1)
  std::string since;   // lines from then on: a duration back ("10m", "2h", "1d") or a UTC time
  bool json = false;   // the lines as they are (JSON lines)
  std::string format;  // "github": ::warning annotations
  std::string log;     // another log file than the user's default
};

// The user's violation log: $XDG_RUNTIME_DIR/ringfence/violations.jsonl, else
// /tmp/ringfence-UID/violations.jsonl.
std::string default_violation_log(const HostSnapshot& snap);

// The lines selected: with `since_ms` (ms since the epoch) those at or after it; with `all`
// every one; else the last run's (the "run" of the last line that has one).
std::vector<std::string> select_violations(const std::vector<std::string>& lines, bool all,
                                           std::optional<std::int64_t> since_ms);
// --since's value as ms since the epoch: a duration back from `now_ms`, or an ISO-8601 UTC time
// ("2026-12-02T06:00:00Z", seconds optional).
base::Result<std::int64_t> since_time(const std::string& text, std::int64_t now_ms);
// One GitHub Actions annotation for a log line (its explanation, escaped as the runner wants).
std::string github_annotation(const std::string& line);

// Prints to stdout (a missing log: nothing, and a note on stderr); returns the exit code.
int run_violations_command(const ViolationsCommand& cmd, const HostSnapshot& snap);

}  // namespace rf::cli
