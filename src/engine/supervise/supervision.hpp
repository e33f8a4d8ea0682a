// SPDX-License-Identifier: LGPL-2.1-or-later
// Everything that watches a started sandbox from the launcher, behind one interface, for every
// level: the forwarded signals (a signalfd), the launcher's parent (a pidfd), the timeout, the
// connect and listen policy (supervisor.hpp), the cgroup of --limit (cgroup.hpp) and, in the
// kernel jail, the masks for names created after the start (mask_watch.hpp). The launch
// (launch_phases.hpp) drives it through its phases:
//   prepare        before the clone: each part the Spec asks for is made now, so its errors are
//                  setup errors; the child's ends go into the ChildContext
//   in_child       in the child, right after the clone
//   spawned        in the launcher, right after the clone: the child's ends closed
//   start_late_masks  kernel jail, while the child waits at sync point 1
//   move_into_cgroup  kernel jail with sync point 2, once the child is released from point 1
//   late_masks_before_start  kernel jail, while the child waits at sync point 2 (its root done)
//   watch          the monitor, until the outcome is known
//   finish         the outcome completed (out of memory), the cgroup emptied and removed, a
//                  late-mask breach reported
#pragma once

#include <sys/types.h>

#include <memory>

#include "../context.hpp"
#include "cgroup.hpp"
#include "mask_watch.hpp"
#include "monitor.hpp"
#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/engine/launch.hpp"
#include "ringfence/spec/spec.hpp"
#include "supervisor.hpp"
#include "terminal.hpp"

namespace rf::engine {

class Supervision {
public:
  // The forwarded signals are blocked from here on (the caller's mask is kept in ctx.sigmask for
  // the child to restore, ctx.restore_sigmask set).
  static base::Result<std::unique_ptr<Supervision>> prepare(const spec::Spec& spec, ChildContext& ctx);
  ~Supervision();
  Supervision(const Supervision&) = delete;
  Supervision& operator=(const Supervision&) = delete;

  void in_child();
  // Before the clone, kernel jail with sync point 2 and no fork before it: the launcher, not the
  // child, moves the child into the cgroup (move_into_cgroup), while the child builds its root.
  void cgroup_from_launcher(ChildContext& ctx);
  void spawned();
  // With cgroup_from_launcher: the child (pid) is moved into the sandbox's groups; it waits at
  // sync point 2 meanwhile or soon, and has not forked. An error means it must not start.
  base::Status move_into_cgroup(pid_t pid);
  // The child (pid) waits at sync point 1: the late masks open the sandbox's namespaces now
  // (later a non-dumpable process's /proc entries are closed to an unprivileged launcher), fork
  // their helper, before any launcher thread runs, and start their first walk of the project. An
  // error means the sandbox must not start: the masks could not be kept.
  base::Status start_late_masks(pid_t pid);
  // The child waits at sync point 2, its root complete: returns once every masked name the
  // project holds is covered inside; an error means the sandbox must not start (it was killed).
  base::Status late_masks_before_start();
  // Monitors the sandbox: `w` holds the status pipe and the pid; the supervision's own parts are
  // filled in here.
  base::Result<Outcome> watch(Watch w);
  base::Result<Outcome> finish(base::Result<Outcome> out);
  // Forwarded signals that arrived after the sandbox ended (read and dropped, so that restoring
  // the caller's signal mask does not deliver them to the launcher).
  void drain_signals();

private:
  Supervision() = default;

  const spec::Spec* spec_ = nullptr;
  base::UniqueFd parent_fd_;
  base::UniqueFd signal_fd_;
  std::shared_ptr<Supervisor> connect_;
  base::UniqueFd notify_child_;  // the child's end of the listener hand-off socket
  std::unique_ptr<SandboxCgroup> cgroup_;
  bool cgroup_by_launcher_ = false;
  std::unique_ptr<MaskWatch> late_masks_;
  std::unique_ptr<TerminalRelay> terminal_;
};

}  // namespace rf::engine
