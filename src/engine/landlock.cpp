// SPDX-License-Identifier: LGPL-2.1-or-later
// Landlock in the child, two independent layers:
// - the landlock level (spec.jail, Jail::Landlock): a filesystem ruleset over the host's tree, since there is
//   no mount namespace: each rule gives rights on a path and everything beneath it, and every
//   other path is refused. The handled rights follow the kernel's ABI (best effort: a right the
//   kernel does not know is neither handled nor granted), and at ABI 6 and later abstract unix
//   sockets and signals are scoped to the sandbox.
// - "shell off" (spec.restrict_exec): a ruleset that handles only the execute right, allowing
//   only the command and its interpreters. It serves the kernel jail too, where the mounts confine
//   everything else. Stacked on the first, it narrows execution further: Landlock allows an
//   access only when every layer allows it.
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "ringfence/base/kernel.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/engine/launch.hpp"
#include "steps.hpp"

namespace rf::engine {
namespace {

// The kernel headers of the build host may predate the later ABIs: the values are fixed by the
// kernel's UAPI, so they are spelled out here.
constexpr std::uint64_t kExecute = 1ull << 0;
constexpr std::uint64_t kWriteFile = 1ull << 1;
constexpr std::uint64_t kReadFile = 1ull << 2;
constexpr std::uint64_t kReadDir = 1ull << 3;
constexpr std::uint64_t kRemoveDir = 1ull << 4;
constexpr std::uint64_t kRemoveFile = 1ull << 5;
constexpr std::uint64_t kMakeChar = 1ull << 6;
constexpr std::uint64_t kMakeDir = 1ull << 7;
constexpr std::uint64_t kMakeReg = 1ull << 8;
constexpr std::uint64_t kMakeSock = 1ull << 9;
constexpr std::uint64_t kMakeFifo = 1ull << 10;
constexpr std::uint64_t kMakeBlock = 1ull << 11;
constexpr std::uint64_t kMakeSym = 1ull << 12;
constexpr std::uint64_t kRefer = 1ull << 13;             // ABI 2
constexpr std::uint64_t kTruncate = 1ull << 14;          // ABI 3
constexpr std::uint64_t kIoctlDev = 1ull << 15;          // ABI 5
constexpr std::uint64_t kScopeAbstractUnix = 1ull << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ull << 1;        // ABI 6

// Rights that apply to a file (the others only make sense on a directory; the kernel refuses
// them in a rule for a file).
constexpr std::uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

// struct landlock_ruleset_attr as of ABI 6; older kernels get the prefix they know.
struct RulesetAttr {
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;  // ABI 4
  std::uint64_t scoped = 0;              // ABI 6
};

// What the kernel of this ABI can handle.
std::uint64_t handled_for_abi(int abi) {
  std::uint64_t fs = kExecute | kWriteFile | kReadFile | kReadDir | kRemoveDir | kRemoveFile | kMakeChar |
                     kMakeDir | kMakeReg | kMakeSock | kMakeFifo | kMakeBlock | kMakeSym;
  if (abi >= 2) fs |= kRefer;
  if (abi >= 3) fs |= kTruncate;
  if (abi >= 5) fs |= kIoctlDev;
  return fs;
}

std::uint64_t rights_of(unsigned r) {
  using R = spec::Spec::FsRule;
  std::uint64_t out = 0;
  if (r & R::Read) out |= kReadFile | kReadDir;
  // Never the device-making rights: no rule grants mknod.
  if (r & R::Write)
    out |= kWriteFile | kTruncate | kRemoveDir | kRemoveFile | kMakeDir | kMakeReg | kMakeSock | kMakeFifo |
           kMakeSym | kRefer;
  if (r & R::Execute) out |= kExecute;
  if (r & R::Ioctl) out |= kIoctlDev;
  return out;
}

}  // namespace

int landlock_abi() {
  const int v = base::raw::landlock_abi();  // errno is left set for the caller's message
  return v < 0 ? 0 : v;
}

base::Status restrict_fs_in_child(const ChildContext& ctx) {
  const spec::Spec& spec = *ctx.spec;
  if (spec.jail != spec::Jail::Landlock) return {};
  const int abi = landlock_abi();
  if (abi < 1)
    return base::errno_error("the landlock level needs Landlock, which this kernel does not offer");
  RulesetAttr attr;
  attr.handled_access_fs = handled_for_abi(abi);
  // Network rights stay unhandled on purpose: Landlock's TCP rules cover bind and connect of
  // TCP only (not UDP, not sends), and the launcher performs allowed connects itself; the
  // connect policy (seccomp user notifications) is what decides the network.
  std::size_t size = sizeof(std::uint64_t);
  if (abi >= 4) size = 2 * sizeof(std::uint64_t);
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnix | kScopeSignal;
    size = sizeof attr;
  }
  base::UniqueFd ruleset(base::raw::landlock_create_ruleset(&attr, size, 0));
  if (!ruleset.valid()) return base::errno_error("landlock_create_ruleset (ABI " + std::to_string(abi) + ")");
  for (const auto& rule : spec.landlock_rules) {
    base::UniqueFd fd(::open(rule.path.c_str(), O_PATH | O_CLOEXEC));
    if (!fd.valid()) {
      if (rule.allow_missing && (errno == ENOENT || errno == ENOTDIR)) continue;
      return base::errno_error("landlock rule: cannot open " + rule.path);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return base::errno_error("landlock rule: cannot stat " + rule.path);
    std::uint64_t access = rights_of(rule.rights) & attr.handled_access_fs;
    if (!S_ISDIR(st.st_mode)) access &= kFileRights;
    if (access == 0) continue;
    landlock_path_beneath_attr pb{};
    pb.allowed_access = access;
    pb.parent_fd = fd.get();
    if (base::raw::landlock_add_rule(ruleset.get(), LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
      return base::errno_error("landlock_add_rule " + rule.path);
  }
  // no_new_privs is already set, which Landlock requires of a caller without CAP_SYS_ADMIN.
  if (base::raw::landlock_restrict_self(ruleset.get(), 0) != 0)
    return base::errno_error("landlock_restrict_self");
  return {};
}

base::Status restrict_exec_in_child(const ChildContext& ctx) {
  const spec::Spec& spec = *ctx.spec;
  if (!spec.restrict_exec) return {};
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE;
  base::UniqueFd ruleset(base::raw::landlock_create_ruleset(&attr, sizeof attr, 0));
  if (!ruleset.valid()) return base::errno_error("landlock_create_ruleset (shell off needs Landlock)");
  for (const auto& path : spec.exec_allow) {
    base::UniqueFd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (!fd.valid()) return base::errno_error("shell off: cannot open " + path);
    landlock_path_beneath_attr rule{};
    rule.allowed_access = LANDLOCK_ACCESS_FS_EXECUTE;
    rule.parent_fd = fd.get();
    if (base::raw::landlock_add_rule(ruleset.get(), LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
      return base::errno_error("landlock_add_rule " + path);
  }
  // no_new_privs is already set (step 1), which Landlock requires of an unprivileged caller.
  if (base::raw::landlock_restrict_self(ruleset.get(), 0) != 0)
    return base::errno_error("landlock_restrict_self");
  return {};
}

}  // namespace rf::engine
