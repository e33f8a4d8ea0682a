// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence changes | apply | discard` (docs/review.md): the change sets of review runs,
// shown, written into the project (or committed to a branch) and removed.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace rf::cli {

struct NativeCommand;

struct ReviewCommand {
  enum class Op { Changes, Apply, Discard } op = Op::Changes;
  std::vector<std::string> args;       // [ID] (changes, discard), [ID] [PATH...] (apply)
  std::optional<std::string> project;  // the project whose latest change set is meant
  bool json = false, diff = false, stat = false, list = false;
  bool include_risky = false;
  std::optional<std::string> git_branch;
  std::optional<long> keep;
  std::optional<double> older_than_days;
};

// Adds the three subcommands to the native command line.
void add_review_commands(CLI::App& app, NativeCommand& out);
// Runs one: prints to stdout/stderr, returns the exit code (0 done, 1 refused or failed).
int run_review_command(const ReviewCommand& cmd);

}  // namespace rf::cli
