// SPDX-License-Identifier: LGPL-2.1-or-later
// Checked I/O helpers.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "ringfence/base/sys.hpp"

namespace rf::base {

Result<std::string> read_all(int fd) {
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("read");
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Result<std::string> read_file(const std::string& path) {
  RF_TRY_ASSIGN(fd, open_fd(path, O_RDONLY));
  auto r = read_all(fd.get());
  if (!r) return std::move(r.error()).context("reading " + path);
  return r;
}

Status write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("write");
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

Status write_file(const std::string& path, std::string_view data) {
  RF_TRY_ASSIGN(fd, open_fd(path, O_WRONLY));
  auto r = write_all(fd.get(), data);
  if (!r) return std::move(r.error()).context("writing " + path);
  return {};
}

Result<UniqueFd> open_fd(const std::string& path, int flags, mode_t mode) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno_error("open " + path);
  return UniqueFd(fd);
}

bool parse_fd(std::string_view s, int& out) {
  if (s.empty() || s.size() > 10) return false;
  long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > 0x7fffffff) return false;
  out = static_cast<int>(v);
  return true;
}

}  // namespace rf::base
