// SPDX-License-Identifier: LGPL-2.1-or-later
// Policy -> libseccomp -> classic BPF. Two programs: "main" (default = @default) allows; "refine"
// (default allow) applies the else-actions that differ from @default. The kernel keeps the most
// restrictive result of all installed programs, which makes the pair exact.
#include <linux/filter.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <utility>
#include <vector>

#include "lowering.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/policy/policy.hpp"

namespace rf::policy {

namespace {

using detail::ChainSet;

constexpr std::size_t kMaxInstructions = 4096;  // BPF_MAXINSNS: the kernel refuses longer programs

enum class Role { Main, Refine };

// Owns a libseccomp filter context.
class Filter {
public:
  Filter() = default;
  explicit Filter(scmp_filter_ctx c) : ctx_(c) {}
  Filter(Filter&& o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)) {}
  Filter& operator=(Filter&& o) noexcept {
    std::swap(ctx_, o.ctx_);
    return *this;
  }
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;
  ~Filter() {
    if (ctx_ != nullptr) seccomp_release(ctx_);
  }
  [[nodiscard]] scmp_filter_ctx get() const { return ctx_; }
  void forget() { ctx_ = nullptr; }

private:
  scmp_filter_ctx ctx_ = nullptr;
};

// What a contribution's chains stand for: a plain set, or where the rule's condition holds or
// fails (those depend on the arguments, which i386 lays out differently for some calls).
enum class Over { Plain, Holds, Fails };

// One rule's share of one program: `action` wherever `set` holds (native argument widths).
struct Contribution {
  const Rule* rule = nullptr;
  std::uint32_t action = SCMP_ACT_ALLOW;
  ChainSet set;
  Over over = Over::Plain;
};

// i386 calls that share a name with an x86_64 call but not its arguments: old_mmap and
// old_select take one pointer to a struct. A condition cannot be checked there, so it counts
// as false (the else-action applies); 32-bit libc uses mmap2 and _newselect instead.
bool compat_args_differ(const std::string& syscall) { return syscall == "mmap" || syscall == "select"; }

// The chains for a 32-bit compat architecture.
ChainSet compat_set(const Contribution& c) {
  if (c.over != Over::Plain && compat_args_differ(c.rule->syscall))
    return c.over == Over::Holds ? ChainSet{} : ChainSet{{detail::Chain{}}};
  return detail::for_compat_arch(c.set);
}

base::Error scmp_error(int rc, const std::string& call) { return base::Error(-rc, call); }

std::uint32_t scmp_action(const Action& a) {
  switch (a.kind) {
    case ActionKind::Allow: return SCMP_ACT_ALLOW;
    case ActionKind::Errno: return SCMP_ACT_ERRNO(static_cast<std::uint32_t>(a.errno_value));
    case ActionKind::Kill: return SCMP_ACT_KILL_PROCESS;
    case ActionKind::Log: return SCMP_ACT_LOG;
  }
  return SCMP_ACT_KILL_PROCESS;
}

// The native architecture, plus i386 on x86_64 (x32 is left out, so its numbers hit bad-arch).
std::vector<std::uint32_t> architectures() {
  std::vector<std::uint32_t> out{seccomp_arch_native()};
  if (out[0] == SCMP_ARCH_X86_64) out.push_back(SCMP_ARCH_X86);
  return out;
}

// Whether a syscall exists on an architecture. Negative numbers from -100 to -999 are calls
// that i386 multiplexes through socketcall or ipc: libseccomp rewrites those itself.
bool on_arch(std::uint32_t arch, const std::string& name) {
  int nr = seccomp_syscall_resolve_name_arch(arch, name.c_str());
  return nr >= 0 || (nr <= -100 && nr > -1000);
}

base::Result<Filter> new_filter(std::uint32_t dflt, std::uint32_t arch) {
  Filter f(seccomp_init(dflt));
  if (f.get() == nullptr) return base::Error(EINVAL, "seccomp_init");
  if (arch != seccomp_arch_native()) {
    if (int rc = seccomp_arch_remove(f.get(), SCMP_ARCH_NATIVE); rc < 0)
      return scmp_error(rc, "seccomp_arch_remove");
    if (int rc = seccomp_arch_add(f.get(), arch); rc < 0) return scmp_error(rc, "seccomp_arch_add");
  }
  const std::pair<scmp_filter_attr, std::uint32_t> attrs[] = {
      {SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS},
      {SCMP_FLTATR_CTL_NNP, 0},       // the engine sets no_new_privs itself
      {SCMP_FLTATR_CTL_OPTIMIZE, 2},  // binary tree of syscall numbers
  };
  for (const auto& [attr, value] : attrs)
    if (int rc = seccomp_attr_set(f.get(), attr, value); rc < 0) return scmp_error(rc, "seccomp_attr_set");
  return f;
}

// What a rule adds to one program, if anything.
using Maybe = std::optional<Contribution>;

base::Result<Maybe> contribution(const Rule& r, Role role, const Action& dflt) {
  const bool allow_by_default = dflt.kind == ActionKind::Allow;
  if (r.expr.empty()) {
    if (role == Role::Main && r.action != dflt)
      return Maybe(Contribution{&r, scmp_action(r.action), {{detail::Chain{}}}});
    return Maybe();
  }
  if (r.action == dflt) {  // falls to @default anyway: main allows where the condition holds
    if (role != Role::Main || allow_by_default) return Maybe();
    RF_TRY_ASSIGN(set, detail::holds_chains(r));
    return Maybe(Contribution{&r, SCMP_ACT_ALLOW, std::move(set), Over::Holds});
  }
  if (role == Role::Main) {  // main lets it through; refine denies where the condition fails
    if (allow_by_default) return Maybe();
    return Maybe(Contribution{&r, SCMP_ACT_ALLOW, {{detail::Chain{}}}});
  }
  if (r.action.kind == ActionKind::Allow) return Maybe();
  RF_TRY_ASSIGN(set, detail::fails_chains(r));
  return Maybe(Contribution{&r, scmp_action(r.action), std::move(set), Over::Fails});
}

base::Status add_chains(Filter& f, const Contribution& c, const ChainSet& set) {
  const Rule& r = *c.rule;
  int nr = seccomp_syscall_resolve_name(r.syscall.c_str());
  for (const auto& chain : set.chains) {
    scmp_arg_cmp cmps[6];
    unsigned n = 0;
    for (unsigned i = 0; i < 6; ++i) {
      if (chain.args[i].mask == 0) continue;
      cmps[n] = scmp_arg_cmp{i, SCMP_CMP_MASKED_EQ, chain.args[i].mask, chain.args[i].value};
      ++n;
    }
    if (int rc = seccomp_rule_add_array(f.get(), c.action, nr, n, cmps); rc < 0)
      return scmp_error(rc, "seccomp_rule_add(" + r.syscall + ") for " + r.loc.str());
  }
  return {};
}

// i386's socketcall and ipc carry the real call in an argument no filter can see through (the
// socket family, the IPC key), so they answer ENOSYS and libc uses the direct calls. Added last:
// a rule without compares replaces the conditional ones libseccomp derived from socket() etc.
base::Status add_multiplexers(Filter& f, std::uint32_t dflt) {
  const std::uint32_t enosys = SCMP_ACT_ERRNO(ENOSYS);
  if (dflt == enosys) return {};  // then the refine program supplies the override
  for (const char* name : {"socketcall", "ipc"})
    if (int rc = seccomp_rule_add(f.get(), enosys, seccomp_syscall_resolve_name(name), 0); rc < 0)
      return scmp_error(rc, std::string("seccomp_rule_add(") + name + ")");
  return {};
}

base::Result<Filter> build(const std::vector<Contribution>& parts, std::uint32_t dflt) {
  Filter merged;
  for (std::uint32_t arch : architectures()) {
    RF_TRY_ASSIGN(f, new_filter(dflt, arch));
    const bool compat = arch != seccomp_arch_native();
    for (const auto& c : parts) {
      if (!on_arch(arch, c.rule->syscall)) continue;
      ChainSet set = compat ? compat_set(c) : c.set;
      if (set.never() || c.action == dflt) continue;
      RF_TRY(add_chains(f, c, set));
    }
    if (arch == SCMP_ARCH_X86 && compat) RF_TRY(add_multiplexers(f, dflt));
    if (merged.get() == nullptr) {
      merged = std::move(f);
      continue;
    }
    if (int rc = seccomp_merge(merged.get(), f.get()); rc < 0) return scmp_error(rc, "seccomp_merge");
    f.forget();  // seccomp_merge released it
  }
  return merged;
}

// The filters to install, in order.
base::Result<std::vector<std::pair<Role, Filter>>> build_all(const Policy& p) {
  // KILL_PROCESS and LOG need API level 3. A host that hides seccomp() from libseccomp's probe
  // must not change what the compiler emits: the program runs elsewhere, later.
  if (seccomp_api_get() < 3) (void)seccomp_api_set(3);
  std::vector<std::pair<Role, Filter>> out;
  for (Role role : {Role::Main, Role::Refine}) {
    std::vector<Contribution> parts;
    for (const auto& r : p.rules) {
      RF_TRY_ASSIGN(c, contribution(r, role, p.default_action));
      if (c) parts.push_back(std::move(*c));
    }
    const bool compat_override =
        architectures().size() > 1 && p.default_action == Action{ActionKind::Errno, ENOSYS};
    if (role == Role::Refine && parts.empty() && !compat_override) break;
    RF_TRY_ASSIGN(f, build(parts, role == Role::Main ? scmp_action(p.default_action) : SCMP_ACT_ALLOW));
    out.emplace_back(role, std::move(f));
  }
  return out;
}

const char* role_name(Role r) { return r == Role::Main ? "main" : "refine"; }

base::Result<std::string> export_filter(const Filter& f, int (*fn)(const scmp_filter_ctx, int),
                                        const char* call) {
  base::UniqueFd fd(memfd_create("rf-policy", MFD_CLOEXEC));
  if (!fd.valid()) return base::errno_error("memfd_create");
  if (int rc = fn(f.get(), fd.get()); rc < 0) return scmp_error(rc, call);
  if (lseek(fd.get(), 0, SEEK_SET) < 0) return base::errno_error("lseek");
  return base::read_all(fd.get());
}

}  // namespace

