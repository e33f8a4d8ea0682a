// SPDX-License-Identifier: LGPL-2.1-or-later
// Descriptors and credentials over a unix socket (SCM_RIGHTS, SCM_CREDENTIALS), in one message
// with a one-byte payload. The raw:: forms are child-safe (no allocation, see kernel.hpp).
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::base {

// The most descriptors one message carries here (the kernel's own limit is 253).
inline constexpr std::size_t kMaxPassedFds = 16;

namespace raw {

// sendmsg of the byte `tag` with `fds` (SCM_RIGHTS, none when empty) and `creds`
// (SCM_CREDENTIALS, none when null), retried on EINTR. The bytes sent (1), or -errno; more than
// kMaxPassedFds descriptors is -EINVAL.
ssize_t send_fds(int sock, std::span<const int> fds, const ucred* creds, char tag, int flags) noexcept;

// recvmsg of up to `len` bytes, retried on EINTR. Up to `max_fds` (at most kMaxPassedFds)
// descriptors go to `fds` and their number to `*nfds`, ones beyond that are closed; `*creds` and
// `*has_creds` take an SCM_CREDENTIALS message (creds may be null). The bytes received (0 at
// the end of the stream), or -errno.
ssize_t recv_fds(int sock, void* data, std::size_t len, int* fds, std::size_t max_fds, std::size_t* nfds,
                 ucred* creds, bool* has_creds, int flags) noexcept;

}  // namespace raw

// Checked forms. send_fds: MSG_NOSIGNAL; a message not sent whole is an EIO Error.
Status send_fds(int sock, std::span<const int> fds, std::optional<ucred> creds = std::nullopt,
                char tag = 'p');

struct ReceivedFds {
  std::size_t bytes = 0;  // 0: the peer closed the socket
  std::vector<UniqueFd> fds;
  std::optional<ucred> creds;
};

// recv_fds: into `data`, with MSG_CMSG_CLOEXEC added to `flags` (MSG_DONTWAIT and the like).
Result<ReceivedFds> recv_fds(int sock, void* data, std::size_t len, std::size_t max_fds = kMaxPassedFds,
                             int flags = 0);

}  // namespace rf::base
