// SPDX-License-Identifier: LGPL-2.1-or-later
// probe_host: prints the probe layer's report for this host, as `ringfence doctor` does, so
// tests can run it under changed hosts (seccomp jail, nested user namespaces, other users).
//
// usage: probe_host [--json] [--no-cache] [--check-json]
//   --check-json  also read the JSON back (from_json) and fail unless it has the same content
#include <cstdio>
#include <cstring>
#include <string>

#include "ringfence/probe/probe.hpp"

int main(int argc, char** argv) {
  bool json = false, use_cache = true, check = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "--no-cache") == 0) {
      use_cache = false;
    } else if (std::strcmp(argv[i], "--check-json") == 0) {
      check = true;
    } else {
      std::fprintf(stderr, "usage: probe_host [--json] [--no-cache] [--check-json]\n");
      return 2;
    }
  }
  const rf::probe::Report report = rf::probe::host_report(use_cache);
  const std::string text = json ? rf::probe::to_json(report) : rf::probe::format_table(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (check) {
    auto back = rf::probe::from_json(rf::probe::to_json(report));
    if (!back || !back->same_content(report) || back->cache != report.cache) {
      std::fprintf(stderr, "probe_host: the JSON does not read back to the same report\n");
      return 1;
    }
  }
  return 0;
}
