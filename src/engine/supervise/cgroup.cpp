// SPDX-License-Identifier: LGPL-2.1-or-later
// The sandbox's cgroup: locate, create, limit, join, kill, remove (see cgroup.hpp).
#include "cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>

#include "ringfence/base/mountinfo.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::engine {
namespace {

using base::Error;
using base::Result;
using base::Status;

constexpr const char* kControllers[] = {"memory", "pids", "cpu"};

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    std::size_t end = s.find(sep, pos);
    out.push_back(s.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (end == std::string_view::npos) return out;
    pos = end + 1;
  }
}

bool has_token(std::string_view list, std::string_view token, char sep) {
  for (auto t : split(list, sep))
    if (t == token) return true;
  return false;
}

// mount point + (path below the mount's root), or "" when the path is not under that root.
std::string join_under(const base::MountEntry& m, const std::string& path) {
  if (!base::is_under(path, m.root)) return "";
  std::string rest = m.root == "/" ? path : path.substr(m.root.size());
  if (rest.empty() || rest == "/") return m.mount_point;
  return m.mount_point == "/" ? rest : m.mount_point + rest;
}

bool writable_dir(const std::string& dir) { return !dir.empty() && ::access(dir.c_str(), W_OK | X_OK) == 0; }

std::string read_trimmed(const std::string& path) {
  auto t = base::read_file(path);
  if (!t) return "";
  std::string s = *t;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The processes in a group's cgroup.procs.
std::vector<pid_t> members(const std::string& dir) {
  std::vector<pid_t> out;
  auto t = base::read_file(dir + "/cgroup.procs");
  if (!t) return out;
  for (auto line : split(*t, '\n')) {
    pid_t p = 0;
    if (std::from_chars(line.data(), line.data() + line.size(), p).ec == std::errc() && p > 0)
      out.push_back(p);
  }
  return out;
}

// The count after `key ` in a flat keyed file (memory.events, memory.oom_control).
std::uint64_t keyed_value(const std::string& text, std::string_view key) {
  for (auto line : split(text, '\n')) {
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ' ') {
      std::uint64_t v = 0;
      auto rest = line.substr(key.size() + 1);
      std::from_chars(rest.data(), rest.data() + rest.size(), v);
      return v;
    }
  }
  return 0;
}

// What this host offers, per controller: the v2 group when it delegates the controller to
// children (or can, by the move described below), else the v1 group when writable.
struct Placement {
  int version = 0;
  std::string parent;      // the group the sandbox's group is made in
  bool move_self = false;  // v2: we are the only process of `parent`; moved to a leaf first
  std::string why_not;
};

Placement place_controller(const std::vector<CgroupHome>& homes, std::string_view controller) {
  Placement p;
  std::string reasons;
  for (const auto& h : homes) {
    if (h.version != 2) continue;
    std::string available = read_trimmed(h.dir + "/cgroup.controllers");
    std::string delegated = read_trimmed(h.dir + "/cgroup.subtree_control");
    if (!has_token(available, controller, ' ')) {
      reasons = "cgroup v2 group " + h.dir + " does not offer the " + std::string(controller) + " controller";
      break;
    }
    if (!writable_dir(h.dir)) {
      reasons = "cgroup v2 group " + h.dir + " is not writable by uid " + std::to_string(::getuid()) +
                " (not delegated)";
      break;
    }
    if (has_token(delegated, controller, ' ')) return {2, h.dir, false, ""};
    auto procs = members(h.dir);
    if (procs.size() == 1 && procs.front() == ::getpid() &&
        ::access((h.dir + "/cgroup.subtree_control").c_str(), W_OK) == 0)
      return {2, h.dir, true, ""};
    reasons = "cgroup v2 group " + h.dir + " does not delegate " + std::string(controller) +
              " (cgroup.subtree_control) and holds other processes; run ringfence in a delegated group, e.g. "
              "systemd-run --user --scope -p Delegate=yes ringfence run ...";
    break;
  }
  for (const auto& h : homes) {
    if (h.version != 1 || h.controller != controller) continue;
    if (writable_dir(h.dir)) return {1, h.dir, false, ""};
    std::string why = "cgroup v1 " + std::string(controller) + " group " + h.dir +
                      " is not writable by uid " + std::to_string(::getuid());
    reasons = reasons.empty() ? why : reasons + "; " + why;
  }
  if (reasons.empty()) reasons = "no cgroup hierarchy offers the " + std::string(controller) + " controller";
  p.why_not = reasons;
  return p;
}

Result<std::vector<CgroupHome>> host_homes() {
  auto cg = base::read_file("/proc/self/cgroup");
  if (!cg) return cg.error().reworded("cgroup limits: " + cg.error().message());
  auto mi = base::read_file("/proc/self/mountinfo");
  if (!mi) return mi.error().reworded("cgroup limits: " + mi.error().message());
  return locate_cgroups(*cg, *mi);
}

