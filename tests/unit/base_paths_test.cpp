// SPDX-License-Identifier: LGPL-2.1-or-later
// Lexical path helpers: the engine builds every in-root path with these, so their corner cases
// (doubled slashes, "..", the root itself) are pinned here.
#include <doctest/doctest.h>

#include "ringfence/base/paths.hpp"

using namespace rf::base;

TEST_CASE("normalize collapses slashes and dots but keeps ..") {
  CHECK(normalize("/usr//bin/./ls") == "/usr/bin/ls");
  CHECK(normalize("/usr/bin/") == "/usr/bin");
  CHECK(normalize("a//b/./c/") == "a/b/c");
  CHECK(normalize("/") == "/");
  CHECK(normalize("//") == "/");
  CHECK(normalize("") == ".");
  CHECK(normalize(".") == ".");
  CHECK(normalize("./") == ".");
  // ".." is resolved in-root by the engine, never lexically.
  CHECK(normalize("/a/../b") == "/a/../b");
  CHECK(normalize("/../etc") == "/../etc");
}

TEST_CASE("components drops empty and . parts") {
  CHECK(components("/usr//lib/./x86_64/") == std::vector<std::string>{"usr", "lib", "x86_64"});
  CHECK(components("a/../b") == std::vector<std::string>{"a", "..", "b"});
  CHECK(components("/").empty());
  CHECK(components("").empty());
  CHECK(components("././.").empty());
}

TEST_CASE("join never doubles the slash") {
  CHECK(join("/newroot", "/usr/bin") == "/newroot/usr/bin");
  CHECK(join("/newroot/", "usr") == "/newroot/usr");
  CHECK(join("/newroot//", "//usr") == "/newroot/usr");
  CHECK(join("", "usr") == "/usr");
  CHECK(join("/a", "") == "/a/");
}

TEST_CASE("strip_leading_slashes") {
  CHECK(strip_leading_slashes("/usr/bin") == "usr/bin");
  CHECK(strip_leading_slashes("///x") == "x");
  CHECK(strip_leading_slashes("/") == "");
  CHECK(strip_leading_slashes("rel/p") == "rel/p");
}

TEST_CASE("parent") {
  CHECK(parent("/a/b") == "/a");
  CHECK(parent("/a/b/") == "/a");
  CHECK(parent("/a") == "/");
  CHECK(parent("/") == "/");
  CHECK(parent("a/b") == "a");
  CHECK(parent("a") == ".");
  CHECK(parent("//a//b") == "/a");
}

TEST_CASE("is_under compares whole components") {
  CHECK(is_under("/a/b", "/a"));
  CHECK(is_under("/a", "/a"));
  CHECK(is_under("/a/", "/a//"));
  CHECK(is_under("/anything", "/"));
  CHECK_FALSE(is_under("/ab", "/a"));
  CHECK_FALSE(is_under("/a", "/a/b"));
  CHECK_FALSE(is_under("/b/a", "/a"));
  CHECK(is_under("/a/./b", "/a/b"));
}
