// SPDX-License-Identifier: LGPL-2.1-or-later
// The report for people (a table read at a glance) and for programs (JSON, hand-written: the
// format is small and fixed, and reading it back is json.cpp's job).
#include <algorithm>

#include "ringfence/base/strings.hpp"
#include "ringfence/probe/probe.hpp"

namespace rf::probe {
namespace {

using base::json_quote;

std::string pad(std::string_view s, size_t width) {
  std::string out(s);
  if (out.size() < width) out.append(width - out.size(), ' ');
  return out;
}

// "    label: first line", later lines aligned under the first.
void labelled_lines(std::string& out, std::string_view label, const std::string& text) {
  const std::string head = "    " + pad(std::string(label) + ":", 7);
  bool first = true;
  for (const auto& line : base::split(text, '\n')) {
    out += first ? head : std::string(head.size(), ' ');
    out += line + "\n";
    first = false;
  }
}

std::string cache_text(const Report& r) {
  std::string s = r.cache.empty() ? "off" : r.cache;
  if (!r.cache_path.empty()) s += " (" + r.cache_path + ")";
  return s;
}

}  // namespace

std::string format_table(const Report& r) {
  size_t width = 5;
  for (const auto& c : r.checks) width = std::max(width, c.layer.size());
  width += 2;
  std::string out = "ringfence doctor: what this host can enforce\n\n";
  out += pad("LAYER", width) + pad("AVAILABLE", 11) + "DETAIL\n";
  for (const auto& c : r.checks) {
    out += pad(c.layer, width) + pad(availability_name(c.available), 11) + c.detail + "\n";
    if (!c.cause.empty()) labelled_lines(out, "cause", c.cause);
    if (!c.fix.empty()) labelled_lines(out, "fix", c.fix);
  }
  out += "\nhost:\n";
  for (const auto& f : r.facts) out += "    " + f.id + ": " + f.value + "\n";
  out += "\nlevel: " + std::string(level_name(r.level));
  if (!r.level_reason.empty()) out += " (" + r.level_reason + ")";
  out += "\npresets:";
  for (size_t i = 0; i < r.presets.size(); ++i)
    out += std::string(i ? "," : "") + " " + r.presets[i].preset + " " +
           std::string(level_name(r.presets[i].reached));
  out += "\n";
  for (const auto& p : r.presets)
    if (!p.note.empty()) out += "    " + p.preset + ": " + p.note + "\n";
  out += "cache: " + cache_text(r) + "\n";
  return out;
}

std::string to_json(const Report& r) {
  std::string o = "{\n";
  o += "  \"level\": " + json_quote(level_name(r.level)) + ",\n";
  o += "  \"level_reason\": " + json_quote(r.level_reason) + ",\n";
  o += "  \"landlock_abi\": " + std::to_string(r.landlock_abi) + ",\n";
  o += "  \"probed_at\": " + std::to_string(r.probed_at) + ",\n";
  o += "  \"checks\": [";
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const Check& c = r.checks[i];
    o += std::string(i ? "," : "") + "\n    {\"id\": " + json_quote(c.id) +
         ", \"layer\": " + json_quote(c.layer) +
         ", \"available\": " + json_quote(availability_name(c.available)) +
         ", \"detail\": " + json_quote(c.detail) + ", \"cause\": " + json_quote(c.cause) +
         ", \"fix\": " + json_quote(c.fix) + ", \"needed_for\": " + json_quote(c.needed_for) + "}";
  }
  o += "\n  ],\n  \"facts\": {";
  for (size_t i = 0; i < r.facts.size(); ++i)
    o += std::string(i ? "," : "") + "\n    " + json_quote(r.facts[i].id) + ": " +
         json_quote(r.facts[i].value);
  o += "\n  },\n  \"presets\": [";
  for (size_t i = 0; i < r.presets.size(); ++i) {
    const PresetReach& p = r.presets[i];
    o += std::string(i ? "," : "") + "\n    {\"preset\": " + json_quote(p.preset) +
         ", \"aim\": " + json_quote(level_name(p.aim)) +
         ", \"reached\": " + json_quote(level_name(p.reached)) + ", \"note\": " + json_quote(p.note) + "}";
  }
  o += "\n  ],\n  \"cache\": {\"status\": " + json_quote(r.cache.empty() ? "off" : r.cache) +
       ", \"path\": " + json_quote(r.cache_path) + "}\n}\n";
  return o;
}

bool Report::same_content(const Report& o) const {
  return checks == o.checks && facts == o.facts && level == o.level && level_reason == o.level_reason &&
         landlock_abi == o.landlock_abi && presets == o.presets && probed_at == o.probed_at;
}

}  // namespace rf::probe
