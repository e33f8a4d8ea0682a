// SPDX-License-Identifier: LGPL-2.1-or-later
// apply: every selected change checked against the project first, then written fd-relative
// beneath the project's directory (deletions deepest first, then creations in path order,
// directory modes last), each file by a temporary file and a rename.
#include "ringfence/review/apply.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "fs_util.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::review {
namespace {

std::string type_word(mode_t m) {
  if (S_ISREG(m)) return "file";
  if (S_ISDIR(m)) return "directory";
  if (S_ISLNK(m)) return "symbolic link";
  if (S_ISFIFO(m)) return "FIFO";
  if (S_ISCHR(m) || S_ISBLK(m)) return "device node";
  return "special file";
}

std::int64_t ctime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
}

mode_t perms_of(const Change& c, bool include_risky) {
  mode_t p = c.new_mode & 07777;
  if (!include_risky) p &= ~static_cast<mode_t>(S_ISUID | S_ISGID);
  return p;
}

struct Applier {
  const ChangeSet& cs;
  const ApplyOptions& opt;
  int root;
  int upper;
  std::set<std::string> created_dirs;           // added directories of this apply
  std::map<std::uint64_t, std::string> linked;  // upper inode -> the first path written for it
  std::vector<std::pair<std::string, mode_t>> dir_modes;
  unsigned counter = 0;

