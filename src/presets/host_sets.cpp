// SPDX-License-Identifier: LGPL-2.1-or-later
// The named host sets of the egress allowlist, as data. Each set is the smallest list with which
// its tool installs from its public default source; wider names (a cloud's whole storage service,
// a CDN's every customer) stay out, because every name allowed is a place data can be sent to.
#include "ringfence/presets/host_sets.hpp"
#include "ringfence/base/strings.hpp"

#include <algorithm>

namespace rf::presets {
namespace {

std::vector<HostSet> make_sets() {
  return {
      // The registry serves the package documents and the tarballs; yarn classic's default
      // registry is its own name for the same content.
      {"npm", "the npm registry (npm, pnpm, yarn)", {"registry.npmjs.org", "registry.yarnpkg.com"}},
      // The index (simple API, JSON API) and the files it links to.
      {"pypi", "the Python Package Index (pip, uv, poetry)", {"pypi.org", "files.pythonhosted.org"}},
      // The site and git over HTTPS or SSH, the REST API, archive downloads, and the content
      // hosts (raw files, release assets, objects of git LFS): every name under githubusercontent.com.
      {"github",
       "GitHub (git, the API, archives, release assets, raw files)",
       {"github.com", "api.github.com", "codeload.github.com", "*.githubusercontent.com"}},
      // The sparse index, the API the index points to, and the crate files.
      {"crates", "crates.io (cargo)", {"crates.io", "index.crates.io", "static.crates.io"}},
      // The module proxy and the checksum database (the default GOPROXY and GOSUMDB).
      {"go", "the Go module proxy and checksum database", {"proxy.golang.org", "sum.golang.org"}},
      // The archive's CDN name and the security archive (apt's sources on Debian 12).
      {"debian", "the Debian archive (apt)", {"deb.debian.org", "security.debian.org"}},
  };
}

}  // namespace

const std::vector<HostSet>& all_host_sets() {
  static const std::vector<HostSet> kSets = make_sets();
  return kSets;
}

base::Result<HostSet> host_set_by_name(std::string_view name) {
  std::string valid, best;
  std::size_t best_d = 3;
  for (const auto& s : all_host_sets()) {
    if (s.name == name) return s;
    valid += (valid.empty() ? "" : ", ") + s.name;
    if (const std::size_t d = base::edit_distance(name, s.name); d < best_d) {
      best_d = d;
      best = s.name;
    }
  }
  return base::Error(0, "unknown host set \"" + std::string(name) + "\"" +
                            (best.empty() ? std::string() : " (did you mean " + best + "?)") +
                            "; valid: " + valid);
}

}  // namespace rf::presets
