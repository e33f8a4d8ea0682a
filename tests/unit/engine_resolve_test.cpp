// SPDX-License-Identifier: LGPL-2.1-or-later
// open_beneath: paths in a tree the sandbox can write, opened without following any link.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "resolve.hpp"

using rf::engine::open_beneath;

namespace {

struct Tree {
  std::string root;
  int fd = -1;
  Tree() {
    char tmpl[] = "/tmp/rf-resolve-XXXXXX";
    root = ::mkdtemp(tmpl);
    REQUIRE(::mkdir((root + "/dir").c_str(), 0755) == 0);
    REQUIRE(::close(::open((root + "/dir/file").c_str(), O_CREAT | O_WRONLY, 0644)) == 0);
    REQUIRE(::symlink("/", (root + "/to-root").c_str()) == 0);
    REQUIRE(::symlink("dir", (root + "/to-dir").c_str()) == 0);
    fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(fd >= 0);
  }
  ~Tree() {
    ::close(fd);
    std::string cmd = "rm -rf '" + root + "'";
    (void)std::system(cmd.c_str());
  }
};

bool is_link(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISLNK(st.st_mode);
}

}  // namespace

TEST_CASE("open_beneath: plain paths open") {
  Tree t;
  auto f = open_beneath(t.fd, "dir/file", O_PATH | O_NOFOLLOW);
  REQUIRE(f);
  CHECK_FALSE(is_link(f->get()));
  CHECK(open_beneath(t.fd, "", O_PATH));  // the directory itself
}

TEST_CASE("open_beneath: a link on the way is refused, a final one returned as itself") {
  Tree t;
  auto through = open_beneath(t.fd, "to-dir/file", O_PATH | O_NOFOLLOW);
  REQUIRE_FALSE(through);
  CHECK(through.error().code() == ELOOP);
  auto root = open_beneath(t.fd, "to-root/etc", O_PATH | O_NOFOLLOW);
  REQUIRE_FALSE(root);
  CHECK(root.error().code() == ELOOP);
  auto last = open_beneath(t.fd, "to-root", O_PATH | O_NOFOLLOW);
  REQUIRE(last);
  CHECK(is_link(last->get()));
}

TEST_CASE("open_beneath: \"..\" and missing paths") {
  Tree t;
  auto up = open_beneath(t.fd, "dir/../../etc", O_PATH);
  REQUIRE_FALSE(up);
  CHECK(up.error().code() == EXDEV);
  auto missing = open_beneath(t.fd, "dir/none", O_PATH | O_NOFOLLOW);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == ENOENT);
}
