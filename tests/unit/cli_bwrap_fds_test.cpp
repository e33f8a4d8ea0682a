// SPDX-License-Identifier: LGPL-2.1-or-later
// Options that read fds at parse time (--args, --seccomp, --add-seccomp-fd) and the 9000-word
// cap. Texts and behaviour checked against bwrap 0.8.0 with real pipes.
#include <doctest/doctest.h>
#include <unistd.h>

#include "cli_test_util.hpp"

using namespace rf::test;
using rf::cli::detail::split_nul_words;
using rf::spec::OpKind;

TEST_CASE("split_nul_words: a final NUL does not start another word") {
  CHECK(split_nul_words("").empty());
  CHECK(split_nul_words(std::string("a\0b\0", 4)) == Words{"a", "b"});
  CHECK(split_nul_words(std::string("a\0b", 3)) == Words{"a", "b"});
  CHECK(split_nul_words(std::string("\0", 1)) == Words{""});
  CHECK(split_nul_words(std::string("\0\0", 2)) == Words{"", ""});
  CHECK(split_nul_words(std::string("a\0\0b\0", 5)) == Words{"a", "", "b"});
}

TEST_CASE("--args from a pipe: words parsed in place, fd closed") {
  int fd = pipe_with(nul_words({"--dir", "/b", "--setenv", "X", "1"}));
  auto p = parse({"--dir", "/a", "--args", std::to_string(fd), "--dir", "/c", "true"});
  REQUIRE(error_of(p).empty());
  CHECK_FALSE(fd_is_open(fd));
  REQUIRE(p.spec.fs_ops.size() == 3);
  CHECK(p.spec.fs_ops[0].dest == "/a");
  CHECK(p.spec.fs_ops[1].dest == "/b");
  CHECK(p.spec.fs_ops[2].dest == "/c");
  REQUIRE(p.spec.env_ops.size() == 1);
  CHECK(p.spec.env_ops[0].value == "1");
  CHECK(p.spec.argv == Words{"true"});
}

TEST_CASE("--args is repeatable and a payload without a final NUL still has its last word") {
  int a = pipe_with(nul_words({"--unshare-pid"}));
  int b = pipe_with(std::string("--chdir\0/w", 10));
  auto p = parse({"--args", std::to_string(a), "--args", std::to_string(b), "true"});
  REQUIRE(error_of(p).empty());
  CHECK(p.spec.ns.pid);
  CHECK(p.spec.chdir == "/w");
}

TEST_CASE("an empty payload is fine") {
  int fd = pipe_with("");
  auto p = parse({"--args", std::to_string(fd), "true"});
  CHECK(error_of(p).empty());
  CHECK(p.action == Action::Run);
  CHECK_FALSE(fd_is_open(fd));
}

TEST_CASE("--args inside an args payload is refused, before its value is looked at") {
  FakeFds fds;
  fds.data[3] = nul_words({"--args", "4"});
  fds.data[4] = nul_words({"--unshare-pid"});
  CHECK(error_of(fds.parse({"--args", "3", "true"})) == "--args not supported in arguments file");
  CHECK(fds.reads == std::vector<int>{3});
  fds.data[3] = nul_words({"--args"});
  CHECK(error_of(fds.parse({"--args", "3", "true"})) == "--args not supported in arguments file");
}

TEST_CASE("a non-option word ends the payload; the rest of it is ignored") {
  int fd = pipe_with(nul_words({"--unshare-ipc", "foo", "--bogus", "--unshare-pid"}));
  auto p = parse({"--args", std::to_string(fd), "--unshare-net", "true"});
  REQUIRE(error_of(p).empty());
  CHECK(p.spec.ns.ipc);
  CHECK_FALSE(p.spec.ns.pid);
  CHECK(p.spec.ns.net);  // the real argv goes on after --args
  CHECK(p.spec.argv == Words{"true"});
}

TEST_CASE("the command cannot come from a payload") {
  FakeFds fds;
  fds.data[3] = nul_words({"--unshare-ipc", "true", "arg"});
  auto p = fds.parse({"--args", "3"});
  CHECK(error_of(p).empty());
  CHECK(p.action == Action::Usage);
  CHECK(p.spec.argv.empty());
}

TEST_CASE("-- inside a payload ends only the payload") {
  FakeFds fds;
  fds.data[3] = nul_words({"--", "--bogus"});
  auto p = fds.parse({"--args", "3", "--unshare-uts", "true"});
  CHECK(error_of(p).empty());
  CHECK(p.spec.ns.uts);
}

