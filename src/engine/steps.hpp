// SPDX-License-Identifier: LGPL-2.1-or-later
// The pieces the child recipe (recipe.hpp) is made of, one file each: id maps, capabilities,
// loopback, pid 1, seccomp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "context.hpp"
#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/engine/launch.hpp"

namespace rf::engine {

// userns.cpp: setgroups deny, then single-id uid/gid maps written by the child itself
// (no hand-off with the parent: the child may map its own effective ids).
base::Status write_id_maps_in_child(const ChildContext& ctx);
// userns.cpp: the second level of ctx.nested_userns, after the root is built. proc_fd is the
// host's /proc, opened before the pivot.
base::Status enter_nested_userns_in_child(const ChildContext& ctx, int proc_fd);
// userns.cpp: --userns with --uid/--gid: setgid/setuid inside the joined namespace, keeping
// the capabilities for the steps that follow.
base::Status switch_ids_in_child(const ChildContext& ctx);
// userns.cpp: --disable-userns: user.max_user_namespaces = 1 in the current (outer) namespace.
base::Status limit_user_namespaces_in_child(int proc_fd);
// userns.cpp: fails unless creating a user namespace is refused from here on.
base::Status check_userns_disabled_in_child();

// pidns.cpp: --pidns. setns(CLONE_NEWPID) only places later children, so the child forks (twice
// when a new pid namespace goes under the given one) and each intermediate exits; the process
// that goes on sends its pid over ctx.pid_sock.
base::Status enter_pid_namespace_in_child(const ChildContext& ctx);
// pidns.cpp: the launcher's end: a socketpair with SO_PASSCRED (the kernel translates the pid
// into our namespace), and the launcher made a subreaper so the intermediates' child comes to it.
base::Status make_pid_socket_from_parent(base::UniqueFd& launcher_end, base::UniqueFd& child_end);
// pidns.cpp: the sandbox process's pid as seen here (nullopt: the child failed before sending
// it; its error is on the status pipe), after reaping the intermediates that are ours to reap.
base::Result<std::optional<pid_t>> receive_pid_from_parent(int sock, pid_t clone_pid, int intermediates);

// launcher.cpp: the launcher's environment with the Spec's env ops applied (PWD removed).
std::vector<std::string> final_environment(const spec::Spec& spec);
// soft.cpp: the jails' capability drop: nothing survives into the command, even for root.
base::Status drop_every_capability_in_child();

// landlock.cpp: with spec.restrict_exec, only spec.exec_allow may be executed from here on.
base::Status restrict_exec_in_child(const ChildContext& ctx);
// landlock.cpp: in the landlock jail (spec.jail), the filesystem ruleset of the landlock level (and, at ABI 6
// and later, abstract-socket and signal scoping).
base::Status restrict_fs_in_child(const ChildContext& ctx);

// caps.cpp: the caller's effective set (read in the parent, before clone).
std::uint64_t caller_effective_caps_from_parent();
// caps.cpp: bounding set, then effective/permitted/inheritable, then ambient, as bwrap does.
base::Status drop_caps_in_child(const ChildContext& ctx);
// caps.cpp: every capability gone (the pid-1 reaper).
void drop_all_caps_in_child();

// netlo.cpp: bring "lo" up in the new network namespace.
base::Status loopback_up_in_child();
// The egress allowlist: a datagram socket bound and a stream socket listening on
// spec::kSandboxResolver port 53 in the new network namespace (while we still hold our
// capabilities there), for the launcher's resolver.
base::Status resolver_sockets_in_child(int& udp, int& tcp);

// seccomp_apply.cpp: install the Spec's BPF programs in order.
base::Status install_seccomp_in_child(const ChildContext& ctx);

// reaper_exec.cpp: the reaper program in a memfd (CLOEXEC, mode 0111), or -1 without one.
int make_reaper_memfd_from_parent();
// reaper_exec.cpp: false when the command has CAP_SYS_PTRACE (pid 1 then does not exec).
bool may_exec_reaper_in_child();
// reaper_exec.cpp: exec ctx.reaper_fd as pid 1, keeping `keep` open; returns only on failure.
void exec_reaper_in_child(const ChildContext& ctx, pid_t cmd, bool forward, const std::vector<int>& keep);

// pid1.cpp: close (or, with CLOSE_RANGE_CLOEXEC in flags, mark) every fd from 3 up but keep.
void close_fds_except_in_child(std::vector<int> keep, unsigned flags);

}  // namespace rf::engine
