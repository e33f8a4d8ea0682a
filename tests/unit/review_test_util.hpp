// SPDX-License-Identifier: LGPL-2.1-or-later
// A hand-made review run for the review tests: a project, a store, a change set whose upper
// directory the test fills as overlayfs would.
#pragma once

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ringfence/base/remove_tree.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/review/changes.hpp"
#include "ringfence/review/store.hpp"

namespace rf::review::test {

inline std::string temp_dir(const char* what) {
  const char* t = std::getenv("TMPDIR");
  std::string tmpl = std::string(t && *t == '/' ? t : "/tmp") + "/rf-" + what + "-XXXXXX";
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  return tmpl;
}

inline void put(const std::string& p, const std::string& text, mode_t mode = 0644) {
  ::unlink(p.c_str());
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  REQUIRE_MESSAGE(fd >= 0, p);
  REQUIRE(rf::base::write_all(fd, text));
  ::fchmod(fd, mode);
  ::close(fd);
}

inline std::string get(const std::string& p) {
  auto s = rf::base::read_file(p);
  return s ? *s : std::string("<missing>");
}

inline bool exists(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

inline mode_t mode_of(const std::string& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode;
}

inline void sleep_ms(long ms) {
  struct timespec ts {
    ms / 1000, (ms % 1000) * 1000000
  };
  ::nanosleep(&ts, nullptr);
}

// project/ (filled by the test before start()), store/, and the change set's upper/.
struct Run {
  std::string base = temp_dir("review");
  std::string project = base + "/project";
  std::string store_root = base + "/store";
  ChangeSet cs;

  Run() { REQUIRE(::mkdir(project.c_str(), 0755) == 0); }
  ~Run() { rf::base::remove_tree(base); }

  // The run starts: the baseline is taken after the project's files were made.
  void start(std::vector<std::string> masked = {}) {
    sleep_ms(120);
    auto store = Store::at(store_root);
    REQUIRE_MESSAGE(store, store.error().describe());
    CreateInfo info;
    info.started_ns = realtime_ns();
    info.masked = std::move(masked);
    auto p = create_change_set(*store, project, info);
    REQUIRE_MESSAGE(p, p.error().describe());
    auto c = open_change_set(*store, p->id);
    REQUIRE_MESSAGE(c, c.error().describe());
    cs = *c;
  }
  [[nodiscard]] std::string up(const std::string& rel) const { return cs.paths.upper + "/" + rel; }
  [[nodiscard]] std::string pj(const std::string& rel) const { return project + "/" + rel; }
  // A copy-up: the project's entry as the kernel copies it into upper.
  void copy_up(const std::string& rel) { put(up(rel), get(pj(rel)), mode_of(pj(rel)) & 07777); }
  std::vector<Change> changes() const {
    auto c = scan(cs);
    REQUIRE_MESSAGE(c, c.error().describe());
    return *c;
  }
};

// Whiteouts are 0/0 character devices: mknod needs CAP_MKNOD.
inline bool can_mknod() { return ::geteuid() == 0; }

inline const Change* find(const std::vector<Change>& cs, const std::string& path) {
  for (const auto& c : cs)
    if (c.path == path) return &c;
  return nullptr;
}

}  // namespace rf::review::test
