// SPDX-License-Identifier: LGPL-2.1-or-later
// The in-memory sources and the classic-BPF interpreter used by the policy tests.
#include "policy_test_util.hpp"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "loader.hpp"

namespace rf::test {

namespace {

using rf::policy::detail::CatalogEntry;
using rf::policy::detail::Sources;

// Views of the maps that live as long as the call.
struct MemSources {
  std::vector<CatalogEntry> entries;
  Sources sources;
  explicit MemSources(const MemPolicies& m) {
    for (const auto& [path, text] : m.catalog) entries.push_back({path, text});
    sources.catalog = entries;
    sources.read_file = [&m](const std::string& path) -> Result<std::string> {
      auto it = m.files.find(path);
      if (it == m.files.end()) return rf::base::Error(ENOENT, "open " + path);
      return it->second;
    };
  }
};

std::uint32_t load32(const SeccompData& d, std::uint32_t off) {
  if (off % 4 != 0 || off + 4 > sizeof d)
    throw std::runtime_error("bpf: bad load offset " + std::to_string(off));
  std::uint32_t v;
  std::memcpy(&v, reinterpret_cast<const char*>(&d) + off, 4);
  return v;
}

}  // namespace

Result<Policy> MemPolicies::load(std::string_view name_or_path) const {
  MemSources s(*this);
  return rf::policy::detail::load_from(s.sources, name_or_path);
}

Result<Policy> MemPolicies::load_text(std::string_view text, std::string origin) const {
  MemSources s(*this);
  return rf::policy::detail::load_text_from(s.sources, text, std::move(origin));
}

std::uint32_t run_bpf(const std::string& program, const SeccompData& data) {
  static_assert(sizeof(SeccompData) == sizeof(seccomp_data));
  std::vector<sock_filter> insns(program.size() / sizeof(sock_filter));
  if (insns.empty() || program.size() % sizeof(sock_filter) != 0)
    throw std::runtime_error("bpf: bad program size");
  std::memcpy(insns.data(), program.data(), program.size());
  std::uint32_t a = 0;
  for (std::size_t pc = 0; pc < insns.size(); ++pc) {
    const sock_filter& i = insns[pc];
    switch (i.code) {
      case BPF_LD | BPF_W | BPF_ABS: a = load32(data, i.k); break;
      case BPF_ALU | BPF_AND | BPF_K: a &= i.k; break;
      case BPF_JMP | BPF_JA: pc += i.k; break;
      case BPF_JMP | BPF_JEQ | BPF_K: pc += a == i.k ? i.jt : i.jf; break;
      case BPF_JMP | BPF_JGT | BPF_K: pc += a > i.k ? i.jt : i.jf; break;
      case BPF_JMP | BPF_JGE | BPF_K: pc += a >= i.k ? i.jt : i.jf; break;
      case BPF_JMP | BPF_JSET | BPF_K: pc += (a & i.k) != 0 ? i.jt : i.jf; break;
      case BPF_RET | BPF_K: return i.k;
      default: throw std::runtime_error("bpf: unknown instruction code " + std::to_string(i.code));
    }
  }
  throw std::runtime_error("bpf: ran off the end of the program");
}

std::uint32_t run_all(const std::vector<Program>& programs, const SeccompData& data) {
  // As seccomp_run_filters(): newest filter first, a later one wins only if strictly more
  // restrictive (the action compared as a signed number, KILL_PROCESS being negative).
  std::uint32_t ret = SECCOMP_RET_ALLOW;
  for (auto it = programs.rbegin(); it != programs.rend(); ++it) {
    std::uint32_t cur = run_bpf(it->bytes, data);
    auto rank = [](std::uint32_t r) { return static_cast<std::int32_t>(r & SECCOMP_RET_ACTION_FULL); };
    if (rank(cur) < rank(ret)) ret = cur;
  }
  return ret;
}

std::string action_name(std::uint32_t ret) {
  switch (ret & SECCOMP_RET_ACTION_FULL) {
    case SECCOMP_RET_ALLOW: return "allow";
    case SECCOMP_RET_ERRNO: return "errno " + std::to_string(ret & SECCOMP_RET_DATA);
    case SECCOMP_RET_KILL_PROCESS: return "kill-process";
    case SECCOMP_RET_KILL_THREAD: return "kill-thread";
    case SECCOMP_RET_LOG: return "log";
    case SECCOMP_RET_TRAP: return "trap";
    default: return "other " + std::to_string(ret);
  }
}

std::uint32_t arch_native() { return seccomp_arch_native(); }  // SCMP_ARCH_* are AUDIT_ARCH_*
std::uint32_t arch_i386() { return AUDIT_ARCH_I386; }

std::int32_t nr_of(std::string_view syscall, std::uint32_t arch) {
  const std::string name(syscall);
  int nr = seccomp_syscall_resolve_name_arch(arch, name.c_str());
  if (nr >= 0) return nr;
  // libseccomp names i386's socket and IPC calls by their multiplexed form; find the direct one.
  for (int n = 0; n < 1024; ++n) {
    char* found = seccomp_syscall_resolve_num_arch(arch, n);
    bool same = found != nullptr && name == found;
    std::free(found);
    if (same) return n;
  }
  throw std::runtime_error("no syscall " + name + " on this architecture");
}

Decider::Decider(const Policy& p) {
  auto r = rf::policy::compile(p);
  if (!r) throw std::runtime_error("compile: " + r.error().describe());
  programs = std::move(*r);
}

std::uint32_t Decider::operator()(std::string_view syscall, std::array<std::uint64_t, 6> args,
                                  std::uint32_t arch) const {
  SeccompData d;
  d.arch = arch == 0 ? arch_native() : arch;
  d.nr = nr_of(syscall, d.arch);
  d.args = args;
  return run_all(programs, d);
}

std::uint32_t ret_errno(int e) { return SECCOMP_RET_ERRNO | static_cast<std::uint32_t>(e); }
const std::uint32_t kRetAllow = SECCOMP_RET_ALLOW;
const std::uint32_t kRetKill = SECCOMP_RET_KILL_PROCESS;
const std::uint32_t kRetLog = SECCOMP_RET_LOG;

}  // namespace rf::test