  // Whether the project's entry is already what the change makes it.
  base::Result<bool> matches_new(const Change& c, const struct stat& host) {
    if (c.new_mode == 0 || (host.st_mode & S_IFMT) != (c.new_mode & S_IFMT)) return false;
    // A directory's set-id bits are not what makes it the change set's (a first apply leaves them out).
    const mode_t ignore = S_ISDIR(host.st_mode) ? static_cast<mode_t>(S_ISUID | S_ISGID) : 0;
    if (!S_ISLNK(host.st_mode) &&
        (host.st_mode & 07777 & ~ignore) != (perms_of(c, opt.include_risky) & ~ignore))
      return false;
    if (S_ISLNK(host.st_mode)) {
      RF_TRY_ASSIGN(p, open_parent_beneath(root, c.path));
      RF_TRY_ASSIGN(t, read_link_at(p.fd.get(), p.name, c.path));
      return t == c.link_target;
    }
    if (S_ISREG(host.st_mode)) {
      RF_TRY_ASSIGN(a, open_beneath(root, c.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
      RF_TRY_ASSIGN(b, open_beneath(upper, c.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
      return same_bytes(a.get(), b.get(), c.path);
    }
    return S_ISDIR(host.st_mode);
  }

  // "" when the change may be written, "already" when it is there, else why not.
  base::Result<std::string> check(const Change& c, const std::set<std::string>& adding) {
    const std::string parent =
        c.path.find('/') == std::string::npos ? "" : base::parent("/" + c.path).substr(1);
    auto host = lstat_beneath(root, c.path);
    if (!host) {
      const int e = host.error().code();
      // Below a directory this apply makes in place of a file or link: nothing there yet.
      if ((e == ELOOP || e == ENOTDIR) && c.kind == ChangeKind::Added && adding.count(parent))
        return std::string();
      if (e == ELOOP || e == ENOTDIR || e == EXDEV)
        return std::string("a parent directory on the host is now a symbolic link or not a directory");
      return std::move(host).error();
    }
    if (!*host) {
      if (c.kind == ChangeKind::Deleted) return std::string("already");
      if (c.kind != ChangeKind::Added)
        return std::string("is gone on the host (the change expects a " + type_word(c.old_mode) + ")");
      if (!parent.empty() && !adding.count(parent)) {
        auto pst = lstat_beneath(root, parent);
        if (!pst || !*pst || !S_ISDIR((*pst)->st_mode))
          return std::string("its directory " + parent + " is gone on the host");
      }
      return std::string();
    }
    const struct stat& st = **host;
    RF_TRY_ASSIGN(same, matches_new(c, st));
    if (same && c.kind != ChangeKind::Deleted) return std::string("already");
    if (c.kind == ChangeKind::Added) return std::string("exists on the host now (the change adds it)");
    if ((st.st_mode & S_IFMT) != (c.old_mode & S_IFMT))
      return std::string("is a " + type_word(st.st_mode) + " on the host, the change expects a " +
                         type_word(c.old_mode));
    if (ctime_ns(st) >= cs.meta.started_ns - kClockSlackNs)
      return std::string("changed on the host after the run started");
    return std::string();
  }

  // The first entry of the project's directory `dir` that is not among `deleting` ("" if none,
  // or when the directory is gone: check() says what that means).
  base::Result<std::string> unlisted_entry(const std::string& dir, const std::set<std::string>& deleting) {
    auto fd = open_beneath(root, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (!fd) return std::string();
    RF_TRY_ASSIGN(names, list_dir(fd->get(), dir));
    for (const auto& n : names)
      if (!deleting.count(dir + "/" + n)) return dir + "/" + n;
    return std::string();
  }

  std::string temp_name() {
    return ".rf-apply-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
  }

  base::Status remove(const Change& c) {
    RF_TRY_ASSIGN(p, open_parent_beneath(root, c.path));
    if (S_ISDIR(c.old_mode)) {
      if (::unlinkat(p.fd.get(), p.name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
        return base::errno_error("remove the directory " + c.path);
    } else if (::unlinkat(p.fd.get(), p.name.c_str(), 0) != 0 && errno != ENOENT) {
      return base::errno_error("remove " + c.path);
    }
    return {};
  }

  base::Status copy_into(int dst, const Change& c) {
    RF_TRY_ASSIGN(src, open_beneath(upper, c.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
    struct stat st {};
    if (::fstat(src.get(), &st) != 0 || !S_ISREG(st.st_mode))
      return base::Error(EINVAL, "upper/" + c.path + ": no longer a regular file");
    std::string buf(128 * 1024, '\0');
    for (;;) {
      const ssize_t n = ::read(src.get(), buf.data(), buf.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return base::errno_error("read upper/" + c.path);
      }
      if (n == 0) break;
      auto w = base::write_all(dst, std::string_view(buf.data(), static_cast<std::size_t>(n)));
      if (!w) return std::move(w).error().context("write " + c.path);
    }
    return {};
  }

  // The new entry under a temporary name in its directory, then renamed over the old one.
  // Run as root, apply gives what it writes the owner of what it replaces, else of the
  // directory it goes into (the project's owner, not root). nullopt: leave it to the kernel.
  static std::optional<std::pair<uid_t, gid_t>> owner_for(int dir, const std::string& name) {
    if (::geteuid() != 0) return std::nullopt;
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && ::fstat(dir, &st) != 0)
      return std::nullopt;
    return std::make_pair(st.st_uid, st.st_gid);
  }

  static base::Status chown_to(int dir, const std::string& name,
                               const std::optional<std::pair<uid_t, gid_t>>& o, const std::string& shown) {
    if (o && ::fchownat(dir, name.c_str(), o->first, o->second, AT_SYMLINK_NOFOLLOW) != 0)
      return base::errno_error("chown " + shown);
    return {};
  }

  base::Status write_entry(const Change& c) {
    RF_TRY_ASSIGN(p, open_parent_beneath(root, c.path));
    const int dir = p.fd.get();
    const auto owner = owner_for(dir, p.name);
    if (S_ISDIR(c.new_mode)) {
      if (::mkdirat(dir, p.name.c_str(), 0700) != 0) return base::errno_error("mkdir " + c.path);
      RF_TRY(chown_to(dir, p.name, owner, c.path));
      dir_modes.emplace_back(c.path, perms_of(c, opt.include_risky));
      return {};
    }
    const std::string tmp = temp_name();
    const mode_t perms = perms_of(c, opt.include_risky);
    if (S_ISREG(c.new_mode)) {
      auto first = c.upper_nlink > 1 ? linked.find(c.upper_ino) : linked.end();
      if (first != linked.end()) {
        RF_TRY_ASSIGN(fp, open_parent_beneath(root, first->second));
        if (::linkat(fp.fd.get(), fp.name.c_str(), dir, tmp.c_str(), 0) != 0)
          return base::errno_error("link " + c.path + " to " + first->second);
      } else {
        base::UniqueFd fd(
            ::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
        if (!fd.valid()) return base::errno_error("create a temporary file beside " + c.path);
        // The owner first: a change of owner clears the set-id bits the mode may carry.
        base::Status copied = chown_to(dir, tmp, owner, c.path);
        if (copied) copied = copy_into(fd.get(), c);
        if (copied && ::fchmod(fd.get(), perms) != 0) copied = base::errno_error("chmod " + c.path);
        // On the disk before the rename: a crash leaves the old file or the new, never an empty one.
        if (copied && ::fsync(fd.get()) != 0) copied = base::errno_error("fsync " + c.path);
        if (!copied) {
          ::unlinkat(dir, tmp.c_str(), 0);
          return copied;
        }
        if (c.upper_nlink > 1) linked.emplace(c.upper_ino, c.path);
      }
    } else if (S_ISLNK(c.new_mode)) {
      if (::symlinkat(c.link_target.c_str(), dir, tmp.c_str()) != 0)
        return base::errno_error("symlink " + c.path);
      if (auto o = chown_to(dir, tmp, owner, c.path); !o) {
        ::unlinkat(dir, tmp.c_str(), 0);
        return o;
      }
    } else {
      struct stat ust {};
      RF_TRY_ASSIGN(up, open_parent_beneath(upper, c.path));
      if (::fstatat(up.fd.get(), up.name.c_str(), &ust, AT_SYMLINK_NOFOLLOW) != 0)
        return base::errno_error("stat upper/" + c.path);
      if (::mknodat(dir, tmp.c_str(), (c.new_mode & S_IFMT) | perms, ust.st_rdev) != 0)
        return base::errno_error("mknod " + c.path);
    }
    if (::renameat(dir, tmp.c_str(), dir, p.name.c_str()) != 0) {
      const auto e = base::errno_error("rename a temporary file to " + c.path);
      ::unlinkat(dir, tmp.c_str(), 0);
      return e;
    }
    // The rename itself on the disk: the directory is held as O_PATH, so a readable descriptor
    // of that very directory is opened from it (a failure there loses no data).
    base::UniqueFd sync(::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (sync.valid()) (void)::fsync(sync.get());
    return {};
  }

  base::Status write(const Change& c) {
    switch (c.kind) {
      case ChangeKind::Deleted: return remove(c);
      case ChangeKind::ModeChanged:
        if (S_ISDIR(c.new_mode)) {
          dir_modes.emplace_back(c.path, perms_of(c, opt.include_risky));
          return {};
        } else {
          RF_TRY_ASSIGN(p, open_parent_beneath(root, c.path));
          if (::fchmodat(p.fd.get(), p.name.c_str(), perms_of(c, opt.include_risky), AT_SYMLINK_NOFOLLOW) !=
              0)
            return base::errno_error("chmod " + c.path);
          return {};
        }
      case ChangeKind::TypeChanged: {
        RF_TRY_ASSIGN(p, open_parent_beneath(root, c.path));
        RF_TRY(remove_tree_at(p.fd.get(), p.name, c.path));
        return write_entry(c);
      }
      case ChangeKind::Added:
      case ChangeKind::Modified: return write_entry(c);
    }
    return {};
  }
};

}  // namespace

base::Result<std::vector<Change>> select_changes(const std::vector<Change>& changes,
                                                 const std::vector<std::string>& paths) {
  if (paths.empty()) return changes;
  std::set<std::string> wanted;
  for (const auto& raw : paths) {
    std::string p = base::normalize(raw);
    while (p.rfind("./", 0) == 0) p = p.substr(2);
    if (p == ".") p.clear();
    const auto parts = base::components(p);
    if (!p.empty() && (p[0] == '/' || std::find(parts.begin(), parts.end(), "..") != parts.end()))
      return base::Error::usage("PATH '" + raw + "': give a path relative to the project, without '..'");
    bool hit = false;
    for (const auto& c : changes)
      if (p.empty() || base::is_under(c.path, p)) {
        wanted.insert(c.path);
        hit = true;
      }
    if (!hit) return base::Error::usage("PATH '" + raw + "': the change set changes nothing there");
  }
  // The added directories that hold a selected change come with it.
  std::set<std::string> adds;
  for (const auto& c : changes)
    if ((c.kind == ChangeKind::Added || c.kind == ChangeKind::TypeChanged) && S_ISDIR(c.new_mode))
      adds.insert(c.path);
  for (const auto& w : std::set<std::string>(wanted)) {
    for (std::string p = w; p.find('/') != std::string::npos;) {
      p = p.substr(0, p.rfind('/'));
      if (adds.count(p)) wanted.insert(p);
    }
  }
  std::vector<Change> out;
  for (const auto& c : changes)
    if (wanted.count(c.path)) out.push_back(c);
  return out;
}

base::Result<ApplyResult> apply(const ChangeSet& cs, const std::vector<Change>& changes,
                                const ApplyOptions& opt) {
  RF_TRY_ASSIGN(selected, select_changes(changes, opt.paths));
  RF_TRY_ASSIGN(trees, open_trees(cs, O_PATH));
  ApplyResult r;
  Applier a{cs, opt, trees.project.get(), trees.upper.get(), {}, {}, {}, 0};
  std::vector<Change> todo;
  std::set<std::string> adding;
  // A risky entry left out takes what the change set has below it along (nothing can be
  // written into a directory that is not made).
  std::vector<std::string> left_out;
  for (auto& c : selected) {
    const bool below = std::any_of(left_out.begin(), left_out.end(),
                                   [&](const std::string& p) { return base::is_under(c.path, p); });
    if (below && c.kind != ChangeKind::Deleted) {
      c.risky = true;
      c.reason = "inside a risky entry that is left out";
    }
    if (c.risky && !opt.include_risky) {
      r.skipped_risky.push_back(c);
      if (c.kind != ChangeKind::Deleted && c.kind != ChangeKind::ModeChanged) left_out.push_back(c.path);
      continue;
    }
    if (S_ISDIR(c.new_mode) && c.kind != ChangeKind::ModeChanged) adding.insert(c.path);
  }
  // A directory deletion goes only with everything in it: one that holds a risky deletion left
  // out is left out too (its parents with it).
  std::set<std::string> deleting;
  for (auto& c : selected)
    if (c.kind == ChangeKind::Deleted && !(c.risky && !opt.include_risky)) deleting.insert(c.path);
  for (const auto& k : std::vector<Change>(r.skipped_risky)) {
    if (k.kind != ChangeKind::Deleted) continue;
    for (std::string p = k.path; p.find('/') != std::string::npos;) {
      p = p.substr(0, p.rfind('/'));
      if (!deleting.erase(p)) continue;
      for (auto& c : selected)
        if (c.path == p && c.kind == ChangeKind::Deleted) {
          c.risky = true;
          c.reason = "holds a risky deletion that is left out";
          r.skipped_risky.push_back(c);
        }
    }
  }
  for (auto& c : selected) {
    if (c.risky && !opt.include_risky) continue;
    if (c.kind == ChangeKind::Deleted && S_ISDIR(c.old_mode)) {
      RF_TRY_ASSIGN(extra, a.unlisted_entry(c.path, deleting));
      if (!extra.empty()) {
        r.conflicts.push_back(c.path + ": holds " + extra + ", which this apply does not delete");
        continue;
      }
    }
    RF_TRY_ASSIGN(why, a.check(c, adding));
    if (why == "already")
      r.already.push_back(c);
    else if (!why.empty())
      r.conflicts.push_back(c.path + ": " + why);
    else
      todo.push_back(c);
  }
  if (!r.conflicts.empty()) return r;
  // Deletions deepest first, then the rest in path order (a directory before what it holds).
  std::vector<const Change*> order;
  for (const auto& c : todo)
    if (c.kind == ChangeKind::Deleted) order.push_back(&c);
  std::sort(order.begin(), order.end(),
            [](const Change* x, const Change* y) { return path_less(y->path, x->path); });
  for (const auto& c : todo)
    if (c.kind != ChangeKind::Deleted) order.push_back(&c);
  for (const Change* c : order) {
    auto w = a.write(*c);
    if (!w)
      return std::move(w).error().context("apply stopped at " + c->path + " after " +
                                          std::to_string(r.applied.size()) + " of " +
                                          std::to_string(todo.size()) + " changes");
    r.applied.push_back(*c);
  }
  std::sort(a.dir_modes.begin(), a.dir_modes.end(),
            [](const auto& x, const auto& y) { return path_less(y.first, x.first); });
  for (const auto& [path, mode] : a.dir_modes) {
    RF_TRY_ASSIGN(p, open_parent_beneath(a.root, path));
    if (::fchmodat(p.fd.get(), p.name.c_str(), mode, AT_SYMLINK_NOFOLLOW) != 0)
      return base::errno_error("chmod " + path);
  }
  if (opt.paths.empty()) {
    RF_TRY(mark_applied(cs));
    r.marked_applied = true;
  }
  return r;
}

}  // namespace rf::review
