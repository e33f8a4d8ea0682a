// SPDX-License-Identifier: LGPL-2.1-or-later
// The loader guard (kernel jail, shell off). Landlock's execute right cannot tell the ELF loader
// mapped as a command's interpreter from the loader run as a program (`ld.so /bin/sh`): both
// are opens for execution. binfmt_misc can: its handlers are asked about the file being
// executed, never about an ELF interpreter, which binfmt_elf opens itself. So the sandbox's user
// namespace gets a binfmt_misc instance of its own (Linux 6.7) with one entry per loader,
// matching the loader's first bytes, whose interpreter is "/": the kernel's open of a directory
// for execution fails, and the exec with it (EACCES). The instance lives while its superblock
// does: the mount is never attached anywhere (the sandbox could write its register file as
// root of the namespace), and pid 1 holds the only descriptor of it.
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <string>

#include "recipe.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::engine {
namespace {

std::string hex_escaped(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 4);
  for (unsigned char c : bytes) {
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

base::Error guard_error(const base::Error& e) {
  if (e.code() == ENODEV)
    return e.reworded("binfmt_misc is not available in this kernel (modprobe binfmt_misc)");
  if (e.code() == EPERM || e.code() == EINVAL)
    return e.reworded("binfmt_misc cannot be mounted in a user namespace here (it takes Linux 6.7)");
  return e.reworded("Can't make the sandbox's binfmt_misc instance");
}

}  // namespace

base::Status step_exec_guard(RecipeState& st) {
  const auto& headers = st.ctx->spec->refuse_exec_headers;
  if (headers.empty()) return {};
  // Only a process that lives as long as the sandbox may hold the instance, and the command
  // must not (it could reach the register file through the descriptor).
  if (!st.ctx->reaper) return base::Error(0, "the loader guard needs the sandbox's pid 1 to hold it");
  auto fs = base::fsopen("binfmt_misc", FSOPEN_CLOEXEC);
  if (!fs) return guard_error(fs.error());
  if (auto s = base::fsconfig(fs->get(), FSCONFIG_CMD_CREATE); !s) return guard_error(s.error());
  auto mnt =
      base::fsmount(fs->get(), FSMOUNT_CLOEXEC, MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
  if (!mnt) return guard_error(mnt.error());
  base::UniqueFd reg(::openat(mnt->get(), "register", O_WRONLY | O_CLOEXEC));
  if (!reg.valid()) return base::errno_error("Can't open binfmt_misc's register file");
  for (std::size_t i = 0; i < headers.size(); ++i) {
    // :name:type:offset:magic:mask:interpreter:flags, one write per entry.
    const std::string entry =
        ":ringfence-loader-" + std::to_string(i) + ":M:0:" + hex_escaped(headers[i]) + "::/:";
    const ssize_t n = ::write(reg.get(), entry.data(), entry.size());
    if (n != static_cast<ssize_t>(entry.size()))
      return base::errno_error("Can't register the loader guard with binfmt_misc");
  }
  st.exec_guard = std::move(*mnt);
  return {};
}

}  // namespace rf::engine
