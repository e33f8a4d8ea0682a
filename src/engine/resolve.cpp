// SPDX-License-Identifier: LGPL-2.1-or-later
// In-root path resolution (openat2 RESOLVE_IN_ROOT, with a manual walker where the kernel
// lacks openat2). This is the fix for the bug class of bubblewrap's 2026 advisory: never
// resolve a destination on the host's view of the file system.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "resolve.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/paths.hpp"

namespace rf::engine {
namespace {

using base::UniqueFd;

bool g_no_openat2 = false;

// openat2 retried while a rename races the lookup (EAGAIN): the fd, or -errno. Child-safe.
int openat2_settled(int dirfd, const std::string& path, int flags, std::uint64_t resolve) {
  const auto how = base::OpenHow().flags(static_cast<__u64>(flags | O_CLOEXEC)).resolve(resolve);
  int fd;
  do {
    fd = base::raw::openat2(dirfd, path.c_str(), how);
  } while (fd == -EAGAIN);
  return fd;
}

// Fallback walker: one component at a time with O_NOFOLLOW; symlinks are read and their
// target re-walked from the root (absolute) or the current directory (relative); ".." never
// climbs above the root.
int walk_in_root(int root_fd, const std::string& path, int flags, int depth) {
  if (depth > 40) {
    errno = ELOOP;
    return -1;
  }
  auto comps = base::components(path);
  std::vector<UniqueFd> stack;
  stack.emplace_back(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!stack.back().valid()) return -1;
  for (size_t i = 0; i < comps.size(); ++i) {
    const std::string& c = comps[i];
    bool last = i + 1 == comps.size();
    if (c == "..") {
      if (stack.size() > 1) stack.pop_back();
      continue;
    }
    int cur = stack.back().get();
    int f = last ? (flags | O_NOFOLLOW) : (O_PATH | O_DIRECTORY | O_NOFOLLOW);
    int fd = ::openat(cur, c.c_str(), f | O_CLOEXEC, 0);
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
      int open_errno = errno;
      char target[4096];
      ssize_t n = ::readlinkat(cur, c.c_str(), target, sizeof target - 1);
      if (n < 0) {  // not a symlink after all: report what open said
        errno = open_errno;
        return -1;
      }
      target[n] = 0;
      std::string rest;
      for (size_t j = i + 1; j < comps.size(); ++j) rest += "/" + comps[j];
      std::string prefix;
      if (target[0] != '/')
        for (size_t j = 0; j < i; ++j) prefix += "/" + comps[j];
      return walk_in_root(root_fd, prefix + "/" + target + rest, flags, depth + 1);
    }
    if (fd < 0) return -1;
    if (last) return fd;
    stack.emplace_back(fd);
  }
  // Empty path or one that ends in "..": the directory reached.
  UniqueFd cur(::fcntl(stack.back().get(), F_DUPFD_CLOEXEC, 0));
  if (!cur.valid()) return -1;
  if ((flags & O_PATH) != 0) return cur.release();
  return ::openat(cur.get(), ".", flags | O_CLOEXEC);
}

}  // namespace

std::string fd_path(int fd) { return "/oldroot/proc/self/fd/" + std::to_string(fd); }

base::Result<UniqueFd> open_in_root(int root_fd, const std::string& path, int flags) {
  std::string rel(base::strip_leading_slashes(path));
  if (rel.empty()) rel = ".";
  if (!g_no_openat2) {
    int fd = openat2_settled(root_fd, rel, flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
    if (fd >= 0) return UniqueFd(fd);
    if (fd != -ENOSYS) return base::Error(-fd, path);
    g_no_openat2 = true;
  }
  int fd = walk_in_root(root_fd, rel, flags, 0);
  if (fd < 0) return base::errno_error(path);
  return UniqueFd(fd);
}

base::Result<UniqueFd> open_beneath(int dir_fd, const std::string& rel, int flags) {
  auto comps = base::components(rel);
  for (const auto& c : comps)
    if (c == "..") return base::Error(EXDEV, rel + ": \"..\" is not followed");
  std::string clean;
  for (const auto& c : comps) clean += (clean.empty() ? "" : "/") + c;
  if (clean.empty()) clean = ".";
  if (!g_no_openat2) {
    int fd =
        openat2_settled(dir_fd, clean, flags, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
    if (fd >= 0) return UniqueFd(fd);
    if (fd != -ENOSYS) return base::Error(-fd, rel);
    g_no_openat2 = true;
  }
  // No openat2: one component at a time, never following a link.
  UniqueFd cur(::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0));
  if (!cur.valid()) return base::errno_error(rel);
  for (size_t i = 0; i < comps.size(); ++i) {
    bool last = i + 1 == comps.size();
    int f = last ? (flags | O_NOFOLLOW) : (O_PATH | O_NOFOLLOW);
    UniqueFd next(::openat(cur.get(), comps[i].c_str(), f | O_CLOEXEC, 0));
    if (!next.valid()) return base::errno_error(rel);
    struct stat st {};
    if (::fstat(next.get(), &st) != 0) return base::errno_error(rel);
    if (!last && !S_ISDIR(st.st_mode)) return base::Error(S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR, rel);
    cur = std::move(next);
  }
  if (comps.empty()) {
    UniqueFd same(::openat(dir_fd, ".", flags | O_CLOEXEC));
    if (!same.valid()) return base::errno_error(rel);
    return same;
  }
  return cur;
}

base::Result<UniqueFd> mkdir_p_in_root(int root_fd, const std::string& path, mode_t mode) {
  // Usually the whole path exists already: one lookup.
  if (auto whole = open_in_root(root_fd, path, O_PATH | O_DIRECTORY);
      whole || whole.error().code() != ENOENT) {
    if (!whole) return whole.error().reworded(path);
    return whole;
  }
  auto comps = base::components(path);
  UniqueFd cur(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!cur.valid()) return base::errno_error(path);
  std::string prefix;
  for (const auto& c : comps) {
    prefix += "/" + c;
    auto next = open_in_root(root_fd, prefix, O_PATH | O_DIRECTORY);
    if (!next && next.error().code() == ENOENT && c != "..") {
      // Create it in the directory already resolved in-root: mkdirat never follows a final
      // symlink, so a planted link yields EEXIST and the lookup below fails, closed.
      if (::mkdirat(cur.get(), c.c_str(), mode) != 0 && errno != EEXIST) return base::errno_error(path);
      next = open_in_root(root_fd, prefix, O_PATH | O_DIRECTORY);
    }
    if (!next) return next.error().reworded(path);
    cur = std::move(next.value());
  }
  return cur;
}

}  // namespace rf::engine
