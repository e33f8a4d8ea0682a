// SPDX-License-Identifier: LGPL-2.1-or-later
// The new root and the ordered filesystem ops (bwrap semantics, in-root resolution).
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "mounts.hpp"
#include "overlay.hpp"
#include "resolve.hpp"
#include "ringfence/base/kernel.hpp"
#include "ringfence/base/mountinfo.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::engine {
namespace {

using base::Error;
using base::Result;
using base::Status;
using base::UniqueFd;
using spec::FsOp;
using spec::OpKind;

// Where the scratch tmpfs goes: a directory every host has; it is hidden by the pivot.
constexpr const char* kBaseCandidates[] = {"/tmp", "/var/tmp", "/mnt", "/run"};

Error fail(const std::string& what) { return base::errno_error(what); }

std::string octal(mode_t m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%#o", static_cast<unsigned>(m));
  return buf;
}

// Mode for parent directories created on the way to an op's destination: bwrap derives it
// from the op's own mode (0 for ops that take none), clearing the group and other bits that
// mode withholds: 0755 for --dir and --tmpfs by default, 0700 for binds, symlinks, proc, dev.
mode_t parent_mode_for(const FsOp& op) {
  mode_t fallback = 0;
  if (op.kind == OpKind::Dir || op.kind == OpKind::Tmpfs) fallback = 0755;
  if (op.kind == OpKind::File) fallback = 0666;
  if (op.kind == OpKind::BindData || op.kind == OpKind::RoBindData) fallback = 0600;
  mode_t perms = op.perms.value_or(fallback);
  mode_t m = 0755;
  if ((perms & 0070) == 0) m &= ~0050u;
  if ((perms & 0007) == 0) m &= ~0005u;
  return m;
}

// The op's last path component, created in its (already in-root) parent directory.
struct Dest {
  int root_fd;
  int parent_fd;
  std::string name;  // empty when the destination is the root itself
  const std::string& path;
};

// A directory at dest (kept as it is when one exists), as bwrap's ensure_dir; returns it.
Result<UniqueFd> ensure_dir(const Dest& d, mode_t mode) {
  if (!d.name.empty()) {
    if (::mkdirat(d.parent_fd, d.name.c_str(), mode) == 0) {
      // Just made by us in a resolved parent: no symlink can stand there.
      int fd = ::openat(d.parent_fd, d.name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return fail("Can't mkdir " + d.path);
      return UniqueFd(fd);
    }
    if (errno != EEXIST) return fail("Can't mkdir " + d.path);
  }
  auto fd = open_in_root(d.root_fd, d.path, O_PATH | O_DIRECTORY);
  if (!fd) return fd.error().reworded("Can't mkdir " + d.path);
  return fd;
}

// A file to mount over (an existing non-directory is fine), as bwrap's ensure_file; returns it.
Result<UniqueFd> ensure_file(const Dest& d, mode_t mode) {
  if (d.name.empty()) return Error(EISDIR, "Can't create file at " + d.path);
  int fd = ::openat(d.parent_fd, d.name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd >= 0) return UniqueFd(fd);
  if (errno != EEXIST) return fail("Can't create file at " + d.path);
  auto existing = open_in_root(d.root_fd, d.path, O_PATH);
  if (!existing) return existing.error().reworded("Can't create file at " + d.path);
  struct stat st {};
  if (::fstat(existing->get(), &st) == 0 && S_ISDIR(st.st_mode))
    return Error(EISDIR, "Can't create file at " + d.path);
  return existing;
}

// Fallback for kernels without mount_setattr: remount every mount at or below `path`.
Status remount_tree_classic(const std::string& path, unsigned long ms_flags, bool recursive) {
  auto text = base::read_file("/oldroot/proc/self/mountinfo");
  if (!text) return std::move(text.error());
  auto mounts = base::parse_mountinfo(*text);
  if (!mounts) return std::move(mounts.error());
  for (const auto& m : *mounts) {
    if (m.mount_point != path && !(recursive && base::is_under(m.mount_point, path))) continue;
    unsigned long keep = 0;
    if (m.has_option("ro")) keep |= MS_RDONLY;
    if (m.has_option("nosuid")) keep |= MS_NOSUID;
    if (m.has_option("nodev")) keep |= MS_NODEV;
    if (m.has_option("noexec")) keep |= MS_NOEXEC;
    if (::mount("none", m.mount_point.c_str(), nullptr, MS_REMOUNT | MS_BIND | keep | ms_flags, nullptr) !=
            0 &&
        !(errno == EACCES && m.mount_point != path))
      return fail("remount " + m.mount_point);
  }
  return {};
}

}  // namespace

Status add_mount_attrs(int fd, unsigned long attrs, bool recursive) {
  if (attrs == 0) return {};
  mount_attr a{};
  a.attr_set = attrs;
  unsigned flags = AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0u);
  if (base::raw::mount_setattr(fd, "", flags, &a, sizeof a) == 0) return {};
  if (errno != ENOSYS) return fail("mount_setattr");
  char target[4096];
  ssize_t n = ::readlink(fd_path(fd).c_str(), target, sizeof target - 1);
  if (n < 0) return fail("readlink " + fd_path(fd));
  target[n] = 0;
  unsigned long ms = ((attrs & MOUNT_ATTR_RDONLY) ? MS_RDONLY : 0) |
                     ((attrs & MOUNT_ATTR_NOSUID) ? MS_NOSUID : 0) |
                     ((attrs & MOUNT_ATTR_NODEV) ? MS_NODEV : 0);
  return remount_tree_classic(target, ms, recursive);
}

