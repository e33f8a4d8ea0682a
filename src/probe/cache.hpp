// SPDX-License-Identifier: LGPL-2.1-or-later
// The per-boot cache of the report: $XDG_RUNTIME_DIR/ringfence/probe.json or
// /tmp/ringfence-UID/probe.json, keyed by everything that can change the answer.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "observations.hpp"

namespace rf::probe {

// Ordered (name, value) pairs: boot id, kernel, binary identity, uid, namespaces, seccomp and
// LSM state, and the sysctls the causes depend on.
using CacheKey = std::vector<std::pair<std::string, std::string>>;

CacheKey cache_key(const Facts& facts);
std::string cache_dir();

struct CacheRead {
  std::optional<Report> report;  // set when the cache is valid for this key
  std::string status;            // "used", "missing", "stale (...)", "ignored (...)"
};

CacheRead read_cache(const std::string& dir, const CacheKey& key);
// Atomic (a new file renamed over the old one); the error says why not.
base::Status write_cache(const std::string& dir, const CacheKey& key, const Report& report);
// The file's text for a key and a report (exposed for tests).
std::string cache_text(const CacheKey& key, const Report& report);

}  // namespace rf::probe
