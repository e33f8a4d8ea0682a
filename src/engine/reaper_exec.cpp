// SPDX-License-Identifier: LGPL-2.1-or-later
// Pid 1 becomes the reaper program (reaper/reaper.c) once the command has started.
//
// Why an exec: /proc/PID/ns/* of a non-dumpable process opens only for those with
// CAP_SYS_PTRACE in the user namespace of its memory (mm->user_ns). A clone of the launcher
// keeps the launcher's memory, whose namespace is the host's: then only the host's root could
// join the sandbox. exec gives the new memory the exec'ing task's user namespace, except that
// for a file the task may not read it moves up to the nearest ancestor in which the file's
// owner and group are mapped (fs/exec.c, would_dump). The reaper's file is a memfd made by
// the launcher: its owner and group are the caller's ids, mapped in the sandbox, so the
// namespace stays the sandbox's, whose owner (the caller) has every capability in it, while
// the command, in that namespace without capabilities, has none.
//
// The memfd is mode 0111: pid 1 may run it but not read it, and an unreadable executable makes
// exec set the new memory non-dumpable itself (to fs.suid_dumpable, 0 unless the host asks for
// core dumps of set-uid programs), so there is no instant in which the payload, running as the
// same uid, could attach to the new program before its first prctl.
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "reaper_blob.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "steps.hpp"

extern char* program_invocation_name;

namespace rf::engine {
namespace {

#ifndef MFD_EXEC
constexpr unsigned MFD_EXEC = 0x0010U;  // Linux 6.3: executable, whatever vm.memfd_noexec says
#endif

bool write_all_bytes(int fd, const void* data, std::size_t len) {
  return base::raw::write_all(fd, data, len) == 0;
}

// The Spec's programs for the reaper to install after its exec (they may deny execveat): each
// as a 4-byte little-endian length in bytes, then the instructions.
int seccomp_memfd_in_child(const ChildContext& ctx, std::size_t& total) {
  total = 0;
  if (ctx.seccomp.empty()) return -1;
  int fd = ::memfd_create("ringfence-reaper-filters", MFD_CLOEXEC);
  if (fd < 0) return -2;
  for (const auto& prog : ctx.seccomp) {
    auto n = static_cast<std::uint32_t>(prog.bytes.size());
    unsigned char len[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                            static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
    if (!write_all_bytes(fd, len, sizeof len) || !write_all_bytes(fd, prog.bytes.data(), n)) {
      ::close(fd);
      return -2;
    }
    total += sizeof len + n;
  }
  return fd;
}

bool clear_cloexec(int fd) {
  int fl = ::fcntl(fd, F_GETFD);
  return fl >= 0 && ::fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC) == 0;
}

}  // namespace

int make_reaper_memfd_from_parent() {
  if (kReaperSize == 0) return -1;  // no reaper program for this architecture
  int fd = ::memfd_create("ringfence-reaper", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && errno == EINVAL) fd = ::memfd_create("ringfence-reaper", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return -1;  // e.g. the host's vm.memfd_noexec is 2: pid 1 stays as it is
  base::UniqueFd f(fd);
  if (!write_all_bytes(fd, kReaperProgram, kReaperSize) || ::fchmod(fd, 0111) != 0) return -1;
  ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  return f.release();
}

bool may_exec_reaper_in_child() {
  // A command with CAP_SYS_PTRACE (root's own set, --cap-add) would have it in the namespace the
  // reaper's memory moves to: pid 1 then stays the launcher's clone, whose memory belongs to the
  // host's namespace. Pid 1 still has the credentials the command started with; what of them
  // the command's exec kept follows from the kernel's rules with no_new_privs (nothing is
  // gained): a non-root command keeps only its ambient set, root its permitted set.
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (base::raw::capget(&hdr, data) != 0) return false;
  if ((data[CAP_SYS_PTRACE / 32].permitted & (1u << (CAP_SYS_PTRACE % 32))) == 0) return true;
  if (::getuid() == 0 || ::geteuid() == 0) return false;
  return ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_SYS_PTRACE, 0, 0) == 0;
}

void exec_reaper_in_child(const ChildContext& ctx, pid_t cmd, bool forward, const std::vector<int>& keep) {
  std::size_t filters_len = 0;
  int filters = seccomp_memfd_in_child(ctx, filters_len);
  if (filters == -2) return;
  for (int fd : keep)
    if (!clear_cloexec(fd)) return;
  if (filters >= 0 && !clear_cloexec(filters)) return;
  char comm[17] = {};
  ::prctl(PR_GET_NAME, comm, 0, 0, 0);
  unsigned flags = (forward ? 1u : 0u) | (ctx.spec->die_with_parent ? 2u : 0u);
  std::string params = "RINGFENCE_REAPER=" + std::to_string(ctx.status_fd) + " " + std::to_string(cmd) + " " +
                       std::to_string(flags) + " " + std::to_string(filters) + " " +
                       std::to_string(filters_len);
  std::string name = std::string("RINGFENCE_REAPER_COMM=") + comm;
  // The name it shows: the launcher's argv[0] (native mode has made that "ringfence-init") and
  // the launcher's comm; no other word of the launcher's command line remains.
  std::string argv0 = program_invocation_name != nullptr ? program_invocation_name : comm;
  char* argv[] = {argv0.data(), nullptr};
  char* envp[] = {params.data(), name.data(), nullptr};
  (void)base::raw::execveat(ctx.reaper_fd, "", argv, envp, AT_EMPTY_PATH);
  if (filters >= 0) ::close(filters);
}

}  // namespace rf::engine
