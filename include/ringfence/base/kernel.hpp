// SPDX-License-Identifier: LGPL-2.1-or-later
// Typed wrappers of the kernel calls that glibc does not wrap, or wraps only in releases newer
// than the oldest one supported: pidfds, openat2, the mount API, Landlock, clone3, close_range,
// seccomp, pivot_root, capget, execveat, the key calls; and waitpid with EINTR retried. Nothing
// outside base calls syscall(2).
//
// Two forms of each call:
// - rf::base::NAME: checked. Returns Result<UniqueFd>, Result<int>/Result<long> or Status; a
//   failure is an Error whose code is the call's errno and whose message names the call.
// - rf::base::raw::NAME: child-safe. Never allocates and takes no lock: for a child between
//   clone and exec, or forked from a threaded process. Returns the call's result, or -errno on
//   failure, and leaves errno as the call set it (so code that reads errno afterwards still
//   may). An fd result can be handed to UniqueFd as is: a negative value is no descriptor.
#pragma once

#include <linux/openat2.h>
#include <signal.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "ringfence/base/result.hpp"
#include "ringfence/base/unique_fd.hpp"

struct sock_fprog;
struct mount_attr;
struct __user_cap_header_struct;
struct __user_cap_data_struct;

namespace rf::base {

// struct open_how for openat2, built in one expression:
//   OpenHow().flags(O_PATH | O_CLOEXEC).resolve(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)
// The flags are taken as given (O_CLOEXEC is not added).
class OpenHow {
public:
  OpenHow& flags(std::uint64_t f) {
    how_.flags = f;
    return *this;
  }
  OpenHow& mode(std::uint64_t m) {
    how_.mode = m;
    return *this;
  }
  OpenHow& resolve(std::uint64_t r) {
    how_.resolve = r;
    return *this;
  }
  [[nodiscard]] const open_how& get() const { return how_; }
  operator const open_how&() const { return how_; }

private:
  open_how how_{};
};

namespace raw {

// Process descriptors (Linux 5.3 / 5.6 / 5.1).
int pidfd_open(pid_t pid, unsigned flags) noexcept;
int pidfd_getfd(int pidfd, int target_fd, unsigned flags) noexcept;
int pidfd_send_signal(int pidfd, int sig, siginfo_t* info, unsigned flags) noexcept;

// openat2 (Linux 5.6); EAGAIN (a rename raced a RESOLVE_IN_ROOT lookup) is returned, not retried.
int openat2(int dirfd, const char* path, const open_how& how) noexcept;

// The mount API (Linux 5.2; mount_setattr 5.12).
int open_tree(int dirfd, const char* path, unsigned flags) noexcept;
int move_mount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path,
               unsigned flags) noexcept;
int fsopen(const char* fs_name, unsigned flags) noexcept;
int fsconfig(int fs_fd, unsigned cmd, const char* key, const void* value, int aux) noexcept;
int fsmount(int fs_fd, unsigned flags, unsigned attr_flags) noexcept;
int fspick(int dirfd, const char* path, unsigned flags) noexcept;
int mount_setattr(int dirfd, const char* path, unsigned flags, const mount_attr* attr,
                  std::size_t size) noexcept;
int pivot_root(const char* new_root, const char* put_old) noexcept;

// Landlock (Linux 5.13). `attr` is a struct landlock_ruleset_attr of `size` bytes (a prefix
// of it for an older ABI); landlock_abi is landlock_create_ruleset's version query.
int landlock_abi() noexcept;
int landlock_create_ruleset(const void* attr, std::size_t size, std::uint32_t flags) noexcept;
int landlock_add_rule(int ruleset_fd, int rule_type, const void* rule_attr, std::uint32_t flags) noexcept;
int landlock_restrict_self(int ruleset_fd, std::uint32_t flags) noexcept;

// A fork-style clone into new namespaces (`flags` are CLONE_* flags; the exit signal is
// SIGCHLD): clone3 (Linux 5.3), or clone(2) where the kernel lacks it. 0 in the child, the
// child's pid in the parent.
pid_t clone_fork(std::uint64_t flags) noexcept;

// close_range (Linux 5.9).
int close_range(unsigned first, unsigned last, unsigned flags) noexcept;

// seccomp(2): SECCOMP_SET_MODE_FILTER and the others; the result is the listener's fd with
// SECCOMP_FILTER_FLAG_NEW_LISTENER, else 0.
int seccomp(unsigned op, unsigned flags, const void* args) noexcept;

// capget(2), execveat(2) (returns only on failure), gettid(2).
int capget(__user_cap_header_struct* hdr, __user_cap_data_struct* data) noexcept;
int execveat(int dirfd, const char* path, char* const argv[], char* const envp[], int flags) noexcept;
pid_t gettid() noexcept;
// getppid(2) with an argument the kernel ignores: a seccomp filter can tell the call apart.
pid_t getppid_marked(unsigned long marker) noexcept;

// waitpid(2) with EINTR retried: the pid (0 with WNOHANG while the child runs), or -errno.
pid_t wait_pid(pid_t pid, int* status, int options = 0) noexcept;

// keyctl(2) and add_key(2).
long keyctl(int op, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5) noexcept;
long add_key(const char* type, const char* description, const void* payload, std::size_t len,
             std::int32_t keyring) noexcept;

}  // namespace raw

