// SPDX-License-Identifier: LGPL-2.1-or-later
// The namespace trial, run in a throwaway child: the kernel jail's own steps in the engine's
// order (user namespace, setgroups, maps, mount namespace, tmpfs, other namespaces, /proc in a
// PID namespace, pivot_root), plus mount_setattr and overlayfs. A step that later ones need
// stops the trial when it fails; the optional ones are reported and the trial goes on.
#include <fcntl.h>
#include <linux/magic.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "observations.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::probe {
namespace {

using base::UniqueFd;

// Writes text to an existing file; returns 0 or -1 with errno (as a system call would).
int write_text(const std::string& path, const std::string& text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return -1;
  auto w = base::write_all(fd.get(), text);
  if (!w) {
    errno = w.error().code();
    return -1;
  }
  return 0;
}

// The LSM label right after unshare: Ubuntu's restriction moves the process into the
// "unprivileged_userns" AppArmor profile, which is the clearest sign of it.
void report_label(StepWriter& w) {
  for (const char* path : {"/proc/self/attr/apparmor/current", "/proc/self/attr/current"}) {
    auto text = base::read_file(path);
    if (!text) continue;
    std::string label = *text;
    while (!label.empty() && (label.back() == '\n' || label.back() == '\0')) label.pop_back();
    w.ok("label", label);
    return;
  }
}

// Our own ids map to themselves, as the engine maps them (read before unshare: inside an
// unmapped namespace they read as the overflow id).
bool write_maps(StepWriter& w, uid_t outer_uid, gid_t outer_gid) {
  const std::string uid = std::to_string(outer_uid), gid = std::to_string(outer_gid);
  w.begin("setgroups");
  if (write_text("/proc/self/setgroups", "deny\n") == 0) {
    w.ok("setgroups", "deny");
  } else if (errno == ENOENT) {
    w.ok("setgroups", "absent (kernel before 3.19)");
  } else {
    w.fail("setgroups", errno);
    return false;
  }
  w.begin("uid_map");
  if (!w.result("uid_map", write_text("/proc/self/uid_map", uid + " " + uid + " 1\n"),
                uid + " " + uid + " 1"))
    return false;
  w.begin("gid_map");
  return w.result("gid_map", write_text("/proc/self/gid_map", gid + " " + gid + " 1\n"),
                  gid + " " + gid + " 1");
}

// The scratch tmpfs goes on a directory every host has (hidden again by the pivot).
std::string scratch_base() {
  for (const char* dir : {"/tmp", "/var/tmp", "/mnt", "/run"}) {
    struct stat st {};
    if (::stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return dir;
  }
  return "/";
}

void network_steps(StepWriter& w) {
  w.begin("netns");
  if (!w.result("netns", ::unshare(CLONE_NEWNET))) return;
  w.begin("lo_up");
  UniqueFd s(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (!s.valid() || ::ioctl(s.get(), SIOCGIFFLAGS, &ifr) != 0)
    return (void)w.fail("lo_up", errno, "SIOCGIFFLAGS");
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
  if (::ioctl(s.get(), SIOCSIFFLAGS, &ifr) != 0) return (void)w.fail("lo_up", errno, "SIOCSIFFLAGS");
  w.ok("lo_up");
  // One datagram to ourselves on 127.0.0.1, inside the new namespace: nothing leaves it.
  w.begin("lo_echo");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  char out[] = "ringfence-probe", in[32] = {};
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(s.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
      ::sendto(s.get(), out, sizeof out, 0, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0)
    return (void)w.fail("lo_echo", errno);
  pollfd p{s.get(), POLLIN, 0};
  if (::poll(&p, 1, 1000) != 1 || ::recv(s.get(), in, sizeof in, 0) != static_cast<ssize_t>(sizeof out))
    return (void)w.fail("lo_echo", 0, "the datagram sent to 127.0.0.1 did not come back");
  w.ok("lo_echo", "127.0.0.1 answers");
}

void mount_setattr_step(StepWriter& w, const std::string& base) {
  const std::string dir = base + "/setattr";
  w.begin("mount_setattr");
  if (::mkdir(dir.c_str(), 0755) != 0 || ::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) != 0)
    return (void)w.fail("mount_setattr", errno, "bind mount for the test");
  mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_RDONLY;
  if (base::raw::mount_setattr(AT_FDCWD, dir.c_str(), 0, &attr, sizeof attr) != 0)
    return (void)w.fail("mount_setattr", errno);
  if (::mkdir((dir + "/x").c_str(), 0755) == 0 || errno != EROFS)
    return (void)w.fail("mount_setattr", 0, "MOUNT_ATTR_RDONLY was accepted but the mount stayed writable");
  w.ok("mount_setattr", "MOUNT_ATTR_RDONLY applied");
}

// As --tmp-overlay: upper and work dirs on the scratch tmpfs, userxattr.
void overlay_step(StepWriter& w, const std::string& base) {
  const std::string d = base + "/ovl";
  w.begin("overlay");
  for (const char* sub : {"", "/lower", "/upper", "/work", "/merged"})
    if (::mkdir((d + sub).c_str(), 0755) != 0) return (void)w.fail("overlay", errno, "mkdir " + d + sub);
  const std::string opts =
      "lowerdir=" + d + "/lower,upperdir=" + d + "/upper,workdir=" + d + "/work,userxattr";
  if (::mount("overlay", (d + "/merged").c_str(), "overlay", MS_NOSUID | MS_NODEV, opts.c_str()) != 0)
    return (void)w.fail("overlay", errno, "mount -t overlay -o " + opts);
  UniqueFd f(::open((d + "/merged/probe").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
  if (!f.valid()) return (void)w.fail("overlay", errno, "write through the overlay");
  struct stat st {};
  if (::stat((d + "/upper/probe").c_str(), &st) != 0)
    return (void)w.fail("overlay", 0, "a file written through the overlay is not in its upper dir");
  w.ok("overlay", "lower, upper and work on tmpfs, userxattr");
}

// --shell off's loader guard: a binfmt_misc instance of the user namespace's own (Linux 6.7),
// made and dropped again without being attached anywhere.
void binfmt_misc_step(StepWriter& w) {
  w.begin("binfmt_misc");
  UniqueFd fs(base::raw::fsopen("binfmt_misc", FSOPEN_CLOEXEC));
  if (!fs.valid()) return (void)w.fail("binfmt_misc", errno, "fsopen binfmt_misc");
  if (base::raw::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
    return (void)w.fail("binfmt_misc", errno, "fsconfig create");
  UniqueFd mnt(base::raw::fsmount(fs.get(), FSMOUNT_CLOEXEC, 0));
  if (!mnt.valid()) return (void)w.fail("binfmt_misc", errno, "fsmount");
  struct stat st {};
  if (::fstatat(mnt.get(), "register", &st, 0) != 0)
    return (void)w.fail("binfmt_misc", errno, "the instance has no register file");
  w.ok("binfmt_misc", "an instance of the user namespace's own");
}

// /proc can only be mounted by a process inside the new PID namespace: its first child.
void pid_proc_steps(StepWriter& w, const std::string& base) {
  w.begin("pidns");
  if (!w.result("pidns", ::unshare(CLONE_NEWPID))) return;
  const std::string dir = base + "/proc";
  ::mkdir(dir.c_str(), 0755);
  w.begin("proc");
  pid_t pid = ::fork();
  if (pid < 0) return (void)w.fail("proc", errno, "fork into the PID namespace");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (::getpid() != 1) {
      w.fail("proc", 0, "the first process of the new PID namespace is not pid 1");
      ::_exit(0);
    }
    if (::mount("proc", dir.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      w.fail("proc", errno, "mount -t proc");
      ::_exit(0);
    }
    struct stat st {};
    if (::stat((dir + "/1/status").c_str(), &st) != 0)
      w.fail("proc", errno, "the new /proc has no /proc/1");
    else
      w.ok("proc", "pid 1 is the probe");
    ::_exit(0);
  }
  int status = 0;
  (void)base::raw::wait_pid(pid, &status);
}

void pivot_step(StepWriter& w, const std::string& base) {
  w.begin("pivot_root");
  if (::chdir(base.c_str()) != 0) return (void)w.fail("pivot_root", errno, "chdir " + base);
  if (base::raw::pivot_root(".", ".") != 0) return (void)w.fail("pivot_root", errno);
  if (::umount2(".", MNT_DETACH) != 0) return (void)w.fail("pivot_root", errno, "detaching the old root");
  struct statfs sf {};
  if (::chdir("/") != 0 || ::statfs("/", &sf) != 0 || sf.f_type != TMPFS_MAGIC)
    return (void)w.fail("pivot_root", 0, "/ is not the new tmpfs after pivot_root");
  w.ok("pivot_root", "old root detached");
}

}  // namespace

void namespaces_trial(StepWriter& w) {
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  w.begin("userns");
  if (!w.result("userns", ::unshare(CLONE_NEWUSER))) return;
  report_label(w);
  if (!write_maps(w, uid, gid)) return;
  w.begin("mountns");
  if (!w.result("mountns", ::unshare(CLONE_NEWNS))) return;
  w.begin("private");
  if (!w.result("private", ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr))) return;
  const std::string base = scratch_base();
  w.begin("tmpfs");
  if (!w.result("tmpfs", ::mount("tmpfs", base.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=4m"),
                "on " + base))
    return;
  w.begin("ipc_uts");
  if (::unshare(CLONE_NEWIPC | CLONE_NEWUTS) != 0)
    w.fail("ipc_uts", errno, "unshare(CLONE_NEWIPC | CLONE_NEWUTS)");
  else
    w.result("ipc_uts", ::sethostname("ringfence-probe", 15), "hostname set");
  network_steps(w);
  mount_setattr_step(w, base);
  overlay_step(w, base);
  binfmt_misc_step(w);
  pid_proc_steps(w, base);
  pivot_step(w, base);
}

}  // namespace rf::probe
