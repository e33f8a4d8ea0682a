// SPDX-License-Identifier: LGPL-2.1-or-later
// Which files running a command executes: the program found on PATH, its ELF interpreter, and
// for a script its #! interpreter (through /usr/bin/env too). "Shell off" allows exactly these.
#pragma once

#include <string>
#include <vector>

#include "ringfence/base/result.hpp"

namespace rf::cli {

// Real paths, the program first. `path_env` is the PATH the sandbox will have.
base::Result<std::vector<std::string>> executables_for(const std::string& command,
                                                       const std::string& path_env);
// The ELF interpreter (dynamic loader) a program names, or "" (static, a script, unreadable).
std::string elf_interpreter(const std::string& file);

}  // namespace rf::cli
