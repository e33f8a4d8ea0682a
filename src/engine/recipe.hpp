// SPDX-License-Identifier: LGPL-2.1-or-later
// The child recipe: one ordered table of steps from the clone (or fork) to the exec, run by the
// child of every level. Each step has its own stage (the step's name in messages), says why it
// sits where it does, and names the levels it runs at. The last step, the command, is the
// tail (death signal, rlimits, connect filter, seccomp, exec); a pid-1 reaper only wraps it.
// Every step returns a Status, and one failure path reports {stage, errno, message} on the
// status pipe and exits.
#pragma once

#include <signal.h>

#include <span>
#include <string>
#include <vector>

#include "context.hpp"
#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "sync.hpp"

namespace rf::engine {

// The level a child runs at: the kernel jail (namespaces, a new root), or no namespace at all
// with a Landlock ruleset (landlock) or without (soft).
enum class Level : unsigned { Kernel = 1, Landlock = 2, Soft = 4 };
inline constexpr unsigned kKernel = 1, kLandlock = 2, kSoft = 4;
inline constexpr unsigned kEveryLevel = kKernel | kLandlock | kSoft;

const char* level_name(Level level);

// What the steps share, from the first step to the exec.
struct RecipeState {
  const ChildContext* ctx = nullptr;
  Level level = Level::Kernel;
  base::UniqueFd host_proc;       // the host's /proc, for the nested maps (kernel jail)
  std::string pwd;                // PWD for the command; empty: none is added
  std::vector<std::string> env;   // the command's environment and arguments, and the arrays
  std::vector<std::string> args;  // over them, built before a pid-1 clone (which must not
  std::vector<char*> envp;        // allocate)
  std::vector<char*> argv;
  const char* file = nullptr;              // what execvp runs
  const sigset_t* exec_sigmask = nullptr;  // restored right before the exec, or null
  base::UniqueFd exec_guard;               // the loader guard's binfmt_misc mount, for pid 1 to hold
  // The egress allowlist: the sandbox's resolver sockets on its lo (CLOEXEC), handed to the
  // launcher with the connect filter's listener; -1 without.
  int resolver_udp = -1;
  int resolver_tcp = -1;
};

struct Step {
  Stage stage;  // reported when the step fails; stage_name(stage) is the step's name
  const char* name;
  unsigned levels;  // kKernel | kLandlock | kSoft
  const char* why;  // one line: why it sits here
  base::Status (*run)(RecipeState&);
};

// The recipe, in order; the last step is the command (the tail).
std::span<const Step> recipe_steps();
// The tail's own steps, in order; exec is last and returns only on failure.
std::span<const Step> command_steps();
inline bool runs_at(const Step& s, Level level) { return (s.levels & static_cast<unsigned>(level)) != 0; }

// The one failure path: the stage and error on the status pipe, then _exit(kChildSetupExit).
[[noreturn]] void fail_in_child(const RecipeState& st, Stage stage, const base::Error& e);

// Runs every step of the recipe that applies at st.level. Never returns.
[[noreturn]] void run_recipe_in_child(RecipeState& st);
// The tail in this process (the command step, or pid 2 under a reaper). Never returns.
[[noreturn]] void run_command_in_child(RecipeState& st);

// The steps, by where they live. child.cpp: the kernel jail's own steps and those every level
// shares; pid1.cpp: the pid-1 reaper around the tail.
base::Status step_dumpable(RecipeState& st);
base::Status step_cgroup(RecipeState& st);
base::Status step_title(RecipeState& st);
base::Status step_signal_mask(RecipeState& st);
base::Status step_death_signal(RecipeState& st);
base::Status step_pid_namespace(RecipeState& st);
base::Status step_sync_point(RecipeState& st);
base::Status step_no_new_privs(RecipeState& st);
base::Status step_setup_umask(RecipeState& st);
base::Status step_id_maps(RecipeState& st);
base::Status step_loopback(RecipeState& st);
base::Status step_new_root(RecipeState& st);
base::Status step_fs_ops(RecipeState& st);
base::Status step_pivot_root(RecipeState& st);
base::Status step_late_masks(RecipeState& st);
base::Status step_hostname(RecipeState& st);
base::Status step_userns2(RecipeState& st);
base::Status step_nested_userns(RecipeState& st);
base::Status step_switch_ids(RecipeState& st);
base::Status step_capabilities(RecipeState& st);
base::Status step_landlock(RecipeState& st);
base::Status step_exec_allowlist(RecipeState& st);
base::Status step_exec_guard(RecipeState& st);  // exec_guard.cpp
base::Status step_block_fd(RecipeState& st);
base::Status step_cwd(RecipeState& st);
base::Status step_session(RecipeState& st);
base::Status step_fds(RecipeState& st);
base::Status step_arguments(RecipeState& st);
base::Status step_pid1(RecipeState& st);

}  // namespace rf::engine
