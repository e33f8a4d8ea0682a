// SPDX-License-Identifier: LGPL-2.1-or-later
// mountinfo parser (format: proc(5)).
#include <charconv>

#include "ringfence/base/mountinfo.hpp"
#include "ringfence/base/strings.hpp"

namespace rf::base {

std::string unescape_mountinfo(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      auto oct = [](char c) { return c >= '0' && c <= '7'; };
      if (oct(s[i + 1]) && oct(s[i + 2]) && oct(s[i + 3])) {
        out += static_cast<char>(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

bool MountEntry::has_option(std::string_view opt) const {
  for (const auto& o : split(options, ','))
    if (o == opt) return true;
  return false;
}

namespace {

template <typename T>
bool to_num(std::string_view s, T& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> f;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) f.push_back(line.substr(i, j - i));
    i = j;
  }
  return f;
}

Result<MountEntry> parse_line(std::string_view line) {
  auto f = fields_of(line);
  // id parent maj:min root mountpoint options [optional...] - fstype source superopts
  size_t sep = 0;
  for (size_t i = 6; i < f.size(); ++i)
    if (f[i] == "-") {
      sep = i;
      break;
    }
  if (f.size() < 10 || sep == 0 || f.size() < sep + 3) return base::Error(EINVAL, "malformed mountinfo line");
  MountEntry e;
  auto colon = f[2].find(':');
  if (colon == std::string_view::npos || !to_num(f[0], e.id) || !to_num(f[1], e.parent_id) ||
      !to_num(f[2].substr(0, colon), e.major) || !to_num(f[2].substr(colon + 1), e.minor))
    return base::Error(EINVAL, "malformed mountinfo numbers");
  e.root = unescape_mountinfo(f[3]);
  e.mount_point = unescape_mountinfo(f[4]);
  e.options = std::string(f[5]);
  for (size_t i = 6; i < sep; ++i) e.optional_fields.emplace_back(f[i]);
  e.fs_type = unescape_mountinfo(f[sep + 1]);
  e.source = unescape_mountinfo(f[sep + 2]);
  if (sep + 3 < f.size()) e.super_options = std::string(f[sep + 3]);
  return e;
}

}  // namespace

Result<std::vector<MountEntry>> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> out;
  size_t lineno = 0;
  for (const auto& line : split(text, '\n')) {
    ++lineno;
    if (line.empty()) continue;
    auto e = parse_line(line);
    if (!e) return std::move(e.error()).context("mountinfo line " + std::to_string(lineno));
    out.push_back(std::move(e.value()));
  }
  return out;
}

}  // namespace rf::base
