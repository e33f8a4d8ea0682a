// SPDX-License-Identifier: LGPL-2.1-or-later
// commit_to_branch: the change set as a commit on a new branch, made with git plumbing and a
// temporary index in the change set's directory. The project's configuration may have been
// written by whoever ran in the sandbox, so git runs without hooks, fsmonitor or the system
// configuration, and only plumbing that runs no configured program.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/review/apply.hpp"
#include "ringfence/review/diff.hpp"

extern char** environ;

namespace rf::review {
namespace {

struct Git {
  std::string project;
  std::string index;

  // git -C PROJECT <safe options> ARGS with `input` on stdin: its stdout, or an Error with
  // its stderr.
  base::Result<std::string> run(const std::vector<std::string>& args, const std::string& input = "") const {
    std::vector<std::string> argv = {"git",
                                     "-C",
                                     project,
                                     "-c",
                                     "core.hooksPath=/dev/null",
                                     "-c",
                                     "core.fsmonitor=false",
                                     "-c",
                                     "core.untrackedCache=false",
                                     "-c",
                                     "commit.gpgSign=false"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      if (kv.rfind("GIT_", 0) == 0 && kv.rfind("GIT_AUTHOR_", 0) != 0 && kv.rfind("GIT_COMMITTER_", 0) != 0)
        continue;
      env.push_back(kv);
    }
    env.push_back("GIT_CONFIG_NOSYSTEM=1");
    env.push_back("GIT_TERMINAL_PROMPT=0");
    env.push_back("GIT_OPTIONAL_LOCKS=0");
    if (!index.empty()) env.push_back("GIT_INDEX_FILE=" + index);
    std::vector<char*> av, ev;
    for (auto& a : argv) av.push_back(a.data());
    av.push_back(nullptr);
    for (auto& e : env) ev.push_back(e.data());
    ev.push_back(nullptr);
    base::UniqueFd in(::memfd_create("rf-git-in", MFD_CLOEXEC));
    base::UniqueFd err(::memfd_create("rf-git-err", MFD_CLOEXEC));
    if (!in.valid() || !err.valid()) return base::errno_error("memfd_create");
    RF_TRY(base::write_all(in.get(), input));
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return base::errno_error("pipe");
    base::UniqueFd out_r(out[0]), out_w(out[1]);
    const pid_t pid = ::fork();
    if (pid < 0) return base::errno_error("fork git");
    if (pid == 0) {
      ::lseek(in.get(), 0, SEEK_SET);
      ::dup2(in.get(), 0);
      ::dup2(out_w.get(), 1);
      ::dup2(err.get(), 2);
      ::execvpe("git", av.data(), ev.data());
      ::_exit(127);
    }
    out_w.reset();
    auto text = base::read_all(out_r.get());
    int status = 0;
    if (base::raw::wait_pid(pid, &status) < 0) return base::errno_error("waitpid git");
    if (!text) return std::move(text).error();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ::lseek(err.get(), 0, SEEK_SET);
      auto msg = base::read_all(err.get());
      std::string m = msg ? *msg : std::string();
      while (!m.empty() && m.back() == '\n') m.pop_back();
      return base::Error(0,
                         "git " + args.front() + " failed" +
                             (WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " (is git installed?)" : "") +
                             (m.empty() ? "" : ": " + m));
    }
    return std::move(*text);
  }
};

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

bool in_git_dir(const std::string& p) { return p == ".git" || p.rfind(".git/", 0) == 0; }

const char* blob_mode(mode_t m) {
  if (S_ISLNK(m)) return "120000";
  if (S_ISREG(m)) return (m & 0111) ? "100755" : "100644";
  return nullptr;
}

std::string index_path(const std::string& p) {
  const std::string q = git_quote(p);
  return q;
}

}  // namespace

