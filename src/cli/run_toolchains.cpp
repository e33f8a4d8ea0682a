// SPDX-License-Identifier: LGPL-2.1-or-later
// Toolchains in the kernel jail. The throwaway HOME hides what the caller installed under the
// real home (rustup, pyenv, nvm, Claude Code's ~/.local/bin...) and the root holds only the system
// directories, so PATH would name folders that are not there. The well-known toolchain
// directories of the home and the folders PATH names that are missing inside are bound read-only
// at their own paths (never the home itself, a folder of secrets, another user's home, a folder
// holding the project or the home, scratch or device trees); their credential files are covered;
// the PATH entries still missing are dropped from the command's PATH and listed.
#include "run_toolchains.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "exec_resolve.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "run_fs.hpp"

namespace rf::cli {
namespace {

// Below the home: each bound read-only when it exists. ~/go/bin only of Go's tree: ~/go/pkg holds
// the module cache, which go writes (the sandbox's own, in its throwaway HOME).
constexpr const char* kWellKnown[] = {".cargo/bin", ".rustup", ".pyenv", ".nvm",   ".local/bin",
                                      "go/bin",     ".bun",    ".deno",  ".sdkman"};
// Below the home, never bound (PATH may name a folder in them): keys and credentials.
constexpr const char* kSecretDirs[] = {".ssh",           ".gnupg",
                                       ".aws",           ".azure",
                                       ".kube",          ".docker",
                                       ".config/gcloud", ".password-store",
                                       ".vault",         ".local/share/keyrings"};
// Outside the home, never bound: other users' homes, scratch trees shared with other users,
// kernel and device trees, mounted disks (WSL's Windows drives among them).
constexpr const char* kNoOutside[] = {"/home", "/root",  "/tmp",       "/var/tmp", "/dev",
                                      "/proc", "/sys",   "/run",       "/var/run", "/boot",
                                      "/mnt",  "/media", "/lost+found"};
// Inside a bound toolchain directory: files that hold registry tokens, covered with an empty file.
constexpr const char* kCredentialFiles[] = {"credentials", "credentials.toml", ".credentials.toml",
                                            ".npmrc",      "etc/npmrc",        "versions/node/*/etc/npmrc",
                                            ".pypirc",     ".netrc",           ".git-credentials",
                                            "bunfig.toml", ".yarnrc.yml",      "install/global/.npmrc"};
// Variables naming a toolchain's root, bound (the folder, or for CARGO_HOME its bin) and passed.
struct RootVar {
  const char* name;
  const char* bound;  // what of it is bound: "" the folder, else a folder below it
};
constexpr RootVar kRootVars[] = {{"RUSTUP_HOME", ""}, {"CARGO_HOME", "bin"}, {"PYENV_ROOT", ""},
                                 {"NVM_DIR", ""},     {"SDKMAN_DIR", ""},    {"BUN_INSTALL", ""},
                                 {"DENO_INSTALL", ""}};
// Passed when the folder they name is inside the sandbox.
constexpr const char* kPathVars[] = {"JAVA_HOME", "GOROOT", "NVM_BIN", "NVM_INC", "SDKMAN_CANDIDATES_DIR"};
// Passed as they are: versions, never paths or secrets.
constexpr const char* kPlainVars[] = {"PYENV_VERSION", "RUSTUP_TOOLCHAIN", "NODE_VERSION"};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

struct Planner {
  RunPlan& plan;
  const std::string& home;
  bool on;
  std::vector<FsOp> ops;  // inserted before the project's bind
  std::vector<std::string> bound_dests;
  bool landlock = false;  // Landlock rules (read, execute) instead of binds

  // Inside the sandbox at `path`: something the plan binds there (not the throwaway HOME itself);
  // at the landlock level, a path a rule lets the command read.
  bool visible(const std::string& path) const {
    if (landlock) {
      return std::any_of(plan.spec.landlock_rules.begin(), plan.spec.landlock_rules.end(),
                         [&](const auto& r) {
                           return (r.rights & spec::Spec::FsRule::Read) && base::is_under(path, r.path);
                         });
    }
    for (const auto& o : plan.spec.fs_ops) {
      const bool bind = o.kind == OpKind::Bind || o.kind == OpKind::RoBind || o.kind == OpKind::Symlink;
      if (!bind || (o.kind == OpKind::Bind && o.source.empty() && o.dest == home)) continue;
      if (base::is_under(path, o.dest)) return true;
    }
    return std::any_of(bound_dests.begin(), bound_dests.end(),
                       [&](const std::string& d) { return base::is_under(path, d); });
  }

