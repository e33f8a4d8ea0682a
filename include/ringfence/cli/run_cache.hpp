// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence run --cache DIR`: the package caches of npm, pip, cargo, go, maven, gradle and
// ccache kept in DIR across runs, read-write inside. The launcher makes DIR and its
// subdirectories before planning (the caller's own, writable by nobody else, no link on the
// way); the plan binds DIR at its own path (and DIR/cargo-registry at ~/.cargo/registry in the
// kernel jail) and points each tool there with its variable. What one run writes there the
// next run's builds read: a cache is shared by every run given it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/cli/native.hpp"

namespace rf::cli {

// DIR made absolute against `cwd` and normalized; refused: /, system directories.
base::Result<std::string> cache_path(const std::string& given, const std::string& cwd);
// Makes `path` (absolute) and its subdirectories where missing and checks them.
base::Status prepare_cache_dir(const std::string& path);
// The binds (--bind's SRC[:DST] form) of the cache.
void cache_binds(const std::string& path, bool kernel, const std::string& home_inside,
                 std::vector<std::string>& binds);
// The variables that send each tool to its cache (MAVEN_OPTS keeps what the command had).
std::vector<std::pair<std::string, std::string>> cache_variables(const std::string& path,
                                                                 const std::string& maven_opts);

struct RunPlan;
// Planning: with --cache, the cache's binds added to `binds` (a --bind list) and plan.cache_dir
// set; a missing directory is an error except in a dry run (the run makes it).
base::Status add_cache_binds(RunPlan& plan, const RunOptions& opts, std::vector<std::string>& binds,
                             const std::string& cwd);
// The tools' variables in the plan's environment, except those `env_args` (--env) name.
void add_cache_variables(RunPlan& plan, const std::vector<std::string>& env_args);

}  // namespace rf::cli
