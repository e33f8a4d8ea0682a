// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence policy list|check|show|compile`: the policy layer's tools on the command line.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "ringfence/base/log.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/policy/merge.hpp"
#include "ringfence/policy/policy.hpp"

namespace rf::cli {
namespace {

void out(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

int fail(const base::Error& e) {
  base::log::error(e.describe_with_cause());
  return kExitUsage;
}

base::Status write_output(const std::string& path, const std::string& bytes) {
  if (path == "-") return base::write_all(STDOUT_FILENO, bytes);
  base::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return base::errno_error("cannot create " + path);
  if (auto w = base::write_all(fd.get(), bytes); !w) return w.error().reworded("cannot write " + path);
  return {};
}

// The whole profile as one program: bwrap's --seccomp takes exactly one.
base::Result<policy::BpfProgram> compile_one(const policy::Policy& p) {
  RF_TRY_ASSIGN(programs, policy::compile(p));
  return policy::merge_programs(programs);
}

}  // namespace

int run_policy_command(const PolicyCommand& cmd) {
  using Op = PolicyCommand::Op;
  if (cmd.op == Op::List) {
    for (const auto& name : policy::catalog_profiles()) out(name + "\n");
    return 0;
  }
  auto loaded = policy::load(cmd.target);
  if (!loaded) return fail(loaded.error());
  const policy::Policy& p = *loaded;
  switch (cmd.op) {
    case Op::Check: {
      auto programs = policy::compile(p);
      if (!programs) return fail(programs.error());
      std::size_t insns = 0;
      for (const auto& prog : *programs) insns += prog.bytes.size() / 8;
      out(p.origin + ": ok (" + std::to_string(p.rules.size()) + " rules, " +
          std::to_string(programs->size()) + " program" + (programs->size() == 1 ? "" : "s") + ", " +
          std::to_string(insns) + " instructions)\n");
      return 0;
    }
    case Op::Show: {
      if (!cmd.pseudo_code) {
        out(policy::show(p));
        return 0;
      }
      auto pfc = policy::pseudo_code(p);
      if (!pfc) return fail(pfc.error());
      out(*pfc);
      return 0;
    }
    case Op::Compile: {
      auto prog = compile_one(p);
      if (!prog) return fail(prog.error());
      if (auto w = write_output(cmd.output, prog->bytes); !w) return fail(w.error());
      return 0;
    }
    case Op::List: break;
  }
  return 0;
}

}  // namespace rf::cli
