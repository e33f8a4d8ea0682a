// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence changes`, `apply`, `discard`: the command lines (CLI11) and what they print. The
// work itself is the review layer's.
#include "ringfence/cli/review_command.hpp"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdio>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/review/apply.hpp"
#include "ringfence/review/changes.hpp"
#include "ringfence/review/diff.hpp"
#include "ringfence/review/store.hpp"

namespace rf::cli {
namespace {

constexpr int kRefused = 1;

void out(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }
void err(const std::string& s) {
  const std::string line = "ringfence: " + s + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

int fail(const std::string& what, const base::Error& e) {
  err(what + ": " + e.describe_with_cause());
  return kRefused;
}

void check_id(const std::string& id) {
  if (!review::valid_id(id))
    throw CLI::ValidationError("ID", "'" + id + "' is not a change set id (YYYYMMDD-HHMMSS-hhhh)");
}

}  // namespace

void add_review_commands(CLI::App& app, NativeCommand& out) {
  auto& r = out.review;
  auto* changes =
      app.add_subcommand("changes", "Show a review run's change set (default: the project's latest)");
  changes->add_option("id", r.args, "Change set id (default: the latest of the project)")->expected(0, 1);
  changes->add_option_function<std::string>(
      "--project", [&r](const std::string& v) { r.project = v; },
      "The project whose latest change set is shown (default: the current folder)");
  changes->add_flag("--json", r.json, "As JSON: id, project, started, changes");
  changes->add_flag("--diff", r.diff, "As a unified diff git can apply");
  changes->add_flag("--stat", r.stat, "Lines added and removed per file, and a total");
  changes->add_flag("--list", r.list, "List the change sets of the store");
  changes->callback([&out, &r] {
    out.kind = NativeCommand::Kind::Review;
    r.op = ReviewCommand::Op::Changes;
    if (int(r.json) + int(r.diff) + int(r.stat) + int(r.list) > 1)
      throw CLI::ValidationError("changes", "--json, --diff, --stat and --list exclude each other");
    if (r.list && !r.args.empty()) throw CLI::ValidationError("changes", "--list takes no ID");
    for (const auto& a : r.args) check_id(a);
  });

  auto* apply =
      app.add_subcommand("apply", "Write a change set into its project (risky changes only when asked)");
  apply->add_option("args", r.args,
                    "[ID] [PATH...]: the change set (default: the project's latest) and the paths");
  apply->add_option_function<std::string>(
      "--project", [&r](const std::string& v) { r.project = v; },
      "The project whose latest change set is applied (default: the current folder)");
  apply->add_flag("--include-risky", r.include_risky,
                  "Also apply the risky changes (.git internals, auto-run files...)");
  apply
      ->add_option_function<std::string>(
          "--git-branch", [&r](const std::string& v) { r.git_branch = v; },
          "Commit the changes on a new branch NAME instead; the working tree is left alone")
      ->type_name("NAME");
  apply->callback([&out, &r] {
    out.kind = NativeCommand::Kind::Review;
    r.op = ReviewCommand::Op::Apply;
    if (r.git_branch && r.include_risky)
      throw CLI::ValidationError("apply", "--git-branch never commits risky changes; drop --include-risky");
    if (r.git_branch && r.git_branch->empty())
      throw CLI::ValidationError("--git-branch", "needs a branch name");
  });

  auto* discard = app.add_subcommand("discard", "Remove change sets");
  discard->add_option("id", r.args, "Change set id (default: the latest of the project)")->expected(0, 1);
  discard->add_option_function<std::string>(
      "--project", [&r](const std::string& v) { r.project = v; },
      "The project whose latest change set is removed (default: the current folder)");
  discard
      ->add_option_function<long>(
          "--keep", [&r](const long& v) { r.keep = v; },
          "Keep the N newest change sets of the store, remove the others")
      ->type_name("N");
  discard
      ->add_option_function<double>(
          "--older-than", [&r](const double& v) { r.older_than_days = v; },
          "Remove the change sets whose run started more than DAYS ago")
      ->type_name("DAYS");
  discard->callback([&out, &r] {
    out.kind = NativeCommand::Kind::Review;
    r.op = ReviewCommand::Op::Discard;
    if (int(!r.args.empty()) + int(r.keep.has_value()) + int(r.older_than_days.has_value()) > 1)
      throw CLI::ValidationError("discard", "give one of ID, --keep N, --older-than DAYS");
    if (r.keep && *r.keep < 0) throw CLI::ValidationError("--keep", "must be 0 or more");
    if (r.older_than_days && !(*r.older_than_days >= 0))
      throw CLI::ValidationError("--older-than", "must be 0 or more days");
    for (const auto& a : r.args) check_id(a);
  });
}

namespace {

base::Result<std::string> project_realpath(const ReviewCommand& cmd) {
  const std::string p = cmd.project ? *cmd.project : ".";
  char buf[PATH_MAX];
  if (!::realpath(p.c_str(), buf)) return base::errno_error("the project " + p);
  return std::string(buf);
}

// The change set the command names, or the project's latest.
base::Result<review::ChangeSet> pick(const review::Store& store, const ReviewCommand& cmd,
                                     const std::string& id) {
  if (!id.empty()) return review::open_change_set(store, id);
  RF_TRY_ASSIGN(project, project_realpath(cmd));
  auto found = review::latest_for_project(store, project);
  // Without --project, run from inside the project: its change set is that of the nearest
  // directory above that has one (the project itself, where the run was made).
  for (std::string up = project; !found && !cmd.project && found.error().is_usage() && up != "/";) {
    up = base::parent(up);
    if (up.empty()) break;
    if (auto above = review::latest_for_project(store, up)) return above;
  }
  return found;
}

std::string change_json(const review::Change& c) {
  return "{\"path\": " + base::json_quote(c.path) + ", \"kind\": \"" + review::kind_name(c.kind) +
         "\", \"risky\": " + (c.risky ? "true" : "false") + ", \"reason\": " + base::json_quote(c.reason) +
         "}";
}

char kind_letter(review::ChangeKind k) {
  switch (k) {
    case review::ChangeKind::Added: return 'A';
    case review::ChangeKind::Modified: return 'M';
    case review::ChangeKind::Deleted: return 'D';
    case review::ChangeKind::TypeChanged: return 'T';
    case review::ChangeKind::ModeChanged: return 'm';
  }
  return '?';
}

std::string stat_text(const review::Diff& d) {
  std::size_t width = 0, adds = 0, dels = 0;
  for (const auto& f : d.files) width = std::max(width, f.path.size());
  std::string s;
  for (const auto& f : d.files) {
    s += " " + f.path + std::string(width - f.path.size(), ' ') + " | ";
    if (f.binary) {
      s += "Bin\n";
      continue;
    }
    s += std::to_string(f.added + f.removed) + " " + std::string(std::min<std::size_t>(f.added, 40), '+') +
         std::string(std::min<std::size_t>(f.removed, 40), '-') + "\n";
    adds += f.added;
    dels += f.removed;
  }
  s += " " + std::to_string(d.files.size()) + (d.files.size() == 1 ? " file" : " files") + " changed, " +
       std::to_string(adds) + " insertions(+), " + std::to_string(dels) + " deletions(-)\n";
  return s;
}

int list(const review::Store& store) {
  auto all = review::list_change_sets(store);
  if (!all) return fail("changes --list", all.error());
  for (const auto& cs : *all)
    out(cs.meta.id + "  " + review::state_name(cs.meta.state) + (cs.meta.applied ? " applied" : "") + "  " +
        cs.meta.started + "  " + cs.meta.project + "\n");
  return 0;
}

int changes(const review::Store& store, const ReviewCommand& cmd) {
  if (cmd.list) return list(store);
  auto cs = pick(store, cmd, cmd.args.empty() ? "" : cmd.args.front());
  if (!cs) return fail("changes", cs.error());
  auto ch = review::scan(*cs);
  if (!ch) return fail("changes " + cs->meta.id, ch.error());
  if (cmd.json) {
    std::string s = "{\"id\": " + base::json_quote(cs->meta.id) +
                    ", \"project\": " + base::json_quote(cs->meta.project) +
                    ", \"started\": " + base::json_quote(cs->meta.started) + ", \"changes\": [";
    for (std::size_t i = 0; i < ch->size(); ++i) s += (i ? ",\n  " : "\n  ") + change_json((*ch)[i]);
    out(s + (ch->empty() ? "]}\n" : "\n]}\n"));
    return 0;
  }
  if (cmd.diff || cmd.stat) {
    auto d = review::unified_diff(*cs, *ch);
    if (!d) return fail("changes " + cs->meta.id, d.error());
    out(cmd.diff ? d->text : stat_text(*d));
    return 0;
  }
  out("change set " + cs->meta.id + " of " + cs->meta.project + " (started " + cs->meta.started + ", " +
      review::state_name(cs->meta.state) + (cs->meta.applied ? ", applied" : "") + ")\n");
  for (const auto& c : *ch)
    out(std::string("  ") + kind_letter(c.kind) + " " + c.path +
        (c.risky ? "   [risky: " + c.reason + "]" : "") + "\n");
  out(review::summarize(*ch).text() + "\n");
  return 0;
}

int branch(const review::ChangeSet& cs, const std::vector<review::Change>& selected,
           const std::string& name) {
  auto r = review::commit_to_branch(cs, selected, name);
  if (!r) return fail("apply --git-branch " + name, r.error());
  for (const auto& c : r->skipped)
    err("left out of the commit: " + c.path +
        (c.risky ? " (risky: " + c.reason + ")" : " (not a file or a link, or under .git)"));
  out("committed " + std::to_string(r->committed.size()) + " changes of " + cs.meta.id + " as " + r->commit +
      " on the new branch " + name + "\n");
  return 0;
}

int apply(const review::Store& store, const ReviewCommand& cmd) {
  std::string id;
  std::vector<std::string> paths = cmd.args;
  if (!paths.empty() && review::valid_id(paths.front())) {
    id = paths.front();
    paths.erase(paths.begin());
  }
  auto cs = pick(store, cmd, id);
  if (!cs) return fail("apply", cs.error());
  auto ch = review::scan(*cs);
  if (!ch) return fail("apply " + cs->meta.id, ch.error());
  if (cs->meta.state == review::RunState::Running)
    err("note: change set " + cs->meta.id +
        " is marked running: its run has not finished (or died before it said so)");
  if (cmd.git_branch) {
    auto sel = review::select_changes(*ch, paths);
    if (!sel) return fail("apply", sel.error());
    return branch(*cs, *sel, *cmd.git_branch);
  }
  review::ApplyOptions o;
  o.include_risky = cmd.include_risky;
  o.paths = paths;
  auto r = review::apply(*cs, *ch, o);
  if (!r) return fail("apply " + cs->meta.id, r.error());
  if (!r->conflicts.empty()) {
    for (const auto& c : r->conflicts) err("conflict: " + c);
    err("apply " + cs->meta.id + " refused: " + std::to_string(r->conflicts.size()) +
        " path(s) changed on the host since the run started; nothing was written");
    return kRefused;
  }
  for (const auto& c : r->skipped_risky)
    err("skipped (risky; --include-risky applies it): " + c.path + ": " + c.reason);
  if (r->applied.empty()) {
    err("apply " + cs->meta.id + ": nothing to apply" +
        (r->already.empty() ? std::string()
                            : " (" + std::to_string(r->already.size()) + " already in the project)"));
    return kRefused;
  }
  out("applied " + std::to_string(r->applied.size()) + " changes of " + cs->meta.id + " to " +
      cs->meta.project +
      (r->skipped_risky.empty() ? std::string()
                                : "; " + std::to_string(r->skipped_risky.size()) + " risky skipped") +
      "\n");
  return 0;
}

int discard(const review::Store& store, const ReviewCommand& cmd) {
  std::vector<std::string> ids;
  if (cmd.keep || cmd.older_than_days) {
    auto all = review::list_change_sets(store);
    if (!all) return fail("discard", all.error());
    const std::int64_t now = review::realtime_ns();
    for (std::size_t i = 0; i < all->size(); ++i) {
      const auto& m = (*all)[i].meta;
      if (cmd.keep && i + static_cast<std::size_t>(*cmd.keep) < all->size()) ids.push_back(m.id);
      if (cmd.older_than_days && static_cast<double>(now - m.started_ns) > *cmd.older_than_days * 86400e9)
        ids.push_back(m.id);
    }
  } else if (!cmd.args.empty()) {
    ids.push_back(cmd.args.front());  // removed as it is, even when it is not safe to read
  } else {
    auto cs = pick(store, cmd, "");
    if (!cs) return fail("discard", cs.error());
    ids.push_back(cs->meta.id);
  }
  int rc = 0;
  for (const auto& id : ids) {
    auto s = review::discard_change_set(store, id);
    if (!s) {
      rc = fail("discard " + id, s.error());
      continue;
    }
    out("discarded " + id + "\n");
  }
  return rc;
}

}  // namespace

int run_review_command(const ReviewCommand& cmd) {
  auto store = review::Store::open_default();
  if (!store) return fail("the change store", store.error());
  switch (cmd.op) {
    case ReviewCommand::Op::Changes: return changes(*store, cmd);
    case ReviewCommand::Op::Apply: return apply(*store, cmd);
    case ReviewCommand::Op::Discard: return discard(*store, cmd);
  }
  return kRefused;
}

}  // namespace rf::cli
