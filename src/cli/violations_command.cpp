// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence violations` and `ringfence why` (see violations.hpp).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>

#include "ringfence/base/json.hpp"
#include "ringfence/base/log.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/cli/violations.hpp"
#include "ringfence/net/explain.hpp"
#include "ringfence/presets/limits.hpp"

namespace rf::cli {
namespace {

// "2026-12-02T06:23:07.736Z" as ms since the epoch; nullopt when it is not that form.
std::optional<std::int64_t> parse_utc(const std::string& t) {
  std::tm tm{};
  int ms = 0;
  char* end = ::strptime(t.c_str(), "%Y-%m-%dT%H:%M", &tm);
  if (!end) return std::nullopt;
  if (*end == ':') {
    end = ::strptime(end, ":%S", &tm);
    if (!end) return std::nullopt;
    if (*end == '.') {
      ++end;
      int digits = 0;
      while (*end >= '0' && *end <= '9' && digits < 3) ms = ms * 10 + (*end++ - '0'), ++digits;
      while (digits++ < 3) ms *= 10;
      while (*end >= '0' && *end <= '9') ++end;
    }
  }
  if (*end == 'Z') ++end;
  if (*end) return std::nullopt;
  return static_cast<std::int64_t>(::timegm(&tm)) * 1000 + ms;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (auto& l : base::split(text, '\n'))
    if (!l.empty()) out.push_back(std::move(l));
  return out;
}

std::string escape_github(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string plain(const std::string& line) {
  auto v = base::json::parse(line);
  if (!v) return line;
  const std::string family = v->str("family");
  std::string where = v->str("address");
  if (family == "inet" || family == "inet6")
    where = (family == "inet6" ? "[" + where + "]" : where) + ":" +
            std::to_string(static_cast<long>(v->num("port", 0)));
  std::string out = v->str("time") + "  " + v->str("action") + "  " + v->str("syscall");
  if (!where.empty()) out += "  " + where;
  if (!v->str("name").empty()) out += "  (" + v->str("name") + ")";
  if (!v->str("errno").empty()) out += "  " + v->str("errno");
  if (!v->str("rule").empty()) out += "  " + v->str("rule");
  if (!v->str("message").empty()) out += "  " + v->str("message");
  return out;
}

}  // namespace

std::vector<std::string> select_violations(const std::vector<std::string>& lines, bool all,
                                           std::optional<std::int64_t> since_ms) {
  if (all) return lines;
  std::vector<std::string> out;
  if (since_ms) {
    for (const auto& l : lines) {
      auto v = base::json::parse(l);
      auto t = v ? parse_utc(v->str("time")) : std::nullopt;
      if (t && *t >= *since_ms) out.push_back(l);
    }
    return out;
  }
  std::string run;
  for (auto it = lines.rbegin(); it != lines.rend() && run.empty(); ++it)
    if (auto v = base::json::parse(*it)) run = v->str("run");
  if (run.empty()) return out;
  for (const auto& l : lines)
    if (auto v = base::json::parse(l); v && v->str("run") == run) out.push_back(l);
  return out;
}

base::Result<std::int64_t> since_time(const std::string& text, std::int64_t now_ms) {
  if (auto t = parse_utc(text)) return *t;
  auto d = presets::parse_duration(text);
  if (!d)
    return base::Error::usage("--since " + text +
                              ": a duration back (10m, 2h, 1d) or a UTC time "
                              "(2026-12-02T06:00:00Z) was expected");
  return now_ms - static_cast<std::int64_t>(*d * 1000);
}

std::string github_annotation(const std::string& line) {
  auto e = net::explain_violation(line);
  const std::string text = e ? net::explanation_line(*e) : plain(line);
  return "::warning title=ringfence::" + escape_github(text);
}

int run_violations_command(const ViolationsCommand& cmd, const HostSnapshot& snap) {
  std::optional<std::int64_t> since;
  if (!cmd.since.empty()) {
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    auto t = since_time(cmd.since, now);
    if (!t) {
      base::log::error(t.error().message());
      return kExitUsage;
    }
    since = *t;
  }
  const std::string path = cmd.log.empty() ? default_violation_log(snap) : cmd.log;
  std::vector<std::string> lines;
  bool found = false;
  // The rotated file first (older), then the current one, for --all and --since.
  for (const std::string& p : {path + ".1", path}) {
    if (p != path && !cmd.all && cmd.since.empty()) continue;
    auto text = base::read_file(p);
    if (!text) {
      if (p == path && text.error().code() != ENOENT) {
        base::log::error("violation log " + p + ": " + text.error().describe());
        return kExitSetup;
      }
      continue;
    }
    found = found || p == path;
    for (auto& l : lines_of(*text)) lines.push_back(std::move(l));
  }
  if (!found && lines.empty()) {
    base::log::info("no violation log at " + path + ": nothing was refused yet");
    return 0;
  }
  const auto chosen = select_violations(lines, cmd.all, since);
  std::string out;
  if (cmd.op == ViolationsCommand::Op::Why) {
    // Each kind once, with how often it happened, in the order first seen.
    std::vector<std::pair<std::string, int>> order;
    std::map<std::string, std::size_t> at;
    for (const auto& l : chosen) {
      auto e = net::explain_violation(l);
      if (!e) continue;
      const std::string text = net::explanation_line(*e);
      auto [it, fresh] = at.try_emplace(text, order.size());
      if (fresh)
        order.emplace_back(text, 1);
      else
        ++order[it->second].second;
    }
    for (const auto& [text, n] : order)
      out += (n > 1 ? std::to_string(n) + "x " : std::string()) + text + "\n";
    if (order.empty())
      out = "nothing was refused in " +
            std::string(cmd.all             ? "the log"
                        : cmd.since.empty() ? "the last run"
                                            : "that time") +
            "\n";
  } else {
    for (const auto& l : chosen) {
      if (cmd.json)
        out += l + "\n";
      else if (cmd.format == "github")
        out += github_annotation(l) + "\n";
      else
        out += plain(l) + "\n";
    }
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace rf::cli
