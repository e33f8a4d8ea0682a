// SPDX-License-Identifier: LGPL-2.1-or-later
// Parent-side diagnostics: "<prog>: message" lines, with bwrap's optional "<N>" severity prefix.
// Never used after clone (the child reports over its error pipe instead).
//
// Every line, from any thread (the launcher's, the supervisor's, the mask watch's), goes to the
// one sink the application installs; the library itself never writes to stderr. Without a
// sink the lines are dropped. The sink is called with a lock held, one line at a time: it must
// not log itself.
#pragma once

#include <functional>
#include <string_view>

namespace rf::base::log {

enum class Level { Error = 3, Warning = 4, Info = 6, Debug = 7 };

// One line: its level, the text as given to message(), and the line as shown ("<N>prog: text",
// the "<N>" only with set_level_prefix; no newline).
struct Line {
  Level level;
  std::string_view text;
  std::string_view shown;
};
using Sink = std::function<void(const Line& line)>;

// Installs the sink (an empty one drops the lines); returns the one it replaces.
Sink set_sink(Sink sink);
// The application's default: the shown line on stderr (through spdlog).
Sink stderr_sink();

// Program name shown before every message ("bwrap" in bwrap mode, "ringfence" otherwise).
void set_program(std::string_view name);
// Prefix each line with "<N>" (bwrap's --level-prefix).
void set_level_prefix(bool on);
void set_verbose(bool on);
// Info lines are dropped (`ringfence run --quiet`); warnings and errors still go out.
void set_quiet(bool on);
// Debug lines are passed on only with set_verbose.
void message(Level level, std::string_view text);
inline void error(std::string_view t) { message(Level::Error, t); }
inline void warning(std::string_view t) { message(Level::Warning, t); }
inline void info(std::string_view t) { message(Level::Info, t); }
inline void debug(std::string_view t) { message(Level::Debug, t); }

}  // namespace rf::base::log
