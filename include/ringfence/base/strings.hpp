// SPDX-License-Identifier: LGPL-2.1-or-later
// String helpers shared by parsers and messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rf::base {

std::vector<std::string> split(std::string_view s, char sep);
bool starts_with(std::string_view s, std::string_view prefix);
// JSON string literal (with quotes) for s.
std::string json_quote(std::string_view s);
// The edit distance of two words (insertions, deletions, substitutions, transpositions of
// neighbours): how far a mistyped option or name is from a valid one.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace rf::base
