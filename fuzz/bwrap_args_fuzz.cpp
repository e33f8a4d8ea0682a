// SPDX-License-Identifier: LGPL-2.1-or-later
// libFuzzer target for the bwrap argv parser. Input: argv words separated by NUL; an optional
// 0xFF byte splits off the bytes that fd 3 yields to --args/--seccomp/--add-seccomp-fd.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "bwrap_parser.hpp"
#include "ringfence/spec/describe.hpp"

namespace {

// Every fd read goes through this fake: fd 3 serves the input's tail, any other fd behaves as
// closed, so the fuzzer never reads (or closes) a real descriptor of its own process.
constexpr int kFuzzFd = 3;

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> words;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = s.find('\0', start);
    if (end == std::string_view::npos) {
      words.emplace_back(s.substr(start));
      return words;
    }
    words.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
}

// Properties any parse must have, whatever the input: a violation is a bug, not bad input.
void check_invariants(const rf::cli::BwrapParse& p) {
  using Action = rf::cli::BwrapParse::Action;
  using rf::spec::OpKind;
  if (p.error && p.error->message().empty()) __builtin_trap();
  if (!p.error && p.action == Action::Run && p.spec.argv.empty()) __builtin_trap();
  if (p.action != Action::Run && !p.spec.argv.empty()) __builtin_trap();
  for (const auto& w : p.warnings)
    if (w.empty()) __builtin_trap();
  for (const auto& prog : p.spec.seccomp)
    if (prog.bytes.size() % 8 != 0) __builtin_trap();
  for (const auto& op : p.spec.fs_ops) {
    if (op.perms && *op.perms > 07777) __builtin_trap();
    if (op.size && *op.size == 0) __builtin_trap();
    // The data ops carry a content fd, a real fd number; only the binds (--bind-fd) may have one.
    bool data = op.kind == OpKind::File || op.kind == OpKind::BindData || op.kind == OpKind::RoBindData;
    bool bind = op.kind == OpKind::Bind || op.kind == OpKind::RoBind;
    if (data ? !op.fd.valid() : !bind && op.fd != rf::spec::Fd{}) __builtin_trap();
  }
  for (const auto* fd :
       {&p.spec.sync_fd, &p.spec.block_fd, &p.spec.userns_block_fd, &p.spec.info_fd, &p.spec.json_status_fd})
    if (*fd && !(*fd)->valid()) __builtin_trap();
  if (!p.spec.bwrap_messages || !p.spec.inherit_fds) __builtin_trap();
  // bwrap's command line makes the kernel jail and leaves pid 1's argv as bwrap does.
  if (p.spec.jail != rf::spec::Jail::Kernel || p.spec.hide_launcher_argv) __builtin_trap();
  // A command line that runs has passed the user namespace cross-option checks.
  if (!p.error && p.action == Action::Run) {
    const auto& s = p.spec;
    if (s.userns_block_fd && (!s.ns.user || !s.info_fd)) __builtin_trap();
    if (s.disable_userns && (!s.ns.user || s.userns_block_fd)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view argv_part = in;
  std::string_view fd_part;
  bool have_fd = false;
  if (auto sep = in.find('\xff'); sep != std::string_view::npos) {
    argv_part = in.substr(0, sep);
    fd_part = in.substr(sep + 1);
    have_fd = true;
  }
  std::vector<std::string> args;
  if (!argv_part.empty()) args = split_words(argv_part);

  rf::cli::detail::FdReader reader = [&](int fd) -> rf::base::Result<std::string> {
    if (have_fd && fd == kFuzzFd) return std::string(fd_part);
    return rf::base::Error(EBADF, "read");
  };
  auto parsed = rf::cli::detail::parse_bwrap_args_with(args, reader);
  check_invariants(parsed);
  // The dump walks every field the parser filled.
  (void)rf::spec::describe(parsed.spec);
  return 0;
}
