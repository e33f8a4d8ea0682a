// SPDX-License-Identifier: LGPL-2.1-or-later
// Wire records between the sandbox side and the launcher.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "ringfence/base/sys.hpp"
#include "sync.hpp"

namespace rf::engine {

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::DeathSignal: return "death signal";
    case Stage::IdMaps: return "uid/gid maps";
    case Stage::NewRoot: return "new root";
    case Stage::FsOps: return "filesystem";
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
    case Stage::UserNs2: return "second user namespace";
    case Stage::Limits: return "resource limits";
    case Stage::NoNewPrivs: return "no_new_privs";
    case Stage::Landlock: return "landlock";
    case Stage::LandlockExec: return "exec allowlist";
    case Stage::ExecGuard: return "loader guard";
    case Stage::LateMasks: return "late masks";
    case Stage::Cgroup: return "cgroup";
    case Stage::PidNamespace: return "pid namespace";
    case Stage::SyncPoint: return "sync point";
    case Stage::NestedUserNs: return "nested user namespace";
    case Stage::SwitchIds: return "user ids";
    case Stage::Dumpable: return "dumpable";
    case Stage::Title: return "process title";
    case Stage::SignalMask: return "signal mask";
    case Stage::Umask: return "umask";
    case Stage::BlockFd: return "block fd";
    case Stage::Arguments: return "arguments";
    case Stage::ConnectFilter: return "connect filter";
    case Stage::Command: return "command";
  }
  return "setup";
}

int encode_wait_status(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 255;
}

static void write_record(int fd, const Record& r) { (void)base::raw::write(fd, &r, sizeof r); }

Record error_record(Stage stage, const base::Error& e) {
  Record r;
  r.kind = Record::kError;
  r.stage = static_cast<std::int32_t>(stage);
  r.err = e.code();
  std::strncpy(r.message, e.message().c_str(), sizeof r.message - 1);
  return r;
}

base::Error error_from_record(const Record& r, bool bwrap_messages) {
  std::string message(r.message, strnlen(r.message, sizeof r.message));
  if (bwrap_messages) return base::Error(r.err, std::move(message));
  return base::Error(r.err, std::string("sandbox setup failed at ") +
                                stage_name(static_cast<Stage>(r.stage)) + ": " + message);
}

void report_and_exit_in_child(int fd, Stage stage, const base::Error& e) {
  // A launcher that is gone has no reader on the pipe: the write fails, it does not kill us.
  ::signal(SIGPIPE, SIG_IGN);
  write_record(fd, error_record(stage, e));
  _exit(kChildSetupExit);
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
