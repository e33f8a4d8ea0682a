// SPDX-License-Identifier: LGPL-2.1-or-later
// String helpers shared by parsers and messages.
#pragma once

#include <cstddef>
#include <cstdint>
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
// FNV-1a, 64 bits: a cache key (never a defence: what it keys is compared in full too).
std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = 0xcbf29ce484222325ull);
// 16 lowercase hex digits.
std::string hex64(std::uint64_t v);

}  // namespace rf::base
