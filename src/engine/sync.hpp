// SPDX-License-Identifier: LGPL-2.1-or-later
// The wire between the sandbox side and the launcher: one CLOEXEC pipe carrying fixed-size
// records. A record is either a setup failure {stage, errno, message} or the command's exit
// status (sent by the pid-1 reaper). EOF with no record means the command was exec'd.
#pragma once

#include <cstdint>

#include "ringfence/base/result.hpp"

namespace rf::engine {

// Numbered setup stages, named the same on both sides; the number is in the wire record. Each
// step of the child recipe (recipe.hpp) has its own stage, whose name is the step's name.
enum class Stage : std::int32_t {
  DeathSignal = 1,
  IdMaps = 2,
  NewRoot = 4,
  FsOps = 5,
  PivotRoot = 6,
  Hostname = 7,
  Loopback = 8,
  Capabilities = 9,
  Cwd = 10,
  Session = 11,
  Fds = 12,
  Reaper = 13,
  Seccomp = 14,
  Exec = 15,
  UserNs2 = 16,
  Limits = 17,
  NoNewPrivs = 18,
  Landlock = 19,
  LandlockExec = 20,
  Cgroup = 21,
  PidNamespace = 22,
  SyncPoint = 23,
  NestedUserNs = 24,
  SwitchIds = 25,
  Dumpable = 26,
  Title = 27,
  SignalMask = 28,
  Umask = 29,
  BlockFd = 30,
  Arguments = 31,
  ConnectFilter = 32,
  Command = 33,
  ExecGuard = 34,
  LateMasks = 35,
};

// The short name used in messages ("setup" for a number no stage has).
const char* stage_name(Stage s);

// A wait status in bwrap's encoding: n for exit(n), 128+s when killed by signal s, else 255.
int encode_wait_status(int status);

struct Record {
  enum Kind : std::int32_t { kError = 1, kExit = 2, kExec = 3 };
  std::int32_t kind = 0;
  std::int32_t stage = 0;
  std::int32_t err = 0;
  std::int32_t status = 0;  // encoded exit code for kExit
  char message[1008] = {};
};
static_assert(sizeof(Record) <= 4096, "records must be written atomically (PIPE_BUF)");

// How a child that failed its setup exits, after its record is written.
inline constexpr int kChildSetupExit = 1;

// The error record for a failed stage (the message cut to fit, always NUL-terminated).
Record error_record(Stage stage, const base::Error& e);
// The launcher's error for a received error record: the child's message as it is (bwrap's
// wording) or, with native wording, "sandbox setup failed at <stage>: <message>".
base::Error error_from_record(const Record& r, bool bwrap_messages);

// Child side, the one failure path of the recipe: send the failure and _exit(kChildSetupExit).
// Async-signal-safe apart from formatting the message, which was built before the call.
[[noreturn]] void report_and_exit_in_child(int fd, Stage stage, const base::Error& e);
void send_exit_in_child(int fd, int code);
// Right before execvp, when the launcher must know the command really started.
void send_exec_in_child(int fd);

}  // namespace rf::engine
