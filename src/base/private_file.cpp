// SPDX-License-Identifier: LGPL-2.1-or-later
// Private cache files (see private_file.hpp).
#include "ringfence/base/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::base {

Result<UniqueFd> open_private_dir(const std::string& dir, bool parents) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    if (errno != ENOENT || !parents) return errno_error("cannot create " + dir);
    const std::string up = parent(dir);
    if (up.empty() || up == dir || up == "/") return errno_error("cannot create " + dir);
    if (::mkdir(up.c_str(), 0700) != 0 && errno != EEXIST) {
      RF_TRY_ASSIGN(above, open_private_dir(up, true));
      (void)above;
    }
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return errno_error("cannot create " + dir);
  }
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return errno_error("cannot open " + dir);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat " + dir);
  if (st.st_uid != ::geteuid()) return Error(0, dir + " is owned by uid " + std::to_string(st.st_uid));
  if ((st.st_mode & 077) != 0) return Error(0, dir + " is open to other users");
  return fd;
}

PrivateRead read_private_file(int dir_fd, const std::string& name, off_t max_size) {
  UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid())
    return {std::nullopt, errno == ENOENT ? "missing" : "ignored (" + errno_error("open").describe() + ")"};
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return {std::nullopt, "ignored (not a regular file)"};
  if (st.st_uid != ::geteuid())
    return {std::nullopt, "ignored (owned by uid " + std::to_string(st.st_uid) + ")"};
  if ((st.st_mode & 022) != 0) return {std::nullopt, "ignored (writable by others)"};
  if (st.st_size > max_size) return {std::nullopt, "ignored (too large)"};
  auto text = read_all(fd.get());
  if (!text) return {std::nullopt, "ignored (" + text.error().describe() + ")"};
  return {std::move(*text), "read"};
}

Status write_private_file(int dir_fd, const std::string& dir, const std::string& name,
                          std::string_view content) {
  const std::string tmp = name + "." + std::to_string(::getpid()) + ".tmp";
  UniqueFd fd(::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return errno_error("cannot create " + dir + "/" + tmp);
  Status w = write_all(fd.get(), content);
  if (w && ::fsync(fd.get()) != 0) w = errno_error("fsync " + dir + "/" + tmp);
  if (w && ::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0)
    w = errno_error("rename " + dir + "/" + tmp + " to " + name);
  if (!w) ::unlinkat(dir_fd, tmp.c_str(), 0);
  return w;
}

}  // namespace rf::base
