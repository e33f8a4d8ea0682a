// SPDX-License-Identifier: LGPL-2.1-or-later
// scan on upper directories made by hand as overlayfs writes them: every change kind, copy-ups
// that change nothing, whiteouts (both forms), opaque directories, masks, refused features.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "review_test_util.hpp"

using namespace rf::review;
using namespace rf::review::test;

namespace {

// A whiteout at `p`, or false when this process may not make one.
bool whiteout(const std::string& p) { return ::mknod(p.c_str(), S_IFCHR | 0, makedev(0, 0)) == 0; }

bool set_xattr(const std::string& p, const char* key, const char* value) {
  return ::lsetxattr(p.c_str(), key, value, std::strlen(value), 0) == 0;
}

}  // namespace

TEST_CASE("a copy-up with the same bytes, mode and type is no change") {
  Run r;
  put(r.pj("same.txt"), "one\n");
  REQUIRE(::mkdir(r.pj("d").c_str(), 0755) == 0);
  put(r.pj("d/inner"), "x");
  r.start();
  r.copy_up("same.txt");  // touched inside: copied up, then written back unchanged
  REQUIRE(::mkdir(r.up("d").c_str(), 0755) == 0);
  r.copy_up("d/inner");
  CHECK(r.changes().empty());
}

TEST_CASE("every change kind") {
  Run r;
  put(r.pj("edit.txt"), "old\n");
  put(r.pj("chmod.sh"), "#!/bin/sh\n");
  put(r.pj("to_link"), "file\n");
  REQUIRE(::mkdir(r.pj("dir_to_file").c_str(), 0755) == 0);
  put(r.pj("dir_to_file/a"), "a");
  put(r.pj("file_to_dir"), "f");
  REQUIRE(::symlink("edit.txt", r.pj("link").c_str()) == 0);
  r.start();
  put(r.up("new.txt"), "new\n");
  REQUIRE(::mkdir(r.up("newdir").c_str(), 0750) == 0);
  put(r.up("newdir/f"), "f\n");
  put(r.up("edit.txt"), "new\n");
  put(r.up("chmod.sh"), "#!/bin/sh\n", 0755);
  REQUIRE(::symlink("edit.txt", r.up("to_link").c_str()) == 0);
  put(r.up("dir_to_file"), "now a file");
  REQUIRE(::mkdir(r.up("file_to_dir").c_str(), 0755) == 0);
  put(r.up("file_to_dir/x"), "x");
  REQUIRE(::symlink("chmod.sh", r.up("link").c_str()) == 0);
  const auto ch = r.changes();
  auto kind = [&](const std::string& p) {
    const Change* c = find(ch, p);
    return c ? std::string(kind_name(c->kind)) : std::string("none");
  };
  CHECK(kind("new.txt") == "added");
  CHECK(kind("newdir") == "added");
  CHECK(kind("newdir/f") == "added");
  CHECK(kind("edit.txt") == "modified");
  CHECK(kind("chmod.sh") == "mode-changed");
  CHECK(kind("to_link") == "type-changed");
  CHECK(kind("dir_to_file") == "type-changed");
  CHECK(kind("dir_to_file/a") == "deleted");  // the directory's files are listed
  CHECK(kind("file_to_dir") == "type-changed");
  CHECK(kind("file_to_dir/x") == "added");
  CHECK(kind("link") == "modified");
  CHECK(find(ch, "link")->link_target == "chmod.sh");
  CHECK(ch.size() == 11);
  const Summary s = summarize(ch);
  CHECK(s.added == 4);
  CHECK(s.deleted == 1);
  CHECK(s.modified == 6);
  CHECK(s.risky == 0);
  CHECK(s.text() == "4 added, 6 modified, 1 deleted, 0 risky");
}

TEST_CASE("whiteouts delete, a deleted directory lists its files") {
  Run r;
  put(r.pj("gone.txt"), "g");
  REQUIRE(::mkdir(r.pj("tree").c_str(), 0755) == 0);
  REQUIRE(::mkdir(r.pj("tree/sub").c_str(), 0755) == 0);
  put(r.pj("tree/sub/deep"), "d");
  put(r.pj("tree/top"), "t");
  r.start();
  if (!whiteout(r.up("gone.txt"))) {
    MESSAGE("skipped: mknod of a 0/0 whiteout was refused (" << std::strerror(errno) << "); run as root");
    return;
  }
  REQUIRE(whiteout(r.up("tree")));
  REQUIRE(whiteout(r.up("never-there")));  // a whiteout over nothing: no change
  const auto ch = r.changes();
  std::vector<std::string> paths;
  for (const auto& c : ch) {
    CHECK(c.kind == ChangeKind::Deleted);
    paths.push_back(c.path);
  }
  CHECK(paths == std::vector<std::string>{"gone.txt", "tree", "tree/sub", "tree/sub/deep", "tree/top"});
}

