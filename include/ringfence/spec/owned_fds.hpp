// SPDX-License-Identifier: LGPL-2.1-or-later
// OwnedFds: the owner of the descriptors a Spec names by number (spec::Fd). The Spec stays plain
// data; whoever closes one of these fds takes it out of this table first.
#pragma once

#include <cstddef>
#include <vector>

#include "ringfence/base/unique_fd.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::spec {

// A front end that was given descriptors (bwrap's --sync-fd 5, --file 6 PATH) adopts them here
// and hands the table to the engine with the Spec. The engine takes each one out where bwrap
// closes it; the rest are closed with the table, once the front end is done (after its last
// message, which may go to one of them).
class OwnedFds {
public:
  OwnedFds() = default;
  OwnedFds(OwnedFds&&) noexcept = default;
  OwnedFds& operator=(OwnedFds&&) noexcept = default;
  OwnedFds(const OwnedFds&) = delete;
  OwnedFds& operator=(const OwnedFds&) = delete;
  ~OwnedFds() = default;

  // Owns fd from now on. An invalid number, or one already held (named twice), adds nothing.
  void adopt(Fd fd);
  [[nodiscard]] bool holds(Fd fd) const;
  // Ownership passes to the caller. Not held (never adopted, or taken already: a number named
  // twice is consumed once): an invalid UniqueFd, on which a read or write fails with EBADF.
  [[nodiscard]] base::UniqueFd take(Fd fd);
  void close(Fd fd) { base::UniqueFd closed_here = take(fd); }
  [[nodiscard]] std::size_t size() const;

private:
  std::vector<base::UniqueFd> fds_;
};

// Every descriptor the Spec names for the sandbox to consume or use (the fs ops' fds, seccomp_fd,
// bwrap's status, sync and namespace fds), in that order; pass_fds are not among them (they stay
// the caller's, merely kept open).
std::vector<Fd> named_fds(const Spec& spec);

// A table owning everything named_fds(spec) lists.
OwnedFds adopt_named_fds(const Spec& spec);

}  // namespace rf::spec
