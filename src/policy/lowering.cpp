// SPDX-License-Identifier: LGPL-2.1-or-later
// Conditions as cube sets. Each atom is a set of disjoint (mask, value) cubes on one argument.
// A condition is expanded one argument at a time: the argument's values are split into regions
// where its atoms are constant, regions with the same remaining condition are merged, and the
// rest recurses. Trying the argument orders keeps "x not in {a, b} || (x == c && y != 0)" small.
#include <algorithm>
#include <bit>
#include <map>
#include <string>
#include <utility>

#include "lowering.hpp"
#include "parser.hpp"

namespace rf::policy::detail {

namespace {

constexpr std::size_t kMaxIntermediate = 4096;  // chains from one expansion order
constexpr std::size_t kMaxWork = 1 << 20;       // cube operations per expansion order
constexpr std::size_t kMaxTotalWork = 1 << 21;  // ... and for all the orders tried on one rule
constexpr std::size_t kMaxRegions = 256;        // value regions of one argument
constexpr std::size_t kMaxMerge = 512;          // cubes of one argument still worth merging
constexpr int kMaxOrders = 8;                   // argument orders tried (all of them up to 3 args)

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

// Joins cubes that differ in exactly one bit of their common mask, pass after pass until no
// pair is left. Only cubes with the same mask can pair up, so each pass looks within groups of
// equal masks (v sorted, unique; Cube orders by mask first).
void join_siblings(Cubes& v, std::size_t& work) {
  for (bool changed = true; changed && work <= kMaxWork;) {
    changed = false;
    work += v.size() * static_cast<std::size_t>(std::bit_width(v.size()));
    std::vector<bool> used(v.size(), false);
    Cubes next;
    for (std::size_t lo = 0, hi = 0; lo < v.size(); lo = hi) {
      while (hi < v.size() && v[hi].mask == v[lo].mask) ++hi;
      for (std::size_t i = lo; i < hi && hi - lo > 1; ++i) {
        for (std::uint64_t bits = v[i].mask; bits != 0 && !used[i]; bits &= bits - 1) {
          ++work;
          const std::uint64_t b = bits & (~bits + 1);  // lowest set bit
          const Cube partner{v[i].mask, v[i].value ^ b};
          auto it = std::lower_bound(v.begin() + static_cast<std::ptrdiff_t>(lo),
                                     v.begin() + static_cast<std::ptrdiff_t>(hi), partner);
          std::size_t j = static_cast<std::size_t>(it - v.begin());
          if (j == hi || v[j] != partner || used[j]) continue;
          used[i] = used[j] = changed = true;
          next.push_back({v[i].mask & ~b, v[i].value & ~b});
        }
      }
      for (std::size_t i = lo; i < hi; ++i)
        if (!used[i]) next.push_back(v[i]);
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    v = std::move(next);
  }
}

// Makes a set of disjoint cubes smaller without changing it: pairs that differ in one bit
// become one cube. (Every cube set here is disjoint: atoms give disjoint cubes, and
// intersections, differences and unions of disjoint regions keep them so; so no cube covers
// another.) Its cost is charged to `work`.
void merge(Cubes& v, std::size_t& work) {
  work += v.size() * static_cast<std::size_t>(std::bit_width(v.size()));  // the sort
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.size() <= kMaxMerge) join_siblings(v, work);
}

// a minus k, as disjoint cubes: for each bit k fixes and a does not, most significant first,
// the cube that agrees with k above that bit and differs at it.
void subtract(const Cube& a, const Cube& k, Cubes& out, std::size_t& work) {
  if (((a.value ^ k.value) & a.mask & k.mask) != 0) {  // disjoint: all of a stays
    out.push_back(a);
    return;
  }
  std::uint64_t prefix = 0;
  for (int b = 63; b >= 0; --b) {
    const std::uint64_t bit = std::uint64_t{1} << b;
    if ((k.mask & ~a.mask & bit) == 0) continue;
    ++work;
    out.push_back({a.mask | prefix | bit, a.value | (k.value & prefix) | (~k.value & bit)});
    prefix |= bit;
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
  [[nodiscard]] std::size_t work() const { return work_; }

private:
  bool regions(const std::vector<int>& ids, std::vector<std::pair<Cubes, std::vector<bool>>>& out);
  Form assign(const Form& f, const std::vector<int>& ids, const std::vector<bool>& values) const;
  bool meet(const Cubes& a, const Lit& lit, bool yes, Cubes& out);

  const std::vector<Lit>& lits_;
  std::size_t work_ = 0;
};

// out = a AND (yes ? lit's cubes : its complement). One side of every literal is a single
// cube, so this is an intersection with or a subtraction of one cube.
bool Expander::meet(const Cubes& a, const Lit& lit, bool yes, Cubes& out) {
  const Cubes& with = yes ? lit.yes : lit.no;
  const Cubes& without = yes ? lit.no : lit.yes;
  out.clear();
  if (with.size() != 1 && without.size() == 1) {
    for (const auto& x : a) subtract(x, without[0], out, work_);
  } else {
    for (const auto& x : a) {
      for (const auto& y : with) {
        ++work_;
        Cube c = x;
        if (intersect(c, y)) out.push_back(c);
      }
    }
  }
  return work_ <= kMaxWork;
}

// The regions of the argument's value space on which every literal in `ids` is constant.
bool Expander::regions(const std::vector<int>& ids, std::vector<std::pair<Cubes, std::vector<bool>>>& out) {
  out.assign(1, {Cubes{Cube{}}, {}});
  for (int id : ids) {
    std::vector<std::pair<Cubes, std::vector<bool>>> next;
    for (const auto& [cubes, values] : out) {
      for (bool v : {true, false}) {
        Cubes part;
        if (!meet(cubes, lits_[id], v, part)) return false;
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
    // Chains may overlap: where a weaker remainder holds, this one may claim the values too.
    // The widened set is the whole argument minus the regions it may not claim; it often lets
    // the argument go unconstrained ("a0 == 1 || a1 == 1": 2 chains, not 65), and is kept when
    // it takes fewer cubes.
    Cubes cubes = own, wide{Cube{}};
    merge(cubes, work_);
    bool worth = true;  // false once the widened set is larger than the plain one: given up
    for (const auto& [other, more] : groups) {
      if (other == rest || implies(rest, other)) continue;
      for (std::size_t i = 0; i < more.size() && worth; ++i) {
        Cubes left;
        for (const auto& w : wide) subtract(w, more[i], left, work_);
        wide = std::move(left);
        worth = wide.size() <= cubes.size() && work_ <= kMaxWork;
      }
    }
    if (worth) {
      merge(wide, work_);
      if (wide.size() < cubes.size()) cubes = std::move(wide);
    }
    std::vector<Chain> sub;
    if (work_ > kMaxWork) return false;
    if (!expand(rest, order, next, sub)) return false;
    if (out.size() + cubes.size() * sub.size() > kMaxIntermediate) return false;
    work_ += cubes.size() * sub.size();
    for (const auto& c : cubes) {
      for (Chain s : sub) {
        s.args[static_cast<std::size_t>(arg)] = c;
        out.push_back(s);
      }
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
  // No more orders once a result needs no more chains than the comparisons' own cubes.
  std::size_t good_enough = 0;
  for (const auto& clause : f.clauses)
    for (int l : clause) good_enough += lits[static_cast<std::size_t>(l)].yes.size();
  std::vector<Chain> best;
  bool found = false;
  std::size_t total = 0;
  int tries = 0;
  do {
    Expander e(lits);
    std::vector<Chain> chains;
    const bool ok = e.expand(f, order, 0, chains);
    total += e.work();
    if (!ok) continue;
    normalise(chains);
    if (!found || chains.size() < best.size()) best = std::move(chains);
    found = true;
  } while (++tries < kMaxOrders && total < kMaxTotalWork && !(found && best.size() <= good_enough) &&
           std::next_permutation(order.begin(), order.end()));
  if (!found) return too_complex(r, "too many");
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