TEST_CASE("errors, --help and arity inside a payload") {
  FakeFds fds;
  fds.data[3] = nul_words({"--bogus"});
  CHECK(error_of(fds.parse({"--args", "3", "true"})) == "Unknown option --bogus");
  fds.data[3] = nul_words({"--help"});
  CHECK(fds.parse({"--args", "3", "true"}).action == Action::Help);
  fds.data[3] = nul_words({"--version", "--bogus"});
  CHECK(fds.parse({"--args", "3", "--bogus"}).action == Action::Version);
  // A payload's last option cannot take its value from the real argv.
  fds.data[3] = nul_words({"--dir"});
  CHECK(error_of(fds.parse({"--args", "3", "/x", "true"})) == "--dir takes an argument");
  fds.data[3] = nul_words({"--bind", "a"});
  CHECK(error_of(fds.parse({"--args", "3", "b", "true"})) == "--bind takes two arguments");
}

TEST_CASE("modifiers carry across the end of a payload but --args itself must not be left holding one") {
  FakeFds fds;
  // The payload's --dir takes the real argv's --perms.
  fds.data[3] = nul_words({"--dir", "/x"});
  auto p = fds.parse({"--perms", "0700", "--args", "3", "true"});
  CHECK(error_of(p).empty());
  CHECK(p.spec.fs_ops.at(0).perms == 0700u);
  // A payload that ends with --perms: the check after --args fires.
  fds.data[3] = nul_words({"--perms", "0700"});
  CHECK(error_of(fds.parse({"--args", "3", "--dir", "/x", "true"})) ==
        "--perms must be followed by an option that creates a file");
  fds.data[3] = nul_words({"--size", "10", "true"});
  CHECK(error_of(fds.parse({"--args", "3", "--tmpfs", "/x", "true"})) ==
        "--size must be followed by --tmpfs");
}

TEST_CASE("--args fd errors") {
  CHECK(error_of(parse({"--args", "abc", "true"})) == "Invalid fd: abc");
  CHECK(error_of(parse({"--args", "-1", "true"})) == "Invalid fd: -1");
  CHECK(error_of(parse({"--args", "", "true"})) == "Invalid fd: ");
  CHECK(error_of(parse({"--args", "3x", "true"})) == "Invalid fd: 3x");
  // Stricter than bwrap's strtol, which also lets "+3" and " 3" through.
  CHECK(error_of(parse({"--args", "+3", "true"})) == "Invalid fd: +3");
  int fd = closed_fd();
  CHECK(error_of(parse({"--args", std::to_string(fd), "true"})) ==
        "Can't read --args data: Bad file descriptor");
}

TEST_CASE("the 9000-word cap counts the real argv, command included") {
  Words ok(8999, "--unshare-ipc");
  ok.push_back("true");
  CHECK(error_of(parse(ok)).empty());
  Words over = ok;
  over.push_back("arg");
  CHECK(error_of(parse(over)) == "Exceeded maximum number of arguments 9000");
  // Checked before anything else, --help included.
  over[0] = "--help";
  CHECK(error_of(parse(over)) == "Exceeded maximum number of arguments 9000");
}

TEST_CASE("the 9000-word cap counts payload words, even ones that would be ignored") {
  // Real argv: --args FD --bogus (3 words); 8997 payload words make 9000.
  Words payload(8997, "--unshare-ipc");
  int fd = memfd_with(nul_words(payload));
  CHECK(error_of(parse({"--args", std::to_string(fd), "--bogus"})) == "Unknown option --bogus");
  payload.push_back("--unshare-ipc");
  fd = memfd_with(nul_words(payload));
  CHECK(error_of(parse({"--args", std::to_string(fd), "--bogus"})) ==
        "Exceeded maximum number of arguments 9000");
  Words ignored(8998, "--unshare-ipc");
  ignored[0] = "stop-here";
  fd = memfd_with(nul_words(ignored));
  CHECK(error_of(parse({"--args", std::to_string(fd), "true"})) ==
        "Exceeded maximum number of arguments 9000");
  // Two payloads add up: 5 real words + 4500 + 4496 = 9001.
  FakeFds fds;
  fds.data[3] = nul_words(Words(4500, "--unshare-pid"));
  fds.data[4] = nul_words(Words(4496, "--unshare-pid"));
  CHECK(error_of(fds.parse({"--args", "3", "--args", "4", "true"})) ==
        "Exceeded maximum number of arguments 9000");
  fds.data[4] = nul_words(Words(4495, "--unshare-pid"));
  CHECK(error_of(fds.parse({"--args", "3", "--args", "4", "true"})).empty());
}

