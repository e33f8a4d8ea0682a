// SPDX-License-Identifier: LGPL-2.1-or-later
// Loopback in the new network namespace: one SIOCSIFFLAGS ioctl (the kernel assigns
// 127.0.0.1/8 and ::1 to a loopback device when it comes up).
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

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

}  // namespace rf::engine
