// SPDX-License-Identifier: LGPL-2.1-or-later
// Lexical path helpers (no file-system access).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rf::base {

// Collapse "//", "/./" and trailing "/"; ".." is kept (it is resolved in-root, not lexically).
std::string normalize(std::string_view path);
// The components of a path, without empty and "." parts.
std::vector<std::string> components(std::string_view path);
// a + "/" + b, without doubled slashes.
std::string join(std::string_view a, std::string_view b);
// Path without its leading slashes ("/usr/bin" -> "usr/bin", "/" -> "").
std::string_view strip_leading_slashes(std::string_view path);
// The parent of a normalized absolute path ("/a/b" -> "/a", "/a" -> "/").
std::string parent(std::string_view path);
// Whether path is prefix or lies under prefix (lexical, component-wise).
bool is_under(std::string_view path, std::string_view prefix);

// Path patterns (the mask syntax, see presets/masks.hpp): fnmatch(3) with FNM_PATHNAME on one
// component, or on the whole relative path when the pattern holds a '/'; a trailing '/' matches
// directories only; a path under a matching directory matches with it.
bool pattern_matches(std::string_view pattern, std::string_view name);
bool pattern_applies(std::string_view pattern, std::string_view relpath, bool is_dir);

// One pattern, parsed once, for walks that test it against every name of a tree.
class PathPattern {
public:
  explicit PathPattern(std::string_view pattern);
  // pattern_applies(pattern, relpath, is_dir).
  [[nodiscard]] bool applies(std::string_view relpath, bool is_dir) const;
  // The same for a path none of whose parent directories the pattern applies to (a walk that
  // stops at, or keeps track of, the directories it applies to): only the last component is
  // matched, or the whole path for a pattern with a '/'. `relpath` is names joined by single
  // '/' (no empty or "." component), as a walk makes it.
  [[nodiscard]] bool applies_to_last(std::string_view relpath, bool is_dir) const;
  [[nodiscard]] const std::string& text() const { return text_; }
  // Whether one of `list` applies to relpath: applies_to_last() with `last`, else applies().
  [[nodiscard]] static bool any(const std::vector<PathPattern>& list, std::string_view relpath, bool is_dir,
                                bool last);

private:
  std::string text_;  // as given
  std::string body_;  // without the trailing and leading '/'
  std::uint8_t kind_ = 0;
  bool anchored_ = false, dir_only_ = false;
};

}  // namespace rf::base
