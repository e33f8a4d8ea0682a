// SPDX-License-Identifier: LGPL-2.1-or-later
// mountinfo parsing: escapes, the variable-length optional fields, and refusal of damaged lines
// (the recursive remount code walks these entries, so a misparse means a wrong mount flag).
#include <doctest/doctest.h>

#include <cerrno>

#include "ringfence/base/mountinfo.hpp"

using namespace rf::base;

TEST_CASE("a full line with optional fields") {
  auto r = parse_mountinfo(
      "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 shared:7 - ext3 /dev/root rw,errors=continue\n");
  REQUIRE(r);
  REQUIRE(r->size() == 1);
  const MountEntry& e = r->front();
  CHECK(e.id == 36);
  CHECK(e.parent_id == 35);
  CHECK(e.major == 98);
  CHECK(e.minor == 0);
  CHECK(e.root == "/mnt1");
  CHECK(e.mount_point == "/mnt2");
  CHECK(e.options == "rw,noatime");
  CHECK(e.optional_fields == std::vector<std::string>{"master:1", "shared:7"});
  CHECK(e.fs_type == "ext3");
  CHECK(e.source == "/dev/root");
  CHECK(e.super_options == "rw,errors=continue");
  CHECK(e.has_option("noatime"));
  CHECK(e.has_option("rw"));
  CHECK_FALSE(e.has_option("ro"));
  CHECK_FALSE(e.has_option("noatim"));
}

TEST_CASE("no optional fields, several lines, blank lines skipped") {
  auto r = parse_mountinfo(
      "22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
      "\n"
      "23 1 0:22 / /sys ro,nosuid - sysfs sysfs rw\n");
  REQUIRE(r);
  REQUIRE(r->size() == 2);
  CHECK((*r)[0].optional_fields.empty());
  CHECK((*r)[0].mount_point == "/proc");
  CHECK((*r)[1].id == 23);
  CHECK((*r)[1].has_option("ro"));
  CHECK((*r)[1].has_option("nosuid"));
}

TEST_CASE("octal escapes are decoded in paths") {
  auto r =
      parse_mountinfo("40 22 0:35 /with\\040space /mnt/a\\040b\\011tab\\134back rw - tmpfs my\\040src rw\n");
  REQUIRE(r);
  const MountEntry& e = r->front();
  CHECK(e.root == "/with space");
  CHECK(e.mount_point == "/mnt/a b\ttab\\back");
  CHECK(e.source == "my src");
}

TEST_CASE("unescape_mountinfo leaves incomplete or non-octal escapes alone") {
  CHECK(unescape_mountinfo("a\\040b") == "a b");
  CHECK(unescape_mountinfo("\\012") == "\n");
  CHECK(unescape_mountinfo("x\\08") == "x\\08");
  CHECK(unescape_mountinfo("x\\04") == "x\\04");
  CHECK(unescape_mountinfo("tail\\") == "tail\\");
  CHECK(unescape_mountinfo("\\999") == "\\999");
}

TEST_CASE("a line without super options still parses") {
  auto r = parse_mountinfo("50 1 0:40 / /x rw shared:3 - tmpfs none\n");
  REQUIRE(r);
  CHECK(r->front().source == "none");
  CHECK(r->front().super_options.empty());
  CHECK(r->front().optional_fields == std::vector<std::string>{"shared:3"});
}

TEST_CASE("malformed lines are refused with the line number") {
  SUBCASE("no separator") {
    auto r = parse_mountinfo("22 1 0:21 / /proc rw proc proc rw extra\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == EINVAL);
    CHECK(r.error().message() == "mountinfo line 1: malformed mountinfo line");
  }
  SUBCASE("too few fields, second line") {
    auto r = parse_mountinfo("22 1 0:21 / /proc rw - proc proc rw\n22 1 0:21 /\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "mountinfo line 2: malformed mountinfo line");
  }
  SUBCASE("bad numbers") {
    auto r = parse_mountinfo("x 1 0:21 / /proc rw - proc proc rw\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "mountinfo line 1: malformed mountinfo numbers");
  }
  SUBCASE("device without colon") {
    auto r = parse_mountinfo("22 1 021 / /proc rw - proc proc rw\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "mountinfo line 1: malformed mountinfo numbers");
  }
  SUBCASE("negative id") {
    auto r = parse_mountinfo("22 1 0:-1 / /proc rw - proc proc rw\n");
    REQUIRE_FALSE(r);
  }
  SUBCASE("separator with nothing after it") {
    auto r = parse_mountinfo("22 1 0:21 / /proc rw a b c -\n");
    REQUIRE_FALSE(r);
  }
}

TEST_CASE("empty text is an empty table") {
  auto r = parse_mountinfo("");
  REQUIRE(r);
  CHECK(r->empty());
}
