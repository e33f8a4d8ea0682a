// SPDX-License-Identifier: LGPL-2.1-or-later
// cli: the run's seccomp program: the shipped profiles as built in (the same bytes the compiler
// gives now, which `policy compile` writes), a policy file's cached per user and compiled again
// when the policy, the build or the entry's owner and mode say so.
#include <dirent.h>
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "ringfence/base/remove_tree.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/cli/native_run.hpp"
#include "ringfence/policy/baked.hpp"
#include "ringfence/policy/merge.hpp"
#include "ringfence/policy/policy.hpp"

namespace {

std::string compiled_now(const std::string& name) {
  auto p = rf::policy::load(name);
  REQUIRE(p);
  auto programs = rf::policy::compile(*p);
  REQUIRE(programs);
  auto merged = rf::policy::merge_programs(*programs);
  REQUIRE(merged);
  return merged->bytes;
}

struct CacheHome {
  std::string dir;
  std::string old;
  bool had = false;
  CacheHome() {
    char tmpl[] = "/tmp/rf-unit-seccomp-XXXXXX";
    dir = ::mkdtemp(tmpl);
    if (const char* o = std::getenv("XDG_CACHE_HOME")) {
      old = o;
      had = true;
    }
    ::setenv("XDG_CACHE_HOME", (dir + "/cache").c_str(), 1);
  }
  ~CacheHome() {
    if (had)
      ::setenv("XDG_CACHE_HOME", old.c_str(), 1);
    else
      ::unsetenv("XDG_CACHE_HOME");
    (void)rf::base::remove_tree(dir);
  }
  [[nodiscard]] std::string entries() const { return dir + "/cache/ringfence/seccomp"; }
};

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
}

std::string only_entry(const std::string& dir) {
  std::string found;
  int n = 0;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (dirent* e = ::readdir(d)) {
    std::string n2 = e->d_name;
    if (n2 == "." || n2 == "..") continue;
    found = dir + "/" + n2;
    ++n;
  }
  ::closedir(d);
  CHECK(n == 1);
  return found;
}

}  // namespace

TEST_CASE("seccomp: every shipped profile is built in, byte for byte what the compiler gives") {
  const auto names = rf::policy::catalog_profiles();
  REQUIRE(!names.empty());
  CHECK(rf::policy::baked_profiles().size() == names.size());
  for (const auto& name : names) {
    INFO(name);
    const std::string_view baked = rf::policy::baked_program(name);
    REQUIRE(!baked.empty());
    CHECK(baked.size() % 8 == 0);
    CHECK(std::string(baked) == compiled_now(name));
    auto got = rf::cli::seccomp_program(name);
    REQUIRE(got);
    CHECK(*got == std::string(baked));
  }
  CHECK(rf::policy::baked_program("no-such-profile").empty());
  CHECK_FALSE(rf::cli::seccomp_program("no-such-profile"));
  CHECK(rf::policy::build_key().find("-") != std::string_view::npos);
}

TEST_CASE("seccomp: a policy file is compiled once, cached, and compiled again when it changes") {
  CacheHome h;
  const std::string file = h.dir + "/mine.policy";
  write(file,
        "@default errno ENOSYS\n@include groups/file_io\n@include groups/memory\n@include "
        "groups/process\nptrace: errno EPERM\n");
  std::string note;
  auto first = rf::cli::seccomp_program(file, &note);
  REQUIRE_MESSAGE(first, first.error().message());
  CHECK_MESSAGE(note.find("compiled and cached") != std::string::npos, note);
  const std::string entry = only_entry(h.entries());
  struct stat st {};
  REQUIRE(::stat(entry.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto second = rf::cli::seccomp_program(file, &note);
  REQUIRE(second);
  CHECK_MESSAGE(note.find("from the cache") != std::string::npos, note);
  CHECK(*second == *first);
  auto p = rf::policy::load(file);
  REQUIRE(p);
  auto programs = rf::policy::compile(*p);
  REQUIRE(programs);
  CHECK(*first == rf::policy::merge_programs(*programs)->bytes);

  SUBCASE("a changed policy compiles again") {
    write(file,
          "@default errno ENOSYS\n@include groups/file_io\n@include groups/memory\n@include "
          "groups/process\nptrace: errno EACCES\n");
    auto third = rf::cli::seccomp_program(file, &note);
    REQUIRE(third);
    CHECK_MESSAGE(note.find("compiled and cached") != std::string::npos, note);
    CHECK(*third != *first);
  }
  SUBCASE("an entry open to others is not used") {
    // A forged program in an entry others could write: ignored, compiled again, rewritten.
    auto text = rf::base::read_file(entry);
    REQUIRE(text);
    std::string forged = *text;
    forged.replace(forged.size() - 8, 8, std::string(8, '\x7f'));
    write(entry, forged);
    ::chmod(entry.c_str(), 0666);
    auto again = rf::cli::seccomp_program(file, &note);
    REQUIRE(again);
    CHECK(*again == *first);
    CHECK_MESSAGE(note.find("compiled and cached") != std::string::npos, note);
  }
  SUBCASE("an entry for the same name with another policy text is not used") {
    auto text = rf::base::read_file(entry);
    REQUIRE(text);
    std::string other = *text;
    const auto at = other.find("ptrace: errno EPERM");
    REQUIRE(at != std::string::npos);
    other.replace(at, 19, "ptrace: allow      ");
    write(entry, other);
    ::chmod(entry.c_str(), 0600);
    auto again = rf::cli::seccomp_program(file, &note);
    REQUIRE(again);
    CHECK(*again == *first);
    CHECK_MESSAGE(note.find("compiled and cached") != std::string::npos, note);
  }
  SUBCASE("an entry of another user is not used") {
    if (::geteuid() != 0) return;
    REQUIRE(::chown(entry.c_str(), 65534, 65534) == 0);
    auto again = rf::cli::seccomp_program(file, &note);
    REQUIRE(again);
    CHECK(*again == *first);
    CHECK(note.find("from the cache") == std::string::npos);
  }
  SUBCASE("a cache directory open to others is not used, and the run still gets its program") {
    ::chmod(h.entries().c_str(), 0777);
    auto again = rf::cli::seccomp_program(file, &note);
    REQUIRE(again);
    CHECK(*again == *first);
    CHECK_MESSAGE(note.find("not cached") != std::string::npos, note);
  }
}
