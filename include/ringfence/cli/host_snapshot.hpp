// SPDX-License-Identifier: LGPL-2.1-or-later
// What `ringfence run`'s planning reads of its own process and of the host, gathered once by the
// app before planning: the environment, the working directory, the caller's ids and home, the
// resolvers. plan_run reads these from here and never from the process itself, so that a plan
// is a function of its inputs (and a test can give it any host it likes).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rf::cli {

struct HostSnapshot {
  std::vector<std::string> environment;  // "NAME=value", in the process's order
  std::string cwd;                       // empty when getcwd(3) failed
  uid_t uid = 0;
  gid_t gid = 0;
  uid_t euid = 0;
  std::string passwd_home;               // the caller's home in the user database, if any
  std::vector<std::string> nameservers;  // of /etc/resolv.conf, in order (nameservers_in)

  // The value of NAME, the first one as getenv(3) finds it; nullopt when unset.
  std::optional<std::string> env(std::string_view name) const;
  // The caller's home: an absolute $HOME (normalized), else the user database's, else
  // /home/sandbox. It is HOME inside the sandbox, and where the agent's files are found.
  std::string home() const;
  // An absolute $XDG_RUNTIME_DIR (normalized), else empty.
  std::string runtime_dir() const;
  // The environment's bytes overwritten, then dropped: once planned, the launcher keeps no
  // copy of the credentials the command does not get (engine::seal_launcher clears the rest).
  void forget_environment();
};

// The snapshot of this process and host: environ, getcwd, the ids, getpwuid, /etc/resolv.conf.
HostSnapshot gather_host_snapshot();

}  // namespace rf::cli