Status write_to(const std::string& file, const std::string& value) {
  if (auto w = base::write_file(file, value); !w)
    return w.error().reworded("cgroup limits: cannot write " + value + " to " + file);
  return {};
}

// A name of our own under `parent` (a stale group from a dead run with the same pid is reused
// only when empty, which rmdir checks for us).
Result<std::string> make_group(const std::string& parent) {
  std::string base = parent + "/ringfence-" + std::to_string(::getpid());
  for (int i = 0; i < 100; ++i) {
    std::string dir = i == 0 ? base : base + "-" + std::to_string(i);
    if (::mkdir(dir.c_str(), 0755) == 0) return dir;
    if (errno != EEXIST) return base::errno_error("cgroup limits: cannot create " + dir);
    if (::rmdir(dir.c_str()) == 0 && ::mkdir(dir.c_str(), 0755) == 0) return dir;
  }
  return Error(EEXIST, "cgroup limits: cannot create a group under " + parent);
}

}  // namespace

Result<std::vector<CgroupHome>> locate_cgroups(std::string_view proc_cgroup, std::string_view mountinfo) {
  RF_TRY_ASSIGN(mounts, base::parse_mountinfo(mountinfo));
  std::vector<CgroupHome> out;
  for (auto line : split(proc_cgroup, '\n')) {
    if (line.empty()) continue;
    auto c1 = line.find(':');
    auto c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos)
      return Error(EINVAL, "/proc/self/cgroup: bad line '" + std::string(line) + "'");
    std::string_view id = line.substr(0, c1);
    std::string_view names = line.substr(c1 + 1, c2 - c1 - 1);
    std::string path(line.substr(c2 + 1));
    if (path.empty() || path[0] != '/') continue;  // "(unreachable)" paths: another namespace
    if (id == "0" && names.empty()) {
      for (const auto& m : mounts) {
        if (m.fs_type != "cgroup2") continue;
        std::string dir = join_under(m, path);
        if (dir.empty()) continue;
        out.push_back({"", 2, dir});
        break;
      }
      continue;
    }
    for (const char* c : kControllers) {
      if (!has_token(names, c, ',')) continue;
      for (const auto& m : mounts) {
        if (m.fs_type != "cgroup" || !has_token(m.super_options, c, ',')) continue;
        std::string dir = join_under(m, path);
        if (dir.empty()) continue;
        out.push_back({c, 1, dir});
        break;
      }
    }
  }
  return out;
}

CgroupSupport cgroup_support() {
  CgroupSupport s;
  auto homes = host_homes();
  for (const char* c : kControllers) {
    CgroupSupport::Controller ctl{c, false, ""};
    if (!homes) {
      ctl.detail = homes.error().message();
    } else {
      Placement p = place_controller(*homes, c);
      ctl.usable = p.version != 0;
      ctl.detail = ctl.usable ? "cgroup v" + std::to_string(p.version) + " under " + p.parent : p.why_not;
    }
    s.controllers.push_back(std::move(ctl));
  }
  return s;
}

const CgroupSupport::Controller* CgroupSupport::find(std::string_view name) const {
  for (const auto& c : controllers)
    if (c.name == name) return &c;
  return nullptr;
}

