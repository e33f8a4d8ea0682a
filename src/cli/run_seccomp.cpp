// SPDX-License-Identifier: LGPL-2.1-or-later
// The run's seccomp program: a shipped profile's was compiled when ringfence was built
// (policy/baked.hpp); a policy file's is compiled once and kept in the user's cache, keyed by
// this build and the policy as resolved (every syscall's rule, `policy show`), which the entry
// holds in full and is compared with: a changed file or include, or another build, compiles
// again. An entry that is not the user's own, is open to others or is a link is not used.
#include <cstdlib>
#include <string>

#include "ringfence/base/private_file.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/cli/native_run.hpp"
#include "ringfence/policy/baked.hpp"
#include "ringfence/policy/merge.hpp"
#include "ringfence/policy/policy.hpp"

namespace rf::cli {
namespace {

constexpr const char* kMagic = "ringfence seccomp cache 1\n";
constexpr off_t kMaxEntry = 16 << 20;

bool is_file_name(std::string_view name) {
  return name.find('/') != std::string_view::npos || name.ends_with(".policy");
}

// The cache directory: $XDG_CACHE_HOME/ringfence/seccomp, else ~/.cache/ringfence/seccomp.
std::string cache_dir() {
  const char* x = std::getenv("XDG_CACHE_HOME");
  if (x && *x == '/') return std::string(x) + "/ringfence/seccomp";
  const char* home = std::getenv("HOME");
  if (home && *home == '/') return std::string(home) + "/.cache/ringfence/seccomp";
  return {};
}

base::Result<std::string> compile_merged(const policy::Policy& p, const std::string& name) {
  auto programs = policy::compile(p);
  if (!programs)
    return programs.error().reworded("seccomp policy " + name + ": " + programs.error().message());
  auto merged = policy::merge_programs(*programs);
  if (!merged) return merged.error().reworded("seccomp policy " + name + ": " + merged.error().message());
  return merged->bytes;
}

}  // namespace

base::Result<std::string> seccomp_program(const std::string& name, std::string* cache_note) {
  if (!is_file_name(name)) {
    const std::string_view baked = policy::baked_program(name);
    if (!baked.empty()) return std::string(baked);
  }
  auto loaded = policy::load(name);
  if (!loaded) return loaded.error().reworded("seccomp policy: " + loaded.error().message());
  if (!is_file_name(name)) return compile_merged(*loaded, name);  // not baked: a build without it
  const std::string key = std::string(policy::build_key()) + "\n" + policy::show(*loaded);
  const std::string file = base::hex64(base::fnv1a64(key)) + ".bpf";
  const std::string header = kMagic + std::to_string(key.size()) + "\n" + key;
  const std::string dir = cache_dir();
  auto dfd = dir.empty() ? base::Result<base::UniqueFd>(base::Error(0, "no HOME"))
                         : base::open_private_dir(dir, true);
  if (dfd) {
    base::PrivateRead got = base::read_private_file(dfd->get(), file, kMaxEntry);
    if (got.content && got.content->starts_with(header) && got.content->size() > header.size() &&
        (got.content->size() - header.size()) % 8 == 0) {
      if (cache_note) *cache_note = "seccomp: " + name + " from the cache (" + dir + "/" + file + ")";
      return got.content->substr(header.size());
    }
  }
  RF_TRY_ASSIGN(bytes, compile_merged(*loaded, name));
  base::Status w = dfd ? base::write_private_file(dfd->get(), dir, file, header + bytes)
                       : base::Status(base::unexpected(dfd.error()));
  if (cache_note)
    *cache_note = "seccomp: " + name + " compiled" +
                  (w ? " and cached (" + dir + "/" + file + ")" : ", not cached: " + w.error().describe());
  return bytes;
}

base::Status compile_plan_seccomp(RunPlan& plan) {
  std::string note;
  RF_TRY_ASSIGN(bytes, seccomp_program(plan.settings.seccomp, &note));
  if (!note.empty()) plan.notes.push_back(note);
  plan.spec.seccomp.push_back({std::move(bytes)});
  return {};
}

}  // namespace rf::cli
