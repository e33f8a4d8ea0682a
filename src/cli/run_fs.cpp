// SPDX-License-Identifier: LGPL-2.1-or-later
// The filesystem part of `ringfence run`'s plan (system directories, HOME, project, masks) and
// the host side of the throwaway HOME (make, fill, copy back, remove).
#include "run_fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "run_etc.hpp"
#include "run_landlock.hpp"

namespace rf::cli {
namespace {

// Bounds of the writable tmpfs mounts of the kernel jail. "/" and /dev hold only mount points,
// device nodes and links: their files take no space, a bound of 1M leaves room for nothing else.
// /run holds sockets, locks and pid files. /tmp, /var/tmp and /dev/shm are for real work
// (compilers' and package builds' temporary files, browsers' shared memory): a quarter of this
// host's memory each unless --limit tmpfs=SIZE says otherwise, so together they stay below what
// the host has, where the kernel's default would give each of them half.
constexpr std::uint64_t kMountPointsSize = std::uint64_t{1} << 20;
constexpr std::uint64_t kRunSize = std::uint64_t{64} << 20;

// nr_inodes for a bounded tmpfs: an inode (and its dentry) costs kernel memory that size= does
// not count, so empty files alone could take far more than the size allows. One per 4 KiB page
// (what a non-empty file takes anyway), and enough for the mount points of a small one.
std::uint64_t inodes_for(std::uint64_t size) { return std::max<std::uint64_t>(size / 4096, 4096); }
constexpr std::uint64_t kMinScratchSize = std::uint64_t{64} << 20;

std::uint64_t default_scratch_size() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  std::uint64_t quarter = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * page / 4 : 0;
  quarter &= ~((std::uint64_t{1} << 20) - 1);  // whole MiB
  return std::max(quarter, kMinScratchSize);
}

std::string mib(std::uint64_t v) {
  if (v % (std::uint64_t{1} << 30) == 0) return std::to_string(v >> 30) + "G";
  if (v % (std::uint64_t{1} << 20) == 0) return std::to_string(v >> 20) + "M";
  return std::to_string(v);
}

FsOp op(OpKind kind, std::string source, std::string dest) {
  FsOp o;
  o.kind = kind;
  o.source = std::move(source);
  o.dest = std::move(dest);
  return o;
}

// An empty read-only file over `dest` (one shared by every mask: no descriptor each). `beneath`:
// the writable tree dest lies in (the engine then follows no link below it).
Status mask_file(RunPlan& plan, const std::string& dest, const std::string& beneath, const struct stat* st) {
  FsOp o = op(OpKind::RoBindData, "", dest);
  o.empty = true;
  o.perms = 0444;
  o.dest_optional = beneath.empty();
  o.dest_beneath = beneath;
  if (st && !beneath.empty()) o.dest_identity = std::make_pair(st->st_dev, st->st_ino);
  plan.spec.fs_ops.push_back(o);
  return {};
}

// An empty read-only tmpfs over a directory.
void mask_dir(RunPlan& plan, const std::string& dest, const std::string& beneath, const struct stat* st) {
  FsOp t = op(OpKind::Tmpfs, "", dest);
  t.perms = 0755;
  t.dest_beneath = beneath;
  t.dest_optional = beneath.empty();
  if (st && !beneath.empty()) t.dest_identity = std::make_pair(st->st_dev, st->st_ino);
  plan.spec.fs_ops.push_back(t);
  FsOp ro = op(OpKind::RemountRo, "", dest);
  ro.dest_beneath = beneath;
  ro.dest_optional = beneath.empty();
  plan.spec.fs_ops.push_back(ro);
}

Status mask_stat(RunPlan& plan, const std::string& path, const struct stat& st, const std::string& beneath) {
  if (S_ISLNK(st.st_mode)) return {};
  plan.masked.push_back(path);
  if (S_ISDIR(st.st_mode)) {
    mask_dir(plan, path, beneath, &st);
    return {};
  }
  return mask_file(plan, path, beneath, &st);
}

Status mask_host_path(RunPlan& plan, const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return {};
  return mask_stat(plan, path, st, "");
}

Status cover_private_etc(RunPlan& plan) {
  const PrivateEntries found = private_entries("/etc");
  for (const auto& p : found.paths) {
    bool done = std::any_of(plan.masked.begin(), plan.masked.end(),
                            [&p](const std::string& m) { return base::is_under(p, m); });
    if (!done) RF_TRY(mask_host_path(plan, p));
  }
  if (found.truncated) plan.notes.push_back(kEtcTruncatedNote);
  return {};
}

// Walk the project for names a mask covers. The walk is bounded (a huge tree would slow every
// start), and a project past the bound is refused, never partly masked: `budget` is what is
// left of it, and goes below zero when an entry past it was seen. Each directory is opened from
// its parent's fd without following a link, so a directory swapped for a link while the scan
// runs leads nowhere.
// The project's masks: patterns with their content checks, and the --unmask patterns that win.
struct MaskSet {
  std::vector<presets::Mask> masks;
  std::vector<std::string> unmask;
  // The same, parsed once (compile()): the walk tests each name against all of them.
  std::vector<base::PathPattern> mask_patterns, unmask_patterns;
  void compile() {
    for (const auto& m : masks) mask_patterns.emplace_back(m.pattern);
    for (const auto& u : unmask) unmask_patterns.emplace_back(u);
  }
};

// Up to 1 MiB of a regular file beneath `dir_fd`, opened without following a link; nothing
// when it is not one or cannot be read (the caller then masks it).
std::optional<std::string> small_file(int dir_fd, const std::string& name, const struct stat& st) {
  if (!S_ISREG(st.st_mode) || st.st_size > (1 << 20)) return std::nullopt;
  base::UniqueFd fd(
      ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  struct stat now {};
  if (!fd.valid() || ::fstat(fd.get(), &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev)
    return std::nullopt;
  std::string out(static_cast<std::size_t>(now.st_size), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd.get(), out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    got += static_cast<std::size_t>(n);
  }
  return out;
}

// Whether the masks cover `rel`: unmasked, no; else when a mask applies whose content check
// finds a secret (or which has none). `content` is read once, when a check needs it.
bool covers(const MaskSet& set, const std::string& rel, bool is_dir, bool last,
            const std::function<std::optional<std::string>()>& content) {
  if (base::PathPattern::any(set.unmask_patterns, rel, is_dir, last)) return false;
  std::optional<std::optional<std::string>> read;
  for (std::size_t i = 0; i < set.masks.size(); ++i) {
    const auto& m = set.masks[i];
    const auto& p = set.mask_patterns[i];
    if (!(last ? p.applies_to_last(rel, is_dir) : p.applies(rel, is_dir))) continue;
    if (m.check == presets::ContentCheck::None || is_dir) return true;
    if (!read) read = content();
    if (!*read || presets::content_is_secret(m.check, **read)) return true;
  }
  return false;
}

// `clear`: no pattern of the set (mask or unmask) names `rel` or a directory above it, so the
// names below are matched on their last component alone.
Status scan_masks(RunPlan& plan, const MaskSet& set, int parent_fd, const char* name_in,
                  const std::string& dir, const std::string& rel, long& budget, bool clear) {
  base::UniqueFd fd(::openat(parent_fd, name_in, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    // A directory the caller cannot list may still hold a secret the sandbox reaches after a
    // chmod of its own: covered whole. Gone or replaced since it was listed: nothing to mask.
    struct stat st {};
    if (errno == EACCES && !rel.empty() && ::fstatat(parent_fd, name_in, &st, AT_SYMLINK_NOFOLLOW) == 0)
      return mask_stat(plan, dir, st, plan.project);
    return {};
  }
  base::UniqueFd keep(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
  if (!keep.valid()) return base::errno_error("scan " + dir);
  DIR* d = ::fdopendir(fd.release());
  if (!d) return {};
  std::vector<std::pair<std::string, bool>> entries;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (--budget < 0) break;
    bool is_dir = e->d_type == DT_DIR;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st {};
      is_dir = ::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    }
    entries.emplace_back(name, is_dir);
  }
  ::closedir(d);
  for (const auto& [name, is_dir] : entries) {
    if (budget < 0) return {};
    std::string r = rel.empty() ? name : rel + "/" + name;
    // Some mask names it (unmasked or not).
    const bool named = base::PathPattern::any(set.mask_patterns, r, is_dir, clear);
    struct stat st {};
    const bool have_st = named && ::fstatat(keep.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    const bool hit = named && covers(set, r, is_dir, clear, [&]() -> std::optional<std::string> {
                       if (!have_st) return std::nullopt;
                       return small_file(keep.get(), name, st);
                     });
    if (hit) {
      if (have_st) RF_TRY(mask_stat(plan, dir + "/" + name, st, plan.project));
    } else {
      if (named && have_st && !S_ISLNK(st.st_mode)) {
        plan.unmasked.push_back(dir + "/" + name);
        if (!is_dir) plan.spec.supervision.late_masks.exempt.push_back({r, st.st_dev, st.st_ino});
      }
      if (is_dir) {
        const bool below_clear =
            clear && !named && !base::PathPattern::any(set.unmask_patterns, r, true, true);
        RF_TRY(scan_masks(plan, set, keep.get(), name.c_str(), dir + "/" + name, r, budget, below_clear));
      }
    }
  }
  return {};
}

}  // namespace

Status add_system_dirs(RunPlan& plan) {
  auto& ops = plan.spec.fs_ops;
  ops.push_back(op(OpKind::RoBind, "/usr", "/usr"));
  for (const char* d : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    struct stat st {};
    if (::lstat(d, &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      ssize_t n = ::readlink(d, target, sizeof target - 1);
      if (n <= 0) return base::errno_error(std::string("readlink ") + d);
      ops.push_back(op(OpKind::Symlink, std::string(target, static_cast<size_t>(n)), d));
    } else if (S_ISDIR(st.st_mode)) {
      ops.push_back(op(OpKind::RoBind, d, d));
    }
  }
  for (const char* d : {"/etc", "/opt", "/nix"}) {
    FsOp o = op(OpKind::RoBind, d, d);
    o.allow_missing = true;
    ops.push_back(o);
  }
  // Secrets on those paths: absent in content even though their directory is bound.
  for (const auto& secret : presets::system_secret_paths()) {
    glob_t g{};
    if (::glob(secret.path.c_str(), GLOB_NOSORT, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) RF_TRY(mask_host_path(plan, g.gl_pathv[i]));
    ::globfree(&g);
  }
  // And whatever else in /etc is not for everyone (root-only keys, tokens, Wi-Fi passwords):
  // the command may run as uid 0 or in a group the file is shared with.
  RF_TRY(cover_private_etc(plan));
  ops.push_back(op(OpKind::Proc, "", "/proc"));
  plan.spec.root_size = kMountPointsSize;
  plan.spec.root_inodes = inodes_for(kMountPointsSize);
  FsOp dev = op(OpKind::Dev, "", "/dev");
  dev.size = kMountPointsSize;
  dev.inodes = inodes_for(kMountPointsSize);
  ops.push_back(dev);
  FsOp run = op(OpKind::Tmpfs, "", "/run");
  run.size = kRunSize;
  run.inodes = inodes_for(kRunSize);
  ops.push_back(run);
  std::optional<std::uint64_t> scratch = scratch_size(plan);
  for (const char* d : {"/tmp", "/var/tmp", "/dev/shm"}) {
    FsOp t = op(OpKind::Tmpfs, "", d);
    t.size = scratch;
    if (scratch) t.inodes = inodes_for(*scratch);
    ops.push_back(t);
  }
  plan.limits.push_back("tmpfs: / and /dev size=" + mib(kMountPointsSize) + ", /run size=" + mib(kRunSize) +
                        "; inodes: one per 4 KiB of size, at least 4096");
  if (scratch) {
    plan.limits.push_back(
        "tmpfs: /tmp, /var/tmp and /dev/shm size=" + mib(*scratch) + " each" +
        (plan.settings.limits.tmpfs ? " (--limit tmpfs)" : " (a quarter of memory; --limit tmpfs=SIZE)"));
  } else {
    plan.notes.push_back(
        "tmpfs size: /tmp, /var/tmp and /dev/shm may each take half the memory (--limit tmpfs=unlimited)");
  }
  return {};
}

std::optional<std::uint64_t> scratch_size(const RunPlan& plan) {
  const auto& t = plan.settings.limits.tmpfs;
  if (!t) return default_scratch_size();
  if (*t == presets::kUnlimited) return std::nullopt;
  return *t;
}

Status add_home(RunPlan& plan, const presets::AgentProfile& agent) {
  const std::string& real_home = plan.home_inside;  // the caller's home (HostSnapshot::home)
  // The throwaway directory is bound here by ThrowawayHome::prepare (its path is not known yet); the
  // agent's directories are bound into it, its private files copied (never back). An entry
  // inside an agent directory is bound over it, found below it without following a link.
  plan.spec.fs_ops.push_back(op(OpKind::Bind, "", plan.home_inside));
  if (plan.agent_state.active()) {
    // The agent's state (agent_state.hpp): its directories bound read-write from the state (a
    // throwaway copy lies in the throwaway HOME itself), its files copied in by prepare.
    if (!plan.agent_state.kept()) return {};
    const std::string state_home = plan.agent_state.home();
    for (const auto& d : plan.agent_state.dirs) {
      FsOp o = op(OpKind::Bind, state_home + "/" + d, plan.home_inside + "/" + d);
      o.source_beneath = state_home;  // no link below the state's home is followed
      plan.spec.fs_ops.push_back(o);
    }
    return {};
  }
  RF_TRY_ASSIGN(items, agent_grants(plan, agent, real_home));
  for (const auto& item : items) {
    const auto& c = *item.config;
    FsOp o = op(item.writable() ? OpKind::Bind : OpKind::RoBind, item.host, plan.home_inside + "/" + c.path);
    if (!item.parent.empty()) {
      o.source_beneath = real_home + "/" + item.parent;
      o.dest_beneath = plan.home_inside + "/" + item.parent;
    }
    plan.spec.fs_ops.push_back(o);
  }
  return {};
}

Status add_soft_home(RunPlan& plan, const presets::AgentProfile& agent) {
  // The same walk as the other levels; only the top-level entries matter here: each is linked
  // into the throwaway HOME (an entry inside a linked directory is there already), or copied.
  // Nothing is protected at this level, so the walk's notes about nested entries do not apply.
  // The agent's state (agent_state.hpp) is linked and copied in by prepare instead.
  if (plan.agent_state.active()) return {};
  RF_TRY_ASSIGN(items, walk_agent_config(agent, plan.home_inside));  // the caller's home
  for (const auto& item : items) {
    if (!item.parent.empty()) continue;
    if (item.decision == AgentDecision::Copy)
      plan.copies.push_back({item.host, item.config->path, false});
    else if (item.decision == AgentDecision::Grant && item.config->path.find('/') == std::string::npos)
      plan.soft_agent_dirs.push_back(item.config->path);
  }
  return {};
}

namespace {

// A review run: git's view of the project stays in the overlay, so that a commit made inside is
// in the change set and nothing of it reaches the host. protect_git's ops from `first` on
// change: the bind of the project's own .git over itself goes (the overlay shows it), every
// other writable bind (a linked worktree's git directory outside the project) is read-only,
// and nothing is made on the host for the read-only covers (a missing entry is skipped).
void keep_git_in_overlay(RunPlan& plan, std::size_t first) {
  auto& ops = plan.spec.fs_ops;
  const std::string own = plan.project + "/.git";
  std::vector<FsOp> kept(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(first));
  for (std::size_t i = first; i < ops.size(); ++i) {
    FsOp o = ops[i];
    if (o.kind == OpKind::Bind && o.source == own && o.dest == own) continue;
    if (o.kind == OpKind::Bind) o.kind = OpKind::RoBind;
    o.allow_missing = true;
    o.dest_optional = true;
    kept.push_back(std::move(o));
  }
  ops = std::move(kept);
  plan.git_make.clear();
  plan.git_watch_commondir.clear();
  plan.notes.push_back(
      "git: a review run's .git is in the overlay: commits made inside are in the change set, "
      "and its hooks, config and the like are risky changes, left out of apply by default");
}

}  // namespace

Status add_project(RunPlan& plan, const RunOptions& /*opts*/) {
  auto& ops = plan.spec.fs_ops;
  const bool rw = plan.settings.project_writable;
  if (plan.settings.review) {
    // An overlay with the project as its only lower layer: every write lands in the change
    // set's upper directory (made and filled in by the launcher before the start), none in the
    // project. The rest of the view (git's protection, masks) is built on top as usual.
    FsOp o = op(OpKind::Overlay, "", plan.project);
    o.layers = {plan.project};
    ops.push_back(o);
  } else {
    ops.push_back(op(rw ? OpKind::Bind : OpKind::RoBind, plan.project, plan.project));
  }
  // Git's hooks, config and the rest that runs later on the host: never writable here.
  const std::size_t first = ops.size();
  if (rw) RF_TRY(protect_git(plan));
  if (plan.settings.review) keep_git_in_overlay(plan, first);
  return {};
}

Status add_workspace(RunPlan& plan, const RunOptions& opts) {
  if (!opts.workspace) return {};
  // The project's view as the earlier ops built it (git protection, masks, binds into it),
  // bound with all its mounts: /workspace is the same protected view.
  FsOp o = op(plan.settings.project_writable ? OpKind::Bind : OpKind::RoBind, plan.project, "/workspace");
  o.source_in_sandbox = true;
  plan.spec.fs_ops.push_back(o);
  return {};
}

Status add_extra_binds(RunPlan& plan, const RunOptions& opts, const std::string& cwd) {
  auto add = [&plan, &opts, &cwd](const std::string& item, OpKind kind) -> Status {
    auto colon = item.find(':');
    std::string src = item.substr(0, colon);
    std::string dst = colon == std::string::npos ? src : item.substr(colon + 1);
    if (src.empty() || dst.empty() || dst[0] != '/')
      return Error(EINVAL, "--bind/--ro-bind " + item + ": expected SRC[:DST] with an absolute DST");
    // No link in the project is followed: the sandbox could have made it point anywhere.
    auto real = host_path_nofollow_in(src, plan.project, cwd);
    if (!real) return real.error().reworded("bind source " + real.error().message());
    FsOp o = op(kind, *real, colon == std::string::npos ? *real : base::normalize(dst));
    if (opts.workspace && base::is_under(o.dest, "/workspace"))  // the project's view, shown there too
      o.dest = base::join(plan.project, o.dest.substr(std::string("/workspace").size()));
    if (base::is_under(o.source, plan.project)) o.source_beneath = plan.project;
    if (base::is_under(o.dest, plan.project)) o.dest_beneath = plan.project;
    plan.spec.fs_ops.push_back(o);
    return {};
  };
  for (const auto& b : opts.binds) RF_TRY(add(b, OpKind::Bind));
  for (const auto& b : opts.ro_binds) RF_TRY(add(b, OpKind::RoBind));
  return {};
}

Status add_project_masks(RunPlan& plan, const RunOptions& opts) {
  MaskSet set;
  set.masks = presets::default_project_masks();
  for (const auto& m : opts.masks) {
    if (auto c = presets::check_mask_pattern(m); !c)
      return Error(0, "--mask " + m + ": " + c.error().message());
    set.masks.push_back({m, "--mask", presets::ContentCheck::None});
  }
  for (const auto& u : opts.unmask) {
    if (auto c = presets::check_mask_pattern(u); !c)
      return Error::usage("--unmask " + u + ": " + c.error().message());
    set.unmask.push_back(u);
  }
  set.compile();
  // The walk for the warning after the run (ThrowawayHome::prepare takes it) runs beside this one.
  if (plan.settings.project_writable && !plan.settings.review && !plan.dry_run)
    prefetch_autorun(plan.project);
  std::vector<std::string> patterns;
  for (const auto& m : set.masks) patterns.push_back(m.pattern);
  const long limit = opts.mask_scan_limit.value_or(kDefaultMaskScanLimit);
  long budget = limit == 0 ? std::numeric_limits<long>::max() : limit;
  RF_TRY(scan_masks(plan, set, AT_FDCWD, plan.project.c_str(), plan.project, "", budget, true));
  if (budget < 0)
    return Error(0, "masks: " + plan.project + " holds more than " + std::to_string(limit) +
                        " entries, so the secrets in it cannot all be found before the start; raise the "
                        "bound with --mask-scan-limit N (0: no bound), or run in a smaller folder");
  // A review run's project is an overlay of it: the masks find the objects the scan found by
  // their inode numbers there, on the overlay's device.
  if (plan.settings.review)
    for (auto& o : plan.spec.fs_ops)
      if (o.dest_identity && base::is_under(o.dest, plan.project)) o.identity_ino_only = true;
  // Names created later: the launcher watches the project and covers each new match inside.
  spec::LateMasks& late = plan.spec.supervision.late_masks;
  late.patterns = patterns;
  late.except = set.unmask;
  late.host_dir = plan.project;
  late.sandbox_dirs = {plan.project};
  if (opts.workspace) late.sandbox_dirs.push_back("/workspace");
  plan.notes.push_back(
      "masks: a name created after the start is hidden within milliseconds (inotify); a process "
      "that opens it in that moment keeps what it opened");
  return {};
}

}  // namespace rf::cli
