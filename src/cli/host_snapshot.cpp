// SPDX-License-Identifier: LGPL-2.1-or-later
// gather_host_snapshot: the one place `ringfence run` reads its process for planning.
#include "ringfence/cli/host_snapshot.hpp"

#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include <climits>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/cli/native_run.hpp"

extern char** environ;

namespace rf::cli {

std::optional<std::string> HostSnapshot::env(std::string_view name) const {
  for (const auto& kv : environment)
    if (kv.size() > name.size() && kv[name.size()] == '=' && kv.starts_with(name))
      return kv.substr(name.size() + 1);
  return std::nullopt;
}

std::string HostSnapshot::home() const {
  if (auto h = env("HOME"); h && h->starts_with('/')) return base::normalize(*h);
  if (passwd_home.starts_with('/')) return passwd_home;
  return "/home/sandbox";
}

std::string HostSnapshot::runtime_dir() const {
  if (auto x = env("XDG_RUNTIME_DIR"); x && x->starts_with('/')) return base::normalize(*x);
  return {};
}

void HostSnapshot::forget_environment() {
  for (auto& kv : environment) ::explicit_bzero(kv.data(), kv.size());
  environment.clear();
  environment.shrink_to_fit();
}

HostSnapshot gather_host_snapshot() {
  HostSnapshot s;
  for (char** e = environ; e && *e; ++e) s.environment.emplace_back(*e);
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd)) s.cwd = cwd;
  s.uid = ::getuid();
  s.gid = ::getgid();
  s.euid = ::geteuid();
  if (passwd* pw = ::getpwuid(s.uid); pw && pw->pw_dir) s.passwd_home = pw->pw_dir;
  if (auto conf = base::read_file("/etc/resolv.conf")) s.nameservers = nameservers_in(*conf);
  return s;
}

}  // namespace rf::cli
