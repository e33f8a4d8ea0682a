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

// The entries of a git directory that decide what git runs, read-only; the missing ones made
// empty first (plan.git_make, `make_top` naming the directory; "" for the project's .git).
// `beneath`: the tree below which no link is followed at either end.
// A linked worktree's own directory (`config_fd` its common directory) gets nothing made but a
// config.worktree the common config turns on: git reads the rest from the common directory.
Status cover_git_dir(RunPlan& plan, const std::string& git, int gfd, const std::string& beneath,
                     const std::string& make_top, const char* advice, int config_fd = -1) {
  const bool linked = config_fd >= 0;
  if (!linked) config_fd = gfd;
  auto& ops = plan.spec.fs_ops;
  auto cover = [&](const char* name, bool dir) -> Status {
    std::string path = git + "/" + name;
    struct stat e {};
    if (::fstatat(gfd, name, &e, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) return base::errno_error("cannot look at " + path);
      bool make = (!linked && (dir || std::string(name) == "config")) ||
                  (std::string(name) == "config.worktree" && worktree_config_on(config_fd));
      if (!make) return {};
      plan.git_make.push_back({path, dir, make_top});
    } else if (S_ISLNK(e.st_mode)) {
      return Error(ELOOP, path + " is a symbolic link" + advice);
    }
    // A file where git expects a directory (hooks) is covered as it is: nothing can be made in it.
    ops.push_back(exact(OpKind::RoBind, path, beneath));
    return {};
  };
  for (const char* d : kGitDirs) RF_TRY(cover(d, true));
  for (const char* f : kGitFiles) RF_TRY(cover(f, false));
  return {};
}

const char* kOutsideAdvice = " (a git directory outside the project is bound only when no link leads to it)";

