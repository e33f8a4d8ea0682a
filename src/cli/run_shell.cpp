// SPDX-License-Identifier: LGPL-2.1-or-later
// Shell off: only the command and its interpreters may be executed. Landlock's execute right
// allows exactly those files; what lies outside every Landlock hierarchy (a memfd) is made
// non-executable, and what Landlock cannot refuse (the ELF loader run as a program) is said.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

#include "exec_resolve.hpp"
#include "run_fs.hpp"

namespace rf::cli {
namespace {

constexpr unsigned kMfdNoexecSeal = 0x0008u;  // MFD_NOEXEC_SEAL (Linux 6.3)
constexpr unsigned kX32 = 0x40000000u;
constexpr unsigned kI386MemfdCreate = 356u;

// memfd_create(name, flags) is allowed only with MFD_NOEXEC_SEAL (a memfd that can never be
// executed: no execute bits, and F_SEAL_EXEC keeps them off); every other form fails with EPERM,
// on x86_64, x32 and i386 alike. Kernels before 6.3 do not know the flag: there no memfd can be
// made at all.
spec::BpfBytes memfd_noexec_program() {
  const auto stmt = [](unsigned short code, unsigned k) { return sock_filter{code, 0, 0, k}; };
  const auto jump = [](unsigned k, unsigned char jt, unsigned char jf) {
    return sock_filter{BPF_JMP | BPF_JEQ | BPF_K, jt, jf, k};
  };
  const unsigned short ld = BPF_LD | BPF_W | BPF_ABS;
  const unsigned flags_lo = offsetof(seccomp_data, args) + 8u;  // args[1], low half (both ABIs)
  const sock_filter prog[] = {
      stmt(ld, offsetof(seccomp_data, arch)),                                 // 0
      jump(AUDIT_ARCH_X86_64, 0, 4),                                          // 1: -> 6 (i386?)
      stmt(ld, offsetof(seccomp_data, nr)),                                   // 2
      jump(SYS_memfd_create, 5, 0),                                           // 3: -> 9
      jump(kX32 | SYS_memfd_create, 4, 0),                                    // 4: -> 9
      stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                               // 5
      jump(AUDIT_ARCH_I386, 0, 5),                                            // 6: -> 12 (allow)
      stmt(ld, offsetof(seccomp_data, nr)),                                   // 7
      jump(kI386MemfdCreate, 0, 3),                                           // 8: -> 12 (allow)
      stmt(ld, flags_lo),                                                     // 9
      sock_filter{BPF_JMP | BPF_JSET | BPF_K, 1, 0, kMfdNoexecSeal},          // 10: -> 12
      stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),  // 11
      stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                               // 12
  };
  return {std::string(reinterpret_cast<const char*>(prog), sizeof prog)};
}

bool any_dynamic(const std::vector<std::string>& files) {
  for (const auto& f : files)
    if (!elf_interpreter(f).empty()) return true;
  return false;
}

}  // namespace

base::Status restrict_shell(RunPlan& plan, const HostFacts& host, const HostSnapshot& snapshot) {
  if (plan.settings.shell) return {};
  if (host.landlock_abi < 1) {
    plan.notes.push_back(
        "shell off: not enforced (this kernel has no Landlock): any program may be executed");
    return {};
  }
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& e : plan.spec.env_ops)
    if (e.kind == spec::EnvOp::Kind::Set && e.name == "PATH") path = e.value;
  RF_TRY_ASSIGN(files, executables_for(plan.spec.argv.front(), path));
  plan.spec.restrict_exec = true;
  plan.spec.exec_allow = files;
  plan.exec_allowed = files;
  // A memfd lies outside every Landlock hierarchy. For the host's root in the kernel jail the
  // sandbox's PID namespace gets vm.memfd_noexec = 2 (every memfd non-executable, so programs
  // that make one keep working); no other caller may write that sysctl, and there the filter
  // refuses every memfd that could be executed.
  const bool sysctl = plan.level == presets::Level::Kernel && snapshot.euid == 0 &&
                      ::access("/proc/sys/vm/memfd_noexec", F_OK) == 0;
  if (!sysctl) {
    plan.spec.seccomp.insert(plan.spec.seccomp.begin(), memfd_noexec_program());
    plan.notes.push_back(
        "shell off: memfd_create is refused (EPERM) unless it asks for MFD_NOEXEC_SEAL, so that "
        "no copy of a program in a memfd can be executed (programs that make other memfds fail)");
  }
  // The loader must stay executable as the interpreter of a dynamically linked command, and
  // Landlock cannot tell that use from running it as a program. A static command needs none.
  if (any_dynamic(files))
    plan.notes.push_back(
        "shell off: not enforced: the ELF loader may be executed (it is the interpreter of " + files.front() +
        "), so a program already installed can be run through it (ld.so PROGRAM); a static "
        "command leaves no loader executable");
  return {};
}

}  // namespace rf::cli
