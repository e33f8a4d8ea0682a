// SPDX-License-Identifier: LGPL-2.1-or-later
// The trials that need no namespace, each run in its own throwaway child: seccomp (a filter
// and a user-notification round trip), pidfd_getfd, Landlock (a real restrict_self, then
// checked), and a delegated cgroup v2 (a child group made, limited, used and removed).
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>

#include "observations.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/mountinfo.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::probe {
namespace {

using base::UniqueFd;

constexpr unsigned kMagic = 0x52465052;  // the argument that marks the probe's own getppid
constexpr long kAnswer = 4242;           // what the listener answers it

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#else
constexpr unsigned kArch = 0;  // no architecture check: the filter only ever returns ALLOW or NOTIF
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned kArg0Low = offsetof(seccomp_data, args[0]);
#else
constexpr unsigned kArg0Low = offsetof(seccomp_data, args[0]) + 4;
#endif

// The trials run in throwaway children: the child-safe calls, which leave errno set.
int seccomp(unsigned op, unsigned flags, sock_fprog* prog) { return base::raw::seccomp(op, flags, prog); }

void reap(pid_t pid, int* status = nullptr) {
  int st = 0;
  (void)base::raw::wait_pid(pid, &st);
  if (status) *status = st;
}

// A child that sleeps until the returned pipe end is closed, and dies with us.
pid_t sleeper(UniqueFd& release) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    ::close(p[1]);
    char b;
    (void)base::raw::read(p[0], &b, 1);
    ::_exit(0);
  }
  ::close(p[0]);
  release.reset(p[1]);
  return pid;
}

// getppid(kMagic) goes to the listener; everything else is allowed.
void notify_round_trip(StepWriter& w) {
  sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 0, kArch ? 5 : 0),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArg0Low),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kMagic, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof f / sizeof f[0]), f};
  w.begin("listener");
  UniqueFd listener(seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog));
  if (!listener.valid()) return (void)w.fail("listener", errno, "SECCOMP_FILTER_FLAG_NEW_LISTENER");
  w.ok("listener");
  w.begin("notify");
  pid_t pid = ::fork();
  if (pid < 0) return (void)w.fail("notify", errno, "fork");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    ::_exit(base::raw::getppid_marked(kMagic) == kAnswer ? 0 : 1);
  }
  pollfd p{listener.get(), POLLIN, 0};
  seccomp_notif req{};
  if (::poll(&p, 1, 2000) != 1) {
    ::kill(pid, SIGKILL);
    reap(pid);
    return (void)w.fail("notify", 0, "no notification arrived within 2 s");
  }
  if (::ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
    int err = errno;
    ::kill(pid, SIGKILL);
    reap(pid);
    return (void)w.fail("notify", err, "SECCOMP_IOCTL_NOTIF_RECV");
  }
  seccomp_notif_resp resp{};
  resp.id = req.id;
  resp.val = kAnswer;
  int send = ::ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_SEND, &resp);
  int err = errno;
  int status = 0;
  reap(pid, &status);
  if (send != 0) return (void)w.fail("notify", err, "SECCOMP_IOCTL_NOTIF_SEND");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return (void)w.fail("notify", 0, "the notified call did not return the listener's answer");
  w.ok("notify", "a call was stopped, read and answered by the listener");
}

// The cgroup v2 directory of this process: its /proc/self/cgroup path under a cgroup2 mount.
std::string own_cgroup_dir(std::string& why) {
  auto self = base::read_file("/proc/self/cgroup");
  std::string path;
  if (self)
    for (const auto& line : base::split(*self, '\n'))
      if (line.rfind("0::", 0) == 0) path = line.substr(3);
  if (path.empty()) {
    why = "no cgroup v2 entry in /proc/self/cgroup (cgroup v1 only)";
    return {};
  }
  auto text = base::read_file("/proc/self/mountinfo");
  if (text) {
    auto mounts = base::parse_mountinfo(*text);
    for (const auto& m : mounts ? *mounts : std::vector<base::MountEntry>{}) {
      if (m.fs_type != "cgroup2") continue;
      std::string root = m.root == "/" ? "" : m.root;
      if (path.compare(0, root.size(), root) != 0) continue;
      std::string dir = m.mount_point + path.substr(root.size());
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      return dir;
    }
  }
  why = "no cgroup2 mount holds " + path;
  return {};
}

int write_text(const std::string& path, const std::string& text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return -1;
  auto w = base::write_all(fd.get(), text);
  if (!w) errno = w.error().code();
  return w ? 0 : -1;
}

std::string first_line(const std::string& path) {
  auto t = base::read_file(path);
  if (!t) return "?";
  std::string s = t->substr(0, t->find('\n'));
  return s.empty() ? "(none)" : s;
}

}  // namespace

void seccomp_trial(StepWriter& w) {
  w.begin("no_new_privs");
  if (!w.result("no_new_privs", ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))) return;
  sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
  sock_fprog prog{1, allow};
  w.begin("filter");
  if (seccomp(SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) return (void)w.fail("filter", errno);
  if (::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2)
    return (void)w.fail("filter", 0, "loaded, but not in filter mode");
  w.ok("filter", "allow-all filter loaded");
  notify_round_trip(w);
}

