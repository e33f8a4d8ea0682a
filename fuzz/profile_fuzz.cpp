// SPDX-License-Identifier: LGPL-2.1-or-later
// libFuzzer target for the profile file (TOML). Input: the file's text. Whatever parses is
// checked against the guarantees the run front end relies on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ringfence/cli/profile_file.hpp"
#include "ringfence/presets/presets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = rf::cli::parse_profile(text, "fuzz.toml");
  if (!p) {
    // Every error names where it is.
    if (p.error().message().rfind("fuzz.toml", 0) != 0) std::abort();
    return 0;
  }
  // Accepted masks are usable patterns; binds are absolute or under ~/; HOME is never set.
  for (const auto& m : p->mask)
    if (!rf::presets::check_mask_pattern(m)) std::abort();
  for (const auto* list : {&p->bind, &p->ro_bind})
    for (const auto& b : *list)
      if (b.source.empty() || b.dest.empty() || (b.source[0] != '/' && b.source.rfind("~/", 0) != 0))
        std::abort();
  for (const auto& [k, v] : p->env_set)
    if (k == "HOME" || !rf::presets::valid_env_name(k)) std::abort();
  return 0;
}
