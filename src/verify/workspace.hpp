// SPDX-License-Identifier: LGPL-2.1-or-later
// verify's temporary tree and the host canaries in it: a random token; a fake HOME standing for
// the real one (keys holding the token); a project with a .env holding it, .git/config and
// .git/hooks; a copy of the attack program inside the project (reachable at the same path at
// every level); a private XDG_RUNTIME_DIR for the runs' own state. All of it is removed.
#pragma once

#include <string>

#include "ringfence/base/result.hpp"

namespace rf::verify {

// 32 random hex digits (getrandom), prefixed so that a match is never an accident.
base::Result<std::string> make_token();

class Workspace {
public:
  // Under $TMPDIR (absolute) or /tmp: rf-verify-XXXXXX, 0700.
  static base::Result<Workspace> create(const std::string& token, const std::string& attack_program);
  Workspace(Workspace&& o) noexcept;
  Workspace& operator=(Workspace&&) = delete;
  Workspace(const Workspace&) = delete;
  ~Workspace();

  // Removes the tree (entries a sandbox made unreadable are opened up first). An error names
  // what stayed behind.
  base::Status remove();

  [[nodiscard]] const std::string& root() const { return root_; }
  [[nodiscard]] std::string home() const { return root_ + "/home"; }
  [[nodiscard]] std::string project() const { return root_ + "/project"; }
  [[nodiscard]] std::string runtime_dir() const { return root_ + "/run"; }
  [[nodiscard]] std::string logs() const { return root_ + "/logs"; }
  // The file in the fake HOME that the attacks try to read (an ssh key holding the token).
  [[nodiscard]] std::string home_canary() const { return home() + "/.ssh/id_ed25519"; }
  // The attack program's copy, inside the project.
  [[nodiscard]] std::string attack_copy() const { return project() + "/.rf-attack"; }

private:
  Workspace() = default;
  std::string root_;
};

}  // namespace rf::verify
