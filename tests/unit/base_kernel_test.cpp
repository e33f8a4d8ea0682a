// SPDX-License-Identifier: LGPL-2.1-or-later
// The kernel-call wrappers (kernel.hpp), descriptor passing (fd_passing.hpp), the monotonic
// clock and the child-safe read/write helpers (sys.hpp).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <ctime>
#include <string>

#include "ringfence/base/fd_passing.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/remove_tree.hpp"
#include "ringfence/base/sys.hpp"

using namespace rf::base;

namespace {

bool same_file(int a, int b) {
  struct stat sa {
  }, sb{};
  return ::fstat(a, &sa) == 0 && ::fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) >= 0; }

// A scratch directory with a file, a subdirectory and a symlink; removed at the end.
struct Scratch {
  std::string dir;
  UniqueFd fd;
  Scratch() {
    char tmpl[] = "/tmp/rf-kernel-test-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    REQUIRE(::mkdir((dir + "/sub").c_str(), 0755) == 0);
    REQUIRE(write_file_new(dir + "/sub/file"));
    REQUIRE(::symlink("sub/file", (dir + "/link").c_str()) == 0);
    fd.reset(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(fd.valid());
  }
  ~Scratch() { (void)remove_tree(dir); }
  static bool write_file_new(const std::string& path) {
    UniqueFd f(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    return f.valid() && write_all(f.get(), "x");
  }
};

}  // namespace

TEST_CASE("pidfd_open: a pid that cannot exist is the kernel's errno, the message names the call") {
  auto bad = rf::base::pidfd_open(-1);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code() == EINVAL);
  CHECK(bad.error().message() == "pidfd_open");
  CHECK(bad.error().describe().find("Invalid argument") != std::string::npos);

  auto gone = rf::base::pidfd_open(INT_MAX);  // above any pid_max
  REQUIRE_FALSE(gone);
  CHECK(gone.error().code() == ESRCH);

  errno = 0;
  CHECK(raw::pidfd_open(-1, 0) == -EINVAL);
  CHECK(errno == EINVAL);  // the raw form leaves errno as the call set it
}

