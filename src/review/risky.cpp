// SPDX-License-Identifier: LGPL-2.1-or-later
// The risky classes (docs/review.md, "Risky changes"): what git runs or reads as
// configuration, a .git anywhere, files editors and tools run on their own, setuid/setgid,
// links out of the project, device nodes and FIFOs. And the walk that finds them after a run
// that wrote the project directly.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "fs_util.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/presets/autorun.hpp"
#include "ringfence/review/changes.hpp"

namespace rf::review {
namespace {

// Entries of the top-level .git directory that git executes or reads as configuration (or
// that send it to another repository's).
constexpr const char* kGitControl[] = {
    "hooks",
    "config",
    "config.worktree",
    "info",
    "modules",
    "commondir",
    "gitdir",
    "worktrees",
    "remotes",
    "branches",
    "objects/info/alternates",
    "objects/info/http-alternates",
};

// Auto-run files: [pattern on the relative path, at any depth unless it starts with '/'].
struct AutoRun {
  const char* path;
  bool any_depth;
  bool tree;  // the directory and everything under it
};
constexpr AutoRun kAutoRun[] = {
    {".envrc", true, false},
    {".vscode/tasks.json", true, false},
    {".vscode/settings.json", true, false},
    {".vscode/launch.json", true, false},
    {".pre-commit-config.yaml", true, false},
    {".github/workflows", false, true},
    {".devcontainer", true, true},
    {".devcontainer.json", true, false},
    {".husky", false, true},
};

bool under(const std::string& path, const std::string& prefix) {
  return path == prefix || (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                            path[prefix.size()] == '/');
}

std::string path_class(const std::string& path) {
  const auto parts = base::components(path);
  if (parts.empty()) return "";
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (parts[i] == ".git") return "a .git below the top: a repository git would enter";
  if (parts[0] == ".git") {
    if (parts.size() == 1) return "the project's .git itself: which repository git uses";
    const std::string rest = path.substr(5);
    for (const char* c : kGitControl)
      if (under(rest, c))
        return "git control file: .git/" + std::string(c) + " (run or read as configuration)";
    return "";
  }
  for (const auto& a : kAutoRun) {
    bool hit = a.tree ? under(path, a.path) : path == a.path;
    if (!hit && a.any_depth) {
      const std::string suffix = std::string("/") + a.path;
      if (a.tree) {
        hit = path.find(suffix + "/") != std::string::npos ||
              (path.size() >= suffix.size() &&
               path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0);
      } else {
        hit = path.size() >= suffix.size() &&
              path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
      }
    }
    if (hit) return std::string("auto-run file: ") + a.path + " (run by a tool without asking)";
  }
  return "";
}

}  // namespace

bool link_leaves_project(const std::string& path, const std::string& target,
                         const std::string& project_realpath) {
  if (target.empty()) return true;
  std::vector<std::string> stack;
  std::string t = target;
  if (target[0] == '/') {
    // An absolute target stays in only when it names the project's own path.
    if (project_realpath.empty() || !base::is_under(base::normalize(target), project_realpath)) return true;
    t = target.substr(project_realpath.size());
  } else {
    stack = base::components(path);
    if (!stack.empty()) stack.pop_back();
  }
  for (const auto& c : base::components(t)) {
    if (c == "..") {
      if (stack.empty()) return true;
      stack.pop_back();
    } else {
      stack.push_back(c);
    }
  }
  return false;
}

std::string risky_reason(const std::string& path, mode_t mode, const std::string& link_target,
                         const std::string& project_realpath) {
  std::string r = path_class(path);
  if (!r.empty()) return r;
  // The files host tools run that the warning after a run names (presets/autorun.hpp): every
  // one of them is risky here too.
  r = presets::autorun_reason(path, S_ISDIR(mode));
  if (!r.empty()) return "auto-run file: " + r;
  if (mode == 0) return "";
  if (S_ISREG(mode) && (mode & (S_ISUID | S_ISGID))) return "setuid/setgid file";
  if (S_ISLNK(mode) && link_leaves_project(path, link_target, project_realpath))
    return "symbolic link out of the project (to " + link_target + ")";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "device node";
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISSOCK(mode)) return "socket";
  return "";
}

namespace {

struct Walker {
  std::int64_t since;
  std::string project;
  std::vector<Change> out;

  static std::int64_t ns(const struct statx_timestamp& t) {
    return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
  }

  void visit(int dirfd, const std::string& rel, int depth) {
    if (depth > 4096) return;
    base::UniqueFd d(::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!d.valid()) return;
    DIR* dir = ::fdopendir(d.release());
    if (!dir) return;
    while (struct dirent* e = ::readdir(dir)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      const std::string path = rel.empty() ? std::string(e->d_name) : rel + "/" + e->d_name;
      struct statx sx {};
      if (::statx(::dirfd(dir), e->d_name, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
                  STATX_TYPE | STATX_MODE | STATX_CTIME | STATX_BTIME, &sx) != 0)
        continue;
      const mode_t mode = sx.stx_mode;
      const bool fresh = ns(sx.stx_ctime) >= since;
      const bool born = (sx.stx_mask & STATX_BTIME) && ns(sx.stx_btime) >= since;
      if (fresh && (!S_ISDIR(mode) || born)) {
        std::string target;
        if (S_ISLNK(mode)) {
          auto t = read_link_at(::dirfd(dir), e->d_name, path);
          if (t) target = *t;
        }
        std::string why = risky_reason(path, mode, target, project);
        if (!why.empty()) {
          Change c;
          c.path = path;
          c.kind = born ? ChangeKind::Added : ChangeKind::Modified;
          c.risky = true;
          c.reason = std::move(why);
          c.new_mode = mode;
          c.link_target = target;
          out.push_back(std::move(c));
        }
      }
      if (S_ISDIR(mode)) {
        base::UniqueFd sub(
            ::openat(::dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (sub.valid()) visit(sub.get(), path, depth + 1);
      }
    }
    ::closedir(dir);
  }
};

}  // namespace

std::vector<Change> risky_changes_since(int project_dirfd, std::int64_t since_ns) {
  Walker w{since_ns - kClockSlackNs, "", {}};
  char buf[64];
  std::snprintf(buf, sizeof buf, "/proc/self/fd/%d", project_dirfd);
  char real[4096];
  const ssize_t n = ::readlink(buf, real, sizeof real - 1);
  if (n > 0) w.project.assign(real, static_cast<std::size_t>(n));
  w.visit(project_dirfd, "", 0);
  return std::move(w.out);
}

}  // namespace rf::review
