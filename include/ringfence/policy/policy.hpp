// SPDX-License-Identifier: LGPL-2.1-or-later
// The seccomp policy language: load a profile (from the embedded catalog or a file), inspect the
// resolved decision per syscall, and compile it to classic-BPF programs with libseccomp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/policy/bpf_program.hpp"

namespace rf::policy {

using base::Result;

// Where a line came from: its display name ("seccomp/groups/x.policy", or the path as given)
// and its 1-based line number.
struct SourceLoc {
  std::string file;
  int line = 0;
  [[nodiscard]] bool empty() const { return file.empty(); }
  [[nodiscard]] std::string str() const;  // "file:line"
  friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

enum class ActionKind { Allow, Errno, Kill, Log };

struct Action {
  ActionKind kind = ActionKind::Allow;
  int errno_value = 0;  // for Errno: 1..4094
  friend bool operator==(const Action&, const Action&) = default;
};

// "allow", "errno EPERM" (the number when it has no name), "kill", "log".
std::string to_string(const Action& action);

// One comparison of a syscall argument. Which bits take part depends on the argument's width
// (arg_width): a 32-bit argument is compared on its low half only.
enum class CmpOp {
  Eq,        // argN == value
  Ne,        // argN != value
  AnyBit,    // argN & mask          (some bit of mask is set)
  MaskedEq,  // argN & mask == value
  MaskedNe,  // argN & mask != value
  In,        // argN in mask         (no bit outside mask is set)
};

struct Atom {
  int arg = 0;  // 0..5
  CmpOp op = CmpOp::Eq;
  std::uint64_t mask = 0;   // AnyBit, MaskedEq, MaskedNe, In
  std::uint64_t value = 0;  // Eq, Ne, MaskedEq, MaskedNe
  friend bool operator==(const Atom&, const Atom&) = default;
};

// A condition in disjunctive form: OR of terms, each an AND of atoms. No terms: no condition.
struct Expr {
  std::vector<std::vector<Atom>> terms;
  [[nodiscard]] bool empty() const { return terms.empty(); }
};

// The resolved decision for one syscall.
//  - unconditional (expr empty): `action` always;
//  - conditional: allowed when `expr` holds, otherwise `action` (the else-action).
struct Rule {
  std::string syscall;
  std::string expr_text;  // the condition as written (normalised spacing); empty = unconditional
  Expr expr;
  Action action;
  SourceLoc loc;       // the line that decides
  std::string reason;  // the `# reason` of an always.policy rule
  bool from_always = false;
  SourceLoc refines;  // always.policy rules: the profile's own rule they replaced, if any
};

struct Policy {
  std::string name;    // profile name ("default"), or the file's stem
  std::string origin;  // display name of the top file
  Action default_action;
  SourceLoc default_loc;
  std::vector<Rule> rules;  // one per syscall, sorted by syscall name
};

// The rule for a syscall, or nullptr when the default applies.
const Rule* find_rule(const Policy& policy, std::string_view syscall);

// Width in bits (32 or 64) that compares on this syscall argument use. Arguments the kernel
// reads as int / unsigned int are 32-bit: junk in their upper half changes nothing.
int arg_width(std::string_view syscall, int arg);

// The embedded catalog (every file under seccomp/ at build time).
std::vector<std::string> catalog_profiles();  // names of profiles/*.policy, sorted
bool catalog_has(std::string_view relpath);   // e.g. "groups/file_io.policy"
std::vector<std::string> catalog_files();     // every relative path, sorted

// Loads a catalog profile by name ("default"), or a file when the argument contains '/' or
// ends in ".policy" (its includes resolve next to it first, then in the catalog). The
// catalog's deny/always.policy is applied in both cases.
Result<Policy> load(std::string_view name_or_path);
// Loads a profile from text (tests, fuzzing); includes resolve in the catalog. `origin` names
// the text in messages.
Result<Policy> load_text(std::string_view text, std::string origin);

using Program = BpfProgram;

// The programs to install, in order: "main", then "refine" when some rule needs it. The kernel
// runs all of them and the most restrictive result wins; install all or none.
Result<std::vector<Program>> compile(const Policy& policy);
// libseccomp's pseudo filter code (seccomp_export_pfc) of every program, for debugging.
Result<std::string> pseudo_code(const Policy& policy);
// A stable human-readable listing: the default, then one line per syscall with its decision,
// the line that decided it and, for always.policy rules, the reason.
std::string show(const Policy& policy);

}  // namespace rf::policy
