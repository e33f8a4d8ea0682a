// SPDX-License-Identifier: LGPL-2.1-or-later
// Options that name fds for the engine (--file, --bind-data, --ro-bind-data, --sync-fd,
// --block-fd, --userns-block-fd, --info-fd, --json-status-fd), --lock-file, --argv0, the user
// namespace lockdown flags and their cross-option errors. Texts and order were checked against
// Debian's bwrap 0.8.0, as root and as uid 65534; --argv0 follows the 0.11.1 contract.
#include <doctest/doctest.h>

#include <optional>

#include "cli_test_util.hpp"

using namespace rf::test;
using rf::spec::OpKind;
using rf::spec::Spec;

namespace {

constexpr const char* kBlockNeedsUser = "--userns-block-fd requires --unshare-user";
constexpr const char* kBlockNeedsInfo = "--userns-block-fd requires --info-fd";
constexpr const char* kDisableNeedsUser = "--disable-userns requires --unshare-user";
constexpr const char* kDisableVsBlock = "--disable-userns is not compatible with  --userns-block-fd";

struct DataCase {
  const char* opt;
  OpKind kind;
};
constexpr DataCase kDataOps[] = {
    {"--file", OpKind::File}, {"--bind-data", OpKind::BindData}, {"--ro-bind-data", OpKind::RoBindData}};

struct FdCase {
  const char* opt;
  std::optional<rf::spec::Fd> Spec::*field;
};
const FdCase kFdOptions[] = {
    {"--sync-fd", &Spec::sync_fd},
    {"--block-fd", &Spec::block_fd},
    {"--userns-block-fd", &Spec::userns_block_fd},
    {"--info-fd", &Spec::info_fd},
    {"--json-status-fd", &Spec::json_status_fd},
    {"--userns", &Spec::userns_fd},
};

// --userns-block-fd alone is refused by the cross-option checks; these make it acceptable.
Words with_fd_prerequisites(const FdCase& c, Words args) {
  if (std::string(c.opt) == "--userns-block-fd")
    args.insert(args.begin(), {"--unshare-user", "--info-fd", "9"});
  return args;
}

}  // namespace

TEST_CASE("--file, --bind-data, --ro-bind-data: an op with the fd, not read by the parser") {
  for (const auto& c : kDataOps) {
    CAPTURE(c.opt);
    FakeFds fds;
    fds.data[5] = "content";
    auto p = fds.parse({"--dir", "/a", c.opt, "5", "/etc/x", "--dir", "/b", "true"});
    REQUIRE(error_of(p).empty());
    CHECK(fds.reads.empty());  // the engine reads (and closes) it during setup
    REQUIRE(p.spec.fs_ops.size() == 3);
    const auto& op = p.spec.fs_ops[1];
    CHECK(op.kind == c.kind);
    CHECK(op.fd == rf::spec::Fd{5});
    CHECK(op.dest == "/etc/x");
    CHECK(op.source.empty());
    CHECK_FALSE(op.perms);  // the engine's default: 0666 for --file, 0600 for the data binds
    CHECK_FALSE(op.size);
    CHECK_FALSE(op.allow_missing);
    // Ops without a content fd keep the "none" value.
    CHECK(p.spec.fs_ops[0].fd == rf::spec::Fd{-1});
    CHECK(p.spec.fs_ops[2].fd == rf::spec::Fd{-1});
  }
}

TEST_CASE("data ops: fd 0 is valid, the same fd may be named twice, dest kept as given") {
  auto p = parse({"--file", "0", "rel//x/", "--ro-bind-data", "0", "/y", "true"});
  REQUIRE(error_of(p).empty());
  REQUIRE(p.spec.fs_ops.size() == 2);
  CHECK(p.spec.fs_ops[0].fd == rf::spec::Fd{0});
  CHECK(p.spec.fs_ops[0].dest == "rel//x/");
  CHECK(p.spec.fs_ops[1].fd == rf::spec::Fd{0});
}

TEST_CASE("data ops: fd errors and missing values") {
  for (const auto& c : kDataOps) {
    const std::string opt = c.opt;
    CAPTURE(opt);
    for (const char* bad : {"x", "", "-1", "3x", "+3", " 3"}) {
      CAPTURE(bad);
      // "+3" and " 3": bwrap's strtol takes them; ringfence's fd parser is stricter everywhere.
      CHECK(error_of(parse({opt, bad, "/y", "true"})) == std::string("Invalid fd: ") + bad);
    }
    CHECK(error_of(parse({opt})) == opt + " takes two arguments");
    CHECK(error_of(parse({opt, "3"})) == opt + " takes two arguments");
  }
}

