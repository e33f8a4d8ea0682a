// SPDX-License-Identifier: LGPL-2.1-or-later
// Checked I/O helpers.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

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

std::int64_t monotonic_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::int64_t monotonic_ms() noexcept { return monotonic_ns() / 1000000; }

namespace raw {

ssize_t read(int fd, void* buf, std::size_t len) noexcept {
  ssize_t n;
  do {
    n = ::read(fd, buf, len);
  } while (n < 0 && errno == EINTR);
  return n < 0 ? -errno : n;
}

ssize_t write(int fd, const void* buf, std::size_t len) noexcept {
  ssize_t n;
  do {
    n = ::write(fd, buf, len);
  } while (n < 0 && errno == EINTR);
  return n < 0 ? -errno : n;
}

int write_all(int fd, const void* data, std::size_t len) noexcept {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t n = raw::write(fd, p, len);
    if (n < 0) return static_cast<int>(n);
    if (n == 0) {
      errno = EIO;
      return -EIO;
    }
    p += n;
    len -= static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace raw

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
