// SPDX-License-Identifier: LGPL-2.1-or-later
// The agent's state across runs: where it lives, how it is opened (no link followed, every
// directory from the state root down the user's own and writable by the user alone), the first
// use's copy of the host's entries, the files copied into the throwaway HOME and written back to
// the state after the run, and what the dry run says of it.
#include "ringfence/cli/agent_state.hpp"

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

using agent_state_detail::copy_host_entries;
using agent_state_detail::CopyBudget;
using agent_state_detail::open_below;
using agent_state_detail::open_state_dir;
using agent_state_detail::read_below;
using agent_state_detail::size_text;

namespace {

using base::Error;
using base::Result;
using base::Status;
using base::UniqueFd;

// A file the agent replaces by rename and that is written back: larger than this, it is not taken.
constexpr off_t kMaxStateFile = 64 << 20;

// One name below an open directory, a directory of ours: made 0700 where missing (`make`), opened
// following no link, refused when it is not a directory, not the user's own, or writable by the
// group or others. ENOENT (not made) is returned as such.
Result<UniqueFd> open_owned_dir(int parent, const std::string& name, const std::string& path, uid_t uid,
                                bool make) {
  if (make && ::mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST)
    return base::errno_error("agent state: cannot make " + path);
  UniqueFd fd(base::raw::openat2(parent, name.c_str(),
                                 base::OpenHow()
                                     .flags(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                     .resolve(RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)));
  if (!fd.valid()) {
    const int e = errno;
    if (e == ENOENT) return Error(ENOENT, "agent state: " + path + " does not exist");
    if (e == ELOOP || e == ENOTDIR) {
      struct stat st {};
      const bool link = ::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
      return Error(e, "agent state: " + path + (link ? " is a symbolic link" : " is not a directory") +
                          ": refused (the state must be a directory of yours, reached without a link)");
    }
    return Error(e, "agent state: cannot open " + path);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return base::errno_error("agent state: cannot stat " + path);
  if (st.st_uid != uid)
    return Error(EPERM, "agent state: " + path + " belongs to uid " + std::to_string(st.st_uid) +
                            ", not to you (uid " + std::to_string(uid) + "): refused");
  if ((st.st_mode & 022) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Error(EPERM, "agent state: " + path + " is writable by " +
                            ((st.st_mode & 002) ? "everyone" : "its group") + " (mode " + mode +
                            "): refused (chmod go-w " + path + ")");
  }
  return fd;
}

// A directory given by path, opened as the path says (its own links followed: it is the user's
// choice), made (0700, with its parents) where missing.
Result<UniqueFd> open_or_make_path(const std::string& path) {
  std::string so_far;
  for (const auto& part : base::components(path)) {
    so_far += "/" + part;
    if (::mkdir(so_far.c_str(), 0700) != 0 && errno != EEXIST)
      return base::errno_error("agent state: cannot make " + so_far);
  }
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return base::errno_error("agent state: cannot open " + path);
  return fd;
}

std::string now_text() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string joined(const std::vector<std::string>& v, const std::string& prefix) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + prefix + x;
  return out;
}

// The first use: DIR/home made under a temporary name, filled with the host's copy and a note
// of when and from where, then renamed into place without replacing anything (a run that got
// there first wins, and this copy goes). On any failure the temporary directory goes.
Status seed_state(const AgentStatePlan& s, int dir, std::vector<std::string>& info) {
  std::string tmpl = s.dir + "/home.new-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return base::errno_error("agent state: cannot make " + tmpl);
  const std::string tmp_name = tmpl.substr(s.dir.size() + 1);
  auto drop = [&tmpl] { (void)base::remove_tree(tmpl); };
  UniqueFd to(::openat(dir, tmp_name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!to.valid()) {
    Status e = base::errno_error("agent state: cannot open " + tmpl);
    drop();
    return e;
  }
  CopyBudget budget;
  auto copied = copy_host_entries(s, to.get(), budget);
  if (!copied) {
    drop();
    return copied.error();
  }
  std::string note = "made " + now_text() + "\nagent home " + s.host_home + "\ncopied " +
                     (copied->empty() ? std::string("nothing") : joined(*copied, "~/")) + "\n";
  if (!s.project.empty()) note += "project " + s.project + "\n";
  UniqueFd nf(::openat(dir, "made", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!nf.valid() || !base::write_all(nf.get(), note)) {
    Status e = base::errno_error("agent state: cannot write " + s.dir + "/made");
    drop();
    return e;
  }
  if (::renameat2(dir, tmp_name.c_str(), dir, "home", RENAME_NOREPLACE) != 0) {
    const int e = errno;
    drop();
    if (e != EEXIST) return Error(e, "agent state: cannot rename " + tmpl + " to " + s.home());
    return {};
  }
  info.push_back("agent state: made " + s.dir +
                 (copied->empty() ? " (the host has none of the agent's entries)"
                                  : " from the host's " + joined(*copied, "~/")) +
                 " (" + std::to_string(budget.entries) + " entries, " + size_text(budget.bytes) +
                 (budget.skipped ? ", " + std::to_string(budget.skipped) +
                                       " skipped: sockets, devices, links out of the tree"
                                 : std::string()) +
                 ")");
  return {};
}

// What first uses whose launcher was killed left: home.new-* of ours older than an hour (a copy
// of 1 GiB is made well within that). Best effort: what cannot be removed is tried next time.
void remove_stale_seeds(const std::string& dir_path, int dir, uid_t uid) {
  DIR* d = ::fdopendir(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
  if (d == nullptr) return;
  std::vector<std::string> stale;
  const time_t hour_ago = ::time(nullptr) - 3600;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    struct stat st {};
    if (n.starts_with("home.new-") && ::fstatat(dir, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISDIR(st.st_mode) && st.st_uid == uid && st.st_mtime < hour_ago)
      stale.push_back(dir_path + "/" + n);
  }
  ::closedir(d);
  for (const auto& p : stale) (void)base::remove_tree(p);
}

// `text` as the file `rel` below `dir` (its parents made 0700), written under a temporary name
// and renamed over: a reader sees the old file or the new one.
Status write_below(int dir, const std::string& rel, const std::string& text, const std::string& shown) {
  const std::string parent_rel = rel.find('/') == std::string::npos ? "" : rel.substr(0, rel.rfind('/'));
  RF_TRY_ASSIGN(p, open_below(dir, parent_rel, shown, true));
  const std::string name = rel.substr(rel.rfind('/') + 1);
  const std::string tmp = "." + name + ".rf-new";
  UniqueFd fd(::openat(p.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return base::errno_error("agent state: cannot create " + shown + "/" + tmp);
  if (auto w = base::write_all(fd.get(), text); !w) {
    (void)::unlinkat(p.get(), tmp.c_str(), 0);
    return w.error().reworded("agent state: cannot write " + shown + "/" + rel);
  }
  if (::renameat(p.get(), tmp.c_str(), p.get(), name.c_str()) != 0) {
    Status e = base::errno_error("agent state: cannot rename over " + shown + "/" + rel);
    (void)::unlinkat(p.get(), tmp.c_str(), 0);
    return e;
  }
  return {};
}

// An absolute path with "." and ".." taken away by its text alone (the directory may not exist yet).
std::string lexical(const std::string& path) {
  std::vector<std::string> out;
  for (const auto& part : base::components(path)) {
    if (part == "..") {
      if (!out.empty()) out.pop_back();
    } else {
      out.push_back(part);
    }
  }
  std::string joined_path;
  for (const auto& p : out) joined_path += "/" + p;
  return joined_path.empty() ? "/" : joined_path;
}

std::string mode_name(const AgentStatePlan& s) {
  switch (s.mode) {
    case AgentStateMode::Shared: return "one per agent";
    case AgentStateMode::Project: return "one per project";
    case AgentStateMode::Dir: return "a directory named by " + s.origin;
    case AgentStateMode::Throwaway: return "throwaway";
    case AgentStateMode::Host: return "host";
  }
  return "";
}

// SHA-256 (FIPS 180-4), for the per-project state's name.
struct Sha256 {
  std::array<std::uint32_t, 8> h{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  static std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
  void block(const unsigned char* p) {
    static constexpr std::array<std::uint32_t, 64> k = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::array<std::uint32_t, 64> w{};
    for (int i = 0; i < 16; ++i)
      w[i] = (std::uint32_t{p[4 * i]} << 24) | (std::uint32_t{p[4 * i + 1]} << 16) |
             (std::uint32_t{p[4 * i + 2]} << 8) | std::uint32_t{p[4 * i + 3]};
    for (int i = 16; i < 64; ++i) {
      std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::array<std::uint32_t, 8> v = h;
    for (int i = 0; i < 64; ++i) {
      std::uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
      std::uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      std::uint32_t t1 = v[7] + s1 + ch + k[i] + w[i];
      std::uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
      std::uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      std::uint32_t t2 = s0 + maj;
      v = {t1 + t2, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
    }
    for (int i = 0; i < 8; ++i) h[i] += v[i];
  }
};

// --agent-state host: what the sandbox writes in the real home, and what of it the host runs.
std::string host_state_warning(const presets::AgentProfile& agent) {
  std::vector<std::string> writable;
  for (const auto& c : agent.config)
    if (c.access == presets::Access::ReadWrite && c.transfer == presets::Transfer::Bind)
      writable.push_back(c.path);
  return "--agent-state host: the sandbox writes into the real home: " + joined(writable, "~/") +
         "; the agent on the host later reads and runs what is there unsandboxed (shell snapshots it "
         "sources, "
         "sessions it resumes, credentials it uses). Its settings, hooks, plugins and MCP server "
         "configuration "
         "stay read-only or private copies; the default (a state directory of ringfence's) writes none of "
         "the "
         "real home";
}

}  // namespace

namespace agent_state_detail {

using base::Error;
using base::Result;
using base::Status;
using base::UniqueFd;

// The state directory of `s`, opened and checked from the root (Shared, Project) or by itself
// (Dir); made where missing when `make`.
Result<UniqueFd> open_state_dir(const AgentStatePlan& s, uid_t uid, bool make) {
  const std::string& top = s.mode == AgentStateMode::Dir ? s.dir : s.root;
  const std::string above = base::parent(top);
  Result<UniqueFd> parent = make ? open_or_make_path(above) : [&]() -> Result<UniqueFd> {
    UniqueFd fd(::open(above.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return base::errno_error("agent state: cannot open " + above);
    return fd;
  }();
  if (!parent) return parent.error();
  const std::string top_name = top.substr(top.rfind('/') + 1);
  RF_TRY_ASSIGN(dir, open_owned_dir(parent->get(), top_name, top, uid, make));
  if (s.mode == AgentStateMode::Dir) return dir;
  std::string path = top;
  for (const auto& part : base::components(s.dir.substr(top.size()))) {
    path += "/" + part;
    RF_TRY_ASSIGN(next, open_owned_dir(dir.get(), part, path, uid, make));
    dir = std::move(next);
  }
  return dir;
}

std::string size_text(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  else if (bytes >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1ull << 20));
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
  return buf;
}

// A file below an open directory, following no link: its text when it is a regular file of at
// most kMaxStateFile bytes; nullopt when it is missing; an error for anything else.
Result<std::optional<std::string>> read_below(int dir, const std::string& rel, const std::string& shown) {
  const std::string parent_rel = rel.find('/') == std::string::npos ? "" : rel.substr(0, rel.rfind('/'));
  auto p = open_below(dir, parent_rel, shown, false);
  if (!p) {
    if (p.error().code() == ENOENT) return std::optional<std::string>();
    return p.error();
  }
  const std::string name = rel.substr(rel.rfind('/') + 1);
  UniqueFd fd(::openat(p->get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::optional<std::string>();
    return base::errno_error("agent state: cannot read " + shown + "/" + rel);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return Error(EINVAL, "agent state: " + shown + "/" + rel + " is not a regular file: not taken");
  if (st.st_size > kMaxStateFile)
    return Error(EFBIG, "agent state: " + shown + "/" + rel + " is larger than " +
                            std::to_string(kMaxStateFile >> 20) + " MiB: not taken");
  std::string out;
  std::array<char, 65536> buf{};
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::errno_error("agent state: cannot read " + shown + "/" + rel);
    if (n == 0) break;
    out.append(buf.data(), static_cast<std::size_t>(n));
    if (out.size() > static_cast<std::size_t>(kMaxStateFile))
      return Error(EFBIG, "agent state: " + shown + "/" + rel + " grew past the bound: not taken");
  }
  return std::optional<std::string>(std::move(out));
}

}  // namespace agent_state_detail

std::string sha256_hex(const std::string& data) {
  Sha256 s;
  std::string m = data;
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  m.push_back(static_cast<char>(0x80));
  while (m.size() % 64 != 56) m.push_back('\0');
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  for (std::size_t off = 0; off < m.size(); off += 64)
    s.block(reinterpret_cast<const unsigned char*>(m.data() + off));
  std::string out;
  char buf[9];
  for (auto x : s.h) {
    std::snprintf(buf, sizeof buf, "%08x", x);
    out += buf;
  }
  return out;
}

std::string state_root(const HostSnapshot& snapshot) {
  if (auto x = snapshot.env("XDG_STATE_HOME"); x && x->starts_with('/'))
    return base::normalize(*x) + "/ringfence";
  return snapshot.home() + "/.local/state/ringfence";
}

std::string project_state_name(const std::string& project) {
  std::string base = project.substr(project.rfind('/') + 1);
  std::string name;
  for (char c : base) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    name.push_back(ok ? c : '_');
    if (name.size() == 32) break;
  }
  while (!name.empty() && name.front() == '.') name.erase(name.begin());  // no hidden or ".." names
  if (name.empty()) name = "project";
  return name + "-" + sha256_hex(project).substr(0, 16);
}

Result<AgentStatePlan> plan_agent_state(const std::optional<std::string>& given, const std::string& origin,
                                        const presets::AgentProfile& agent, const std::string& project,
                                        const HostSnapshot& snapshot) {
  AgentStatePlan s;
  s.host_home = snapshot.home();
  s.origin = given ? origin : "the default";
  const std::string value = given.value_or("default");
  for (const auto& c : agent.config) {
    bool nested = false;
    for (const auto& other : agent.config)
      if (&other != &c && other.directory && c.path.starts_with(other.path + "/")) nested = true;
    if (nested) continue;
    (c.directory ? s.dirs : s.files).push_back(c.path);
  }
  const std::string root = state_root(snapshot);
  if (value == "default") {
    s.mode = AgentStateMode::Shared;
    s.root = root;
    s.dir = root + "/agents/" + agent.name;
  } else if (value == "project") {
    s.mode = AgentStateMode::Project;
    s.root = root;
    s.project = project;
    s.dir = root + "/agents/" + agent.name + "/projects/" + project_state_name(project);
  } else if (value == "throwaway") {
    s.mode = AgentStateMode::Throwaway;
  } else if (value == "host") {
    s.mode = AgentStateMode::Host;
    if (!s.dirs.empty() || !s.files.empty()) s.warning = host_state_warning(agent);
  } else if (value.empty()) {
    return Error::usage(origin + ": expected default, project, throwaway, host or a directory, got nothing");
  } else {
    s.mode = AgentStateMode::Dir;
    const bool relative = !value.starts_with('/');
    if (relative && snapshot.cwd.empty())
      return Error::usage(origin + " " + value + ": a relative directory needs a working directory");
    s.dir = lexical(relative ? snapshot.cwd + "/" + value : value);
    if (s.dir == "/") return Error::usage(origin + ": the state directory cannot be /");
    if (s.dir == s.host_home || base::is_under(s.host_home, s.dir))
      return Error::usage(origin + " " + s.dir +
                          ": the state directory cannot be the home directory or hold it (the real home "
                          "would be written)");
    for (const auto& d : s.dirs)
      if (base::is_under(s.dir, s.host_home + "/" + d))
        return Error::usage(origin + " " + s.dir + ": the state directory cannot lie in the agent's own ~/" +
                            d + " (the real home would be written)");
    if (base::is_under(s.dir, project) || base::is_under(project, s.dir))
      return Error::usage(origin + " " + s.dir +
                          ": the state directory cannot lie in the project or hold it (the sandbox "
                          "could then write the state's files directly)");
  }
  return s;
}

Status prepare_agent_state(RunPlan& plan, uid_t uid, std::vector<std::string>& info) {
  AgentStatePlan& s = plan.agent_state;
  if (!s.active()) return {};
  UniqueFd home_host(::open(plan.home_host.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!home_host.valid()) return base::errno_error("agent state: cannot open " + plan.home_host);
  if (s.mode == AgentStateMode::Throwaway) {
    CopyBudget budget;
    RF_TRY_ASSIGN(copied, copy_host_entries(s, home_host.get(), budget));
    (void)copied;
    s.prepared = true;
    return {};
  }
  RF_TRY_ASSIGN(dir, open_state_dir(s, uid, true));
  auto home = open_owned_dir(dir.get(), "home", s.home(), uid, false);
  if (!home && home.error().code() == ENOENT) {
    remove_stale_seeds(s.dir, dir.get(), uid);
    RF_TRY(seed_state(s, dir.get(), info));
    home = open_owned_dir(dir.get(), "home", s.home(), uid, false);
  }
  if (!home) return home.error();
  for (const auto& d : s.dirs) RF_TRY(open_below(home->get(), d, s.home(), true));
  for (const auto& f : s.files) {
    RF_TRY_ASSIGN(text, read_below(home->get(), f, s.home()));
    if (text) RF_TRY(write_below(home_host.get(), f, *text, plan.home_host));
  }
  if (plan.spec.jail != spec::Jail::Kernel) {
    // No mount namespace: the state's directories are linked into the throwaway HOME.
    for (const auto& d : s.dirs) {
      const std::string parent_rel = d.find('/') == std::string::npos ? "" : d.substr(0, d.rfind('/'));
      RF_TRY_ASSIGN(p, open_below(home_host.get(), parent_rel, plan.home_host, true));
      const std::string target = s.home() + "/" + d;
      if (::symlinkat(target.c_str(), p.get(), d.substr(d.rfind('/') + 1).c_str()) != 0)
        return base::errno_error("agent state: cannot link " + target + " into " + plan.home_host);
    }
  }
  s.prepared = true;
  return {};
}

Status finish_agent_state(const RunPlan& plan, uid_t uid) {
  const AgentStatePlan& s = plan.agent_state;
  if (!s.prepared || !s.kept() || s.files.empty() || plan.home_host.empty()) return {};
  UniqueFd home_host(::open(plan.home_host.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!home_host.valid()) return base::errno_error("agent state: cannot open " + plan.home_host);
  UniqueFd dir(::open(s.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return base::errno_error("agent state: cannot open " + s.dir);
  RF_TRY_ASSIGN(home, open_owned_dir(dir.get(), "home", s.home(), uid, false));
  Status result;
  for (const auto& f : s.files) {
    auto now = read_below(home_host.get(), f, plan.home_host);
    if (!now) {
      if (result) result = now.error();
      continue;
    }
    if (!*now) continue;  // removed inside: the state keeps its last one
    auto before = read_below(home.get(), f, s.home());
    if (before && *before && **before == **now) continue;
    if (auto w = write_below(home.get(), f, **now, s.home()); !w && result) result = w;
  }
  return result;
}

std::string describe_agent_state(const RunPlan& plan) {
  const AgentStatePlan& s = plan.agent_state;
  std::string out;
  auto line = [&out](const std::string& t) { out += t + "\n"; };
  if (s.dirs.empty() && s.files.empty()) {
    line("agent state: none (the agent profile has no entries in HOME)");
    return out;
  }
  if (s.mode == AgentStateMode::Host) {
    line("agent state: host (" + s.origin +
         "): the agent's entries of the real home, its writable ones read-write; the host later reads and "
         "runs "
         "what the sandbox writes there");
    if (!s.warning.empty()) line("warning: " + s.warning);
    return out;
  }
  if (s.mode == AgentStateMode::Throwaway) {
    line("agent state: throwaway (" + s.origin + "): the host's " + joined(s.dirs, "~/") +
         (s.files.empty() ? "" : ", " + joined(s.files, "~/")) +
         " copied into the throwaway HOME (where the host has them), dropped at exit");
    return out;
  }
  struct stat st {};
  const bool exists = ::lstat(s.home().c_str(), &st) == 0;
  line("agent state: " + s.dir + " (" + mode_name(s) + ", " + s.origin +
       "; kept across runs, the real home is never written)");
  if (!exists)
    line("  first use: the host's " + joined(s.dirs, "~/") +
         (s.files.empty() ? "" : ", " + joined(s.files, "~/")) + " copied into " + s.home() +
         " (where the host has them; regular files, directories and links "
         "inside; at most " +
         std::to_string(kStateCopyMaxBytes >> 20) + " MiB and " + std::to_string(kStateCopyMaxEntries) +
         " entries)");
  const bool kernel = plan.spec.jail == spec::Jail::Kernel;
  for (const auto& d : s.dirs)
    line(std::string(kernel ? "  bound read-write: " : "  linked into home: ") + s.home() + "/" + d + " -> " +
         (kernel ? plan.home_inside : std::string("HOME")) + "/" + d);
  for (const auto& f : s.files)
    line("  copied into home, written back to the state at exit: " + s.home() + "/" + f);
  return out;
}

}  // namespace rf::cli
