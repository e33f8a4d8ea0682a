// SPDX-License-Identifier: LGPL-2.1-or-later
// What most likely blocked a step, and the fix, for the hosts that commonly refuse: Ubuntu's
// AppArmor restriction, Debian's unprivileged_userns_clone, user.max_user_namespaces = 0,
// Docker's default seccomp profile, a masked /proc, a kernel without Landlock.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "causes.hpp"

#ifndef RF_APPARMOR_PROFILE
#define RF_APPARMOR_PROFILE "/usr/share/ringfence/apparmor/ringfence"
#endif
#ifndef RF_SOURCE_APPARMOR_PROFILE
#define RF_SOURCE_APPARMOR_PROFILE ""
#endif

namespace rf::probe {
namespace {

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

bool denied(int err) { return err == EPERM || err == EACCES; }

std::string sysctl_persist(const std::string& setting) {
  return "sudo sysctl -w " + setting + "\n(to keep it after a reboot: echo " + setting +
         " | sudo tee /etc/sysctl.d/50-ringfence.conf)";
}

std::string seccomp_evidence(const Facts& f) {
  std::string s = "this process already runs under " + std::to_string(f.seccomp_filters) + " seccomp filter" +
                  (f.seccomp_filters == 1 ? "" : "s");
  if (f.dockerenv) s += "; /.dockerenv exists";
  if (f.containerenv) s += "; /run/.containerenv exists";
  return s;
}

Cause ubuntu_cause(const Observations& o, const Step& s) {
  const Facts& f = o.facts;
  const std::string exe = f.exe.empty() ? "/usr/bin/ringfence" : f.exe;
  const bool standard_path = exe == "/usr/bin/ringfence" || exe == "/usr/local/bin/ringfence";
  Cause c;
  c.cause =
      "Ubuntu's AppArmor restriction on unprivileged user namespaces "
      "(kernel.apparmor_restrict_unprivileged_userns = " +
      (f.apparmor_restrict_userns ? std::to_string(*f.apparmor_restrict_userns) : std::string("?")) +
      "): the namespace is created, but confined to the unprivileged_userns profile, which refuses " + s.name;
  c.fix =
      "install ringfence's AppArmor profile, which lets this binary use user namespaces:\n"
      "  sudo install -m 0644 " +
      apparmor_profile_path() +
      " /etc/apparmor.d/ringfence\n"
      "  sudo apparmor_parser -r /etc/apparmor.d/ringfence\n";
  if (!standard_path)
    c.fix += "(the profile attaches to /usr/bin/ringfence and /usr/local/bin/ringfence; this binary is " +
             exe + ": put its path on the profile line first)\n";
  c.fix +=
      "last resort, host-wide (weakens this protection for every program):\n"
      "  sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0";
  return c;
}

Cause masked_proc_cause(const Facts& f) {
  std::string list;
  for (size_t i = 0; i < f.proc_overmounts.size() && i < 4; ++i)
    list += (i ? ", " : "") + f.proc_overmounts[i];
  if (f.proc_overmounts.size() > 4) list += ", ...";
  return {
      "/proc is masked: " + std::to_string(f.proc_overmounts.size()) + " mounts cover parts of it (" + list +
          "), as container runtimes do, and the kernel refuses a new proc mount in a user namespace while "
          "any part of /proc is hidden",
      "run the container without the /proc masks: docker run --security-opt systempaths=unconfined "
      "(podman: --security-opt unmask=ALL); the sandbox then mounts its own /proc in its own PID namespace"};
}

Cause generic_refusal() {
  return {
      "refused after the user namespace was created: a security module (AppArmor, SELinux) or a kernel "
      "restriction",
      "look for a denial in the kernel log at the time of this check: journalctl -k | grep -i -e apparmor "
      "-e avc"};
}

}  // namespace

std::string apparmor_profile_path() {
  // Installed, else the source tree this binary was built from, else its place in any checkout.
  for (const char* path : {RF_APPARMOR_PROFILE, RF_SOURCE_APPARMOR_PROFILE}) {
    struct stat st {};
    if (*path && ::stat(path, &st) == 0) return path;
  }
  return "packaging/apparmor/ringfence";
}

std::string errno_text(int err) {
  if (err == 0) return {};
  const char* name = ::strerrorname_np(err);
  return std::string(name ? name : "errno " + std::to_string(err)) + " (" + std::strerror(err) + ")";
}

bool ubuntu_restriction(const Observations& o) {
  const Step* label = o.ns.find("label");
  if (label && contains(label->note, "unprivileged_userns")) return true;
  return o.facts.apparmor_restrict_userns.value_or(0) == 1 && o.facts.uid != 0;
}

Cause userns_cause(const Facts& f, int err) {
  const long max = f.max_user_namespaces.value_or(-1);
  if (err == ENOSPC || err == EUSERS) {
    if (max == 0)
      return {
          "user.max_user_namespaces = 0: user namespaces are switched off for this user namespace and below",
          sysctl_persist("user.max_user_namespaces=10000") +
              "\n(inside a container or another user namespace, the limit is set by whoever created it)"};
    return {"the user namespace limit is reached: nesting depth 32, or user.max_user_namespaces = " +
                std::to_string(max) + " namespaces already exist",
            "run ringfence less deeply nested, or raise user.max_user_namespaces"};
  }
  if (err == EPERM && f.unprivileged_userns_clone.value_or(1) == 0 && f.uid != 0)
    return {"Debian's kernel.unprivileged_userns_clone = 0: only root may create user namespaces",
            sysctl_persist("kernel.unprivileged_userns_clone=1")};
  if ((err == EPERM || err == ENOSYS) && f.seccomp_mode == 2 && max != 0)
    return {
        "a seccomp filter on this process refuses CLONE_NEWUSER, as Docker's default seccomp profile does (" +
            seccomp_evidence(f) + ")",
        "run the container with a seccomp profile that also allows unshare, clone and clone3 with "
        "CLONE_NEWUSER (start from the runtime's default profile):\n"
        "  docker run --security-opt seccomp=/path/to/profile.json ...\n"
        "mounts inside also need the runtime's AppArmor profile to allow them.\n"
        "--privileged would also work but is NOT recommended: it gives the container every capability "
        "and the host's devices, far more than ringfence needs"};
  if (!f.userns_file || err == EINVAL)
    return {"the kernel has no user namespaces (built without CONFIG_USER_NS)",
            "use a kernel built with CONFIG_USER_NS=y (every mainstream distribution kernel has it)"};
  if (err == EPERM)
    return {
        "the kernel or a security module refuses user namespaces to this process (no seccomp filter, and the "
        "sysctls allow them): a chroot, an SELinux policy (user_namespace create), or a hardened kernel",
        "look for a denial in the kernel log (journalctl -k); run ringfence outside any chroot"};
  return {"unexpected error " + errno_text(err), "report it with the output of `ringfence doctor --json`"};
}

Cause after_userns_cause(const Observations& o, const Step& s) {
  const Facts& f = o.facts;
  if (denied(s.err) && ubuntu_restriction(o)) return ubuntu_cause(o, s);
  if (s.name == "proc" && denied(s.err) && !f.proc_overmounts.empty()) return masked_proc_cause(f);
  if (denied(s.err) && (contains(f.lsm_label, "docker") || contains(f.lsm_label, "containers-default")))
    return {"the container's AppArmor profile (" + f.lsm_label + ") refuses " + s.name,
            "run the container with an AppArmor profile that allows mounts in user namespaces "
            "(docker run --security-opt apparmor=unconfined, or a profile of your own)"};
  if (s.name == "pivot_root" && s.err == EINVAL)
    return {"the host's / cannot be moved: it is the initramfs (rootfs) or not a mount point",
            "boot into a real root file system (switch_root) before running ringfence"};
  if (s.name == "overlay") {
    if (s.err == ENODEV)
      return {"the kernel has no overlay file system",
              "load it (sudo modprobe overlay) or build CONFIG_OVERLAY_FS"};
    return {
        "overlayfs in a user namespace (with userxattr) needs Linux 5.11 or later",
        "only the overlay options (--overlay, --tmp-overlay, --ro-overlay) need it; a newer kernel adds it"};
  }
  if (s.name == "binfmt_misc")
    return {s.err == ENODEV ? "the kernel has no binfmt_misc file system"
                            : "binfmt_misc in a user namespace needs Linux 6.7 or later",
            "only --shell off needs it, to keep the ELF loader from running programs; without it the dry "
            "run says the loader stays executable"};
  if (s.name == "mount_setattr" && s.err == ENOSYS)
    return {"mount_setattr needs Linux 5.12" +
                std::string(f.seccomp_mode == 2 ? " (or a seccomp filter on this process hides it)" : ""),
            "none needed: the engine falls back to classic remounts"};
  return generic_refusal();
}

Cause seccomp_cause(const Facts& f, const Step& s) {
  if (s.err == EINVAL)
    return {"the kernel has no seccomp filters (built without CONFIG_SECCOMP_FILTER)",
            "use a kernel built with CONFIG_SECCOMP_FILTER=y"};
  if (f.seccomp_mode == 1)
    return {"this process runs in seccomp strict mode", "start ringfence from a process without strict mode"};
  return {"unexpected error " + errno_text(s.err), "report it with the output of `ringfence doctor --json`"};
}

Cause notify_cause(const Facts& f, const Step& s) {
  const std::string effect =
      "with the network on, the connect policy (and its metadata floor) cannot be "
      "enforced; the network off presets are unaffected";
  if (s.name == "listener" && s.err == EBUSY)
    return {
        "this process already runs under a seccomp filter with a listener (another sandbox's supervisor); "
        "the kernel allows one listener per filter chain",
        "run ringfence outside the other sandbox, or with the network off; " + effect};
  if (s.name == "listener" && s.err == EINVAL)
    return {"the kernel has no seccomp user notifications (before 5.0)",
            "a kernel of 5.6 or later; " + effect};
  if (f.seccomp_mode == 2 && denied(s.err))
    return {"a seccomp filter on this process refuses it (" + seccomp_evidence(f) + ")",
            "allow seccomp() in the container's seccomp profile; " + effect};
  return {"the notification round trip failed", effect};
}

Cause pidfd_cause(const Facts& f, const Step& s) {
  const std::string effect = "the supervisor needs it to perform an allowed connect on the sandbox's socket";
  if (f.seccomp_mode == 2 && (denied(s.err) || s.err == ENOSYS))
    return {"a seccomp filter on this process refuses " + s.name + " (" + seccomp_evidence(f) +
                "), as older container profiles do",
            "update the container runtime, or allow pidfd_open and pidfd_getfd in its seccomp profile; " +
                effect};
  if (s.err == ENOSYS)
    return {"the kernel is too old (pidfd_open needs 5.3, pidfd_getfd 5.6)",
            "a kernel of 5.6 or later; " + effect};
  if (denied(s.err) && f.ptrace_scope.value_or(0) >= 2)
    return {"Yama's kernel.yama.ptrace_scope = " + std::to_string(*f.ptrace_scope) +
                " refuses access to other processes (pidfd_getfd needs ptrace access)",
            sysctl_persist("kernel.yama.ptrace_scope=1")};
  return {"refused: " + errno_text(s.err), effect};
}

std::string landlock_gaps(int abi) {
  std::string g;
  auto add = [&g](const char* s) { g += (g.empty() ? "" : ", ") + std::string(s); };
  if (abi < 2) add("no renaming or linking across directories (refer, ABI 2)");
  if (abi < 3) add("truncate not controlled (ABI 3)");
  if (abi < 4) add("no TCP bind/connect rules (ABI 4)");
  if (abi < 5) add("device ioctls not controlled (ABI 5)");
  if (abi < 6) add("no abstract unix socket or signal scoping (ABI 6)");
  return g;
}

Cause landlock_cause(const Facts& f, const Step& s) {
  if (s.name == "abi" && s.err == EOPNOTSUPP)
    return {"Landlock is built into this kernel but not enabled at boot (it is not in the lsm= list)",
            "add landlock to the kernel's lsm= boot parameter, keeping the modules already listed in "
            "/sys/kernel/security/lsm (e.g. lsm=landlock,lockdown,yama,integrity,apparmor,bpf in "
            "GRUB_CMDLINE_LINUX of /etc/default/grub), then sudo update-grub and reboot"};
  if (f.seccomp_mode == 2 && denied(s.err))
    return {"a seccomp filter on this process refuses the Landlock calls (" + seccomp_evidence(f) + ")",
            "update the container runtime, or allow landlock_create_ruleset, landlock_add_rule and "
            "landlock_restrict_self in its seccomp profile"};
  if (s.name == "abi" && s.err == ENOSYS)
    return {
        "the kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK, or older than 5.13)" +
            std::string(f.seccomp_mode == 2
                            ? ", or a seccomp filter on this process hides it (" + seccomp_evidence(f) + ")"
                            : ""),
        "use a kernel built with CONFIG_SECURITY_LANDLOCK=y and landlock in its lsm= list (5.13 or later; "
        "6.12 or later for ABI 6)"};
  if (s.name == "enforced")
    return {"Landlock accepted the ruleset but did not enforce it",
            "report it with `ringfence doctor --json`"};
  return {"unexpected error " + errno_text(s.err), "report it with the output of `ringfence doctor --json`"};
}

Cause cgroup_cause(const Facts& f, const TrialResult& t, const Step& s) {
  const Step* where = t.find("locate");
  const std::string dir = where && where->state == Step::State::Ok ? where->note : "?";
  const std::string delegate =
      "run ringfence in a cgroup delegated to you, e.g. systemd-run --user --scope -p Delegate=yes ringfence "
      "...";
  const std::string effect = "; without it only rlimits limit the sandbox";
  if (s.name == "locate")
    return {s.note, "boot with cgroup v2 (systemd.unified_cgroup_hierarchy=1)" + effect};
  if (s.name == "mkdir" && s.err == EROFS)
    return {
        "cgroup2 is mounted read-only here (a container without cgroup delegation)",
        "give the container a writable cgroup (e.g. docker run --cgroupns=private with cgroup v2)" + effect};
  if (s.name == "mkdir" || s.name == "attach")
    return {"this process's cgroup (" + dir + ") is not delegated to uid " + std::to_string(f.uid) + ": " +
                errno_text(s.err),
            delegate + effect};
  const Step* ctl = t.find("controllers");
  return {"the memory and pids controllers are not enabled for child groups of " + dir + " (" +
              (ctl ? ctl->note : std::string("?")) + ")",
          delegate + ", or enable them there yourself (echo '+memory +pids' > " + dir +
              "/cgroup.subtree_control, allowed only while that group holds no process)"};
}

std::string container_evidence(const Observations& o) {
  const Facts& f = o.facts;
  std::string e;
  const Step* u = o.ns.find("userns");
  if (u && u->state == Step::State::Failed && u->err == EPERM && f.seccomp_mode == 2 &&
      f.max_user_namespaces.value_or(1) > 0)
    e = "likely, Docker-like: CLONE_NEWUSER refused with EPERM under a seccomp filter while "
        "user.max_user_namespaces > 0";
  if (f.dockerenv) e += (e.empty() ? "" : "; ") + std::string("/.dockerenv exists");
  if (f.containerenv) e += (e.empty() ? "" : "; ") + std::string("/run/.containerenv exists (Podman)");
  return e;
}

}  // namespace rf::probe
