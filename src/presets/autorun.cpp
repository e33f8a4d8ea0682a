// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ringfence/presets/autorun.hpp"

#include <string>

#include "ringfence/base/paths.hpp"

namespace rf::presets {
namespace {

struct Rule {
  const char* pattern;  // the mask syntax (base::pattern_applies), on the relative path
  const char* reason;
};

// Whole-path rules, anchored at the project (a leading '/'); autorun_reason's first look must let
// every name these can match through.
constexpr Rule kRules[] = {
    {"/.git/commondir", "points git at another directory and its config"},
    {"/.git/config", "git configuration: it can run code through core.fsmonitor, core.hooksPath and others"},
    {"/.git/hooks", "git hooks: git runs them"},
    {"/.git/info/attributes", "git attributes: they choose the filters and diff drivers git runs"},
    {"/.git/modules", "a submodule's repository: its config and hooks"},
    {"/.git/worktrees", "a linked worktree's repository files"},
    {"/.git/rebase-merge", "a rebase in progress: git rebase --continue runs its exec lines"},
    {"/.git/sequencer", "a cherry-pick or revert in progress: continuing it runs its exec lines"},
    {"/.git/config.worktree",
     "git configuration: it can run code through core.fsmonitor, core.hooksPath and others"},
    {".envrc", "direnv runs it when a shell enters the directory"},
    {".vscode/tasks.json", "editor tasks: VS Code runs them, some on opening the folder"},
    {".vscode/settings.json", "editor settings: they can name programs the editor runs"},
    {".vscode/launch.json", "editor launch configurations"},
    {".pre-commit-config.yaml", "pre-commit runs the hooks it names"},
    {"/.github/workflows/*", "CI runs it on the next push"},
    {"/.gitlab-ci.yml", "CI runs it on the next push"},
};

}  // namespace

std::string autorun_reason(std::string_view relpath, bool is_dir) {
  // Most names of a tree are none of these: a look at the last name and the first directory
  // before any pattern (the walk after a run asks for every entry).
  std::string_view last = relpath.substr(relpath.rfind('/') + 1);
  bool maybe = relpath.starts_with(".git/") || relpath.starts_with(".github/") || last == ".git" ||
               last == ".envrc" || last == "tasks.json" || last == "settings.json" || last == "launch.json" ||
               last == ".pre-commit-config.yaml" || last == ".gitlab-ci.yml" ||
               relpath.find("/.git/") != std::string_view::npos;
  if (!maybe) return {};
  auto comps = base::components(relpath);
  if (comps.empty()) return {};
  // A git directory or gitfile below the top: git run there (or a tool that asks it) takes
  // that repository's config and hooks.
  for (std::size_t i = 1; i < comps.size(); ++i)
    if (comps[i] == ".git") return "a git repository: git run there takes its config and hooks";
  for (const auto& r : kRules) {
    std::string_view p = r.pattern;
    if (p.back() == '*' && is_dir) continue;
    if (base::pattern_applies(p, relpath, is_dir)) return r.reason;
  }
  return {};
}

}  // namespace rf::presets
