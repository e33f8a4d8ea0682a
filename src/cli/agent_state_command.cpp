// SPDX-License-Identifier: LGPL-2.1-or-later
// `ringfence agent-state list|show|reset`: the agents' kept states, looked at and removed.
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>

#include "agent_state_detail.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/log.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/remove_tree.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/cli/host_snapshot.hpp"
#include "ringfence/cli/native.hpp"
#include "ringfence/cli/native_run.hpp"
#include "ringfence/presets/agents.hpp"

namespace rf::cli {

using agent_state_detail::open_state_dir;
using agent_state_detail::read_below;
using agent_state_detail::size_text;
using base::Error;
using base::Result;
using base::Status;
using base::UniqueFd;

namespace {

// Sizes of a tree, following no link and entering no other file system, at most 64 deep.
struct TreeSize {
  std::uint64_t bytes = 0, entries = 0;
};

void measure(int dir, TreeSize& t, dev_t dev, int depth, const char* skip = nullptr) {
  DIR* d = ::fdopendir(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
  if (d == nullptr) return;
  std::vector<std::string> subdirs;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n == "." || n == ".." || (skip != nullptr && n == skip)) continue;
    struct stat st {};
    if (::fstatat(dir, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    ++t.entries;
    if (S_ISREG(st.st_mode)) t.bytes += static_cast<std::uint64_t>(st.st_size);
    if (S_ISDIR(st.st_mode) && st.st_dev == dev && depth < 64) subdirs.push_back(n);
  }
  ::closedir(d);
  for (const auto& n : subdirs) {
    UniqueFd sub(::openat(dir, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (sub.valid()) measure(sub.get(), t, dev, depth + 1);
  }
}

TreeSize measure_dir(int dir, const char* skip = nullptr) {
  TreeSize t;
  struct stat st {};
  if (::fstat(dir, &st) == 0) measure(dir, t, st.st_dev, 0, skip);
  return t;
}

std::vector<std::string> names_in(int dir) {
  std::vector<std::string> out;
  DIR* d = ::fdopendir(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d))
    if (std::string n = e->d_name; n != "." && n != ".." && !n.starts_with('.')) out.push_back(n);
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// The value of "KEY value" in a state's `made` note.
std::string made_field(int dir, const std::string& key) {
  auto text = read_below(dir, "made", "");
  if (!text || !*text) return {};
  for (const auto& l : base::split(**text, '\n'))
    if (l.starts_with(key + " ")) return l.substr(key.size() + 1);
  return {};
}

// $ROOT/agents/AGENT checked from the root down (ENOENT: there is none).
Result<UniqueFd> open_agent_dir(const std::string& root, const std::string& agent, uid_t uid) {
  AgentStatePlan s;
  s.mode = AgentStateMode::Shared;
  s.root = root;
  s.dir = root + "/agents/" + agent;
  return open_state_dir(s, uid, false);
}

bool ask_on_terminal(const std::string& question) {
  std::fputs(question.c_str(), stderr);
  std::fflush(stderr);
  char line[64];
  if (std::fgets(line, sizeof line, stdin) == nullptr) return false;
  std::string a(line);
  while (!a.empty() && (a.back() == '\n' || a.back() == '\r' || a.back() == ' ')) a.pop_back();
  return a == "y" || a == "Y" || a == "yes";
}

void print(const std::string& text) { std::fputs(text.c_str(), stdout); }

int fail(const Error& e) {
  base::log::error(e.describe_with_cause());
  return kExitSetup;
}

int list_states(const std::string& root, uid_t uid) {
  print("AGENT\tSIZE\tPATH\n");
  for (const auto& a : presets::all_agents()) {
    auto dir = open_agent_dir(root, a.name, uid);
    if (!dir) {
      if (dir.error().code() == ENOENT) continue;
      return fail(dir.error());
    }
    const std::string path = root + "/agents/" + a.name;
    print(a.name + "\t" + size_text(measure_dir(dir->get(), "projects").bytes) + "\t" + path + "\n");
    UniqueFd projects(::openat(dir->get(), "projects", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!projects.valid()) continue;
    for (const auto& n : names_in(projects.get())) {
      UniqueFd p(::openat(projects.get(), n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!p.valid()) continue;
      std::string project = made_field(p.get(), "project");
      print(a.name + " (project " + (project.empty() ? n : project) + ")\t" +
            size_text(measure_dir(p.get()).bytes) + "\t" + path + "/projects/" + n + "\n");
    }
  }
  return 0;
}

int show_state(const std::string& root, const std::string& agent, uid_t uid) {
  const std::string path = root + "/agents/" + agent;
  auto dir = open_agent_dir(root, agent, uid);
  if (!dir) {
    if (dir.error().code() != ENOENT) return fail(dir.error());
    print("agent " + agent + ": no state yet (its first run makes " + path + ")\n");
    return 0;
  }
  print("agent: " + agent + "\npath: " + path + "\n");
  const std::string made = made_field(dir->get(), "made");
  const std::string copied = made_field(dir->get(), "copied");
  const std::string from = made_field(dir->get(), "agent");
  print("made: " + (made.empty() ? std::string("(unknown)") : made) +
        (copied.empty()
             ? std::string()
             : " (copied from the host" + (from.empty() ? "" : " " + from.substr(5)) + ": " + copied + ")") +
        "\n");
  const TreeSize all = measure_dir(dir->get(), "projects");
  print("size: " + size_text(all.bytes) + " in " + std::to_string(all.entries) + " entries\n");
  UniqueFd home(::openat(dir->get(), "home", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (home.valid()) {
    print("entries (in " + path + "/home, presented in the sandbox's HOME):\n");
    DIR* d = ::fdopendir(::fcntl(home.get(), F_DUPFD_CLOEXEC, 0));
    std::vector<std::string> names;
    while (d != nullptr) {
      const dirent* e = ::readdir(d);
      if (e == nullptr) break;
      if (std::string n = e->d_name; n != "." && n != "..") names.push_back(n);
    }
    if (d != nullptr) ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      struct stat st {};
      if (::fstatat(home.get(), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        UniqueFd sub(::openat(home.get(), n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        TreeSize t = sub.valid() ? measure_dir(sub.get()) : TreeSize{};
        print("  ~/" + n + "/\t" + size_text(t.bytes) + ", " + std::to_string(t.entries) + " entries\n");
      } else {
        print("  ~/" + n + "\t" + size_text(static_cast<std::uint64_t>(st.st_size)) + "\n");
      }
    }
  }
  UniqueFd projects(::openat(dir->get(), "projects", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (projects.valid()) {
    const auto names = names_in(projects.get());
    print("project states: " + std::to_string(names.size()) + "\n");
    for (const auto& n : names) {
      UniqueFd p(::openat(projects.get(), n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!p.valid()) continue;
      std::string project = made_field(p.get(), "project");
      print("  " + (project.empty() ? n : project) + "\t" + size_text(measure_dir(p.get()).bytes) + "\t" +
            path + "/projects/" + n + "\n");
    }
  }
  return 0;
}

int reset_state(const std::string& root, const std::string& agent, uid_t uid, bool yes, bool interactive,
                bool (*confirm)(const std::string&)) {
  const std::string path = root + "/agents/" + agent;
  auto dir = open_agent_dir(root, agent, uid);
  if (!dir) {
    if (dir.error().code() != ENOENT) return fail(dir.error());
    print("agent " + agent + ": no state to reset (" + path + " does not exist)\n");
    return 0;
  }
  if (!yes) {
    const TreeSize t = measure_dir(dir->get());
    const std::string what = path + " (" + size_text(t.bytes) + ", " + std::to_string(t.entries) +
                             " entries: its logins, sessions, settings and every project's state)";
    if (!interactive) {
      base::log::error("agent-state reset: refusing to remove " + what +
                       " without --yes (stdin is not a terminal to ask on)");
      return kExitUsage;
    }
    if (!confirm("ringfence: remove " + what + "? [y/N] ")) {
      print("agent " + agent + ": kept\n");
      return 0;
    }
  }
  dir->reset();
  // Out of its name first, in one step: a run starting meanwhile sees the whole state or none.
  const std::string gone = root + "/agents/.reset-" + agent + "-" + std::to_string(::getpid());
  if (::rename(path.c_str(), gone.c_str()) != 0)
    return fail(base::errno_error("agent-state reset: cannot move " + path + " out of the way"));
  auto left = base::remove_tree(gone);
  if (!left.empty()) {
    for (std::size_t i = 0; i < left.size() && i < 20; ++i) base::log::warning("cannot remove " + left[i]);
    base::log::error("agent-state reset: " + path + " is gone from its place, but " +
                     std::to_string(left.size()) + " entries of it are left in " + gone);
    return kExitSetup;
  }
  print("agent " + agent + ": state removed (" + path + ")\n");
  return 0;
}

}  // namespace

int run_agent_state_command(const AgentStateCommand& cmd, const HostSnapshot& snapshot, bool interactive,
                            bool (*confirm)(const std::string& question)) {
  const std::string root = state_root(snapshot);
  if (cmd.op == AgentStateCommand::Op::List) return list_states(root, snapshot.uid);
  auto a = presets::agent_by_name(cmd.agent);
  if (!a || a->config.empty()) {
    std::string valid;
    for (const auto& known : presets::all_agents())
      if (!known.config.empty()) valid += (valid.empty() ? "" : ", ") + known.name;
    base::log::error("agent-state: " +
                     (a ? "agent " + cmd.agent + " keeps no state (it has no entries in HOME)"
                        : "unknown agent \"" + cmd.agent + "\"") +
                     " (valid: " + valid + ")");
    return kExitUsage;
  }
  if (cmd.op == AgentStateCommand::Op::Show) return show_state(root, a->name, snapshot.uid);
  return reset_state(root, a->name, snapshot.uid, cmd.yes, interactive, confirm);
}

int run_agent_state_command(const AgentStateCommand& cmd, const HostSnapshot& snapshot) {
  return run_agent_state_command(cmd, snapshot, ::isatty(0) == 1, ask_on_terminal);
}

}  // namespace rf::cli
