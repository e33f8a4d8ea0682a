// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence run --cache DIR`: package caches kept across runs (see run_cache.hpp).
#include "ringfence/cli/run_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/cli/native_run.hpp"

namespace rf::cli {
namespace {

using base::Error;
using base::Status;

// Directory (below DIR) of each tool's cache; "cargo-registry" is bound at ~/.cargo/registry.
constexpr const char* kDirs[] = {"npm",      "pip",   "cargo-registry", "go",    "go/mod",
                                 "go/build", "maven", "gradle",         "ccache"};

// A directory that is the caller's own and that nobody else may write: one others could write
// would let them put packages into the next run's builds.
Status check_dir(int fd, const std::string& shown) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return base::errno_error("--cache: cannot look at " + shown);
  if (st.st_uid != ::geteuid())
    return Error(
        0, "--cache: " + shown + " belongs to uid " + std::to_string(st.st_uid) + ", not to the caller");
  if ((st.st_mode & 022) != 0) return Error(0, "--cache: " + shown + " is writable by others");
  return {};
}

}  // namespace

base::Result<std::string> cache_path(const std::string& given, const std::string& cwd) {
  if (given.empty()) return Error::usage("--cache: an empty directory name");
  const std::string path = base::normalize(given.starts_with('/') ? given : cwd + "/" + given);
  if (path == "/") return Error::usage("--cache /: the whole host would be writable");
  for (const auto& c : base::components(path))
    if (c == "..") return Error::usage("--cache " + given + ": no \"..\" (name the directory itself)");
  for (const char* sys :
       {"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/proc", "/sys", "/dev"})
    if (base::is_under(path, sys)) return Error::usage("--cache " + path + ": a system directory");
  return path;
}

base::Status prepare_cache_dir(const std::string& path) {
  // The missing directories on the way are made (0700); none on the way may be a link.
  std::string at = "/";
  base::UniqueFd fd(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  for (const auto& part : base::components(path)) {
    at = base::join(at, part);
    if (::mkdirat(fd.get(), part.c_str(), 0700) != 0 && errno != EEXIST)
      return base::errno_error("--cache: cannot make " + at);
    base::UniqueFd next(::openat(fd.get(), part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) return base::errno_error("--cache: cannot open " + at + " (a link is not followed)");
    fd = std::move(next);
  }
  RF_TRY(check_dir(fd.get(), path));
  for (const char* sub : kDirs) {
    const std::string shown = path + "/" + sub;
    if (::mkdirat(fd.get(), sub, 0700) != 0 && errno != EEXIST)
      return base::errno_error("--cache: cannot make " + shown);
    base::UniqueFd d(::openat(fd.get(), sub, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!d.valid()) return base::errno_error("--cache: cannot open " + shown + " (a link is not followed)");
    RF_TRY(check_dir(d.get(), shown));
  }
  return {};
}

void cache_binds(const std::string& path, bool kernel, const std::string& home_inside,
                 std::vector<std::string>& binds) {
  binds.push_back(path);
  // Cargo's downloads live under CARGO_HOME, which also holds the toolchain proxies: only the
  // registry part is the cache (the kernel jail can bind it there).
  if (kernel) binds.push_back(path + "/cargo-registry:" + home_inside + "/.cargo/registry");
}

std::vector<std::pair<std::string, std::string>> cache_variables(const std::string& path,
                                                                 const std::string& maven_opts) {
  return {
      {"NPM_CONFIG_CACHE", path + "/npm"},
      {"PIP_CACHE_DIR", path + "/pip"},
      {"GOMODCACHE", path + "/go/mod"},
      {"GOCACHE", path + "/go/build"},
      {"GRADLE_USER_HOME", path + "/gradle"},
      {"CCACHE_DIR", path + "/ccache"},
      {"MAVEN_OPTS", (maven_opts.empty() ? "" : maven_opts + " ") + "-Dmaven.repo.local=" + path + "/maven"},
  };
}

base::Status add_cache_binds(RunPlan& plan, const RunOptions& opts, std::vector<std::string>& binds,
                             const std::string& cwd) {
  if (!opts.cache) return {};
  RF_TRY_ASSIGN(dir, cache_path(*opts.cache, cwd));
  plan.cache_dir = dir;
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    cache_binds(dir, plan.level == presets::Level::Kernel, plan.home_inside, binds);
  else if (!opts.dry_run)
    return Error(ENOENT, "--cache " + dir + ": the directory is missing");
  else
    plan.notes.push_back("--cache " + dir + ": made by the run (it does not exist yet)");
  if (plan.level != presets::Level::Kernel)
    plan.notes.push_back(
        "--cache: cargo's registry is not kept at this level (only the kernel jail binds it)");
  return {};
}

void add_cache_variables(RunPlan& plan, const std::vector<std::string>& env_args) {
  if (plan.cache_dir.empty()) return;
  auto& ops = plan.spec.env_ops;
  auto set = [&ops](const std::string& name) -> spec::EnvOp* {
    for (auto& e : ops)
      if (e.kind == spec::EnvOp::Kind::Set && e.name == name) return &e;
    return nullptr;
  };
  const spec::EnvOp* maven = set("MAVEN_OPTS");
  for (const auto& [k, v] : cache_variables(plan.cache_dir, maven ? maven->value : std::string())) {
    // --env NAME or NAME=VALUE keeps the caller's own.
    const bool given = std::any_of(env_args.begin(), env_args.end(),
                                   [&k](const std::string& e) { return e == k || e.starts_with(k + "="); });
    if (given) continue;
    if (spec::EnvOp* e = set(k))
      e->value = v;
    else
      ops.push_back({spec::EnvOp::Kind::Set, k, v});
  }
}

}  // namespace rf::cli
