// SPDX-License-Identifier: LGPL-2.1-or-later
// Shell off: only the command and its interpreters may be executed. Landlock's execute right
// allows exactly those files; what lies outside every Landlock hierarchy (a memfd) is made
// non-executable, and what Landlock cannot refuse (the ELF loader run as a program) is refused
// by binfmt_misc in the kernel jail and said elsewhere.
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include <cerrno>
#include <cstddef>

#include "exec_resolve.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "run_fs.hpp"

namespace rf::cli {
namespace {

constexpr unsigned kMfdNoexecSeal = 0x0008u;  // MFD_NOEXEC_SEAL (Linux 6.3)
constexpr unsigned kX32 = 0x40000000u;
constexpr unsigned kI386MemfdCreate = 356u;
constexpr std::size_t kLoaderHeader = 128;  // binfmt_misc's magic may be this long

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

// The ELF loaders the files name (PT_INTERP), each once.
std::vector<std::string> loaders_of(const std::vector<std::string>& files) {
  std::vector<std::string> out;
  for (const auto& f : files)
    if (auto i = elf_interpreter(f); !i.empty() && std::find(out.begin(), out.end(), i) == out.end())
      out.push_back(i);
  return out;
}

// The first bytes of a loader: its ELF header and first program headers, which no other file
// of the host shares (a copy of the loader does, and is refused as well).
base::Result<std::string> loader_header(const std::string& path) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return base::errno_error("shell off: Can't open the ELF loader " + path);
  std::string head(kLoaderHeader, '\0');
  const ssize_t n = ::pread(fd.get(), head.data(), head.size(), 0);
  if (n < 0) return base::errno_error("shell off: Can't read the ELF loader " + path);
  if (n < 64) return base::Error(0, "shell off: the ELF loader " + path + " is too short to be one");
  head.resize(static_cast<std::size_t>(n));
  return head;
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
  // Landlock cannot tell that use from running it as a program. A static command needs none. In
  // the kernel jail binfmt_misc tells them apart (exec_guard.cpp); elsewhere it is said.
  const auto loaders = loaders_of(files);
  if (loaders.empty()) return {};
  if (plan.level == presets::Level::Kernel && host.userns_binfmt_misc) {
    for (const auto& l : loaders) {
      RF_TRY_ASSIGN(head, loader_header(l));
      plan.spec.refuse_exec_headers.push_back(std::move(head));
    }
    plan.loaders_guarded = loaders;
    plan.notes.push_back(
        "shell off: the host's binfmt_misc handlers (qemu-user, Wine, ...) do not apply in the sandbox: "
        "its own instance keeps the ELF loader from running as a program");
    return {};
  }
  plan.notes.push_back(
      "shell off: not enforced: the ELF loader may be executed (it is the interpreter of " + files.front() +
      "), " +
      (plan.level == presets::Level::Kernel ? "this kernel has no binfmt_misc for user namespaces (Linux 6.7)"
                                            : "the " + std::string(presets::level_name(plan.level)) +
                                                  " level has no user namespace to guard it in") +
      ", so a program already installed can be run through it (ld.so PROGRAM); a static command leaves no "
      "loader executable");
  return {};
}

}  // namespace rf::cli
