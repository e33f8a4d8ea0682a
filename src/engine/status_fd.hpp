// SPDX-License-Identifier: LGPL-2.1-or-later
// bwrap's status outputs: the --info-fd object and the --json-status-fd lines.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

using NamespaceIds = std::vector<std::pair<std::string, std::uint64_t>>;

// Inode numbers of the child's namespaces that the sandbox unshared (mnt always), in bwrap's
// order: cgroup, ipc, mnt, net, pid, uts. The user namespace is never listed.
base::Result<NamespaceIds> namespace_ids_from_parent(pid_t child, const spec::Namespaces& ns);

// {"child-pid": N, "<ns>-namespace": I, ...}: pretty (info-fd) or on one line (json-status-fd).
std::string status_json(pid_t child, const NamespaceIds& ids, bool pretty);
std::string exit_code_json(int code);

}  // namespace rf::engine
