// SPDX-License-Identifier: LGPL-2.1-or-later
// The --perms/--size modifier rules. Texts and outcomes checked against bwrap 0.8.0, whose rules
// for these two options match the 0.11.1 source.
#include <doctest/doctest.h>

#include "cli_test_util.hpp"

using namespace rf::test;
using rf::spec::OpKind;

namespace {
constexpr const char* kPermsNotUsed = "--perms must be followed by an option that creates a file";
constexpr const char* kSizeNotUsed = "--size must be followed by --tmpfs";
}  // namespace

TEST_CASE("--perms applies to the next --dir or --tmpfs only") {
  auto p =
      parse({"--perms", "0700", "--dir", "/a", "--dir", "/b", "--perms", "1777", "--tmpfs", "/tmp", "true"});
  REQUIRE(error_of(p).empty());
  REQUIRE(p.spec.fs_ops.size() == 3);
  CHECK(p.spec.fs_ops[0].perms == 0700u);
  CHECK_FALSE(p.spec.fs_ops[1].perms);
  CHECK(p.spec.fs_ops[2].perms == 01777u);
}

TEST_CASE("--size applies to the next --tmpfs only") {
  auto p = parse({"--size", "4096", "--tmpfs", "/a", "--tmpfs", "/b", "true"});
  REQUIRE(error_of(p).empty());
  CHECK(p.spec.fs_ops[0].size == 4096u);
  CHECK_FALSE(p.spec.fs_ops[1].size);
}

TEST_CASE("--perms and --size combine in either order") {
  for (const Words& args : {Words{"--perms", "0750", "--size", "1024", "--tmpfs", "/t", "true"},
                            Words{"--size", "1024", "--perms", "0750", "--tmpfs", "/t", "true"}}) {
    auto p = parse(args);
    REQUIRE(error_of(p).empty());
    REQUIRE(p.spec.fs_ops.size() == 1);
    CHECK(p.spec.fs_ops[0].perms == 0750u);
    CHECK(p.spec.fs_ops[0].size == 1024u);
  }
}

TEST_CASE("a modifier not taken by the next option is fatal") {
  CHECK(error_of(parse({"--perms", "0700", "--bind", "a", "b", "true"})) == kPermsNotUsed);
  CHECK(error_of(parse({"--perms", "0700", "--chmod", "0700", "/x", "true"})) == kPermsNotUsed);
  CHECK(error_of(parse({"--perms", "0700", "--unshare-pid", "true"})) == kPermsNotUsed);
  CHECK(error_of(parse({"--perms", "0700", "--symlink", "a", "b", "true"})) == kPermsNotUsed);
  CHECK(error_of(parse({"--size", "10", "--dir", "/x", "true"})) == kSizeNotUsed);
  CHECK(error_of(parse({"--size", "10", "--bind", "a", "b", "true"})) == kSizeNotUsed);
  // Both pending: --perms is checked first.
  CHECK(error_of(parse({"--perms", "0700", "--size", "100", "--bind", "a", "b", "true"})) == kPermsNotUsed);
  CHECK(error_of(parse({"--size", "100", "--perms", "0700", "--bind", "a", "b", "true"})) == kPermsNotUsed);
  // --dir takes --perms, leaving --size unused.
  CHECK(error_of(parse({"--size", "100", "--perms", "0700", "--dir", "/x", "true"})) == kSizeNotUsed);
  CHECK(error_of(parse({"--perms", "0700", "--size", "100", "--dir", "/x", "true"})) == kSizeNotUsed);
}

TEST_CASE("the consumer's own error comes before the modifier check") {
  CHECK(error_of(parse({"--perms", "0700", "--chmod", "9", "/x", "true"})) ==
        "--chmod takes an octal argument <= 07777");
  CHECK(error_of(parse({"--perms", "0700", "--bogus"})) == "Unknown option --bogus");
  CHECK(error_of(parse({"--size", "10", "--bogus"})) == "Unknown option --bogus");
}

