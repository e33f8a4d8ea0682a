// SPDX-License-Identifier: LGPL-2.1-or-later
// The kernel calls without a glibc wrapper: process descriptors, openat2, clone3, close_range,
// seccomp, capget, execveat, gettid and the key calls (the mount API and Landlock are in
// kernel_mount.cpp).
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "kernel_ret.hpp"
#include "ringfence/base/kernel.hpp"

namespace rf::base {

namespace raw {

int pidfd_open(pid_t pid, unsigned flags) noexcept {
  return kernel_ret(::syscall(SYS_pidfd_open, pid, flags));
}

int pidfd_getfd(int pidfd, int target_fd, unsigned flags) noexcept {
  return kernel_ret(::syscall(SYS_pidfd_getfd, pidfd, target_fd, flags));
}

int pidfd_send_signal(int pidfd, int sig, siginfo_t* info, unsigned flags) noexcept {
  return kernel_ret(::syscall(SYS_pidfd_send_signal, pidfd, sig, info, flags));
}

int openat2(int dirfd, const char* path, const open_how& how) noexcept {
  return kernel_ret(::syscall(SYS_openat2, dirfd, path, &how, sizeof how));
}

pid_t clone_fork(std::uint64_t flags) noexcept {
  clone_args args{};
  args.flags = flags;
  args.exit_signal = SIGCHLD;
  long pid = ::syscall(SYS_clone3, &args, sizeof args);
  if (pid < 0 && errno == ENOSYS)
    pid =
        ::syscall(SYS_clone, static_cast<unsigned long>(flags) | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  return static_cast<pid_t>(kernel_ret(pid));
}

int close_range(unsigned first, unsigned last, unsigned flags) noexcept {
  return kernel_ret(::syscall(SYS_close_range, first, last, flags));
}

int seccomp(unsigned op, unsigned flags, const void* args) noexcept {
  return kernel_ret(::syscall(SYS_seccomp, op, flags, args));
}

int capget(__user_cap_header_struct* hdr, __user_cap_data_struct* data) noexcept {
  return kernel_ret(::syscall(SYS_capget, hdr, data));
}

int execveat(int dirfd, const char* path, char* const argv[], char* const envp[], int flags) noexcept {
  return kernel_ret(::syscall(SYS_execveat, dirfd, path, argv, envp, flags));
}

pid_t gettid() noexcept { return static_cast<pid_t>(::syscall(SYS_gettid)); }

pid_t getppid_marked(unsigned long marker) noexcept {
  return static_cast<pid_t>(kernel_ret(::syscall(SYS_getppid, marker)));
}

pid_t wait_pid(pid_t pid, int* status, int options) noexcept {
  pid_t r;
  do {
    r = ::waitpid(pid, status, options);
  } while (r < 0 && errno == EINTR);
  return r < 0 ? -errno : r;
}

long keyctl(int op, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5) noexcept {
  long r = ::syscall(SYS_keyctl, op, arg2, arg3, arg4, arg5);
  return r < 0 ? -errno : r;
}

long add_key(const char* type, const char* description, const void* payload, std::size_t len,
             std::int32_t keyring) noexcept {
  long r = ::syscall(SYS_add_key, type, description, payload, len, keyring);
  return r < 0 ? -errno : r;
}

}  // namespace raw

Result<UniqueFd> pidfd_open(pid_t pid, unsigned flags) {
  return fd_result(raw::pidfd_open(pid, flags), "pidfd_open");
}

Result<UniqueFd> pidfd_getfd(int pidfd, int target_fd, unsigned flags) {
  return fd_result(raw::pidfd_getfd(pidfd, target_fd, flags), "pidfd_getfd");
}

Status pidfd_send_signal(int pidfd, int sig, siginfo_t* info, unsigned flags) {
  return status_result(raw::pidfd_send_signal(pidfd, sig, info, flags), "pidfd_send_signal");
}

Result<UniqueFd> openat2(int dirfd, const char* path, const open_how& how) {
  int r = raw::openat2(dirfd, path, how);
  if (r < 0) return Error(-r, std::string("openat2 ") + path);
  return UniqueFd(r);
}

Status close_range(unsigned first, unsigned last, unsigned flags) {
  return status_result(raw::close_range(first, last, flags), "close_range");
}

Result<UniqueFd> seccomp_set_filter(unsigned flags, const sock_fprog& prog) {
  int r = raw::seccomp(SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (r < 0) return Error(-r, "seccomp(SECCOMP_SET_MODE_FILTER)");
  return (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) != 0 ? UniqueFd(r) : UniqueFd();
}

Result<int> wait_pid(pid_t pid) {
  int status = 0;
  if (pid_t r = raw::wait_pid(pid, &status); r < 0) return Error(-r, "waitpid " + std::to_string(pid));
  return status;
}

Result<long> keyctl(int op, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5) {
  long r = raw::keyctl(op, arg2, arg3, arg4, arg5);
  if (r < 0) return Error(static_cast<int>(-r), "keyctl");
  return r;
}

Result<long> add_key(const char* type, const char* description, const void* payload, std::size_t len,
                     std::int32_t keyring) {
  long r = raw::add_key(type, description, payload, len, keyring);
  if (r < 0) return Error(static_cast<int>(-r), "add_key");
  return r;
}

}  // namespace rf::base
