// SPDX-License-Identifier: LGPL-2.1-or-later
// ChildContext: everything the child needs, prepared by the launcher before clone so the
// child does no parsing, no host lookups and no decisions of its own.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ringfence/spec/owned_fds.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

struct ResolvedOp {
  spec::FsOp op;
  std::string host_source;  // realpath of the source (binds), empty when skipped/not a bind
  bool source_is_dir = false;
  bool skip = false;     // -try op whose source is missing
  std::string data;      // File/BindData: the fd's content, read by the launcher
  dev_t source_dev = 0;  // --bind-fd: identity of the fd's object, checked after mounting
  ino_t source_ino = 0;
};

struct ChildContext {
  const spec::Spec* spec = nullptr;
  // The descriptors the Spec names (the launcher's table); after clone, the child's copies, which
  // it closes through this table where bwrap closes them.
  spec::OwnedFds* fds = nullptr;
  spec::Namespaces ns;  // effective namespaces
  uid_t real_uid = 0, sandbox_uid = 0;
  gid_t real_gid = 0, sandbox_gid = 0;
  bool privileged = false;  // caller is uid 0
  // bwrap's devpts arrangement, with --dev in a user namespace and sandbox ids other than 0:
  // the first user namespace maps uid/gid 0 (devpts wants them) and setup runs as 0; a nested
  // one then maps the sandbox ids onto it. Also leaves the namespaces owned by a user namespace the command
  // is not root in.
  bool nested_userns = false;
  bool devpts_ids = false;   // the first user namespace maps 0 (see above)
  bool parent_step = false;  // the child waits for the launcher at sync point 1
  bool reaper = false;       // a pid-1 style reaper stays around the command
  int reaper_fd = -1;        // the reaper program pid 1 execs (memfd, CLOEXEC), or -1
  int go_fd = -1;            // sync point 1: one byte from the launcher (CLOEXEC)
  // Sync point 2, with late masks: a socket (CLOEXEC) on which the child says its root is
  // complete and waits for the launcher's byte once every masked name is covered; -1 without.
  int masks_sync_fd = -1;
  std::uint64_t caller_caps = 0;  // caller's effective capability set
  std::vector<ResolvedOp> ops;
  std::string old_cwd;                  // caller's cwd, tried inside the sandbox
  std::string home;                     // HOME after env ops
  std::vector<std::string> env;         // final environment (PWD added in the child)
  std::vector<spec::BpfBytes> seccomp;  // the Spec's programs, then the --seccomp fd's
  std::string console_tty;              // host tty for /dev/console when stdout is a terminal
  mode_t umask = 022;
  int status_fd = -1;            // write end of the launcher's pipe (CLOEXEC)
  sigset_t sigmask{};            // the caller's signal mask, restored in the child when
  bool restore_sigmask = false;  // the launcher blocked the signals it forwards
  int pid_sock = -1;             // --pidns: the final process sends its pid here (CLOEXEC)
  // Connect policy: the command's end of the listener hand-off socket (CLOEXEC) and the
  // user-notification filter, built by the launcher (see supervisor.hpp).
  int notify_sock = -1;
  std::string connect_filter;
  // spec.own_terminal with stdin a terminal: the pty's slave (CLOEXEC), made the controlling
  // terminal and fds 0-2 (those that were terminals) at the session step; -1 without.
  int terminal_slave = -1;
  // --limit memory/pids/cpu: cgroup.procs of the sandbox's groups (CLOEXEC); the child writes
  // "0" to each as its first step, so the command and all it starts are counted.
  std::vector<int> cgroup_procs_fds;
  // spec.hide_launcher_argv: the length of the launcher's argv strings (/proc/self/cmdline), blanked
  // in the child so that pid 1 does not show them.
  std::size_t argv_area_len = 0;
  // The launcher made itself non-dumpable (seal_launcher) and clones inherit that; without a
  // new PID namespace (clone_into unseals only around a clone into one) the child is dumpable
  // again at once, as the launcher was: writing its own id maps needs it.
  bool restore_dumpable = false;
};

}  // namespace rf::engine
