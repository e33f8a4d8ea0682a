// SPDX-License-Identifier: LGPL-2.1-or-later
// The walk behind private_entries: directory fds only, bounded in entries and depth.
#include "run_etc.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <optional>
#include <utility>

#include "prefetch.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::cli {
namespace {

constexpr int kMaxDepth = 16;

bool world_readable(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return (st.st_mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH);
  return (st.st_mode & S_IROTH) != 0;
}

// The entries of a directory fd just opened (its offset at the start), sorted, with the type
// getdents gave (DT_UNKNOWN where the file system gives none); read with getdents64 straight
// from the fd (no dup and DIR stream for each directory). Nullopt when it cannot be listed.
std::optional<std::vector<std::pair<std::string, unsigned char>>> listing(int dir_fd) {
  std::vector<std::pair<std::string, unsigned char>> names;
  alignas(8) char buf[16384];
  for (;;) {
    const ssize_t n = ::getdents64(dir_fd, buf, sizeof buf);
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(buf + at);
      at += e->d_reclen;
      std::string name = e->d_name;
      if (name != "." && name != "..") names.emplace_back(std::move(name), e->d_type);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

void walk(int dir_fd, const std::string& path, int depth, int& budget, PrivateEntries& out) {
  const auto names = listing(dir_fd);
  if (!names) {
    out.paths.push_back(path);  // cannot be listed by us: covered whole
    return;
  }
  for (const auto& [n, type] : *names) {
    if (--budget < 0) {
      out.truncated = true;
      return;
    }
    // Links and special files are skipped on the directory's word (two thirds of a Debian /etc
    // are links: no stat for them); a regular file or directory is judged on its stat.
    if (type != DT_REG && type != DT_DIR && type != DT_UNKNOWN) continue;
    const std::string p = path + "/" + n;
    struct stat st {};
    if (::fstatat(dir_fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
    if (!world_readable(st)) {
      out.paths.push_back(p);
      continue;
    }
    if (!S_ISDIR(st.st_mode)) continue;
    base::UniqueFd sub(::openat(dir_fd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub.valid()) {
      out.paths.push_back(p);  // world-readable, yet not for us (group bits): covered whole
      continue;
    }
    if (depth + 1 >= kMaxDepth) {
      out.truncated = true;  // not looked into
      continue;
    }
    walk(sub.get(), p, depth + 1, budget, out);
  }
}

PrivateEntries walk_root(const std::string& root) {
  PrivateEntries out;
  base::UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return out;
  int budget = kEtcScanLimit;
  walk(fd.get(), root, 0, budget, out);
  return out;
}

Prefetched<PrivateEntries>& prefetch() {
  static Prefetched<PrivateEntries> p;
  return p;
}

}  // namespace

void prefetch_private_entries(const std::string& root) {
  prefetch().start(root, [root] { return walk_root(root); });
}

void end_private_entries_prefetch() { prefetch().drop(); }

PrivateEntries private_entries(const std::string& root) {
  if (auto started = prefetch().take(root)) return std::move(*started);
  return walk_root(root);
}

base::Result<std::string> bind_target(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    return base::Error(0, "the egress allowlist names the sandbox's resolver in " + path +
                              ", and this host has no " + path +
                              " to put it over (the sandbox's /etc is the host's, read-only); create one (an "
                              "empty file will do)");
  if (!S_ISLNK(st.st_mode)) return path;
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) != nullptr) return std::string(buf);
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return base::errno_error("readlink " + path);
  std::string target(buf, static_cast<std::size_t>(n));
  if (!target.starts_with('/')) target = base::parent(path) + "/" + target;
  std::vector<std::string> parts;  // ".." taken off lexically, as the link's text reads
  for (auto& part : base::components(target)) {
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (part != ".") {
      parts.push_back(std::move(part));
    }
  }
  std::string out;
  for (const auto& part : parts) out += "/" + part;
  return out.empty() ? std::string("/") : out;
}

}  // namespace rf::cli
