// SPDX-License-Identifier: LGPL-2.1-or-later
// Reading the attack program's and the fixture's output, and judging one row: what was
// expected at the level reached, what was observed, and the verdict.
#include <string.h>
#include <cstring>

#include <algorithm>

#include "ringfence/base/json.hpp"
#include "ringfence/verify/verify.hpp"

namespace rf::verify {
namespace json = base::json;
namespace {

// Where an attack runs when the list does not say: the catalog's network rows.
std::string network_of(const std::string& id, const std::string& row) {
  const std::string& r = row.empty() ? id : row;
  if (r == "S-06" || r == "S-08") return "on";
  if (r == "S-07") return "off";
  if (r.rfind("NET-", 0) == 0 || r.rfind("NTF-", 0) == 0) return "on";
  return "";
}

std::string errno_text(int err) {
  if (err <= 0) return "";
  const char* name = ::strerrorname_np(err);
  return name ? name : "errno " + std::to_string(err);
}

// Valid UTF-8 (each invalid byte becomes '?'), without control characters: what the attack
// program prints ends up in a terminal and in JSON.
std::string clean(std::string s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (!ok) {
      out += '?';
      ++i;
    } else if (len == 1 && (c < 0x20 || c == 0x7f)) {
      out += ' ';
      ++i;
    } else {
      out.append(s, i, len);
      i += len;
    }
  }
  return out;
}

bool protects(const Attack& a, std::string_view level) {
  return std::find(a.protects.begin(), a.protects.end(), level) != a.protects.end();
}

std::string observed_text(const Observation& o) {
  std::string out(outcome_name(o.outcome));
  if (o.outcome == Outcome::Blocked && o.err > 0) out += " (" + errno_text(o.err) + ")";
  if (!o.detail.empty()) out += ": " + o.detail;
  return out;
}

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "FAIL";
    case Verdict::Skipped: return "skipped";
    case Verdict::NotProtected: return "not protected at this level";
    case Verdict::Error: return "error";
  }
  return "error";
}

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Blocked: return "blocked";
    case Outcome::Succeeded: return "succeeded";
    case Outcome::Skipped: return "skipped";
    case Outcome::Missing: return "no result";
  }
  return "no result";
}

int Report::count(Verdict v) const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [v](const Row& r) { return r.verdict == v; }));
}

int exit_code(const Report& report) {
  return report.count(Verdict::Fail) > 0 || report.count(Verdict::Error) > 0 ? 1 : 0;
}

base::Result<std::vector<Attack>> parse_list(std::string_view text) {
  std::vector<Attack> out;
  int n = 0;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto v = json::parse(line);
    if (!v) return base::Error(EINVAL, "line " + std::to_string(n) + ": " + v.error().message());
    Attack a;
    a.id = clean(v->str("id"));
    if (a.id.empty()) return base::Error(EINVAL, "line " + std::to_string(n) + ": no \"id\"");
    a.row = clean(v->str("row"));
    a.title = clean(v->str("title"));
    if (const json::Value* p = v->get("protects"); p && p->type == json::Value::Type::Array)
      for (const auto& l : p->array)
        if (l.type == json::Value::Type::String) a.protects.push_back(l.string);
    const json::Value* net = v->get("network");
    if (net && net->type == json::Value::Type::String && (net->string == "on" || net->string == "off"))
      a.network = net->string;
    else
      a.network = network_of(a.id, a.row);
    if (std::any_of(out.begin(), out.end(), [&a](const Attack& b) { return b.id == a.id; }))
      return base::Error(EINVAL, "line " + std::to_string(n) + ": attack " + a.id + " listed twice");
    out.push_back(std::move(a));
  }
  if (out.empty()) return base::Error(EINVAL, "no attack listed");
  return out;
}

std::vector<Observation> parse_results(std::string_view text, int& junk) {
  std::vector<Observation> out;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto v = json::parse(line);
    std::string outcome = v ? v->str("outcome") : "";
    Observation o;
    o.outcome = outcome == "blocked"     ? Outcome::Blocked
                : outcome == "succeeded" ? Outcome::Succeeded
                : outcome == "skipped"   ? Outcome::Skipped
                                         : Outcome::Missing;
    if (!v || v->str("id").empty() || o.outcome == Outcome::Missing) {
      ++junk;
      continue;
    }
    o.id = clean(v->str("id"));
    o.title = clean(v->str("title"));
    o.err = static_cast<int>(v->num("errno", 0));
    o.detail = clean(v->str("detail"));
    // A repeated id (a row reported twice): the worse outcome counts.
    auto same = std::find_if(out.begin(), out.end(), [&o](const Observation& p) { return p.id == o.id; });
    if (same == out.end()) {
      out.push_back(std::move(o));
    } else if (o.outcome == Outcome::Succeeded) {
      *same = std::move(o);
    }
  }
  return out;
}

