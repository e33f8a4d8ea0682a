// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence verify`: the attack suite (the rf-attack program) run live in real sandboxes on this
// host, each result judged against the level the sandbox reached; the table and the JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::verify {

// What the host allows, found by the caller (app, from the probe): verify only decides with it.
struct HostInfo {
  // A private user+network namespace can be made: the hermetic network fixture works. Without
  // it no network attack is run (never against the real network).
  bool private_netns = false;
  std::string why_no_netns;  // when not: the probe's reason
};

struct Options {
  std::optional<std::string> preset;          // --preset (validated by the front end)
  std::optional<std::string> level;           // --level: passed on to `run --level`
  std::optional<std::string> attack_program;  // --attack-program PATH
  std::string self_exe;                       // the ringfence binary ("" = /proc/self/exe)
  double run_timeout = 0;                     // seconds per sandboxed run; 0: 30 + 4 per attack in it
};

// One attack as `rf-attack list` describes it.
struct Attack {
  std::string id;   // "S-01", "NET-03a"
  std::string row;  // the catalog row it belongs to ("NET-03")
  std::string title;
  // The levels that must block it; empty: none (a row that is reported, never promised).
  std::vector<std::string> protects;
  // Where it runs: "" (the preset's own sandbox), "on" (network on, in the fixture) or "off"
  // (network off, in the fixture). From the list's "network" field, else from the row.
  std::string network;
};

enum class Outcome { Blocked, Succeeded, Skipped, Missing };

// One result line of `rf-attack run`.
struct Observation {
  std::string id;
  std::string title;
  Outcome outcome = Outcome::Missing;
  int err = 0;
  std::string detail;
};

// The fixture's last line: events on denied and on allowed listeners.
struct FixtureSummary {
  long denied_hits = 0;
  long allowed_hits = 0;
  std::vector<std::string> denied_events;  // the first few: "tcp 169.254.169.254:80"
};

enum class Verdict { Pass, Fail, Skipped, NotProtected, Error };

std::string_view verdict_name(
    Verdict v);  // "pass", "FAIL", "skipped", "not protected at this level", "error"
std::string_view outcome_name(Outcome o);  // "blocked", "succeeded", "skipped", "no result"

struct Row {
  std::string id, row, title;
  std::string expected;  // "blocked", "blocked, no fixture hit", "not protected at soft"
  std::string observed;  // "blocked (EACCES): ...", "succeeded: ...", "skipped: ..."
  Verdict verdict = Verdict::Error;
  std::string reason;   // skipped, FAIL and error: why, in a few words
  std::string level;    // the level of the sandbox it ran in ("" when it did not run)
  std::string network;  // "", "on", "off"
  Outcome outcome = Outcome::Missing;
  int err = 0;
  std::string detail;
  std::optional<FixtureSummary> fixture;  // network rows: the fixture run they were part of
};

// One sandboxed run of the attack program.
struct RunRecord {
  std::string what;   // "main", "network on", "network off", "S-06 alone", ...
  std::string level;  // from ringfence's level line ("" when none was printed)
  int exit_code = 0;
  std::vector<std::string> ids;  // the ids and row prefixes given to `rf-attack run`
  std::optional<FixtureSummary> fixture;
};

struct Report {
  std::string preset;           // as resolved: "balanced" when not given
  std::string requested_level;  // --level, or ""
  std::string level;            // the level the main sandbox reached
  std::string kernel;           // release
  std::string uid;
  std::string attack_program;
  std::string fake_home;  // the temporary HOME standing for the real home (removed)
  std::string project;    // the temporary project (removed)
  std::vector<std::string> notes;
  std::vector<Row> rows;
  std::vector<RunRecord> runs;
  int interrupted_by = 0;  // a signal that stopped verify (everything was still cleaned up)

  [[nodiscard]] int count(Verdict v) const;
};

// Prepares the canaries, runs every attack in real sandboxes (re-executing ringfence), judges
// the results, removes every temporary file and process. An error means verify could not be set
// up or a sandbox could not start (exit 125); a Report's verdicts give exit 0 or 1.
base::Result<Report> run(const Options& options, const HostInfo& host);

// The exit code of a finished report: 1 when any row is FAIL or error, else 0.
int exit_code(const Report& report);

// A table a person reads at a glance: a header (level, preset, kernel), one row per attack
// (id, attack, expected, observed, verdict), notes, a summary line.
std::string format_table(const Report& report);
// The same content as one JSON document.
std::string to_json(const Report& report);

// The pieces, for tests and for the driver. ---------------------------------------------------

// `rf-attack list`'s output (one JSON object per line).
base::Result<std::vector<Attack>> parse_list(std::string_view text);
// `rf-attack run`'s output; lines that are not result objects are counted in `junk`.
std::vector<Observation> parse_results(std::string_view text, int& junk);
// The ids and row prefixes that pick exactly `ids` (a row as a prefix when it picks no other
// attack of `all`), in order, without repeats.
std::vector<std::string> selectors_for(const std::vector<std::string>& ids, const std::vector<Attack>& all);
// The fixture log's summary line (and its denied events), or nullopt when there is no summary.
std::optional<FixtureSummary> parse_fixture_log(std::string_view text);
// The level word of ringfence's start-up line ("ringfence: level kernel, preset ..."), or "".
std::string parse_level_line(std::string_view stderr_text);

// One row from an attack, its observation (nullptr: none came back, `missing_why` says why), the
// level its sandbox reached, and its fixture run (network rows).
Row judge(const Attack& attack, const Observation* obs, std::string_view level,
          const std::optional<FixtureSummary>& fixture, std::string_view missing_why);

}  // namespace rf::verify
