// SPDX-License-Identifier: LGPL-2.1-or-later
// The risky classes one by one, links that leave the project, and the walk after a run that
// wrote the project directly (including its speed on 20,000 files).
#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>

#include "review_test_util.hpp"

using namespace rf::review;
using namespace rf::review::test;

namespace {
bool risky(const std::string& path, mode_t mode = S_IFREG | 0644, const std::string& target = "") {
  return !risky_reason(path, mode, target, "/work/p").empty();
}
}  // namespace

TEST_CASE("git's own files: what it runs or reads as configuration") {
  for (const char* p :
       {".git/hooks/pre-commit", ".git/hooks", ".git/config", ".git/config.worktree", ".git/info/attributes",
        ".git/info/exclude", ".git/modules/sub/config", ".git/commondir", ".git/gitdir",
        ".git/worktrees/w/config", ".git/objects/info/alternates", ".git/remotes/origin", ".git"})
    CHECK_MESSAGE(risky(p), p);
  for (const char* p : {".git/objects/ab/cdef", ".git/refs/heads/main", ".git/index", ".git/logs/HEAD",
                        ".git/COMMIT_EDITMSG", ".gitignore", ".gitattributes", "src/git/config"})
    CHECK_MESSAGE(!risky(p), p);
}

TEST_CASE("a .git at any depth, file or directory") {
  CHECK(risky("vendor/lib/.git"));
  CHECK(risky("vendor/lib/.git/config"));
  CHECK(risky("sub/.git/objects/aa/bb"));
  CHECK(risky("a/.git", S_IFDIR | 0755));
  CHECK(risky_reason("x/.git", S_IFREG | 0644, "", "/p").find(".git below the top") != std::string::npos);
}

TEST_CASE("auto-run files") {
  for (const char* p :
       {".envrc", "sub/.envrc", ".vscode/tasks.json", ".vscode/settings.json", "pkg/.vscode/tasks.json",
        ".pre-commit-config.yaml", ".github/workflows/ci.yml", ".github/workflows",
        ".devcontainer/devcontainer.json", ".devcontainer", ".husky/pre-commit"})
    CHECK_MESSAGE(risky(p), p);
  for (const char* p : {".vscode/extensions-notes.txt", "docs/.github/workflows-notes", ".github/CODEOWNERS",
                        "envrc", "README.md"})
    CHECK_MESSAGE(!risky(p), p);
  CHECK(risky_reason(".envrc", S_IFREG | 0644, "", "/p").find("auto-run") != std::string::npos);
}

TEST_CASE("modes and file types") {
  CHECK(risky("bin/tool", S_IFREG | S_ISUID | 0755));
  CHECK(risky("bin/tool", S_IFREG | S_ISGID | 0755));
  CHECK(!risky("bin/tool", S_IFREG | 0755));
  CHECK(risky("dev/null", S_IFCHR | 0666));
  CHECK(risky("dev/sda", S_IFBLK | 0660));
  CHECK(risky("fifo", S_IFIFO | 0644));
  CHECK(!risky("deleted-file", 0));  // a deletion of an ordinary file
  CHECK(risky_reason("fifo", S_IFIFO | 0644, "", "/p") == "FIFO");
  CHECK(risky_reason("n", S_IFCHR | 0644, "", "/p") == "device node");
  CHECK(risky_reason("t", S_IFREG | S_ISUID | 0755, "", "/p") == "setuid/setgid file");
}

TEST_CASE("links that leave the project") {
  CHECK(link_leaves_project("a", "/etc/passwd", "/work/p"));
  CHECK(link_leaves_project("a", "../x", "/work/p"));
  CHECK(link_leaves_project("d/a", "../../x", "/work/p"));
  CHECK(link_leaves_project("d/a", "x/../../../y", "/work/p"));
  CHECK(link_leaves_project("a", "", "/work/p"));
  CHECK(!link_leaves_project("d/a", "../b", "/work/p"));
  CHECK(!link_leaves_project("a", "b/c", "/work/p"));
  CHECK(!link_leaves_project("a", "/work/p/b", "/work/p"));
  CHECK(link_leaves_project("a", "/work/p2/b", "/work/p"));
  CHECK(risky("a", S_IFLNK | 0777, "/etc/shadow"));
  CHECK(!risky("a", S_IFLNK | 0777, "b"));
  CHECK(risky_reason("a", S_IFLNK | 0777, "/etc", "/p").find("symbolic link out of the project") !=
        std::string::npos);
}

TEST_CASE("risky_changes_since reports what a run created or changed, and only that") {
  Run r;
  REQUIRE(::mkdir(r.pj(".git").c_str(), 0755) == 0);
  REQUIRE(::mkdir(r.pj(".git/hooks").c_str(), 0755) == 0);
  put(r.pj(".git/config"), "[core]\n");
  put(r.pj(".envrc"), "old, from before");
  sleep_ms(120);
  const std::int64_t since = realtime_ns();
  put(r.pj(".git/hooks/pre-commit"), "evil", 0755);
  put(r.pj("ordinary.txt"), "fine");
  REQUIRE(::mkdir(r.pj("vendor").c_str(), 0755) == 0);
  REQUIRE(::mkdir(r.pj("vendor/x").c_str(), 0755) == 0);
  put(r.pj("vendor/x/.git"), "gitdir: /elsewhere\n");
  REQUIRE(::symlink("/etc/passwd", r.pj("out").c_str()) == 0);
  REQUIRE(::mkfifo(r.pj("pipe").c_str(), 0644) == 0);
  int fd = ::open(r.project.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const auto found = risky_changes_since(fd, since);
  ::close(fd);
  std::vector<std::string> paths;
  for (const auto& c : found) {
    CHECK(c.risky);
    CHECK(!c.reason.empty());
    paths.push_back(c.path);
  }
  std::sort(paths.begin(), paths.end());
  CHECK(paths == std::vector<std::string>{".git/hooks/pre-commit", "out", "pipe", "vendor/x/.git"});
}

TEST_CASE("risky_changes_since on 20,000 files") {
  Run r;
  for (int d = 0; d < 200; ++d) {
    const std::string dir = r.pj("d" + std::to_string(d));
    REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
    for (int f = 0; f < 100; ++f) put(dir + "/f" + std::to_string(f), "x");
  }
  const std::int64_t since = realtime_ns() + 200'000'000;  // nothing is newer
  int fd = ::open(r.project.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const auto t0 = std::chrono::steady_clock::now();
  const auto found = risky_changes_since(fd, since);
  const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ::close(fd);
  CHECK(found.empty());
  MESSAGE("risky_changes_since: 20,000 files and 200 directories in " << ms << " ms");
  CHECK(ms < 2000);
}
