// SPDX-License-Identifier: LGPL-2.1-or-later
// The `--limit` syntax: per-limit value parsers (sizes, counts, CPUs) and the canonical text.
#include <array>
#include <charconv>
#include <vector>

#include "ringfence/presets/limits.hpp"

namespace rf::presets {

namespace {

enum class Unit { Size, Count, Cpu };

struct LimitField {
  std::string_view name;
  Unit unit;
};

constexpr std::array<LimitField, 7> kFields = {{
    {"memory", Unit::Size},
    {"pids", Unit::Count},
    {"nofile", Unit::Count},
    {"cpu", Unit::Cpu},
    {"core", Unit::Size},
    {"fsize", Unit::Size},
    {"tmpfs", Unit::Size},
}};

// The 64-bit field of a limit name, or nullptr (cpu has its own type).
std::optional<std::uint64_t>* u64_field(Limits& l, std::string_view name) {
  if (name == "memory") return &l.memory;
  if (name == "pids") return &l.pids;
  if (name == "nofile") return &l.nofile;
  if (name == "core") return &l.core;
  if (name == "fsize") return &l.fsize;
  if (name == "tmpfs") return &l.tmpfs;
  return nullptr;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool is_unlimited(std::string_view v) { return v == "unlimited" || v == "max"; }

// "2G" -> 2 << 30. False on junk or overflow.
bool parse_size(std::string_view v, std::uint64_t& out) {
  unsigned shift = 0;
  if (!v.empty()) {
    switch (v.back()) {
      case 'k':
      case 'K': shift = 10; break;
      case 'm':
      case 'M': shift = 20; break;
      case 'g':
      case 'G': shift = 30; break;
      case 't':
      case 'T': shift = 40; break;
      default: break;
    }
    if (shift != 0) v.remove_suffix(1);
  }
  std::uint64_t n = 0;
  if (!parse_u64(v, n)) return false;
  if (shift != 0 && n > (UINT64_MAX >> shift)) return false;
  out = n << shift;
  return true;
}

// "1.5" -> 1500; at most three decimals, more than zero, at most 1,000,000 CPUs.
bool parse_cpu(std::string_view v, std::uint32_t& out) {
  std::string_view whole = v, frac;
  if (auto dot = v.find('.'); dot != std::string_view::npos) {
    whole = v.substr(0, dot);
    frac = v.substr(dot + 1);
    if (frac.empty() || frac.size() > 3) return false;
  }
  std::uint64_t w = 0, f = 0;
  if (!parse_u64(whole, w) || w > 1'000'000) return false;
  if (!frac.empty() && !parse_u64(frac, f)) return false;
  for (size_t i = frac.size(); i < 3; ++i) f *= 10;
  std::uint64_t milli = w * 1000 + f;
  if (milli == 0) return false;
  out = static_cast<std::uint32_t>(milli);
  return true;
}

std::string format_size(std::uint64_t v) {
  static constexpr std::array<std::pair<unsigned, char>, 4> kUnits = {
      {{40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}}};
  for (auto [shift, suffix] : kUnits) {
    std::uint64_t unit = std::uint64_t{1} << shift;
    if (v != 0 && v % unit == 0) return std::to_string(v / unit) + suffix;
  }
  return std::to_string(v);
}

std::string format_cpu(std::uint32_t milli) {
  std::string out = std::to_string(milli / 1000);
  if (std::uint32_t f = milli % 1000; f != 0) {
    std::string digits = std::to_string(f + 1000).substr(1);  // zero-padded to 3
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

const LimitField* field_named(std::string_view name) {
  for (const auto& f : kFields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace

std::string_view limit_names() { return "memory, pids, nofile, cpu, core, fsize, tmpfs"; }

bool is_limit_name(std::string_view name) { return field_named(name) != nullptr; }

base::Status set_limit(Limits& limits, std::string_view name, std::string_view value) {
  const LimitField* field = field_named(name);
  if (field == nullptr) {
    return base::Error(
        0, "unknown limit \"" + std::string(name) + "\" (valid: " + std::string(limit_names()) + ")");
  }
  auto bad = [&](std::string_view expected) {
    return base::Error(0, "bad value \"" + std::string(value) + "\" for limit " + std::string(name) + ": " +
                              std::string(expected));
  };
  if (field->unit == Unit::Cpu) {
    if (is_unlimited(value)) {
      limits.cpu_milli = 0;  // 0: no cpu.max quota (a parsed value is never 0)
      return {};
    }
    std::uint32_t milli = 0;
    if (!parse_cpu(value, milli)) return bad("expected a number of CPUs such as 2 or 0.5");
    limits.cpu_milli = milli;
    return {};
  }
  std::uint64_t n = 0;
  if (is_unlimited(value)) {
    n = kUnlimited;
  } else if (field->unit == Unit::Size) {
    if (!parse_size(value, n)) return bad("expected bytes, or a number with a K, M, G or T suffix");
  } else if (!parse_u64(value, n)) {
    return bad("expected a whole number");
  }
  if (n == 0 && name != "core") return bad("0 would stop everything; use a positive number");
  *u64_field(limits, name) = n;
  return {};
}

base::Result<double> parse_duration(std::string_view text) {
  auto bad = [&text](const char* why) {
    return base::Error(
        0, "'" + std::string(text) + "' is not a duration (" + why + "; e.g. 90, 90s, 5m, 2h, 1d, 500ms)");
  };
  std::size_t digits = 0;
  bool dot = false;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || (text[digits] == '.' && !dot))) {
    dot = dot || text[digits] == '.';
    ++digits;
  }
  if (digits == 0 || (digits == 1 && dot)) return bad("no number");
  const std::string number(text.substr(0, digits));
  const std::string_view unit = text.substr(digits);
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1;
  else if (unit == "ms")
    scale = 0.001;
  else if (unit == "m")
    scale = 60;
  else if (unit == "h")
    scale = 3600;
  else if (unit == "d")
    scale = 86400;
  else
    return bad("the unit is one of ms, s, m, h, d");
  const double seconds = std::strtod(number.c_str(), nullptr) * scale;
  if (!(seconds > 0)) return bad("it must be more than 0");
  if (seconds > 30.0 * 24 * 3600) return bad("at most 30 days");
  return seconds;
}

base::Result<Limits> parse_limits(std::string_view text) {
  Limits out;
  if (trim(text).empty()) return base::Error(0, "empty limit list (expected e.g. memory=2G,pids=256)");
  std::vector<std::string_view> seen;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string_view item = trim(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    std::string quoted = "\"" + std::string(item) + "\"";
    size_t eq = item.find('=');
    if (item.empty()) return base::Error(0, "empty item in limit list \"" + std::string(text) + "\"");
    if (eq == std::string_view::npos) {
      return base::Error(0, "limit " + quoted + " needs a value (e.g. " + std::string(item) + "=...)");
    }
    std::string_view name = trim(item.substr(0, eq));
    for (auto s : seen) {
      if (s == name) return base::Error(0, "limit " + quoted + ": " + std::string(name) + " is given twice");
    }
    seen.push_back(name);
    auto r = set_limit(out, name, trim(item.substr(eq + 1)));
    if (!r) return std::move(r.error()).context("limit " + quoted);
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

Limits merge(const Limits& lower, const Limits& higher) {
  Limits out = lower;
  if (higher.memory) out.memory = higher.memory;
  if (higher.pids) out.pids = higher.pids;
  if (higher.nofile) out.nofile = higher.nofile;
  if (higher.cpu_milli) out.cpu_milli = higher.cpu_milli;
  if (higher.core) out.core = higher.core;
  if (higher.fsize) out.fsize = higher.fsize;
  if (higher.tmpfs) out.tmpfs = higher.tmpfs;
  return out;
}

std::string format_limits(const Limits& l) {
  std::string out;
  auto add = [&](std::string_view name, const std::string& value) {
    if (!out.empty()) out += ',';
    out += std::string(name) + "=" + value;
  };
  auto u64 = [&](std::string_view name, const std::optional<std::uint64_t>& v, bool size) {
    if (!v) return;
    if (*v == kUnlimited) return add(name, "unlimited");
    add(name, size ? format_size(*v) : std::to_string(*v));
  };
  u64("memory", l.memory, true);
  u64("pids", l.pids, false);
  u64("nofile", l.nofile, false);
  if (l.cpu_milli) add("cpu", *l.cpu_milli == 0 ? "unlimited" : format_cpu(*l.cpu_milli));
  u64("core", l.core, true);
  u64("fsize", l.fsize, true);
  u64("tmpfs", l.tmpfs, true);
  return out;
}

}  // namespace rf::presets