namespace {

Status op_bind(const ResolvedOp& r, const Dest& d, spec::OwnedFds& fds) {
  const FsOp& op = r.op;
  unsigned long attrs = MOUNT_ATTR_NOSUID;
  if (op.kind != OpKind::DevBind) attrs |= MOUNT_ATTR_NODEV;
  if (op.kind == OpKind::RoBind) attrs |= MOUNT_ATTR_RDONLY;
  auto target = r.source_is_dir ? ensure_dir(d, 0755) : ensure_file(d, 0444);
  if (!target) return std::move(target.error());
  RF_TRY(bind_onto_in_child("/oldroot" + r.host_source, target->get(), d.root_fd, op.dest, attrs, true));
  if (!op.fd.valid()) return {};
  // --bind-fd: the fd's object lives in the caller's mount namespace, which a bind cannot take
  // from, so its path was bound; what got mounted must be that very object, or someone swapped
  // the path in between.
  auto mounted = open_in_root(d.root_fd, op.dest, O_PATH);
  struct stat st {};
  if (!mounted || ::fstat(mounted->get(), &st) != 0 || st.st_dev != r.source_dev || st.st_ino != r.source_ino)
    return Error(0, "Race condition binding dirfd");
  fds.close(op.fd);
  return {};
}

Status mount_fs_on(const char* fstype, const FsOp& op, const Dest& d, unsigned long flags, const char* data) {
  auto target = ensure_dir(d, 0755);
  if (!target) return std::move(target.error());
  if (::mount(fstype, fd_path(target->get()).c_str(), fstype, flags, data) != 0)
    return fail(std::string("Can't mount ") + fstype + " on /newroot" + base::normalize("/" + op.dest));
  return {};
}

}  // namespace

std::string tmpfs_bounds(std::optional<std::uint64_t> size, std::optional<std::uint64_t> inodes) {
  std::string out;
  if (size) out += ",size=" + std::to_string(*size);
  if (inodes) out += ",nr_inodes=" + std::to_string(*inodes);
  return out;
}

