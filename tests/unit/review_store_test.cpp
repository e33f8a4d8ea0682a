// SPDX-License-Identifier: LGPL-2.1-or-later
// The change store: ids, meta.json exact to the nanosecond, finishing a run, listing, the
// latest of a project, discarding, and the directories it refuses.
#include <sys/stat.h>

#include "review_test_util.hpp"
#include "ringfence/review/apply.hpp"

using namespace rf::review;
using namespace rf::review::test;

TEST_CASE("ids sort by time and have one form") {
  const std::string a = make_id(1'700'000'000'000'000'000), b = make_id(1'700'000'001'000'000'000);
  CHECK(valid_id(a));
  CHECK(a.substr(0, 15) == "20231114-221320");
  CHECK(a < b);
  CHECK(!valid_id("20231114-221320-ABCD"));
  CHECK(!valid_id("../../etc/passwd"));
  CHECK(!valid_id("20231114-221320-abc"));
  CHECK(iso_utc(1'700'000'000'000'000'000) == "2023-11-14T22:13:20Z");
}

TEST_CASE("meta.json round-trips, 64-bit numbers exactly") {
  Meta m;
  m.id = "20231114-221320-00ff";
  m.project = "/w/p \"q\"";
  m.project_dev = 18446744073709551000ull;
  m.project_ino = 9007199254740993ull;  // 2^53 + 1: not a double
  m.started = "2023-11-14T22:13:20Z";
  m.started_ns = 1'700'000'000'123'456'789;
  m.git_head = "0123456789abcdef0123456789abcdef01234567";
  m.masked = {".env", "secrets/k"};
  m.state = RunState::Killed;
  m.exit_code = 137;
  auto back = meta_from_json(meta_to_json(m));
  REQUIRE_MESSAGE(back, back.error().describe());
  CHECK(back->project == m.project);
  CHECK(back->project_dev == m.project_dev);
  CHECK(back->project_ino == m.project_ino);
  CHECK(back->started_ns == m.started_ns);
  CHECK(back->git_head == m.git_head);
  CHECK(back->masked == m.masked);
  CHECK(back->state == RunState::Killed);
  CHECK(back->exit_code == 137);
  CHECK(!back->applied);
  CHECK_FALSE(meta_from_json("{\"id\": \"x\"}"));
}

TEST_CASE("create, finish, list, latest, discard") {
  Run r;
  r.start();
  struct stat st {};
  REQUIRE(::stat(r.cs.paths.dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
  REQUIRE(::stat(r.cs.paths.upper.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
  CHECK(r.cs.meta.state == RunState::Running);
  CHECK(!r.cs.meta.exit_code);
  REQUIRE(finish_change_set(r.cs.paths, RunState::Complete, 3));
  auto store = Store::at(r.store_root);
  REQUIRE(store);
  auto again = open_change_set(*store, r.cs.meta.id);
  REQUIRE(again);
  CHECK(again->meta.state == RunState::Complete);
  CHECK(again->meta.exit_code == 3);
  CHECK(again->meta.project == r.project);
  CreateInfo info;
  info.started_ns = r.cs.meta.started_ns + 2'000'000'000;
  auto second = create_change_set(*store, r.project, info);
  REQUIRE(second);
  auto all = list_change_sets(*store);
  REQUIRE(all);
  REQUIRE(all->size() == 2);
  CHECK(all->back().meta.id == second->id);
  auto latest = latest_for_project(*store, r.project);
  REQUIRE(latest);
  CHECK(latest->meta.id == second->id);
  CHECK_FALSE(latest_for_project(*store, "/nowhere"));
  REQUIRE(discard_change_set(*store, second->id));
  CHECK(!exists(second->dir));
  auto unknown = open_change_set(*store, second->id);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message().find("no change set") != std::string::npos);
}

TEST_CASE("a store or change set open to others, or a link, is refused") {
  Run r;
  r.start();
  auto store = Store::at(r.store_root);
  REQUIRE(store);
  REQUIRE(::chmod(r.cs.paths.dir.c_str(), 0770) == 0);
  auto cs = open_change_set(*store, r.cs.meta.id);
  REQUIRE_FALSE(cs);
  CHECK(cs.error().message().find("writable by group or others") != std::string::npos);
  REQUIRE(::chmod(r.cs.paths.dir.c_str(), 0700) == 0);
  REQUIRE(::chmod(r.store_root.c_str(), 0777) == 0);
  CHECK_FALSE(Store::at(r.store_root));
  CHECK_FALSE(store->open_root());
  REQUIRE(::chmod(r.store_root.c_str(), 0700) == 0);
  // A change set that is a link to a directory elsewhere
  const std::string elsewhere = temp_dir("elsewhere");
  const std::string fake = "20990101-000000-abcd";
  REQUIRE(::symlink(elsewhere.c_str(), (r.store_root + "/" + fake).c_str()) == 0);
  auto linked = open_change_set(*store, fake);
  REQUIRE_FALSE(linked);
  CHECK(linked.error().message().find("symbolic link") != std::string::npos);
  // Discarding it removes the link, not what it points at
  put(elsewhere + "/keep", "k");
  REQUIRE(discard_change_set(*store, fake));
  CHECK(exists(elsewhere + "/keep"));
  CHECK(!exists(r.store_root + "/" + fake));
  rf::base::remove_tree(elsewhere);
}

TEST_CASE("read_git_head: the commit at the top of a work tree, else nothing") {
  Run r;
  CHECK(!read_git_head(r.project));
  const std::string git = "git -c user.name=t -c user.email=t@x -C " + r.project + " ";
  REQUIRE(std::system((git + "init -q && " + git + "commit -q --allow-empty -m one").c_str()) == 0);
  const auto head = read_git_head(r.project);
  REQUIRE(head);
  CHECK(head->size() == 40);
  REQUIRE(::mkdir(r.pj("sub").c_str(), 0755) == 0);
  CHECK(!read_git_head(r.pj("sub")));  // inside a work tree, not its top
}