std::optional<FixtureSummary> parse_fixture_log(std::string_view text) {
  std::optional<FixtureSummary> out;
  std::vector<std::string> events;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.find("\"fixture\"") == std::string_view::npos) continue;
    auto v = json::parse(line);
    if (!v) continue;
    if (v->str("fixture") == "event") {
      const json::Value* denied = v->get("denied");
      if (denied && denied->type == json::Value::Type::Bool && denied->boolean && events.size() < 5)
        events.push_back(clean(v->str("proto") + " " + v->str("addr") + ":" +
                               std::to_string(static_cast<long>(v->num("port", 0)))));
      continue;
    }
    if (v->str("fixture") != "summary") continue;
    FixtureSummary s;
    s.denied_hits = static_cast<long>(v->num("denied_hits", -1));
    s.allowed_hits = static_cast<long>(v->num("allowed_hits", -1));
    if (s.denied_hits < 0 || s.allowed_hits < 0) continue;
    out = s;
  }
  if (out) out->denied_events = events;
  return out;
}

std::string parse_level_line(std::string_view text) {
  constexpr std::string_view kMark = "ringfence: level ";
  for (size_t at = text.find(kMark); at != std::string_view::npos; at = text.find(kMark, at + 1)) {
    if (at != 0 && text[at - 1] != '\n' && text[at - 1] != '>') continue;  // ">": a "<6>" prefix
    std::string_view rest = text.substr(at + kMark.size());
    std::string word(rest.substr(0, rest.find_first_of(", \n")));
    if (word == "kernel" || word == "landlock" || word == "soft") return word;
  }
  return "";
}

Row judge(const Attack& attack, const Observation* obs, std::string_view level,
          const std::optional<FixtureSummary>& fixture, std::string_view missing_why) {
  Row r;
  r.id = attack.id;
  r.row = attack.row;
  r.title = attack.title.empty() && obs ? obs->title : attack.title;
  r.level = std::string(level);
  r.network = attack.network;
  r.fixture = fixture;
  // An empty list: the row is reported, never promised (a documented limit).
  const bool promised = !attack.protects.empty();
  const bool guarded = promised && (level.empty() || protects(attack, level));
  r.expected = !promised                ? "reported only"
               : !guarded               ? "not protected at " + std::string(level)
               : attack.network.empty() ? "blocked"
                                        : "blocked, no fixture hit";
  if (!obs) {
    r.verdict = Verdict::Error;
    r.observed = "no result";
    r.reason = missing_why.empty() ? "the attack program reported nothing for it" : std::string(missing_why);
    return r;
  }
  r.outcome = obs->outcome;
  r.err = obs->err;
  r.detail = obs->detail;
  r.observed = observed_text(*obs);
  if (fixture && !attack.network.empty())
    r.observed += "; fixture: " + std::to_string(fixture->denied_hits) + " denied hit" +
                  (fixture->denied_hits == 1 ? "" : "s");
  // The attack program's own timeouts and crashes: neither blocked nor succeeded, a failure
  // where the level promises a block.
  const bool undecided =
      obs->outcome == Outcome::Skipped && obs->detail.find("(undecided)") != std::string::npos;
  if (undecided && guarded) {
    r.verdict = Verdict::Fail;
    r.reason = "undecided (the attack neither failed nor finished in time)";
  } else if (obs->outcome == Outcome::Skipped && !undecided) {
    r.verdict = Verdict::Skipped;
    r.reason = obs->detail.empty() ? "the attack program skipped it" : obs->detail;
  } else if (!guarded) {
    r.verdict = Verdict::NotProtected;
  } else if (obs->outcome == Outcome::Succeeded) {
    r.verdict = Verdict::Fail;
    r.reason = "the attack succeeded";
  } else if (!attack.network.empty() && !fixture) {
    r.verdict = Verdict::Error;
    r.reason = "the network fixture wrote no summary";
  } else if (fixture && fixture->denied_hits > 0) {
    r.verdict = Verdict::Fail;
    r.reason = "the call failed, but a denied listener of the fixture saw traffic";
    for (size_t i = 0; i < fixture->denied_events.size(); ++i)
      r.reason += (i == 0 ? ": " : ", ") + fixture->denied_events[i];
  } else {
    r.verdict = Verdict::Pass;
  }
  return r;
}

}  // namespace rf::verify