base::Result<std::vector<Program>> compile(const Policy& policy) {
  RF_TRY_ASSIGN(filters, build_all(policy));
  std::vector<Program> out;
  for (const auto& [role, f] : filters) {
    RF_TRY_ASSIGN(bytes, export_filter(f, seccomp_export_bpf, "seccomp_export_bpf"));
    std::size_t insns = bytes.size() / sizeof(sock_filter);
    if (bytes.size() % sizeof(sock_filter) != 0 || insns == 0)
      return base::Error(EINVAL, "seccomp_export_bpf: not a whole BPF program");
    if (insns > kMaxInstructions)
      return base::Error(E2BIG, "the " + std::string(role_name(role)) + " program of " + policy.name +
                                    " has " + std::to_string(insns) + " instructions (the kernel takes " +
                                    std::to_string(kMaxInstructions) + ")");
    out.push_back(Program{std::move(bytes), role_name(role)});
  }
  return out;
}

base::Result<std::string> pseudo_code(const Policy& policy) {
  RF_TRY_ASSIGN(filters, build_all(policy));
  std::string out;
  int n = 0;
  for (const auto& [role, f] : filters) {
    RF_TRY_ASSIGN(text, export_filter(f, seccomp_export_pfc, "seccomp_export_pfc"));
    out += "# program " + std::to_string(++n) + ": " + role_name(role) + "\n" + text;
  }
  return out;
}

}  // namespace rf::policy
