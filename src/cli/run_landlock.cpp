// SPDX-License-Identifier: LGPL-2.1-or-later
// The landlock level of `ringfence run`. There is no mount namespace, so the sandbox sees the
// host's tree and Landlock decides what it may touch: system directories read and execute (/etc
// piece by piece, so that its secrets stay out), a few /dev nodes, /proc read, the project, the
// throwaway HOME and a private TMPDIR read-write, the agent's own entries as its profile says.
// Everything else (the real home, other projects, /tmp, /run, /var, /sys) is refused.
#include "run_landlock.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "run_etc.hpp"
#include "run_fs.hpp"

namespace rf::cli {
namespace {

using base::Error;
using base::Status;
using Rule = spec::Spec::FsRule;

constexpr unsigned kR = Rule::Read;
constexpr unsigned kW = Rule::Write;
constexpr unsigned kX = Rule::Execute;
constexpr unsigned kIoctl = Rule::Ioctl;

// The directories the kernel jail binds read-only (run_fs.cpp add_system_dirs), /etc apart.
const char* const kSystemRoots[] = {"/usr",   "/bin",    "/sbin", "/lib", "/lib32",
                                    "/lib64", "/libx32", "/opt",  "/nix"};
// Where a symlink in /etc may not lead, even to a single file: homes, shared temp, mounts.
const char* const kNeverThrough[] = {"/home", "/root",  "/tmp", "/var/tmp",
                                     "/mnt",  "/media", "/srv", "/run/user"};

void rule(RunPlan& plan, const std::string& path, unsigned rights, bool allow_missing = true) {
  plan.spec.landlock_rules.push_back({path, rights, allow_missing});
}

bool under_any(const std::string& path, const std::vector<std::string>& roots) {
  return std::any_of(roots.begin(), roots.end(),
                     [&path](const std::string& r) { return base::is_under(path, r); });
}

base::Result<std::vector<std::string>> entries_of(const std::string& dir) {
  base::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return base::errno_error("cannot list " + dir);
  DIR* d = ::fdopendir(fd.release());
  if (!d) return base::errno_error("cannot list " + dir);
  std::vector<std::string> out;
  while (dirent* e = ::readdir(d))
    if (std::string n = e->d_name; n != "." && n != "..") out.push_back(n);
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

// `dir` with `rights`, except the paths in `hidden`: Landlock cannot take a file out of an
// allowed tree, so a directory holding a hidden path is allowed entry by entry instead, down to
// the hidden ones. Entries created after the start are not covered (refused). A symlink entry
// is granted at its target only when that is a single file outside every home and shared temp
// directory (/etc/resolv.conf -> /run/systemd/resolve/stub-resolv.conf); a target inside the
// system roots, /etc or /proc needs no rule of its own.
Status allow_except(RunPlan& plan, const std::string& dir, const std::vector<std::string>& hidden,
                    unsigned rights, const std::vector<std::string>& roots, const std::string& real_home,
                    int depth) {
  RF_TRY_ASSIGN(names, entries_of(dir));
  for (const auto& name : names) {
    const std::string p = dir + "/" + name;
    if (std::find(hidden.begin(), hidden.end(), p) != hidden.end()) continue;
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      const std::string t = real_path(p);
      if (t.empty() || under_any(t, hidden) || under_any(t, roots) || base::is_under(t, "/etc") ||
          base::is_under(t, "/proc"))  // /etc/mtab: /proc is readable by its own rule
        continue;
      struct stat ts {};
      if (::stat(t.c_str(), &ts) != 0 || !S_ISREG(ts.st_mode)) continue;
      bool outside = base::is_under(t, real_home) || base::is_under(t, plan.project);
      for (const char* n : kNeverThrough) outside = outside || base::is_under(t, n);
      if (!outside) rule(plan, t, kR);
      continue;
    }
    bool holds_hidden = std::any_of(hidden.begin(), hidden.end(),
                                    [&p](const std::string& h) { return h != p && base::is_under(h, p); });
    if (holds_hidden && S_ISDIR(st.st_mode)) {
      // Deeper than that, the whole directory stays refused.
      if (depth < 8) RF_TRY(allow_except(plan, p, hidden, rights, roots, real_home, depth + 1));
    } else {
      rule(plan, p, rights);
    }
  }
  return {};
}

// The parent directories of a relative path in HOME, in order ("a/b/c" -> "a", "a/b").
void add_parents(RunPlan& plan, const std::string& rel) {
  for (auto slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
    std::string d = rel.substr(0, slash);
    if (std::find(plan.home_dirs.begin(), plan.home_dirs.end(), d) == plan.home_dirs.end())
      plan.home_dirs.push_back(d);
  }
}

// The agent's directories linked into the throwaway HOME and granted as its list says: its own
// directory read and execute, so that nothing can be changed, replaced or made at its top (no
// rename, link or removal either), and the writable entries inside it read-write. Those are
// reached through the linked directory and need no link of their own.
// The agent's state (agent_state.hpp) instead: its directories, linked by prepare, read-write (a
// throwaway copy lies in the throwaway HOME, which is granted as a whole).
Status add_agent(RunPlan& plan, const presets::AgentProfile& agent, const std::string& real_home) {
  if (plan.agent_state.active()) {
    if (plan.agent_state.kept())
      for (const auto& d : plan.agent_state.dirs)
        rule(plan, plan.agent_state.home() + "/" + d, kR | kW | kX, false);
    return {};
  }
  RF_TRY_ASSIGN(items, agent_grants(plan, agent, real_home));
  for (const auto& item : items) {
    if (item.parent.empty()) {
      add_parents(plan, item.config->path);
      plan.home_links.emplace_back(item.config->path, item.host);
    }
    rule(plan, item.host, item.writable() ? kR | kW | kX : kR | kX);
  }
  return {};
}

// The terminal the command inherits on fds 0-2, so that it can open it again by name
// (`> /dev/stderr`); it has it open already.
void add_terminal(RunPlan& plan) {
  for (int fd = 0; fd <= 2; ++fd) {
    char name[PATH_MAX];
    if (!::isatty(fd) || ::ttyname_r(fd, name, sizeof name) != 0) continue;
    std::string t = real_path(name);
    struct stat st {};
    if (t.empty() || !base::is_under(t, "/dev") || ::stat(t.c_str(), &st) != 0 || !S_ISCHR(st.st_mode))
      continue;
    bool seen = std::any_of(plan.spec.landlock_rules.begin(), plan.spec.landlock_rules.end(),
                            [&t](const Rule& r) { return r.path == t; });
    if (!seen) rule(plan, t, kR | kW | kIoctl);
  }
}

}  // namespace

Status add_landlock_jail(RunPlan& plan, const RunOptions& opts, const presets::AgentProfile& agent, int abi,
                         const std::string& cwd) {
  spec::Spec& s = plan.spec;
  s.jail = spec::Jail::Landlock;
  const std::string& real_home = plan.home_inside;  // the caller's home (HostSnapshot::home)

  std::vector<std::string> roots;
  for (const char* r : kSystemRoots) {
    struct stat st {};
    if (::lstat(r, &st) != 0) continue;
    rule(plan, r, kR | kX);
    if (std::string t = S_ISLNK(st.st_mode) ? real_path(r) : std::string(r); !t.empty()) roots.push_back(t);
  }
  std::vector<std::string> hidden;
  for (const auto& secret : presets::system_secret_paths()) {
    glob_t g{};
    if (::glob(secret.path.c_str(), GLOB_NOSORT, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        hidden.push_back(g.gl_pathv[i]);
        plan.masked.push_back(g.gl_pathv[i]);
      }
    ::globfree(&g);
  }
  // And every other entry of /etc that is not world-readable (as the kernel jail covers them).
  const PrivateEntries priv = private_entries("/etc");
  for (const auto& p : priv.paths)
    if (!under_any(p, hidden)) {
      hidden.push_back(p);
      plan.masked.push_back(p);
    }
  if (priv.truncated) plan.notes.push_back(kEtcTruncatedNote);
  if (struct stat st{}; ::stat("/etc", &st) == 0)
    RF_TRY(allow_except(plan, "/etc", hidden, kR | kX, roots, real_home, 0));

  for (const char* d : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"})
    rule(plan, d, kR | kW);
  rule(plan, "/dev/tty", kR | kW | kIoctl);
  add_terminal(plan);
  rule(plan, "/proc", kR);

  const bool rw = plan.settings.project_writable;
  rule(plan, plan.project, kR | kX | (rw ? kW : 0), false);
  if (opts.workspace)
    plan.notes.push_back("--workspace: no /workspace at the landlock level (no mount namespace)");
  auto bind = [&plan, &cwd](const std::string& item, unsigned rights) -> Status {
    auto colon = item.find(':');
    std::string src = item.substr(0, colon);
    // A link in the project is not followed: the sandbox could have made it point anywhere.
    auto real = host_path_nofollow_in(src, plan.project, cwd);
    if (!real) return real.error().reworded("bind source " + real.error().message());
    const std::string& t = *real;
    if (colon != std::string::npos && base::normalize(item.substr(colon + 1)) != t) {
      plan.notes.push_back("--bind/--ro-bind " + item +
                           ": a different destination needs a mount namespace; " + t +
                           " is reachable at its own path only");
    }
    rule(plan, t, rights, false);
    return {};
  };
  for (const auto& b : opts.binds) RF_TRY(bind(b, kR | kW | kX));
  for (const auto& b : opts.ro_binds) RF_TRY(bind(b, kR | kX));
  RF_TRY(add_agent(plan, agent, real_home));

  // What this level does not enforce (the dry run lists each as "not enforced: ...").
  const std::string at = "landlock level: ";
  plan.notes.push_back(at +
                       "masks do not apply: files in the project matching a mask (.env, *.pem, ...) are "
                       "readable (Landlock cannot take a file out of an allowed directory)");
  if (rw)
    plan.notes.push_back(at + "the project's .git/hooks and .git/config are writable (for the same reason)");
  plan.notes.push_back(at +
                       "no PID namespace: this user's other processes are listed in /proc (command lines, "
                       "status); their memory, environment and fds stay refused (Landlock's ptrace scoping)");
  plan.notes.push_back(
      at + "no IPC namespace: System V IPC objects and POSIX message queues of the host are shared");
  if (abi < 6)
    plan.notes.push_back(at + "no abstract-socket or signal scoping (Landlock ABI " + std::to_string(abi) +
                         " < 6): signals to this user's other processes are not stopped");
  if (abi < 5)
    plan.notes.push_back(at + "ioctl on device nodes is not controlled (Landlock ABI " + std::to_string(abi) +
                         " < 5; seccomp still refuses TIOCSTI and TIOCLINUX)");
  if (abi < 3)
    plan.notes.push_back(at + "truncate(2) is not controlled (Landlock ABI " + std::to_string(abi) +
                         " < 3): files outside the project that this user may write can be truncated");
  if (abi < 2)
    plan.notes.push_back(at +
                         "renaming or linking across directories is refused everywhere (Landlock ABI 1)");
  return {};
}

Status prepare_landlock_home(RunPlan& plan, const std::string& tmp_dir) {
  for (const auto& d : plan.home_dirs) {
    std::string p = plan.home_host + "/" + d;
    if (::mkdir(p.c_str(), 0700) != 0 && errno != EEXIST) return base::errno_error("mkdir " + p);
  }
  for (const auto& [rel, host] : plan.home_links) {
    std::string p = plan.home_host + "/" + rel;
    if (::symlink(host.c_str(), p.c_str()) != 0) return base::errno_error("cannot link " + host + " at " + p);
  }
  plan.tmp_host = tmp_dir;
  rule(plan, plan.home_host, kR | kW | kX, false);
  rule(plan, plan.tmp_host, kR | kW | kX, false);
  plan.spec.env_ops.push_back({spec::EnvOp::Kind::Set, "TMPDIR", plan.tmp_host});
  return {};
}

}  // namespace rf::cli
