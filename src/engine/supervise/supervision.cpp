// SPDX-License-Identifier: LGPL-2.1-or-later
// The launcher's supervision of a started sandbox (see supervision.hpp).
#include "supervision.hpp"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <string>

#include "ringfence/base/log.hpp"

namespace rf::engine {

base::Result<std::unique_ptr<Supervision>> Supervision::prepare(const spec::Spec& spec, ChildContext& ctx) {
  std::unique_ptr<Supervision> s(new Supervision());
  s->spec_ = &spec;
  const spec::Supervision& sup = spec.supervision;
  RF_TRY_ASSIGN(watch_fds, open_watch_fds(sup, ctx.sigmask, ctx.restore_sigmask));
  s->parent_fd_ = std::move(watch_fds.parent);
  s->signal_fd_ = std::move(watch_fds.signals);
  // The connect policy: rules parsed and the log opened now; the command hands its listener
  // over a socket made before the clone.
  if (sup.connect.enabled) RF_TRY(prepare_supervisor(sup.connect, ctx, s->connect_, s->notify_child_));
  // A terminal of the sandbox's own. SIGWINCH is read from the relay's signalfd, so it is
  // blocked here; the child gets the caller's mask back.
  if (spec.own_terminal && spec.new_session) {
    RF_TRY_ASSIGN(term, TerminalRelay::open());
    if (term) {
      sigset_t winch, before;
      sigemptyset(&winch);
      sigaddset(&winch, SIGWINCH);
      if (::pthread_sigmask(SIG_BLOCK, &winch, &before) != 0)
        return base::errno_error("the sandbox's terminal: blocking SIGWINCH");
      if (!ctx.restore_sigmask) {
        ctx.sigmask = before;
        ctx.restore_sigmask = true;
      }
      ctx.terminal_slave = term->slave();
      s->terminal_ = std::move(term);
    }
  }
  // --limit memory/pids/cpu: the sandbox's cgroup, made and limited now; the child joins it.
  if (sup.cgroup.any()) {
    RF_TRY_ASSIGN(made, SandboxCgroup::create(sup.cgroup));
    s->cgroup_ = std::move(made);
    ctx.cgroup_procs_fds = s->cgroup_->procs_fds();
  }
  return s;
}

Supervision::~Supervision() {
  if (terminal_) terminal_->stop();
  if (connect_) connect_->stop();
}

void Supervision::in_child() {
  if (connect_) connect_->set_handoff({});
}

void Supervision::cgroup_from_launcher(ChildContext& ctx) {
  if (!cgroup_) return;
  cgroup_by_launcher_ = true;
  ctx.cgroup_procs_fds.clear();  // the child's step finds nothing to join
}

base::Status Supervision::move_into_cgroup(pid_t pid) {
  if (!cgroup_ || !cgroup_by_launcher_) return {};
  return cgroup_->move_in(pid);
}

void Supervision::spawned() {
  notify_child_.reset();
  if (cgroup_ && !cgroup_by_launcher_) cgroup_->close_procs_fds();
  if (terminal_) {
    if (auto s = terminal_->start(); !s) base::log::warning(s.error().describe());
  }
}

base::Status Supervision::start_late_masks(pid_t pid) {
  const spec::LateMasks& masks = spec_->supervision.late_masks;
  if (masks.patterns.empty() || masks.host_dir.empty()) return {};
  base::UniqueFd mntns(::open(("/proc/" + std::to_string(pid) + "/ns/mnt").c_str(), O_RDONLY | O_CLOEXEC));
  base::UniqueFd userns(mntns.valid() ? ::ioctl(mntns.get(), NS_GET_USERNS) : -1);
  auto w =
      userns.valid()
          ? MaskWatch::start(masks, std::move(userns), std::move(mntns), pid)
          : base::Result<std::unique_ptr<MaskWatch>>(base::errno_error("opening the sandbox's namespaces"));
  if (!w)
    return base::Error(0, "masks: cannot watch " + masks.host_dir + ": " + w.error().describe() +
                              "; the sandbox was not started");
  late_masks_ = std::move(*w);
  return {};
}

base::Status Supervision::late_masks_before_start() {
  return late_masks_ ? late_masks_->cover_before_start() : base::Status{};
}

base::Result<Outcome> Supervision::watch(Watch w) {
  const spec::Supervision& sup = spec_->supervision;
  w.supervisor = connect_.get();
  // A breach of the listen policy that cannot be refused afterwards ends the sandbox: its pid 1
  // in the kernel jail (the whole PID namespace), the command in the jails (the rest is killed
  // once the monitor returns).
  if (connect_) connect_->set_on_breach([pid = w.pid] { ::kill(pid, SIGKILL); });
  if (sup.forward_signals || sup.timeout_ms || parent_fd_.valid() || connect_) {
    w.supervision = &sup;
    w.signal_fd = signal_fd_.get();
    w.parent_fd = parent_fd_.get();
    w.new_session = spec_->new_session;
  }
  return monitor(w);
}

base::Result<Outcome> Supervision::finish(base::Result<Outcome> out) {
  if (terminal_) terminal_->stop();  // the host's terminal as it was, before any message
  if (connect_) {
    connect_->stop();
    if (std::string why = connect_->breach(); !why.empty()) return base::Error(0, why);
  }
  // Whether the memory limit killed something, then the group emptied and removed (the
  // sandbox is gone by now; the group's removal is what is checked).
  if (cgroup_) {
    if (out) out->oom_killed = cgroup_->oom_killed();
    if (auto f = cgroup_->finish(); !f) base::log::warning(f.error().describe());
  }
  // The watch killed the sandbox because a name the masks cover could have stayed readable.
  if (late_masks_) {
    if (std::string why = late_masks_->breach(); !why.empty()) return base::Error(0, why);
  }
  return out;
}

void Supervision::drain_signals() {
  if (!signal_fd_.valid()) return;
  signalfd_siginfo si{};
  while (::read(signal_fd_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {}
}

}  // namespace rf::engine
