// SPDX-License-Identifier: LGPL-2.1-or-later
// The usage and version texts, and the option table behind them.
#include <doctest/doctest.h>

#include <set>
#include <sstream>

#include "cli_test_util.hpp"

using namespace rf::test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("the usage text starts like bwrap's") {
  auto lines = lines_of(rf::cli::bwrap_usage("/usr/bin/bwrap"));
  REQUIRE(lines.size() > 2);
  CHECK(lines[0] == "usage: /usr/bin/bwrap [OPTIONS...] [--] COMMAND [ARGS...]");
  CHECK(lines[1].empty());
  CHECK(rf::cli::bwrap_usage("bwrap").back() == '\n');
}

TEST_CASE("every bwrap 0.11.1 option is listed once, with its value names") {
  // The full 0.11.1 list with value names, from its usage text.
  const std::vector<std::string> expected = {"--help",
                                             "--version",
                                             "--args FD",
                                             "--argv0 VALUE",
                                             "--level-prefix",
                                             "--unshare-all",
                                             "--share-net",
                                             "--unshare-user",
                                             "--unshare-user-try",
                                             "--unshare-ipc",
                                             "--unshare-pid",
                                             "--unshare-net",
                                             "--unshare-uts",
                                             "--unshare-cgroup",
                                             "--unshare-cgroup-try",
                                             "--userns FD",
                                             "--userns2 FD",
                                             "--disable-userns",
                                             "--assert-userns-disabled",
                                             "--pidns FD",
                                             "--uid UID",
                                             "--gid GID",
                                             "--hostname NAME",
                                             "--chdir DIR",
                                             "--clearenv",
                                             "--setenv VAR VALUE",
                                             "--unsetenv VAR",
                                             "--lock-file DEST",
                                             "--sync-fd FD",
                                             "--bind SRC DEST",
                                             "--bind-try SRC DEST",
                                             "--dev-bind SRC DEST",
                                             "--dev-bind-try SRC DEST",
                                             "--ro-bind SRC DEST",
                                             "--ro-bind-try SRC DEST",
                                             "--bind-fd FD DEST",
                                             "--ro-bind-fd FD DEST",
                                             "--remount-ro DEST",
                                             "--overlay-src SRC",
                                             "--overlay RWSRC WORKDIR DEST",
                                             "--tmp-overlay DEST",
                                             "--ro-overlay DEST",
                                             "--exec-label LABEL",
                                             "--file-label LABEL",
                                             "--proc DEST",
                                             "--dev DEST",
                                             "--tmpfs DEST",
                                             "--mqueue DEST",
                                             "--dir DEST",
                                             "--file FD DEST",
                                             "--bind-data FD DEST",
                                             "--ro-bind-data FD DEST",
                                             "--symlink SRC DEST",
                                             "--seccomp FD",
                                             "--add-seccomp-fd FD",
                                             "--block-fd FD",
                                             "--userns-block-fd FD",
                                             "--info-fd FD",
                                             "--json-status-fd FD",
                                             "--new-session",
                                             "--die-with-parent",
                                             "--as-pid-1",
                                             "--cap-add CAP",
                                             "--cap-drop CAP",
                                             "--perms OCTAL",
                                             "--size BYTES",
                                             "--chmod OCTAL PATH"};
  auto lines = lines_of(rf::cli::bwrap_usage("bwrap"));
  std::vector<std::string> got;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    CAPTURE(l);
    REQUIRE(l.rfind("    --", 0) == 0);
    // The description starts in the same column on every line (33), after the option words.
    REQUIRE(l.size() > 33);
    CHECK(l[32] == ' ');
    CHECK(l[33] != ' ');
    std::string left = l.substr(4, 29);
    while (!left.empty() && left.back() == ' ') left.pop_back();
    got.push_back(left);
  }
  CHECK(got == expected);
}

TEST_CASE("the option table agrees with the parser") {
  std::set<std::string_view> names;
  for (const auto& opt : rf::cli::detail::bwrap_options()) {
    CAPTURE(opt.name);
    CHECK(names.insert(opt.name).second);
    CHECK(rf::cli::detail::find_bwrap_option(opt.name) == &opt);
    CHECK(static_cast<bool>(opt.handler));
    CHECK_FALSE(opt.help.empty());
    CHECK(opt.arity() <= 3);
  }
  CHECK(rf::cli::detail::find_bwrap_option("--") == nullptr);
  CHECK(rf::cli::detail::find_bwrap_option("--bind=") == nullptr);
}

TEST_CASE("version line") { CHECK(rf::cli::bwrap_version_line() == "bubblewrap 0.11.1\n"); }
