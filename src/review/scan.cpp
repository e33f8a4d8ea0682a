// SPDX-License-Identifier: LGPL-2.1-or-later
// scan: the overlay's upper directory read as the kernel wrote it (userxattr: whiteouts are
// 0/0 character devices or files marked user.overlay.whiteout, opaque directories carry
// user.overlay.opaque="y"), compared with the project below it.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>

#include "fs_util.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/review/apply.hpp"
#include "ringfence/review/changes.hpp"

namespace rf::review {
namespace {

constexpr int kDir = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

struct UpperMarks {
  bool opaque = false;
  bool whiteout_xattr = false;
};

// The overlay xattrs of an upper entry; a feature this reader does not know is refused.
base::Result<UpperMarks> marks_of(int ufd, const std::string& name, const std::string& rel) {
  UpperMarks m;
  RF_TRY_ASSIGN(names, xattr_names_at(ufd, name, rel));
  for (const auto& n : names) {
    std::string key;
    for (const char* prefix : {"user.overlay.", "trusted.overlay."})
      if (n.rfind(prefix, 0) == 0) key = n.substr(std::string(prefix).size());
    if (key.empty()) continue;
    if (key == "redirect" || key == "metacopy")
      return base::Error(ENOTSUP, "upper/" + rel + " uses the overlay feature '" + key +
                                      "', which review does not support: the change set is refused");
    if (key == "opaque") {
      RF_TRY_ASSIGN(v, xattr_at(ufd, name, n, rel));
      if (v && *v == "y") m.opaque = true;
    } else if (key == "whiteout") {
      m.whiteout_xattr = true;
    }
  }
  return m;
}

bool same_type(mode_t a, mode_t b) { return (a & S_IFMT) == (b & S_IFMT); }

struct Scanner {
  const std::vector<std::string>& masked;
  const std::string& project;
  std::vector<Change> out;

  bool is_masked(const std::string& rel) const {
    // Paths, as meta.json holds them; a mask pattern there (a glob) is honoured too.
    for (const auto& m : masked)
      if (base::is_under(rel, base::normalize(m)) || base::pattern_applies(m, rel, false) ||
          base::pattern_applies(m, rel, true))
        return true;
    return false;
  }

  void emit(const std::string& rel, ChangeKind kind, mode_t old_mode, mode_t new_mode,
            const std::string& target, const struct stat* ust) {
    Change c;
    c.path = rel;
    c.kind = kind;
    c.old_mode = old_mode;
    c.new_mode = new_mode;
    c.link_target = target;
    if (ust) {
      c.upper_ino = ust->st_ino;
      c.upper_nlink = ust->st_nlink;
    }
    c.reason = risky_reason(rel, new_mode, target, project);
    c.risky = !c.reason.empty();
    out.push_back(std::move(c));
  }

  // Every entry of the project's directory `lfd` (at `rel`) as deleted, children first.
  base::Status deleted_below(int lfd, const std::string& rel, int depth) {
    if (depth > 4096) return base::Error(ELOOP, rel + ": too deep");
    RF_TRY_ASSIGN(names, list_dir(lfd, rel));
    for (const auto& n : names) RF_TRY(deleted(lfd, n, rel.empty() ? n : rel + "/" + n, depth + 1));
    return {};
  }

  base::Status deleted(int lfd, const std::string& name, const std::string& rel, int depth) {
    if (is_masked(rel)) return {};
    struct stat st {};
    if (::fstatat(lfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) return {};
      return base::errno_error("stat " + rel);
    }
    if (S_ISDIR(st.st_mode)) {
      base::UniqueFd sub(::openat(lfd, name.c_str(), kDir));
      if (!sub.valid()) return base::errno_error("open " + rel);
      RF_TRY(deleted_below(sub.get(), rel, depth));
    }
    emit(rel, ChangeKind::Deleted, st.st_mode, 0, "", nullptr);
    return {};
  }

