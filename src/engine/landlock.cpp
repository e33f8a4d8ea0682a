// SPDX-License-Identifier: LGPL-2.1-or-later
// Landlock in the child: "shell off" (spec.exec_allow) lets only the listed files be executed:
// the command and its interpreters. The ruleset handles only the execute right, so everything
// else stays as the mounts made it.
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "ringfence/base/unique_fd.hpp"
#include "ringfence/engine/launch.hpp"
#include "steps.hpp"

namespace rf::engine {

int landlock_abi() {
  long v = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : static_cast<int>(v);
}

base::Status restrict_exec_in_child(const ChildContext& ctx) {
  const spec::Spec& spec = *ctx.spec;
  if (!spec.restrict_exec) return {};
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE;
  base::UniqueFd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0)));
  if (!ruleset.valid()) return base::errno_error("landlock_create_ruleset (shell off needs Landlock)");
  for (const auto& path : spec.exec_allow) {
    base::UniqueFd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (!fd.valid()) return base::errno_error("shell off: cannot open " + path);
    landlock_path_beneath_attr rule{};
    rule.allowed_access = LANDLOCK_ACCESS_FS_EXECUTE;
    rule.parent_fd = fd.get();
    if (::syscall(SYS_landlock_add_rule, ruleset.get(), LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
      return base::errno_error("landlock_add_rule " + path);
  }
  // no_new_privs is already set (step 1), which Landlock requires of an unprivileged caller.
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) return base::errno_error("landlock_restrict_self");
  return {};
}

}  // namespace rf::engine
