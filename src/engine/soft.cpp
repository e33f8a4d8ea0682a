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

#include "launch_phases.hpp"
#include "recipe.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/log.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/spec/validate.hpp"
#include "steps.hpp"
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

// ---- the jails' phases (launch_phases.hpp) ---------------------------------------------------

base::Status Launch::prepare_jail() {
  if (spec_.argv.empty()) return base::Error(EINVAL, "no command");
  RF_TRY(spec::validate_jail(spec_));
  ctx_.seccomp = spec_.seccomp;
  ctx_.env = final_environment(spec_);
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    return base::errno_error("prctl(PR_SET_CHILD_SUBREAPER)");
  return {};
}

base::Status Launch::spawn_jail() {
  pid_t pid = ::fork();
  if (pid < 0) return base::errno_error("fork");
  if (pid == 0) {
    status_rd_.reset();
    supervision_->in_child();
    RecipeState st;
    st.ctx = &ctx_;
    st.level = level_;
    run_recipe_in_child(st);
  }
  clone_pid_ = pid;
  return {};
}

// The command's orphans came to us as the subreaper: nothing outlives the launch.
void Launch::finish_jail() { kill_leftovers(); }

}  // namespace rf::engine
