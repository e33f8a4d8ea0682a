// SPDX-License-Identifier: LGPL-2.1-or-later
// The agent state's first use: the host's entries of the agent copied into the state (regular
// files, directories, links that stay inside; bounded), and the walk below a state directory
// that follows no link.
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

namespace rf::cli::agent_state_detail {

using base::Error;
using base::Result;
using base::Status;
using base::UniqueFd;

Status CopyBudget::charge(std::uint64_t size, const std::string& path) {
  bytes += size;
  ++entries;
  if (bytes > kStateCopyMaxBytes)
    return Error(EFBIG, "agent state: the host's configuration is larger than " +
                            std::to_string(kStateCopyMaxBytes >> 20) + " MiB (at " + path +
                            "): not copied; make the state's home/ yourself with what the agent needs");
  if (entries > kStateCopyMaxEntries)
    return Error(EFBIG, "agent state: the host's configuration has more than " +
                            std::to_string(kStateCopyMaxEntries) + " entries (at " + path +
                            "): not copied; make the state's home/ yourself with what the agent needs");
  return {};
}

// Walks `rel` below `dir` following no link; the last component is opened as a directory (made
// 0700 where missing when `make`).
Result<UniqueFd> open_below(int dir, const std::string& rel, const std::string& shown, bool make) {
  UniqueFd cur(::fcntl(dir, F_DUPFD_CLOEXEC, 0));
  std::string path = shown;
  for (const auto& part : base::components(rel)) {
    path += "/" + part;
    if (make && ::mkdirat(cur.get(), part.c_str(), 0700) != 0 && errno != EEXIST)
      return base::errno_error("agent state: cannot make " + path);
    UniqueFd next(::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      const int e = errno;
      if (e == ENOENT) return Error(ENOENT, "agent state: " + path + " does not exist");
      return Error(e, "agent state: " + path +
                          " is not a directory (a link or a file): refused; "
                          "remove it, or reset the state (ringfence agent-state reset)");
    }
    cur = std::move(next);
  }
  return cur;
}

namespace {

// A link is kept when it stays inside the tree it is copied with: a relative target without "..".
bool link_stays_inside(const std::string& target) {
  if (target.empty() || target.starts_with('/')) return false;
  for (const auto& part : base::components(target))
    if (part == "..") return false;
  return true;
}

// The open file `in` copied as `name` below `to_dir` (made, never replacing anything).
Status copy_open_file(const UniqueFd& in, int to_dir, const std::string& name, const std::string& path,
                      CopyBudget& budget) {
  if (!in.valid()) return base::errno_error("agent state: cannot read " + path);
  struct stat st {};
  if (::fstat(in.get(), &st) != 0) return base::errno_error("agent state: cannot stat " + path);
  if (!S_ISREG(st.st_mode)) {  // changed since it was listed
    ++budget.skipped;
    return {};
  }
  RF_TRY(budget.charge(static_cast<std::uint64_t>(st.st_size), path));
  const mode_t mode = (st.st_mode & 0700) | 0600;
  UniqueFd out(::openat(to_dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!out.valid()) return base::errno_error("agent state: cannot create the copy of " + path);
  std::array<char, 65536> buf{};
  for (;;) {
    ssize_t n = ::read(in.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::errno_error("agent state: cannot read " + path);
    if (n == 0) break;
    if (auto w = base::write_all(out.get(), std::string_view(buf.data(), static_cast<std::size_t>(n))); !w)
      return w.error().reworded("agent state: cannot write the copy of " + path);
  }
  return {};
}

Status copy_regular(int from_dir, const std::string& name, int to_dir, const std::string& path,
                    CopyBudget& budget) {
  UniqueFd in(::openat(from_dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  return copy_open_file(in, to_dir, name, path, budget);
}

Status copy_tree(int from, int to, const std::string& path, CopyBudget& budget, int depth);

// One entry of a directory being copied: a regular file, a directory, a link that stays inside;
// anything else (sockets, fifos, devices, links out) is skipped.
Status copy_entry(int from_dir, const std::string& name, int to_dir, const std::string& path,
                  CopyBudget& budget, int depth) {
  struct stat st {};
  if (::fstatat(from_dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return base::errno_error("agent state: cannot stat " + path);
  if (S_ISREG(st.st_mode)) return copy_regular(from_dir, name, to_dir, path, budget);
  if (S_ISLNK(st.st_mode)) {
    std::array<char, 4096> target{};
    ssize_t n = ::readlinkat(from_dir, name.c_str(), target.data(), target.size() - 1);
    if (n < 0 || !link_stays_inside(std::string(target.data(), static_cast<std::size_t>(n)))) {
      ++budget.skipped;
      return {};
    }
    RF_TRY(budget.charge(0, path));
    if (::symlinkat(target.data(), to_dir, name.c_str()) != 0)
      return base::errno_error("agent state: cannot copy the link " + path);
    return {};
  }
  if (!S_ISDIR(st.st_mode) || depth > 64) {
    ++budget.skipped;
    return {};
  }
  RF_TRY(budget.charge(0, path));
  UniqueFd in(::openat(from_dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!in.valid()) return base::errno_error("agent state: cannot read " + path);
  if (::mkdirat(to_dir, name.c_str(), 0700) != 0)
    return base::errno_error("agent state: cannot make the copy of " + path);
  UniqueFd out(::openat(to_dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!out.valid()) return base::errno_error("agent state: cannot open the copy of " + path);
  return copy_tree(in.get(), out.get(), path, budget, depth + 1);
}

Status copy_tree(int from, int to, const std::string& path, CopyBudget& budget, int depth) {
  DIR* d = ::fdopendir(::fcntl(from, F_DUPFD_CLOEXEC, 0));
  if (d == nullptr) return base::errno_error("agent state: cannot list " + path);
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  for (const auto& n : names) RF_TRY(copy_entry(from, n, to, path + "/" + n, budget, depth));
  return {};
}

// The host's entries of the agent (its top-level ones that exist), copied below `to`. The entry
// itself may be a link on the host (a dotfiles manager's): it is read where it points, as the
// host's agent would; below it nothing is followed. Returns the entries copied.
}  // namespace

Result<std::vector<std::string>> copy_host_entries(const AgentStatePlan& s, int to, CopyBudget& budget) {
  std::vector<std::string> copied;
  std::vector<std::string> all = s.dirs;
  all.insert(all.end(), s.files.begin(), s.files.end());
  for (const auto& rel : all) {
    const bool is_dir = std::find(s.dirs.begin(), s.dirs.end(), rel) != s.dirs.end();
    const std::string host = s.host_home + "/" + rel;
    struct stat st {};
    if (::stat(host.c_str(), &st) != 0) continue;  // the host has none: nothing to copy
    if (is_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
      ++budget.skipped;
      continue;
    }
    const std::string parent_rel = rel.find('/') == std::string::npos ? "" : rel.substr(0, rel.rfind('/'));
    const std::string name = rel.substr(rel.rfind('/') + 1);
    RF_TRY_ASSIGN(to_parent, open_below(to, parent_rel, "", true));
    if (is_dir) {
      UniqueFd in(::open(host.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (!in.valid()) return base::errno_error("agent state: cannot read " + host);
      RF_TRY(budget.charge(0, host));
      if (::mkdirat(to_parent.get(), name.c_str(), 0700) != 0)
        return base::errno_error("agent state: cannot make the copy of " + host);
      UniqueFd out(::openat(to_parent.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!out.valid()) return base::errno_error("agent state: cannot open the copy of " + host);
      RF_TRY(copy_tree(in.get(), out.get(), host, budget, 1));
    } else {
      UniqueFd in(::open(host.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
      RF_TRY(copy_open_file(in, to_parent.get(), name, host, budget));
    }
    copied.push_back(rel);
  }
  return copied;
}

}  // namespace rf::cli::agent_state_detail