std::optional<std::string> read_git_head(const std::string& project_realpath) {
  const Git git{project_realpath, ""};
  auto top = git.run({"rev-parse", "--show-toplevel"});
  if (!top || trimmed(*top) != project_realpath) return std::nullopt;
  auto head = git.run({"rev-parse", "--verify", "--quiet", "HEAD^{commit}"});
  if (!head) return std::nullopt;
  return trimmed(*head);
}

base::Result<BranchResult> commit_to_branch(const ChangeSet& cs, const std::vector<Change>& changes,
                                            const std::string& branch) {
  if (!cs.meta.git_head)
    return base::Error::usage("change set " + cs.meta.id +
                              ": the project was not a git repository when the run "
                              "started (meta.json has no git_head); --git-branch needs one");
  Git git{cs.meta.project, cs.paths.dir + "/git-index"};
  ::unlink(git.index.c_str());
  struct DropIndex {
    const std::string& path;
    ~DropIndex() { ::unlink(path.c_str()); }
  } drop{git.index};
  auto name = git.run({"check-ref-format", "--branch", branch});
  if (!name) return base::Error::usage("--git-branch '" + branch + "': not a valid branch name");
  const std::string head = *cs.meta.git_head;
  RF_TRY(git.run({"cat-file", "-e", head + "^{commit}"}));
  RF_TRY(git.run({"read-tree", head}));
  BranchResult r;
  std::string deletions, files_in;
  std::vector<const Change*> files, links;
  for (const auto& c : changes) {
    const char* om = c.kind == ChangeKind::Added ? nullptr : blob_mode(c.old_mode);
    const char* nm = c.kind == ChangeKind::Deleted ? nullptr : blob_mode(c.new_mode);
    if (!om && !nm) {
      if (!S_ISDIR(c.new_mode) && !S_ISDIR(c.old_mode)) r.skipped.push_back(c);
      continue;
    }
    if (c.risky || in_git_dir(c.path) || c.path.find('\n') != std::string::npos) {
      r.skipped.push_back(c);
      continue;
    }
    if (!nm || (om && (c.old_mode & S_IFMT) != (c.new_mode & S_IFMT)))
      deletions += "0 0000000000000000000000000000000000000000\t" + index_path(c.path) + "\n";
    if (nm && S_ISREG(c.new_mode)) {
      files.push_back(&c);
      files_in += cs.paths.upper + "/" + c.path + "\n";
    } else if (nm) {
      links.push_back(&c);
    }
    r.committed.push_back(c);
  }
  std::string info = deletions;
  if (!files.empty()) {
    RF_TRY_ASSIGN(out, git.run({"hash-object", "-w", "--no-filters", "--stdin-paths"}, files_in));
    std::size_t at = 0;
    for (const Change* c : files) {
      const auto nl = out.find('\n', at);
      if (nl == std::string::npos) return base::Error(0, "git hash-object: fewer object names than files");
      info += std::string(blob_mode(c->new_mode)) + " " + out.substr(at, nl - at) + "\t" +
              index_path(c->path) + "\n";
      at = nl + 1;
    }
  }
  for (const Change* c : links) {
    RF_TRY_ASSIGN(sha, git.run({"hash-object", "-w", "--stdin"}, c->link_target));
    info += "120000 " + trimmed(sha) + "\t" + index_path(c->path) + "\n";
  }
  RF_TRY(git.run({"update-index", "--index-info"}, info));
  RF_TRY_ASSIGN(tree, git.run({"write-tree"}));
  RF_TRY_ASSIGN(commit, git.run({"commit-tree", trimmed(tree), "-p", head, "-m",
                                 "ringfence change set " + cs.meta.id + "\n\nProject: " + cs.meta.project +
                                     "\nStarted: " + cs.meta.started}));
  r.commit = trimmed(commit);
  auto ref = git.run(
      {"update-ref", "-m", "ringfence apply --git-branch", "refs/heads/" + trimmed(*name), r.commit, ""});
  ::unlink(git.index.c_str());
  if (!ref)
    return std::move(ref).error().context("branch " + branch + " (an existing branch is never moved)");
  return r;
}

}  // namespace rf::review
