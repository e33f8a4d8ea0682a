// SPDX-License-Identifier: LGPL-2.1-or-later
// The pin table (see pins.hpp). A flat vector: a run pins tens of names, and a lookup per connect
// over that many entries costs less than any map's allocation.
#include "ringfence/net/pins.hpp"

#include <algorithm>

namespace rf::net {

void PinTable::add(std::string_view name, const std::vector<dns::Pin>& pins, std::int64_t now_ms) {
  std::lock_guard lock(mu_);
  for (const auto& p : pins) {
    const std::uint32_t ttl = std::clamp(p.ttl, limits_.ttl_floor_s, limits_.ttl_cap_s);
    const std::int64_t expires = now_ms + static_cast<std::int64_t>(ttl) * 1000;
    Address ip = p.address;
    ip.port = 0;
    ip.scope_id = 0;
    auto same = std::find_if(entries_.begin(), entries_.end(),
                             [&](const Entry& e) { return e.name == name && e.address == ip; });
    if (same != entries_.end()) {
      same->expires_ms = std::max(same->expires_ms, expires);
      continue;
    }
    entries_.push_back({std::string(name), ip, expires, next_order_++});
  }
  evict_locked(now_ms);
}

void PinTable::evict_locked(std::int64_t now_ms) {
  std::erase_if(entries_, [now_ms](const Entry& e) { return e.expires_ms <= now_ms; });
  if (entries_.size() <= limits_.max_entries) return;
  std::sort(entries_.begin(), entries_.end(),
            [](const Entry& a, const Entry& b) { return a.expires_ms > b.expires_ms; });
  entries_.resize(limits_.max_entries);
}

std::vector<std::string> PinTable::names_for(const Address& address, std::int64_t now_ms) const {
  std::lock_guard lock(mu_);
  std::vector<const Entry*> hits;
  for (const auto& e : entries_)
    if (e.expires_ms > now_ms && e.address.same_ip(address)) hits.push_back(&e);
  std::sort(hits.begin(), hits.end(), [](const Entry* a, const Entry* b) { return a->order < b->order; });
  std::vector<std::string> out;
  for (const Entry* e : hits)
    if (std::find(out.begin(), out.end(), e->name) == out.end()) out.push_back(e->name);
  return out;
}

std::size_t PinTable::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace rf::net