  std::string shown(const std::string& p) const {
    return base::is_under(p, home) && p != home ? "~/" + p.substr(home.size() + 1) : p;
  }

  // Covers the credential files a bound folder holds (found on the host, at their dest inside).
  void cover_credentials(const std::string& source, const std::string& dest) {
    for (const char* rel : kCredentialFiles) {
      glob_t g{};
      const std::string pattern = source + "/" + rel;
      if (::glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; ++i) {
          const std::string found = g.gl_pathv[i];
          struct stat st {};
          if (::lstat(found.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
          const std::string at = dest + found.substr(source.size());
          FsOp m;
          m.dest = at;
          m.dest_optional = true;
          if (S_ISDIR(st.st_mode)) {
            m.kind = OpKind::Tmpfs;
            m.perms = 0755;
            ops.push_back(m);
            m.kind = OpKind::RemountRo;
            m.perms.reset();
          } else {
            m.kind = OpKind::RoBindData;
            m.empty = true;
            m.perms = 0444;
          }
          ops.push_back(m);
          plan.masked.push_back(at);
        }
      }
      ::globfree(&g);
    }
  }

  // A folder granted read and execute; one that holds a credential file is not (a rule cannot
  // leave a file out), with a note.
  void grant(const std::string& path) {
    for (const char* rel : kCredentialFiles) {
      glob_t g{};
      const bool found = ::glob((path + "/" + rel).c_str(), GLOB_NOSORT, nullptr, &g) == 0 && g.gl_pathc > 0;
      ::globfree(&g);
      if (found) {
        plan.notes.push_back("toolchains: " + shown(path) + " not granted at the landlock level: it holds " +
                             rel + ", which a Landlock rule cannot leave out");
        return;
      }
    }
    plan.spec.landlock_rules.push_back({path, spec::Spec::FsRule::Read | spec::Spec::FsRule::Execute, true});
    plan.toolchains.push_back(shown(path));
    if (base::components(path).back() == "bin") follow_links(path);
  }

  void bind(const std::string& source, const std::string& beneath, const std::string& dest) {
    if (landlock) return grant(source);
    FsOp o;
    o.kind = OpKind::RoBind;
    o.source = source;
    o.dest = dest;
    o.source_beneath = beneath;
    o.allow_missing = true;  // gone since: nothing to bind
    ops.push_back(o);
    bound_dests.push_back(dest);
    plan.toolchains.push_back(shown(dest) + (source == dest ? "" : " (from " + source + ")"));
    cover_credentials(source, dest);
    if (base::components(source).back() == "bin") follow_links(source);
  }

  // The links of a bound bin folder that lead out of everything bound (Claude Code's
  // ~/.local/bin/claude -> ~/.local/share/claude/versions/V, pipx's scripts in their
  // virtualenvs): the folder of each target is bound too, or, when it is a bin folder itself,
  // the prefix holding it (a virtualenv needs its lib/ and pyvenv.cfg). The first 1000 entries.
  void follow_links(const std::string& dir) {
    base::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    DIR* d = fd.valid() ? ::fdopendir(fd.release()) : nullptr;
    if (d == nullptr) return;
    std::vector<std::string> targets;
    int budget = 1000;
    while (const dirent* e = ::readdir(d)) {
      if (--budget < 0) break;
      if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN) continue;
      const std::string entry = dir + "/" + e->d_name;
      struct stat st {};
      char buf[PATH_MAX];
      if (::lstat(entry.c_str(), &st) != 0 || !S_ISLNK(st.st_mode) ||
          ::realpath(entry.c_str(), buf) == nullptr)
        continue;
      std::string folder = base::parent(buf);
      if (base::components(folder).empty()) continue;
      // A link to a file already inside (another name in the same folder, as rustup's proxies,
      // or /usr/bin): nothing to add.
      if (folder == dir || visible(buf)) continue;
      if (base::components(folder).back() == "bin") folder = base::parent(folder);
      if (std::find(targets.begin(), targets.end(), folder) == targets.end()) targets.push_back(folder);
    }
    ::closedir(d);
    for (const auto& t : targets) {
      if (visible(t)) continue;
      if (std::string why = dir_of_link(t); !why.empty())
        plan.notes.push_back("toolchains: " + shown(t) + " (links in " + shown(dir) +
                             " lead there) not bound: " + why);
    }
  }

