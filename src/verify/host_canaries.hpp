// SPDX-License-Identifier: LGPL-2.1-or-later
// The canaries outside the filesystem tree, named from the token as rf-attack expects: an
// abstract unix socket @rf-canary-TOKEN that answers the token (served by a child of verify), a
// POSIX message queue /rf-canary-TOKEN, /dev/shm/rf-canary-TOKEN, a key rf-canary-TOKEN in a new
// session keyring of verify's own, a SysV shm segment holding the token, and a pathname socket
// outside the project. Each one that the host refuses is left out, with a note; all are removed.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "ringfence/base/unique_fd.hpp"

namespace rf::verify {

class HostCanaries {
public:
  // `socket_path`: where the pathname socket goes (inside verify's temporary tree).
  HostCanaries(const std::string& token, const std::string& socket_path, std::vector<std::string>& notes);
  HostCanaries(const HostCanaries&) = delete;
  HostCanaries& operator=(const HostCanaries&) = delete;
  ~HostCanaries();

  void remove();

  [[nodiscard]] const std::optional<long>& sysv_key() const { return sysv_key_; }
  [[nodiscard]] const std::string& host_socket() const { return host_socket_; }

private:
  pid_t server_ = -1;
  std::string mq_name_, shm_path_, host_socket_;
  long key_ = -1;
  int sysv_id_ = -1;
  std::optional<long> sysv_key_;
  base::UniqueFd host_socket_fd_;
};

}  // namespace rf::verify
