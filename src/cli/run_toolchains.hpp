// SPDX-License-Identifier: LGPL-2.1-or-later
// Developer tools of the caller's home and of PATH inside the kernel jail (run_toolchains.cpp),
// the host's git identity in the throwaway HOME (run_gitconfig.cpp), and what to say when the
// command is on the host but not inside.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/cli/native_run.hpp"

namespace rf::cli {

// The kernel jail, after the other binds are planned: the toolchain directories of the home and
// the PATH entries missing inside, bound read-only (--toolchains auto), their credential files
// covered; the PATH the command gets (plan.path_inside, without the entries still missing inside)
// and the variables the tools need (plan.toolchain_env).
base::Status add_toolchains(RunPlan& plan, const RunOptions& opts, const HostSnapshot& snap);
// The landlock level: the same folders granted read and execute (not one holding a credential
// file: a rule cannot leave it out), the variables; RUSTUP_HOME and PYENV_ROOT set to the home's
// when unset (HOME is the throwaway directory's path there). PATH is left as it is.
base::Status add_landlock_toolchains(RunPlan& plan, const RunOptions& opts, const HostSnapshot& snap);
// After the environment is built, at every level: the pruned PATH and the toolchain variables
// set (an --env of the same name wins), and plan.missing_command_hint.
void apply_toolchains(RunPlan& plan, const RunOptions& opts, const HostSnapshot& snap);
// The dry run's lines of both (empty when there is nothing to say).
std::string describe_toolchains(const RunPlan& plan);

// A git configuration file reduced to the settings that run nothing and hold no secret
// (user.name, user.email, init.defaultBranch, colors...), as a new file's text; `kept` and
// `dropped` get the names ("section.key", never a value). A file git could not read gives
// an error naming its line. includeIf is never followed (its conditions are the host's).
struct GitconfigFilter {
  std::string text;
  std::vector<std::string> kept, dropped;
};
// `include`, when given, reads the file an [include] path names (as written), filtered alike, and
// its settings take the include's place; without it include.path is dropped as the rest.
using GitconfigInclude = std::function<base::Result<GitconfigFilter>(const std::string& path)>;
base::Result<GitconfigFilter> filter_gitconfig(std::string_view text, const GitconfigInclude& include = {});
// The host's ~/.config/git/config (or $XDG_CONFIG_HOME/git/config) and ~/.gitconfig with the
// files their [include] paths name, filtered,
// as one ~/.gitconfig in the throwaway HOME (plan.home_files); nothing when neither exists.
base::Status add_gitconfig(RunPlan& plan, const HostSnapshot& snap);

}  // namespace rf::cli
