// SPDX-License-Identifier: LGPL-2.1-or-later
// The change store: where it is, the checks every directory of it passes before use, ids,
// meta.json (written by a temporary file and a rename), listing and discarding.
#include "ringfence/review/store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "fs_util.hpp"
#include "ringfence/base/json.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::review {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

base::Status check_private(int fd, const std::string& shown) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return base::errno_error("fstat " + shown);
  if (!S_ISDIR(st.st_mode)) return base::Error(ENOTDIR, shown + ": not a directory");
  if (st.st_uid != ::geteuid())
    return base::Error(EPERM, shown + ": owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                                  std::to_string(::geteuid()) + ": refused");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return base::Error(EPERM, shown + ": writable by group or others: refused (chmod go-w it)");
  return {};
}

// mkdir -p of `path` (absolute), the last `private_from` components made 0700 and checked.
base::Result<base::UniqueFd> make_store_root(const std::string& path, std::size_t private_tail) {
  const auto parts = base::components(path);
  base::UniqueFd fd(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return base::errno_error("open /");
  std::string shown;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    shown += "/" + parts[i];
    const bool priv = i + private_tail >= parts.size();
    if (::mkdirat(fd.get(), parts[i].c_str(), 0700) != 0 && errno != EEXIST)
      return base::errno_error("mkdir " + shown);
    base::UniqueFd next(
        ::openat(fd.get(), parts[i].c_str(), (priv ? kDirFlags : O_PATH | O_DIRECTORY | O_CLOEXEC)));
    if (!next.valid()) return base::errno_error("open " + shown);
    if (priv) RF_TRY(check_private(next.get(), shown));
    fd = std::move(next);
  }
  return fd;
}

// The digits after "key": at the top level of the text, exactly (base::json keeps doubles).
std::optional<std::string> raw_number(const std::string& text, const std::string& key) {
  const std::string pat = "\"" + key + "\"";
  for (std::size_t at = text.find(pat); at != std::string::npos; at = text.find(pat, at + 1)) {
    if (at > 0 && text[at - 1] == '\\') continue;
    std::size_t i = at + pat.size();
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size() || text[i] != ':') continue;
    ++i;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    if (j < text.size() && text[j] == '-') ++j;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) return text.substr(i, j - i);
  }
  return std::nullopt;
}

template <typename T>
base::Result<T> exact_int(const std::string& text, const base::json::Value& v, const std::string& key) {
  const base::json::Value* m = v.get(key);
  if (!m || m->type != base::json::Value::Type::Number)
    return base::Error(EINVAL, "meta.json: \"" + key + "\" is missing or not a number");
  auto raw = raw_number(text, key);
  errno = 0;
  char* end = nullptr;
  T out{};
  if (raw) {
    if constexpr (std::is_signed_v<T>)
      out = static_cast<T>(std::strtoll(raw->c_str(), &end, 10));
    else
      out = static_cast<T>(std::strtoull(raw->c_str(), &end, 10));
  }
  if (!raw || errno != 0 || *end != '\0' || std::fabs(static_cast<double>(out) - m->number) > 1e6)
    return base::Error(EINVAL, "meta.json: \"" + key + "\" is not an exact integer");
  return out;
}

