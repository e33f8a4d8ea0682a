// SPDX-License-Identifier: LGPL-2.1-or-later
// Planting and removing the canaries that live in kernel objects rather than files.
#include "host_canaries.hpp"

#include <fcntl.h>
#include <linux/keyctl.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstring>

#include "ringfence/base/kernel.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::verify {
namespace {

std::string why(const std::string& what) {
  return what + ": " + std::strerror(errno) + "; that canary is left out";
}

// The child that answers every connection to @rf-canary-TOKEN with the token.
[[noreturn]] void serve(int listener, const std::string& token, pid_t parent) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(0);
  for (;;) {
    int c = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      ::_exit(0);
    }
    (void)!::write(c, token.data(), token.size());
    ::close(c);
  }
}

pid_t start_abstract_server(const std::string& token, std::vector<std::string>& notes) {
  base::UniqueFd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) {
    notes.push_back(why("abstract socket"));
    return -1;
  }
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::string name = "rf-canary-" + token;
  std::memcpy(sa.sun_path + 1, name.data(), std::min(name.size(), sizeof sa.sun_path - 2));
  auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&sa), len) != 0 || ::listen(s.get(), 16) != 0) {
    notes.push_back(why("abstract socket @" + name.substr(0, 10) + "..."));
    return -1;
  }
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) serve(s.get(), token, parent);
  if (pid < 0) notes.push_back(why("fork for the abstract socket"));
  return pid;
}

}  // namespace

HostCanaries::HostCanaries(const std::string& token, const std::string& socket_path,
                           std::vector<std::string>& notes) {
  server_ = start_abstract_server(token, notes);

  std::string mq = "/rf-canary-" + token;
  mq_attr attr{};
  attr.mq_maxmsg = 1;
  attr.mq_msgsize = static_cast<long>(token.size());
  mqd_t q = ::mq_open(mq.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600, &attr);
  if (q == static_cast<mqd_t>(-1)) {
    notes.push_back(why("POSIX message queue"));
  } else {
    mq_name_ = mq;
    ::mq_send(q, token.data(), token.size(), 0);
    ::mq_close(q);
  }

  std::string shm = "/dev/shm/rf-canary-" + token;
  base::UniqueFd f(::open(shm.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!f.valid()) {
    notes.push_back(why("POSIX shm file /dev/shm/rf-canary-..."));
  } else {
    shm_path_ = shm;
    (void)base::write_all(f.get(), token);
  }

  // A new anonymous session keyring, so that the user's own session keyring is never touched.
  std::string desc = "rf-canary-" + token;
  // (The raw calls leave errno set for why().)
  if (base::raw::keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0) < 0) {
    notes.push_back(why("a session keyring of verify's own"));
  } else {
    key_ = base::raw::add_key("user", desc.c_str(), token.data(), token.size(), KEY_SPEC_SESSION_KEYRING);
    if (key_ < 0) notes.push_back(why("key " + desc.substr(0, 10) + "... in the session keyring"));
  }

  // SysV shared memory: a key from the token's digits.
  long key = std::strtol(token.substr(token.size() - 7).c_str(), nullptr, 16) | 0x10000000L;
  sysv_id_ = ::shmget(static_cast<key_t>(key), 4096, IPC_CREAT | IPC_EXCL | 0600);
  if (sysv_id_ < 0) {
    notes.push_back(why("SysV shared memory segment"));
  } else {
    sysv_key_ = key;
    void* p = ::shmat(sysv_id_, nullptr, 0);
    if (p != reinterpret_cast<void*>(-1)) {
      std::memcpy(p, token.c_str(), token.size() + 1);
      ::shmdt(p);
    }
  }

  base::UniqueFd u(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un su{};
  su.sun_family = AF_UNIX;
  if (!u.valid() || socket_path.size() >= sizeof su.sun_path) {
    notes.push_back("pathname socket " + socket_path +
                    ": the path is too long for a unix socket; that canary is left out");
  } else {
    std::memcpy(su.sun_path, socket_path.c_str(), socket_path.size() + 1);
    if (::bind(u.get(), reinterpret_cast<sockaddr*>(&su), sizeof su) == 0 && ::listen(u.get(), 16) == 0) {
      host_socket_ = socket_path;
      host_socket_fd_ = std::move(u);
    } else {
      notes.push_back(why("pathname socket " + socket_path));
    }
  }
}

HostCanaries::~HostCanaries() { remove(); }

void HostCanaries::remove() {
  if (server_ > 0) {
    ::kill(server_, SIGKILL);
    (void)base::raw::wait_pid(server_, nullptr);
    server_ = -1;
  }
  if (!mq_name_.empty()) ::mq_unlink(mq_name_.c_str());
  mq_name_.clear();
  if (!shm_path_.empty()) ::unlink(shm_path_.c_str());
  shm_path_.clear();
  if (key_ >= 0) (void)base::raw::keyctl(KEYCTL_INVALIDATE, static_cast<unsigned long>(key_), 0, 0, 0);
  key_ = -1;
  if (sysv_id_ >= 0) ::shmctl(sysv_id_, IPC_RMID, nullptr);
  sysv_id_ = -1;
  host_socket_fd_.reset();  // the socket file goes with verify's temporary tree
}

}  // namespace rf::verify
