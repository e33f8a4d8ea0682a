// SPDX-License-Identifier: LGPL-2.1-or-later
// Conditions as cube sets. Each atom is a set of disjoint (mask, value) cubes on one argument.
// A condition is expanded one argument at a time: the argument's values are split into regions
// where its atoms are constant, regions with the same remaining condition are merged, and the
// rest recurses. Trying the argument orders keeps "x not in {a, b} || (x == c && y != 0)" small.
#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "lowering.hpp"
#include "parser.hpp"

namespace rf::policy::detail {

namespace {

constexpr std::size_t kMaxIntermediate = 4096;  // chains from one expansion order
constexpr std::size_t kMaxWork = 1 << 18;       // cube intersections per expansion order
constexpr std::size_t kMaxRegions = 256;        // value regions of one argument
constexpr std::size_t kMaxMerge = 512;          // cubes of one argument still worth merging
constexpr int kMaxOrders = 24;                  // argument orders tried

using Cubes = std::vector<Cube>;

std::uint64_t full(int width) { return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1; }

// Disjoint cubes covering "x & mask != value": bits above the first difference equal, that bit
// flipped (most significant first).
void differ_cubes(std::uint64_t mask, std::uint64_t value, Cubes& out) {
  std::uint64_t prefix = 0;
  for (int b = 63; b >= 0; --b) {
    std::uint64_t bit = std::uint64_t{1} << b;
    if ((mask & bit) == 0) continue;
    out.push_back({prefix | bit, (value & prefix) | (~value & bit)});
    prefix |= bit;
  }
}

// The cubes of an atom (or of its negation) on an argument of `width` bits.
Cubes atom_cubes(const Atom& a, int width, bool negate) {
  const std::uint64_t f = full(width);
  enum class K { Eq, Ne, Any } k = K::Eq;
  std::uint64_t m = a.mask & f, v = a.value & f;
  switch (a.op) {
    case CmpOp::Eq: k = K::Eq, m = f; break;
    case CmpOp::Ne: k = K::Ne, m = f; break;
    case CmpOp::MaskedEq: k = K::Eq; break;
    case CmpOp::MaskedNe: k = K::Ne; break;
    case CmpOp::AnyBit: k = K::Any; break;
    case CmpOp::In: k = K::Eq, m = ~a.mask & f, v = 0; break;
  }
  if (negate) {
    if (k == K::Any)
      k = K::Eq, v = 0;
    else
      k = k == K::Eq ? K::Ne : K::Eq;
  }
  Cubes out;
  if (k == K::Eq) {
    if ((v & ~m) == 0) out.push_back({m, v});
  } else if (k == K::Ne) {
    if ((v & ~m) != 0)
      out.push_back({0, 0});
    else
      differ_cubes(m, v, out);
  } else {
    differ_cubes(m, 0, out);  // some bit of m set
  }
  return out;
}

bool intersect(Cube& c, const Cube& k) {
  if (((c.value ^ k.value) & c.mask & k.mask) != 0) return false;
  c.mask |= k.mask;
  c.value |= k.value;
  return true;
}

// Every value `x` admits is admitted by `y`.
bool within(const Cube& x, const Cube& y) { return (y.mask & ~x.mask) == 0 && (x.value & y.mask) == y.value; }

bool within(const Chain& a, const Chain& b) {
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (!within(a.args[i], b.args[i])) return false;
  return true;
}

// Drops duplicates and covered cubes, and joins pairs that differ in exactly one bit.
void merge(Cubes& v) {
  for (bool changed = true; changed;) {
    changed = false;
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (v.size() > kMaxMerge) return;
    std::vector<bool> drop(v.size(), false);
    for (std::size_t i = 0; i < v.size(); ++i) {
      for (std::size_t j = 0; j < v.size() && !drop[i]; ++j) {
        if (i == j || drop[j]) continue;
        std::uint64_t diff = v[i].value ^ v[j].value;
        if (within(v[i], v[j])) {
          drop[i] = true;
        } else if (v[i].mask == v[j].mask && diff != 0 && (diff & (diff - 1)) == 0) {
          v[j] = {v[j].mask & ~diff, v[j].value & ~diff};
          drop[i] = changed = true;
        }
      }
    }
    std::size_t out = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!drop[i]) v[out++] = v[i];
    v.resize(out);
  }
}

// Drops duplicate chains and chains another one covers; "always" becomes one empty chain.
void normalise(std::vector<Chain>& v) {
  for (const auto& c : v)
    if (c.unconstrained()) {
      v.assign(1, Chain{});
      return;
    }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.size() > kMaxMerge) return;
  std::vector<bool> drop(v.size(), false);
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = 0; j < v.size() && !drop[i]; ++j)
      if (i != j && !drop[j] && within(v[i], v[j])) drop[i] = true;
  std::size_t out = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!drop[i]) v[out++] = v[i];
  v.resize(out);
}