namespace {

Status op_tmpfs(const FsOp& op, const Dest& d) {
  std::string opts = "mode=" + octal(op.perms.value_or(0755)) + tmpfs_bounds(op.size, op.inodes);
  return mount_fs_on("tmpfs", op, d, MS_NOSUID | MS_NODEV, opts.c_str());
}

// --file: a regular file with the fd's content, made in place.
Status op_file(const ResolvedOp& r, const Dest& d) {
  const FsOp& op = r.op;
  if (d.name.empty()) return Error(EISDIR, "Can't create file " + op.dest);
  UniqueFd fd(::openat(d.parent_fd, d.name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                       op.perms.value_or(0666)));
  if (!fd.valid()) return fail("Can't create file " + op.dest);
  if (auto w = base::write_all(fd.get(), r.data); !w)
    return w.error().reworded("Can't write data to file " + op.dest);
  return {};
}

// --bind-data/--ro-bind-data: the content goes to a file on the hidden scratch tmpfs (the root
// between the two pivots, never visible in the sandbox or on the host), which is bound onto the
// destination and unlinked. (An O_TMPFILE file cannot be bind-mounted: the kernel refuses an
// unlinked source.)
// The file a data op binds: its own one, written with its content (unlinked after the bind), or
// for an empty mask the shared empty file, made once and kept (it is never written again).
struct DataFile {
  std::string path;
  struct stat st {};
  bool shared = false;
};
Result<DataFile> data_file(const ResolvedOp& r, int serial) {
  const FsOp& op = r.op;
  DataFile f;
  f.shared = op.empty;
  f.path = op.empty ? "/bind-empty" : "/bind-data-" + std::to_string(serial);
  if (op.empty && ::lstat(f.path.c_str(), &f.st) == 0) return f;
  UniqueFd tmp(::open(f.path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!tmp.valid()) return fail("Can't create tmpfile for " + op.dest);
  Status s;
  if (auto w = base::write_all(tmp.get(), r.data); !w)
    s = w.error().reworded("Can't write data to file " + op.dest);
  else if (::fchmod(tmp.get(), op.empty ? 0444 : op.perms.value_or(0600)) != 0 ||
           ::fstat(tmp.get(), &f.st) != 0)
    s = fail("Can't chmod file for " + op.dest);
  if (!s) {
    ::unlink(f.path.c_str());
    return s.error();
  }
  return f;
}

Status op_bind_data(const ResolvedOp& r, const Dest& d, int serial) {
  const FsOp& op = r.op;
  auto file = data_file(r, serial);
  if (!file) return file.error();
  const std::string& tmp_path = file->path;
  Status s;
  {
    auto target = ensure_file(d, 0444);
    unsigned long attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    if (op.kind == OpKind::RoBindData) attrs |= MOUNT_ATTR_RDONLY;
    s = target ? bind_onto_in_child(tmp_path, target->get(), d.root_fd, op.dest, attrs, false)
               : Status(std::move(target.error()));
  }
  if (!file->shared) ::unlink(tmp_path.c_str());
  return s;
}

Status op_symlink(const FsOp& op, const Dest& d) {
  if (::symlinkat(op.source.c_str(), d.parent_fd, d.name.c_str()) == 0) return {};
  if (errno != EEXIST) return fail("Can't make symlink at " + op.dest);
  // Idempotent: an existing link with exactly this target is fine (bwrap >= 0.9).
  char target[4096];
  ssize_t n = ::readlinkat(d.parent_fd, d.name.c_str(), target, sizeof target - 1);
  if (n < 0)
    return Error(0, "Can't make symlink at " + op.dest + ": destination exists and is not a symlink");
  target[n] = 0;
  if (op.source != target)
    return Error(0, "Can't make symlink at " + op.dest + ": existing destination is " + target);
  return {};
}

Status op_chmod(int root_fd, const FsOp& op) {
  mode_t mode = op.perms.value_or(0);
  std::string what = "Can't chmod " + octal(mode) + " " + op.dest;
  auto fd = open_in_root(root_fd, op.dest, O_PATH);
  if (!fd) return fd.error().reworded(what);
  if (::chmod(fd_path(fd->get()).c_str(), mode) != 0) return fail(what);
  return {};
}

Status op_remount_ro(int root_fd, const FsOp& op) {
  std::string where = "/newroot" + base::normalize("/" + op.dest);
  std::string what = "Can't remount readonly on " + where;
  auto fd = open_in_root(root_fd, op.dest, O_PATH);
  if (!fd) return fd.error().reworded(what + ": realpath(destination)");
  Status s = add_mount_attrs(fd->get(), MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false);
  if (!s && s.error().code() == EINVAL)  // not a mount point
    return Error(0, what + ": Unable to find \"" + where + "\" in mount table");
  if (!s) return s.error().reworded(what);
  return {};
}

// ---- paths in a tree the sandbox can write: never a link followed, never a name created ----

const char* kNoLinks = " (links in a tree the sandbox can write are not followed)";

std::string below(const std::string& path, const std::string& top) {
  std::string p = base::normalize("/" + path), t = base::normalize("/" + top);
  if (p == t) return "";
  return p.substr(t == "/" ? 1 : t.size() + 1);
}

// The object at `path` below `top` (an O_PATH fd of top's directory), which must exist and not
// be a link.
Result<UniqueFd> open_exact(int top_fd, const std::string& path, const std::string& top,
                            const std::string& what) {
  if (!base::is_under(base::normalize("/" + path), base::normalize("/" + top)))
    return Error(EINVAL, what + ": not below " + top);
  auto fd = open_beneath(top_fd, below(path, top), O_PATH | O_NOFOLLOW);
  if (!fd && fd.error().code() == ELOOP)
    return Error(ELOOP, what + ": a directory on the way below " + top + " is a symbolic link" + kNoLinks);
  if (!fd) return fd.error().reworded(what);
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return fail(what);
  if (S_ISLNK(st.st_mode)) return Error(ELOOP, what + ": it is a symbolic link" + kNoLinks);
  return fd;
}

Result<UniqueFd> open_dest_exact(int rfd, const FsOp& op, const std::string& what) {
  auto top = open_in_root(rfd, op.dest_beneath, O_PATH | O_DIRECTORY);
  if (!top) return top.error().reworded(what + ": " + op.dest_beneath);
  return open_exact(top->get(), op.dest, op.dest_beneath, what);
}

// Bind `from` (an fd path, or the host under /oldroot) onto target; then the object now at
// the destination must be `want` (a swap on the way would show here), and gets attrs.
Status bind_checked(const std::string& from, const struct stat& want, int target_fd, int rfd, const FsOp& op,
                    unsigned long attrs, bool recursive, const std::string& what) {
  if (::mount(from.c_str(), fd_path(target_fd).c_str(), nullptr, MS_BIND | (recursive ? MS_REC : 0),
              nullptr) != 0)
    return fail(what);
  auto mounted =
      op.dest_beneath.empty() ? open_in_root(rfd, op.dest, O_PATH) : open_dest_exact(rfd, op, what);
  if (!mounted && !op.dest_beneath.empty()) return std::move(mounted.error());  // names `what` already
  if (!mounted) return mounted.error().reworded(what + ": " + mounted.error().message());
  struct stat st {};
  if (::fstat(mounted->get(), &st) != 0) return fail(what);
  if (st.st_dev != want.st_dev || st.st_ino != want.st_ino)
    return Error(0, what + ": the path changed while the sandbox was set up");
  Status s = add_mount_attrs(mounted->get(), attrs, recursive);
  if (!s) return s.error().reworded(what + ": " + s.error().message());
  return {};
}

// A bind whose source or destination lies in a tree the sandbox can write, or whose source
// is in the sandbox itself: both ends opened without following links, the source bound by its
// fd (so exactly the object looked at), its identity checked against the launcher's look.
Status op_bind_exact(const ResolvedOp& r, int rfd) {
  const FsOp& op = r.op;
  std::string what = "Can't bind mount " + op.source + " on " + base::normalize("/" + op.dest);
  UniqueFd src;
  if (op.source_in_sandbox) {
    auto fd = open_in_root(rfd, op.source, O_PATH);
    if (!fd) return fd.error().reworded(what);
    src = std::move(*fd);
  } else if (!op.source_beneath.empty()) {
    auto host = base::open_fd("/oldroot", O_PATH | O_DIRECTORY);
    if (!host) return host.error().reworded(what);
    auto top = open_in_root(host->get(), op.source_beneath, O_PATH | O_DIRECTORY);
    if (!top) return top.error().reworded(what + ": " + op.source_beneath);
    auto fd = open_exact(top->get(), op.source, op.source_beneath, what);
    if (!fd) return std::move(fd.error());
    src = std::move(*fd);
  }
  struct stat want {};
  std::string from = src.valid() ? fd_path(src.get()) : "/oldroot" + r.host_source;
  if ((src.valid() ? ::fstat(src.get(), &want) : ::stat(from.c_str(), &want)) != 0) return fail(what);
  if (!op.source_in_sandbox && !op.source_beneath.empty() &&
      (want.st_dev != r.source_dev || want.st_ino != r.source_ino))
    return Error(0, what + ": the source changed while the sandbox was set up");
  bool is_dir = S_ISDIR(want.st_mode);
  UniqueFd target;
  if (!op.dest_beneath.empty()) {
    auto fd = open_dest_exact(rfd, op, what);
    if (!fd) return std::move(fd.error());
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0) return fail(what);
    if (S_ISDIR(st.st_mode) != is_dir)
      return Error(is_dir ? ENOTDIR : EISDIR,
                   what + ": the destination is " + (is_dir ? "not a directory" : "a directory"));
    target = std::move(*fd);
  } else {
    auto parent = mkdir_p_in_root(rfd, base::parent(base::normalize("/" + op.dest)), parent_mode_for(op));
    if (!parent) return parent.error().reworded("Can't mkdir parents for " + op.dest);
    auto comps = base::components(op.dest);
    Dest d{rfd, parent->get(), comps.empty() ? std::string() : comps.back(), op.dest};
    auto fd = is_dir ? ensure_dir(d, 0755) : ensure_file(d, 0444);
    if (!fd) return std::move(fd.error());
    target = std::move(*fd);
  }
  unsigned long attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
  if (op.kind == OpKind::RoBind) attrs |= MOUNT_ATTR_RDONLY;
  return bind_checked(from, want, target.get(), rfd, op, attrs, true, what);
}

// Masks below a writable tree: the existing name is covered where it is, never created.
Status op_cover_exact(const ResolvedOp& r, int rfd, int serial) {
  const FsOp& op = r.op;
  std::string what = "Can't cover " + base::normalize("/" + op.dest);
  auto target = open_dest_exact(rfd, op, what);
  if (!target) return std::move(target.error());
  struct stat st {};
  if (::fstat(target->get(), &st) != 0) return fail(what);
  // What the scan covered must be what is there now: a masked directory moved away and another
  // put in its place would leave the real one uncovered.
  if (op.dest_identity && op.kind != OpKind::RemountRo &&
      ((!op.identity_ino_only && st.st_dev != op.dest_identity->first) ||
       st.st_ino != op.dest_identity->second))
    return Error(0, what + ": it changed while the sandbox was set up");
  if (op.kind == OpKind::RemountRo) {
    Status s =
        add_mount_attrs(target->get(), MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false);
    return s ? s : Status(s.error().reworded(what + " read-only: " + s.error().message()));
  }
  if (op.kind == OpKind::Tmpfs) {
    if (!S_ISDIR(st.st_mode)) return Error(ENOTDIR, what + ": not a directory");
    std::string opts = "mode=" + octal(op.perms.value_or(0755)) + tmpfs_bounds(op.size, op.inodes);
    if (::mount("tmpfs", fd_path(target->get()).c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()) != 0)
      return fail(what + " with a tmpfs");
    return {};
  }
  if (op.kind != OpKind::RoBindData && op.kind != OpKind::BindData)
    return Error(EINVAL, what + ": this operation does not take a path in a tree the sandbox can write");
  if (S_ISDIR(st.st_mode)) return Error(EISDIR, what + ": a directory");
  auto file = data_file(r, serial);
  if (!file) return file.error();
  unsigned long attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
  if (op.kind == OpKind::RoBindData) attrs |= MOUNT_ATTR_RDONLY;
  Status s = bind_checked(file->path, file->st, target->get(), rfd, op, attrs, false, what);
  if (!file->shared) ::unlink(file->path.c_str());
  return s;
}

Status apply_op(const ChildContext& ctx, int rfd, const ResolvedOp& r) {
  const FsOp& op = r.op;
  if (op.source_in_sandbox || !op.source_beneath.empty() ||
      (!op.dest_beneath.empty() && (op.kind == OpKind::Bind || op.kind == OpKind::RoBind)))
    return op_bind_exact(r, rfd);
  if (!op.dest_beneath.empty()) return op_cover_exact(r, rfd, static_cast<int>(&r - ctx.ops.data()));
  if (op.dest_optional) {
    auto there = open_in_root(rfd, op.dest, O_PATH);
    if (!there && (there.error().code() == ENOENT || there.error().code() == ENOTDIR)) return {};
  }
  // In place, never created: bwrap's NO_CREATE_DEST ops.
  if (op.kind == OpKind::RemountRo) return op_remount_ro(rfd, op);
  if (op.kind == OpKind::Chmod) return op_chmod(rfd, op);
  auto parent = mkdir_p_in_root(rfd, base::parent(base::normalize("/" + op.dest)), parent_mode_for(op));
  if (!parent) return parent.error().reworded("Can't mkdir parents for " + op.dest);
  auto comps = base::components(op.dest);
  Dest d{rfd, parent->get(), comps.empty() ? std::string() : comps.back(), op.dest};
  switch (op.kind) {
    case OpKind::Bind:
    case OpKind::RoBind:
    case OpKind::DevBind: return op_bind(r, d, *ctx.fds);
    case OpKind::Tmpfs: return op_tmpfs(op, d);
    case OpKind::Mqueue: return mount_fs_on("mqueue", op, d, 0, nullptr);
    case OpKind::Dir: {
      auto dir = ensure_dir(d, op.perms.value_or(0755));
      return dir ? Status() : Status(std::move(dir.error()));
    }
    case OpKind::Symlink: return op_symlink(op, d);
    case OpKind::File: return op_file(r, d);
    case OpKind::BindData:
    case OpKind::RoBindData: return op_bind_data(r, d, static_cast<int>(&r - ctx.ops.data()));
    case OpKind::Proc:
    case OpKind::Dev: {
      auto dir = ensure_dir(d, 0755);
      if (!dir) return std::move(dir.error());
      return op.kind == OpKind::Proc ? mount_proc_in_child(ctx, rfd, dir->get(), op)
                                     : mount_dev_in_child(ctx, rfd, dir->get(), op);
    }
    case OpKind::Overlay:
    case OpKind::TmpOverlay:
    case OpKind::RoOverlay: {
      auto dir = ensure_dir(d, 0755);
      if (!dir) return std::move(dir.error());
      return mount_overlay_in_child(ctx, dir->get(), r);
    }
    case OpKind::RemountRo:
    case OpKind::Chmod: break;
  }
  return {};
}

}  // namespace

