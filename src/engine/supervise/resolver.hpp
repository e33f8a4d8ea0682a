// SPDX-License-Identifier: LGPL-2.1-or-later
// The sandbox's resolver under the egress allowlist: DNS queries from the sandbox are answered
// by the launcher. A query for a name the host rules allow is forwarded to the host's
// nameservers (UDP, and TCP when the answer is truncated) under an id of its own, and the
// addresses of the answer (its CNAME chain followed from the name asked) are pinned to that name
// for the connect policy. Every other name is answered NXDOMAIN here, and ANY queries REFUSED:
// such a query never leaves the machine, so DNS carries nothing out. Each refusal is one line of
// the violation log (the name, the query type).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/net/address.hpp"
#include "ringfence/net/hosts.hpp"
#include "ringfence/net/pins.hpp"

namespace rf::engine {

class Resolver {
public:
  struct Config {
    std::vector<net::HostRule> hosts;
    std::vector<net::Address> upstreams;  // the host's nameservers (port 0 means 53), in order
    std::shared_ptr<net::PinTable> pins;
    // A refused query: its name, its type ("A", "TXT", "TYPE99"), why, and the client's port
    // (0 when not known).
    std::function<void(const std::string& name, const std::string& qtype, const std::string& why,
                       std::uint16_t client_port)>
        log;
    int timeout_ms = 2000;  // per upstream, per try
  };

  // Answers one query (its bytes as the client sent them); an empty result means no answer is
  // sent (the message was not a query). Blocks while an upstream is asked.
  static std::string answer(const Config& config, std::string_view query, std::uint16_t client_port = 0);

  // Serves the sandbox on `udp` (a bound datagram socket) and `tcp` (a listening stream socket;
  // may be invalid) from a thread of its own until stop() or destruction.
  static base::Result<std::unique_ptr<Resolver>> start(Config config, base::UniqueFd udp, base::UniqueFd tcp);
  ~Resolver();
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;
  void stop();

private:
  Resolver() = default;
  void serve();
  void serve_stream(int fd, std::uint16_t client_port);

  Config config_;
  base::UniqueFd udp_, tcp_, wake_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace rf::engine
