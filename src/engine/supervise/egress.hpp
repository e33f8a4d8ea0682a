// SPDX-License-Identifier: LGPL-2.1-or-later
// The egress allowlist in the launcher (spec::ConnectPolicy::allow_hosts). The sandbox has a
// network namespace of its own with nothing but lo, so no packet leaves it unless the launcher
// carries it:
//  - the resolver (resolver.hpp) answers on the sandbox's 127.0.0.53:53 from sockets the child
//    bound there and handed over with the connect filter's listener; it pins the addresses of
//    allowed names;
//  - an allowed connect (net/egress.hpp) to an address off the sandbox's lo is made here, on a
//    socket of the launcher's (its network namespace is the host's) with the options of the
//    target's socket, and that socket is installed in the target under its fd number
//    (SECCOMP_IOCTL_NOTIF_ADDFD with SETFD) before the call is answered;
//  - on ports 443 and 80 the target gets instead one end of a loopback connection to the relay,
//    which reads the client's first bytes (the TLS ClientHello, the HTTP request head), checks
//    the name in them against the host rules and the pins, and only then passes them on and
//    splices the two connections. A refused stream is reset; no byte of it reaches the server.
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "resolver.hpp"
#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/net/address.hpp"
#include "ringfence/net/egress.hpp"
#include "ringfence/net/hosts.hpp"
#include "ringfence/net/pins.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

class Egress {
public:
  using Log = std::function<void(const std::string& json_line)>;
  static base::Result<std::unique_ptr<Egress>> create(const spec::ConnectPolicy& cp, Log log);
  ~Egress();
  Egress(const Egress&) = delete;
  Egress& operator=(const Egress&) = delete;

  // The sandbox's resolver sockets, taken from the child at the hand-off. On a shared network
  // (spec::ConnectPolicy::shared_network) create() starts the resolver on sockets of its own
  // on the launcher's loopback instead.
  base::Status start_resolver(base::UniqueFd udp, base::UniqueFd tcp);
  [[nodiscard]] bool shared_network() const { return shared_; }
  // Shared network: the resolver's address as a name for a socket of `domain` (IPv4, or the
  // IPv4-mapped form for an IPv6 socket that is not v6-only). 0 on success, else the errno.
  int resolver_name(int domain, bool v6only, sockaddr_storage& out, socklen_t& len) const;
  // Shared network: `sock` (the supervisor's duplicate) now listens for the sandbox; a
  // loopback connect to its address is then one between the sandbox's processes while the
  // same socket (by inode) listens there.
  void note_listener(int sock);
  [[nodiscard]] bool sandbox_server(const net::Address& dest) const;
  // The destination is the resolver's address (shared network) or the sandbox's 127.0.0.53.
  [[nodiscard]] bool is_resolver(const net::Destination& d) const;
  // The relay's connections and the resolver end. Idempotent.
  void stop();

  [[nodiscard]] net::EgressDecision decide(const net::Policy& policy, const net::Destination& dest,
                                           bool stream, bool datagram_connect) const;

  // A TCP socket of the launcher's network namespace for a target's socket `like` (its
  // family; the options the target set on it copied; non-blocking as requested). The error is
  // an errno for the target.
  int host_socket(int like, bool nonblocking, base::UniqueFd& out) const;
  // The relay for `upstream`, a connected host socket to `dest` (for `pid`, the violation log's): a loopback
  // connection whose target-side end (options copied from `like`, non-blocking as requested) is returned in
  // `out`; the relay checks the client's first bytes, then splices. An errno on failure.
  int relay(base::UniqueFd upstream, const net::Address& dest, int pid, int like, bool nonblocking,
            base::UniqueFd& out);
  // The socket (by inode) is one this module installed in the sandbox: a second connect on it
  // is the kernel's business (EISCONN, EALREADY).
  [[nodiscard]] bool installed(int fd) const;
  void note_installed(int fd);
  // A sandbox socket (`sock`, the supervisor's duplicate) of process `pid` just reached the
  // resolver: its port names the process in the log of a lookup it refuses.
  void note_resolver_client(int sock, int pid);

private:
  struct Conn;
  Egress() = default;
  base::Status start_shared_resolver();
  void inspect_and_splice(Conn& c);
  void relay_http(Conn& c);
  void start_back(Conn& c);
  // Log the refusal and end the stream: reset both ends, or (let_answers_finish, once requests
  // went on) stop the client's direction and let the server's answers finish.
  void refuse_stream(Conn& c, const char* what, std::string rule, const std::string& name,
                     bool let_answers_finish);
  void reap_locked();

  std::vector<net::HostRule> hosts_;
  std::vector<net::Address> upstreams_;
  std::shared_ptr<net::PinTable> pins_;
  Log log_;
  std::unique_ptr<Resolver> resolver_;
  bool shared_ = false;
  std::uint16_t resolver_port_ = 0;  // shared network: the resolver's port on 127.0.0.1
  std::vector<std::pair<net::Address, std::uint64_t>> listeners_;  // shared network (under mu_)

  mutable std::mutex mu_;
  std::vector<std::uint64_t> installed_;                // inode numbers
  std::vector<std::pair<std::uint16_t, int>> clients_;  // the resolver's client ports and their pids
  base::UniqueFd listen4_, listen6_;                    // the relay's loopback listeners (made on first use)
  std::list<std::unique_ptr<Conn>> conns_;
  std::atomic<bool> stopping_{false};
};

}  // namespace rf::engine
