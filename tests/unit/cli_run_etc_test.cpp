// SPDX-License-Identifier: LGPL-2.1-or-later
// private_entries: what of a tree is not for everyone, judged by mode alone, without following
// links; a private directory is one entry.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>

#include "ringfence/base/remove_tree.hpp"
#include "run_etc.hpp"

namespace {

void file(const std::string& p, mode_t mode) {
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  REQUIRE(fd >= 0);
  ::close(fd);
  REQUIRE(::chmod(p.c_str(), mode) == 0);
}

void dir(const std::string& p, mode_t mode) {
  REQUIRE(::mkdir(p.c_str(), 0700) == 0);
  REQUIRE(::chmod(p.c_str(), mode) == 0);
}

}  // namespace

TEST_CASE("private_entries lists files without o+r and directories without o+rx, whole") {
  const char* t = std::getenv("TMPDIR");
  std::string root = std::string(t && *t == '/' ? t : "/tmp") + "/rf-etc-test-XXXXXX";
  REQUIRE(::mkdtemp(root.data()) != nullptr);
  REQUIRE(::chmod(root.c_str(), 0755) == 0);
  file(root + "/hostname", 0644);
  file(root + "/shadow", 0640);
  file(root + "/key", 0600);
  dir(root + "/private", 0700);
  file(root + "/private/inside", 0644);
  dir(root + "/searchonly", 0711);
  dir(root + "/pub", 0755);
  file(root + "/pub/ok", 0444);
  file(root + "/pub/psk", 0600);
  dir(root + "/pub/deeper", 0755);
  file(root + "/pub/deeper/token", 0604);
  file(root + "/pub/deeper/hidden", 0660);
  REQUIRE(::symlink((root + "/key").c_str(), (root + "/link-to-key").c_str()) == 0);
  REQUIRE(::symlink("/nonexistent", (root + "/dangling").c_str()) == 0);

  rf::cli::PrivateEntries got = rf::cli::private_entries(root);
  std::sort(got.paths.begin(), got.paths.end());
  const std::vector<std::string> want = {root + "/key",     root + "/private",    root + "/pub/deeper/hidden",
                                         root + "/pub/psk", root + "/searchonly", root + "/shadow"};
  CHECK(got.paths == want);
  CHECK_FALSE(got.truncated);

  // Walked ahead on a thread: the first call takes that walk, the next one walks again (and sees
  // a file made private since); a walk of another root is not taken for this one.
  rf::cli::prefetch_private_entries(root);
  got = rf::cli::private_entries(root);
  std::sort(got.paths.begin(), got.paths.end());
  CHECK(got.paths == want);
  REQUIRE(::chmod((root + "/hostname").c_str(), 0600) == 0);
  got = rf::cli::private_entries(root);
  CHECK(std::count(got.paths.begin(), got.paths.end(), root + "/hostname") == 1);
  rf::cli::prefetch_private_entries(root + "/pub");
  got = rf::cli::private_entries(root);
  CHECK(got.paths.size() == want.size() + 1);
  rf::cli::end_private_entries_prefetch();
  got = rf::cli::private_entries(root + "/pub");
  std::sort(got.paths.begin(), got.paths.end());
  CHECK(got.paths == std::vector<std::string>{root + "/pub/deeper/hidden", root + "/pub/psk"});
  CHECK(rf::base::remove_tree(root).empty());
}

TEST_CASE("private_entries of a missing tree is empty") {
  auto got = rf::cli::private_entries("/nonexistent-rf-etc");
  CHECK(got.paths.empty());
  CHECK_FALSE(got.truncated);
}

TEST_CASE("bind_target: the file itself, what a link resolves to, a link to nothing's target, none") {
  char tmpl[] = "/tmp/rf-unit-bindtarget-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  char real[PATH_MAX];
  REQUIRE(::realpath(tmpl, real) != nullptr);
  const std::string base = real;
  dir(base + "/etc", 0755);
  dir(base + "/run", 0755);
  file(base + "/run/stub.conf", 0644);
  file(base + "/etc/plain.conf", 0644);
  REQUIRE(::symlink("../run/stub.conf", (base + "/etc/linked.conf").c_str()) == 0);
  REQUIRE(::symlink("../run/missing/stub.conf", (base + "/etc/dangling.conf").c_str()) == 0);
  REQUIRE(::symlink("/nowhere/abs.conf", (base + "/etc/absolute.conf").c_str()) == 0);
  CHECK(rf::cli::bind_target(base + "/etc/plain.conf").value() == base + "/etc/plain.conf");
  CHECK(rf::cli::bind_target(base + "/etc/linked.conf").value() == base + "/run/stub.conf");
  CHECK(rf::cli::bind_target(base + "/etc/dangling.conf").value() == base + "/run/missing/stub.conf");
  CHECK(rf::cli::bind_target(base + "/etc/absolute.conf").value() == "/nowhere/abs.conf");
  auto none = rf::cli::bind_target(base + "/etc/none.conf");
  REQUIRE(!none);
  CHECK(none.error().message().find("has no " + base + "/etc/none.conf") != std::string::npos);
  (void)rf::base::remove_tree(base);
}
