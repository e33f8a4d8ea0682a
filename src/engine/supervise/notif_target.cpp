// SPDX-License-Identifier: LGPL-2.1-or-later
#include "notif_target.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstdlib>

#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

namespace rf::engine {

bool NotifTarget::read(std::uint64_t addr, void* out, std::size_t len) const {
  if (len == 0) return true;
  iovec local{out, len}, remote{reinterpret_cast<void*>(addr), len};
  return ::process_vm_readv(static_cast<pid_t>(n.pid), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
}

bool NotifTarget::write(std::uint64_t addr, const void* in, std::size_t len) const {
  iovec local{const_cast<void*>(in), len}, remote{reinterpret_cast<void*>(addr), len};
  return ::process_vm_writev(static_cast<pid_t>(n.pid), &local, 1, &remote, 1, 0) ==
         static_cast<ssize_t>(len);
}

int NotifTarget::open() {
  pidfd.reset(base::raw::pidfd_open(n.pid, PIDFD_THREAD));  // errno is left set
  if (!pidfd.valid() && errno == EINVAL) {                  // before Linux 6.9: the thread group's leader
    auto status = base::read_file(proc("status"));
    auto at = status ? status->find("\nTgid:") : std::string::npos;
    if (at == std::string::npos) return fail_closed;
    pid_t tgid = static_cast<pid_t>(std::atol(status->c_str() + at + 6));
    pidfd.reset(base::raw::pidfd_open(tgid, 0));
    leader_pidfd = true;
  }
  if (!pidfd.valid() || !valid()) return fail_closed;
  return 0;
}

int NotifTarget::take(int fd, base::UniqueFd& out) const {
  const int got = base::raw::pidfd_getfd(pidfd.get(), fd, 0);
  out.reset(got);
  if (got < 0) return got == -EBADF ? EBADF : fail_closed;
  if (leader_pidfd) {
    // The leader's fd table is the thread's unless the thread unshared it (CLONE_FILES off,
    // unshare(CLONE_FILES)): then the object taken must be the one the thread names, or the
    // call fails. (Checked and used is still the same object, the duplicate.)
    struct stat mine {
    }, theirs{};
    const std::string link = proc("fd/" + std::to_string(fd));
    if (::fstat(out.get(), &mine) != 0 || ::stat(link.c_str(), &theirs) != 0 ||
        mine.st_dev != theirs.st_dev || mine.st_ino != theirs.st_ino)
      return fail_closed;
  }
  return 0;
}

bool NotifTarget::cloexec(int fd) const {
  auto info = base::read_file(proc("fdinfo/" + std::to_string(fd)));
  if (!info) return false;
  auto at = info->find("flags:");
  if (at == std::string::npos) return false;
  return (std::strtoul(info->c_str() + at + 6, nullptr, 8) & O_CLOEXEC) != 0;
}

}  // namespace rf::engine
