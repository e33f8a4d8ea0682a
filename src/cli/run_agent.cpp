// SPDX-License-Identifier: LGPL-2.1-or-later
// The walk of the agent's configuration list on the host, shared by the kernel level (binds into
// the throwaway HOME) and the landlock level (links into it and rules).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "run_fs.hpp"

namespace rf::cli {
namespace {

// `rel` below the open directory `top`, following no link: 0 when it is there as `directory`
// says, ENOENT when it (or a directory on the way) is missing, else the reason it is left out.
int look_below(int top, const std::string& rel, bool directory) {
  std::vector<std::string> parts = base::components(rel);
  base::UniqueFd dir(::fcntl(top, F_DUPFD_CLOEXEC, 0));
  for (std::size_t k = 0; dir.valid() && k + 1 < parts.size(); ++k) {
    dir =
        base::UniqueFd(::openat(dir.get(), parts[k].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.valid()) return errno == ENOENT ? ENOENT : ELOOP;
  }
  if (!dir.valid() || parts.empty()) return EINVAL;
  struct stat st {};
  if (::fstatat(dir.get(), parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return errno;
  if (S_ISLNK(st.st_mode)) return ELOOP;
  if (directory ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) return directory ? ENOTDIR : EISDIR;
  return 0;
}

// An entry inside an earlier directory of the list, looked up below it.
void decide_nested(AgentItem& item, const std::string& real_home, const std::vector<std::string>& present) {
  const auto& c = *item.config;
  item.decision = AgentDecision::Skip;
  if (std::find(present.begin(), present.end(), item.parent) == present.end()) return;
  const std::string top = real_home + "/" + item.parent;
  base::UniqueFd fd(::open(top.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return;
  const bool rw = c.access == presets::Access::ReadWrite;
  int why = look_below(fd.get(), item.below(), c.directory);
  if (why == ENOENT && rw && c.directory) {
    item.decision = AgentDecision::Make;
  } else if (why == ELOOP || why == ENOTDIR || why == EISDIR) {
    item.decision = AgentDecision::LeftAsIs;
    item.note = "agent: " + item.host + " is " +
                (why == ELOOP ? "a symbolic link" : "not of the kind expected") +
                ": left as it is, read-only";
  } else if (why == 0) {
    item.decision = AgentDecision::Grant;
  }
}

}  // namespace

bool AgentItem::writable() const { return config->access == presets::Access::ReadWrite; }

std::string AgentItem::below() const {
  return parent.empty() ? config->path : config->path.substr(parent.size() + 1);
}

base::Result<std::vector<AgentItem>> walk_agent_config(const presets::AgentProfile& agent,
                                                       const std::string& real_home) {
  std::vector<AgentItem> out;
  std::vector<std::string> present;  // the list's directories found on the host
  for (const auto& c : agent.config) {
    AgentItem item;
    item.config = &c;
    item.host = real_home + "/" + c.path;
    for (const auto& other : agent.config) {
      if (&other == &c) break;
      if (other.directory && c.path.starts_with(other.path + "/")) {
        item.parent = other.path;
        break;
      }
    }
    if (!item.parent.empty()) {
      decide_nested(item, real_home, present);
      if (c.directory && (item.decision == AgentDecision::Grant || item.decision == AgentDecision::Make))
        present.push_back(c.path);
      out.push_back(std::move(item));
      continue;
    }
    struct stat st {};
    if (::stat(item.host.c_str(), &st) != 0) {
      if (!c.optional) return base::errno_error("agent " + agent.name + " needs " + item.host);
      item.decision = AgentDecision::Skip;
    } else if (c.transfer == presets::Transfer::Copy) {
      item.decision = S_ISREG(st.st_mode) ? AgentDecision::Copy : AgentDecision::Skip;
    } else {
      item.decision = AgentDecision::Grant;
      if (c.directory && S_ISDIR(st.st_mode)) present.push_back(c.path);
    }
    out.push_back(std::move(item));
  }
  return out;
}

base::Result<std::vector<AgentItem>> agent_grants(RunPlan& plan, const presets::AgentProfile& agent,
                                                  const std::string& real_home) {
  RF_TRY_ASSIGN(items, walk_agent_config(agent, real_home));
  std::vector<AgentItem> granted;
  for (auto& item : items) {
    switch (item.decision) {
      case AgentDecision::Copy: plan.copies.push_back({item.host, item.config->path, false}); break;
      case AgentDecision::LeftAsIs: plan.notes.push_back(item.note); break;
      case AgentDecision::Skip: break;
      case AgentDecision::Make:
        plan.agent_make.push_back({real_home + "/" + item.parent, item.below()});
        granted.push_back(std::move(item));
        break;
      case AgentDecision::Grant: granted.push_back(std::move(item)); break;
    }
  }
  return granted;
}

}  // namespace rf::cli
