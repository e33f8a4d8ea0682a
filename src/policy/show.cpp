// SPDX-License-Identifier: LGPL-2.1-or-later
// The stable text form of a resolved policy (`policy show`): one line per decision, written in
// the policy language itself, followed by where it came from.
#include "constants.hpp"
#include "ringfence/policy/policy.hpp"

namespace rf::policy {

std::string to_string(const Action& action) {
  switch (action.kind) {
    case ActionKind::Allow: return "allow";
    case ActionKind::Kill: return "kill";
    case ActionKind::Log: return "log";
    case ActionKind::Errno: {
      std::string_view name = detail::errno_name(action.errno_value);
      return "errno " + (name.empty() ? std::to_string(action.errno_value) : std::string(name));
    }
  }
  return "?";
}

// # policy default (seccomp/profiles/default.policy)
// @default errno ENOSYS  # seccomp/profiles/default.policy:3
// ioctl: arg1 != TIOCSTI; errno EPERM  # seccomp/deny/always.policy:4 (replaces ...:9): reason
std::string show(const Policy& policy) {
  std::string out = "# policy " + policy.name + " (" + policy.origin + ")\n";
  out += "@default " + to_string(policy.default_action) + "  # " + policy.default_loc.str() + "\n";
  for (const auto& r : policy.rules) {
    out += r.syscall + ": ";
    out += r.expr.empty() ? to_string(r.action) : r.expr_text + "; " + to_string(r.action);
    out += "  # " + r.loc.str();
    if (!r.refines.empty()) out += " (replaces " + r.refines.str() + ")";
    if (!r.reason.empty()) out += ": " + r.reason;
    out += "\n";
  }
  return out;
}

}  // namespace rf::policy