TEST_CASE("a file marked user.overlay.whiteout is a whiteout too") {
  Run r;
  put(r.pj("gone.txt"), "g");
  r.start();
  put(r.up("gone.txt"), "");
  if (!set_xattr(r.up("gone.txt"), "user.overlay.whiteout", "")) {
    MESSAGE("skipped: user xattrs are not supported here (" << std::strerror(errno) << ")");
    return;
  }
  const auto ch = r.changes();
  REQUIRE(ch.size() == 1);
  CHECK(ch[0].kind == ChangeKind::Deleted);
}

TEST_CASE("an opaque directory hides every project entry it does not hold") {
  Run r;
  REQUIRE(::mkdir(r.pj("o").c_str(), 0755) == 0);
  put(r.pj("o/kept"), "same");
  put(r.pj("o/dropped"), "x");
  REQUIRE(::mkdir(r.pj("o/sub").c_str(), 0755) == 0);
  put(r.pj("o/sub/deep"), "y");
  r.start();
  REQUIRE(::mkdir(r.up("o").c_str(), 0755) == 0);
  if (!set_xattr(r.up("o"), "user.overlay.opaque", "y")) {
    MESSAGE("skipped: user xattrs are not supported here (" << std::strerror(errno) << ")");
    return;
  }
  put(r.up("o/kept"), "same");
  put(r.up("o/fresh"), "new");
  REQUIRE(::mkdir(r.up("o/sub").c_str(), 0755) == 0);  // made again: empty
  const auto ch = r.changes();
  std::vector<std::string> got;
  for (const auto& c : ch) got.push_back(c.path + ":" + kind_name(c.kind));
  CHECK(got == std::vector<std::string>{"o/dropped:deleted", "o/fresh:added", "o/sub/deep:deleted"});
}

TEST_CASE("redirect and metacopy are refused, masked paths are left out") {
  Run r;
  REQUIRE(::mkdir(r.pj("a").c_str(), 0755) == 0);
  put(r.pj(".env"), "SECRET=1");
  r.start({".env", "secrets", "*.pem"});
  put(r.up(".env"), "SECRET=2");
  put(r.up("server.pem"), "key");
  REQUIRE(::mkdir(r.up("secrets").c_str(), 0700) == 0);
  put(r.up("secrets/key"), "k");
  CHECK(r.changes().empty());
  REQUIRE(::mkdir(r.up("b").c_str(), 0755) == 0);
  if (!set_xattr(r.up("b"), "user.overlay.redirect", "/a")) {
    MESSAGE("skipped: user xattrs are not supported here");
    return;
  }
  auto c = scan(r.cs);
  REQUIRE_FALSE(c);
  CHECK(c.error().message().find("redirect") != std::string::npos);
  REQUIRE(::removexattr(r.up("b").c_str(), "user.overlay.redirect") == 0);
  put(r.up("m"), "");
  REQUIRE(set_xattr(r.up("m"), "user.overlay.metacopy", ""));
  c = scan(r.cs);
  REQUIRE_FALSE(c);
  CHECK(c.error().message().find("metacopy") != std::string::npos);
}

TEST_CASE("scan follows no link in either tree") {
  Run r;
  const std::string outside = temp_dir("outside");
  put(outside + "/secret", "s");
  REQUIRE(::symlink(outside.c_str(), r.pj("out").c_str()) == 0);
  r.start();
  // upper holds a directory where the project has a link to the outside
  REQUIRE(::mkdir(r.up("out").c_str(), 0755) == 0);
  put(r.up("out/secret"), "changed");
  const auto ch = r.changes();
  REQUIRE(find(ch, "out") != nullptr);
  CHECK(find(ch, "out")->kind == ChangeKind::TypeChanged);
  CHECK(find(ch, "out/secret")->kind == ChangeKind::Added);
  CHECK(get(outside + "/secret") == "s");
  rf::base::remove_tree(outside);
}

TEST_CASE("a project replaced since the run is refused") {
  Run r;
  r.start();
  REQUIRE(::rename(r.project.c_str(), (r.project + ".old").c_str()) == 0);
  REQUIRE(::mkdir(r.project.c_str(), 0755) == 0);
  auto c = scan(r.cs);
  REQUIRE_FALSE(c);
  CHECK(c.error().message().find("not the directory the run saw") != std::string::npos);
}
