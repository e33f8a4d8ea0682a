// SPDX-License-Identifier: LGPL-2.1-or-later
// cli: `ringfence violations` and `why`: the last run's lines by their run id, --since as a
// duration or a UTC time, GitHub annotations escaped as the runner reads them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ringfence/cli/violations.hpp"

namespace {

std::string entry(const char* run, const char* time, const char* addr) {
  return std::string("{\"run\":\"") + run + "\",\"time\":\"" + time +
         "\",\"pid\":1,\"syscall\":\"connect\",\"family\":\"inet\",\"address\":\"" + addr +
         "\",\"port\":80,\"rule\":\"deny *\",\"action\":\"deny\",\"errno\":\"ECONNREFUSED\"}";
}

}  // namespace

TEST_CASE("violations: the last run's lines, --since and --all") {
  const std::vector<std::string> lines = {
      entry("1-100", "2026-12-02T06:00:00.000Z", "203.0.113.1"),
      entry("2-200", "2026-12-02T06:10:00.500Z", "203.0.113.2"),
      entry("1-100", "2026-12-02T06:11:00.000Z", "203.0.113.3"),  // an earlier run, still going
      entry("2-200", "2026-12-02T06:12:00.000Z", "203.0.113.4"),
      "{\"time\":\"2026-12-02T06:13:00.000Z\",\"action\":\"log-limit\"}",  // no run: not a run's line
  };
  auto last = rf::cli::select_violations(lines, false, std::nullopt);
  REQUIRE(last.size() == 2);
  CHECK(last[0].find("203.0.113.2") != std::string::npos);
  CHECK(last[1].find("203.0.113.4") != std::string::npos);
  CHECK(rf::cli::select_violations(lines, true, std::nullopt).size() == lines.size());
  auto t = rf::cli::since_time("2026-12-02T06:10:00Z", 0);
  REQUIRE(t);
  auto since = rf::cli::select_violations(lines, false, *t);
  CHECK(since.size() == 4);  // 06:10:00.5 on, the log-limit line included
  auto t2 = rf::cli::since_time("2026-12-02T06:10:00.600Z", 0);
  REQUIRE(t2);
  CHECK(rf::cli::select_violations(lines, false, *t2).size() == 3);
  auto back = rf::cli::since_time("10m", 1'000'000);
  REQUIRE(back);
  CHECK(*back == 1'000'000 - 600'000);
  CHECK_FALSE(rf::cli::since_time("yesterday", 0));
  CHECK(rf::cli::select_violations({}, false, std::nullopt).empty());
}

TEST_CASE("violations: a GitHub annotation per line, its text escaped") {
  const std::string a = rf::cli::github_annotation(entry("1-1", "2026-12-02T06:00:00.000Z", "203.0.113.1"));
  CHECK(a ==
        "::warning title=ringfence::refused connect to 203.0.113.1:80 (the network is off); to allow: "
        "--network on (or --allow-host NAME for named hosts only)");
  const std::string odd =
      rf::cli::github_annotation("{\"action\":\"deny\",\"syscall\":\"connect\",\"rule\":\"100% \\nnew\"}");
  CHECK(odd.find("100%25 %0Anew") != std::string::npos);
  CHECK(odd.find('\n') == std::string::npos);
}
