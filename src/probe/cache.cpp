// SPDX-License-Identifier: LGPL-2.1-or-later
// The cache file: read only from a 0700 directory and a file that are ours and not writable by
// anyone else (never followed through a symlink), used only when every key field matches, and
// written atomically.
#include "cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "json.hpp"
#include "ringfence/base/private_file.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::probe {
namespace {

constexpr int kFormat = 1;
constexpr off_t kMaxSize = 1 << 20;
constexpr const char* kFile = "probe.json";

std::string link_of(const char* path) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(path, buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "?";
}

std::string optional_value(const std::optional<long>& v) { return v ? std::to_string(*v) : "-"; }

}  // namespace

CacheKey cache_key(const Facts& f) {
  struct stat exe {};
  std::string exe_id = "?";
  if (::stat("/proc/self/exe", &exe) == 0)
    exe_id = std::to_string(exe.st_dev) + ":" + std::to_string(exe.st_ino) + ":" +
             std::to_string(exe.st_mtim.tv_sec) + "." + std::to_string(exe.st_mtim.tv_nsec);
  return {
      {"format", std::to_string(kFormat)},
      {"boot_id", f.boot_id},
      {"kernel", f.kernel_release},
      {"exe", exe_id},
      {"uid", std::to_string(f.uid) + ":" + std::to_string(::geteuid())},
      {"userns", link_of("/proc/self/ns/user")},
      {"mntns", link_of("/proc/self/ns/mnt")},
      {"cgroup",
       [] {
         auto t = base::read_file("/proc/self/cgroup");
         return t ? *t : std::string("?");
       }()},
      {"seccomp", std::to_string(f.seccomp_mode) + ":" + std::to_string(f.seccomp_filters) + ":" +
                      (f.no_new_privs ? "nnp" : "-")},
      {"lsm_label", f.lsm_label},
      {"sysctls", optional_value(f.max_user_namespaces) + "," + optional_value(f.unprivileged_userns_clone) +
                      "," + optional_value(f.apparmor_restrict_userns) + "," +
                      optional_value(f.io_uring_disabled) + "," + optional_value(f.ptrace_scope)},
  };
}

std::string cache_dir() {
  const char* x = ::getenv("XDG_RUNTIME_DIR");
  struct stat st {};
  if (x && *x == '/' && ::stat(x, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid())
    return std::string(x) + "/ringfence";
  return "/tmp/ringfence-" + std::to_string(::getuid());
}

std::string cache_text(const CacheKey& key, const Report& report) {
  std::string out = "{\"format\": " + std::to_string(kFormat) + ",\n\"key\": {";
  for (size_t i = 0; i < key.size(); ++i)
    out +=
        std::string(i ? ", " : "") + base::json_quote(key[i].first) + ": " + base::json_quote(key[i].second);
  Report stored = report;
  stored.cache.clear();
  stored.cache_path.clear();
  return out + "},\n\"report\": " + to_json(stored) + "}\n";
}

CacheRead read_cache(const std::string& dir, const CacheKey& key) {
  auto dfd = base::open_private_dir(dir);
  if (!dfd) return {std::nullopt, "ignored (" + dfd.error().describe() + ")"};
  base::PrivateRead got = base::read_private_file(dfd->get(), kFile, kMaxSize);
  if (!got.content) return {std::nullopt, got.status};
  const std::string* text = &*got.content;
  auto doc = json::parse(*text);
  if (!doc) return {std::nullopt, "ignored (" + doc.error().message() + ")"};
  const json::Value* stored_key = doc->get("key");
  const json::Value* body = doc->get("report");
  if (!stored_key || !body) return {std::nullopt, "ignored (no key or report)"};
  for (const auto& [name, value] : key)
    if (stored_key->str(name) != value) return {std::nullopt, "stale (" + name + " differs)"};
  auto report = report_from(*body);
  if (!report) return {std::nullopt, "ignored (" + report.error().message() + ")"};
  return {std::move(*report), "used"};
}

base::Status write_cache(const std::string& dir, const CacheKey& key, const Report& report) {
  RF_TRY_ASSIGN(dfd, base::open_private_dir(dir));
  return base::write_private_file(dfd.get(), dir, kFile, cache_text(key, report));
}

}  // namespace rf::probe
