// SPDX-License-Identifier: LGPL-2.1-or-later
// overlayfs for --overlay/--tmp-overlay/--ro-overlay: host paths realpath'ed before clone, an
// option string in bwrap's form (escaped, lowerdir top-first, userxattr), and the mount.
#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string_view>

#include "overlay.hpp"
#include "resolve.hpp"
#include "ringfence/base/paths.hpp"

namespace rf::engine {
namespace {

using base::Error;
using base::Status;
using spec::OpKind;

Status realpath_into(std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return base::errno_error("Can't find source path " + path);
  path = buf;
  return {};
}

// overlayfs splits its options on ',' and lowerdir on ':', and takes '\' as the escape for
// both; every path goes in with those three characters escaped.
void append_escaped(std::string& out, std::string_view path) {
  for (char c : path) {
    if (c == '\\' || c == ',' || c == ':') out += '\\';
    out += c;
  }
}

// Host paths are reached through /oldroot while the ops run.
void append_host_path(std::string& out, std::string_view path) {
  out += "/oldroot";
  append_escaped(out, path);
}

// The kernel wants lowerdir= top layer first: the reverse of the command line.
std::string lowerdir_option(const std::vector<std::string>& layers) {
  std::string out = "lowerdir=";
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    if (it != layers.rbegin()) out += ':';
    append_host_path(out, *it);
  }
  return out;
}

// The N-th --tmp-overlay's upper and work dirs: on the scratch tmpfs that is "/" between the
// two pivots, so neither the host nor the sandbox ever sees them, and writes die with it.
Status make_tmp_dirs(int n, std::string& opts) {
  const std::string upper = "/tmp-overlay-upper-" + std::to_string(n);
  const std::string work = "/tmp-overlay-work-" + std::to_string(n);
  if (::mkdir(upper.c_str(), 0755) != 0) return base::errno_error("Creating --tmp-overlay upperdir failed");
  if (::mkdir(work.c_str(), 0755) != 0) return base::errno_error("Creating --tmp-overlay workdir failed");
  opts += "upperdir=" + upper + ",workdir=" + work + ",";
  return {};
}

int tmp_overlay_index(const ChildContext& ctx, const ResolvedOp& r) {
  int n = 0;
  for (const auto& other : ctx.ops) {
    if (&other == &r) break;
    if (other.op.kind == OpKind::TmpOverlay) ++n;
  }
  return n;
}

}  // namespace

Status resolve_overlay_sources(ResolvedOp& r) {
  for (auto& layer : r.op.layers) RF_TRY(realpath_into(layer));
  if (r.op.kind != OpKind::Overlay) return {};
  r.host_source = r.op.source;
  RF_TRY(realpath_into(r.host_source));
  return realpath_into(r.op.work);
}

Status mount_overlay_in_child(const ChildContext& ctx, int dir_fd, const ResolvedOp& r) {
  const spec::FsOp& op = r.op;
  std::string opts;
  if (op.kind == OpKind::Overlay) {
    opts += "upperdir=";
    append_host_path(opts, r.host_source);
    opts += ",workdir=";
    append_host_path(opts, op.work);
    opts += ",";
  } else if (op.kind == OpKind::TmpOverlay) {
    RF_TRY(make_tmp_dirs(tmp_overlay_index(ctx, r), opts));
  }
  opts += lowerdir_option(op.layers);
  // Overlay xattrs in the user.* namespace: the only ones an unprivileged user namespace may
  // write; bwrap passes it in every case, so the on-disk format does not depend on the caller.
  opts += ",userxattr";
  const std::string what =
      "Can't make overlay mount on /newroot" + base::normalize("/" + op.dest) + " with options " + opts;
  // nosuid,nodev as on binds: layers are host directories the sandbox must not gain from.
  if (::mount("overlay", fd_path(dir_fd).c_str(), "overlay", MS_NOSUID | MS_NODEV, opts.c_str()) == 0)
    return {};
  // The kernel's ELOOP ("Too many levels of symbolic links") means the dirs overlap.
  if (errno == ELOOP) return Error(0, what + ": Overlay directories may not overlap");
  return base::errno_error(what);
}

}  // namespace rf::engine
