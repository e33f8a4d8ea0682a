// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence changes | apply | discard` on the command line: what each parses to, and the
// combinations refused as usage errors.
#include <doctest/doctest.h>

#include "ringfence/cli/native.hpp"

using rf::cli::NativeCommand;
using rf::cli::parse_native;
using rf::cli::ReviewCommand;
using Words = std::vector<std::string>;

TEST_CASE("changes, apply and discard parse into a ReviewCommand") {
  auto c = parse_native({"changes", "20261202-060711-3ca4", "--json"});
  REQUIRE(c);
  CHECK(c->kind == NativeCommand::Kind::Review);
  CHECK(c->review.op == ReviewCommand::Op::Changes);
  CHECK(c->review.args == Words{"20261202-060711-3ca4"});
  CHECK(c->review.json);
  c = parse_native({"changes", "--list"});
  REQUIRE(c);
  CHECK(c->review.list);
  c = parse_native({"changes", "--project", "/p", "--stat"});
  REQUIRE(c);
  CHECK(c->review.project == "/p");
  auto a = parse_native({"apply", "20261202-060711-3ca4", "src", "docs/x.md", "--include-risky"});
  REQUIRE(a);
  CHECK(a->review.op == ReviewCommand::Op::Apply);
  CHECK(a->review.args == Words{"20261202-060711-3ca4", "src", "docs/x.md"});
  CHECK(a->review.include_risky);
  a = parse_native({"apply", "--git-branch", "review/x"});
  REQUIRE(a);
  CHECK(a->review.git_branch == "review/x");
  auto d = parse_native({"discard", "--keep", "3"});
  REQUIRE(d);
  CHECK(d->review.op == ReviewCommand::Op::Discard);
  CHECK(d->review.keep == 3);
  d = parse_native({"discard", "--older-than", "7"});
  REQUIRE(d);
  CHECK(d->review.older_than_days == doctest::Approx(7));
}

TEST_CASE("review command lines that are refused") {
  for (const Words& w :
       {Words{"changes", "--json", "--diff"}, Words{"changes", "not-an-id"},
        Words{"changes", "--list", "20261202-060711-3ca4"},
        Words{"apply", "--git-branch", "b", "--include-risky"}, Words{"apply", "--git-branch", ""},
        Words{"discard", "--keep", "1", "--older-than", "2"}, Words{"discard", "--keep", "-1"},
        Words{"discard", "x/../../etc"}, Words{"apply", "--frobnicate"}}) {
    auto r = parse_native(w);
    CHECK_MESSAGE(!r, std::string(w.front() + " " + w.back()));
  }
}