TEST_CASE("pidfd_open, pidfd_getfd and pidfd_send_signal on ourselves") {
  auto self = rf::base::pidfd_open(::getpid());
  REQUIRE(self);
  CHECK(self->valid());
  UniqueFd pipe_r, pipe_w;
  int p[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  pipe_r.reset(p[0]);
  pipe_w.reset(p[1]);
  auto copy = rf::base::pidfd_getfd(self->get(), pipe_r.get());
  REQUIRE(copy);
  CHECK(copy->get() != pipe_r.get());
  CHECK(same_file(copy->get(), pipe_r.get()));

  auto no_fd = rf::base::pidfd_getfd(self->get(), 987654);
  REQUIRE_FALSE(no_fd);
  CHECK(no_fd.error().code() == EBADF);
  CHECK(no_fd.error().message() == "pidfd_getfd");

  CHECK(rf::base::pidfd_send_signal(self->get(), 0));  // signal 0: only the checks
  auto not_pidfd = rf::base::pidfd_send_signal(pipe_r.get(), 0);
  REQUIRE_FALSE(not_pidfd);
  CHECK(not_pidfd.error().code() == EBADF);
  CHECK(not_pidfd.error().message() == "pidfd_send_signal");
}

TEST_CASE("openat2: RESOLVE_BENEATH refuses .., RESOLVE_NO_SYMLINKS refuses a link") {
  Scratch s;
  const auto beneath = OpenHow().flags(O_PATH | O_CLOEXEC).resolve(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
  auto inside = rf::base::openat2(s.fd.get(), "sub/file", beneath);
  REQUIRE(inside);
  CHECK(inside->valid());

  auto up = rf::base::openat2(s.fd.get(), "sub/../../etc", beneath);
  REQUIRE_FALSE(up);
  CHECK(up.error().code() == EXDEV);
  CHECK(up.error().message() == "openat2 sub/../../etc");

  const auto no_links = OpenHow().flags(O_RDONLY | O_CLOEXEC).resolve(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
  auto link = rf::base::openat2(s.fd.get(), "link", no_links);
  REQUIRE_FALSE(link);
  CHECK(link.error().code() == ELOOP);
  CHECK(raw::openat2(s.fd.get(), "link", no_links) == -ELOOP);

  // RESOLVE_IN_ROOT: ".." stops at the root, so the path stays inside.
  const auto in_root = OpenHow().flags(O_PATH | O_CLOEXEC).resolve(RESOLVE_IN_ROOT);
  auto clamped = rf::base::openat2(s.fd.get(), "../../sub/file", in_root);
  REQUIRE(clamped);
  CHECK(same_file(clamped->get(), inside->get()));
}

TEST_CASE("send_fds / recv_fds: two descriptors and the credentials over a socketpair") {
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
  UniqueFd a(sv[0]), b(sv[1]);
  int on = 1;
  REQUIRE(::setsockopt(b.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0);
  UniqueFd f1(::open("/dev/null", O_RDONLY | O_CLOEXEC)), f2(::open("/", O_PATH | O_CLOEXEC));
  REQUIRE(f1.valid());
  REQUIRE(f2.valid());
  const int fds[] = {f1.get(), f2.get()};
  const ucred me{::getpid(), ::getuid(), ::getgid()};
  REQUIRE(send_fds(a.get(), fds, me, 'q'));

  char byte = 0;
  auto got = recv_fds(b.get(), &byte, 1);
  REQUIRE(got);
  CHECK(got->bytes == 1);
  CHECK(byte == 'q');
  REQUIRE(got->fds.size() == 2);
  CHECK(same_file(got->fds[0].get(), f1.get()));
  CHECK(same_file(got->fds[1].get(), f2.get()));
  CHECK((::fcntl(got->fds[0].get(), F_GETFD) & FD_CLOEXEC) != 0);  // MSG_CMSG_CLOEXEC
  REQUIRE(got->creds.has_value());
  CHECK(got->creds->pid == ::getpid());
  CHECK(got->creds->uid == ::getuid());
  CHECK(got->creds->gid == ::getgid());
}

TEST_CASE("recv_fds: descriptors beyond max_fds are closed; EAGAIN and end of stream") {
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
  UniqueFd a(sv[0]), b(sv[1]);
  char byte = 0;
  auto empty = recv_fds(b.get(), &byte, 1, 1, MSG_DONTWAIT);
  REQUIRE_FALSE(empty);
  CHECK(empty.error().code() == EAGAIN);
  CHECK(empty.error().message() == "recvmsg");

  UniqueFd f1(::open("/dev/null", O_RDONLY | O_CLOEXEC)), f2(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int fds[] = {f1.get(), f2.get()};
  REQUIRE(raw::send_fds(a.get(), fds, nullptr, 'p', MSG_NOSIGNAL) == 1);
  auto one = recv_fds(b.get(), &byte, 1, 1);
  REQUIRE(one);
  CHECK(one->fds.size() == 1);
  CHECK_FALSE(one->creds.has_value());
  // Nothing else arrived: the next number is the lowest free one, the second copy is gone.
  UniqueFd probe(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  CHECK(probe.get() == one->fds[0].get() + 1);

  const int too_many[kMaxPassedFds + 1] = {};
  CHECK(raw::send_fds(a.get(), too_many, nullptr, 'p', 0) == -EINVAL);

  a.reset();
  auto eof = recv_fds(b.get(), &byte, 1);
  REQUIRE(eof);
  CHECK(eof->bytes == 0);
  CHECK(eof->fds.empty());
}

TEST_CASE("the monotonic clock never goes back and advances over a sleep") {
  const auto t0 = monotonic_ns();
  const auto m0 = monotonic_ms();
  timespec ts{0, 20 * 1000 * 1000};
  ::nanosleep(&ts, nullptr);
  const auto t1 = monotonic_ns();
  const auto m1 = monotonic_ms();
  CHECK(t1 > t0);
  CHECK(t1 - t0 >= 20 * 1000 * 1000);
  CHECK(m1 - m0 >= 19);
  std::int64_t last = monotonic_ns();
  for (int i = 0; i < 1000; ++i) {
    const auto now = monotonic_ns();
    CHECK(now >= last);
    last = now;
  }
  CHECK(m0 >= 0);
  CHECK(m0 <= t1 / 1000000);
}

TEST_CASE("raw::read, raw::write and raw::write_all return the bytes or -errno") {
  int p[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  UniqueFd r(p[0]), w(p[1]);
  CHECK(raw::write(w.get(), "ab", 2) == 2);
  CHECK(raw::write_all(w.get(), "cdef", 4) == 0);
  char buf[8] = {};
  CHECK(raw::read(r.get(), buf, sizeof buf) == 6);
  CHECK(std::string(buf, 6) == "abcdef");
  CHECK(raw::read(-1, buf, 1) == -EBADF);
  CHECK(raw::write_all(-1, "x", 1) == -EBADF);
  w.reset();
  CHECK(raw::read(r.get(), buf, 1) == 0);
}

TEST_CASE("close_range closes the range; an inverted range is EINVAL") {
  UniqueFd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  REQUIRE(a.valid());
  const int fd = a.release();
  REQUIRE(rf::base::close_range(static_cast<unsigned>(fd), static_cast<unsigned>(fd)));
  CHECK_FALSE(is_open(fd));
  auto inverted = rf::base::close_range(10, 5);
  REQUIRE_FALSE(inverted);
  CHECK(inverted.error().code() == EINVAL);
  CHECK(inverted.error().message() == "close_range");
}

TEST_CASE("Landlock: the ABI query, and an invalid ruleset size refused") {
  auto abi = rf::base::landlock_abi();
  if (!abi) {  // built without Landlock or disabled at boot
    CHECK((abi.error().code() == ENOSYS || abi.error().code() == EOPNOTSUPP));
    return;
  }
  CHECK(*abi >= 1);
  CHECK(raw::landlock_abi() == *abi);
  const std::uint64_t attr[4] = {};
  auto small = rf::base::landlock_create_ruleset(attr, 1);
  REQUIRE_FALSE(small);
  CHECK(small.error().code() == EINVAL);
  CHECK(small.error().message() == "landlock_create_ruleset");
  auto bad_rule = rf::base::landlock_add_rule(-1, 1, attr);
  REQUIRE_FALSE(bad_rule);
  CHECK(bad_rule.error().code() == EBADF);
}

TEST_CASE("the mount API and the key calls report the errno and the call") {
  auto fs = rf::base::fsopen("no-such-filesystem-type", FSOPEN_CLOEXEC);
  REQUIRE_FALSE(fs);
  CHECK((fs.error().code() == ENODEV || fs.error().code() == EPERM));
  CHECK(fs.error().message() == "fsopen");
  auto tree = rf::base::open_tree(AT_FDCWD, "/no/such/path/at/all", OPEN_TREE_CLOEXEC);
  REQUIRE_FALSE(tree);
  CHECK(tree.error().code() == ENOENT);
  CHECK(tree.error().message() == "open_tree");
  auto cfg = rf::base::fsconfig(987654, FSCONFIG_SET_FLAG, "ro");  // no such fd
  REQUIRE_FALSE(cfg);
  CHECK(cfg.error().code() == EBADF);
  auto pr = rf::base::pivot_root("/no/such/dir", "/no/such/dir");
  REQUIRE_FALSE(pr);
  CHECK((pr.error().code() == ENOENT || pr.error().code() == EPERM));
  CHECK(pr.error().message() == "pivot_root");
  auto k = rf::base::keyctl(0x7fff);
  REQUIRE_FALSE(k);
  CHECK((k.error().code() == EOPNOTSUPP || k.error().code() == ENOSYS));
  CHECK(k.error().message() == "keyctl");
}

TEST_CASE("UniqueFd takes a raw call's -errno as no descriptor") {
  UniqueFd fd(raw::pidfd_open(-1, 0));
  CHECK_FALSE(fd.valid());
  CHECK(fd.get() == -1);
  fd.reset(-EBADF);
  CHECK(fd.get() == -1);
}

TEST_CASE("clone_fork runs the child like fork; gettid, capget, execveat, seccomp in it") {
  const pid_t pid = raw::clone_fork(0);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The child: only the child-safe forms, and _exit with the number of the first failed check.
    if (raw::gettid() != ::getpid()) ::_exit(1);
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
    if (raw::capget(&hdr, data) != 0) ::_exit(2);
    char* argv[] = {nullptr};
    if (raw::execveat(987654, "", argv, argv, AT_EMPTY_PATH) != -EBADF) ::_exit(3);
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ::_exit(4);
    sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    sock_fprog prog{1, allow};
    if (raw::seccomp(SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) ::_exit(5);
    if (raw::seccomp(SECCOMP_SET_MODE_FILTER, ~0u, &prog) != -EINVAL) ::_exit(6);
    ::_exit(42);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 42);
  CHECK(raw::gettid() == ::getpid());  // the test's main thread
}

TEST_CASE("wait_pid returns the child's status, and an error for a pid that is not a child") {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) ::_exit(7);
  auto st = wait_pid(pid);
  REQUIRE(st);
  CHECK(WIFEXITED(*st));
  CHECK(WEXITSTATUS(*st) == 7);
  auto none = wait_pid(pid);  // reaped already
  REQUIRE_FALSE(none);
  CHECK(none.error().code() == ECHILD);
  CHECK(none.error().message() == "waitpid " + std::to_string(pid));
  int status = 0;
  CHECK(raw::wait_pid(pid, &status) == -ECHILD);
}
