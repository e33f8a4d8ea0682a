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

}  // namespace rf::base
