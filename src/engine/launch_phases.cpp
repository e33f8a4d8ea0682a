// SPDX-License-Identifier: LGPL-2.1-or-later
// The launch's phases and what every level shares (see launch_phases.hpp).
#include "launch_phases.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include "ringfence/base/kernel.hpp"
#include "steps.hpp"

namespace rf::engine {

Launch::Launch(const spec::Spec& spec, spec::OwnedFds& fds)
    : spec_(spec),
      fds_(fds),
      level_(spec.jail == spec::Jail::Kernel     ? Level::Kernel
             : spec.jail == spec::Jail::Landlock ? Level::Landlock
                                                 : Level::Soft) {
  ctx_.spec = &spec;
  ctx_.fds = &fds;
}

Launch::~Launch() {
  if (clone_pid_ > 0 && !watched_) abandon();
  supervision_.reset();
  restore_caller_state();
}

void Launch::save_caller_state() {
  ::sigprocmask(SIG_SETMASK, nullptr, &caller_.mask);
  ::sigaction(SIGCHLD, nullptr, &caller_.sigchld);
  ::prctl(PR_GET_PDEATHSIG, &caller_.death_signal, 0, 0, 0);
  ::prctl(PR_GET_CHILD_SUBREAPER, &caller_.subreaper, 0, 0, 0);
  caller_.saved = true;
}

void Launch::restore_caller_state() {
  if (!caller_.saved) return;
  caller_.saved = false;
  ::prctl(PR_SET_CHILD_SUBREAPER, caller_.subreaper, 0, 0, 0);
  ::prctl(PR_SET_PDEATHSIG, caller_.death_signal, 0, 0, 0);
  ::sigaction(SIGCHLD, &caller_.sigchld, nullptr);
  ::sigprocmask(SIG_SETMASK, &caller_.mask, nullptr);
}

void Launch::abandon() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
  if (clone_pid_ > 0 && clone_pid_ != pid_) ::kill(clone_pid_, SIGKILL);
  (void)wait_child(clone_pid_);
  if (level_ != Level::Kernel) finish_jail();
  clone_pid_ = -1;
}

base::Status Launch::prepare() {
  save_caller_state();
  if (level_ == Level::Kernel) {
    RF_TRY(prepare_kernel());
  } else {
    RF_TRY(prepare_jail());
  }
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return base::errno_error("pipe2");
  status_rd_.reset(pipefd[0]);
  status_wr_.reset(pipefd[1]);
  ctx_.status_fd = status_wr_.get();
  // Forwarded signals are blocked from here on, read from a signalfd, and unblocked again in
  // the child (ctx.sigmask).
  RF_TRY_ASSIGN(sup, Supervision::prepare(spec_, ctx_));
  supervision_ = std::move(sup);
  // The child forks nothing before sync point 2 (without --pidns): the launcher moves it into
  // the cgroup meanwhile, so the move's wait overlaps the building of the root.
  if (level_ == Level::Kernel && masks_sync_.valid() && !spec_.pidns_fd)
    supervision_->cgroup_from_launcher(ctx_);
  // A caller that ignores SIGCHLD (Erlang) would make waitpid lose the status.
  ::signal(SIGCHLD, SIG_DFL);
  return {};
}

base::Status Launch::spawn() {
  RF_TRY(level_ == Level::Kernel ? spawn_kernel() : spawn_jail());
  pid_ = clone_pid_;
  status_wr_.reset();
  supervision_->spawned();
  return {};
}

base::Status Launch::sync() {
  if (level_ != Level::Kernel) return {};
  if (auto s = sync_kernel(); !s) {
    abandon();
    return s;
  }
  return {};
}

base::Result<Outcome> Launch::watch() {
  Watch w;
  w.pid = pid_;
  w.ours = ours_;
  w.reaper = ctx_.reaper;
  w.status_rd = status_rd_.get();
  w.json_fd = spec_.json_status_fd.value_or(spec::Fd{}).num;
  w.bwrap_messages = spec_.bwrap_messages;
  auto out = supervision_->finish(supervision_->watch(w));
  watched_ = true;
  if (level_ != Level::Kernel) finish_jail();
  supervision_->drain_signals();
  return out;
}

}  // namespace rf::engine
