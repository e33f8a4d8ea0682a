// SPDX-License-Identifier: LGPL-2.1-or-later
// SCM_RIGHTS and SCM_CREDENTIALS messages (see fd_passing.hpp).
#include "ringfence/base/fd_passing.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace rf::base {

namespace {

constexpr std::size_t kControlMax = CMSG_SPACE(sizeof(int) * kMaxPassedFds) + CMSG_SPACE(sizeof(ucred));

}  // namespace

namespace raw {

ssize_t send_fds(int sock, std::span<const int> fds, const ucred* creds, char tag, int flags) noexcept {
  if (fds.size() > kMaxPassedFds) {
    errno = EINVAL;
    return -EINVAL;
  }
  alignas(cmsghdr) char control[kControlMax] = {};
  char byte = tag;
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::size_t used = 0;
  if (!fds.empty()) used += CMSG_SPACE(sizeof(int) * fds.size());
  if (creds != nullptr) used += CMSG_SPACE(sizeof *creds);
  if (used > 0) {
    msg.msg_control = control;
    msg.msg_controllen = used;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    if (!fds.empty()) {
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      __builtin_memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
      c = CMSG_NXTHDR(&msg, c);
    }
    if (creds != nullptr) {
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_CREDENTIALS;
      c->cmsg_len = CMSG_LEN(sizeof *creds);
      __builtin_memcpy(CMSG_DATA(c), creds, sizeof *creds);
    }
  }
  ssize_t n;
  do {
    n = ::sendmsg(sock, &msg, flags);
  } while (n < 0 && errno == EINTR);
  return n < 0 ? -errno : n;
}

ssize_t recv_fds(int sock, void* data, std::size_t len, int* fds, std::size_t max_fds, std::size_t* nfds,
                 ucred* creds, bool* has_creds, int flags) noexcept {
  if (max_fds > kMaxPassedFds) max_fds = kMaxPassedFds;
  if (nfds != nullptr) *nfds = 0;
  if (has_creds != nullptr) *has_creds = false;
  alignas(cmsghdr) char control[kControlMax] = {};
  iovec iov{data, len};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  // Room for exactly what is asked for: the kernel drops descriptors beyond it.
  std::size_t room = 0;
  if (max_fds > 0) room += CMSG_SPACE(sizeof(int) * max_fds);
  if (creds != nullptr) room += CMSG_SPACE(sizeof *creds);
  if (room > 0) {
    msg.msg_control = control;
    msg.msg_controllen = room;
  }
  ssize_t n;
  do {
    n = ::recvmsg(sock, &msg, flags);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return -errno;
  std::size_t got = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_RIGHTS && c->cmsg_len >= CMSG_LEN(0)) {
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int fd;
        __builtin_memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        if (got < max_fds && fds != nullptr)
          fds[got++] = fd;
        else
          ::close(fd);
      }
    } else if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len == CMSG_LEN(sizeof(ucred)) &&
               creds != nullptr) {
      __builtin_memcpy(creds, CMSG_DATA(c), sizeof *creds);
      if (has_creds != nullptr) *has_creds = true;
    }
  }
  if (nfds != nullptr) *nfds = got;
  return n;
}

}  // namespace raw

Status send_fds(int sock, std::span<const int> fds, std::optional<ucred> creds, char tag) {
  ssize_t n = raw::send_fds(sock, fds, creds ? &*creds : nullptr, tag, MSG_NOSIGNAL);
  if (n < 0) return Error(static_cast<int>(-n), "sendmsg");
  if (n != 1) return Error(EIO, "sendmsg: short send");
  return {};
}

Result<ReceivedFds> recv_fds(int sock, void* data, std::size_t len, std::size_t max_fds, int flags) {
  int fds[kMaxPassedFds];
  std::size_t nfds = 0;
  ucred creds{};
  bool has_creds = false;
  ssize_t n =
      raw::recv_fds(sock, data, len, fds, max_fds, &nfds, &creds, &has_creds, flags | MSG_CMSG_CLOEXEC);
  if (n < 0) return Error(static_cast<int>(-n), "recvmsg");
  ReceivedFds out;
  out.bytes = static_cast<std::size_t>(n);
  for (std::size_t i = 0; i < nfds; ++i) out.fds.emplace_back(fds[i]);
  if (has_creds) out.creds = creds;
  return out;
}

}  // namespace rf::base
