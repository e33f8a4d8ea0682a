// SPDX-License-Identifier: LGPL-2.1-or-later
// Capabilities with libcap, following bwrap's rules (docs/compat-bwrap.md, "Capabilities").
#include <sys/capability.h>
#include <sys/prctl.h>

#include <cerrno>

#include "steps.hpp"

namespace rf::engine {
namespace {

// Capability numbers run from 0 up; the kernel answers EINVAL past its last one, so loops stop
// there instead of probing the count first (libcap's cap_max_bits costs a handful of prctls).
constexpr int kMaxCaps = 64;

std::uint64_t requested_caps(const ChildContext& ctx) {
  std::uint64_t set = ctx.privileged ? ctx.caller_caps : 0;
  std::uint64_t all = ~0ull;  // capset keeps only the capabilities the kernel has
  for (const auto& op : ctx.spec->cap_ops) {
    std::uint64_t bits = op.cap < 0 ? all : (1ull << op.cap);
    set = op.add ? (set | bits) : (set & ~bits);
  }
  // Outside a new user namespace nothing beyond the caller's own set can be had: --cap-add
  // ALL means all the caller has. (bwrap passes the unclamped set to capset, which then fails
  // with EPERM, and goes on with the caller's capabilities unchanged, ignoring any --cap-drop;
  // ringfence applies the request. See docs/compat-bwrap.md.)
  if (!ctx.ns.user && !ctx.spec->userns_fd) set &= ctx.caller_caps;
  return set & all;
}

base::Status set_caps(std::uint64_t set, bool inheritable) {
  cap_t c = cap_init();
  if (c == nullptr) return base::errno_error("cap_init");
  for (int i = 0; i < kMaxCaps; ++i) {
    if ((set & (1ull << i)) == 0) continue;
    cap_value_t v = i;
    if (cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET) != 0) break;  // beyond libcap's table
    cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_SET);
    if (inheritable) cap_set_flag(c, CAP_INHERITABLE, 1, &v, CAP_SET);
  }
  int rc = cap_set_proc(c);
  int saved = errno;
  cap_free(c);
  if (rc != 0) return base::Error(saved, "capset failed");
  return {};
}

}  // namespace

std::uint64_t caller_effective_caps_from_parent() {
  cap_t c = cap_get_proc();
  if (c == nullptr) return 0;
  std::uint64_t set = 0;
  for (int i = 0; i < kMaxCaps; ++i) {
    cap_flag_value_t v = CAP_CLEAR;
    if (cap_get_flag(c, i, CAP_EFFECTIVE, &v) != 0) break;
    if (v == CAP_SET) set |= 1ull << i;
  }
  cap_free(c);
  return set;
}

base::Status drop_caps_in_child(const ChildContext& ctx) {
  // Root without --cap-add/--cap-drop and without a user namespace keeps its capabilities, and
  // capset is never called (some containers' seccomp profiles deny it). In a user namespace
  // root keeps the caller's effective set, without ambient capabilities.
  bool explicit_caps = !ctx.privileged || !ctx.spec->cap_ops.empty();
  bool own_userns = ctx.ns.user || ctx.spec->userns_fd;
  if (!explicit_caps && !own_userns) return {};
  std::uint64_t set = requested_caps(ctx);
  if (own_userns) {
    // In a user namespace the bounding set goes down to the requested set, so exec of
    // uid 0 (--uid 0) cannot regain what was dropped.
    for (int i = 0; i < kMaxCaps; ++i) {
      if ((set & (1ull << i)) != 0) continue;
      if (cap_drop_bound(i) == 0) continue;
      if (errno == EINVAL) break;  // past the kernel's last capability
      return base::errno_error("Dropping capability " + std::to_string(i) + " from bounds");
    }
  }
  // With --cap-add/--cap-drop the set also goes to inheritable and ambient, so a non-root
  // command keeps it across exec; root in a user namespace without them gets neither.
  if (auto s = set_caps(set, explicit_caps); !s) return s;
  if (!explicit_caps) return {};
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return base::errno_error("Clearing ambient capabilities");
  for (int i = 0; i < kMaxCaps; ++i) {
    if ((set & (1ull << i)) == 0) continue;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, i, 0, 0) == 0) continue;
    if (errno == EINVAL) break;  // past the kernel's last capability
    // EPERM: not in permitted+inheritable (beyond libcap's table); bwrap ignores it too.
  }
  return {};
}

void drop_all_caps_in_child() {
  // The reaper never execs, so emptying permitted (and ambient) is enough: the bounding set
  // only limits what an exec could gain.
  cap_t c = cap_init();
  if (c != nullptr) {
    cap_set_proc(c);  // EPERM is ignored, as for a root caller in the host namespace
    cap_free(c);
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
}

}  // namespace rf::engine