struct Lit {
  int arg = 0;
  Cubes yes;  // where it holds
  Cubes no;   // where it fails
};

// A two-level formula over literal ids: OR of ANDs (dnf) or AND of ORs (cnf). Canonical form:
// clauses sorted; the constants are kTrue (dnf with one empty clause) and kFalse (empty dnf).
struct Form {
  bool cnf = false;
  std::vector<std::vector<int>> clauses;
  friend auto operator<=>(const Form&, const Form&) = default;
};

const Form kTrue{false, {{}}};
const Form kFalse{false, {}};

Form canonical(Form f) {
  for (auto& c : f.clauses) {
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    if (c.empty()) return f.cnf ? kFalse : kTrue;
  }
  if (f.clauses.empty()) return f.cnf ? kTrue : kFalse;
  std::sort(f.clauses.begin(), f.clauses.end());
  f.clauses.erase(std::unique(f.clauses.begin(), f.clauses.end()), f.clauses.end());
  return f;
}

// Whether g implies h, by a sufficient syntactic test: h is true, or every term of g contains
// a term of h (dnf), or every clause of h contains a clause of g (cnf).
bool implies(const Form& g, const Form& h) {
  if (h == kTrue || g == kFalse) return true;
  if (g.cnf != h.cnf) return false;
  auto contains = [](const std::vector<int>& big, const std::vector<int>& small) {
    return std::includes(big.begin(), big.end(), small.begin(), small.end());
  };
  const auto& outer = g.cnf ? h.clauses : g.clauses;
  const auto& inner = g.cnf ? g.clauses : h.clauses;
  return std::all_of(outer.begin(), outer.end(), [&](const std::vector<int>& o) {
    return std::any_of(inner.begin(), inner.end(), [&](const std::vector<int>& i) { return contains(o, i); });
  });
}

// Expands one formula for one argument order; gives up (false) past the work limits.
class Expander {
public:
  explicit Expander(const std::vector<Lit>& lits) : lits_(lits) {}
  bool expand(const Form& f, const std::vector<int>& order, std::size_t next, std::vector<Chain>& out);

private:
  bool regions(const std::vector<int>& ids, std::vector<std::pair<Cubes, std::vector<bool>>>& out);
  Form assign(const Form& f, const std::vector<int>& ids, const std::vector<bool>& values) const;
  bool meet(const Cubes& a, const Cubes& b, Cubes& out);

  const std::vector<Lit>& lits_;
  std::size_t work_ = 0;
};

bool Expander::meet(const Cubes& a, const Cubes& b, Cubes& out) {
  out.clear();
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (++work_ > kMaxWork) return false;
      Cube c = x;
      if (intersect(c, y)) out.push_back(c);
    }
  }
  merge(out);
  return true;
}

// The regions of the argument's value space on which every literal in `ids` is constant.
bool Expander::regions(const std::vector<int>& ids, std::vector<std::pair<Cubes, std::vector<bool>>>& out) {
  out.assign(1, {Cubes{Cube{}}, {}});
  for (int id : ids) {
    std::vector<std::pair<Cubes, std::vector<bool>>> next;
    for (const auto& [cubes, values] : out) {
      for (bool v : {true, false}) {
        Cubes part;
        if (!meet(cubes, v ? lits_[id].yes : lits_[id].no, part)) return false;
        if (part.empty()) continue;
        next.emplace_back(std::move(part), values);
        next.back().second.push_back(v);
      }
    }
    if (next.size() > kMaxRegions) return false;
    out = std::move(next);
  }
  return true;
}

// The formula with the literals `ids` fixed to `values` (ids sorted).
Form Expander::assign(const Form& f, const std::vector<int>& ids, const std::vector<bool>& values) const {
  Form out{f.cnf, {}};
  for (const auto& clause : f.clauses) {
    std::vector<int> kept;
    bool drop = false;
    for (int l : clause) {
      auto it = std::lower_bound(ids.begin(), ids.end(), l);
      if (it == ids.end() || *it != l) {
        kept.push_back(l);
        continue;
      }
      // A false literal ends a dnf term; a true one satisfies a cnf clause. Otherwise it goes.
      if (values[static_cast<std::size_t>(it - ids.begin())] == f.cnf) drop = true;
      if (drop) break;
    }
    if (!drop) out.clauses.push_back(std::move(kept));
  }
  return canonical(std::move(out));
}

