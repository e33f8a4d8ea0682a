// SPDX-License-Identifier: LGPL-2.1-or-later
// The table of the descriptors a Spec names.
#include "ringfence/spec/owned_fds.hpp"

#include <algorithm>

namespace rf::spec {

void OwnedFds::adopt(Fd fd) {
  if (fd.valid() && !holds(fd)) fds_.emplace_back(fd.num);
}

bool OwnedFds::holds(Fd fd) const {
  return fd.valid() &&
         std::any_of(fds_.begin(), fds_.end(), [fd](const base::UniqueFd& f) { return f.get() == fd.num; });
}

// No allocation and no reordering: a process cloned with CLONE_VM (pid 1's command, until it
// execs) takes from the table it shares with its parent.
base::UniqueFd OwnedFds::take(Fd fd) {
  if (!fd.valid()) return {};
  for (auto& f : fds_)
    if (f.get() == fd.num) return base::UniqueFd(f.release());
  return {};
}

std::size_t OwnedFds::size() const {
  return static_cast<std::size_t>(
      std::count_if(fds_.begin(), fds_.end(), [](const base::UniqueFd& f) { return f.valid(); }));
}

std::vector<Fd> named_fds(const Spec& spec) {
  std::vector<Fd> out;
  for (const auto& op : spec.fs_ops)
    if (op.fd.valid()) out.push_back(op.fd);
  for (const auto* fd :
       {&spec.seccomp_fd, &spec.sync_fd, &spec.block_fd, &spec.userns_block_fd, &spec.info_fd,
        &spec.json_status_fd, &spec.userns_fd, &spec.userns2_fd, &spec.pidns_fd})
    if (*fd && (*fd)->valid()) out.push_back(**fd);
  return out;
}

OwnedFds adopt_named_fds(const Spec& spec) {
  OwnedFds fds;
  for (Fd fd : named_fds(spec)) fds.adopt(fd);
  return fds;
}

}  // namespace rf::spec
