// SPDX-License-Identifier: LGPL-2.1-or-later
// The listen policy's calls in the supervisor: bind, listen and (network off) accept. The
// socket is always a pidfd_getfd duplicate, inspected and used as one object; an inet bind is
// performed by the supervisor with its own copy of the address; a listen is performed by it
// after the socket's bound name, read from the kernel, was checked.
#pragma once

#include <linux/seccomp.h>

#include "connect_emulate.hpp"

namespace rf::engine {

class Supervisor;

// bind, listen, accept or accept4: the calls the listen policy sends to the supervisor.
bool is_server_call(long nr);

// Decide one of them (refusals are EACCES, logged) and answer it: performed here, refused, or
// left to the kernel (Reply::proceed) where only the target can perform it: a unix path bind
// resolves in the target's filesystem view, a unix accept may wait.
Reply serve_server_call(Supervisor& sup, const seccomp_notif& n);

}  // namespace rf::engine