TEST_CASE("a modifier left at the end of the options is silently dropped, as in bwrap") {
  // bwrap 0.8.0 and 0.11.1 check only after an option, not when a COMMAND or "--" follows.
  auto p = parse({"--perms", "0700", "true"});
  CHECK(error_of(p).empty());
  CHECK(p.action == Action::Run);
  CHECK(error_of(parse({"--perms", "0700", "--", "true"})).empty());
  CHECK(error_of(parse({"--size", "10", "true"})).empty());
  CHECK(parse({"--perms", "0700"}).action == Action::Usage);
  CHECK(parse({"--size", "10"}).action == Action::Usage);
  CHECK(parse({"--perms", "0700", "--help"}).action == Action::Help);
  CHECK(parse({"--perms", "0700", "--version"}).action == Action::Version);
}

TEST_CASE("given twice for the same action") {
  CHECK(error_of(parse({"--perms", "0700", "--perms", "0700", "--dir", "/x", "true"})) ==
        "--perms given twice for the same action");
  CHECK(error_of(parse({"--size", "10", "--size", "10", "--tmpfs", "/x", "true"})) ==
        "--size given twice for the same action");
  CHECK(error_of(parse({"--perms", "0700", "--size", "1", "--perms", "1", "--tmpfs", "/x", "true"})) ==
        "--perms given twice for the same action");
  // "twice" is checked before the value.
  CHECK(error_of(parse({"--perms", "0700", "--perms", "zz"})) == "--perms given twice for the same action");
}

TEST_CASE("--perms values (strtoul base 8, <= 07777)") {
  CHECK(parse({"--perms", "7777", "--dir", "/x", "true"}).spec.fs_ops.at(0).perms == 07777u);
  CHECK(parse({"--perms", "0", "--dir", "/x", "true"}).spec.fs_ops.at(0).perms == 0u);
  CHECK(parse({"--perms", " 7", "--dir", "/x", "true"}).spec.fs_ops.at(0).perms == 7u);
  CHECK(parse({"--perms", "+7", "--dir", "/x", "true"}).spec.fs_ops.at(0).perms == 7u);
  for (const char* bad : {"8", "", "-7", "0x7", "10000", "7 ", "0o7"}) {
    CAPTURE(bad);
    CHECK(error_of(parse({"--perms", bad, "--dir", "/x", "true"})) ==
          "--perms takes an octal argument <= 07777");
  }
}

TEST_CASE("--size values (strtoull base 0, first character a digit, non-zero)") {
  auto size_of = [](const char* v) {
    return parse({"--size", v, "--tmpfs", "/x", "true"}).spec.fs_ops.at(0).size;
  };
  CHECK(size_of("1") == 1u);
  CHECK(size_of("0x100000") == 0x100000u);
  CHECK(size_of("010") == 8u);  // leading 0: octal
  CHECK(size_of("9223372036854775807") == 9223372036854775807u);
  for (const char* bad : {"0", "0x0", " 10", "-10", "+10", "10k", "99999999999999999999", "08", "0x", ""}) {
    CAPTURE(bad);
    CHECK(error_of(parse({"--size", bad, "--tmpfs", "/x", "true"})) ==
          "--size takes a non-zero number of bytes");
  }
  CHECK(error_of(parse({"--size", "9223372036854775808", "--tmpfs", "/x", "true"})) ==
        "--size (for tmpfs) is limited to 9223372036854775807");
}

TEST_CASE("--perms also applies to the next --file, --bind-data or --ro-bind-data") {
  auto p = parse({"--perms", "0600", "--file", "3", "/f", "--perms", "0444", "--ro-bind-data", "4", "/r",
                  "--bind-data", "5", "/b", "true"});
  REQUIRE(error_of(p).empty());
  REQUIRE(p.spec.fs_ops.size() == 3);
  CHECK(p.spec.fs_ops[0].perms == 0600u);
  CHECK(p.spec.fs_ops[1].perms == 0444u);
  CHECK_FALSE(p.spec.fs_ops[2].perms);
  // --size is for --tmpfs only, even when --perms is taken.
  CHECK(error_of(parse({"--size", "1", "--perms", "0600", "--file", "3", "/f", "true"})) == kSizeNotUsed);
}
