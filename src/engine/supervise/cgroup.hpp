// SPDX-License-Identifier: LGPL-2.1-or-later
// The sandbox's own cgroup (native mode, --limit memory/pids/cpu): located from
// /proc/self/cgroup and mountinfo, created beside nothing else of the host (a child of this
// process's group), the limits written, the command moved in by itself before exec (it writes
// "0" to a cgroup.procs fd the launcher opened, or the launcher moves it while its root is
// built), and after the run everything in it killed and
// the group removed. cgroup v2 where this process's group is delegated; else the v1 controller
// where its directory is writable (root on a v1 or hybrid host).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/engine/launch.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

// Where one controller lives for this process: the hierarchy's version and this process's
// group directory in it (mount point + path below the mount's root).
struct CgroupHome {
  std::string controller;  // "memory", "pids", "cpu"
  int version = 0;         // 1 or 2; 0 when not found
  std::string dir;         // e.g. "/sys/fs/cgroup/user.slice/x.scope" or "/sys/fs/cgroup/memory/ci"
};

// Pure: the v2 group (version 2, controller "") and each v1 controller's group, from the text of
// /proc/self/cgroup and /proc/self/mountinfo. A hierarchy that is not mounted, or whose mount
// root does not contain our path (another cgroup namespace), is left out.
base::Result<std::vector<CgroupHome>> locate_cgroups(std::string_view proc_cgroup,
                                                     std::string_view mountinfo);

class SandboxCgroup {
public:
  // Creates the group(s) and writes the limits; an Error names the file and the errno text.
  // Nothing is left behind on failure.
  static base::Result<std::unique_ptr<SandboxCgroup>> create(const spec::CgroupLimits& limits);
  ~SandboxCgroup();
  SandboxCgroup(const SandboxCgroup&) = delete;
  SandboxCgroup& operator=(const SandboxCgroup&) = delete;

  // O_WRONLY|O_CLOEXEC fds of each group's cgroup.procs, for join_cgroups_in_child.
  const std::vector<int>& procs_fds() const { return procs_fds_; }
  void close_procs_fds();
  // Launcher side: moves process `pid` (which has not forked yet) into every group, then closes
  // the fds. A move costs the kernel an RCU grace period (5-18 ms measured on cgroup v1), which
  // this lets the launcher wait out while the child builds its root.
  base::Status move_in(pid_t pid);
  // Whether the memory controller killed a process for the limit (memory.events oom_kill, v1
  // memory.oom_control oom_kill).
  [[nodiscard]] bool oom_killed() const;
  // SIGKILL to every process left in the groups (cgroup.kill where the kernel has it), then the
  // groups removed. Safe to call twice; the destructor calls it.
  base::Status finish();

private:
  SandboxCgroup() = default;
  struct Group {
    int version = 0;
    std::string dir;
    bool memory = false;
  };
  std::vector<Group> groups_;
  std::vector<int> procs_fds_;
  bool finished_ = false;
};

// Child side: join the sandbox's groups (write "0" to each fd), then close the fds.
base::Status join_cgroups_in_child(const std::vector<int>& procs_fds);

}  // namespace rf::engine