TEST_CASE("data ops take a preceding --perms") {
  for (const auto& c : kDataOps) {
    CAPTURE(c.opt);
    auto p = parse({"--perms", "0640", c.opt, "3", "/x", c.opt, "4", "/y", "true"});
    REQUIRE(error_of(p).empty());
    REQUIRE(p.spec.fs_ops.size() == 2);
    CHECK(p.spec.fs_ops[0].perms == 0640u);
    CHECK_FALSE(p.spec.fs_ops[1].perms);  // only the next op
  }
}

TEST_CASE("data ops do not take --size; their own fd error comes before the modifier check") {
  CHECK(error_of(parse({"--size", "10", "--file", "3", "/x", "true"})) ==
        "--size must be followed by --tmpfs");
  CHECK(error_of(parse({"--perms", "0700", "--size", "10", "--bind-data", "3", "/x", "true"})) ==
        "--size must be followed by --tmpfs");
  CHECK(error_of(parse({"--perms", "0700", "--file", "x", "/y", "true"})) == "Invalid fd: x");
}

TEST_CASE("none of the other new options consumes --perms") {
  const std::vector<Words> cases = {
      {"--lock-file", "/x"},     {"--sync-fd", "3"},   {"--block-fd", "3"},          {"--info-fd", "3"},
      {"--json-status-fd", "3"}, {"--disable-userns"}, {"--assert-userns-disabled"}, {"--argv0", "a"}};
  for (Words args : cases) {
    CAPTURE(args[0]);
    args.insert(args.begin(), {"--perms", "0700"});
    args.push_back("true");
    CHECK(error_of(parse(args)) == "--perms must be followed by an option that creates a file");
  }
}

TEST_CASE("single fd options set their field, fd 0 included") {
  for (const auto& c : kFdOptions) {
    CAPTURE(c.opt);
    auto p = parse(with_fd_prerequisites(c, {c.opt, "0", "true"}));
    REQUIRE(error_of(p).empty());
    CHECK(p.spec.*c.field == rf::spec::Fd{0});
    CHECK(p.warnings.empty());
    for (const auto& other : kFdOptions)
      if (other.field != c.field && other.field != &Spec::info_fd) CHECK_FALSE(p.spec.*other.field);
  }
  CHECK_FALSE(parse({"true"}).spec.sync_fd);
  CHECK_FALSE(parse({"true"}).spec.json_status_fd);
}

TEST_CASE("single fd options: last wins, with bwrap's warning") {
  for (const auto& c : kFdOptions) {
    const std::string opt = c.opt;
    CAPTURE(opt);
    auto p = parse(with_fd_prerequisites(c, {opt, "50", opt, "51", opt, "52", "true"}));
    REQUIRE(error_of(p).empty());
    CHECK(p.spec.*c.field == rf::spec::Fd{52});
    const std::string warning = "Only the last " + opt + " option will take effect";
    CHECK(p.warnings == Words{warning, warning});
  }
}

TEST_CASE("single fd options: the warning comes before the value is checked") {
  for (const auto& c : kFdOptions) {
    const std::string opt = c.opt;
    CAPTURE(opt);
    auto p = parse({opt, "50", opt, "x", "true"});
    CHECK(p.warnings == Words{"Only the last " + opt + " option will take effect"});
    CHECK(error_of(p) == "Invalid fd: x");
    for (const char* bad : {"", "-1", "1.5", "+3"}) {
      CAPTURE(bad);
      CHECK(error_of(parse({opt, bad, "true"})) == std::string("Invalid fd: ") + bad);
    }
    CHECK(error_of(parse({opt})) == opt + " takes an argument");
  }
}

TEST_CASE("--lock-file is repeatable and keeps order, without a warning") {
  auto p = parse({"--lock-file", "/a", "--dir", "/d", "--lock-file", "rel/b", "--lock-file", "/a", "true"});
  REQUIRE(error_of(p).empty());
  CHECK(p.spec.lock_files == Words{"/a", "rel/b", "/a"});
  CHECK(p.warnings.empty());
  CHECK(p.spec.fs_ops.size() == 1);  // not a file-system op
  CHECK(error_of(parse({"--lock-file"})) == "--lock-file takes an argument");
}

