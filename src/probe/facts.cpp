// SPDX-License-Identifier: LGPL-2.1-or-later
// The host facts the probe reads (sysctls, this process's seccomp and LSM state, container and
// WSL signs, mounts over /proc). They explain a failed trial; they never replace one.
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstdlib>

#include "observations.hpp"
#include "ringfence/base/mountinfo.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::probe {
namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == '\0')) s.pop_back();
  return s;
}

std::string read_trimmed(const std::string& path) {
  auto t = base::read_file(path);
  return t ? trimmed(*t) : std::string();
}

std::optional<long> read_number(const std::string& path) {
  auto t = base::read_file(path);
  if (!t) return std::nullopt;
  char* end = nullptr;
  long v = std::strtol(t->c_str(), &end, 10);
  if (end == t->c_str()) return std::nullopt;
  return v;
}

bool exists(const char* path) {
  struct stat st {};
  return ::lstat(path, &st) == 0;
}

void read_status(Facts& f) {
  auto t = base::read_file("/proc/self/status");
  if (!t) return;
  for (const auto& line : base::split(*t, '\n')) {
    auto value = [&line](std::string_view key) -> std::optional<int> {
      if (line.rfind(key, 0) != 0) return std::nullopt;
      return std::atoi(line.c_str() + key.size());
    };
    if (auto v = value("Seccomp:")) f.seccomp_mode = *v;
    if (auto v = value("Seccomp_filters:")) f.seccomp_filters = *v;
    if (auto v = value("NoNewPrivs:")) f.no_new_privs = *v != 0;
  }
}

// Mounts on paths strictly below /proc: what a container runtime masks (binfmt_misc, which sits
// on an empty directory and does not hide anything, is left out).
std::vector<std::string> proc_overmounts() {
  std::vector<std::string> out;
  auto t = base::read_file("/proc/self/mountinfo");
  if (!t) return out;
  auto mounts = base::parse_mountinfo(*t);
  if (!mounts) return out;
  for (const auto& m : *mounts)
    if (m.mount_point.rfind("/proc/", 0) == 0 && m.fs_type != "binfmt_misc" && m.fs_type != "autofs")
      out.push_back(m.mount_point);
  return out;
}

}  // namespace

Facts gather_facts() {
  Facts f;
  f.uid = ::getuid();
  f.kernel_release = read_trimmed("/proc/sys/kernel/osrelease");
  f.proc_version = read_trimmed("/proc/version");
  f.boot_id = read_trimmed("/proc/sys/kernel/random/boot_id");
  char exe[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) f.exe.assign(exe, static_cast<size_t>(n));
  f.max_user_namespaces = read_number("/proc/sys/user/max_user_namespaces");
  f.unprivileged_userns_clone = read_number("/proc/sys/kernel/unprivileged_userns_clone");
  f.apparmor_restrict_userns = read_number("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  f.io_uring_disabled = read_number("/proc/sys/kernel/io_uring_disabled");
  f.ptrace_scope = read_number("/proc/sys/kernel/yama/ptrace_scope");
  f.userns_file = exists("/proc/self/ns/user");
  f.apparmor_enabled = read_trimmed("/sys/module/apparmor/parameters/enabled") == "Y";
  f.lsm_label = read_trimmed("/proc/self/attr/apparmor/current");
  if (f.lsm_label.empty()) f.lsm_label = read_trimmed("/proc/self/attr/current");
  read_status(f);
  f.dockerenv = exists("/.dockerenv");
  f.containerenv = exists("/run/.containerenv");
  f.proc_overmounts = proc_overmounts();
  return f;
}

std::string wsl_kind(const Facts& f) {
  auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  // WSL2 runs Microsoft's Linux kernel ("5.15.x-microsoft-standard-WSL2", "4.19.x-microsoft-
  // standard"); WSL1 has no Linux kernel at all and reports "4.4.0-NNNNN-Microsoft".
  for (const std::string& s : {lower(f.kernel_release), lower(f.proc_version)}) {
    if (s.find("wsl2") != std::string::npos || s.find("microsoft-standard") != std::string::npos)
      return "WSL2";
  }
  for (const std::string& s : {lower(f.kernel_release), lower(f.proc_version)})
    if (s.find("microsoft") != std::string::npos) return "WSL1";
  return {};
}

}  // namespace rf::probe
