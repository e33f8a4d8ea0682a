// SPDX-License-Identifier: LGPL-2.1-or-later
// Parses the text of one policy file into its lines (includes, @default, rules); resolving the
// includes and merging the files is the loader's job.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/policy/policy.hpp"

namespace rf::policy::detail {

// Limits that keep any input (the fuzzer's included) cheap to reject.
inline constexpr std::size_t kMaxFileBytes = 1 << 20;
inline constexpr std::size_t kMaxLineBytes = 4096;
inline constexpr std::size_t kMaxIncludePath = 256;
// The largest errno an action may return: the kernel caps errno at 4095 and libseccomp refuses
// SCMP_ACT_ERRNO(4095) itself.
inline constexpr int kMaxErrno = 4094;

struct ParsedRule {
  std::string syscall;
  Expr expr;
  std::string expr_text;
  std::optional<Action> action;  // unset: allow (no expression) or the profile's @default
  std::string comment;           // the trailing `# ...` text, trimmed
};

struct Line {
  enum class Kind { Include, Default, Rule };
  Kind kind = Kind::Rule;
  int line = 0;
  std::string include;  // Include: the path as written
  Action action;        // Default
  ParsedRule rule;      // Rule
};

// An error "file:line: message", the form every policy error takes.
base::Error error_at(std::string_view file, int line, const std::string& message);

// The lines of `text` that say something, in order. `file` names it in error messages.
base::Result<std::vector<Line>> parse_policy(std::string_view text, std::string_view file);

}  // namespace rf::policy::detail
