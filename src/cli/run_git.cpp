// SPDX-License-Identifier: LGPL-2.1-or-later
// The project's git directory in the kernel jail, and host paths that must not be reached
// through a link the sandbox could have made. Git later runs code on the host, outside any
// sandbox, from what its directory says (hooks, config, and the files that point git at another
// directory or config), so those entries are read-only inside; the rest of .git stays writable so
// that work can be recorded (objects, refs, logs, index, HEAD, packed-refs and their lock files).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <deque>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "run_fs.hpp"

namespace rf::cli {
namespace {

const char* kLinkAdvice =
    " (links in the project are not followed: the sandbox could have made them; replace the link "
    "by what it points to)";

// A bind of `path` onto itself, both ends resolved below `top` without following a link.
FsOp exact(OpKind kind, const std::string& path, const std::string& top) {
  FsOp o;
  o.kind = kind;
  o.source = o.dest = path;
  o.source_beneath = o.dest_beneath = top;
  return o;
}

// The directories git reads code or other repositories from: read-only, and made (empty)
// where missing so that the sandbox cannot make them.
constexpr const char* kGitDirs[] = {"hooks", "info", "modules", "worktrees"};
// Files that decide what git runs or which directory it takes as the repository. A missing
// config is made empty (git would take a new one); config.worktree counts only where the config
// turns on extensions.worktreeConfig, and is then made empty too; commondir cannot be made in
// advance (an empty one breaks git): one made inside is moved aside after the run
// (run_autorun.cpp).
constexpr const char* kGitFiles[] = {"config", "commondir", "config.worktree", "branches", "remotes"};

bool worktree_config_on(int git_fd) {
  base::UniqueFd fd(::openat(git_fd, "config", O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return false;
  auto text = base::read_all(fd.get());
  if (!text) return false;
  std::string lower;
  for (char c : *text) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower.find("worktreeconfig") != std::string::npos;
}

}  // namespace

Status protect_git(RunPlan& plan) {
  const std::string git = plan.project + "/.git";
  base::UniqueFd proj(::open(plan.project.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!proj.valid()) return base::errno_error("cannot open the project " + plan.project);
  struct stat st {};
  if (::fstatat(proj.get(), ".git", &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) return base::errno_error("cannot look at " + git);
    plan.notes.push_back(
        "git: the project has no .git; one made inside (git init) stays on the host, "
        "with a config that runs code when the host uses git there");
    return {};
  }
  if (S_ISLNK(st.st_mode)) return Error(ELOOP, git + " is a symbolic link" + kLinkAdvice);
  auto& ops = plan.spec.fs_ops;
  if (!S_ISDIR(st.st_mode)) {  // a gitfile ("gitdir: ..."): it must keep pointing where it does
    ops.push_back(exact(OpKind::RoBind, git, plan.project));
    return {};
  }
  base::UniqueFd gfd(::openat(proj.get(), ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!gfd.valid()) return base::errno_error("cannot open " + git);
  // A mount point: .git cannot be renamed away, removed or replaced inside.
  ops.push_back(exact(OpKind::Bind, git, plan.project));
  auto cover = [&](const char* name, bool dir) -> Status {
    std::string path = git + "/" + name;
    struct stat e {};
    if (::fstatat(gfd.get(), name, &e, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) return base::errno_error("cannot look at " + path);
      bool make = dir || std::string(name) == "config" ||
                  (std::string(name) == "config.worktree" && worktree_config_on(gfd.get()));
      if (!make) return {};
      plan.git_make.push_back({path, dir});
    } else if (S_ISLNK(e.st_mode)) {
      return Error(ELOOP, path + " is a symbolic link" + kLinkAdvice);
    }
    // A file where git expects a directory (hooks) is covered as it is: nothing can be made in it.
    ops.push_back(exact(OpKind::RoBind, path, plan.project));
    return {};
  };
  for (const char* d : kGitDirs) RF_TRY(cover(d, true));
  for (const char* f : kGitFiles) RF_TRY(cover(f, false));
  plan.notes.push_back("git: " + git +
                       "/commondir can be made inside (it points git at another directory and its "
                       "config); one made is moved aside after the run, before git on the host can "
                       "read it; hooks, info, modules, worktrees and config are read-only, .git "
                       "itself cannot be renamed or replaced");
  return {};
}

Status make_git_entries(RunPlan& plan) {
  if (plan.git_make.empty()) return {};
  const std::string git = plan.project + "/.git";
  base::UniqueFd proj(::open(plan.project.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!proj.valid()) return base::errno_error("cannot open the project " + plan.project);
  base::UniqueFd gfd(::openat(proj.get(), ".git", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!gfd.valid()) return base::errno_error("cannot open " + git);
  auto& ops = plan.spec.fs_ops;
  for (const auto& e : plan.git_make) {
    std::string name = e.path.substr(git.size() + 1);
    int r =
        e.dir ? ::mkdirat(gfd.get(), name.c_str(), 0755)
              : ::openat(gfd.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (!e.dir && r >= 0) ::close(r);
    if (r < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
      // Not writable for this user, so not for the sandbox either: nothing to cover.
      ops.erase(std::remove_if(ops.begin(), ops.end(), [&](const FsOp& o) { return o.dest == e.path; }),
                ops.end());
      continue;
    }
    // An entry made meanwhile is fine: the engine binds whatever is there, or refuses a link.
    if (r < 0 && errno != EEXIST) return base::errno_error("cannot make " + e.path);
  }
  return {};
}

base::Result<std::string> host_path_nofollow_in(const std::string& path, const std::string& tree,
                                                const std::string& cwd) {
  std::string abs = path;
  if (abs.empty() || abs[0] != '/') {
    if (cwd.empty()) return Error(ENOENT, "getcwd: the working directory is unknown");
    abs = cwd + "/" + path;
  }
  std::deque<std::string> todo;
  for (auto& c : base::components(abs)) todo.push_back(c);
  std::string done = "/";
  int links = 0;
  while (!todo.empty()) {
    std::string c = todo.front();
    todo.pop_front();
    if (c == "..") {
      done = base::parent(done);
      continue;
    }
    std::string next = base::join(done, c);
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0) return base::errno_error(path + ": " + next);
    if (!S_ISLNK(st.st_mode)) {
      done = next;
      continue;
    }
    if (base::is_under(done, tree))
      return Error(ELOOP, path + ": " + next + " is a symbolic link in " + tree + kLinkAdvice);
    if (++links > 40) return Error(ELOOP, path);
    char target[PATH_MAX];
    ssize_t n = ::readlink(next.c_str(), target, sizeof target - 1);
    if (n < 0) return base::errno_error(path + ": readlink " + next);
    std::string t(target, static_cast<size_t>(n));
    auto tc = base::components(t);
    todo.insert(todo.begin(), tc.begin(), tc.end());
    if (t[0] == '/') done = "/";
  }
  return done;
}

}  // namespace rf::cli
