// SPDX-License-Identifier: LGPL-2.1-or-later
// Entry point: choose the front end (bwrap-compatible or native), run, map the result to an
// exit code and one message. The only top-level catch.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/log.hpp"
#include "ringfence/cli/bwrap_args.hpp"
#include "ringfence/engine/launch.hpp"

namespace {

constexpr int kExitSetupError = 1;

std::string_view basename_of(std::string_view p) {
  auto pos = p.rfind('/');
  return pos == std::string_view::npos ? p : p.substr(pos + 1);
}

void print_to(FILE* f, const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), f);
  std::fflush(f);
}

int run_bwrap_mode(std::string_view argv0, const std::vector<std::string>& args) {
  namespace log = rf::base::log;
  log::set_program("bwrap");
  auto parsed = rf::cli::parse_bwrap_args(args);
  if (parsed.level_prefix) log::set_level_prefix(true);
  for (const auto& w : parsed.warnings) log::warning(w);
  if (parsed.error) {
    log::error(parsed.error->describe());
    return kExitSetupError;
  }
  switch (parsed.action) {
    case rf::cli::BwrapParse::Action::Help:
      print_to(stdout, rf::cli::bwrap_usage(argv0));
      return 0;
    case rf::cli::BwrapParse::Action::Version:
      print_to(stdout, rf::cli::bwrap_version_line());
      return 0;
    case rf::cli::BwrapParse::Action::Usage:
      print_to(stderr, rf::cli::bwrap_usage(argv0));
      return kExitSetupError;
    case rf::cli::BwrapParse::Action::Run:
      break;
  }
  auto r = rf::engine::launch(parsed.spec);
  if (!r) {
    log::error(r.error().describe());
    return kExitSetupError;
  }
  return r.value();
}

void native_usage(FILE* f) {
  print_to(f,
           "usage: ringfence bwrap [BWRAP OPTIONS...] [--] COMMAND [ARGS...]\n"
           "       ringfence [BWRAP OPTIONS...] [--] COMMAND [ARGS...]\n"
           "       ringfence --help | --version\n"
           "\n"
           "ringfence is a Linux sandbox engine. Invoked as 'bwrap' (hard link or copy), or as\n"
           "'ringfence bwrap ...', it accepts bubblewrap's command line (see 'bwrap --help').\n");
}

int run(int argc, char** argv) {
  std::string_view argv0 = argc > 0 && argv[0] ? argv[0] : "ringfence";
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);

  if (basename_of(argv0) == "bwrap") return run_bwrap_mode(argv0, args);
  if (!args.empty() && args[0] == "bwrap") {
    args.erase(args.begin());
    return run_bwrap_mode("bwrap", args);
  }
  if (args.empty()) {
    native_usage(stderr);
    return kExitSetupError;
  }
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    native_usage(stdout);
    return 0;
  }
  if (args.size() == 1 && args[0] == "--version") {
    print_to(stdout, std::string("ringfence ") + RF_VERSION + "\n");
    return 0;
  }
  // Anything else that starts with an option is bubblewrap's command line (nested sandboxes
  // re-run the binary as "/proc/self/exe --unshare-all ...").
  if (args[0].size() > 1 && args[0][0] == '-') return run_bwrap_mode(argv0, args);
  rf::base::log::error("unknown command '" + args[0] + "' (see 'ringfence --help')");
  return kExitSetupError;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ringfence: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "ringfence: internal error\n");
  }
  return kExitSetupError;
}
