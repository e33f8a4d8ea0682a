// SPDX-License-Identifier: LGPL-2.1-or-later
// Helpers for the bwrap parser tests: parse with the real or a fake fd reader, and make fds
// that hold given bytes.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bwrap_parser.hpp"
#include "ringfence/cli/bwrap_args.hpp"

namespace rf::test {

using Action = rf::cli::BwrapParse::Action;
using Words = std::vector<std::string>;

// Parses with the real reader (reads and closes real fds).
rf::cli::BwrapParse parse(const Words& args);

// The parse error as the user sees it after "bwrap: ", or "" when there is none.
std::string error_of(const rf::cli::BwrapParse& p);

// A reader that serves canned data per fd number and records which fds were read; any other fd
// fails with EBADF, like a closed descriptor.
struct FakeFds {
  std::map<int, std::string> data;
  std::vector<int> reads;
  rf::cli::BwrapParse parse(const Words& args);
};

// NUL-terminated words, as an --args payload.
std::string nul_words(const Words& words);
// A memfd holding data, positioned at its start (any size).
int memfd_with(std::string_view data);
// The read end of a pipe holding data (less than a pipe buffer), write end closed.
int pipe_with(std::string_view data);
bool fd_is_open(int fd);
// An fd number that is certainly closed right now.
int closed_fd();

}  // namespace rf::test
