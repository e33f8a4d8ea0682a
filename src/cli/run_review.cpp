// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence run --review`, the launcher's side (see run_review.hpp).
#include "ringfence/cli/run_review.hpp"

#include "ringfence/base/log.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/review/apply.hpp"
#include "ringfence/review/changes.hpp"

namespace rf::cli {

base::Result<ReviewRun> start_review(RunPlan& plan) {
  auto store = review::Store::open_default();
  if (!store) return store.error().reworded("review: the change store: " + store.error().message());
  review::CreateInfo info;
  info.started_ns = review::realtime_ns();
  info.git_head = review::read_git_head(plan.project);
  // What the masks hid at the start stays out of every change set (it cannot be written inside:
  // each is covered by a read-only mount).
  for (const auto& m : plan.masked)
    if (base::is_under(m, plan.project) && m != plan.project)
      info.masked.push_back(m.substr(plan.project.size() + 1));
  spec::FsOp* overlay = nullptr;
  for (auto& op : plan.spec.fs_ops)
    if (op.kind == spec::OpKind::Overlay && op.dest == plan.project && op.source.empty()) overlay = &op;
  if (!overlay) return base::Error(0, "review: the plan has no overlay of the project to fill in");
  auto paths = review::create_change_set(*store, plan.project, info);
  if (!paths) return paths.error().reworded("review: " + paths.error().message());
  overlay->source = paths->upper;
  overlay->work = paths->work;
  return ReviewRun{*paths, store->root()};
}

void finish_review(const ReviewRun& run, bool killed, std::optional<int> exit_code) {
  const std::string& id = run.paths.id;
  if (auto f = review::finish_change_set(
          run.paths, killed ? review::RunState::Killed : review::RunState::Complete, exit_code);
      !f)
    base::log::warning("review: change set " + id + ": " + f.error().describe());
  auto store = review::Store::at(run.store_root);
  if (!store) {
    base::log::warning("review: the change store: " + store.error().describe());
    return;
  }
  auto cs = review::open_change_set(*store, id);
  auto changes =
      cs ? review::scan(*cs) : base::Result<std::vector<review::Change>>(base::unexpected(cs.error()));
  if (!changes) {
    base::log::warning("review: change set " + id + ": " + changes.error().describe() + " (kept in " +
                       run.paths.dir + ")");
    return;
  }
  const std::string stopped = killed ? " (the run was stopped: what it wrote until then)" : "";
  if (changes->empty()) {
    const auto d = review::discard_change_set(*store, id);
    base::log::info("review: nothing changed" + stopped +
                    (d ? "" : "; change set " + id + " kept: " + d.error().describe()));
    return;
  }
  const review::Summary sum = review::summarize(*changes);
  base::log::info("review: change set " + id + stopped + ": " + sum.text() +
                  "; the project is untouched. See it: ringfence changes " + id + " --diff; write it into " +
                  cs->meta.project + ": ringfence apply " + id + "; drop it: ringfence discard " + id);
  if (sum.risky > 0) {
    std::string names;
    std::size_t n = 0;
    for (const auto& c : *changes)
      if (c.risky && n++ < 5) names += (names.empty() ? "" : ", ") + c.path;
    base::log::warning("review: " + std::to_string(sum.risky) + " risky change" +
                       (sum.risky == 1 ? "" : "s") + " (" + names + (sum.risky > 5 ? ", ..." : "") +
                       "): left out of apply unless --include-risky");
  }
}

}  // namespace rf::cli
