// SPDX-License-Identifier: LGPL-2.1-or-later
// The throwaway HOME of `ringfence run` on the host: made and filled before the start (with the
// entries the plan found missing), copied back and removed after the run.
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

#include "ringfence/base/log.hpp"
#include "ringfence/base/paths.hpp"
#include "ringfence/base/remove_tree.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"
#include "ringfence/cli/native_run.hpp"
#include "run_fs.hpp"
#include "run_landlock.hpp"

namespace rf::cli {
namespace {

using base::Error;
using base::Status;

Status make_dir(const std::string& path, mode_t mode, uid_t uid) {
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) return base::errno_error("mkdir " + path);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid)
    return Error(EPERM, path + " is not a directory of ours");
  return {};
}

Status copy_file(const std::string& from, const std::string& to, mode_t mode) {
  RF_TRY_ASSIGN(data, base::read_file(from));
  std::string tmp = to + ".rf-tmp";
  base::UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd.valid()) return base::errno_error("cannot create " + tmp);
  if (auto w = base::write_all(fd.get(), data); !w) return w.error().reworded("cannot write " + tmp);
  if (::rename(tmp.c_str(), to.c_str()) != 0) return base::errno_error("cannot rename " + tmp + " to " + to);
  return {};
}

// The agent's missing writable directories (plan.agent_make), made by the user below the agent's
// directory without following a link. Where the user cannot make one, neither could the sandbox:
// its bind or rule is dropped.
Status make_agent_entries(RunPlan& plan) {
  for (const auto& e : plan.agent_make) {
    base::UniqueFd dir(::open(e.top.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) return base::errno_error("cannot open " + e.top);
    int err = 0;
    for (const auto& part : base::components(e.rel)) {
      if (::mkdirat(dir.get(), part.c_str(), 0700) != 0 && errno != EEXIST) {
        err = errno;
        break;
      }
      dir = base::UniqueFd(::openat(dir.get(), part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!dir.valid()) {
        err = errno;
        break;
      }
    }
    const std::string path = e.top + "/" + e.rel;
    if (err == EACCES || err == EROFS || err == EPERM) {
      auto& ops = plan.spec.fs_ops;
      ops.erase(std::remove_if(ops.begin(), ops.end(), [&](const spec::FsOp& o) { return o.source == path; }),
                ops.end());
      auto& rules = plan.spec.landlock_rules;
      rules.erase(std::remove_if(rules.begin(), rules.end(), [&](const auto& r) { return r.path == path; }),
                  rules.end());
    } else if (err != 0) {  // a link or a file on the way: the engine would refuse it anyway
      return Error(err, "cannot make " + path);
    }
  }
  return {};
}

// A run's scratch directory (prefix "home" or "tmp"), locked for the launcher's life: made
// under a temporary name, locked (flock on the directory itself, CLOEXEC, so the sandbox never
// holds it), then renamed to its final name without replacing anything. So a directory with a
// final name is locked from its first moment, and one whose lock can be taken has no launcher.
Status make_locked_dir(const std::string& base_dir, const std::string& prefix, std::string& path,
                       base::UniqueFd& lock) {
  std::string tmpl = base_dir + "/new-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return base::errno_error("mkdtemp " + tmpl);
  lock.reset(::open(tmpl.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    Status e = base::errno_error("cannot lock " + tmpl);
    ::rmdir(tmpl.c_str());
    return e;
  }
  const std::string suffix = tmpl.substr(tmpl.size() - 6);
  for (int attempt = 0;; ++attempt) {
    path = base_dir + "/" + prefix + "-" + suffix + (attempt ? "-" + std::to_string(attempt) : "");
    if (::renameat2(AT_FDCWD, tmpl.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) return {};
    if (errno != EEXIST || attempt == 100) {
      Status e = base::errno_error("cannot rename " + tmpl + " to " + path);
      ::rmdir(tmpl.c_str());
      return e;
    }
  }
}

// The generated /etc files (the egress allowlist's resolv.conf, the offline nsswitch.conf), in a
// directory of their own (locked as HOME's), bound read-only where the plan put them.
Status write_etc_files(RunPlan& plan, const std::string& base_dir, base::UniqueFd& lock) {
  RF_TRY(make_locked_dir(base_dir, "etc", plan.etc_host, lock));
  const std::pair<const std::string*, const std::string*> files[] = {
      {&plan.resolv_conf, &plan.resolv_conf_dest}, {&plan.nsswitch_conf, &plan.nsswitch_conf_dest}};
  for (const auto& [content, dest] : files) {
    if (content->empty()) continue;
    const std::string path =
        plan.etc_host + "/" + (content == &plan.resolv_conf ? "resolv.conf" : "nsswitch.conf");
    base::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444));
    if (!fd.valid()) return base::errno_error("cannot create " + path);
    if (auto w = base::write_all(fd.get(), *content); !w) return w.error().reworded("cannot write " + path);
    for (auto& o : plan.spec.fs_ops)
      if (o.kind == spec::OpKind::RoBind && o.source.empty() && o.dest == *dest) o.source = path;
  }
  return {};
}

// What runs whose launcher was killed left in base_dir: every home-*, tmp-* and etc-* of ours whose
// lock is free, and new-* (killed between mkdtemp and rename) older than an hour. kept-home-*
// (--keep-home) stays. Best effort and silent: what cannot be removed now is tried next time.
void remove_stale_dirs(const std::string& base_dir, uid_t uid) {
  base::UniqueFd dir(::open(base_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid()) return;
  DIR* d = ::fdopendir(::fcntl(dir.get(), F_DUPFD_CLOEXEC, 0));
  if (d == nullptr) return;
  std::vector<std::string> stale;
  const time_t hour_ago = ::time(nullptr) - 3600;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const bool locked_kind =
        name.starts_with("home-") || name.starts_with("tmp-") || name.starts_with("etc-");
    if (!locked_kind && !name.starts_with("new-")) continue;
    base::UniqueFd fd(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || st.st_uid != uid) continue;
    if (locked_kind ? ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0 : st.st_mtime < hour_ago)
      stale.push_back(base_dir + "/" + name);
  }
  ::closedir(d);
  for (const auto& p : stale) (void)base::remove_tree(p);
}

}  // namespace

ThrowawayHome::ThrowawayHome(RunPlan& plan, const HostSnapshot& host)
    : plan_(plan), runtime_dir_(host.env("XDG_RUNTIME_DIR")), real_home_(host.env("HOME")), uid_(host.uid) {}

ThrowawayHome::~ThrowawayHome() {
  if (finished_) return;
  try {
    std::vector<std::string> ignored;
    (void)finish(ignored);
  } catch (...) {  // nothing may leave a destructor
  }
}

Status ThrowawayHome::prepare() {
  RunPlan& plan = plan_;
  std::string base_dir;
  if (const auto& x = runtime_dir_; x && x->starts_with('/') && ::access(x->c_str(), W_OK) == 0) {
    base_dir = *x + "/ringfence";
  } else {
    base_dir = "/tmp/ringfence-" + std::to_string(uid_);
  }
  RF_TRY(make_git_entries(plan));
  RF_TRY(make_agent_entries(plan));
  if (plan.settings.project_writable && !plan.settings.review) scan_autorun(plan);  // review: untouched
  end_autorun_prefetch();  // one planning started and nobody took: before the launcher forks
  RF_TRY(make_dir(base_dir, 0700, uid_));
  remove_stale_dirs(base_dir, uid_);
  RF_TRY(
      make_locked_dir(base_dir, plan.settings.keep_home ? "kept-home" : "home", plan.home_host, home_lock_));
  if (plan.settings.keep_home) home_lock_.reset();  // a kept HOME is never stale
  if (!plan.resolv_conf.empty() || !plan.nsswitch_conf.empty())
    RF_TRY(write_etc_files(plan, base_dir, etc_lock_));
  for (auto& o : plan.spec.fs_ops)
    if (o.kind == spec::OpKind::Bind && o.source.empty() && o.dest == plan.home_inside)
      o.source = plan.home_host;
  if (plan.spec.jail != spec::Jail::Kernel) {
    // No mount namespace: HOME is the throwaway directory itself, by its host path.
    for (auto& e : plan.spec.env_ops)
      if (e.kind == spec::EnvOp::Kind::Set && e.name == "HOME") e.value = plan.home_host;
    for (const auto& d : plan.soft_agent_dirs)
      if (real_home_ && ::symlink((*real_home_ + "/" + d).c_str(), (plan.home_host + "/" + d).c_str()) != 0)
        return base::errno_error("cannot link " + d + " into " + plan.home_host);
    if (plan.spec.jail == spec::Jail::Landlock) {
      std::string tmp_dir;
      RF_TRY(make_locked_dir(base_dir, "tmp", tmp_dir, tmp_lock_));
      RF_TRY(prepare_landlock_home(plan, tmp_dir));
    }
    spec::ConnectPolicy& cp = plan.spec.supervision.connect;
    if (cp.restrict_unix_paths) {
      cp.unix_path_allow.push_back(plan.home_host);
      if (!plan.tmp_host.empty()) cp.unix_path_allow.push_back(plan.tmp_host);
    }
  }
  for (const auto& c : plan.copies) {
    std::string to = plan.home_host + "/" + c.inside;
    for (std::string dir = base::parent(to);
         dir.size() > plan.home_host.size() && ::access(dir.c_str(), F_OK) != 0; dir = base::parent(dir))
      ::mkdir(dir.c_str(), 0700);  // single level in practice: agent files sit at the top
    RF_TRY(copy_file(c.host, to, 0600));
  }
  if (!plan.agent_state.warning.empty()) base::log::warning(plan.agent_state.warning);
  std::vector<std::string> info;
  RF_TRY(prepare_agent_state(plan, uid_, info));
  for (const auto& i : info) base::log::info(i);
  // Files the plan wrote (the filtered gitconfig): the sandbox's own, never copied back.
  for (const auto& f : plan.home_files) {
    const std::string to = plan.home_host + "/" + f.rel;
    base::UniqueFd fd(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd.valid()) return base::errno_error("cannot create " + to);
    if (auto w = base::write_all(fd.get(), f.text); !w) return w.error().reworded("cannot write " + to);
  }
  return {};
}

Status ThrowawayHome::finish(std::vector<std::string>& not_removed) {
  finished_ = true;
  const RunPlan& plan = plan_;
  auto remove = [&not_removed](const std::string& dir) {
    auto left = base::remove_tree(dir);
    not_removed.insert(not_removed.end(), left.begin(), left.end());
  };
  if (!plan.tmp_host.empty()) remove(plan.tmp_host);  // the landlock level's TMPDIR
  if (!plan.etc_host.empty()) remove(plan.etc_host);  // the generated /etc files
  if (plan.home_host.empty()) return {};
  // The agent's files back to its state (never to the real home), before HOME goes.
  Status result = finish_agent_state(plan, uid_);
  for (const auto& c : plan.copies) {
    if (!c.copy_back) continue;
    std::string from = plan.home_host + "/" + c.inside;
    auto now = base::read_file(from);
    auto before = base::read_file(c.host);
    if (now && (!before || *before != *now)) {
      if (auto s = copy_file(from, c.host, 0600); !s && result) result = s;
    }
  }
  if (!plan.settings.keep_home) remove(plan.home_host);
  return result;
}

}  // namespace rf::cli