namespace {
std::string program(std::size_t instructions) { return std::string(instructions * 8, '\x06'); }
}  // namespace

TEST_CASE("--seccomp leaves its fd to the engine (read after validation, as bwrap does)") {
  int fd = pipe_with(program(3));
  auto p = parse({"--seccomp", std::to_string(fd), "true"});
  REQUIRE(error_of(p).empty());
  CHECK(p.spec.seccomp.empty());
  CHECK(p.spec.seccomp_fd == rf::spec::Fd{fd});
  CHECK(fd_is_open(fd));  // not consumed by the parser
  ::close(fd);
}

TEST_CASE("seccomp data must be a multiple of 8 bytes") {
  // (--seccomp's length is checked by the engine when it reads the fd.)
  int fd = pipe_with(std::string(12, 'x'));
  CHECK(error_of(parse({"--add-seccomp-fd", std::to_string(fd), "true"})) ==
        "Invalid seccomp data, must be multiple of 8");
  // An empty program is a multiple of 8.
  fd = pipe_with("");
  auto p = parse({"--add-seccomp-fd", std::to_string(fd), "true"});
  CHECK(error_of(p).empty());
  CHECK(p.spec.seccomp.at(0).bytes.empty());
}

TEST_CASE("seccomp read errors carry strerror") {
  int fd = closed_fd();
  // --seccomp's fd is the engine's to read; --add-seccomp-fd is read while parsing.
  CHECK(error_of(parse({"--seccomp", std::to_string(fd), "true"})).empty());
  CHECK(error_of(parse({"--add-seccomp-fd", std::to_string(fd), "true"})) ==
        "Can't read seccomp data: Bad file descriptor");
  CHECK(error_of(parse({"--seccomp", "x", "true"})) == "Invalid fd: x");
  CHECK(error_of(parse({"--add-seccomp-fd", "x", "true"})) == "Invalid fd: x");
}

TEST_CASE("--add-seccomp-fd is repeatable, read at once, kept in order") {
  FakeFds fds;
  fds.data[5] = program(1);
  fds.data[6] = program(2);
  auto p = fds.parse({"--add-seccomp-fd", "5", "--add-seccomp-fd", "6", "--bogus"});
  // Read while parsing: both were read before the unknown option stopped it.
  CHECK(fds.reads == std::vector<int>{5, 6});
  CHECK(error_of(p) == "Unknown option --bogus");
  fds.reads.clear();
  p = fds.parse({"--add-seccomp-fd", "5", "--add-seccomp-fd", "6", "true"});
  REQUIRE(error_of(p).empty());
  REQUIRE(p.spec.seccomp.size() == 2);
  CHECK(p.spec.seccomp[0].bytes.size() == 8);
  CHECK(p.spec.seccomp[1].bytes.size() == 16);
}

TEST_CASE("--seccomp: last one wins, never read by the parser") {
  FakeFds fds;
  fds.data[7] = program(2);
  auto p = fds.parse({"--seccomp", "99", "--seccomp", "7", "true"});
  REQUIRE(error_of(p).empty());
  CHECK(p.warnings == Words{"Only the last --seccomp option will take effect"});
  CHECK(fds.reads.empty());
  CHECK(p.spec.seccomp.empty());
  CHECK(p.spec.seccomp_fd == rf::spec::Fd{7});
  CHECK(error_of(fds.parse({"--seccomp", "7", "--bogus"})) == "Unknown option --bogus");
  CHECK(fds.parse({"--seccomp", "7"}).action == Action::Usage);
  CHECK(fds.parse({"--seccomp", "7", "--help"}).action == Action::Help);
  CHECK(fds.reads.empty());
}

TEST_CASE("--seccomp and --add-seccomp-fd do not mix, in either order") {
  FakeFds fds;
  fds.data[3] = program(1);
  fds.data[4] = program(1);
  CHECK(error_of(fds.parse({"--seccomp", "3", "--add-seccomp-fd", "4", "true"})) ==
        "--add-seccomp-fd cannot be combined with --seccomp");
  CHECK(error_of(fds.parse({"--add-seccomp-fd", "4", "--seccomp", "3", "true"})) ==
        "--seccomp cannot be combined with --add-seccomp-fd");
  // The combination is refused before the fd is even parsed.
  CHECK(error_of(fds.parse({"--add-seccomp-fd", "4", "--seccomp", "junk", "true"})) ==
        "--seccomp cannot be combined with --add-seccomp-fd");
}
