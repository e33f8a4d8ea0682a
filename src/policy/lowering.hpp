// SPDX-License-Identifier: LGPL-2.1-or-later
// Lowers a rule's condition onto libseccomp's model: chains of masked-equal compares, at most one
// per argument, whose union is exactly the condition (or its negation).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/policy/policy.hpp"

namespace rf::policy::detail {

// Above this many chains for one syscall in one program a rule is "too complex".
inline constexpr std::size_t kMaxChains = 512;

// Holds when (arg & mask) == value; mask 0 = no constraint.
struct Cube {
  std::uint64_t mask = 0;
  std::uint64_t value = 0;
  friend auto operator<=>(const Cube&, const Cube&) = default;
};

// One libseccomp rule: the AND of one cube per argument.
struct Chain {
  std::array<Cube, 6> args{};
  [[nodiscard]] bool unconstrained() const;
  friend auto operator<=>(const Chain&, const Chain&) = default;
};

// The OR of its chains. No chains: never holds. A set that always holds is normalised to the
// single unconstrained chain.
struct ChainSet {
  std::vector<Chain> chains;
  [[nodiscard]] bool always() const { return chains.size() == 1 && chains[0].unconstrained(); }
  [[nodiscard]] bool never() const { return chains.empty(); }
};

// The chains under which the rule's condition holds / does not hold. Errors name the rule's line
// when the result (or the work to get it) exceeds the limits.
base::Result<ChainSet> holds_chains(const Rule& rule);
base::Result<ChainSet> fails_chains(const Rule& rule);

// The same set for a 32-bit architecture (i386 under x86_64), where every argument arrives
// zero-extended: cubes that need an upper-half bit set drop out, the rest lose their upper half.
ChainSet for_compat_arch(const ChainSet& set);

// Checks that the rule lowers within the limits for a profile whose default is `dflt`.
base::Status check_lowering(const Rule& rule, const Action& dflt);

// For a unit test: the 32-bit argument table is sorted.
bool narrow_table_sorted();

}  // namespace rf::policy::detail
