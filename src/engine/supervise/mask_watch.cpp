// SPDX-License-Identifier: LGPL-2.1-or-later
// Masks for names created after the start (see mask_watch.hpp).
#include "mask_watch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <utility>
#include <vector>

#include "ringfence/base/kernel.hpp"
#include "ringfence/base/log.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::engine {
namespace {

// Watches are added through /proc/self/fd/N of a directory opened beneath the project: the
// magic link is followed to that very directory (no IN_DONT_FOLLOW), never a path looked up again.
constexpr std::uint32_t kEvents = IN_CREATE | IN_MOVED_TO | IN_ONLYDIR | IN_EXCL_UNLINK;

std::string join_rel(const std::string& dir, const char* name) {
  return dir.empty() ? name : dir + "/" + name;
}

// ---- the helper, inside the sandbox's user and mount namespaces --------------------------------

using Request = MaskRequest;
using Answer = MaskAnswer;

// The helper is forked before the launcher starts any thread, and keeps to async-signal-safe
// calls all the same (no allocation: `rel` is a NUL-terminated buffer of the caller's).
// A name whose object in the sandbox lies on another filesystem than the project's object of
// that name (`dev`) is covered already (a cover is a tmpfs or /dev/null, as are the start's
// masks); one that is gone, or is of the other kind now, was replaced, and the replacement's own
// event covers it.
Answer cover_in_sandbox(const spec::LateMasks& masks, const char* rel, bool is_dir, dev_t dev) {
  Answer out;
  for (const auto& top : masks.sandbox_dirs) {
    base::UniqueFd dir(::open(top.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) continue;
    // Mount points are crossed: the only mounts below the project are ringfence's own (.git's
    // protection, --bind destinations, covers), and a name made in one is hidden like any other.
    const auto how = base::OpenHow()
                         .flags(O_PATH | O_CLOEXEC | O_NOFOLLOW)
                         .resolve(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
    base::UniqueFd target;
    for (int attempt = 0; attempt < 8 && !target.valid(); ++attempt) {
      target.reset(base::raw::openat2(dir.get(), rel, how));
      if (!target.valid() && errno != EAGAIN) break;  // EAGAIN: a rename raced the lookup
    }
    if (!target.valid()) {
      if (errno != ENOENT && errno != ENOTDIR && out.err == 0) out.err = errno;  // gone again
      continue;
    }
    struct stat st {};
    if (::fstat(target.get(), &st) != 0) {
      if (out.err == 0) out.err = errno;
      continue;
    }
    // A link is not covered (as at the start): what it leads to is looked at under its own name.
    if (st.st_dev != dev || S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode) != is_dir) continue;
    base::UniqueFd source;
    if (is_dir) {
      base::UniqueFd fs(base::raw::fsopen("tmpfs", FSOPEN_CLOEXEC));
      if (!fs.valid() || base::raw::fsconfig(fs.get(), FSCONFIG_SET_STRING, "size", "4k", 0) != 0 ||
          base::raw::fsconfig(fs.get(), FSCONFIG_SET_STRING, "mode", "0555", 0) != 0 ||
          base::raw::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0) {
        if (out.err == 0) out.err = errno;
        continue;
      }
      source.reset(
          base::raw::fsmount(fs.get(), FSMOUNT_CLOEXEC,
                             MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC));
    } else {
      source.reset(base::raw::open_tree(AT_FDCWD, "/dev/null", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
      if (source.valid()) {
        mount_attr attr{};
        attr.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC;
        if (base::raw::mount_setattr(source.get(), "", AT_EMPTY_PATH, &attr, sizeof attr) != 0)
          source.reset();
      }
    }
    if (!source.valid() || base::raw::move_mount(source.get(), "", target.get(), "",
                                                 MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
      if (out.err == 0) out.err = errno;
    } else {
      ++out.mounts;
    }
  }
  return out;
}

// Entering: the user namespace once (a process cannot join the one it is in), then the mount
// namespace, again on each try: setns puts the caller at the namespace's root, which is the
// sandbox's only after its pivot_root. EAGAIN while the root is still the host's.
int enter_sandbox(int userns, int mntns, bool& in_userns, dev_t host_dev, ino_t host_ino) {
  if (!in_userns) {
    if (::setns(userns, CLONE_NEWUSER) != 0) return errno;
    in_userns = true;
  }
  if (::setns(mntns, CLONE_NEWNS) != 0) return errno;
  struct stat root {};
  if (::stat("/", &root) != 0) return errno;
  return root.st_dev == host_dev && root.st_ino == host_ino ? EAGAIN : 0;
}

// Closes every descriptor but the three it needs (the launcher's pipes and sockets are not the
// helper's to hold open). Best effort: without close_range (Linux < 5.9) they stay.
void close_all_but(int a, int b, int c) {
  int keep[3] = {a, b, c};
  std::sort(keep, keep + 3);
  unsigned from = 0;
  for (int k : keep) {
    if (static_cast<unsigned>(k) > from) (void)base::raw::close_range(from, static_cast<unsigned>(k) - 1, 0);
    from = static_cast<unsigned>(k) + 1;
  }
  (void)base::raw::close_range(from, ~0U, 0);
}

// Serves requests until the watcher closes its end; until 'e' has answered 0 nothing is covered.
[[noreturn]] void helper_main(const spec::LateMasks& masks, pid_t parent, int sock, int userns, int mntns,
                              dev_t host_dev, ino_t host_ino) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (::getppid() != parent) _exit(0);  // the launcher was gone before the death signal was set
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  close_all_but(sock, userns, mntns);
  bool in_userns = false, entered = false;
  constexpr auto kHeader = static_cast<ssize_t>(offsetof(Request, rel));
  while (true) {
    Request req;
    ssize_t n = ::recv(sock, &req, sizeof req, 0);
    if (n <= 0) _exit(0);
    req.rel[sizeof req.rel - 1] = '\0';
    Answer answer{EINVAL, 0};
    if (req.kind == 'e' && !entered) {
      answer.err = enter_sandbox(userns, mntns, in_userns, host_dev, host_ino);
      entered = answer.err == 0;
      if (entered) {
        ::close(userns);
        ::close(mntns);
      }
    } else if (entered && n > kHeader + 1 && (req.kind == 'd' || req.kind == 'f')) {
      answer = cover_in_sandbox(masks, req.rel, req.kind == 'd', req.dev);
    }
    if (::send(sock, &answer, sizeof answer, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof answer)) _exit(0);
  }
}

}  // namespace

// ---- the watcher, in the launcher --------------------------------------------------------------

base::Result<std::unique_ptr<MaskWatch>> MaskWatch::start(const spec::LateMasks& masks, base::UniqueFd userns,
                                                          base::UniqueFd mntns, pid_t sandbox) {
  std::unique_ptr<MaskWatch> w(new MaskWatch());
  w->masks_ = masks;
  for (const auto& p : masks.patterns) w->patterns_.emplace_back(p);
  for (const auto& p : masks.except) w->except_.emplace_back(p);
  w->sandbox_ = sandbox;
  w->userns_ = std::move(userns);
  w->mntns_ = std::move(mntns);
  // inotify watches count against the user's fs.inotify.max_user_watches, which editors and
  // file watchers need too: at most a quarter of it.
  if (auto t = base::read_file("/proc/sys/fs/inotify/max_user_watches")) {
    std::size_t limit = std::strtoull(t->c_str(), nullptr, 10);
    if (limit > 0) w->budget_ = std::min(kMaxWatched, limit / 4);
  }
  w->project_.reset(::open(masks.host_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!w->project_.valid()) return base::errno_error("open " + masks.host_dir);
  w->inotify_.reset(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  if (!w->inotify_.valid()) return base::errno_error("inotify_init1");
  for (base::UniqueFd* fd : {&w->stop_, &w->root_ready_, &w->walked_}) {
    fd->reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!fd->valid()) return base::errno_error("eventfd");
  }
  RF_TRY(w->fork_helper());
  MaskWatch* self = w.get();
  w->thread_ = std::thread([self] { self->run(); });
  return w;
}

// Closing an inotify instance that still holds watches waits for the kernel to free them (an SRCU
// grace period: 5-15 ms measured here, against ~0.1 ms for the rest of the close). Watches removed
// first are freed by the kernel's mark reaper in the background, and a close that comes a little
// later finds nothing left to wait for (measured: 12.4 ms mean when closed holding one watch,
// 2.3 ms right after removing it, 0.14 ms 2 ms after). So a detached thread removes the watches at
// once and closes the instance 5 ms later, while the launcher removes the throwaway HOME and
// reports. When the launcher ends first, its exit ends the sleeping thread and closes the
// instance, by then without watches; nothing outlives the launcher either way (every thread ends
// before the exit status is reported).
namespace {
void release_inotify(int fd, std::vector<int> watches) {
  if (fd < 0) return;
  auto release = [fd, watches = std::move(watches)] {
    for (int wd : watches) (void)::inotify_rm_watch(fd, wd);
    timespec later{0, 5'000'000};
    while (::nanosleep(&later, &later) != 0 && errno == EINTR) {}
    ::close(fd);
  };
  try {
    std::thread(release).detach();
  } catch (...) {  // no thread to be had: close it here, at the cost of the wait
    ::close(fd);
  }
}
}  // namespace

MaskWatch::~MaskWatch() {
  if (stop_.valid()) {
    std::uint64_t one = 1;
    (void)!::write(stop_.get(), &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
  stop_helper();
  std::vector<int> watches;
  watches.reserve(dirs_.size());
  for (const auto& [wd, rel] : dirs_) watches.push_back(wd);
  release_inotify(inotify_.release(), std::move(watches));
}

base::Status MaskWatch::cover_before_start() {
  std::uint64_t one = 1;
  if (::write(root_ready_.get(), &one, sizeof one) != static_cast<ssize_t>(sizeof one))
    return base::errno_error("masks: waking the watch");
  pollfd fd{walked_.get(), POLLIN, 0};
  while (::poll(&fd, 1, -1) < 0)
    if (errno != EINTR) return base::errno_error("masks: waiting for the watch");
  if (std::string why = breach(); !why.empty()) return base::Error(0, why);
  return {};
}

// The object at `rel`, looked up beneath the project without following a link.
bool MaskWatch::stat_beneath(const std::string& rel, struct stat& st) const {
  const auto how = base::OpenHow()
                       .flags(O_PATH | O_NOFOLLOW | O_CLOEXEC)
                       .resolve(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
  base::UniqueFd fd(base::raw::openat2(project_.get(), rel.c_str(), how));
  return fd.valid() && ::fstat(fd.get(), &st) == 0;
}

MaskWatch::Naming MaskWatch::naming(const std::string& rel, bool is_dir, bool last) const {
  Naming n;
  n.excepted = base::PathPattern::any(except_, rel, is_dir, last);
  n.patterned =
      !n.excepted && base::PathPattern::any(patterns_, rel, is_dir,
                                            last);  // an exception wins: the rest need not be looked at
  return n;
}

bool MaskWatch::exempt(const std::string& rel, const struct stat& st) const {
  for (const auto& e : masks_.exempt)
    if (e.rel == rel && e.dev == st.st_dev && e.ino == st.st_ino) return true;
  return false;
}

// Watches `rel` and the directories under it (breadth first, within the budget) and covers the
// names in them that a mask covers; a covered directory is not entered (its content is hidden
// with it). Each directory is opened beneath the project without following a link, watched
// through that descriptor, then read: a name that moves in after the read is an event, one that
// moved in before is read.
void MaskWatch::watch_tree(const std::string& rel, bool clear) {
  // Each directory with whether no pattern or exception names it or one above it: then the
  // names in it are matched on their last component alone.
  std::deque<std::pair<std::string, bool>> todo{{rel, clear}};
  const auto how = base::OpenHow()
                       .flags(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                       .resolve(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
  while (!todo.empty() && !breached_) {
    std::string cur = std::move(todo.front().first);
    const bool cur_clear = todo.front().second;
    todo.pop_front();
    const std::string shown = cur.empty() ? masks_.host_dir : masks_.host_dir + "/" + cur;
    if (dirs_.size() >= budget_) {
      if (!started_)
        return fail_closed("the project has more than " + std::to_string(budget_) +
                           " directories to watch (at most " + std::to_string(kMaxWatched) +
                           " and a quarter of fs.inotify.max_user_watches), so the masked names in "
                           "it cannot be kept hidden; run in a smaller folder");
      if (!budget_reported_)
        base::log::warning("masks for names created later: the project has more than " +
                           std::to_string(budget_) +
                           " directories; names created later in the others are not hidden");
      budget_reported_ = true;
      return;
    }
    base::UniqueFd fd;
    for (int attempt = 0; attempt < 8 && !fd.valid(); ++attempt) {
      fd.reset(base::raw::openat2(project_.get(), cur.empty() ? "." : cur.c_str(), how));
      if (!fd.valid() && errno != EAGAIN) break;  // EAGAIN: a rename raced the lookup
    }
    if (!fd.valid()) {
      const int err = errno;
      // Gone, replaced by a file or a link, or moved on: where it went is an event or a read.
      if (err == ENOENT || err == ENOTDIR || err == ELOOP || err == EXDEV) continue;
      // One the caller cannot list may hold a secret the sandbox reaches after a chmod of its
      // own: covered whole, as the start's masks do.
      struct stat st {};
      if (err == EACCES && !cur.empty() && stat_beneath(cur, st) && S_ISDIR(st.st_mode)) {
        cover({cur, true, st.st_dev});
        continue;
      }
      return fail_closed("cannot open " + shown + ": " + std::strerror(err));
    }
    const std::string via = "/proc/self/fd/" + std::to_string(fd.get());
    int wd = ::inotify_add_watch(inotify_.get(), via.c_str(), kEvents);
    if (wd < 0 && errno == ENOSPC && started_) {
      // The user's inotify watches ran out after the start: as past the budget.
      if (!budget_reported_)
        base::log::warning("masks for names created later: cannot watch " + shown + ": " +
                           std::strerror(errno) + "; names created later in it are not hidden");
      budget_reported_ = true;
      return;
    }
    if (wd < 0) return fail_closed("cannot watch " + shown + ": " + std::strerror(errno));
    dirs_[wd] = cur;
    struct stat dir_st {};
    if (::fstat(fd.get(), &dir_st) != 0)
      return fail_closed("cannot stat " + shown + ": " + std::strerror(errno));
    DIR* d = ::fdopendir(fd.get());
    if (!d) return fail_closed("cannot read " + shown + ": " + std::strerror(errno));
    (void)fd.release();  // the DIR holds it now
    std::vector<Found> entries;
    errno = 0;
    while (dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      if (e->d_type == DT_LNK) continue;  // a link is not covered, nor followed
      struct stat st {};
      bool have_st = false;
      bool is_dir = e->d_type == DT_DIR;
      if (e->d_type == DT_UNKNOWN) {
        have_st = ::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0;
        if (have_st && S_ISLNK(st.st_mode)) continue;
        is_dir = have_st && S_ISDIR(st.st_mode);
      }
      std::string child = join_rel(cur, e->d_name);
      const Naming named = naming(child, is_dir, cur_clear);
      if (named.covered()) {
        // The object's filesystem: a name on a mount of the project's own has its device.
        if (!have_st) have_st = ::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0;
        if (!(have_st && exempt(child, st)))
          entries.push_back({child, is_dir, have_st ? st.st_dev : dir_st.st_dev});
      } else if (is_dir) {
        todo.emplace_back(std::move(child), cur_clear && !named.excepted);
      }
      errno = 0;
    }
    const int read_err = errno;
    ::closedir(d);
    if (read_err != 0) return fail_closed("cannot read " + shown + ": " + std::strerror(read_err));
    for (const auto& f : entries) cover(f);
  }
}

// Reads the queued events and handles them; with `wait`, blocks until there are some (or the
// watch is stopped). False when it is stopped or the queue cannot be read.
bool MaskWatch::handle_events(bool wait) {
  alignas(inotify_event) char buf[16384];
  if (wait) {
    pollfd fds[2] = {{inotify_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) return errno == EINTR;
    if (fds[1].revents) return false;
  }
  ssize_t n = ::read(inotify_.get(), buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  for (ssize_t off = 0; off < n && !breached_;) {
    const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
    off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
    if (ev->mask & IN_Q_OVERFLOW) {
      // Some arrivals went unseen: list the whole project again and cover what matches.
      base::log::debug("masks for names created later: inotify queue overflow; listing the project again");
      watch_tree("");
      continue;
    }
    if (ev->mask & IN_IGNORED) {
      dirs_.erase(ev->wd);
      continue;
    }
    auto it = dirs_.find(ev->wd);
    if (it == dirs_.end() || ev->len == 0) continue;
    std::string rel = join_rel(it->second, ev->name);
    bool is_dir = (ev->mask & IN_ISDIR) != 0;
    const Naming named = naming(rel, is_dir, false);
    if (named.covered()) {
      struct stat st {};
      if (stat_beneath(rel, st) && !S_ISLNK(st.st_mode) && S_ISDIR(st.st_mode) == is_dir && !exempt(rel, st))
        cover({rel, is_dir, st.st_dev});  // else gone or replaced again: that is an event too
    } else if (is_dir) {
      watch_tree(rel, !named.excepted);
    }
  }
  return true;
}

void MaskWatch::run() {
  // The first walk, while the child sets up its root: watches, and the names found kept.
  watch_tree("");
  pollfd fds[2] = {{root_ready_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
  while (::poll(fds, 2, -1) < 0)
    if (errno != EINTR) return fail_closed(std::string("waiting for the root: ") + std::strerror(errno));
  if (fds[1].revents) return;
  // The root is complete: what the walk found is covered, then what moved since, until the
  // queue is empty; a writer that keeps it from emptying for kSettleSeconds fails the start.
  covering_ = true;
  for (const auto& f : std::exchange(pending_, {})) cover(f);
  constexpr int kSettleSeconds = 5;
  timespec t0{}, now{};
  ::clock_gettime(CLOCK_MONOTONIC, &t0);
  while (!breached_) {
    int queued = 0;
    if (::ioctl(inotify_.get(), FIONREAD, &queued) != 0)
      fail_closed(std::string("reading the watch's queue: ") + std::strerror(errno));
    else if (queued == 0)
      break;
    else if (!handle_events(false))
      fail_closed(std::string("reading the watch's queue: ") + std::strerror(errno));
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - t0.tv_sec > kSettleSeconds)
      fail_closed("the project kept changing for " + std::to_string(kSettleSeconds) +
                  " s, so its masked names could not all be covered before the start");
  }
  started_ = true;
  std::uint64_t one = 1;
  (void)!::write(walked_.get(), &one, sizeof one);
  while (!breached_ && handle_events(true)) {}
}

void MaskWatch::cover(const Found& f) {
  if (breached_) return;
  if (!covering_) {
    pending_.push_back(f);
    return;
  }
  if (f.rel.size() >= sizeof(Request::rel))
    return fail_closed("cannot hide a name longer than 4096 bytes under the project");
  if (covers_ >= kMaxCovers)
    return fail_closed("more than " + std::to_string(kMaxCovers) + " names to hide (the last: " + f.rel +
                       ")");
  if (!ensure_helper()) return fail_closed("cannot hide " + f.rel + ": the helper cannot enter the sandbox");
  Request req;
  req.kind = f.is_dir ? 'd' : 'f';
  req.dev = f.dev;
  std::memcpy(req.rel, f.rel.c_str(), f.rel.size() + 1);
  Answer answer{EIO, 0};
  if (!ask_helper(&req, offsetof(Request, rel) + f.rel.size() + 1, answer)) {
    helper_failed_ = true;
    return fail_closed("cannot hide " + f.rel + ": the helper is gone");
  }
  if (answer.err != 0) return fail_closed("cannot hide " + f.rel + ": " + std::strerror(answer.err));
  covers_ += static_cast<std::size_t>(answer.mounts);
  if (answer.mounts > 0) base::log::debug("masks for names created later: hid " + f.rel);
}

// A name the masks cover could stay readable: the sandbox ends now, and the reason is kept
// for the launcher to report (once; nothing else is tried afterwards).
void MaskWatch::fail_closed(const std::string& why) {
  if (breached_) return;
  breach_ = started_ ? "masks for names created later: " + why + "; the sandbox was stopped"
                     : "masks: " + why + "; the sandbox was not started";
  breached_ = true;
  if (sandbox_ > 0) ::kill(sandbox_, SIGKILL);
  if (!started_) {
    std::uint64_t one = 1;
    (void)!::write(walked_.get(), &one, sizeof one);
  }
}

std::string MaskWatch::breach() const { return breached_ ? breach_ : std::string(); }

// Forked here, from the launcher's only thread (the watch thread starts after it, the
// supervisor's once the command runs): a fork from a threaded process could inherit a lock
// another thread held (malloc's, the logger's). It waits for requests; it enters the sandbox
// at the first cover.
base::Status MaskWatch::fork_helper() {
  struct stat host_root {};
  if (::stat("/", &host_root) != 0) return base::errno_error("stat /");
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return base::errno_error("socketpair");
  base::UniqueFd mine(sv[0]), theirs(sv[1]);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return base::errno_error("fork");
  if (pid == 0)
    helper_main(masks_, parent, theirs.get(), userns_.get(), mntns_.get(), host_root.st_dev,
                host_root.st_ino);
  helper_ = pid;
  helper_sock_ = std::move(mine);
  userns_.reset();  // the helper holds its own copies
  mntns_.reset();
  return {};
}

// Sends one request and reads its answer into `answer`; false when the helper is gone.
bool MaskWatch::ask_helper(const void* request, std::size_t size, MaskAnswer& answer) {
  return ::send(helper_sock_.get(), request, size, MSG_NOSIGNAL) == static_cast<ssize_t>(size) &&
         ::recv(helper_sock_.get(), &answer, sizeof answer, 0) == static_cast<ssize_t>(sizeof answer);
}

// The helper enters the sandbox's namespaces once its root has moved (setns puts the caller at
// the namespace's root, which is the sandbox's only after pivot_root).
bool MaskWatch::ensure_helper() {
  if (helper_entered_) return true;
  if (helper_failed_ || !helper_sock_.valid()) return false;
  for (int attempt = 0; attempt < 500; ++attempt) {  // ~10 s for the sandbox to reach its root
    Request req;
    req.kind = 'e';
    Answer a{EIO, 0};
    if (!ask_helper(&req, offsetof(Request, rel), a)) a.err = EIO;
    const int status = a.err;
    if (status == 0) return helper_entered_ = true;
    if (status != EAGAIN) {
      base::log::warning(
          std::string("masks for names created later: cannot enter the sandbox's namespaces: ") +
          std::strerror(status));
      break;
    }
    timespec ts{0, 20 * 1000 * 1000};
    ::nanosleep(&ts, nullptr);
  }
  helper_failed_ = true;
  stop_helper();
  return false;
}

void MaskWatch::stop_helper() {
  helper_sock_.reset();
  if (helper_ > 0) {
    ::kill(helper_, SIGKILL);
    (void)base::raw::wait_pid(helper_, nullptr);
    helper_ = -1;
  }
}

}  // namespace rf::engine
