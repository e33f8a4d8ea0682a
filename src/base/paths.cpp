// SPDX-License-Identifier: LGPL-2.1-or-later
// Lexical path helpers.
#include "ringfence/base/paths.hpp"

#include <fnmatch.h>

namespace rf::base {

std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    size_t j = i;
    while (j < path.size() && path[j] != '/') ++j;
    if (j > i) {
      std::string_view c = path.substr(i, j - i);
      if (c != ".") out.emplace_back(c);
    }
    i = j;
  }
  return out;
}

std::string normalize(std::string_view path) {
  std::string out = (!path.empty() && path[0] == '/') ? "/" : "";
  bool first = true;
  for (const auto& c : components(path)) {
    if (!first) out += '/';
    out += c;
    first = false;
  }
  if (out.empty()) return std::string(1, '.');
  return out;
}

std::string join(std::string_view a, std::string_view b) {
  std::string out(a);
  while (!out.empty() && out.back() == '/') out.pop_back();
  out += '/';
  out += strip_leading_slashes(b);
  return out;
}

std::string_view strip_leading_slashes(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return path;
}

std::string parent(std::string_view path) {
  std::string n = normalize(path);
  auto pos = n.rfind('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return n.substr(0, pos);
}

bool is_under(std::string_view path, std::string_view prefix) {
  auto p = components(path);
  auto q = components(prefix);
  if (q.size() > p.size()) return false;
  for (size_t i = 0; i < q.size(); ++i)
    if (p[i] != q[i]) return false;
  return true;
}

bool pattern_matches(std::string_view pattern, std::string_view name) {
  return ::fnmatch(std::string(pattern).c_str(), std::string(name).c_str(), FNM_PATHNAME) == 0;
}

bool pattern_applies(std::string_view pattern, std::string_view relpath, bool is_dir) {
  bool dir_only = pattern.ends_with("/");
  while (pattern.ends_with("/")) pattern.remove_suffix(1);
  bool anchored = pattern.find('/') != std::string_view::npos;
  while (pattern.starts_with("/")) pattern.remove_prefix(1);
  if (pattern.empty()) return false;
  std::vector<std::string> parts = components(relpath);
  std::string prefix;
  for (size_t i = 0; i < parts.size(); ++i) {
    prefix += (prefix.empty() ? "" : "/") + parts[i];
    // Every component but the last is a directory.
    bool dir = i + 1 < parts.size() || is_dir;
    if (dir_only && !dir) continue;
    if (pattern_matches(pattern, anchored ? std::string_view(prefix) : std::string_view(parts[i])))
      return true;
  }
  return false;
}

}  // namespace rf::base
