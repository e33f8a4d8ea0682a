// SPDX-License-Identifier: LGPL-2.1-or-later
// The line diff and git's header forms.
#include "review_test_util.hpp"
#include "ringfence/review/diff.hpp"

using namespace rf::review;
using namespace rf::review::test;

TEST_CASE("hunks with context, counts, a missing final newline") {
  std::size_t a = 0, d = 0;
  CHECK(diff_hunks("a\nb\nc\n", "a\nB\nc\n", a, d) == "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  CHECK(a == 1);
  CHECK(d == 1);
  a = d = 0;
  CHECK(diff_hunks("", "x\ny", a, d) == "@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n");
  CHECK(a == 2);
  a = d = 0;
  std::string big, changed;
  for (int i = 0; i < 30; ++i) {
    big += std::to_string(i) + "\n";
    changed += (i == 2 || i == 25 ? "X" : std::to_string(i)) + "\n";
  }
  const std::string h = diff_hunks(big, changed, a, d);
  CHECK(h.find("@@ -1,6 +1,6 @@") == 0);
  CHECK(h.find("@@ -23,7 +23,7 @@") != std::string::npos);  // two hunks: far apart
  CHECK(a == 2);
  CHECK(d == 2);
}

TEST_CASE("paths are quoted as git quotes them") {
  CHECK(git_quote("a/plain name.txt") == "a/plain name.txt");
  CHECK(git_quote("a/tab\there") == "\"a/tab\\there\"");
  CHECK(git_quote("a/\xc3\xa9") == "\"a/\\303\\251\"");
}

TEST_CASE("unified_diff: new, deleted, re-moded, links, binary, and no .git") {
  Run r;
  put(r.pj("gone"), "bye\n");
  put(r.pj("x.sh"), "echo\n");
  r.start();
  put(r.up("new"), "hi\n");
  put(r.up("x.sh"), "echo\n", 0755);
  REQUIRE(::symlink("new", r.up("ln").c_str()) == 0);
  put(r.up("bin"), std::string("a\0b", 3));
  REQUIRE(::mkdir(r.up(".git").c_str(), 0755) == 0);
  put(r.up(".git/config"), "[core]\n");
  if (::mknod(r.up("gone").c_str(), S_IFCHR, 0) != 0) put(r.pj("gone"), "bye\n");
  auto d = unified_diff(r.cs, r.changes());
  REQUIRE(d);
  const std::string& t = d->text;
  CHECK(
      t.find(
          "diff --git a/new b/new\nnew file mode 100644\n--- /dev/null\n+++ b/new\n@@ -0,0 +1,1 @@\n+hi\n") !=
      std::string::npos);
  CHECK(t.find("diff --git a/x.sh b/x.sh\nold mode 100644\nnew mode 100755\n") != std::string::npos);
  CHECK(t.find("new file mode 120000\n--- /dev/null\n+++ b/ln\n@@ -0,0 +1,1 @@\n+new\n\\ No newline at end "
               "of file\n") != std::string::npos);
  CHECK(t.find("Binary files /dev/null and b/bin differ\n") != std::string::npos);
  CHECK(t.find(".git") == std::string::npos);
  if (::geteuid() == 0)
    CHECK(t.find("deleted file mode 100644\n--- a/gone\n+++ /dev/null\n") != std::string::npos);
}
