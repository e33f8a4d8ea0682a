// SPDX-License-Identifier: LGPL-2.1-or-later
// The review layer's fd-relative file functions (see fs_util.hpp).
#include "fs_util.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ringfence/base/kernel.hpp"
#include "ringfence/base/paths.hpp"

namespace rf::review {

// Sorts paths so that a directory comes right before what is in it ('/' below every byte).
bool path_less(const std::string& a, const std::string& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] == b[i]) continue;
    if (a[i] == '/') return true;
    if (b[i] == '/') return false;
    return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  return a.size() < b.size();
}

base::Result<std::vector<std::string>> list_dir(int fd, const std::string& shown) {
  base::UniqueFd d(::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!d.valid()) return base::errno_error("open " + shown);
  DIR* dir = ::fdopendir(d.get());
  if (!dir) return base::errno_error("fdopendir " + shown);
  (void)d.release();
  std::vector<std::string> out;
  errno = 0;
  while (struct dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.emplace_back(e->d_name);
    errno = 0;
  }
  const int err = errno;
  ::closedir(dir);
  if (err != 0) return base::Error(err, "readdir " + shown);
  return out;
}

base::Status remove_tree_at(int dirfd, const std::string& name, const std::string& shown) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return {};
    return base::errno_error("stat " + shown);
  }
  if (!S_ISDIR(st.st_mode)) {
    if (::unlinkat(dirfd, name.c_str(), 0) != 0 && errno != ENOENT)
      return base::errno_error("unlink " + shown);
    return {};
  }
  base::UniqueFd sub(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!sub.valid() && errno == EACCES && ::fchmodat(dirfd, name.c_str(), 0700, AT_SYMLINK_NOFOLLOW) == 0)
    sub.reset(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!sub.valid()) return base::errno_error("open " + shown);
  struct stat sst {};
  if (::fstat(sub.get(), &sst) != 0 || sst.st_dev != st.st_dev || sst.st_ino != st.st_ino)
    return base::Error(ESTALE, shown + ": changed while it was removed");
  if ((sst.st_mode & 0700) != 0700) ::fchmod(sub.get(), 0700);
  RF_TRY_ASSIGN(names, list_dir(sub.get(), shown));
  for (const auto& n : names) RF_TRY(remove_tree_at(sub.get(), n, shown + "/" + n));
  if (::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
    return base::errno_error("rmdir " + shown);
  return {};
}

base::Result<base::UniqueFd> open_beneath(int root, const std::string& rel, int flags, mode_t mode) {
  const std::string path = rel.empty() ? "." : rel;
  const auto how = base::OpenHow()
                       .flags(static_cast<std::uint64_t>(flags | O_CLOEXEC))
                       .mode(mode)
                       .resolve(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
  for (int i = 0;; ++i) {
    auto fd = base::openat2(root, path.c_str(), how);
    if (!fd && fd.error().code() == EAGAIN && i < 16) continue;
    return fd;
  }
}

base::Result<ParentRef> open_parent_beneath(int root, const std::string& rel) {
  const auto slash = rel.rfind('/');
  ParentRef p;
  p.name = slash == std::string::npos ? rel : rel.substr(slash + 1);
  const std::string parent = slash == std::string::npos ? std::string() : rel.substr(0, slash);
  RF_TRY_ASSIGN(fd, open_beneath(root, parent, O_PATH | O_DIRECTORY));
  p.fd = std::move(fd);
  return p;
}

base::Result<std::optional<struct stat>> lstat_beneath(int root, const std::string& rel) {
  auto p = open_parent_beneath(root, rel);
  if (!p) {
    if (p.error().code() == ENOENT) return std::optional<struct stat>();
    return std::move(p).error();
  }
  struct stat st {};
  if (::fstatat(p->fd.get(), p->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return std::optional<struct stat>();
    return base::errno_error("stat " + rel);
  }
  return std::optional<struct stat>(st);
}

base::Result<std::string> read_link_at(int dirfd, const std::string& name, const std::string& shown) {
  std::string buf(256, '\0');
  for (;;) {
    const ssize_t n = ::readlinkat(dirfd, name.c_str(), buf.data(), buf.size());
    if (n < 0) return base::errno_error("readlink " + shown);
    if (static_cast<std::size_t>(n) < buf.size()) {
      buf.resize(static_cast<std::size_t>(n));
      return buf;
    }
    buf.resize(buf.size() * 2);
  }
}

namespace {
std::string proc_path(int dirfd, const std::string& name) {
  return "/proc/self/fd/" + std::to_string(dirfd) + "/" + name;
}
}  // namespace

base::Result<std::optional<std::string>> xattr_at(int dirfd, const std::string& name, const std::string& key,
                                                  const std::string& shown) {
  const std::string p = proc_path(dirfd, name);
  char buf[256];
  const ssize_t n = ::lgetxattr(p.c_str(), key.c_str(), buf, sizeof buf);
  if (n < 0) {
    if (errno == ENODATA || errno == ENOTSUP) return std::optional<std::string>();
    return base::errno_error("getxattr " + key + " " + shown);
  }
  return std::optional<std::string>(std::string(buf, static_cast<std::size_t>(n)));
}

base::Result<std::vector<std::string>> xattr_names_at(int dirfd, const std::string& name,
                                                      const std::string& shown) {
  const std::string p = proc_path(dirfd, name);
  std::vector<std::string> out;
  ssize_t n = ::llistxattr(p.c_str(), nullptr, 0);
  if (n < 0) {
    if (errno == ENOTSUP) return out;
    return base::errno_error("listxattr " + shown);
  }
  std::string buf(static_cast<std::size_t>(n) + 1, '\0');
  n = ::llistxattr(p.c_str(), buf.data(), buf.size());
  if (n < 0) return base::errno_error("listxattr " + shown);
  for (std::size_t i = 0; i < static_cast<std::size_t>(n);) {
    const std::size_t len = std::strlen(buf.data() + i);
    if (len) out.emplace_back(buf.data() + i, len);
    i += len + 1;
  }
  return out;
}

base::Result<bool> same_bytes(int a, int b, const std::string& shown) {
  static constexpr std::size_t kChunk = 64 * 1024;
  std::string x(kChunk, '\0'), y(kChunk, '\0');
  off_t off = 0;
  for (;;) {
    const ssize_t na = ::pread(a, x.data(), kChunk, off);
    if (na < 0) return base::errno_error("read " + shown);
    ssize_t nb = 0;
    while (nb < na) {
      const ssize_t r = ::pread(b, y.data() + nb, static_cast<std::size_t>(na - nb), off + nb);
      if (r < 0) return base::errno_error("read " + shown);
      if (r == 0) return false;
      nb += r;
    }
    if (na == 0) {
      char c;
      return ::pread(b, &c, 1, off) == 0;
    }
    if (std::memcmp(x.data(), y.data(), static_cast<std::size_t>(na)) != 0) return false;
    off += na;
  }
}

base::Result<base::UniqueFd> open_file_at(int dirfd, const std::string& name, const std::string& shown) {
  base::UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return base::errno_error("open " + shown);
  return fd;
}

}  // namespace rf::review