Result<std::unique_ptr<SandboxCgroup>> SandboxCgroup::create(const spec::CgroupLimits& limits) {
  RF_TRY_ASSIGN(homes, host_homes());
  std::unique_ptr<SandboxCgroup> cg(new SandboxCgroup());
  struct Want {
    const char* controller;
    bool on;
  };
  const Want wants[] = {{"memory", limits.memory_bytes.has_value()},
                        {"pids", limits.pids.has_value()},
                        {"cpu", limits.cpu_milli.has_value()}};
  // One group per parent directory: v2 has one for every controller, v1 one per hierarchy.
  std::vector<std::pair<Placement, std::vector<std::string>>> parents;
  for (const auto& w : wants) {
    if (!w.on) continue;
    Placement p = place_controller(homes, w.controller);
    if (p.version == 0)
      return Error(EPERM, std::string("--limit ") + w.controller + ": not enforceable here: " + p.why_not);
    auto it = std::find_if(parents.begin(), parents.end(),
                           [&p](const auto& e) { return e.first.parent == p.parent; });
    if (it == parents.end()) {
      parents.push_back({p, {w.controller}});
    } else {
      it->second.push_back(w.controller);
    }
  }
  for (auto& [p, controllers] : parents) {
    if (p.version == 2) {
      if (p.move_self) {
        // We are the only process of a delegated group: a group with processes cannot hand
        // controllers to children, so the launcher moves to a leaf first (systemd's pattern).
        std::string leaf = p.parent + "/ringfence-launcher";
        if (::mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST)
          return base::errno_error("cgroup limits: cannot create " + leaf);
        RF_TRY(write_to(leaf + "/cgroup.procs", "0"));
      }
      std::string enable;
      std::string delegated = read_trimmed(p.parent + "/cgroup.subtree_control");
      for (const auto& c : controllers)
        if (!has_token(delegated, c, ' ')) enable += (enable.empty() ? "+" : " +") + c;
      if (!enable.empty()) RF_TRY(write_to(p.parent + "/cgroup.subtree_control", enable));
    }
    RF_TRY_ASSIGN(dir, make_group(p.parent));
    cg->groups_.push_back(
        {p.version, dir, std::find(controllers.begin(), controllers.end(), "memory") != controllers.end()});
    const bool v2 = p.version == 2;
    for (const auto& c : controllers) {
      if (c == "memory") {
        std::string bytes = std::to_string(*limits.memory_bytes);
        RF_TRY(write_to(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"), bytes));
        // Swap counts too where the kernel accounts it (else the limit only moves pages to swap).
        std::string swap = dir + (v2 ? "/memory.swap.max" : "/memory.memsw.limit_in_bytes");
        if (::access(swap.c_str(), F_OK) == 0) RF_TRY(write_to(swap, v2 ? "0" : bytes));
      } else if (c == "pids") {
        RF_TRY(write_to(dir + "/pids.max", std::to_string(*limits.pids)));
      } else if (c == "cpu") {
        const std::uint64_t period = 100000;  // µs
        std::uint64_t quota = std::max<std::uint64_t>(1000, *limits.cpu_milli * period / 1000);
        if (v2) {
          RF_TRY(write_to(dir + "/cpu.max", std::to_string(quota) + " " + std::to_string(period)));
        } else {
          RF_TRY(write_to(dir + "/cpu.cfs_period_us", std::to_string(period)));
          RF_TRY(write_to(dir + "/cpu.cfs_quota_us", std::to_string(quota)));
        }
      }
    }
    int fd = ::open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return base::errno_error("cgroup limits: cannot open " + dir + "/cgroup.procs");
    cg->procs_fds_.push_back(fd);
  }
  return cg;
}

SandboxCgroup::~SandboxCgroup() {
  (void)finish();
  close_procs_fds();
}

void SandboxCgroup::close_procs_fds() {
  for (int fd : procs_fds_) ::close(fd);
  procs_fds_.clear();
}

bool SandboxCgroup::oom_killed() const {
  for (const auto& g : groups_) {
    if (!g.memory) continue;
    auto t = base::read_file(g.dir + (g.version == 2 ? "/memory.events" : "/memory.oom_control"));
    if (t && keyed_value(*t, "oom_kill") > 0) return true;
  }
  return false;
}

Status SandboxCgroup::finish() {
  if (finished_) return {};
  finished_ = true;
  close_procs_fds();
  Status result;
  for (const auto& g : groups_) {
    bool killed_at_once = g.version == 2 && base::write_file(g.dir + "/cgroup.kill", "1").has_value();
    // Up to ~2 s: SIGKILL every member until the group is empty and can be removed.
    for (int round = 0; round < 200; ++round) {
      auto left = members(g.dir);
      if (left.empty() && ::rmdir(g.dir.c_str()) == 0) break;
      if (left.empty() && errno == ENOENT) break;
      if (!killed_at_once)
        for (pid_t p : left) ::kill(p, SIGKILL);
      timespec ts{0, 10 * 1000 * 1000};
      ::nanosleep(&ts, nullptr);
    }
    if (::access(g.dir.c_str(), F_OK) == 0 && result.has_value())
      result = Error(EBUSY, "cgroup limits: could not remove " + g.dir + " (processes still in it)");
  }
  return result;
}

Status SandboxCgroup::move_in(pid_t pid) {
  const std::string text = std::to_string(pid);
  Status result;
  for (std::size_t i = 0; i < procs_fds_.size() && result.has_value(); ++i) {
    ssize_t n;
    while ((n = ::write(procs_fds_[i], text.data(), text.size())) < 0 && errno == EINTR) {}
    if (n != static_cast<ssize_t>(text.size()))
      result = base::errno_error("cgroup limits: cannot move the sandbox (pid " + text + ") into " +
                                 (i < groups_.size() ? groups_[i].dir : std::string("its cgroup")));
  }
  close_procs_fds();
  return result;
}

Status join_cgroups_in_child(const std::vector<int>& procs_fds) {
  for (int fd : procs_fds) {
    if (::write(fd, "0", 1) != 1)
      return base::errno_error("cgroup limits: cannot move the command into its cgroup");
    ::close(fd);
  }
  return {};
}

}  // namespace rf::engine
