// SPDX-License-Identifier: LGPL-2.1-or-later
// The addresses the sandbox's resolver answered for allowed names, each pinned to the name it
// was asked for until its TTL (raised to a floor, so clients that cache answers a while keep
// working) runs out. A connect under the egress allowlist goes only to a pinned address; the
// names pinned to it say which host rules (ports) apply and what the violation log names.
// Thread-safe: the resolver adds from its thread while supervisor threads look up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/net/address.hpp"
#include "ringfence/net/dns.hpp"

namespace rf::net {

class PinTable {
public:
  struct Limits {
    std::uint32_t ttl_floor_s = 300;  // an answer is pinned at least this long
    std::uint32_t ttl_cap_s = 86400;  // and at most this long
    std::size_t max_entries = 16384;  // past it the entries that expire first go
  };
  PinTable() = default;
  explicit PinTable(Limits limits) : limits_(limits) {}

  // The answer's addresses for `name` (as asked), from now_ms on.
  void add(std::string_view name, const std::vector<dns::Pin>& pins, std::int64_t now_ms);
  // The names `address` (its IP; port and scope ignored) is pinned to at now_ms, each once,
  // in the order they were first pinned.
  [[nodiscard]] std::vector<std::string> names_for(const Address& address, std::int64_t now_ms) const;
  [[nodiscard]] std::size_t size() const;

private:
  struct Entry {
    std::string name;
    Address address;
    std::int64_t expires_ms = 0;
    std::uint64_t order = 0;
  };
  void evict_locked(std::int64_t now_ms);

  Limits limits_;
  mutable std::mutex mu_;
  std::vector<Entry> entries_;
  std::uint64_t next_order_ = 0;
};

}  // namespace rf::net
