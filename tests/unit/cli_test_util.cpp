// SPDX-License-Identifier: LGPL-2.1-or-later
// Helpers for the bwrap parser tests.
#include "cli_test_util.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace rf::test {

rf::cli::BwrapParse parse(const Words& args) { return rf::cli::parse_bwrap_args(args); }

std::string error_of(const rf::cli::BwrapParse& p) { return p.error ? p.error->describe() : std::string(); }

rf::cli::BwrapParse FakeFds::parse(const Words& args) {
  rf::cli::detail::FdReader reader = [this](int fd) -> rf::base::Result<std::string> {
    reads.push_back(fd);
    auto it = data.find(fd);
    if (it == data.end()) return rf::base::Error(EBADF, "read");
    return it->second;
  };
  return rf::cli::detail::parse_bwrap_args_with(args, reader);
}

std::string nul_words(const Words& words) {
  std::string out;
  for (const auto& w : words) {
    out += w;
    out += '\0';
  }
  return out;
}

int memfd_with(std::string_view data) {
  int fd = memfd_create("rf-cli-test", 0);
  if (fd < 0) std::abort();
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
  if (lseek(fd, 0, SEEK_SET) != 0) std::abort();
  return fd;
}

int pipe_with(std::string_view data) {
  int p[2];
  if (pipe(p) != 0) std::abort();
  if (!data.empty() && write(p[1], data.data(), data.size()) != static_cast<ssize_t>(data.size()))
    std::abort();
  close(p[1]);
  return p[0];
}

bool fd_is_open(int fd) { return fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

int closed_fd() {
  int fd = dup(0);
  if (fd < 0) fd = open("/dev/null", O_RDONLY);
  if (fd < 0) std::abort();
  close(fd);
  return fd;
}

}  // namespace rf::test
