// SPDX-License-Identifier: LGPL-2.1-or-later
// The launcher's watch over a started sandbox: the status pipe (setup errors, exec notice, the
// command's status from pid 1), and in native mode signals to forward, a timeout and the
// launcher's own parent.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/engine/launch.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

class Supervisor;

struct Watch {
  pid_t pid = -1;
  bool ours = true;     // pid is our child (not so for pid 1 of a namespace under --pidns)
  bool reaper = false;  // pid is a pid-1 reaper: killing it ends every process of the sandbox
  int status_rd = -1;
  int json_fd = -1;  // --json-status-fd, or -1
  // A setup failure's message: bwrap's text as it is, or (native wording) prefixed with the
  // failing step, "sandbox setup failed at <step>: ".
  bool bwrap_messages = true;
  // Native mode (null in bwrap mode): the signalfd of the forwarded signals, a pidfd of the
  // launcher's parent (or -1), and the settings.
  const spec::Supervision* supervision = nullptr;
  int signal_fd = -1;
  int parent_fd = -1;
  bool new_session = false;
  // The connect policy's supervisor (native mode, network on), or null.
  Supervisor* supervisor = nullptr;
};

// Native mode, before the clone: a pidfd of the launcher's parent (when the settings watch it)
// and the forwarded signals blocked and read from a signalfd (the mask before is kept in
// `old_mask` for the child to restore). Shared by every level's launch.
struct WatchFds {
  base::UniqueFd parent;
  base::UniqueFd signals;
};
base::Result<WatchFds> open_watch_fds(const spec::Supervision& sup, sigset_t& old_mask, bool& blocked);

// Waits until the outcome is known. In native mode nothing of the sandbox outlives this call.
base::Result<Outcome> monitor(const Watch& w);

// waitpid with EINTR retried; the status in bwrap's encoding.
base::Result<int> wait_child(pid_t pid);

}  // namespace rf::engine
