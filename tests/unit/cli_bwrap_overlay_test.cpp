// SPDX-License-Identifier: LGPL-2.1-or-later
// The overlay family (--overlay-src, --overlay, --tmp-overlay, --ro-overlay). Debian's bwrap
// 0.8.0 lacks these options: texts and rules come from the 0.11.1 contract.
#include <doctest/doctest.h>

#include "cli_test_util.hpp"

using namespace rf::test;
using rf::spec::OpKind;

namespace {
constexpr const char* kSrcNotUsed =
    "--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or "
    "--ro-overlay";
}  // namespace

TEST_CASE("--overlay takes the queued layers in command-line order, bottom first") {
  auto p =
      parse({"--overlay-src", "/low", "--overlay-src", "/mid", "--overlay", "/up", "/work", "/dest", "true"});
  REQUIRE(error_of(p).empty());
  REQUIRE(p.spec.fs_ops.size() == 1);
  const auto& op = p.spec.fs_ops[0];
  CHECK(op.kind == OpKind::Overlay);
  CHECK(op.layers == Words{"/low", "/mid"});
  CHECK(op.source == "/up");
  CHECK(op.work == "/work");
  CHECK(op.dest == "/dest");
}

TEST_CASE("--tmp-overlay and --ro-overlay take only a destination") {
  auto p = parse({"--overlay-src", "/a", "--tmp-overlay", "/t", "--overlay-src", "/b", "--overlay-src", "/c",
                  "--ro-overlay", "/r", "true"});
  REQUIRE(error_of(p).empty());
  REQUIRE(p.spec.fs_ops.size() == 2);
  CHECK(p.spec.fs_ops[0].kind == OpKind::TmpOverlay);
  CHECK(p.spec.fs_ops[0].layers == Words{"/a"});
  CHECK(p.spec.fs_ops[0].source.empty());
  CHECK(p.spec.fs_ops[0].work.empty());
  CHECK(p.spec.fs_ops[0].dest == "/t");
  CHECK(p.spec.fs_ops[1].kind == OpKind::RoOverlay);
  CHECK(p.spec.fs_ops[1].layers == Words{"/b", "/c"});
  CHECK(p.spec.fs_ops[1].dest == "/r");
}

TEST_CASE("each overlay op consumes its layers; the next one needs its own") {
  auto p = parse({"--overlay-src", "/a", "--tmp-overlay", "/t", "--tmp-overlay", "/u", "true"});
  CHECK(error_of(p) == "--tmp-overlay requires at least one --overlay-src");
  auto q = parse(
      {"--overlay-src", "/a", "--tmp-overlay", "/t", "--overlay-src", "/b", "--tmp-overlay", "/u", "true"});
  REQUIRE(error_of(q).empty());
  CHECK(q.spec.fs_ops[1].layers == Words{"/b"});
}

TEST_CASE("too few layers: one message per op") {
  CHECK(error_of(parse({"--overlay", "/u", "/w", "/d", "true"})) ==
        "--overlay requires at least one --overlay-src");
  CHECK(error_of(parse({"--tmp-overlay", "/d", "true"})) ==
        "--tmp-overlay requires at least one --overlay-src");
  CHECK(error_of(parse({"--ro-overlay", "/d", "true"})) ==
        "--ro-overlay requires at least two --overlay-src");
  CHECK(error_of(parse({"--overlay-src", "/a", "--ro-overlay", "/d", "true"})) ==
        "--ro-overlay requires at least two --overlay-src");
  // The arity check comes first.
  CHECK(error_of(parse({"--overlay", "/u", "/w"})) == "--overlay takes three arguments");
  CHECK(error_of(parse({"--ro-overlay"})) == "--ro-overlay takes an argument");
}

TEST_CASE("--overlay-src must be followed by another --overlay-src or an overlay op") {
  CHECK(error_of(parse({"--overlay-src", "/a", "--dir", "/x", "true"})) == kSrcNotUsed);
  CHECK(error_of(parse({"--overlay-src", "/a", "--unshare-pid", "true"})) == kSrcNotUsed);
  // --perms and --size are modifiers for their own rule, not for this one.
  CHECK(error_of(parse({"--overlay-src", "/a", "--perms", "0700", "--tmp-overlay", "/t", "true"})) ==
        kSrcNotUsed);
  CHECK(error_of(parse({"--overlay-src", "/a", "--size", "10", "--tmp-overlay", "/t", "true"})) ==
        kSrcNotUsed);
  // Also when the options end: at a COMMAND, at "--", or with no COMMAND at all.
  CHECK(error_of(parse({"--overlay-src", "/a", "true"})) == kSrcNotUsed);
  CHECK(error_of(parse({"--overlay-src", "/a", "--", "true"})) == kSrcNotUsed);
  CHECK(error_of(parse({"--overlay-src", "/a"})) == kSrcNotUsed);
  // A missing SRC gets the same text.
  CHECK(error_of(parse({"--overlay-src"})) == kSrcNotUsed);
}

TEST_CASE("--perms before an overlay op is not consumed by it") {
  CHECK(error_of(parse({"--perms", "0700", "--overlay-src", "/a", "--tmp-overlay", "/t", "true"})) ==
        "--perms must be followed by an option that creates a file");
}

TEST_CASE("--help still wins over queued layers") {
  CHECK(parse({"--overlay-src", "/a", "--help"}).action == Action::Help);
}

TEST_CASE("layers queued inside --args are checked by the option after --args") {
  FakeFds fds;
  fds.data[5] = nul_words({"--overlay-src", "/a"});
  CHECK(error_of(fds.parse({"--args", "5", "--tmp-overlay", "/t", "true"})) == kSrcNotUsed);
  fds.data[6] = nul_words({"--overlay-src", "/a", "--tmp-overlay", "/t"});
  auto p = fds.parse({"--args", "6", "true"});
  REQUIRE(error_of(p).empty());
  CHECK(p.spec.fs_ops.at(0).kind == OpKind::TmpOverlay);
}

TEST_CASE("overlay ops keep their place among the other filesystem ops") {
  auto p =
      parse({"--dir", "/a", "--overlay-src", "/l", "--tmp-overlay", "/a/b", "--tmpfs", "/a/b/c", "true"});
  REQUIRE(error_of(p).empty());
  REQUIRE(p.spec.fs_ops.size() == 3);
  CHECK(p.spec.fs_ops[0].kind == OpKind::Dir);
  CHECK(p.spec.fs_ops[1].kind == OpKind::TmpOverlay);
  CHECK(p.spec.fs_ops[2].kind == OpKind::Tmpfs);
}
