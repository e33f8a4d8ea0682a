// SPDX-License-Identifier: LGPL-2.1-or-later
// placeholder, replaced by the real parser
#include "ringfence/cli/bwrap_args.hpp"
namespace rf::cli {
BwrapParse parse_bwrap_args(const std::vector<std::string>&) { BwrapParse p; p.action = BwrapParse::Action::Usage; return p; }
std::string bwrap_usage(std::string_view argv0) { return "usage: " + std::string(argv0) + " [OPTIONS...] [--] COMMAND [ARGS...]\n"; }
std::string bwrap_version_line() { return "bubblewrap 0.11.1\n"; }
}
