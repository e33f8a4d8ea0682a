// SPDX-License-Identifier: LGPL-2.1-or-later
// Private to the cli layer (and its tests and fuzzer): the bwrap option table and the state the
// option handlers share while one command line is parsed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/cli/bwrap_args.hpp"

namespace rf::cli::detail {

// Reads an fd named on the command line (--args, --seccomp, --add-seccomp-fd) until EOF and
// closes it. Tests and the fuzzer substitute their own, so no real descriptor is touched.
using FdReader = std::function<base::Result<std::string>(int fd)>;

// The real reader: read until EOF, then close (bwrap closes only after a successful read).
base::Result<std::string> read_and_close_fd(int fd);

struct ParseState {
  BwrapParse& out;
  const FdReader& read_fd;
  std::size_t total_words = 0;               // toward bwrap's 9000-argument cap
  bool in_args_file = false;                 // parsing words that came from --args
  std::optional<mode_t> next_perms{};        // --perms waiting for its consumer
  std::optional<std::uint64_t> next_size{};  // --size waiting for --tmpfs
  std::vector<std::string> next_layers{};    // --overlay-src layers waiting for an overlay op
  std::optional<int> seccomp_fd{};           // last --seccomp: read once parsing succeeded
  bool have_added_seccomp = false;           // any --add-seccomp-fd seen
  std::optional<BwrapParse::Action> stop{};  // --help / --version: stop where they appear
};

// bwrap's text when queued --overlay-src layers are not taken by the very next option (or are
// left over when the options end).
inline constexpr std::string_view kOverlaySrcUnconsumed =
    "--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or "
    "--ro-overlay";

using Values = std::span<const std::string>;
struct OptionDef;
using Handler = base::Status (*)(ParseState& st, const OptionDef& opt, Values values);

struct OptionDef {
  std::string_view name;
  std::string_view metavars;  // "SRC DEST": the value names; their count is the arity
  std::string_view help;      // one-line description for the usage text
  Handler handler;
  bool modifier = false;       // --perms/--size: applies to the next option instead of itself
  std::string_view missing{};  // bwrap's own text when values are missing, if not the usual one

  [[nodiscard]] std::size_t arity() const;
  // "--X takes an argument" / "--X takes two arguments" (or `missing`).
  [[nodiscard]] std::string missing_message() const;
};

// Every bwrap 0.11.1 option, in the order of bwrap's usage text.
std::span<const OptionDef> bwrap_options();
const OptionDef* find_bwrap_option(std::string_view name);

// --args FD: read the payload and parse it in place (defined beside the parser loop).
base::Status handle_args(ParseState& st, const OptionDef& opt, Values values);

// Reads one seccomp program from fd into the spec, with bwrap's checks and texts.
base::Status add_seccomp_program(ParseState& st, int fd);

// The parser with an injectable fd reader.
BwrapParse parse_bwrap_args_with(const std::vector<std::string>& args, const FdReader& read_fd);

// Splits an --args payload on NUL the way bwrap does: a final NUL does not start a new word.
std::vector<std::string> split_nul_words(std::string_view data);

}  // namespace rf::cli::detail
