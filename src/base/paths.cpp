// SPDX-License-Identifier: LGPL-2.1-or-later
// Lexical path helpers.
#include "ringfence/base/paths.hpp"

#include <fnmatch.h>

#include <array>
#include <cstdint>
#include <cstring>

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

namespace {

bool has_glob(std::string_view p) {
  for (char c : p)
    if (c == '*' || c == '?' || c == '[' || c == '\\') return true;
  return false;
}

// How a pattern is matched: fnmatch(FNM_PATHNAME) without its allocations where the pattern
// allows. A literal is equal or not; "*SUFFIX" (a literal suffix) matches a name without '/'
// ending in it, "PREFIX*" one that starts with it and has no '/' after it (without FNM_PERIOD a
// leading dot is an ordinary character). Anything else goes
// to fnmatch, copied to NUL-terminated buffers on the stack when short.
enum class Kind : std::uint8_t { Literal, Suffix, Prefix, Glob };

Kind kind_of(std::string_view pattern) {
  if (!has_glob(pattern)) return Kind::Literal;
  if (pattern.front() == '*' && !has_glob(pattern.substr(1))) return Kind::Suffix;
  if (pattern.size() > 1 && pattern.back() == '*' && !has_glob(pattern.substr(0, pattern.size() - 1)))
    return Kind::Prefix;  // "PREFIX*": a literal prefix, then anything without '/'
  return Kind::Glob;
}

bool has_slash(std::string_view s) {
  for (char c : s)
    if (c == '/') return true;
  return false;
}

bool match(std::string_view pattern, Kind kind, std::string_view name) {
  if (kind == Kind::Literal) return pattern == name;
  if (kind == Kind::Suffix && !has_slash(name)) return name.ends_with(pattern.substr(1));
  if (kind == Kind::Prefix) {
    const std::string_view prefix = pattern.substr(0, pattern.size() - 1);
    return name.starts_with(prefix) && !has_slash(name.substr(prefix.size()));
  }
  char pb[512], nb[1024];
  if (pattern.size() < sizeof pb && name.size() < sizeof nb) {
    std::memcpy(pb, pattern.data(), pattern.size());
    pb[pattern.size()] = 0;
    std::memcpy(nb, name.data(), name.size());
    nb[name.size()] = 0;
    return ::fnmatch(pb, nb, FNM_PATHNAME) == 0;
  }
  return ::fnmatch(std::string(pattern).c_str(), std::string(name).c_str(), FNM_PATHNAME) == 0;
}

// pattern_applies for paths of more than 128 components.
bool applies_deep(std::string_view pattern, Kind kind, bool anchored, bool dir_only, std::string_view relpath,
                  bool is_dir) {
  const std::vector<std::string> parts = components(relpath);
  std::string prefix;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    prefix += (prefix.empty() ? "" : "/") + parts[i];
    const bool dir = i + 1 < parts.size() || is_dir;
    if (dir_only && !dir) continue;
    if (match(pattern, kind, anchored ? std::string_view(prefix) : std::string_view(parts[i]))) return true;
  }
  return false;
}

}  // namespace

bool pattern_matches(std::string_view pattern, std::string_view name) {
  return match(pattern, kind_of(pattern), name);
}

bool pattern_applies(std::string_view pattern, std::string_view relpath, bool is_dir) {
  bool dir_only = pattern.ends_with("/");
  while (pattern.ends_with("/")) pattern.remove_suffix(1);
  bool anchored = has_slash(pattern);
  while (pattern.starts_with("/")) pattern.remove_prefix(1);
  if (pattern.empty()) return false;
  const Kind kind = kind_of(pattern);
  // The components as components() gives them (no empty ones, no "."), without copies.
  constexpr std::size_t kMax = 128;
  std::array<std::string_view, kMax> parts;
  std::size_t n = 0;
  for (std::size_t i = 0; i < relpath.size();) {
    while (i < relpath.size() && relpath[i] == '/') ++i;
    std::size_t j = i;
    while (j < relpath.size() && relpath[j] != '/') ++j;
    if (j > i && relpath.substr(i, j - i) != ".") {
      if (n == kMax) return applies_deep(pattern, kind, anchored, dir_only, relpath, is_dir);
      parts[n++] = relpath.substr(i, j - i);
    }
    i = j;
  }
  std::string prefix;
  if (anchored) prefix.reserve(relpath.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (anchored) {
      if (!prefix.empty()) prefix += '/';
      prefix += parts[i];
    }
    // Every component but the last is a directory.
    bool dir = i + 1 < n || is_dir;
    if (dir_only && !dir) continue;
    if (match(pattern, kind, anchored ? std::string_view(prefix) : parts[i])) return true;
  }
  return false;
}

PathPattern::PathPattern(std::string_view pattern) : text_(pattern) {
  dir_only_ = pattern.ends_with("/");
  while (pattern.ends_with("/")) pattern.remove_suffix(1);
  anchored_ = has_slash(pattern);
  while (pattern.starts_with("/")) pattern.remove_prefix(1);
  body_ = pattern;
  if (!body_.empty()) kind_ = static_cast<std::uint8_t>(kind_of(body_));
}

bool PathPattern::applies(std::string_view relpath, bool is_dir) const {
  return pattern_applies(text_, relpath, is_dir);
}

bool PathPattern::applies_to_last(std::string_view relpath, bool is_dir) const {
  if (body_.empty()) return false;
  // For a path as the walks make it (names joined by single '/', no "." among them) the last
  // component, or the whole path, is what pattern_applies matches last. The ends are checked
  // here; the middle is the caller's promise (checking it would cost more than the match).
  if (relpath.empty() || relpath.front() == '/' || relpath.back() == '/' || relpath == "." ||
      relpath.starts_with("./") || relpath.ends_with("/."))
    return applies(relpath, is_dir);
  if (dir_only_ && !is_dir) return false;
  const std::size_t slash = relpath.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? relpath : relpath.substr(slash + 1);
  return match(body_, static_cast<Kind>(kind_), anchored_ ? relpath : last);
}

bool PathPattern::any(const std::vector<PathPattern>& list, std::string_view relpath, bool is_dir,
                      bool last) {
  for (const auto& p : list)
    if (last ? p.applies_to_last(relpath, is_dir) : p.applies(relpath, is_dir)) return true;
  return false;
}

}  // namespace rf::base
