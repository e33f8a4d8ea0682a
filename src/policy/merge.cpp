// SPDX-License-Identifier: LGPL-2.1-or-later
// merge_programs: "return ALLOW" of each program becomes a jump to the next program.
#include "ringfence/policy/merge.hpp"

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cstring>

namespace rf::policy {

base::Result<BpfProgram> merge_programs(const std::vector<BpfProgram>& programs) {
  if (programs.empty()) return base::Error(0, "merge: no program to merge");
  std::vector<sock_filter> out;
  for (std::size_t p = 0; p < programs.size(); ++p) {
    const std::string& bytes = programs[p].bytes;
    if (bytes.empty() || bytes.size() % sizeof(sock_filter) != 0)
      return base::Error(0, "merge: program " + std::to_string(p) + " is not a whole number of instructions");
    std::vector<sock_filter> prog(bytes.size() / sizeof(sock_filter));
    std::memcpy(prog.data(), bytes.data(), bytes.size());
    const bool last = p + 1 == programs.size();
    for (std::size_t i = 0; i < prog.size(); ++i) {
      sock_filter& f = prog[i];
      if (BPF_CLASS(f.code) != BPF_RET) continue;
      if (BPF_RVAL(f.code) != BPF_K)
        return base::Error(0, "merge: program " + std::to_string(p) + " returns a computed value");
      if (last || f.k != SECCOMP_RET_ALLOW) continue;
      // Jump past the rest of this program: the next one starts right after it.
      f = sock_filter{static_cast<__u16>(BPF_JMP | BPF_JA), 0, 0, static_cast<__u32>(prog.size() - i - 1)};
    }
    out.insert(out.end(), prog.begin(), prog.end());
  }
  if (out.size() > BPF_MAXINSNS)
    return base::Error(0, "merge: " + std::to_string(out.size()) + " instructions, more than the kernel's " +
                              std::to_string(BPF_MAXINSNS));
  BpfProgram merged;
  merged.role = "merged";
  merged.bytes.assign(reinterpret_cast<const char*>(out.data()), out.size() * sizeof(sock_filter));
  return merged;
}

}  // namespace rf::policy
