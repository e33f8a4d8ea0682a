// SPDX-License-Identifier: LGPL-2.1-or-later
// The child recipe's table (order, level gating, names) and the status pipe's error record.
#include <doctest/doctest.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "recipe.hpp"
#include "sync.hpp"

using rf::engine::command_steps;
using rf::engine::Level;
using rf::engine::recipe_steps;
using rf::engine::Stage;
using rf::engine::stage_name;
using rf::engine::Step;

namespace {

std::vector<std::string> names_at(std::span<const Step> steps, Level level) {
  std::vector<std::string> out;
  for (const Step& s : steps)
    if (rf::engine::runs_at(s, level)) out.emplace_back(s.name);
  return out;
}

// Position of a step in the recipe as run at `level`, or -1 when it does not run there.
int position(Level level, const std::string& name) {
  auto names = names_at(recipe_steps(), level);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

constexpr Level kLevels[] = {Level::Kernel, Level::Landlock, Level::Soft};

}  // namespace

TEST_CASE("recipe: every step is named by its stage, and stages and names are unique") {
  for (auto steps : {recipe_steps(), command_steps()}) {
    std::set<int> stages;
    std::set<std::string> names;
    for (const Step& s : steps) {
      CHECK(std::string(s.name) == stage_name(s.stage));
      CHECK(s.why != nullptr);
      CHECK(std::strlen(s.why) > 10);
      CHECK(static_cast<bool>(s.run));
      CHECK(s.levels != 0);
      CHECK(stages.insert(static_cast<int>(s.stage)).second);
      CHECK(names.insert(s.name).second);
    }
  }
}

TEST_CASE("recipe: the kernel jail's order") {
  const std::vector<std::string> want = {"dumpable",
                                         "cgroup",
                                         "process title",
                                         "signal mask",
                                         "death signal",
                                         "pid namespace",
                                         "sync point",
                                         "no_new_privs",
                                         "umask",
                                         "uid/gid maps",
                                         "loopback",
                                         "new root",
                                         "filesystem",
                                         "pivot_root",
                                         "late masks",
                                         "loader guard",
                                         "hostname",
                                         "second user namespace",
                                         "nested user namespace",
                                         "user ids",
                                         "capabilities",
                                         "exec allowlist",
                                         "block fd",
                                         "working directory",
                                         "session",
                                         "file descriptors",
                                         "arguments",
                                         "pid 1",
                                         "command"};
  CHECK(names_at(recipe_steps(), Level::Kernel) == want);
}

TEST_CASE("recipe: the soft and landlock levels' order") {
  const std::vector<std::string> soft = {
      "cgroup",         "signal mask",       "death signal", "no_new_privs",     "capabilities",
      "exec allowlist", "working directory", "session",      "file descriptors", "arguments",
      "command"};
  CHECK(names_at(recipe_steps(), Level::Soft) == soft);
  std::vector<std::string> landlock = soft;
  landlock.insert(landlock.begin() + 5, "landlock");
  CHECK(names_at(recipe_steps(), Level::Landlock) == landlock);
}

TEST_CASE("recipe: no namespace step runs without namespaces") {
  for (const char* name :
       {"uid/gid maps", "loopback", "new root", "filesystem", "pivot_root", "hostname", "pid namespace",
        "sync point", "nested user namespace", "pid 1", "umask", "late masks"}) {
    CAPTURE(name);
    CHECK(position(Level::Kernel, name) >= 0);
    CHECK(position(Level::Soft, name) == -1);
    CHECK(position(Level::Landlock, name) == -1);
  }
  CHECK(position(Level::Landlock, "landlock") >= 0);
  CHECK(position(Level::Soft, "landlock") == -1);
  CHECK(position(Level::Kernel, "landlock") == -1);
}

TEST_CASE("recipe: the command is last at every level, and the pid-1 step comes right before it") {
  for (Level level : kLevels) {
    CAPTURE(rf::engine::level_name(level));
    auto names = names_at(recipe_steps(), level);
    REQUIRE(!names.empty());
    CHECK(names.back() == "command");
    CHECK(recipe_steps().back().stage == Stage::Command);
    // pid 2 shares pid 1's memory and must not allocate: its arguments are built before.
    CHECK(position(level, "arguments") < position(level, "command"));
  }
  CHECK(position(Level::Kernel, "pid 1") == position(Level::Kernel, "command") - 1);
  CHECK(position(Level::Kernel, "arguments") < position(Level::Kernel, "pid 1"));
}

TEST_CASE("recipe: no_new_privs comes before anything that confines or runs the command") {
  for (Level level : kLevels) {
    CAPTURE(rf::engine::level_name(level));
    const int nnp = position(level, "no_new_privs");
    REQUIRE(nnp >= 0);
    for (const char* later :
         {"capabilities", "exec allowlist", "working directory", "session", "file descriptors", "command"})
      CHECK(nnp < position(level, later));
    if (level == Level::Landlock) CHECK(nnp < position(level, "landlock"));
    // Only these come first: none of them execs or opens anything the command could use.
    const std::set<std::string> first = {"dumpable",     "cgroup",        "process title", "signal mask",
                                         "death signal", "pid namespace", "sync point"};
    auto names = names_at(recipe_steps(), level);
    for (int i = 0; i < nnp; ++i) CHECK(first.count(names[static_cast<std::size_t>(i)]) == 1);
  }
  CHECK(position(Level::Kernel, "no_new_privs") < position(Level::Kernel, "uid/gid maps"));
  CHECK(position(Level::Kernel, "no_new_privs") < position(Level::Kernel, "filesystem"));
}

TEST_CASE("recipe: the cgroup is joined first, the death signal before any namespace step") {
  CHECK(position(Level::Soft, "cgroup") == 0);
  CHECK(position(Level::Landlock, "cgroup") == 0);
  CHECK(position(Level::Kernel, "cgroup") == 1);  // after "dumpable", which cannot fail
  CHECK(position(Level::Kernel, "death signal") < position(Level::Kernel, "pid namespace"));
  CHECK(position(Level::Kernel, "death signal") < position(Level::Kernel, "sync point"));
  // Capabilities are dropped after every step that needs them.
  for (const char* before : {"hostname", "filesystem", "pivot_root", "nested user namespace", "user ids"})
    CHECK(position(Level::Kernel, before) < position(Level::Kernel, "capabilities"));
}

TEST_CASE("recipe: the masks' sync point comes once the root is complete, before anything runs") {
  // The launcher's helper enters the mount namespace at its root, which is final after pivot_root.
  CHECK(position(Level::Kernel, "late masks") == position(Level::Kernel, "pivot_root") + 1);
  for (const char* later : {"block fd", "pid 1", "command"})
    CHECK(position(Level::Kernel, "late masks") < position(Level::Kernel, later));
}

TEST_CASE("recipe: the tail is death signal, rlimits, connect filter, seccomp, exec, at every level") {
  const std::vector<std::string> want = {"death signal", "resource limits", "connect filter", "seccomp",
                                         "exec"};
  for (Level level : kLevels) CHECK(names_at(command_steps(), level) == want);
  CHECK(command_steps().back().stage == Stage::Exec);
}

TEST_CASE("status record: stage, errno and message round trip; native wording names the step") {
  auto r = rf::engine::error_record(Stage::FsOps, rf::base::Error(ENOENT, "Can't mkdir /proc/sys/x"));
  CHECK(r.kind == rf::engine::Record::kError);
  CHECK(r.stage == static_cast<int>(Stage::FsOps));
  CHECK(r.err == ENOENT);
  // Through the bytes of the wire.
  rf::engine::Record got;
  std::memcpy(&got, &r, sizeof r);
  auto native = rf::engine::error_from_record(got, false);
  CHECK(native.code() == ENOENT);
  CHECK(native.message() == "sandbox setup failed at filesystem: Can't mkdir /proc/sys/x");
  CHECK(native.describe() ==
        "sandbox setup failed at filesystem: Can't mkdir /proc/sys/x: No such file or directory");
  auto bwrap = rf::engine::error_from_record(got, true);
  CHECK(bwrap.code() == ENOENT);
  CHECK(bwrap.message() == "Can't mkdir /proc/sys/x");
  static_assert(sizeof(rf::engine::Record) <= PIPE_BUF);
}

TEST_CASE("status record: a long message is cut to fit and stays terminated") {
  std::string longer(5000, 'x');
  auto r = rf::engine::error_record(Stage::Exec, rf::base::Error(0, longer));
  CHECK(r.message[sizeof r.message - 1] == 0);
  auto e = rf::engine::error_from_record(r, true);
  CHECK(e.message() == std::string(sizeof r.message - 1, 'x'));
  CHECK(e.code() == 0);
  // A record whose message fills the array without a terminator is still read within it.
  std::memset(r.message, 'y', sizeof r.message);
  CHECK(rf::engine::error_from_record(r, true).message().size() == sizeof r.message);
}

TEST_CASE("stage names: the mislabelled stages have their own, and an unknown number reads as setup") {
  CHECK(std::string(stage_name(Stage::NoNewPrivs)) == "no_new_privs");
  CHECK(std::string(stage_name(Stage::Landlock)) == "landlock");
  CHECK(std::string(stage_name(Stage::LandlockExec)) == "exec allowlist");
  CHECK(std::string(stage_name(Stage::FsOps)) == "filesystem");
  CHECK(std::string(stage_name(Stage::Capabilities)) == "capabilities");
  CHECK(std::string(stage_name(static_cast<Stage>(999))) == "setup");
  rf::engine::Record r;
  r.kind = rf::engine::Record::kError;
  r.stage = 999;
  std::strcpy(r.message, "m");
  CHECK(rf::engine::error_from_record(r, false).message() == "sandbox setup failed at setup: m");
  // Every stage a step reports has a name of its own.
  std::set<std::string> seen;
  for (auto steps : {recipe_steps(), command_steps()})
    for (const Step& s : steps) seen.insert(stage_name(s.stage));
  CHECK(seen.count("setup") == 0);
  CHECK(std::string(stage_name(Stage::Reaper)) == "pid 1");
}

namespace {

std::string levels_text(unsigned levels) {
  std::string out;
  for (Level l : kLevels)
    if (levels & static_cast<unsigned>(l))
      out += std::string(out.empty() ? "" : ", ") + rf::engine::level_name(l);
  return out == "kernel, landlock, soft" ? "all" : out;
}

// The row docs/architecture.md shows for a step.
std::string doc_row(int n, const Step& s) {
  return "| " + std::to_string(n) + " | " + s.name + " | " + levels_text(s.levels) + " | " + s.why + " |";
}

}  // namespace

TEST_CASE("recipe: docs/architecture.md shows the table as the code has it") {
  const char* root = std::getenv("RF_SOURCE_ROOT");
  if (root == nullptr) return;  // run outside meson test
  std::ifstream in(std::string(root) + "/docs/architecture.md");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  int n = 0;
  std::string last;
  for (auto steps : {recipe_steps(), command_steps()}) {
    n = 0;
    for (const Step& s : steps) {
      std::string row = doc_row(++n, s);
      CHECK_MESSAGE(doc.find(row + "\n") != std::string::npos, row);
      // In the same order as here.
      if (!last.empty()) CHECK(doc.find(last) < doc.find(row));
      last = row;
    }
  }
}
