// SPDX-License-Identifier: LGPL-2.1-or-later
// Parent-side diagnostics: "<prog>: message" lines on stderr, with bwrap's optional "<N>"
// severity prefix. Never used after clone (the child reports over its error pipe instead).
#pragma once

#include <string_view>

namespace rf::base::log {

enum class Level { Error = 3, Warning = 4, Info = 6, Debug = 7 };

// Program name shown before every message ("bwrap" in bwrap mode, "ringfence" otherwise).
void set_program(std::string_view name);
// Prefix each line with "<N>" (bwrap's --level-prefix).
void set_level_prefix(bool on);
void set_verbose(bool on);
void message(Level level, std::string_view text);
inline void error(std::string_view t) { message(Level::Error, t); }
inline void warning(std::string_view t) { message(Level::Warning, t); }
inline void info(std::string_view t) { message(Level::Info, t); }
inline void debug(std::string_view t) { message(Level::Debug, t); }

}  // namespace rf::base::log