bool Expander::expand(const Form& f, const std::vector<int>& order, std::size_t next,
                      std::vector<Chain>& out) {
  if (f == kFalse) return true;
  if (f == kTrue) {
    out.emplace_back();
    return true;
  }
  std::vector<int> ids;
  int arg = -1;
  for (; next < order.size() && ids.empty(); ++next) {
    arg = order[next];
    for (const auto& c : f.clauses)
      for (int l : c)
        if (lits_[l].arg == arg) ids.push_back(l);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::pair<Cubes, std::vector<bool>>> parts;
  if (ids.empty() || !regions(ids, parts)) return false;
  std::map<Form, Cubes> groups;
  for (const auto& [cubes, values] : parts) {
    Cubes& g = groups[assign(f, ids, values)];
    g.insert(g.end(), cubes.begin(), cubes.end());
  }
  for (const auto& [rest, own] : groups) {
    if (rest == kFalse) continue;
    // Chains may overlap: where a weaker remainder holds, this one may claim the values too,
    // which often lets the argument go unconstrained ("a0 == 1 || a1 == 1": 2 chains, not 65).
    Cubes cubes = own;
    for (const auto& [other, more] : groups)
      if (other != rest && implies(rest, other)) cubes.insert(cubes.end(), more.begin(), more.end());
    merge(cubes);
    std::vector<Chain> sub;
    if (!expand(rest, order, next, sub)) return false;
    for (const auto& c : cubes) {
      for (Chain s : sub) {
        s.args[static_cast<std::size_t>(arg)] = c;
        out.push_back(s);
      }
      if (out.size() > kMaxIntermediate) return false;
    }
  }
  return true;
}

base::Error too_complex(const Rule& r, const std::string& count) {
  return error_at(r.loc.file, r.loc.line,
                  "expression too complex for " + r.syscall + " (" + count + " rules, limit " +
                      std::to_string(kMaxChains) + ")");
}

// The rule's condition (or its negation) as a formula over literals, equal atoms shared.
Form formula(const Rule& r, bool negate, std::vector<Lit>& lits) {
  std::map<std::pair<int, Cubes>, int> ids;
  Form f{negate, {}};
  for (const auto& term : r.expr.terms) {
    std::vector<int> clause;
    for (const auto& atom : term) {
      int width = arg_width(r.syscall, atom.arg);
      Cubes yes = atom_cubes(atom, width, negate);
      auto [it, fresh] = ids.try_emplace({atom.arg, yes}, static_cast<int>(lits.size()));
      if (fresh) lits.push_back({atom.arg, std::move(yes), atom_cubes(atom, width, !negate)});
      clause.push_back(it->second);
    }
    f.clauses.push_back(std::move(clause));
  }
  return canonical(std::move(f));
}

base::Result<ChainSet> lower(const Rule& r, bool negate) {
  std::vector<Lit> lits;
  Form f = formula(r, negate, lits);
  std::vector<int> order;
  for (const auto& l : lits)
    if (std::find(order.begin(), order.end(), l.arg) == order.end()) order.push_back(l.arg);
  std::sort(order.begin(), order.end());
  std::vector<Chain> best;
  bool found = false;
  int tries = 0;
  do {
    std::vector<Chain> chains;
    if (!Expander(lits).expand(f, order, 0, chains)) continue;
    normalise(chains);
    if (!found || chains.size() < best.size()) best = std::move(chains);
    found = true;
  } while (++tries < kMaxOrders && std::next_permutation(order.begin(), order.end()));
  if (!found) return too_complex(r, "over " + std::to_string(kMaxIntermediate));
  if (best.size() > kMaxChains) return too_complex(r, std::to_string(best.size()));
  return ChainSet{std::move(best)};
}

}  // namespace

bool Chain::unconstrained() const {
  return std::all_of(args.begin(), args.end(), [](const Cube& c) { return c.mask == 0; });
}

base::Result<ChainSet> holds_chains(const Rule& r) {
  if (r.expr.empty()) return ChainSet{{Chain{}}};
  return lower(r, false);
}

base::Result<ChainSet> fails_chains(const Rule& r) {
  if (r.expr.empty()) return ChainSet{};
  return lower(r, true);
}

ChainSet for_compat_arch(const ChainSet& set) {
  constexpr std::uint64_t kLow = 0xffffffff;
  std::vector<Chain> out;
  for (Chain c : set.chains) {
    bool possible = true;
    for (auto& cube : c.args) {
      if ((cube.value & ~kLow) != 0) possible = false;
      cube.mask &= kLow;
    }
    if (possible) out.push_back(c);
  }
  normalise(out);
  return ChainSet{std::move(out)};
}

base::Status check_lowering(const Rule& rule, const Action& dflt) {
  if (rule.expr.empty()) return {};
  if (rule.action == dflt) {
    if (dflt.kind == ActionKind::Allow) return {};
    RF_TRY(holds_chains(rule));
  } else if (rule.action.kind != ActionKind::Allow) {
    RF_TRY(fails_chains(rule));
  }
  return {};
}

}  // namespace rf::policy::detail
