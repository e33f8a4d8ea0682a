// SPDX-License-Identifier: LGPL-2.1-or-later
// Loopback in the new network namespace: one SIOCSIFFLAGS ioctl (the kernel assigns
// 127.0.0.1/8 and ::1 to a loopback device when it comes up).
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "ringfence/spec/spec.hpp"

#include "ringfence/base/unique_fd.hpp"
#include "steps.hpp"

namespace rf::engine {

base::Status loopback_up_in_child() {
  base::UniqueFd s(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) return base::errno_error("loopback: Failed to create socket");
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(s.get(), SIOCGIFFLAGS, &ifr) != 0)
    return base::errno_error("loopback: Failed to read flags of lo");
  if ((ifr.ifr_flags & IFF_UP) != 0) return {};
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
  if (::ioctl(s.get(), SIOCSIFFLAGS, &ifr) != 0) return base::errno_error("loopback: Failed to bring up lo");
  return {};
}

base::Status resolver_sockets_in_child(int& udp, int& tcp) {
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_port = htons(53);
  if (::inet_pton(AF_INET, spec::kSandboxResolver, &at.sin_addr) != 1)
    return base::Error(EINVAL, "egress allowlist: the resolver's address");
  const std::string where = std::string(spec::kSandboxResolver) + ":53";
  for (int type : {SOCK_DGRAM, SOCK_STREAM}) {
    base::UniqueFd s(::socket(AF_INET, type | SOCK_CLOEXEC, 0));
    if (!s.valid()) return base::errno_error("egress allowlist: the sandbox's resolver socket");
    const int one = 1;
    (void)::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(s.get(), reinterpret_cast<sockaddr*>(&at), sizeof at) != 0)
      return base::errno_error("egress allowlist: binding the sandbox's resolver on " + where);
    if (type == SOCK_STREAM && ::listen(s.get(), 64) != 0)
      return base::errno_error("egress allowlist: listening on " + where);
    (type == SOCK_DGRAM ? udp : tcp) = s.release();
  }
  return {};
}

}  // namespace rf::engine
