// SPDX-License-Identifier: LGPL-2.1-or-later
// libFuzzer target for the seccomp policy language. Input: the text of a profile; its @include
// lines resolve in the embedded catalog. Whatever parses is compiled, and the result checked.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ringfence/policy/policy.hpp"

namespace {

using rf::policy::ActionKind;

bool valid_action(const rf::policy::Action& a) {
  if (a.kind == ActionKind::Errno) return a.errno_value >= 1 && a.errno_value <= 4094;
  return a.errno_value == 0;
}

// Properties of any loaded policy: a violation is a bug, not bad input.
void check_policy(const rf::policy::Policy& p) {
  if (!valid_action(p.default_action) || p.default_loc.line <= 0) __builtin_trap();
  for (std::size_t i = 0; i < p.rules.size(); ++i) {
    const auto& r = p.rules[i];
    if (r.syscall.empty() || !valid_action(r.action) || r.loc.file.empty() || r.loc.line <= 0)
      __builtin_trap();
    if (i > 0 && !(p.rules[i - 1].syscall < r.syscall)) __builtin_trap();  // sorted, one per syscall
    if (rf::policy::find_rule(p, r.syscall) != &r) __builtin_trap();
    if (r.expr.empty() != r.expr_text.empty()) __builtin_trap();
    if (r.from_always == r.reason.empty()) __builtin_trap();
    for (const auto& term : r.expr.terms) {
      if (term.empty()) __builtin_trap();
      for (const auto& atom : term)
        if (atom.arg < 0 || atom.arg > 5) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto policy = rf::policy::load_text(text, "fuzz.policy");
  if (!policy) {
    if (policy.error().message().empty()) __builtin_trap();
    return 0;
  }
  check_policy(*policy);
  std::string shown = rf::policy::show(*policy);
  if (shown.empty() || shown.back() != '\n') __builtin_trap();
  auto programs = rf::policy::compile(*policy);
  if (!programs) {
    // Only a program longer than the kernel takes may fail after a successful load.
    if (programs.error().code() != E2BIG) __builtin_trap();
    return 0;
  }
  if (programs->empty() || (*programs)[0].role != "main") __builtin_trap();
  for (const auto& prog : *programs)
    if (prog.bytes.empty() || prog.bytes.size() % 8 != 0) __builtin_trap();
  return 0;
}
