// SPDX-License-Identifier: LGPL-2.1-or-later
// One launch of a sandbox, in four phases shared by every level (kernel, landlock, soft):
//   prepare  everything that can fail before a process exists: the child's context (for the
//            kernel jail: the namespaces, bind sources read, the --seccomp data, the caller's
//            capabilities), the status pipe, the supervision (supervise/supervision.hpp), the
//            reaper program; the caller's process state is saved first
//   spawn    clone3 into the namespaces (kernel) or fork (landlock, soft); the child runs the
//            recipe (recipe.hpp) and never returns
//   sync     the launcher's side of sync point 1 (kernel): late masks, --userns2, --pidns's
//            pid, bwrap's status fds, --userns-block-fd, then the child goes on; with late
//            masks, sync point 2: once the child's root is complete, every masked name covered
//   watch    the monitor until the outcome; then the supervision's finish (cgroup, breach) and,
//            for the jails, whatever the command left behind killed
// The level-specific parts live with their level: launcher.cpp (kernel), soft.cpp (the jails).
// The destructor kills and reaps a child that was spawned but not watched to its end, and
// restores the caller's process state: signal mask (forwarded signals that arrived late are
// dropped first), SIGCHLD disposition, death signal, subreaper flag. What cannot be restored:
// --userns and --userns2 move the launcher into the sandbox's user namespace for good (as
// bwrap's monitor does); a caller that embeds the engine runs such a launch in a process of its
// own.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <memory>

#include "context.hpp"
#include "recipe.hpp"
#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/engine/launch.hpp"
#include "ringfence/spec/owned_fds.hpp"
#include "ringfence/spec/spec.hpp"
#include "supervise/supervision.hpp"

namespace rf::engine {

class Launch {
public:
  Launch(const spec::Spec& spec, spec::OwnedFds& fds);
  ~Launch();
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;

  base::Status prepare();
  base::Status spawn();
  base::Status sync();
  base::Result<Outcome> watch();

private:
  // The caller's process state the launch changes, and puts back.
  struct CallerState {
    bool saved = false;
    sigset_t mask{};
    struct sigaction sigchld {};
    int death_signal = 0;
    int subreaper = 0;
  };
  void save_caller_state();
  void restore_caller_state();
  void abandon();

  // launcher.cpp: the kernel jail.
  base::Status prepare_kernel();
  base::Status spawn_kernel();
  base::Status sync_kernel();
  base::Status sync_masks();
  // soft.cpp: the landlock and soft jails.
  base::Status prepare_jail();
  base::Status spawn_jail();
  void finish_jail();

  const spec::Spec& spec_;
  spec::OwnedFds& fds_;
  Level level_;
  ChildContext ctx_;
  CallerState caller_;
  std::unique_ptr<Supervision> supervision_;
  base::UniqueFd status_rd_, status_wr_;
  base::UniqueFd go_rd_, go_wr_;                  // sync point 1 (kernel, when the launcher has a step)
  base::UniqueFd masks_sync_, masks_sync_child_;  // sync point 2 (kernel, with late masks)
  base::UniqueFd pid_rd_, pid_wr_;                // --pidns: the final process's pid
  base::UniqueFd reaper_fd_;                      // the program pid 1 execs
  pid_t clone_pid_ = -1;                          // our child
  pid_t pid_ = -1;                                // the sandbox process (after --pidns, maybe not our child)
  bool ours_ = true;                              // pid_ is our child
  bool pid_known_ = true;                         // --pidns: false when the child failed before sending it
  bool watched_ = false;
};

}  // namespace rf::engine