  base::Status file(int ufd, int lfd, const std::string& name, const std::string& rel, const struct stat& ust,
                    const struct stat& lst) {
    const mode_t um = ust.st_mode, lm = lst.st_mode;
    bool differs = false;
    std::string target;
    if (S_ISREG(um)) {
      if (ust.st_size != lst.st_size) {
        differs = true;
      } else {
        RF_TRY_ASSIGN(a, open_file_at(ufd, name, "upper/" + rel));
        RF_TRY_ASSIGN(b, open_file_at(lfd, name, rel));
        RF_TRY_ASSIGN(same, same_bytes(a.get(), b.get(), rel));
        differs = !same;
      }
    } else if (S_ISLNK(um)) {
      RF_TRY_ASSIGN(t, read_link_at(ufd, name, "upper/" + rel));
      RF_TRY_ASSIGN(old, read_link_at(lfd, name, rel));
      target = t;
      differs = t != old;
    } else if (S_ISCHR(um) || S_ISBLK(um)) {
      differs = ust.st_rdev != lst.st_rdev;
    }
    if (differs)
      emit(rel, ChangeKind::Modified, lm, um, target, &ust);
    else if ((um & 07777) != (lm & 07777) && !S_ISLNK(um))
      emit(rel, ChangeKind::ModeChanged, lm, um, target, &ust);
    return {};
  }

  base::Status entry(int ufd, int lfd, const std::string& name, const std::string& rel, bool full,
                     int depth) {
    struct stat ust {};
    if (::fstatat(ufd, name.c_str(), &ust, AT_SYMLINK_NOFOLLOW) != 0)
      return base::errno_error("stat upper/" + rel);
    RF_TRY_ASSIGN(marks, marks_of(ufd, name, rel));
    const bool whiteout = (S_ISCHR(ust.st_mode) && ust.st_rdev == makedev(0, 0)) ||
                          (S_ISREG(ust.st_mode) && marks.whiteout_xattr && ust.st_size == 0);
    struct stat lst {};
    bool lower = false;
    if (lfd >= 0) {
      if (::fstatat(lfd, name.c_str(), &lst, AT_SYMLINK_NOFOLLOW) == 0)
        lower = true;
      else if (errno != ENOENT)
        return base::errno_error("stat " + project + "/" + rel);
    }
    if (whiteout) return lower ? deleted(lfd, name, rel, depth) : base::Status();
    std::string target;
    if (S_ISLNK(ust.st_mode)) {
      RF_TRY_ASSIGN(t, read_link_at(ufd, name, "upper/" + rel));
      target = t;
    }
    if (S_ISDIR(ust.st_mode)) {
      base::UniqueFd usub(::openat(ufd, name.c_str(), kDir));
      if (!usub.valid()) return base::errno_error("open upper/" + rel);
      base::UniqueFd lsub;
      if (!lower) {
        emit(rel, ChangeKind::Added, 0, ust.st_mode, "", &ust);
      } else if (S_ISDIR(lst.st_mode)) {
        if ((ust.st_mode & 07777) != (lst.st_mode & 07777))
          emit(rel, ChangeKind::ModeChanged, lst.st_mode, ust.st_mode, "", &ust);
        lsub.reset(::openat(lfd, name.c_str(), kDir));
        if (!lsub.valid()) return base::errno_error("open " + project + "/" + rel);
      } else {
        emit(rel, ChangeKind::TypeChanged, lst.st_mode, ust.st_mode, "", &ust);
      }
      return dir(usub.get(), lsub.get(), rel, full || marks.opaque, depth + 1);
    }
    if (!lower) {
      emit(rel, ChangeKind::Added, 0, ust.st_mode, target, &ust);
    } else if (S_ISDIR(lst.st_mode)) {
      base::UniqueFd lsub(::openat(lfd, name.c_str(), kDir));
      if (!lsub.valid()) return base::errno_error("open " + project + "/" + rel);
      RF_TRY(deleted_below(lsub.get(), rel, depth));
      emit(rel, ChangeKind::TypeChanged, lst.st_mode, ust.st_mode, target, &ust);
    } else if (!same_type(ust.st_mode, lst.st_mode)) {
      emit(rel, ChangeKind::TypeChanged, lst.st_mode, ust.st_mode, target, &ust);
    } else {
      RF_TRY(file(ufd, lfd, name, rel, ust, lst));
    }
    return {};
  }

