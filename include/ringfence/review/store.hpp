// SPDX-License-Identifier: LGPL-2.1-or-later
// The change store (docs/review.md): one directory per change set under the user's state
// directory, each with meta.json, the overlay's upper directory and its work directory. Every
// directory of the store is the user's own and closed to others, or it is refused.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::review {

// What the run side knows before the sandbox starts.
struct CreateInfo {
  std::int64_t started_ns = 0;          // CLOCK_REALTIME before the start (0: now)
  std::optional<std::string> git_head;  // the project's HEAD commit, if it is a repository
  std::vector<std::string> masked;      // paths relative to the project, never in a change set
};

struct ChangeSetPaths {
  std::string id;
  std::string dir;    // <root>/<id>
  std::string meta;   // <dir>/meta.json
  std::string upper;  // <dir>/upper: the overlay's upper directory
  std::string work;   // <dir>/work: the overlay's work directory
};

enum class RunState { Running, Complete, Killed };
const char* state_name(RunState s);

// meta.json, as data.
struct Meta {
  std::string id;
  std::string project;  // realpath
  std::uint64_t project_dev = 0;
  std::uint64_t project_ino = 0;
  std::string started;  // ISO-8601 UTC
  std::int64_t started_ns = 0;
  std::optional<std::string> git_head;
  std::vector<std::string> masked;
  RunState state = RunState::Running;
  std::optional<int> exit_code;
  bool applied = false;
};

std::string meta_to_json(const Meta& m);
// Exact for the 64-bit numbers (started_ns, project_dev, project_ino).
base::Result<Meta> meta_from_json(const std::string& text);

struct ChangeSet {
  ChangeSetPaths paths;
  Meta meta;
};

class Store {
public:
  // $XDG_STATE_HOME/ringfence/changes when XDG_STATE_HOME is absolute, else
  // $HOME/.local/state/ringfence/changes; made (0700) where missing, refused when unsafe.
  static base::Result<Store> open_default();
  // A store at `root` (made where missing, as above): tests and embedders.
  static base::Result<Store> at(const std::string& root);

  [[nodiscard]] const std::string& root() const { return root_; }
  // The root, opened and checked again (the user's own, not group/world-writable, no link).
  [[nodiscard]] base::Result<base::UniqueFd> open_root() const;
  [[nodiscard]] ChangeSetPaths paths_of(const std::string& id) const;

private:
  explicit Store(std::string root) : root_(std::move(root)) {}
  std::string root_;
};

// A directory fd that is safe to use: opened without following a link, owned by the
// effective uid, not writable by group or others. The error names the path and why.
base::Result<base::UniqueFd> open_private_dir(int dirfd, const std::string& name, const std::string& shown);

// The change set's directory, it and the store root above it checked as above.
base::Result<base::UniqueFd> open_change_set_dir(const ChangeSetPaths& paths);

// Whether `id` has the form YYYYMMDD-HHMMSS-hhhh.
bool valid_id(const std::string& id);
// A new id for a run that started at `ns` (CLOCK_REALTIME).
std::string make_id(std::int64_t ns);
// "2026-12-02T05:47:08Z".
std::string iso_utc(std::int64_t ns);
std::int64_t realtime_ns();

// Makes <root>/<id>/{upper,work} (0700) and meta.json with state "running".
base::Result<ChangeSetPaths> create_change_set(const Store& store, const std::string& project_realpath,
                                               const CreateInfo& info);
// Records how the run ended.
base::Status finish_change_set(const ChangeSetPaths& paths, RunState state, std::optional<int> exit_code);

// One change set (its directory checked, meta.json read). An unknown id is an Error::usage.
base::Result<ChangeSet> open_change_set(const Store& store, const std::string& id);
// Every change set, oldest first; entries that are not change sets are left out.
base::Result<std::vector<ChangeSet>> list_change_sets(const Store& store);
// The latest change set of the project at `project_realpath`, or an Error::usage.
base::Result<ChangeSet> latest_for_project(const Store& store, const std::string& project_realpath);
// meta.json gets "applied": true.
base::Status mark_applied(const ChangeSet& cs);
// Removes the change set's directory (no link followed; nothing outside the store).
base::Status discard_change_set(const Store& store, const std::string& id);

}  // namespace rf::review
