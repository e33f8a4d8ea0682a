// SPDX-License-Identifier: LGPL-2.1-or-later
// The bwrap argv parser's loop: option dispatch through the table, --args recursion, the
// 9000-word cap, the --perms/--size modifier rules, and the usage and version texts.
#include <unistd.h>

#include "bwrap_parser.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::cli {
namespace detail {
namespace {

// bwrap's hardening limit on argv words, counting those read through --args.
constexpr std::size_t kMaxArgs = 9000;

// A parse error with bwrap's text (no errno: the message is complete as it is).
base::Unexpected<base::Error> fail(std::string message) {
  return base::unexpected(base::Error(0, std::move(message)));
}

base::Status check_word_cap(const ParseState& st) {
  if (st.total_words > kMaxArgs)
    return fail("Exceeded maximum number of arguments " + std::to_string(kMaxArgs));
  return {};
}

// A modifier (--perms, --size) must be taken by the very next option; bwrap checks this after
// every non-modifier option, --args included, but not when a COMMAND or "--" ends the options.
// Queued --overlay-src layers are checked after every option but --overlay-src itself (so after
// --perms and --size too), and once more when the options end (see run_parser).
base::Status check_modifiers_consumed(const ParseState& st, const OptionDef& opt) {
  if (!opt.modifier && st.next_perms)
    return fail("--perms must be followed by an option that creates a file");
  if (!opt.modifier && st.next_size) return fail("--size must be followed by --tmpfs");
  if (!st.next_layers.empty() && opt.name != "--overlay-src") return fail(std::string(kOverlaySrcUnconsumed));
  return {};
}

// Parses options from words; returns the index of the first word that is not an option (the
// COMMAND on the real argv), or words.size(). Stops early when --help/--version set st.stop.
base::Result<std::size_t> parse_words(ParseState& st, Values words) {
  std::size_t i = 0;
  while (i < words.size()) {
    const std::string& word = words[i];
    const OptionDef* opt = find_bwrap_option(word);
    if (opt == nullptr) {
      if (word == "--") return i + 1;
      if (!word.empty() && word[0] == '-') return fail("Unknown option " + word);
      return i;
    }
    // bwrap refuses a nested --args before looking at its value.
    if (st.in_args_file && opt->handler == handle_args) return fail("--args not supported in arguments file");
    const std::size_t arity = opt->arity();
    if (words.size() - i - 1 < arity) return fail(opt->missing_message());
    RF_TRY(opt->handler(st, *opt, words.subspan(i + 1, arity)));
    if (st.stop) return i;
    RF_TRY(check_modifiers_consumed(st, *opt));
    i += 1 + arity;
  }
  return i;
}

}  // namespace

base::Result<std::string> read_and_close_fd(int fd) {
  auto data = base::read_all(fd);
  if (data) ::close(fd);
  return data;
}

std::vector<std::string> split_nul_words(std::string_view data) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start < data.size()) {
    std::size_t end = data.find('\0', start);
    if (end == std::string_view::npos) end = data.size();
    words.emplace_back(data.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

base::Status handle_args(ParseState& st, const OptionDef&, Values values) {
  int fd = -1;
  if (!base::parse_fd(values[0], fd)) return fail("Invalid fd: " + values[0]);
  auto data = st.read_fd(fd);
  if (!data) return base::unexpected(data.error().reworded("Can't read --args data"));
  // The words live here while they are parsed: handlers copy what they keep into the Spec.
  const std::vector<std::string> words = split_nul_words(*data);
  st.total_words += words.size();
  RF_TRY(check_word_cap(st));
  // A non-option word ends the payload and the rest of it is ignored: the COMMAND must be on
  // the real argv (bwrap does the same).
  st.in_args_file = true;
  auto parsed = parse_words(st, words);
  st.in_args_file = false;
  if (!parsed) return base::unexpected(std::move(parsed).error());
  return {};
}

base::Status add_seccomp_program(ParseState& st, int fd) {
  auto data = st.read_fd(fd);
  if (!data) return base::unexpected(data.error().reworded("Can't read seccomp data"));
  // Each classic-BPF instruction (struct sock_filter) is 8 bytes.
  if (data->size() % 8 != 0) return fail("Invalid seccomp data, must be multiple of 8");
  st.out.spec.seccomp.push_back({std::move(*data)});
  return {};
}

namespace {

// bwrap checks these right after parsing: before it looks for a COMMAND (so they win over the
// usage text) and before it implies a user namespace for unprivileged callers, so only an
// explicit --unshare-user satisfies them (--unshare-user-try and --unshare-all do not). The
// checks that need the effective namespaces come later, in spec::validate.
base::Status check_userns_options(const spec::Spec& s) {
  if (s.userns_fd && s.ns.user) return fail("--userns not compatible --unshare-user");
  if (s.userns_block_fd && !s.ns.user) return fail("--userns-block-fd requires --unshare-user");
  if (s.userns_block_fd && !s.info_fd) return fail("--userns-block-fd requires --info-fd");
  if (s.disable_userns && !s.ns.user) return fail("--disable-userns requires --unshare-user");
  // bwrap's text has the double space.
  if (s.disable_userns && s.userns_block_fd)
    return fail("--disable-userns is not compatible with  --userns-block-fd");
  if (s.userns_fd && s.ns.user_try) return fail("--userns not compatible --unshare-user-try");
  return {};
}

base::Status run_parser(ParseState& st, const std::vector<std::string>& args) {
  st.total_words = args.size();
  RF_TRY(check_word_cap(st));
  RF_TRY_ASSIGN(command_at, parse_words(st, args));
  if (st.stop) {
    st.out.action = *st.stop;
    return {};
  }
  if (!st.next_layers.empty()) return fail(std::string(kOverlaySrcUnconsumed));
  RF_TRY(check_userns_options(st.out.spec));
  if (command_at >= args.size()) {
    st.out.action = BwrapParse::Action::Usage;
    return {};
  }
  st.out.spec.argv.assign(args.begin() + static_cast<std::ptrdiff_t>(command_at), args.end());
  // Only the last --seccomp fd counts, and it is read by the engine, after validation: bwrap
  // reads it late, so a bad fd never hides an error in the rest of the command line.
  if (st.seccomp_fd) st.out.spec.seccomp_fd = spec::Fd{*st.seccomp_fd};
  return {};
}

}  // namespace

BwrapParse parse_bwrap_args_with(const std::vector<std::string>& args, const FdReader& read_fd) {
  BwrapParse out;
  out.spec.bwrap_messages = true;
  out.spec.inherit_fds = true;
  ParseState st{out, read_fd};
  auto status = run_parser(st, args);
  if (!status) out.error = std::move(status).error();
  return out;
}

}  // namespace detail

BwrapParse parse_bwrap_args(const std::vector<std::string>& args) {
  static const detail::FdReader kReader = detail::read_and_close_fd;
  return detail::parse_bwrap_args_with(args, kReader);
}

std::string bwrap_usage(std::string_view argv0) {
  std::string out = "usage: " + std::string(argv0) + " [OPTIONS...] [--] COMMAND [ARGS...]\n\n";
  for (const auto& opt : detail::bwrap_options()) {
    std::string left(opt.name);
    if (!opt.metavars.empty()) left += " " + std::string(opt.metavars);
    // Descriptions start in one column, as in bwrap's text; a longer left side gets one space.
    if (left.size() < 28) left.resize(28, ' ');
    out += "    " + left + " " + std::string(opt.help) + "\n";
  }
  return out;
}

std::string bwrap_version_line() { return "bubblewrap 0.11.1\n"; }

}  // namespace rf::cli
