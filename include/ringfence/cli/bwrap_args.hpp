// SPDX-License-Identifier: LGPL-2.1-or-later
// bubblewrap's command line -> Spec: hand-written and table-driven, order-preserving, with
// bwrap's exact grammar and message texts (see docs/compat-bwrap.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::cli {

struct BwrapParse {
  enum class Action {
    Run,      // spec is complete: launch it
    Help,     // print usage to stdout, exit 0
    Version,  // print version line to stdout, exit 0
    Usage,    // no command: print usage to stderr, exit 1
  };
  Action action = Action::Run;
  spec::Spec spec;
  // Warnings in the order bwrap prints them (e.g. "Only the last --chdir option will take
  // effect"), without the "bwrap: " prefix. Printed by the caller even when `error` is set.
  std::vector<std::string> warnings;
  // A fatal parse error with bwrap's text, without the "bwrap: " prefix (exit 1).
  std::optional<base::Error> error;
  bool level_prefix = false;  // reserved for --level-prefix
};

// args: argv without argv[0]. Reads --args and seccomp fds (and closes them) as bwrap does.
BwrapParse parse_bwrap_args(const std::vector<std::string>& args);

// bwrap's usage text, starting "usage: <argv0> [OPTIONS...] [--] COMMAND [ARGS...]".
std::string bwrap_usage(std::string_view argv0);

// The line printed by --version in bwrap mode.
std::string bwrap_version_line();

}  // namespace rf::cli
