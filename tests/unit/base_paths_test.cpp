// SPDX-License-Identifier: LGPL-2.1-or-later
// Lexical path helpers: the engine builds every in-root path with these, so their corner cases
// (doubled slashes, "..", the root itself) are pinned here.
#include <doctest/doctest.h>
#include <fnmatch.h>

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

namespace {

// The reference: every component (and, for a pattern with '/', every prefix) through fnmatch.
bool reference_applies(std::string pattern, const std::string& relpath, bool is_dir) {
  bool dir_only = !pattern.empty() && pattern.back() == '/';
  while (!pattern.empty() && pattern.back() == '/') pattern.pop_back();
  bool anchored = pattern.find('/') != std::string::npos;
  while (!pattern.empty() && pattern.front() == '/') pattern.erase(0, 1);
  if (pattern.empty()) return false;
  auto parts = rf::base::components(relpath);
  std::string prefix;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    prefix += (prefix.empty() ? "" : "/") + parts[i];
    bool dir = i + 1 < parts.size() || is_dir;
    if (dir_only && !dir) continue;
    if (::fnmatch(pattern.c_str(), (anchored ? prefix : parts[i]).c_str(), FNM_PATHNAME) == 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("pattern_applies agrees with fnmatch over every component, fast paths included") {
  const char* patterns[] = {".env",
                            "*.pem",
                            "*.env",
                            ".env*",
                            "id_*",
                            "*",
                            "secrets/",
                            "config/*.json",
                            "/top.key",
                            "a/b/",
                            "[abc].txt",
                            "*\\*",
                            "*.",
                            "x?z",
                            "**",
                            ".npmrc",
                            "node_modules/*/.env",
                            "*.tar.gz",
                            "\\*.pem",
                            "*pem",
                            "config/ap*",
                            "id_rsa*",
                            "a*"};
  const char* paths[] = {".env",
                         "a/.env",
                         "a/b/.env.local",
                         "x.pem",
                         "dir/x.pem",
                         "pem",
                         ".pem",
                         "a.pem/x",
                         "secrets",
                         "secrets/x",
                         "a/secrets",
                         "config/app.json",
                         "config/sub/app.json",
                         "top.key",
                         "x/top.key",
                         "a/b",
                         "a/b/c",
                         "b.txt",
                         "d.txt",
                         "*x",
                         "x*",
                         "a.",
                         "xyz",
                         "node_modules/p/.env",
                         "node_modules/p/q/.env",
                         "f.tar.gz",
                         "./a//.env",
                         "*.pem",
                         "a/./b/c",
                         "id_rsa",
                         "config/ap/x",
                         "id_rsa.pub",
                         "a/id_rsa_x/y",
                         "z/id_ed25519.pub",
                         "",
                         "/",
                         "deep/er/path/x.pem"};
  for (const char* p : patterns)
    for (const char* r : paths)
      for (bool dir : {false, true}) {
        INFO(p << " " << r << " " << dir);
        CHECK(rf::base::pattern_applies(p, r, dir) == reference_applies(p, r, dir));
      }
  // Deeper than the fast path's 128 components.
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "d/";
  deep += "k.pem";
  CHECK(rf::base::pattern_applies("*.pem", deep, false));
  CHECK(rf::base::pattern_applies("d/", deep, false));
  CHECK_FALSE(rf::base::pattern_applies("e/", deep, false));
  CHECK(rf::base::pattern_matches("*.pem", "a.pem"));
  CHECK_FALSE(rf::base::pattern_matches("*.pem", "x/a.pem"));  // FNM_PATHNAME
}

TEST_CASE("PathPattern: applies() is pattern_applies, applies_to_last() agrees wherever no parent is named") {
  const std::vector<std::string> patterns = {".env",  ".env.*",        "*.pem",    "id_rsa*", ".aws/",
                                             ".ssh/", "secrets/*.txt", "/top.key", "a/b",     "[ab]?c",
                                             "*",     ".git/hooks",    "deep/"};
  const std::vector<std::string> names = {".env",    ".env.local", "x.pem", "id_rsa.pub", ".aws", ".ssh",
                                          "secrets", "top.key",    "a",     "b",          "abc",  "bbc",
                                          "x",       ".git",       "hooks", "deep",       "f.txt"};
  // Every path of up to three names from the list, as a file and as a directory.
  std::vector<std::string> paths;
  for (const auto& a : names) {
    paths.push_back(a);
    for (const auto& b : names) {
      paths.push_back(a + "/" + b);
      for (const auto& c : {std::string("f.txt"), std::string(".env"), std::string("hooks")})
        paths.push_back(a + "/" + b + "/" + c);
    }
  }
  std::size_t compared = 0, matched = 0;
  for (const auto& text : patterns) {
    const rf::base::PathPattern p(text);
    CHECK(p.text() == text);
    for (const auto& path : paths)
      for (bool is_dir : {false, true}) {
        const bool full = rf::base::pattern_applies(text, path, is_dir);
        CHECK(p.applies(path, is_dir) == full);
        // The parents' verdict, as a walk that stops at a named directory knows it.
        bool parent_named = false;
        for (std::size_t at = path.find('/'); at != std::string::npos; at = path.find('/', at + 1))
          parent_named = parent_named || rf::base::pattern_applies(text, path.substr(0, at), true);
        if (parent_named) continue;
        ++compared;
        matched += full;
        INFO(text << " on " << path << (is_dir ? "/" : ""));
        CHECK(p.applies_to_last(path, is_dir) == full);
      }
  }
  CHECK(compared > 10000);
  CHECK(matched > 100);
  // Paths not as a walk makes them take the general route.
  const rf::base::PathPattern env(".env");
  CHECK(env.applies_to_last("./.env", false));
  CHECK(env.applies_to_last("x/.env/", false));
  CHECK_FALSE(env.applies_to_last("", false));
}
