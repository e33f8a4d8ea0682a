// SPDX-License-Identifier: LGPL-2.1-or-later
// Files in a project that a host tool runs, or takes its configuration from, later and outside
// any sandbox: git directories below the top (a repository git enters there), the files that point
// the top repository elsewhere, direnv's .envrc, editor tasks and settings, pre-commit and CI
// configuration. One classification, for the warning after a run and for review before apply.
#pragma once

#include <string>
#include <string_view>

namespace rf::presets {

// Why `relpath` (relative to the project, no leading "./"; is_dir: a directory) runs code on the
// host later, or an empty string when it does not.
std::string autorun_reason(std::string_view relpath, bool is_dir);

}  // namespace rf::presets
