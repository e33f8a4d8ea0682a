// SPDX-License-Identifier: LGPL-2.1-or-later
// Masks that hold against a project someone else changes (kernel jail,
// spec.supervision.late_masks): a launcher thread watches the project's directories with
// inotify; every name a mask covers, found by its walk or created or moved in later, is covered
// by a helper process (forked before the launcher's threads start) that joined the sandbox's
// user and mount namespaces (a directory with an empty read-only tmpfs, a file with a read-only
// /dev/null), at every place the project is mounted. The sandbox has no capability to undo such
// a mount, and a cover stays on its object wherever a rename moves it.
//
// The walk adds each directory's watch before it reads the directory, so a name that moves in
// after the read produces an event and one that moved before is read. The first walk runs while
// the child sets up its root; once the root is complete (sync point 2, cover_before_start) the
// names it found are covered, the events queued since are handled until the queue is empty, and
// only then may the command start. Whether a name is covered already (by the start's masks, or
// an earlier cover) is asked of the sandbox itself: the object there belongs to another
// filesystem than the project's object of that name.
//
// Limits, stated where they are reported: a process inside that opens a name created (or moved
// in from outside the project) after the start, in the milliseconds before its cover, keeps what
// it opened; past kMaxWatched directories (or a quarter of fs.inotify.max_user_watches) the start
// is refused, and directories that arrive later past the bound are not watched.
//
// It fails closed: when the first walk cannot be completed the sandbox does not start; past
// kMaxCovers covers (each is a mount, and a namespace holds a bounded number of them), when a
// cover fails, or when the helper is gone, a name could stay readable, so the sandbox is killed
// and breach() says why (once). Lost inotify events (queue overflow) make it list the whole
// project again.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

// The watcher's requests to its helper, one datagram each: a kind ('d' a directory, 'f' a file,
// then the project's device of the object and its path relative to the project, NUL-terminated;
// 'e' to enter the sandbox's namespaces); and the answer: an errno (0 = done or nothing to do)
// and the number of covers mounted.
struct MaskRequest {
  char kind = 0;
  dev_t dev = 0;
  char rel[4097] = {};
};
struct MaskAnswer {
  int err = 0;
  int mounts = 0;
};

class MaskWatch {
public:
  static constexpr std::size_t kMaxWatched = 32768;
  static constexpr std::size_t kMaxCovers = 2048;

  // Forks the helper, then starts the first walk: call it before the launcher starts any thread
  // (the helper is a fork of the launcher). userns and mntns are the sandbox's (opened by the
  // launcher while the child waited at sync point 1); the helper joins them once the root is
  // complete, and talks to the watch thread over a socket pair. `sandbox` is the launcher's
  // unreaped child, killed on a breach.
  static base::Result<std::unique_ptr<MaskWatch>> start(const spec::LateMasks& masks, base::UniqueFd userns,
                                                        base::UniqueFd mntns, pid_t sandbox);
  // The sandbox's root is complete (its child waits at sync point 2): covers every name the
  // first walk found and every one that moved since, and returns once they are mounted. An
  // error means the sandbox must not start (it was killed).
  base::Status cover_before_start();
  ~MaskWatch();
  // Why the sandbox was killed, or empty. Read after the sandbox has ended.
  std::string breach() const;
  MaskWatch(const MaskWatch&) = delete;
  MaskWatch& operator=(const MaskWatch&) = delete;

private:
  MaskWatch() = default;
  struct Found {
    std::string rel;
    bool is_dir;
    dev_t dev;  // the project's object: a cover is made only where the sandbox still shows it
  };
  void run();
  bool handle_events(bool wait);
  // `clear`: no pattern or exception names rel or a directory above it.
  void watch_tree(const std::string& rel, bool clear = true);
  struct Naming {
    bool excepted = false;   // an exception (--unmask) names it or a directory above it
    bool patterned = false;  // else a pattern does
    [[nodiscard]] bool covered() const { return patterned; }
  };
  // With `last`, no parent directory of rel is named (the walk knows): only its last component
  // is matched.
  Naming naming(const std::string& rel, bool is_dir, bool last) const;
  // The object at rel (its stat) is one the plan found to hold no secret.
  bool exempt(const std::string& rel, const struct stat& st) const;
  bool stat_beneath(const std::string& rel, struct stat& st) const;
  void cover(const Found& f);
  base::Status fork_helper();
  bool ask_helper(const void* request, std::size_t size, MaskAnswer& answer);
  bool ensure_helper();
  void stop_helper();
  void fail_closed(const std::string& why);

  spec::LateMasks masks_;
  std::vector<base::PathPattern> patterns_, except_;  // masks_'s, parsed once
  base::UniqueFd userns_, mntns_;
  base::UniqueFd project_;  // host_dir, opened once: every directory is opened beneath it
  base::UniqueFd inotify_;
  base::UniqueFd stop_;
  base::UniqueFd root_ready_;        // written by cover_before_start
  base::UniqueFd walked_;            // written by the thread once the first covers are in
  std::map<int, std::string> dirs_;  // watch descriptor -> directory relative to host_dir
  bool covering_ = false;            // the root is complete; until then matches wait in pending_
  std::vector<Found> pending_;
  std::atomic<bool> started_{false};  // the first walk's covers are in; the command may run
  std::size_t covers_ = 0;            // covers made by the helper (each one a mount in the sandbox)
  std::size_t budget_ = kMaxWatched;
  bool budget_reported_ = false;
  pid_t helper_ = -1;
  base::UniqueFd helper_sock_;
  bool helper_entered_ = false;  // it is in the sandbox's namespaces, below its root
  bool helper_failed_ = false;
  pid_t sandbox_ = -1;
  std::atomic<bool> breached_{false};
  std::string breach_;  // written once, before breached_ is set
  std::thread thread_;
};

}  // namespace rf::engine
