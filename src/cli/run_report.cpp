// SPDX-License-Identifier: LGPL-2.1-or-later
// What a failed run leaves in its throwaway HOME: the files it wrote there (a tool's log, a
// crash report), named before the directory is removed.
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "ringfence/cli/native_run.hpp"

namespace rf::cli {

namespace {

// nftw has no user pointer: one walk at a time (the launcher is single-threaded here).
struct Walk {
  std::string top;
  time_t since = 0;
  std::size_t max = 0;
  std::size_t seen = 0;
  WrittenFiles* out = nullptr;
};
Walk* g_walk = nullptr;

int visit(const char* path, const struct stat* st, int type, FTW*) {
  Walk& w = *g_walk;
  if (++w.seen > 20000) return 1;  // a bound on the walk itself
  if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_mtime < w.since) return 0;
  ++w.out->count;
  if (w.out->examples.size() < w.max) w.out->examples.push_back(std::string(path).substr(w.top.size() + 1));
  return 0;
}

}  // namespace

WrittenFiles files_written_since(const std::string& dir, time_t since, std::size_t max_examples) {
  WrittenFiles out;
  if (dir.empty()) return out;
  Walk w{dir, since, max_examples, 0, &out};
  g_walk = &w;
  // FTW_PHYS: no link is followed (the sandbox wrote this tree).
  (void)::nftw(dir.c_str(), visit, 16, FTW_PHYS | FTW_MOUNT);
  g_walk = nullptr;
  return out;
}

}  // namespace rf::cli