base::Status write_meta_at(int dirfd, const std::string& dir_shown, const Meta& m) {
  const std::string tmp = ".meta.json.tmp";
  ::unlinkat(dirfd, tmp.c_str(), 0);
  base::UniqueFd fd(::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return base::errno_error("create " + dir_shown + "/" + tmp);
  RF_TRY(base::write_all(fd.get(), meta_to_json(m)));
  if (::fsync(fd.get()) != 0) return base::errno_error("fsync " + dir_shown + "/" + tmp);
  if (::renameat(dirfd, tmp.c_str(), dirfd, "meta.json") != 0)
    return base::errno_error("rename " + dir_shown + "/" + tmp + " to meta.json");
  return {};
}

base::Result<Meta> read_meta_at(int dirfd, const std::string& dir_shown) {
  base::UniqueFd fd(::openat(dirfd, "meta.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return base::errno_error("open " + dir_shown + "/meta.json");
  RF_TRY_ASSIGN(text, base::read_all(fd.get()));
  auto m = meta_from_json(text);
  if (!m) return std::move(m).error().context(dir_shown + "/meta.json");
  return m;
}

}  // namespace

const char* state_name(RunState s) {
  switch (s) {
    case RunState::Running: return "running";
    case RunState::Complete: return "complete";
    case RunState::Killed: return "killed";
  }
  return "running";
}

std::string meta_to_json(const Meta& m) {
  std::string s = "{\n";
  s += "  \"id\": " + base::json_quote(m.id) + ",\n";
  s += "  \"project\": " + base::json_quote(m.project) + ",\n";
  s += "  \"project_dev\": " + std::to_string(m.project_dev) + ",\n";
  s += "  \"project_ino\": " + std::to_string(m.project_ino) + ",\n";
  s += "  \"started\": " + base::json_quote(m.started) + ",\n";
  s += "  \"started_ns\": " + std::to_string(m.started_ns) + ",\n";
  s += "  \"git_head\": " + (m.git_head ? base::json_quote(*m.git_head) : std::string("null")) + ",\n";
  s += "  \"masked\": [";
  for (std::size_t i = 0; i < m.masked.size(); ++i) s += (i ? ", " : "") + base::json_quote(m.masked[i]);
  s += "],\n";
  s += "  \"state\": \"" + std::string(state_name(m.state)) + "\",\n";
  s += "  \"exit_code\": " + (m.exit_code ? std::to_string(*m.exit_code) : std::string("null"));
  if (m.applied) s += ",\n  \"applied\": true";
  s += "\n}\n";
  return s;
}

base::Result<Meta> meta_from_json(const std::string& text) {
  using T = base::json::Value::Type;
  RF_TRY_ASSIGN(v, base::json::parse(text));
  if (v.type != T::Object) return base::Error(EINVAL, "meta.json: not a JSON object");
  Meta m;
  m.id = v.str("id");
  m.project = v.str("project");
  m.started = v.str("started");
  if (!valid_id(m.id)) return base::Error(EINVAL, "meta.json: \"id\" is missing or malformed");
  if (m.project.empty() || m.project[0] != '/')
    return base::Error(EINVAL, "meta.json: \"project\" is not an absolute path");
  RF_TRY_ASSIGN(ns, exact_int<std::int64_t>(text, v, "started_ns"));
  RF_TRY_ASSIGN(dev, exact_int<std::uint64_t>(text, v, "project_dev"));
  RF_TRY_ASSIGN(ino, exact_int<std::uint64_t>(text, v, "project_ino"));
  m.started_ns = ns;
  m.project_dev = dev;
  m.project_ino = ino;
  if (const auto* g = v.get("git_head"); g && g->type == T::String) m.git_head = g->string;
  if (const auto* mk = v.get("masked"); mk && mk->type == T::Array)
    for (const auto& e : mk->array)
      if (e.type == T::String) m.masked.push_back(e.string);
  const std::string st = v.str("state");
  if (st == "complete")
    m.state = RunState::Complete;
  else if (st == "killed")
    m.state = RunState::Killed;
  else if (st == "running")
    m.state = RunState::Running;
  else
    return base::Error(EINVAL, "meta.json: \"state\" is '" + st + "', not running, complete or killed");
  if (const auto* e = v.get("exit_code"); e && e->type == T::Number)
    m.exit_code = static_cast<int>(e->number);
  if (const auto* a = v.get("applied"); a && a->type == T::Bool) m.applied = a->boolean;
  return m;
}

base::Result<base::UniqueFd> open_private_dir(int dirfd, const std::string& name, const std::string& shown) {
  base::UniqueFd fd(::openat(dirfd, name.c_str(), kDirFlags));
  if (!fd.valid()) {
    if (errno == ELOOP || errno == ENOTDIR)
      return base::Error(errno, shown + ": a symbolic link or not a directory: refused");
    return base::errno_error("open " + shown);
  }
  RF_TRY(check_private(fd.get(), shown));
  return fd;
}

base::Result<base::UniqueFd> open_change_set_dir(const ChangeSetPaths& paths) {
  const std::string root = base::parent(paths.dir);
  base::UniqueFd parent(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent.valid()) return base::errno_error("open " + root);
  RF_TRY(check_private(parent.get(), root));
  return open_private_dir(parent.get(), paths.id, paths.dir);
}

base::Result<Store> Store::at(const std::string& root) {
  if (root.empty() || root[0] != '/')
    return base::Error(EINVAL, "change store '" + root + "': not an absolute path");
  RF_TRY(make_store_root(base::normalize(root), 1));
  return Store(base::normalize(root));
}

base::Result<Store> Store::open_default() {
  const char* xdg = std::getenv("XDG_STATE_HOME");
  std::string base_dir;
  if (xdg && xdg[0] == '/') {
    base_dir = xdg;
  } else {
    const char* home = std::getenv("HOME");
    if (!home || home[0] != '/')
      return base::Error(EINVAL, "change store: neither XDG_STATE_HOME nor HOME is an absolute path");
    base_dir = std::string(home) + "/.local/state";
  }
  const std::string root = base::normalize(base_dir + "/ringfence/changes");
  RF_TRY(make_store_root(root, 2));
  return Store(root);
}

base::Result<base::UniqueFd> Store::open_root() const {
  const std::string parent = base::parent(root_);
  base::UniqueFd p(::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!p.valid()) return base::errno_error("open " + parent);
  const std::string leaf = root_.substr(root_.rfind('/') + 1);
  return open_private_dir(p.get(), leaf, root_);
}

ChangeSetPaths Store::paths_of(const std::string& id) const {
  ChangeSetPaths p;
  p.id = id;
  p.dir = root_ + "/" + id;
  p.meta = p.dir + "/meta.json";
  p.upper = p.dir + "/upper";
  p.work = p.dir + "/work";
  return p;
}

bool valid_id(const std::string& id) {
  if (id.size() != 20) return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    if (i == 8 || i == 15) {
      if (c != '-') return false;
    } else if (i > 15) {
      if (!std::isxdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c)))
        return false;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

std::int64_t realtime_ns() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

namespace {
std::string utc_format(std::int64_t ns, const char* fmt) {
  const std::time_t secs = static_cast<std::time_t>(ns / 1000000000);
  struct tm tm {};
  ::gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}
}  // namespace

std::string iso_utc(std::int64_t ns) { return utc_format(ns, "%Y-%m-%dT%H:%M:%SZ"); }

std::string make_id(std::int64_t ns) {
  unsigned char r[2] = {0, 0};
  if (::getrandom(r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) {
    const auto t = realtime_ns();
    r[0] = static_cast<unsigned char>(t);
    r[1] = static_cast<unsigned char>(t >> 8);
  }
  char hex[5];
  std::snprintf(hex, sizeof hex, "%02x%02x", r[0], r[1]);
  return utc_format(ns, "%Y%m%d-%H%M%S-") + hex;
}

base::Result<ChangeSetPaths> create_change_set(const Store& store, const std::string& project_realpath,
                                               const CreateInfo& info) {
  struct stat pst {};
  if (::stat(project_realpath.c_str(), &pst) != 0) return base::errno_error("stat " + project_realpath);
  if (!S_ISDIR(pst.st_mode)) return base::Error(ENOTDIR, project_realpath + ": not a directory");
  RF_TRY_ASSIGN(root, store.open_root());
  Meta m;
  m.started_ns = info.started_ns ? info.started_ns : realtime_ns();
  for (int attempt = 0;; ++attempt) {
    m.id = make_id(m.started_ns);
    if (::mkdirat(root.get(), m.id.c_str(), 0700) == 0) break;
    if (errno != EEXIST || attempt > 50) return base::errno_error("mkdir " + store.root() + "/" + m.id);
  }
  const ChangeSetPaths p = store.paths_of(m.id);
  RF_TRY_ASSIGN(dir, open_private_dir(root.get(), m.id, p.dir));
  for (const char* sub : {"upper", "work"})
    if (::mkdirat(dir.get(), sub, 0700) != 0) return base::errno_error("mkdir " + p.dir + "/" + sub);
  m.project = project_realpath;
  m.project_dev = pst.st_dev;
  m.project_ino = pst.st_ino;
  m.started = iso_utc(m.started_ns);
  m.git_head = info.git_head;
  m.masked = info.masked;
  RF_TRY(write_meta_at(dir.get(), p.dir, m));
  return p;
}

base::Status finish_change_set(const ChangeSetPaths& paths, RunState state, std::optional<int> exit_code) {
  RF_TRY_ASSIGN(dir, open_change_set_dir(paths));
  RF_TRY_ASSIGN(m, read_meta_at(dir.get(), paths.dir));
  m.state = state;
  m.exit_code = exit_code;
  return write_meta_at(dir.get(), paths.dir, m);
}

base::Result<ChangeSet> open_change_set(const Store& store, const std::string& id) {
  if (!valid_id(id)) return base::Error::usage("'" + id + "' is not a change set id (YYYYMMDD-HHMMSS-hhhh)");
  RF_TRY_ASSIGN(root, store.open_root());
  ChangeSet cs;
  cs.paths = store.paths_of(id);
  struct stat st {};
  if (::fstatat(root.get(), id.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
    return base::Error::usage("no change set " + id + " in " + store.root());
  RF_TRY_ASSIGN(dir, open_private_dir(root.get(), id, cs.paths.dir));
  RF_TRY_ASSIGN(m, read_meta_at(dir.get(), cs.paths.dir));
  if (m.id != id) return base::Error(EINVAL, cs.paths.meta + ": its id is " + m.id + ", not " + id);
  cs.meta = std::move(m);
  return cs;
}

base::Result<std::vector<ChangeSet>> list_change_sets(const Store& store) {
  RF_TRY_ASSIGN(root, store.open_root());
  RF_TRY_ASSIGN(names, list_dir(root.get(), store.root()));
  std::sort(names.begin(), names.end());
  std::vector<ChangeSet> out;
  for (const auto& n : names) {
    if (!valid_id(n)) continue;
    // One that is not safe to read refuses the listing: which project it belongs to is unknown.
    auto cs = open_change_set(store, n);
    if (!cs && cs.error().code() != ENOENT) return std::move(cs).error();
    if (cs) out.push_back(std::move(*cs));
  }
  // Oldest first by the start itself: ids of runs in the same second differ only in their
  // random part.
  std::stable_sort(out.begin(), out.end(), [](const ChangeSet& a, const ChangeSet& b) {
    return a.meta.started_ns < b.meta.started_ns;
  });
  return out;
}

base::Result<ChangeSet> latest_for_project(const Store& store, const std::string& project_realpath) {
  RF_TRY_ASSIGN(all, list_change_sets(store));
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (it->meta.project == project_realpath) return std::move(*it);
  return base::Error::usage("no change set for the project " + project_realpath + " in " + store.root());
}

base::Status mark_applied(const ChangeSet& cs) {
  RF_TRY_ASSIGN(dir, open_change_set_dir(cs.paths));
  RF_TRY_ASSIGN(m, read_meta_at(dir.get(), cs.paths.dir));
  m.applied = true;
  return write_meta_at(dir.get(), cs.paths.dir, m);
}

base::Status discard_change_set(const Store& store, const std::string& id) {
  if (!valid_id(id)) return base::Error::usage("'" + id + "' is not a change set id (YYYYMMDD-HHMMSS-hhhh)");
  RF_TRY_ASSIGN(root, store.open_root());
  struct stat st {};
  if (::fstatat(root.get(), id.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return base::Error::usage("no change set " + id + " in " + store.root());
    return base::errno_error("stat " + store.root() + "/" + id);
  }
  return remove_tree_at(root.get(), id, store.root() + "/" + id);
}

}  // namespace rf::review