  std::string dir_of_link(const std::string& path);

  // A folder below the home: why it is not bound, or "" once it is (or already was) inside.
  std::string home_dir(const std::string& path, bool named_as_toolchain) {
    if (path == home) return "it is the home directory itself";
    if (visible(path)) return "";
    const std::string rel = path.substr(home.size() + 1);
    for (const char* s : kSecretDirs)
      if (base::is_under(rel, s)) return std::string("it lies in ~/") + s + ", which holds credentials";
    if (base::is_under(plan.project, path)) return "it holds the project";
    // Each component below the home looked at without following a link (the engine binds it so).
    std::string at = home;
    for (const auto& c : base::components(rel)) {
      at += "/" + c;
      struct stat st {};
      if (::lstat(at.c_str(), &st) != 0) return "it does not exist on the host";
      if (S_ISLNK(st.st_mode))
        return shown(at) +
               " is a symbolic link (links below the home are not followed; --ro-bind the folder "
               "it points to)";
    }
    if (!is_dir(path)) return "it is not a directory";
    const bool toolchain = named_as_toolchain || base::components(rel).back() == "bin" ||
                           std::any_of(std::begin(kWellKnown), std::end(kWellKnown),
                                       [&](const char* w) { return base::is_under(rel, w); });
    if (!toolchain) return "it is neither a bin folder nor a known toolchain's (--ro-bind it)";
    if (!on) return "--toolchains off";
    bind(path, home, path);
    return "";
  }

  // A folder outside the home: why it is not bound, or "" once it is (or already was) inside.
  std::string outside_dir(const std::string& path) {
    char buf[PATH_MAX];
    if (::realpath(path.c_str(), buf) == nullptr) return "it does not exist on the host";
    const std::string real = buf;
    if (!is_dir(real)) return "it is not a directory";
    if (visible(path) && visible(real)) return "";
    for (const auto& p : {path, real}) {
      if (base::components(p).size() < 2) return "it is / or a top-level directory as a whole";
      if (base::is_under(p, home)) return "it leads into the home directory";
      for (const char* n : kNoOutside)
        if (base::is_under(p, n)) return std::string("it lies in ") + n;
      if (base::is_under(plan.project, p) || base::is_under(home, p))
        return "it holds the project or the home";
      if (base::is_under(p, plan.project)) return "it leads into the project";
    }
    if (!on) return "--toolchains off";
    bind(real, "/", visible(path) ? real : path);
    return "";
  }

