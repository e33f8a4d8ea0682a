// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence run --review`, the launcher's side (docs/review.md, "The run side"): the change set
// made before the start (its upper and work directories go into the plan's overlay of the
// project), and after the run how it ended and what it holds.
#pragma once

#include <optional>

#include "ringfence/base/result.hpp"
#include "ringfence/cli/native_run.hpp"
#include "ringfence/review/store.hpp"

namespace rf::cli {

struct ReviewRun {
  review::ChangeSetPaths paths;
  std::string store_root;  // found before the launcher's environment is cleared
};

// Makes the change set in the user's store and fills the plan's overlay of the project in. An
// error leaves nothing behind and nothing may run.
base::Result<ReviewRun> start_review(RunPlan& plan);
// Records the end (killed: stopped by its timeout, a signal or a limit) and says on stderr what
// the change set holds and how to see, apply or drop it. A change set with no change at all is
// dropped.
void finish_review(const ReviewRun& run, bool killed, std::optional<int> exit_code);

}  // namespace rf::cli