TEST_CASE("--argv0 (0.11.1): the value, given once") {
  auto p = parse({"--argv0", "-sh", "bash", "-c", "x"});
  REQUIRE(error_of(p).empty());
  CHECK(p.spec.argv0 == "-sh");
  CHECK(p.spec.argv == Words{"bash", "-c", "x"});
  CHECK_FALSE(parse({"true"}).spec.argv0);
  CHECK(parse({"--argv0", "", "true"}).spec.argv0 == "");
  CHECK(error_of(parse({"--argv0", "a", "--argv0", "b", "true"})) == "--argv0 used multiple times");
  // An empty first value still counts as given.
  CHECK(error_of(parse({"--argv0", "", "--argv0", "b", "true"})) == "--argv0 used multiple times");
  // The value count is checked before the repeat.
  CHECK(error_of(parse({"--argv0", "a", "--argv0"})) == "--argv0 takes one argument");
}

TEST_CASE("--disable-userns and --assert-userns-disabled set their flags") {
  auto p = parse({"--unshare-user", "--disable-userns", "--assert-userns-disabled", "true"});
  REQUIRE(error_of(p).empty());
  CHECK(p.spec.disable_userns);
  CHECK(p.spec.assert_userns_disabled);
  auto q = parse({"--assert-userns-disabled", "--assert-userns-disabled", "true"});
  REQUIRE(error_of(q).empty());  // needs nothing else; repeats are harmless
  CHECK(q.spec.assert_userns_disabled);
  CHECK_FALSE(q.spec.disable_userns);
  CHECK(parse({"--unshare-user", "--disable-userns", "--disable-userns", "true"}).warnings.empty());
}

TEST_CASE("cross-option errors of the user namespace options") {
  CHECK(error_of(parse({"--userns-block-fd", "5", "true"})) == kBlockNeedsUser);
  CHECK(error_of(parse({"--userns-block-fd", "5", "--info-fd", "6", "true"})) == kBlockNeedsUser);
  CHECK(error_of(parse({"--userns-block-fd", "5", "--unshare-user", "true"})) == kBlockNeedsInfo);
  CHECK(error_of(parse({"--userns-block-fd", "5", "--unshare-user", "--info-fd", "6", "true"})).empty());
  CHECK(error_of(parse({"--disable-userns", "true"})) == kDisableNeedsUser);
  CHECK(error_of(parse({"--disable-userns", "--unshare-user", "true"})).empty());
  CHECK(error_of(parse({"--disable-userns", "--unshare-user", "--userns-block-fd", "5", "--info-fd", "6",
                        "true"})) == kDisableVsBlock);
}

TEST_CASE("only an explicit --unshare-user counts, whoever the caller is") {
  // bwrap checks before it implies a user namespace for unprivileged callers, and before it
  // resolves --unshare-user-try: uid 65534 gets the same errors as root.
  for (const char* opt : {"--unshare-user-try", "--unshare-all"}) {
    CAPTURE(opt);
    CHECK(error_of(parse({opt, "--disable-userns", "true"})) == kDisableNeedsUser);
    CHECK(error_of(parse({opt, "--userns-block-fd", "5", "--info-fd", "6", "true"})) == kBlockNeedsUser);
  }
  // The position of --unshare-user does not matter.
  CHECK(error_of(parse({"--disable-userns", "--unshare-all", "--unshare-user", "true"})).empty());
}

TEST_CASE("cross-option errors come in bwrap's order") {
  // --userns-block-fd's two rules, then --disable-userns's two.
  CHECK(error_of(parse({"--disable-userns", "--userns-block-fd", "5", "true"})) == kBlockNeedsUser);
  CHECK(error_of(parse({"--disable-userns", "--userns-block-fd", "5", "--info-fd", "6", "true"})) ==
        kBlockNeedsUser);
  CHECK(error_of(parse({"--disable-userns", "--unshare-user", "--userns-block-fd", "5", "true"})) ==
        kBlockNeedsInfo);
}

TEST_CASE("cross-option errors come after every per-option error and --help/--version") {
  CHECK(error_of(parse({"--disable-userns", "--bogus", "true"})) == "Unknown option --bogus");
  CHECK(error_of(parse({"--cap-add", "CAP_BOGUS", "--disable-userns", "true"})) == "unknown cap: CAP_BOGUS");
  CHECK(error_of(parse({"--userns-block-fd", "5", "--info-fd", "x", "true"})) == "Invalid fd: x");
  CHECK(parse({"--disable-userns", "--help"}).action == Action::Help);
  CHECK(error_of(parse({"--disable-userns", "--help"})).empty());
  CHECK(parse({"--disable-userns", "--version"}).action == Action::Version);
  // An --add-seccomp-fd is read while parsing, so its read error comes first.
  CHECK(error_of(parse({"--add-seccomp-fd", std::to_string(closed_fd()), "--disable-userns", "true"})) ==
        "Can't read seccomp data: Bad file descriptor");
}

