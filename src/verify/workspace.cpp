// SPDX-License-Identifier: LGPL-2.1-or-later
// The temporary tree: made with exclusive creation, removed without following symlinks or
// leaving its file system.
#include "workspace.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/remove_tree.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::verify {
namespace {

using base::Error;
using base::Status;
using base::UniqueFd;

Status make_dir(const std::string& path, mode_t mode) {
  if (::mkdir(path.c_str(), mode) != 0) return base::errno_error("mkdir " + path);
  return {};
}

Status write_new(const std::string& path, const std::string& data, mode_t mode) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd.valid()) return base::errno_error("create " + path);
  if (auto w = base::write_all(fd.get(), data); !w) return w.error().reworded("write " + path);
  return {};
}

Status copy_program(const std::string& from, const std::string& to) {
  UniqueFd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.valid()) return base::errno_error("open the attack program " + from);
  UniqueFd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755));
  if (!out.valid()) return base::errno_error("create " + to);
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(in.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::errno_error("read " + from);
    if (n == 0) break;
    if (auto w = base::write_all(out.get(), std::string_view(buf, static_cast<size_t>(n))); !w)
      return w.error().reworded("write " + to);
  }
  return {};
}

std::string temp_base() {
  const char* t = ::getenv("TMPDIR");
  if (t && *t == '/') {
    struct stat st {};
    if (::stat(t, &st) == 0 && S_ISDIR(st.st_mode) && ::access(t, W_OK | X_OK) == 0) return t;
  }
  return "/tmp";
}

}  // namespace

base::Result<std::string> make_token() {
  unsigned char raw[16];
  size_t got = 0;
  while (got < sizeof raw) {
    ssize_t n = ::getrandom(raw + got, sizeof raw - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::errno_error("getrandom");
    got += static_cast<size_t>(n);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out = "rfcanary";
  for (unsigned char b : raw) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

Workspace::Workspace(Workspace&& o) noexcept : root_(std::move(o.root_)) { o.root_.clear(); }

Workspace::~Workspace() { (void)remove(); }

base::Result<Workspace> Workspace::create(const std::string& token, const std::string& attack_program) {
  Workspace ws;
  std::string tmpl = temp_base() + "/rf-verify-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return base::errno_error("mkdtemp " + tmpl);
  ws.root_ = tmpl;  // from here on the destructor removes it, also on the error paths below
  // The attack program runs from the project: a noexec file system would refuse it at every level.
  struct statvfs sv {};
  if (::statvfs(tmpl.c_str(), &sv) == 0 && (sv.f_flag & ST_NOEXEC))
    return Error(EACCES, base::parent(tmpl) +
                             " is on a file system mounted noexec, and the attack program runs from "
                             "the project there; set TMPDIR to a directory where programs may run");
  const std::string h = ws.home(), p = ws.project();
  RF_TRY(make_dir(h, 0700));
  RF_TRY(make_dir(h + "/.ssh", 0700));
  RF_TRY(write_new(ws.home_canary(),
                   "-----BEGIN OPENSSH PRIVATE KEY-----\n" + token + "\n-----END OPENSSH PRIVATE KEY-----\n",
                   0600));
  RF_TRY(make_dir(h + "/.aws", 0700));
  RF_TRY(write_new(h + "/.aws/credentials",
                   "[default]\naws_access_key_id = AKIA" + token.substr(8, 16) +
                       "\naws_secret_access_key = " + token + "\n",
                   0600));
  RF_TRY(make_dir(p, 0700));
  RF_TRY(write_new(p + "/.env", "API_KEY=" + token + "\n", 0600));
  RF_TRY(make_dir(p + "/.git", 0700));
  RF_TRY(make_dir(p + "/.git/hooks", 0700));
  RF_TRY(make_dir(p + "/.git/objects", 0700));
  RF_TRY(make_dir(p + "/.git/refs", 0700));
  RF_TRY(write_new(p + "/.git/HEAD", "ref: refs/heads/main\n", 0644));
  RF_TRY(write_new(p + "/.git/config",
                   "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n", 0644));
  RF_TRY(write_new(p + "/README", "A throwaway project made by `ringfence verify`.\n", 0644));
  RF_TRY(copy_program(attack_program, ws.attack_copy()));
  RF_TRY(make_dir(ws.runtime_dir(), 0700));
  RF_TRY(make_dir(ws.logs(), 0700));
  return ws;
}

base::Status Workspace::remove() {
  if (root_.empty()) return {};
  const auto left = base::remove_tree(root_);
  if (!left.empty())
    return Error(0, "cannot remove " + left.front() +
                        (left.size() > 1 ? " (and " + std::to_string(left.size() - 1) + " more)" : ""));
  root_.clear();
  return {};
}

}  // namespace rf::verify
