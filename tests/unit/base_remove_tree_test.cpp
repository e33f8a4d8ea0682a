// SPDX-License-Identifier: LGPL-2.1-or-later
// remove_tree on trees made hard to remove: modes that refuse listing or emptying, symlinks out
// of the tree, a chain deeper than PATH_MAX; and what it reports.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "ringfence/base/remove_tree.hpp"

using rf::base::remove_tree;

namespace {

std::string make_temp_dir() {
  const char* t = std::getenv("TMPDIR");
  std::string tmpl = std::string(t && *t == '/' ? t : "/tmp") + "/rf-remove-test-XXXXXX";
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  return tmpl;
}

void touch(const std::string& p) {
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  ::close(fd);
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

}  // namespace

TEST_CASE("remove_tree removes what refuses it and follows no link") {
  const std::string outside = make_temp_dir();
  touch(outside + "/keep");
  const std::string root = make_temp_dir();
  const std::string t = root + "/tree";
  REQUIRE(::mkdir(t.c_str(), 0700) == 0);
  REQUIRE(::mkdir((t + "/a").c_str(), 0700) == 0);
  REQUIRE(::mkdir((t + "/a/b").c_str(), 0700) == 0);
  touch(t + "/a/b/f");
  REQUIRE(::chmod((t + "/a").c_str(), 0) == 0);
  REQUIRE(::mkdir((t + "/ro").c_str(), 0700) == 0);
  touch(t + "/ro/f");
  REQUIRE(::chmod((t + "/ro").c_str(), 0500) == 0);
  REQUIRE(::symlink(outside.c_str(), (t + "/link").c_str()) == 0);
  REQUIRE(::symlink((outside + "/keep").c_str(), (t + "/file-link").c_str()) == 0);
  // Deeper than PATH_MAX by name: only descriptors reach the bottom.
  int fd = ::open(t.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  for (int i = 0; i < 1200; ++i) {
    REQUIRE(::mkdirat(fd, "dd", 0700) == 0);
    int next = ::openat(fd, "dd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(next >= 0);
    ::close(fd);
    fd = next;
  }
  REQUIRE(::fchmod(fd, 0) == 0);
  ::close(fd);
  REQUIRE(::chmod(t.c_str(), 0) == 0);

  CHECK(remove_tree(t).empty());
  CHECK_FALSE(exists(t));
  CHECK(exists(outside + "/keep"));
  CHECK(remove_tree(outside).empty());
  CHECK(remove_tree(root).empty());
  CHECK_FALSE(exists(root));
  CHECK(remove_tree(root).empty());  // gone already: nothing to report
}

TEST_CASE("remove_tree removes a symlink given as the path, not its target") {
  const std::string outside = make_temp_dir();
  touch(outside + "/keep");
  const std::string root = make_temp_dir();
  REQUIRE(::symlink(outside.c_str(), (root + "/l").c_str()) == 0);
  CHECK(remove_tree(root + "/l").empty());
  CHECK(exists(outside + "/keep"));
  CHECK(remove_tree(root).empty());
  CHECK(remove_tree(outside).empty());
}

TEST_CASE("remove_tree reports what it cannot remove, one line a path") {
  auto left = remove_tree("/proc/self/no-such-dir-here");
  CHECK(left.empty());
  left = remove_tree("/proc/self/fdinfo");  // procfs refuses removal
  REQUIRE_FALSE(left.empty());
  for (const auto& l : left) CHECK(l.rfind("/proc/self/fdinfo", 0) == 0);
}
