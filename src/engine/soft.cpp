// SPDX-License-Identifier: LGPL-2.1-or-later
// The soft jail: the command runs as an ordinary child of the launcher with the rebuilt
// environment, no capabilities, no_new_privs and the seccomp programs. Alone it confines nothing
// on the filesystem, and the front end says so; at the landlock level a Landlock ruleset does
// (landlock.cpp). The child runs the recipe (recipe.cpp) at the soft or landlock level. The
// launcher is a subreaper so that nothing the command starts outlives it.
#include <dirent.h>
#include <fcntl.h>
#include <linux/securebits.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cgroup.hpp"
#include "monitor.hpp"
#include "recipe.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/log.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/spec/validate.hpp"
#include "steps.hpp"
#include "supervisor.hpp"
#include "sync.hpp"

namespace rf::engine {
namespace {

// Every process still parented to us (the command's orphans came to us as the subreaper).
std::vector<pid_t> our_children() {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end) continue;
    auto stat = base::read_file("/proc/" + std::string(e->d_name) + "/stat");
    if (!stat) continue;
    auto close = stat->rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos || close + 4 > stat->size()) continue;
    long ppid = std::strtol(stat->c_str() + close + 4, nullptr, 10);
    if (ppid == self) out.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(d);
  return out;
}

void kill_leftovers() {
  for (int round = 0; round < 100; ++round) {
    auto kids = our_children();
    if (kids.empty()) return;
    for (pid_t p : kids) ::kill(p, SIGKILL);
    for (pid_t p : kids) (void)base::raw::wait_pid(p, nullptr);
  }
}

}  // namespace

// No capability survives into the command, even for a root caller (threat model SOFT-03): the
// bounding set emptied and the securebits locked (so an exec as uid 0 regains nothing), ambient
// cleared, then effective, permitted and inheritable emptied. Without CAP_SETPCAP (any
// unprivileged caller) the bounding set and securebits cannot change, and need not: such a
// process has nothing to regain, and no_new_privs stops setuid and file capabilities.
base::Status drop_every_capability_in_child() {
  cap_flag_value_t setpcap = CAP_CLEAR;
  if (cap_t c = cap_get_proc()) {
    cap_get_flag(c, CAP_SETPCAP, CAP_EFFECTIVE, &setpcap);
    cap_free(c);
  }
  if (setpcap == CAP_SET) {
    for (int i = 0; i < 64; ++i) {
      if (::prctl(PR_CAPBSET_DROP, i, 0, 0, 0) == 0) continue;
      if (errno == EINVAL) break;  // past the kernel's last capability
      return base::errno_error("dropping capability " + std::to_string(i) + " from the bounding set");
    }
    const unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                               SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                               SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    if (::prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0) return base::errno_error("prctl(PR_SET_SECUREBITS)");
  }
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return base::errno_error("clearing the ambient capabilities");
  cap_t none = cap_init();
  if (none == nullptr) return base::errno_error("cap_init");
  int rc = cap_set_proc(none);
  int saved = errno;
  cap_free(none);
  if (rc != 0) return base::Error(saved, "capset (dropping every capability) failed");
  return {};
}

base::Result<Outcome> run_soft_jail(const spec::Spec& spec, spec::OwnedFds& fds) {
  if (spec.argv.empty()) return base::Error(EINVAL, "no command");
  RF_TRY(spec::validate_jail(spec));
  ChildContext ctx;
  ctx.spec = &spec;
  ctx.fds = &fds;
  ctx.seccomp = spec.seccomp;
  ctx.env = final_environment(spec);
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    return base::errno_error("prctl(PR_SET_CHILD_SUBREAPER)");
  const spec::Supervision& sup = spec.supervision;
  RF_TRY_ASSIGN(watch_fds, open_watch_fds(sup, ctx.sigmask, ctx.restore_sigmask));
  base::UniqueFd parent_fd = std::move(watch_fds.parent);
  base::UniqueFd signal_fd = std::move(watch_fds.signals);
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return base::errno_error("pipe2");
  base::UniqueFd rd(pipefd[0]), wr(pipefd[1]);
  ctx.status_fd = wr.get();
  ::signal(SIGCHLD, SIG_DFL);
  std::shared_ptr<Supervisor> supervisor;
  base::UniqueFd notify_child;
  if (sup.connect.enabled) RF_TRY(prepare_supervisor(sup.connect, ctx, supervisor, notify_child));
  std::unique_ptr<SandboxCgroup> cgroup;
  if (sup.cgroup.any()) {
    RF_TRY_ASSIGN(made, SandboxCgroup::create(sup.cgroup));
    cgroup = std::move(made);
    ctx.cgroup_procs_fds = cgroup->procs_fds();
  }
  pid_t pid = ::fork();
  if (pid < 0) return base::errno_error("fork");
  if (pid == 0) {
    rd.reset();
    if (supervisor) supervisor->set_handoff({});
    RecipeState st;
    st.ctx = &ctx;
    st.level = spec.jail == spec::Jail::Landlock ? Level::Landlock : Level::Soft;
    run_recipe_in_child(st);
  }
  wr.reset();
  notify_child.reset();
  if (cgroup) cgroup->close_procs_fds();
  Watch w;
  w.pid = pid;
  w.status_rd = rd.get();
  w.supervision = &sup;
  w.signal_fd = signal_fd.get();
  w.parent_fd = parent_fd.get();
  w.new_session = spec.new_session;
  w.supervisor = supervisor.get();
  w.bwrap_messages = spec.bwrap_messages;
  auto out = monitor(w);
  // The group holds everything the command started, even what left our process tree.
  if (cgroup) {
    if (out) out->oom_killed = cgroup->oom_killed();
    if (auto f = cgroup->finish(); !f) base::log::warning(f.error().describe());
  }
  kill_leftovers();
  return out;
}

}  // namespace rf::engine
