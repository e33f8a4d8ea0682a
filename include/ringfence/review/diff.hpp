// SPDX-License-Identifier: LGPL-2.1-or-later
// A change set as a unified diff in git's format (`git apply` takes it) and as per-file counts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/review/changes.hpp"
#include "ringfence/review/store.hpp"

namespace rf::review {

struct FileStat {
  std::string path;
  std::size_t added = 0, removed = 0;
  bool binary = false;
};

struct Diff {
  std::string text;
  std::vector<FileStat> files;
};

// Regular files and links (as git shows them: the target is the content, without a newline);
// files with a NUL byte in their first 8000 bytes are "Binary files ... differ". Directories,
// device nodes and FIFOs have no diff, and neither has anything at or under a .git (git apply
// refuses such paths; `changes` lists them).
base::Result<Diff> unified_diff(const ChangeSet& cs, const std::vector<Change>& changes);

// The hunks (from "@@") turning `a` into `b`, three lines of context; counts what they add and
// remove. Exposed for tests.
std::string diff_hunks(std::string_view a, std::string_view b, std::size_t& added, std::size_t& removed);

// A path as git writes it in a diff header ("a/x y" plain, "\"a/t\\tb\"" quoted).
std::string git_quote(const std::string& prefixed);

}  // namespace rf::review
