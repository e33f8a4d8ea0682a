// SPDX-License-Identifier: LGPL-2.1-or-later
// The catalog's profiles compiled when ringfence was built (src/policy/bake_main.cpp runs the
// policy compiler over each and embeds the merged program), so that starting a sandbox with a
// shipped profile compiles nothing. `ringfence policy compile NAME` gives the same bytes.
#pragma once

#include <string_view>
#include <vector>

namespace rf::policy {

// The merged program (compile, then merge_programs) of catalog profile `name`; empty when the
// build has none of that name.
std::string_view baked_program(std::string_view name);
// The names baked in, sorted.
std::vector<std::string_view> baked_profiles();
// Names this build's compiler: the version, libseccomp's, and a hash of every baked program.
// Part of the key of a cached compile of a policy file.
std::string_view build_key();

}  // namespace rf::policy
