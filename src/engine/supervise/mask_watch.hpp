// SPDX-License-Identifier: LGPL-2.1-or-later
// Masks for names that appear after the start (kernel jail, spec.supervision.late_masks): a
// launcher thread watches the project's directories with inotify; when a name a mask covers is
// created or moved in, a helper process (forked before the launcher's threads start) that
// joined the sandbox's user and mount namespaces covers it there (a directory with an empty read-only tmpfs,
// a file with a read-only /dev/null), at every place the project is mounted. The sandbox has no capability to
// undo such a mount.
//
// Limits, stated where they are reported: a process inside that opens the name in the
// milliseconds between its creation and the cover keeps what it opened; past kMaxWatched
// directories (or a quarter of fs.inotify.max_user_watches) the deeper ones are not watched.
//
// It fails closed: past kMaxCovers covers (each is a mount, and a namespace holds a bounded
// number of them), when a cover fails, or when the helper is gone, a name could stay readable,
// so the sandbox is killed and breach() says why (once). Lost inotify events (queue overflow)
// make it list the whole project again.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/spec/spec.hpp"

namespace rf::engine {

class MaskWatch {
public:
  static constexpr std::size_t kMaxWatched = 8192;
  static constexpr std::size_t kMaxCovers = 2048;

  // Forks the helper, then starts watching: call it before the launcher starts any thread
  // (the helper is a fork of the launcher). userns and mntns are the sandbox's (opened by the
  // launcher while the child waited at sync point 1); the helper joins them when the first
  // cover is needed, and talks to the watch thread over a socket pair. `sandbox` is the
  // launcher's unreaped child, killed on a breach.
  static base::Result<std::unique_ptr<MaskWatch>> start(const spec::LateMasks& masks, base::UniqueFd userns,
                                                        base::UniqueFd mntns, pid_t sandbox);
  ~MaskWatch();
  // Why the sandbox was killed, or empty. Read after the sandbox has ended.
  std::string breach() const;
  MaskWatch(const MaskWatch&) = delete;
  MaskWatch& operator=(const MaskWatch&) = delete;

private:
  MaskWatch() = default;
  void run();
  void watch_tree(const std::string& rel, bool list_matches);
  bool covered_by_pattern(const std::string& rel, bool is_dir) const;
  void cover(const std::string& rel, bool is_dir);
  base::Status fork_helper();
  bool ask_helper(const std::string& request, int& answer);
  bool ensure_helper();
  void stop_helper();
  void fail_closed(const std::string& why);

  spec::LateMasks masks_;
  base::UniqueFd userns_, mntns_;
  base::UniqueFd inotify_;
  base::UniqueFd stop_;
  std::map<int, std::string> dirs_;  // watch descriptor -> directory relative to host_dir
  std::set<std::string> covered_;
  std::size_t covers_ = 0;  // covers made by the helper (each one a mount in the sandbox)
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