// The text of a one-line pointer file (.git's "gitdir: X", a worktree's commondir): at most 4 KiB,
// no link, its line without the final newline.
base::Result<std::string> read_pointer(int dir_fd, const char* name, const std::string& path) {
  base::UniqueFd fd(::openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return base::errno_error("cannot read " + path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return base::errno_error("cannot look at " + path);
  if (!S_ISREG(st.st_mode) || st.st_size > 4096)
    return Error(EINVAL, path + " is not a small regular file (a git pointer file is one line)");
  RF_TRY_ASSIGN(text, base::read_all(fd.get()));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  if (text.find('\n') != std::string::npos) text.resize(text.find('\n'));
  return text;
}

}  // namespace

base::Result<std::string> parse_gitfile(std::string_view text) {
  constexpr std::string_view kKey = "gitdir:";
  if (!text.starts_with(kKey)) return Error(EINVAL, "it does not start with \"gitdir:\"");
  text.remove_prefix(kKey.size());
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.remove_suffix(1);
  if (text.empty()) return Error(EINVAL, "it names no directory");
  if (text.find('\n') != std::string_view::npos || text.find('\0') != std::string_view::npos)
    return Error(EINVAL, "it is more than one line");
  return std::string(text);
}

base::Result<std::string> check_git_dir(const std::string& given, const std::string& from, uid_t owner,
                                        const std::string& project, const std::string& home,
                                        const std::string& what) {
  const std::string raw = given.starts_with('/') ? given : from + "/" + given;
  // Each component looked at without following a link, ".." taken from what was looked at: the
  // bind is made of this very path.
  std::string path = "/";
  struct stat st {};
  ::lstat("/", &st);
  for (const auto& c : base::components(raw)) {
    if (c == "..") {
      path = base::parent(path);
      continue;
    }
    std::string next = base::join(path, c);
    if (::lstat(next.c_str(), &st) != 0) return base::errno_error(what + " names " + raw + ": " + next);
    if (S_ISLNK(st.st_mode))
      return Error(ELOOP, what + " names " + raw + ", which is refused: " + next + " is a symbolic link" +
                              kOutsideAdvice);
    path = next;
  }
  if (::lstat(path.c_str(), &st) != 0) return base::errno_error(what + " names " + raw + ": " + path);
  auto refuse = [&](int code, const std::string& why) {
    return Error(code, what + " names " + path + ", which is refused: " + why);
  };
  if (path == "/") return refuse(EINVAL, "it is the root directory");
  if (base::is_under(home, path)) return refuse(EINVAL, "it is the home directory or holds it");
  if (base::is_under(project, path)) return refuse(EINVAL, "it holds the project");
  if (!S_ISDIR(st.st_mode)) return refuse(ENOTDIR, "it is not a directory");
  if (st.st_uid != owner)
    return refuse(EPERM, "it is owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                             std::to_string(owner) + " who owns the project's .git");
  struct stat head {};
  if (::lstat((path + "/HEAD").c_str(), &head) != 0 || !S_ISREG(head.st_mode))
    return refuse(ENOENT, "it has no HEAD file (not a git directory)");
  return path;
}

namespace {

// A git directory outside the project (or inside it, reached through the gitfile), bound at its own
// path: writable, its code and pointer entries read-only as in the project's .git.
Status bind_git_dir(RunPlan& plan, const std::string& dir, int common_fd = -1) {
  const bool inside = base::is_under(dir, plan.project);
  const std::string beneath = inside ? plan.project : dir;
  base::UniqueFd gfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!gfd.valid()) return base::errno_error("cannot open the git directory " + dir);
  FsOp top;
  top.kind = OpKind::Bind;
  top.source = top.dest = dir;
  top.source_beneath = inside ? plan.project : "/";
  if (inside) top.dest_beneath = plan.project;
  plan.spec.fs_ops.push_back(top);
  RF_TRY(cover_git_dir(plan, dir, gfd.get(), beneath, dir, inside ? kLinkAdvice : kOutsideAdvice, common_fd));
  struct stat st {};
  if (::fstatat(gfd.get(), "commondir", &st, AT_SYMLINK_NOFOLLOW) != 0)
    plan.git_watch_commondir.push_back(dir);
  plan.git_dirs_outside.push_back(dir);
  return {};
}

// The project's .git is a file: a linked worktree's ("gitdir: MAIN/.git/worktrees/NAME", whose
// commondir names MAIN/.git) or a submodule's ("gitdir: ../.git/modules/NAME"). Both git
// directories are bound with the protection of a .git directory.
Status protect_gitfile(RunPlan& plan, int proj_fd, const struct stat& gitfile) {
  const std::string git = plan.project + "/.git";
  RF_TRY_ASSIGN(text, read_pointer(proj_fd, ".git", git));
  auto named = parse_gitfile(text);
  if (!named) return Error(EINVAL, git + " is a file that git cannot use: " + named.error().message());
  RF_TRY_ASSIGN(dir,
                check_git_dir(*named, plan.project, gitfile.st_uid, plan.project, plan.home_inside, git));
  base::UniqueFd gfd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!gfd.valid()) return base::errno_error("cannot open the git directory " + dir);
  struct stat st {};
  std::string common;
  if (::fstatat(gfd.get(), "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0) {
    RF_TRY_ASSIGN(ctext, read_pointer(gfd.get(), "commondir", dir + "/commondir"));
    if (ctext.empty()) return Error(EINVAL, dir + "/commondir is empty");
    RF_TRY_ASSIGN(
        c, check_git_dir(ctext, dir, gitfile.st_uid, plan.project, plan.home_inside, dir + "/commondir"));
    common = c;
  } else if (errno != ENOENT) {
    return base::errno_error("cannot look at " + dir + "/commondir");
  }
  // The common directory first: a worktree's own directory lies in its worktrees/, read-only.
  base::UniqueFd cfd;
  if (!common.empty() && common != dir) {
    RF_TRY(bind_git_dir(plan, common));
    cfd.reset(::open(common.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!cfd.valid()) return base::errno_error("cannot open the git directory " + common);
  }
  RF_TRY(bind_git_dir(plan, dir, cfd.valid() ? cfd.get() : -1));
  // The worktree's own pointer back to the project: read-only too.
  if (!common.empty() && ::fstatat(gfd.get(), "gitdir", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
    plan.spec.fs_ops.push_back(exact(OpKind::RoBind, dir + "/gitdir", dir));
  plan.spec.fs_ops.push_back(exact(OpKind::RoBind, git, plan.project));
  plan.notes.push_back("git: " + git + " points to " + dir +
                       (common.empty() || common == dir ? "" : " (its common directory " + common + ")") +
                       ", bound at the same path: writable, its hooks, info, modules, worktrees and config "
                       "read-only; a commondir made there is moved aside after the run");
  return {};
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
  if (!S_ISDIR(st.st_mode)) return protect_gitfile(plan, proj.get(), st);
  base::UniqueFd gfd(::openat(proj.get(), ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!gfd.valid()) return base::errno_error("cannot open " + git);
  // A mount point: .git cannot be renamed away, removed or replaced inside.
  ops.push_back(exact(OpKind::Bind, git, plan.project));
  RF_TRY(cover_git_dir(plan, git, gfd.get(), plan.project, "", kLinkAdvice));
  plan.notes.push_back("git: " + git +
                       "/commondir can be made inside (it points git at another directory and its "
                       "config); one made is moved aside after the run, before git on the host can "
                       "read it; hooks, info, modules, worktrees and config are read-only, .git "
                       "itself cannot be renamed or replaced");
  return {};
}

Status make_git_entries(RunPlan& plan) {
  if (plan.git_make.empty()) return {};
  const std::string project_git = plan.project + "/.git";
  auto& ops = plan.spec.fs_ops;
  for (const auto& e : plan.git_make) {
    const std::string git = e.top.empty() ? project_git : e.top;
    base::UniqueFd gfd;
    if (e.top.empty()) {
      base::UniqueFd proj(::open(plan.project.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      if (!proj.valid()) return base::errno_error("cannot open the project " + plan.project);
      gfd.reset(::openat(proj.get(), ".git", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    } else {
      gfd.reset(::open(git.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    }
    if (!gfd.valid()) return base::errno_error("cannot open " + git);
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