TEST_CASE("cross-option errors come before the usage text and before --seccomp is read") {
  auto p = parse({"--disable-userns"});
  CHECK(error_of(p) == kDisableNeedsUser);
  CHECK(error_of(parse({"--userns-block-fd", "5"})) == kBlockNeedsUser);
  FakeFds fds;
  CHECK(error_of(fds.parse({"--seccomp", "7", "--disable-userns", "true"})) == kDisableNeedsUser);
  CHECK(fds.reads.empty());
  // The later rules (--uid, --hostname, --as-pid-1) depend on the host and are left to
  // spec::validate; bwrap checks them after these, and after the usage.
  CHECK(error_of(parse({"--uid", "5", "--hostname", "h", "--disable-userns", "true"})) == kDisableNeedsUser);
  CHECK(parse({"--as-pid-1", "--lock-file", "/x"}).action == Action::Usage);
  CHECK(error_of(parse({"--as-pid-1", "--lock-file", "/x", "true"})).empty());
}

TEST_CASE("the new options work from an --args payload") {
  FakeFds fds;
  fds.data[3] = nul_words({"--file", "4", "/f", "--lock-file", "/l", "--sync-fd", "5", "--argv0", "a0",
                           "--unshare-user", "--disable-userns"});
  auto p = fds.parse({"--args", "3", "true"});
  REQUIRE(error_of(p).empty());
  CHECK(fds.reads == std::vector<int>{3});
  CHECK(p.spec.fs_ops.at(0).fd == rf::spec::Fd{4});
  CHECK(p.spec.lock_files == Words{"/l"});
  CHECK(p.spec.sync_fd == rf::spec::Fd{5});
  CHECK(p.spec.argv0 == "a0");
  CHECK(p.spec.disable_userns);
  fds.data[3] = nul_words({"--argv0", "a"});
  CHECK(error_of(fds.parse({"--args", "3", "--argv0", "b", "true"})) == "--argv0 used multiple times");
}

TEST_CASE("--userns refuses a new user namespace, in bwrap's order") {
  // Checked against bwrap 0.8.0: the --unshare-user clash comes first, the -try one (from
  // --unshare-all too) after the lockdown checks.
  CHECK(error_of(parse({"--userns", "3", "--unshare-user", "--disable-userns", "true"})) ==
        "--userns not compatible --unshare-user");
  CHECK(error_of(parse({"--userns", "3", "--unshare-all", "--userns-block-fd", "4", "true"})) ==
        "--userns-block-fd requires --unshare-user");
  CHECK(error_of(parse({"--userns", "3", "--unshare-all", "true"})) ==
        "--userns not compatible --unshare-user-try");
  auto ok = parse({"--userns", "3", "--uid", "5", "true"});
  REQUIRE(error_of(ok).empty());
  CHECK(ok.spec.userns_fd == rf::spec::Fd{3});
}

TEST_CASE("--bind-fd and --ro-bind-fd: a bind whose source is the fd") {
  auto p = parse({"--bind-fd", "3", "/a", "--ro-bind-fd", "0", "/b", "true"});
  REQUIRE(error_of(p).empty());
  REQUIRE(p.spec.fs_ops.size() == 2);
  CHECK(p.spec.fs_ops[0].kind == OpKind::Bind);
  CHECK(p.spec.fs_ops[0].fd == rf::spec::Fd{3});
  CHECK(p.spec.fs_ops[0].source == "/proc/self/fd/3");
  CHECK(p.spec.fs_ops[0].dest == "/a");
  CHECK(p.spec.fs_ops[1].kind == OpKind::RoBind);
  CHECK(p.spec.fs_ops[1].fd == rf::spec::Fd{0});
  CHECK(error_of(parse({"--bind-fd", "x", "/a", "true"})) == "Invalid fd: x");
  // bwrap names --bind-fd for both variants.
  CHECK(error_of(parse({"--ro-bind-fd", "3"})) == "--bind-fd takes two arguments");
}
