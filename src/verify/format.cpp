// SPDX-License-Identifier: LGPL-2.1-or-later
// The report for people (a table with a header and a summary) and for tools (one JSON document).
#include <string.h>

#include <algorithm>

#include "ringfence/base/strings.hpp"
#include "ringfence/verify/verify.hpp"

namespace rf::verify {
namespace {

constexpr size_t kAttackWidth = 44;
constexpr size_t kExpectedWidth = 24;
constexpr size_t kObservedWidth = 44;

// At most `width` characters (cut on a UTF-8 boundary, "..." marking the cut), padded.
std::string cell(std::string s, size_t width, bool pad = true) {
  for (auto& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  if (s.size() > width) {
    size_t cut = width - 3;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut) + "...";
  }
  size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
  if (pad && chars < width) s += std::string(width - chars, ' ');
  return s;
}

std::string verdict_cell(const Row& r) {
  std::string v(verdict_name(r.verdict));
  if (r.verdict == Verdict::Skipped || r.verdict == Verdict::Error)
    v += " (" + cell(r.reason, 70, false) + ")";
  return v;
}

std::string summary_line(const Report& rep) {
  std::string s = std::to_string(rep.count(Verdict::Pass)) + " pass, " +
                  std::to_string(rep.count(Verdict::Fail)) + " FAIL, " +
                  std::to_string(rep.count(Verdict::Skipped)) + " skipped, " +
                  std::to_string(rep.count(Verdict::NotProtected)) + " not protected at this level";
  if (int e = rep.count(Verdict::Error)) s += ", " + std::to_string(e) + " error";
  if (rep.count(Verdict::Fail) > 0) return s + ": an attack succeeded where it should have been blocked";
  if (rep.count(Verdict::Error) > 0) return s + ": some attacks gave no result, so this run proves less";
  return s + ": no attack succeeded where it should have been blocked";
}

std::string q(std::string_view s) { return base::json_quote(s); }

std::string errno_name(int err) {
  if (err <= 0) return "";
  const char* n = ::strerrorname_np(err);
  return n ? n : "";
}

std::string json_fixture(const std::optional<FixtureSummary>& f) {
  if (!f) return "null";
  return "{\"denied_hits\": " + std::to_string(f->denied_hits) +
         ", \"allowed_hits\": " + std::to_string(f->allowed_hits) + "}";
}

std::string json_row(const Row& r) {
  std::string o = "{\"id\": " + q(r.id) + ", \"row\": " + q(r.row) + ", \"attack\": " + q(r.title) +
                  ", \"expected\": " + q(r.expected) + ", \"observed\": " + q(r.observed) +
                  ", \"verdict\": " + q(verdict_name(r.verdict)) + ", \"reason\": " + q(r.reason) +
                  ", \"level\": " + q(r.level) + ", \"network\": " + q(r.network) +
                  ", \"outcome\": " + q(outcome_name(r.outcome)) + ", \"errno\": " + std::to_string(r.err) +
                  ", \"errno_name\": " + q(errno_name(r.err)) + ", \"detail\": " + q(r.detail) +
                  ", \"fixture\": " + json_fixture(r.fixture) + "}";
  return o;
}

std::string json_run(const RunRecord& r) {
  std::string ids;
  for (const auto& i : r.ids) ids += (ids.empty() ? "" : ", ") + q(i);
  return "{\"run\": " + q(r.what) + ", \"level\": " + q(r.level) +
         ", \"exit_code\": " + std::to_string(r.exit_code) + ", \"selectors\": [" + ids +
         "], \"fixture\": " + json_fixture(r.fixture) + "}";
}

}  // namespace

std::string format_table(const Report& rep) {
  std::string out = "ringfence verify: level " + (rep.level.empty() ? std::string("unknown") : rep.level) +
                    (rep.requested_level.empty() ? "" : " (--level " + rep.requested_level + ")") +
                    ", preset " + rep.preset + ", kernel " + rep.kernel + ", uid " + rep.uid + "\n";
  out += "attack program: " + rep.attack_program + "\n";
  out +=
      "canaries: a random token in ringfence's environment (RF_VERIFY_SECRET_TOKEN, AWS_SECRET_ACCESS_KEY, "
      "GITHUB_TOKEN), in the project's .env, and in a temporary HOME (" +
      rep.fake_home + ") standing for your real home, which is not touched; all removed\n\n";
  size_t id_w = 2;
  for (const auto& r : rep.rows) id_w = std::max(id_w, r.id.size());
  out += cell("ID", id_w) + "  " + cell("ATTACK", kAttackWidth) + "  " + cell("EXPECTED", kExpectedWidth) +
         "  " + cell("OBSERVED", kObservedWidth) + "  VERDICT\n";
  for (const auto& r : rep.rows)
    out += cell(r.id, id_w) + "  " + cell(r.title, kAttackWidth) + "  " + cell(r.expected, kExpectedWidth) +
           "  " + cell(r.observed, kObservedWidth) + "  " + verdict_cell(r) + "\n";
  bool header = false;
  for (const auto& r : rep.rows) {
    if (r.verdict != Verdict::Fail && r.verdict != Verdict::Error) continue;
    if (!header) out += "\nfailed rows:\n";
    header = true;
    out += "  " + r.id + " " + std::string(verdict_name(r.verdict)) + ": " + r.reason + "; observed " +
           r.observed + (r.level.empty() ? "" : " (level " + r.level + ")") + "\n";
  }
  if (!rep.notes.empty()) out += "\n";
  for (const auto& n : rep.notes) out += "note: " + n + "\n";
  out += "\nsummary: " + summary_line(rep) + "\n";
  return out;
}

std::string to_json(const Report& rep) {
  std::string rows, runs, notes;
  for (const auto& r : rep.rows) rows += std::string(rows.empty() ? "" : ",") + "\n    " + json_row(r);
  for (const auto& r : rep.runs) runs += std::string(runs.empty() ? "" : ",") + "\n    " + json_run(r);
  for (const auto& n : rep.notes) notes += std::string(notes.empty() ? "" : ", ") + q(n);
  std::string out = "{\n";
  out += "  \"level\": " + q(rep.level) + ",\n";
  out += "  \"requested_level\": " + q(rep.requested_level) + ",\n";
  out += "  \"preset\": " + q(rep.preset) + ",\n";
  out += "  \"kernel\": " + q(rep.kernel) + ",\n";
  out += "  \"uid\": " + rep.uid + ",\n";
  out += "  \"attack_program\": " + q(rep.attack_program) + ",\n";
  out += "  \"fake_home\": " + q(rep.fake_home) + ",\n";
  out += "  \"project\": " + q(rep.project) + ",\n";
  out += "  \"rows\": [" + rows + (rows.empty() ? "" : "\n  ") + "],\n";
  out += "  \"runs\": [" + runs + (runs.empty() ? "" : "\n  ") + "],\n";
  out += "  \"notes\": [" + notes + "],\n";
  out += "  \"summary\": {\"pass\": " + std::to_string(rep.count(Verdict::Pass)) +
         ", \"fail\": " + std::to_string(rep.count(Verdict::Fail)) +
         ", \"skipped\": " + std::to_string(rep.count(Verdict::Skipped)) +
         ", \"not_protected\": " + std::to_string(rep.count(Verdict::NotProtected)) +
         ", \"error\": " + std::to_string(rep.count(Verdict::Error)) + "},\n";
  out += "  \"exit_code\": " + std::to_string(exit_code(rep)) + "\n}\n";
  return out;
}

}  // namespace rf::verify