  // Upper directory `ufd` at `rel` over the project's `lfd` (-1: none there). `full`: the
  // directory is opaque or lies in one, so what the project has there and upper lacks is gone.
  base::Status dir(int ufd, int lfd, const std::string& rel, bool full, int depth) {
    if (depth > 4096) return base::Error(ELOOP, "upper/" + rel + ": too deep");
    RF_TRY_ASSIGN(names, list_dir(ufd, "upper/" + rel));
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      const std::string r = rel.empty() ? n : rel + "/" + n;
      if (is_masked(r)) continue;
      RF_TRY(entry(ufd, lfd, n, r, full, depth));
    }
    if (full && lfd >= 0) {
      const std::set<std::string> seen(names.begin(), names.end());
      RF_TRY_ASSIGN(lower, list_dir(lfd, rel));
      std::sort(lower.begin(), lower.end());
      for (const auto& n : lower)
        if (!seen.count(n)) RF_TRY(deleted(lfd, n, rel.empty() ? n : rel + "/" + n, depth));
    }
    return {};
  }
};

}  // namespace

base::Result<std::vector<Change>> scan_dirs(int upper_fd, int lower_fd,
                                            const std::vector<std::string>& masked,
                                            const std::string& project_realpath) {
  Scanner s{masked, project_realpath, {}};
  RF_TRY(s.dir(upper_fd, lower_fd, "", false, 0));
  std::stable_sort(s.out.begin(), s.out.end(),
                   [](const Change& a, const Change& b) { return path_less(a.path, b.path); });
  return std::move(s.out);
}

base::Result<OpenedChangeSet> open_trees(const ChangeSet& cs, int project_flags) {
  base::UniqueFd slash(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  auto project = open_beneath(slash.get(), std::string(base::strip_leading_slashes(cs.meta.project)),
                              project_flags | O_DIRECTORY);
  if (!project) return std::move(project).error().context("the project " + cs.meta.project);
  struct stat pst {};
  if (::fstat(project->get(), &pst) != 0) return base::errno_error("stat " + cs.meta.project);
  if (pst.st_dev != cs.meta.project_dev || pst.st_ino != cs.meta.project_ino)
    return base::Error(ESTALE,
                       cs.meta.project + " is not the directory the run saw (another device/inode): refused");
  RF_TRY_ASSIGN(dir, open_change_set_dir(cs.paths));
  base::UniqueFd upper(::openat(dir.get(), "upper", kDir));
  if (!upper.valid()) return base::errno_error("open " + cs.paths.upper);
  struct stat ust {};
  if (::fstat(upper.get(), &ust) != 0 || ust.st_uid != ::geteuid())
    return base::Error(EPERM,
                       cs.paths.upper + ": not owned by uid " + std::to_string(::geteuid()) + ": refused");
  OpenedChangeSet o;
  o.upper = std::move(upper);
  o.project = std::move(*project);
  return o;
}

base::Result<std::vector<Change>> scan(const ChangeSet& cs) {
  RF_TRY_ASSIGN(t, open_trees(cs, O_RDONLY));
  return scan_dirs(t.upper.get(), t.project.get(), cs.meta.masked, cs.meta.project);
}

const char* kind_name(ChangeKind k) {
  switch (k) {
    case ChangeKind::Added: return "added";
    case ChangeKind::Modified: return "modified";
    case ChangeKind::Deleted: return "deleted";
    case ChangeKind::TypeChanged: return "type-changed";
    case ChangeKind::ModeChanged: return "mode-changed";
  }
  return "modified";
}

Summary summarize(const std::vector<Change>& changes) {
  Summary s;
  for (const auto& c : changes) {
    if (c.kind == ChangeKind::Added)
      ++s.added;
    else if (c.kind == ChangeKind::Deleted)
      ++s.deleted;
    else
      ++s.modified;
    if (c.risky) ++s.risky;
  }
  return s;
}

std::string Summary::text() const {
  return std::to_string(added) + " added, " + std::to_string(modified) + " modified, " +
         std::to_string(deleted) + " deleted, " + std::to_string(risky) + " risky";
}

}  // namespace rf::review
