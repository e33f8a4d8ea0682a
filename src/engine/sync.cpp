// SPDX-License-Identifier: LGPL-2.1-or-later
// Wire records between the sandbox side and the launcher.
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "ringfence/base/sys.hpp"
#include "sync.hpp"

namespace rf::engine {

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::DeathSignal: return "death signal";
    case Stage::IdMaps: return "uid/gid maps";
    case Stage::MountPropagation: return "mount propagation";
    case Stage::NewRoot: return "new root";
    case Stage::FsOps: return "filesystem setup";
    case Stage::PivotRoot: return "pivot_root";
    case Stage::Hostname: return "hostname";
    case Stage::Loopback: return "loopback";
    case Stage::Capabilities: return "capabilities";
    case Stage::Cwd: return "working directory";
    case Stage::Session: return "session";
    case Stage::Fds: return "file descriptors";
    case Stage::Reaper: return "pid 1";
    case Stage::Seccomp: return "seccomp";
    case Stage::Exec: return "exec";
    case Stage::Namespaces: return "joining namespaces";
    case Stage::Limits: return "resource limits";
  }
  return "setup";
}

int encode_wait_status(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 255;
}

static void write_record(int fd, const Record& r) { (void)base::raw::write(fd, &r, sizeof r); }

void report_and_exit_in_child(int fd, Stage stage, const base::Error& e) {
  Record r;
  r.kind = Record::kError;
  r.stage = static_cast<std::int32_t>(stage);
  r.err = e.code();
  std::strncpy(r.message, e.message().c_str(), sizeof r.message - 1);
  write_record(fd, r);
  _exit(1);
}

void send_exec_in_child(int fd) {
  Record r;
  r.kind = Record::kExec;
  write_record(fd, r);
}

void send_exit_in_child(int fd, int code) {
  Record r;
  r.kind = Record::kExit;
  r.status = code;
  write_record(fd, r);
}

}  // namespace rf::engine
