// SPDX-License-Identifier: LGPL-2.1-or-later
// remove_tree: a walk that keeps only the current directory open. Going down opens the entry
// without following links; going up opens ".." and checks it is the directory we came from.
#include "ringfence/base/remove_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "ringfence/base/unique_fd.hpp"

namespace rf::base {
namespace {

struct Frame {
  std::string name;  // in its parent
  std::string path;  // for the report
  dev_t dev = 0;
  ino_t ino = 0;
  std::set<std::string> kept;  // entries that stay (reported already, or holding such)
};

bool same(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// Directory `name` in `parent`, the one fstatat showed (`st`), opened for listing; when its mode
// refuses that (a `chmod 000` by the sandbox), it gets mode 0700 through an O_PATH descriptor of
// that very inode first. A directory we can list but not empty (mode 0500) gets 0700 as well.
UniqueFd open_dir(int parent, const char* name, const struct stat& st, int& err) {
  constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  UniqueFd fd(::openat(parent, name, kFlags));
  if (!fd.valid() && errno == EACCES) {
    UniqueFd path(::openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat ps {};
    if (!path.valid() || ::fstat(path.get(), &ps) != 0) {
      err = errno;
      return {};
    }
    if (!same(ps, st)) {
      err = ESTALE;
      return {};
    }
    std::string self = "/proc/self/fd/" + std::to_string(path.get());
    if (::chmod(self.c_str(), 0700) != 0) {
      // Without /proc: by name, once more checked to be that directory.
      struct stat again {};
      if (errno != ENOENT || ::fstatat(parent, name, &again, AT_SYMLINK_NOFOLLOW) != 0 || !same(again, st) ||
          !S_ISDIR(again.st_mode) || ::fchmodat(parent, name, 0700, 0) != 0) {
        err = errno == 0 ? EACCES : errno;
        return {};
      }
    }
    fd.reset(::openat(path.get(), ".", kFlags));
  }
  if (!fd.valid()) {
    err = errno;
    return {};
  }
  struct stat os {};
  if (::fstat(fd.get(), &os) != 0) {
    err = errno;
    return {};
  }
  if (!same(os, st) || !S_ISDIR(os.st_mode)) {
    err = ESTALE;
    return {};
  }
  if ((os.st_mode & 0700) != 0700 && ::fchmod(fd.get(), 0700) != 0) {
    err = errno;
    return {};
  }
  return fd;
}

}  // namespace

std::vector<std::string> remove_tree(const std::string& path) {
  std::vector<std::string> failed;
  auto note = [&failed](const std::string& p, int e) { failed.push_back(p + ": " + std::strerror(e)); };
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) note(path, errno);
    return failed;
  }
  if (!S_ISDIR(st.st_mode)) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) note(path, errno);
    return failed;
  }
  std::string clean = path;
  while (clean.size() > 1 && clean.back() == '/') clean.pop_back();
  const auto slash = clean.rfind('/');
  const std::string top_name = slash == std::string::npos ? clean : clean.substr(slash + 1);
  const std::string top_parent = slash == std::string::npos ? "." : slash == 0 ? "/" : clean.substr(0, slash);
  UniqueFd up(::open(top_parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!up.valid() || top_name.empty() || top_name == "." || top_name == "..") {
    note(path, up.valid() ? EINVAL : errno);
    return failed;
  }
  int err = 0;
  UniqueFd cur = open_dir(up.get(), top_name.c_str(), st, err);
  if (!cur.valid()) {
    note(path, err);
    return failed;
  }
  UniqueFd top_parent_fd = std::move(up);
  const dev_t dev = st.st_dev;
  std::vector<Frame> stack;
  stack.push_back({top_name, clean, st.st_dev, st.st_ino, {}});
  while (!stack.empty()) {
    Frame& f = stack.back();
    // Files, symlinks and everything not a directory go at once; the first directory found is
    // entered (the listing starts again on the way back, so nothing holds this one open).
    std::string next;
    struct stat nst {};
    int listing = ::dup(cur.get());
    DIR* d = listing >= 0 ? ::fdopendir(listing) : nullptr;
    if (!d) {
      if (listing >= 0) ::close(listing);
      note(f.path, errno);
      stack.clear();
      break;
    }
    ::rewinddir(d);
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n == "." || n == ".." || f.kept.count(n)) continue;
      if (::fstatat(cur.get(), e->d_name, &nst, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) continue;
        note(f.path + "/" + n, errno);
        f.kept.insert(n);
        continue;
      }
      if (!S_ISDIR(nst.st_mode)) {
        if (::unlinkat(cur.get(), e->d_name, 0) != 0 && errno != ENOENT) {
          note(f.path + "/" + n, errno);
          f.kept.insert(n);
        }
        continue;
      }
      if (nst.st_dev != dev) {
        failed.push_back(f.path + "/" + n + ": on another file system (a mount point), not entered");
        f.kept.insert(n);
        continue;
      }
      next = n;
      break;
    }
    ::closedir(d);
    if (!next.empty()) {
      int e = 0;
      UniqueFd child = open_dir(cur.get(), next.c_str(), nst, e);
      if (!child.valid()) {
        note(f.path + "/" + next, e);
        f.kept.insert(next);
        continue;
      }
      stack.push_back({next, f.path + "/" + next, nst.st_dev, nst.st_ino, {}});
      cur = std::move(child);
      continue;
    }
    // Emptied, or holding only what stays: back to the parent, which removes it.
    Frame done = std::move(stack.back());
    stack.pop_back();
    if (stack.empty()) {
      cur = std::move(top_parent_fd);
    } else {
      UniqueFd parent(::openat(cur.get(), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      struct stat ps {};
      if (!parent.valid() || ::fstat(parent.get(), &ps) != 0 || ps.st_dev != stack.back().dev ||
          ps.st_ino != stack.back().ino) {
        note(done.path + "/..", parent.valid() ? ESTALE : errno);
        return failed;  // moved while we worked: stop rather than remove elsewhere
      }
      cur = std::move(parent);
    }
    if (!done.kept.empty()) {
      if (!stack.empty()) stack.back().kept.insert(done.name);
      continue;
    }
    if (::unlinkat(cur.get(), done.name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
      note(done.path, errno);
      if (!stack.empty()) stack.back().kept.insert(done.name);
    }
  }
  return failed;
}

}  // namespace rf::base
