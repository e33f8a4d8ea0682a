// SPDX-License-Identifier: LGPL-2.1-or-later
// Helpers for the policy tests: load from an in-memory catalog and file system, and run compiled
// programs through a small classic-BPF interpreter the way the kernel combines filters.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/policy/policy.hpp"

namespace rf::test {

using rf::base::Result;
using rf::policy::Policy;
using rf::policy::Program;

// A catalog (paths relative to seccomp/) and a file system, both in memory.
struct MemPolicies {
  std::map<std::string, std::string> catalog;
  std::map<std::string, std::string> files;
  [[nodiscard]] Result<Policy> load(std::string_view name_or_path) const;
  [[nodiscard]] Result<Policy> load_text(std::string_view text, std::string origin = "test.policy") const;
};

// The error message of a failed result, or "" when it succeeded.
template <typename T>
std::string error_of(const Result<T>& r) {
  return r ? std::string() : r.error().message();
}

// The kernel's struct seccomp_data.
struct SeccompData {
  std::int32_t nr = 0;
  std::uint32_t arch = 0;
  std::uint64_t instruction_pointer = 0;
  std::array<std::uint64_t, 6> args{};
};

// Runs one program; throws on an instruction the interpreter does not know.
std::uint32_t run_bpf(const std::string& program, const SeccompData& data);
// Runs every program and keeps the kernel's choice: the most restrictive action, and among
// equal actions the one of the most recently installed program.
std::uint32_t run_all(const std::vector<Program>& programs, const SeccompData& data);

// "allow", "errno 1", "kill-process", "log", ... for messages.
std::string action_name(std::uint32_t ret);

std::uint32_t arch_native();  // AUDIT_ARCH_* of this build
std::uint32_t arch_i386();
// The syscall's number on an AUDIT_ARCH_* architecture; throws when it has none there.
std::int32_t nr_of(std::string_view syscall, std::uint32_t arch);

// Compiles `p` (the test fails on error) and decides one call on an architecture.
struct Decider {
  explicit Decider(const Policy& p);
  std::uint32_t operator()(std::string_view syscall, std::array<std::uint64_t, 6> args = {},
                           std::uint32_t arch = 0) const;
  std::vector<Program> programs;
};

std::uint32_t ret_errno(int e);
extern const std::uint32_t kRetAllow;
extern const std::uint32_t kRetKill;
extern const std::uint32_t kRetLog;

}  // namespace rf::test