Status bind_onto_in_child(const std::string& src, int target_fd, int root_fd, const std::string& dest,
                          unsigned long attrs, bool recursive) {
  std::string what = "Can't bind mount " + src + " on /newroot" + base::normalize("/" + dest);
  if (::mount(src.c_str(), fd_path(target_fd).c_str(), nullptr, MS_BIND | (recursive ? MS_REC : 0),
              nullptr) != 0)
    return fail(what);
  // Re-open: target_fd still names the directory underneath the new mount.
  auto mounted = open_in_root(root_fd, dest, O_PATH);
  if (!mounted) return mounted.error().reworded(what);
  Status s = add_mount_attrs(mounted->get(), attrs, recursive);
  if (!s) return s.error().reworded(what + ": " + s.error().message());
  return {};
}

Status prepare_root_in_child(std::optional<std::uint64_t> root_size,
                             std::optional<std::uint64_t> root_inodes) {
  // Host mounts propagate in, nothing we do propagates out.
  if (::mount(nullptr, "/", nullptr, MS_SLAVE | MS_REC, nullptr) != 0) return fail("Failed to make / slave");
  const char* base_dir = nullptr;
  std::string bounds = tmpfs_bounds(root_size, root_inodes);
  if (!bounds.empty()) bounds.erase(0, 1);  // the leading comma
  for (const char* cand : kBaseCandidates) {
    if (::mount("tmpfs", cand, "tmpfs", MS_NODEV | MS_NOSUID, bounds.empty() ? nullptr : bounds.c_str()) ==
        0) {
      base_dir = cand;
      break;
    }
    if (errno != ENOENT && errno != ENOTDIR) return fail(std::string("Failed to mount tmpfs on ") + cand);
  }
  if (base_dir == nullptr) return fail("Failed to mount tmpfs: no base directory");
  if (::chdir(base_dir) != 0) return fail(std::string("chdir ") + base_dir);
  if (::mkdir("newroot", 0755) != 0) return fail("Creating newroot failed");
  if (::mount("newroot", "newroot", nullptr, MS_BIND | MS_REC, nullptr) != 0)
    return fail("setting up newroot bind");
  if (::mkdir("oldroot", 0755) != 0) return fail("Creating oldroot failed");
  if (base::raw::pivot_root(base_dir, "oldroot") != 0) return fail("pivot_root");
  if (::chdir("/") != 0) return fail("chdir / (after pivot)");
  return {};
}

