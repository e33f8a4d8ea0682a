// SPDX-License-Identifier: LGPL-2.1-or-later
// An AF_UNIX path a supervised call names, pinned in the target's view (see unix_pin.hpp).
#include "unix_pin.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/net/decision.hpp"
#include "supervisor.hpp"

namespace rf::engine {
namespace {

// Anything that keeps the supervisor from checking a call fails it: closed, never open.
constexpr int kFailClosed = ECONNREFUSED;

// Ids of the target, as /proc/<tid>/status shows them to the launcher.
struct Creds {
  uid_t fsuid = 0;
  gid_t fsgid = 0;
  std::vector<gid_t> groups;
  bool dac_override = false;
};

// The credentials the thread acts with.
Creds creds_of(const NotifTarget& t) {
  Creds c;
  auto status = base::read_file(t.proc("status"));
  if (!status) return c;
  auto field = [&](const char* name) -> const char* {
    auto at = status->find(name);
    return at == std::string::npos ? nullptr : status->c_str() + at + std::strlen(name);
  };
  if (const char* p = field("\nUid:")) {
    unsigned long v[4] = {};
    std::sscanf(p, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]);
    c.fsuid = static_cast<uid_t>(v[3]);
  }
  if (const char* p = field("\nGid:")) {
    unsigned long v[4] = {};
    std::sscanf(p, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]);
    c.fsgid = static_cast<gid_t>(v[3]);
  }
  if (const char* p = field("\nGroups:")) {
    char* end = nullptr;
    for (unsigned long g = std::strtoul(p, &end, 10); end != p && *p != '\n'; g = std::strtoul(p, &end, 10)) {
      c.groups.push_back(static_cast<gid_t>(g));
      p = end;
    }
  }
  if (const char* p = field("\nCapEff:")) c.dac_override = (std::strtoull(p, nullptr, 16) & 2u) != 0;
  return c;
}
bool may_write(const Creds& c, const struct stat& st) {
  if (c.dac_override) return true;
  if (c.fsuid == st.st_uid) return st.st_mode & S_IWUSR;
  bool in_group = c.fsgid == st.st_gid;
  for (gid_t g : c.groups) in_group = in_group || g == st.st_gid;
  return st.st_mode & (in_group ? S_IWGRP : S_IWOTH);
}

}  // namespace

// (c) An AF_UNIX path, opened in the target's view: absolute paths inside its root (symlinks
// included, RESOLVE_IN_ROOT), relative ones beneath its cwd (a path climbing above the cwd is
// refused with EACCES). The kernel's write-permission check on the socket inode would run with
// the launcher's credentials, so the target's are checked here. 0 or an errno.
int pin_unix_path(const NotifTarget& t, const net::Destination& dest, base::UniqueFd& pinned_fd,
                  sockaddr_un& pinned_name, const char* syscall_name) {
  const std::string& path = dest.unix_name;
  const bool absolute = !path.empty() && path[0] == '/';
  base::UniqueFd base(::open(t.proc(absolute ? "root" : "cwd").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!base.valid() || !t.valid()) return kFailClosed;
  const auto how = rf::base::OpenHow()
                       .flags(O_PATH | O_CLOEXEC)
                       .resolve(RESOLVE_NO_MAGICLINKS | (absolute ? RESOLVE_IN_ROOT : RESOLVE_BENEATH));
  const int pinned = rf::base::raw::openat2(base.get(), path.c_str(), how);
  pinned_fd.reset(pinned);
  if (pinned < 0) return pinned == -EXDEV ? EACCES : -pinned;
  struct stat st {};
  if (::fstat(pinned_fd.get(), &st) != 0) return kFailClosed;
  if (!S_ISSOCK(st.st_mode)) return ECONNREFUSED;
  if (!may_write(creds_of(t), st)) return EACCES;
  if (!t.sup.unix_path_allowed("/")) {
    // The socket's own place, as the kernel resolved it (symlinks followed), not the name given.
    char where[PATH_MAX];
    std::string link = "/proc/self/fd/" + std::to_string(pinned_fd.get());
    ssize_t n = ::readlink(link.c_str(), where, sizeof where - 1);
    if (n <= 0) return kFailClosed;
    where[n] = '\0';
    if (!t.sup.unix_path_allowed(where)) {
      net::Decision d;
      d.error = EACCES;
      d.rule = "unix socket outside the sandbox's directories (no mount namespace at this level)";
      t.sup.log_violation(net::format_violation_json(std::chrono::system_clock::now(),
                                                     static_cast<int>(t.n.pid), syscall_name, dest, d));
      return EACCES;
    }
  }
  pinned_name.sun_family = AF_UNIX;
  std::snprintf(pinned_name.sun_path, sizeof pinned_name.sun_path, "/proc/self/fd/%d", pinned_fd.get());
  return 0;
}

}  // namespace rf::engine
