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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <vector>

#include "ringfence/base/kernel.hpp"
#include "ringfence/base/log.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::engine {
namespace {

constexpr std::uint32_t kEvents = IN_CREATE | IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK;

std::string join_rel(const std::string& dir, const char* name) {
  return dir.empty() ? name : dir + "/" + name;
}

// ---- the helper, inside the sandbox's user and mount namespaces --------------------------------

// One request: a kind byte ('d' a directory, 'f' a file, then the relative path; 'e' to enter
// the sandbox's namespaces); one answer: an errno (0 = done or nothing to do).
// The helper is forked before the launcher starts any thread, and keeps to async-signal-safe
// calls all the same (no allocation: `rel` is a NUL-terminated buffer of the caller's).
int cover_in_sandbox(const spec::LateMasks& masks, const char* rel, bool is_dir) {
  int first_error = 0;
  for (const auto& top : masks.sandbox_dirs) {
    base::UniqueFd dir(::open(top.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) continue;
    // Mount points are crossed: the only mounts below the project are ringfence's own (.git's
    // protection, --bind destinations, covers), and a name made in one is hidden like any other.
    const auto how = base::OpenHow()
                         .flags(O_PATH | O_CLOEXEC | O_NOFOLLOW)
                         .resolve(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
    base::UniqueFd target(base::raw::openat2(dir.get(), rel, how));
    if (!target.valid()) {
      if (errno != ENOENT && first_error == 0) first_error = errno;  // gone again: nothing to hide
      continue;
    }
    struct stat st {};
    if (::fstat(target.get(), &st) != 0 || S_ISDIR(st.st_mode) != is_dir) continue;
    base::UniqueFd source;
    if (is_dir) {
      base::UniqueFd fs(base::raw::fsopen("tmpfs", FSOPEN_CLOEXEC));
      if (!fs.valid() || base::raw::fsconfig(fs.get(), FSCONFIG_SET_STRING, "size", "4k", 0) != 0 ||
          base::raw::fsconfig(fs.get(), FSCONFIG_SET_STRING, "mode", "0555", 0) != 0 ||
          base::raw::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0) {
        if (first_error == 0) first_error = errno;
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
      if (first_error == 0) first_error = errno;
    }
  }
  return first_error;
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
  char buf[4098];
  while (true) {
    ssize_t n = ::recv(sock, buf, sizeof buf - 1, 0);
    if (n <= 0) _exit(0);
    buf[n] = '\0';
    int answer = EINVAL;
    if (buf[0] == 'e' && !entered) {
      answer = enter_sandbox(userns, mntns, in_userns, host_dev, host_ino);
      entered = answer == 0;
      if (entered) {
        ::close(userns);
        ::close(mntns);
      }
    } else if (entered && n >= 2 && (buf[0] == 'd' || buf[0] == 'f')) {
      answer = cover_in_sandbox(masks, buf + 1, buf[0] == 'd');
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
  w->sandbox_ = sandbox;
  w->userns_ = std::move(userns);
  w->mntns_ = std::move(mntns);
  for (const auto& m : masks.already) w->covered_.insert(m);
  // inotify watches count against the user's fs.inotify.max_user_watches, which editors and
  // file watchers need too: at most a quarter of it.
  if (auto t = base::read_file("/proc/sys/fs/inotify/max_user_watches")) {
    std::size_t limit = std::strtoull(t->c_str(), nullptr, 10);
    if (limit > 0) w->budget_ = std::min(kMaxWatched, limit / 4);
  }
  w->inotify_.reset(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  if (!w->inotify_.valid()) return base::errno_error("inotify_init1");
  w->stop_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!w->stop_.valid()) return base::errno_error("eventfd");
  RF_TRY(w->fork_helper());
  MaskWatch* self = w.get();
  w->thread_ = std::thread([self] { self->run(); });
  return w;
}

MaskWatch::~MaskWatch() {
  if (stop_.valid()) {
    std::uint64_t one = 1;
    (void)!::write(stop_.get(), &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
  stop_helper();
}

bool MaskWatch::covered_by_pattern(const std::string& rel, bool is_dir) const {
  for (const auto& p : masks_.patterns)
    if (base::pattern_applies(p, rel, is_dir)) return true;
  return false;
}

// Watches `rel` and the directories under it (breadth first, within the budget). A covered
// directory is not entered: its content is hidden with it. With list_matches (a directory that
// arrived after the start), names already in it that a mask covers are covered now.
void MaskWatch::watch_tree(const std::string& rel, bool list_matches) {
  std::deque<std::string> todo{rel};
  while (!todo.empty()) {
    std::string cur = std::move(todo.front());
    todo.pop_front();
    if (dirs_.size() >= budget_) {
      if (!budget_reported_)
        base::log::warning("masks for names created later: the project has more than " +
                           std::to_string(budget_) +
                           " directories; names created later in the others are not hidden");
      budget_reported_ = true;
      return;
    }
    std::string path = cur.empty() ? masks_.host_dir : masks_.host_dir + "/" + cur;
    int wd = ::inotify_add_watch(inotify_.get(), path.c_str(), kEvents);
    if (wd < 0) continue;  // gone, or not a directory any more
    dirs_[wd] = cur;
    DIR* d = ::opendir(path.c_str());
    if (!d) continue;
    std::vector<std::pair<std::string, bool>> entries;
    while (dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      bool is_dir = e->d_type == DT_DIR;
      if (e->d_type == DT_UNKNOWN) {
        struct stat st {};
        is_dir = ::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
      }
      entries.emplace_back(join_rel(cur, e->d_name), is_dir);
    }
    ::closedir(d);
    for (const auto& [child, is_dir] : entries) {
      if (covered_by_pattern(child, is_dir)) {
        if (list_matches) cover(child, is_dir);
        continue;
      }
      if (is_dir) todo.push_back(child);
    }
  }
}

void MaskWatch::run() {
  watch_tree("", false);
  alignas(inotify_event) char buf[16384];
  while (true) {
    pollfd fds[2] = {{inotify_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    ssize_t n = ::read(inotify_.get(), buf, sizeof buf);
    if (n <= 0) continue;
    for (ssize_t off = 0; off < n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      if (ev->mask & IN_Q_OVERFLOW) {
        // Some creations went unseen: list the whole project again and cover what matches.
        base::log::debug("masks for names created later: inotify queue overflow; listing the project again");
        watch_tree("", true);
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
      if (covered_by_pattern(rel, is_dir)) {
        cover(rel, is_dir);
      } else if (is_dir) {
        watch_tree(rel, true);
      }
    }
  }
}

void MaskWatch::cover(const std::string& rel, bool is_dir) {
  if (breached_ || covered_.count(rel)) return;
  if (rel.size() > 4000) return fail_closed("cannot hide a name longer than 4000 bytes under the project");
  if (covers_ >= kMaxCovers)
    return fail_closed("more than " + std::to_string(kMaxCovers) + " names to hide (the last: " + rel + ")");
  if (!ensure_helper()) return fail_closed("cannot hide " + rel + ": the helper cannot enter the sandbox");
  int answer = EIO;
  if (!ask_helper(std::string(1, is_dir ? 'd' : 'f') + rel, answer)) {
    helper_failed_ = true;
    return fail_closed("cannot hide " + rel + ": the helper is gone");
  }
  if (answer != 0) return fail_closed("cannot hide " + rel + ": " + std::strerror(answer));
  covered_.insert(rel);
  ++covers_;
  base::log::debug("masks for names created later: hid " + rel);
}

// A name the masks cover could stay readable: the sandbox ends now, and the reason is kept
// for the launcher to report (once; nothing else is tried afterwards).
void MaskWatch::fail_closed(const std::string& why) {
  if (breached_) return;
  breach_ = "masks for names created later: " + why + "; the sandbox was stopped";
  breached_ = true;
  if (sandbox_ > 0) ::kill(sandbox_, SIGKILL);
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
bool MaskWatch::ask_helper(const std::string& request, int& answer) {
  return ::send(helper_sock_.get(), request.data(), request.size(), MSG_NOSIGNAL) ==
             static_cast<ssize_t>(request.size()) &&
         ::recv(helper_sock_.get(), &answer, sizeof answer, 0) == static_cast<ssize_t>(sizeof answer);
}

// The helper enters the sandbox's namespaces once its root has moved (setns puts the caller at
// the namespace's root, which is the sandbox's only after pivot_root).
bool MaskWatch::ensure_helper() {
  if (helper_entered_) return true;
  if (helper_failed_ || !helper_sock_.valid()) return false;
  for (int attempt = 0; attempt < 500; ++attempt) {  // ~10 s for the sandbox to reach its root
    int status = EIO;
    if (!ask_helper("e", status)) status = EIO;
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