Status apply_ops_in_child(const ChildContext& ctx) {
  auto root = base::open_fd("/newroot", O_PATH | O_DIRECTORY);
  if (!root) return std::move(root.error());
  for (const auto& r : ctx.ops) {
    if (r.skip) continue;
    RF_TRY(apply_op(ctx, root->get(), r));
    // An op that mounted over the root itself (--bind / /) hides the directory root_fd
    // names: later ops must resolve in the new mount.
    if (base::components(r.op.dest).empty()) {
      root = base::open_fd("/newroot", O_PATH | O_DIRECTORY);
      if (!root) return std::move(root.error());
    }
  }
  return {};
}

Status finish_root_in_child() {
  // The host tree must not stay reachable: make it private (so the detach does not propagate
  // back to the host) and detach it lazily.
  if (::mount("oldroot", "/oldroot", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return fail("Failed to make old root rprivate");
  if (::umount2("/oldroot", MNT_DETACH) != 0) return fail("unmount old root");
  // Second pivot: /newroot becomes "/", the scratch tmpfs is stacked under it and detached.
  if (::chdir("/newroot") != 0) return fail("chdir /newroot");
  if (base::raw::pivot_root(".", ".") != 0) return fail("pivot_root(/newroot)");
  if (::umount2(".", MNT_DETACH) != 0) return fail("unmount old root");
  if (::chdir("/") != 0) return fail("chdir /");
  return {};
}

}  // namespace rf::engine