Result<UniqueFd> pidfd_open(pid_t pid, unsigned flags = 0);
Result<UniqueFd> pidfd_getfd(int pidfd, int target_fd, unsigned flags = 0);
Status pidfd_send_signal(int pidfd, int sig, siginfo_t* info = nullptr, unsigned flags = 0);

// The message names the call and the path ("openat2 etc/passwd").
Result<UniqueFd> openat2(int dirfd, const char* path, const open_how& how);

Result<UniqueFd> open_tree(int dirfd, const char* path, unsigned flags);
Status move_mount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path, unsigned flags);
Result<UniqueFd> fsopen(const char* fs_name, unsigned flags);
Status fsconfig(int fs_fd, unsigned cmd, const char* key = nullptr, const void* value = nullptr, int aux = 0);
Result<UniqueFd> fsmount(int fs_fd, unsigned flags, unsigned attr_flags);
Result<UniqueFd> fspick(int dirfd, const char* path, unsigned flags);
Status mount_setattr(int dirfd, const char* path, unsigned flags, const mount_attr& attr);
Status pivot_root(const char* new_root, const char* put_old);

Result<int> landlock_abi();
Result<UniqueFd> landlock_create_ruleset(const void* attr, std::size_t size, std::uint32_t flags = 0);
Status landlock_add_rule(int ruleset_fd, int rule_type, const void* rule_attr, std::uint32_t flags = 0);
Status landlock_restrict_self(int ruleset_fd, std::uint32_t flags = 0);

Status close_range(unsigned first, unsigned last, unsigned flags = 0);

// seccomp(SECCOMP_SET_MODE_FILTER, flags, prog): the listener's fd (with
// SECCOMP_FILTER_FLAG_NEW_LISTENER), else an fd that is not valid.
Result<UniqueFd> seccomp_set_filter(unsigned flags, const sock_fprog& prog);

// Waits for the child `pid` to end (EINTR retried): its status as waitpid(2) stores it
// (WIFEXITED, WEXITSTATUS...), or an Error naming waitpid and the pid.
Result<int> wait_pid(pid_t pid);

Result<long> keyctl(int op, unsigned long arg2 = 0, unsigned long arg3 = 0, unsigned long arg4 = 0,
                    unsigned long arg5 = 0);
Result<long> add_key(const char* type, const char* description, const void* payload, std::size_t len,
                     std::int32_t keyring);

}  // namespace rf::base
