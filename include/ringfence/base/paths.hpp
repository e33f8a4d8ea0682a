// SPDX-License-Identifier: LGPL-2.1-or-later
// Lexical path helpers (no file-system access).
#pragma once

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

}  // namespace rf::base