  // Any folder: below the home or not.
  std::string dir(const std::string& path, bool named_as_toolchain) {
    return base::is_under(path, home) ? home_dir(path, named_as_toolchain) : outside_dir(path);
  }
};

std::string Planner::dir_of_link(const std::string& path) { return dir(path, true); }

// The PATH the command gets before pruning: --env PATH=V, else the host's.
std::optional<std::string> given_path(const RunOptions& opts, const HostSnapshot& snap) {
  std::optional<std::string> out = snap.env("PATH");
  for (const auto& e : opts.env)
    if (e.starts_with("PATH=")) out = e.substr(5);
  return out;
}

bool given_by_env(const RunOptions& opts, const std::string& name) {
  return std::any_of(opts.env.begin(), opts.env.end(),
                     [&](const std::string& e) { return e == name || e.starts_with(name + "="); });
}

// The home's well-known toolchains and the folders the root variables name.
void plan_roots(Planner& p, const HostSnapshot& snap) {
  RunPlan& plan = p.plan;
  const std::string& home = p.home;
  for (const char* rel : kWellKnown) {
    const std::string path = home + "/" + rel;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (std::string why = p.home_dir(path, true); !why.empty())
      plan.notes.push_back("toolchains: " + p.shown(path) + " not bound: " + why);
  }
  for (const auto& v : kRootVars) {
    auto value = snap.env(v.name);
    if (!value || !value->starts_with('/')) continue;
    const std::string root = base::normalize(*value);
    const std::string path = *v.bound ? root + "/" + v.bound : root;
    if (!is_dir(path)) continue;
    if (std::string why = p.dir(path, true); !why.empty())
      plan.notes.push_back(std::string("toolchains: ") + v.name + " names " + p.shown(path) +
                           ", not bound: " + why);
  }
}

// The variables the tools need, when what they name is inside.
void plan_variables(Planner& p, const HostSnapshot& snap) {
  RunPlan& plan = p.plan;
  const std::string& home = p.home;
  // A root's path when it is inside; CARGO_HOME also when it is below the home (the throwaway
  // HOME holds its registry cache, its bin bound over).
  for (const auto& v : kRootVars) {
    auto value = snap.env(v.name);
    if (!value || !value->starts_with('/')) continue;
    const std::string root = base::normalize(*value);
    const bool below_home = base::is_under(root, home) && root != home;
    if (p.visible(root) || (!p.landlock && std::string(v.name) == "CARGO_HOME" && below_home))
      plan.toolchain_env.emplace_back(v.name, *value);
  }
  for (const char* name : kPathVars) {
    auto value = snap.env(name);
    if (value && value->starts_with('/') && p.visible(base::normalize(*value)))
      plan.toolchain_env.emplace_back(name, *value);
  }
  for (const char* name : kPlainVars)
    if (auto value = snap.env(name); value && !value->empty()) plan.toolchain_env.emplace_back(name, *value);
}

}  // namespace

Status add_toolchains(RunPlan& plan, const RunOptions& opts, const HostSnapshot& snap) {
  const std::string home = plan.home_inside;
  Planner p{plan, home, opts.toolchains.value_or("auto") != "off", {}, {}};
  if (p.on) plan_roots(p, snap);
  if (auto path = given_path(opts, snap)) {
    std::vector<std::string> kept;
    for (const auto& entry : base::split(*path, ':')) {
      const std::string e(entry);
      if (e.empty() || !e.starts_with('/')) {  // the working directory: the project, inside
        kept.push_back(e);
        continue;
      }
      const std::string norm = base::normalize(e);
      std::string why = p.dir(norm, false);
      // Missing on the host but in a place the command can write (the project, the throwaway
      // HOME): kept, for what is installed there inside (pip install --user, npm's .bin).
      const bool writable_place =
          base::is_under(norm, plan.project) || (base::is_under(norm, home) && norm != home);
      if (why.empty() || (why == "it does not exist on the host" && writable_place)) {
        kept.push_back(e);
        continue;
      }
      const std::string s = p.shown(norm);
      if (std::find(plan.path_dropped.begin(), plan.path_dropped.end(), s) == plan.path_dropped.end()) {
        plan.path_dropped.push_back(s);
        if (why != "it does not exist on the host" && why != "--toolchains off")
          plan.notes.push_back("toolchains: PATH entry " + s + " not bound: " + why);
      }
    }
    std::string value;
    for (std::size_t i = 0; i < kept.size(); ++i) value += (i ? ":" : "") + kept[i];
    plan.path_inside = value;
  }
  plan_variables(p, snap);
  // Before the project's bind: the project, its .git and the caller's binds stay on top.
  auto& all = plan.spec.fs_ops;
  auto at = std::find_if(all.begin(), all.end(), [&](const FsOp& o) {
    return (o.kind == OpKind::Bind || o.kind == OpKind::RoBind) && o.source == plan.project &&
           o.dest == plan.project;
  });
  all.insert(at, p.ops.begin(), p.ops.end());
  return {};
}

Status add_landlock_toolchains(RunPlan& plan, const RunOptions& opts, const HostSnapshot& snap) {
  const std::string home = plan.home_inside;
  Planner p{plan, home, opts.toolchains.value_or("auto") != "off", {}, {}, true};
  if (!p.on) return {};
  plan_roots(p, snap);
  if (auto path = given_path(opts, snap)) {
    for (const auto& e : base::split(*path, ':')) {
      if (!e.starts_with('/')) continue;
      const std::string norm = base::normalize(e);
      std::string why = p.dir(norm, false);
      if (!why.empty() && why != "it does not exist on the host")
        plan.notes.push_back("toolchains: PATH entry " + p.shown(norm) + " not granted: " + why);
    }
  }
  plan_variables(p, snap);
  // HOME is the throwaway directory's own path here: rustup and pyenv, which look below HOME
  // unless told, are told where the host's are.
  auto granted = [&](const std::string& d) { return p.visible(d) && is_dir(d); };
  if (!snap.env("RUSTUP_HOME") && granted(home + "/.rustup"))
    plan.toolchain_env.emplace_back("RUSTUP_HOME", home + "/.rustup");
  if (!snap.env("PYENV_ROOT") && granted(home + "/.pyenv"))
    plan.toolchain_env.emplace_back("PYENV_ROOT", home + "/.pyenv");
  return {};
}

void apply_toolchains(RunPlan& plan, const RunOptions& opts, const HostSnapshot& snap) {
  auto& env = plan.spec.env_ops;
  for (auto& e : env)
    if (e.kind == spec::EnvOp::Kind::Set && e.name == "PATH" && plan.path_inside) e.value = *plan.path_inside;
  for (const auto& [name, value] : plan.toolchain_env) {
    if (given_by_env(opts, name)) continue;
    env.push_back({spec::EnvOp::Kind::Set, name, value});
    auto& d = plan.dropped_env;
    d.erase(std::remove(d.begin(), d.end(), name), d.end());
  }
  // Where the command is on the host, when it would not be found inside.
  if (opts.command.empty()) return;
  const std::string& cmd = opts.command.front();
  auto host_path = snap.env("PATH");
  std::string on_host;
  if (cmd.find('/') != std::string::npos) {
    if (cmd.starts_with('/') && ::access(cmd.c_str(), X_OK) == 0) on_host = cmd;
  } else if (host_path) {
    auto found = executables_for(cmd, *host_path);
    if (found && !found->empty()) {
      // The name on PATH, not the file a link leads to.
      for (const auto& d : base::split(*host_path, ':')) {
        std::string candidate = std::string(d) + "/" + cmd;
        if (!d.empty() && d.front() == '/' && ::access(candidate.c_str(), X_OK) == 0) {
          on_host = candidate;
          break;
        }
      }
    }
  }
  if (on_host.empty()) return;
  const std::string dir = base::parent(base::normalize(on_host));
  const std::string& home = plan.home_inside;
  const bool below_home = base::is_under(dir, home) && dir != home;
  const std::string shown = below_home ? "~/" + dir.substr(home.size() + 1) : dir;
  std::string how;
  const bool toolchain_dir =
      below_home && (base::components(dir).back() == "bin" ||
                     std::any_of(std::begin(kWellKnown), std::end(kWellKnown), [&](const char* w) {
                       return base::is_under(dir.substr(home.size() + 1), w);
                     }));
  if (opts.toolchains.value_or("auto") == "off" && (toolchain_dir || !below_home))
    how = "--toolchains auto binds " + shown + ", or --ro-bind " + dir;
  else
    how = "--ro-bind " + dir + " brings it in";
  plan.missing_command_hint = cmd + " is " + on_host + " on the host, outside the sandbox; " + how;
}

std::string describe_toolchains(const RunPlan& plan) {
  std::string out;
  for (const auto& t : plan.toolchains) out += "toolchain (read-only): " + t + "\n";
  if (!plan.path_dropped.empty())
    out += "PATH entries not inside the sandbox: " + joined(plan.path_dropped) + "\n";
  if (!plan.gitconfig_kept.empty() || !plan.gitconfig_dropped.empty()) {
    out += "gitconfig: ~/.gitconfig in the throwaway HOME, from the host's: kept " +
           (plan.gitconfig_kept.empty() ? std::string("nothing") : joined(plan.gitconfig_kept)) + "\n";
    if (!plan.gitconfig_dropped.empty())
      out += "gitconfig: left out (they run programs, hold secrets or name host files): " +
             joined(plan.gitconfig_dropped) + "\n";
  }
  return out;
}

}  // namespace rf::cli