void pidfd_trial(StepWriter& w) {
  UniqueFd release;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return (void)w.fail("pidfd_open", errno, "pipe2");
  UniqueFd target(p[0]), other(p[1]);
  pid_t pid = sleeper(release);  // holds a copy of p[0] (inherited) as long as it lives
  if (pid < 0) return (void)w.fail("pidfd_open", errno, "fork");
  w.begin("pidfd_open");
  UniqueFd pidfd(base::raw::pidfd_open(pid, 0));
  if (!pidfd.valid()) {
    w.fail("pidfd_open", errno);
  } else {
    w.ok("pidfd_open");
    w.begin("pidfd_getfd");
    UniqueFd copy(base::raw::pidfd_getfd(pidfd.get(), target.get(), 0));
    struct stat a {
    }, b{};
    if (!copy.valid())
      w.fail("pidfd_getfd", errno);
    else if (::fstat(copy.get(), &a) != 0 || ::fstat(target.get(), &b) != 0 || a.st_ino != b.st_ino)
      w.fail("pidfd_getfd", 0, "the fd taken from the other process is not the one it holds");
    else
      w.ok("pidfd_getfd", "took a pipe fd from another process");
  }
  release.reset();
  reap(pid);
}

void landlock_trial(StepWriter& w) {
  w.begin("abi");
  const int abi = base::raw::landlock_abi();
  if (abi < 0) return (void)w.fail("abi", errno);
  w.ok("abi", std::to_string(abi));
  // Listing directories is handled, and allowed beneath one system directory only.
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = LANDLOCK_ACCESS_FS_READ_DIR;
  w.begin("ruleset");
  UniqueFd ruleset(base::raw::landlock_create_ruleset(&attr, sizeof attr, 0));
  if (!ruleset.valid()) return (void)w.fail("ruleset", errno, "landlock_create_ruleset");
  std::string allowed;
  UniqueFd dir;
  for (const char* d : {"/usr", "/etc", "/bin"}) {
    dir.reset(::open(d, O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (dir.valid()) {
      allowed = d;
      break;
    }
  }
  if (!dir.valid()) return (void)w.fail("ruleset", errno, "no /usr, /etc or /bin to write a rule for");
  landlock_path_beneath_attr rule{};
  rule.allowed_access = LANDLOCK_ACCESS_FS_READ_DIR;
  rule.parent_fd = dir.get();
  if (base::raw::landlock_add_rule(ruleset.get(), LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
    return (void)w.fail("ruleset", errno, "landlock_add_rule " + allowed);
  w.ok("ruleset", "one rule: " + allowed);
  w.begin("restrict_self");
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return (void)w.fail("restrict_self", errno, "no_new_privs");
  if (base::raw::landlock_restrict_self(ruleset.get(), 0) != 0) return (void)w.fail("restrict_self", errno);
  w.ok("restrict_self");
  w.begin("enforced");
  UniqueFd root(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.valid()) return (void)w.fail("enforced", 0, "listing / is still allowed after restrict_self");
  if (errno != EACCES) return (void)w.fail("enforced", errno, "opening / failed, but not with EACCES");
  UniqueFd ok(::open(allowed.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!ok.valid()) return (void)w.fail("enforced", errno, "the rule for " + allowed + " was not honoured");
  w.ok("enforced", "listing / refused, " + allowed + " allowed by its rule");
}

void cgroup_trial(StepWriter& w) {
  w.begin("locate");
  std::string why;
  const std::string dir = own_cgroup_dir(why);
  if (dir.empty()) return (void)w.fail("locate", 0, why);
  w.ok("locate", dir);
  w.ok("controllers", "available: " + first_line(dir + "/cgroup.controllers") +
                          "; enabled for child groups: " + first_line(dir + "/cgroup.subtree_control"));
  const std::string group = dir + "/ringfence-probe-" + std::to_string(::getpid());
  w.begin("mkdir");
  if (!w.result("mkdir", ::mkdir(group.c_str(), 0755), group)) return;
  UniqueFd release;
  pid_t pid = sleeper(release);
  w.begin("attach");
  if (pid < 0)
    w.fail("attach", errno, "fork");
  else
    w.result("attach", write_text(group + "/cgroup.procs", std::to_string(pid)), "moved a process into it");
  w.begin("memory.max");
  if (write_text(group + "/memory.max", "1073741824") == 0)
    w.ok("memory.max", "1 GiB set");
  else
    w.fail("memory.max", errno);
  w.begin("pids.max");
  if (write_text(group + "/pids.max", "64") == 0)
    w.ok("pids.max", "64 set");
  else
    w.fail("pids.max", errno);
  release.reset();
  if (pid > 0) reap(pid);
  w.begin("rmdir");
  int rc = -1;
  for (int i = 0; i < 50 && (rc = ::rmdir(group.c_str())) != 0 && errno == EBUSY; ++i) ::usleep(2000);
  w.result("rmdir", rc, group);
}

}  // namespace rf::probe
