// SPDX-License-Identifier: LGPL-2.1-or-later
// The probe's raw material: what each throwaway child did step by step, and the facts read
// from the host. diagnose() turns them into checks, causes and fixes without touching the host,
// so every cause can be tested with made-up observations.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/probe/probe.hpp"

namespace rf::probe {

// One step of a trial. A step that was begun but never finished (the child died or hung in it)
// has state Begun.
struct Step {
  enum class State { Begun, Ok, Failed } state = State::Begun;
  std::string name;
  int err = 0;       // errno of a failed step (0: failed without one; the note says why)
  std::string note;  // extra: what was written, the value read, the path made
};

struct TrialResult {
  std::vector<Step> steps;
  bool timed_out = false;
  std::string failure;  // the trial itself broke: "fork: ...", "killed by signal SIGSYS", ...

  [[nodiscard]] const Step* find(std::string_view name) const;
  [[nodiscard]] bool ok(std::string_view name) const;
};

// Written by the child: one line per step event on the report pipe.
class StepWriter {
public:
  explicit StepWriter(int fd) : fd_(fd) {}
  void begin(std::string_view step);
  void ok(std::string_view step, std::string_view note = {});
  void fail(std::string_view step, int err, std::string_view note = {});
  // ok when rc == 0, else fail with errno; returns rc == 0.
  bool result(std::string_view step, int rc, std::string_view note = {});
  [[nodiscard]] int fd() const { return fd_; }

private:
  void line(std::string_view state, std::string_view step, int err, std::string_view note);
  int fd_;
};

using TrialBody = void (*)(StepWriter&);

// Forks a child that runs body and reports over a pipe; waits at most timeout_ms, then kills
// the child's whole process group. The child and whatever it started are gone on return.
TrialResult run_trial(TrialBody body, int timeout_ms);
// Parses the report pipe's text (exposed for tests).
std::vector<Step> parse_steps(std::string_view text);

// The trials (each runs in its own child).
void namespaces_trial(StepWriter& w);  // userns, maps, mounts, pid/net/ipc/uts, pivot_root
void seccomp_trial(StepWriter& w);     // no_new_privs, a filter, a user-notification round trip
void pidfd_trial(StepWriter& w);       // pidfd_open + pidfd_getfd on a grandchild's fd
void landlock_trial(StepWriter& w);    // ABI, a ruleset with one rule, restrict_self, enforced
void cgroup_trial(StepWriter& w);      // a child group of our own cgroup, limits, clean-up

struct Facts {
  uid_t uid = 0;
  std::string kernel_release;  // /proc/sys/kernel/osrelease
  std::string proc_version;    // /proc/version
  std::string boot_id;
  std::string exe;  // realpath of /proc/self/exe
  std::optional<long> max_user_namespaces;
  std::optional<long> unprivileged_userns_clone;  // Debian's patch
  std::optional<long> apparmor_restrict_userns;   // Ubuntu 23.10+
  std::optional<long> io_uring_disabled;          // 6.6+
  std::optional<long> ptrace_scope;               // Yama
  bool userns_file = true;                        // /proc/self/ns/user exists (CONFIG_USER_NS)
  bool apparmor_enabled = false;
  std::string lsm_label;    // /proc/self/attr/current ("" when none)
  int seccomp_mode = 0;     // /proc/self/status Seccomp:
  int seccomp_filters = 0;  // Seccomp_filters:
  bool no_new_privs = false;
  bool dockerenv = false;                    // /.dockerenv
  bool containerenv = false;                 // /run/.containerenv (podman)
  std::vector<std::string> proc_overmounts;  // mounts on paths below /proc
};

Facts gather_facts();
// "WSL2", "WSL1" or "" (from the kernel's own release and version strings).
std::string wsl_kind(const Facts& facts);

struct Observations {
  Facts facts;
  TrialResult ns, seccomp, pidfd, landlock, cgroup;
};

Report diagnose(const Observations& obs);
// Sets the level, its reason and the per-preset line from the checks.
void conclude(Report& report);

// Where the shipped AppArmor profile is installed (for the fix text).
std::string apparmor_profile_path();

}  // namespace rf::probe
