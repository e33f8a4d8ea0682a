// SPDX-License-Identifier: LGPL-2.1-or-later
// The warning after a run: files of the project that host tools run later (a git repository
// below the top, .git/commondir, .envrc, editor tasks, CI configuration; presets/autorun.hpp)
// which the sandbox made or changed, so that the host is told before it runs git or an editor
// there; a .git/commondir made inside is moved aside. A bounded walk before the start and one
// after; links are not followed.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>

#include "prefetch.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/presets/autorun.hpp"
#include "ringfence/review/changes.hpp"
#include "run_fs.hpp"

namespace rf::cli {
namespace {

constexpr int kMaxEntries = 200000;
constexpr std::size_t kMaxLines = 20;

using Entries = std::vector<RunPlan::Autorun>;

RunPlan::Autorun entry(const std::string& rel, const struct stat& st) {
  return {rel, static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
          static_cast<std::int64_t>(st.st_size), S_ISDIR(st.st_mode), static_cast<unsigned>(st.st_mode)};
}

// Entries risky by their type alone (review's classes): a link, a FIFO, a socket, a device.
bool special_type(unsigned char d_type) {
  return d_type == DT_LNK || d_type == DT_FIFO || d_type == DT_SOCK || d_type == DT_CHR || d_type == DT_BLK;
}

void walk(int dir_fd, const std::string& rel, int depth, int& budget, Entries& out) {
  int dup = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return;
  DIR* d = ::fdopendir(dup);
  if (!d) {
    ::close(dup);
    return;
  }
  std::vector<std::string> dirs;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (--budget < 0) break;
    struct stat st {};
    bool is_dir = e->d_type == DT_DIR;
    if (e->d_type == DT_UNKNOWN) {
      if (::fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      is_dir = S_ISDIR(st.st_mode);
    }
    std::string r = rel.empty() ? name : rel + "/" + name;
    if ((special_type(e->d_type) || !presets::autorun_reason(r, is_dir).empty()) &&
        ::fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
      out.push_back(entry(r, st));
    // A git directory is not walked (git's own files), except the top one's pointers below.
    if (is_dir && name != ".git" && depth < 64) dirs.push_back(name);
  }
  ::closedir(d);
  for (const auto& name : dirs) {
    base::UniqueFd sub(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (sub.valid() && budget > 0)
      walk(sub.get(), rel.empty() ? name : rel + "/" + name, depth + 1, budget, out);
  }
}

// The top: its .git itself (made inside where there was none), the files in it that run code or
// point git elsewhere (read-only at the kernel level, not at the landlock and soft levels), then
// the tree.
bool scan(const std::string& project, Entries& out) {
  base::UniqueFd top(::open(project.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!top.valid()) return false;
  struct stat st {};
  if (::fstatat(top.get(), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) out.push_back(entry(".git", st));
  for (const char* rel : {".git/commondir", ".git/config.worktree", ".git/config", ".git/info/attributes",
                          ".git/rebase-merge", ".git/sequencer"})
    if (::fstatat(top.get(), rel, &st, AT_SYMLINK_NOFOLLOW) == 0) out.push_back(entry(rel, st));
  base::UniqueFd hooks(::openat(top.get(), ".git/hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (DIR* d = hooks.valid() ? ::fdopendir(hooks.release()) : nullptr) {
    while (dirent* e = ::readdir(d))
      if (std::string n = e->d_name;
          n != "." && n != ".." && ::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        out.push_back(entry(".git/hooks/" + n, st));
    ::closedir(d);
  }
  int budget = kMaxEntries;
  walk(top.get(), "", 0, budget, out);
  return budget >= 0;
}

Prefetched<Entries>& prefetched_scan() {
  static Prefetched<Entries> p;
  return p;
}

}  // namespace

void prefetch_autorun(const std::string& project) {
  prefetched_scan().start(project, [project] {
    Entries out;
    scan(project, out);
    return out;
  });
}

void end_autorun_prefetch() { prefetched_scan().drop(); }

void scan_autorun(RunPlan& plan) {
  plan.autorun_before.clear();
  if (auto started = prefetched_scan().take(plan.project))
    plan.autorun_before = std::move(*started);
  else
    scan(plan.project, plan.autorun_before);
  plan.autorun_scanned = true;
}

namespace {

// Git never makes a commondir in a repository's own directory (only in a linked worktree's,
// under .git/worktrees, read-only inside): one that appears there during the run was planted,
// and the host's next git command would take its config (core.fsmonitor runs a program). It
// cannot be refused as it is made (an empty placeholder breaks git), so it is moved aside after
// the run, before the host can run git, and the move is said.
std::vector<std::string> refuse_new_commondir(const RunPlan& plan) {
  if (!plan.autorun_scanned || !plan.settings.project_writable) return {};
  bool git_dir = false;
  for (const auto& e : plan.autorun_before) {
    if (e.rel == ".git/commondir") return {};  // there before: the host's own
    if (e.rel == ".git") git_dir = e.dir;
  }
  if (!git_dir) return {};  // no repository before (one made inside is named by the warnings)
  base::UniqueFd top(::open(plan.project.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!top.valid()) return {};
  base::UniqueFd git(::openat(top.get(), ".git", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!git.valid() || ::fstatat(git.get(), "commondir", &st, AT_SYMLINK_NOFOLLOW) != 0) return {};
  const std::string where = plan.project + "/.git/commondir";
  for (int n = 0; n < 100; ++n) {
    std::string to = "commondir.refused" + (n ? "." + std::to_string(n) : std::string());
    if (::renameat2(git.get(), "commondir", git.get(), to.c_str(), RENAME_NOREPLACE) == 0)
      return {where +
              " was made in the sandbox (it points git at another directory and its "
              "config, which git on the host would take): moved to " +
              to + " in the same directory"};
    if (errno != EEXIST) break;
  }
  return {where + " was made in the sandbox and could not be moved away (" + std::strerror(errno) +
          "): it points git at another directory and its config; remove it before running git there"};
}

// The same for the git directories outside the project that had no commondir (a worktree's
// common directory, a submodule's directory): one there now was made inside, and is moved aside.
void refuse_outside_commondirs(const RunPlan& plan, std::vector<std::string>& lines) {
  for (const auto& dir : plan.git_watch_commondir) {
    base::UniqueFd git(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!git.valid() || ::fstatat(git.get(), "commondir", &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    std::string moved;
    for (int n = 0; n < 100 && moved.empty(); ++n) {
      std::string to = "commondir.refused" + (n ? "." + std::to_string(n) : std::string());
      if (::renameat2(git.get(), "commondir", git.get(), to.c_str(), RENAME_NOREPLACE) == 0)
        moved = to;
      else if (errno != EEXIST)
        break;
    }
    lines.push_back(dir +
                    "/commondir was made in the sandbox (it points git at another directory and its "
                    "config, which git on the host would take): " +
                    (moved.empty() ? "it could not be moved away (" + std::string(std::strerror(errno)) +
                                         "); remove it before running git there"
                                   : "moved to " + moved + " in the same directory"));
  }
}

}  // namespace

namespace {

// Why an entry is risky by its type (review::risky_reason: a link out of the project, a FIFO, a
// socket, a device node), or "".
std::string type_reason(const std::string& project, const RunPlan::Autorun& e) {
  std::string target;
  if (S_ISLNK(e.mode)) {
    base::UniqueFd top(::open(project.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    char buf[PATH_MAX];
    const ssize_t n = top.valid() ? ::readlinkat(top.get(), e.rel.c_str(), buf, sizeof buf - 1) : -1;
    if (n < 0) return {};
    target.assign(buf, static_cast<std::size_t>(n));
  }
  return review::risky_reason(e.rel, static_cast<mode_t>(e.mode), target, project);
}

}  // namespace

std::vector<std::string> autorun_warnings(const RunPlan& plan) {
  std::vector<std::string> lines = refuse_new_commondir(plan);
  refuse_outside_commondirs(plan, lines);
  if (!plan.autorun_scanned || !plan.settings.project_writable) return lines;
  std::map<std::string, RunPlan::Autorun> before;
  for (const auto& e : plan.autorun_before) before[e.rel] = e;
  Entries now;
  bool complete = scan(plan.project, now);
  std::size_t count = 0;
  for (const auto& e : now) {
    auto it = before.find(e.rel);
    bool made = it == before.end();
    bool changed = !made && !e.dir && (it->second.mtime_ns != e.mtime_ns || it->second.size != e.size);
    if (!made && !changed) continue;
    if (made && e.rel == ".git/commondir" && !lines.empty()) continue;  // moved away above
    if (++count > kMaxLines) continue;
    std::string reason = e.rel == ".git" ? "a git repository where there was none: git run here takes its "
                                           "config and hooks"
                                         : presets::autorun_reason(e.rel, e.dir);
    if (reason.empty()) reason = type_reason(plan.project, e);
    if (reason.empty()) continue;  // a link that stays in the project
    lines.push_back(plan.project + "/" + e.rel + (made ? " was made" : " was changed") + " in the sandbox (" +
                    reason + "): look at it before running git or an editor there");
  }
  if (count > kMaxLines)
    lines.push_back("and " + std::to_string(count - kMaxLines) + " more such files made or changed in " +
                    plan.project);
  if (!complete)
    lines.push_back("the project has more than " + std::to_string(kMaxEntries) +
                    " entries: files run later by host tools were looked for in the first only");
  return lines;
}

}  // namespace rf::cli
