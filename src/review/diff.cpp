// SPDX-License-Identifier: LGPL-2.1-or-later
// unified_diff: Myers' O(ND) line diff (with a plain delete-and-add past a bound on D), hunks
// with three lines of context, git's extended headers for new, deleted and re-moded files.
#include "ringfence/review/diff.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "fs_util.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/review/apply.hpp"

namespace rf::review {
namespace {

constexpr std::size_t kContext = 3;
// Past this many edits the diff is a plain delete-and-add (the trace kept for the walk back
// grows with the square of it: 2000 edits hold about 32 MB).
constexpr long kMaxEdits = 2000;

std::vector<std::string_view> lines_of(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < s.size()) {
    const auto nl = s.find('\n', at);
    const std::size_t end = nl == std::string_view::npos ? s.size() : nl + 1;
    out.push_back(s.substr(at, end - at));
    at = end;
  }
  return out;
}

enum class Op : char { Keep = ' ', Del = '-', Add = '+' };

// The edit script from a to b (Myers, with the forward V arrays kept for the walk back).
std::vector<Op> edit_script(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  const long n = static_cast<long>(a.size()), m = static_cast<long>(b.size());
  long pre = 0;
  while (pre < n && pre < m && a[pre] == b[pre]) ++pre;
  long suf = 0;
  while (suf < n - pre && suf < m - pre && a[n - 1 - suf] == b[m - 1 - suf]) ++suf;
  const long N = n - pre - suf, M = m - pre - suf;
  std::vector<Op> mid;
  const long max = std::min(N + M, kMaxEdits);
  const long off = max + 1;
  std::vector<long> v(static_cast<std::size_t>(2 * max + 3), 0);
  // trace[d]: V as it was before step d, for the diagonals -d..d (index k + d).
  std::vector<std::vector<long>> trace;
  long found = N == 0 || M == 0 ? -2 : -1;
  for (long d = 0; d <= max && found == -1; ++d) {
    trace.emplace_back(v.begin() + (off - d), v.begin() + (off + d + 1));
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && v[k - 1 + off] < v[k + 1 + off])) ? v[k + 1 + off] : v[k - 1 + off] + 1;
      long y = x - k;
      while (x < N && y < M && a[pre + x] == b[pre + y]) ++x, ++y;
      v[k + off] = x;
      if (x >= N && y >= M) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) {
    mid.assign(static_cast<std::size_t>(N), Op::Del);
    mid.insert(mid.end(), static_cast<std::size_t>(M), Op::Add);
  } else {
    long x = N, y = M;
    for (long d = found; d > 0; --d) {
      const auto& pv = trace[static_cast<std::size_t>(d)];
      const long k = x - y;
      const bool down = k == -d || (k != d && pv[k - 1 + d] < pv[k + 1 + d]);
      const long pk = down ? k + 1 : k - 1;
      const long px = pv[pk + d], py = px - pk;
      while (x > px && y > py) {
        mid.push_back(Op::Keep);
        --x, --y;
      }
      mid.push_back(down ? Op::Add : Op::Del);
      x = px, y = py;
    }
    while (x > 0 && y > 0) {
      mid.push_back(Op::Keep);
      --x, --y;
    }
    std::reverse(mid.begin(), mid.end());
  }
  std::vector<Op> ops(static_cast<std::size_t>(pre), Op::Keep);
  ops.insert(ops.end(), mid.begin(), mid.end());
  ops.insert(ops.end(), static_cast<std::size_t>(suf), Op::Keep);
  return ops;
}

void put_line(std::string& out, char tag, std::string_view line) {
  out += tag;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

bool in_git_dir(const std::string& p) {
  return p == ".git" || p.rfind(".git/", 0) == 0 || p.find("/.git/") != std::string::npos ||
         (p.size() > 5 && p.compare(p.size() - 5, 5, "/.git") == 0);
}

bool binary(std::string_view s) { return s.substr(0, 8000).find('\0') != std::string_view::npos; }

const char* git_mode(mode_t m) {
  if (S_ISLNK(m)) return "120000";
  if (S_ISREG(m)) return (m & 0111) ? "100755" : "100644";
  return nullptr;
}

base::Result<std::string> content(int root, const std::string& rel, mode_t mode, const std::string& shown) {
  if (S_ISLNK(mode)) {
    RF_TRY_ASSIGN(p, open_parent_beneath(root, rel));
    return read_link_at(p.fd.get(), p.name, shown);
  }
  RF_TRY_ASSIGN(fd, open_beneath(root, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
  return base::read_all(fd.get());
}

struct Writer {
  Diff out;

  void section(const std::string& path, const char* old_mode, const char* new_mode, const std::string& a,
               const std::string& b) {
    // A change git cannot see (a mode change other than the x bit) has no section.
    if (old_mode && new_mode && std::string(old_mode) == new_mode && a == b) return;
    const std::string qa = git_quote("a/" + path), qb = git_quote("b/" + path);
    std::string& t = out.text;
    t += "diff --git " + qa + " " + qb + "\n";
    if (!old_mode)
      t += std::string("new file mode ") + new_mode + "\n";
    else if (!new_mode)
      t += std::string("deleted file mode ") + old_mode + "\n";
    else if (std::string(old_mode) != new_mode)
      t += std::string("old mode ") + old_mode + "\nnew mode " + new_mode + "\n";
    FileStat fs;
    fs.path = path;
    if (a == b && old_mode && new_mode) {
      out.files.push_back(fs);
      return;
    }
    const std::string from = old_mode ? qa : "/dev/null", to = new_mode ? qb : "/dev/null";
    if (binary(a) || binary(b)) {
      fs.binary = true;
      t += "Binary files " + from + " and " + to + " differ\n";
    } else if (!a.empty() || !b.empty()) {
      t += "--- " + from + "\n+++ " + to + "\n";
      t += diff_hunks(a, b, fs.added, fs.removed);
    }
    out.files.push_back(fs);
  }
};

}  // namespace

std::string diff_hunks(std::string_view a, std::string_view b, std::size_t& added, std::size_t& removed) {
  const auto la = lines_of(a), lb = lines_of(b);
  const auto ops = edit_script(la, lb);
  std::string out;
  std::size_t i = 0;
  while (i < ops.size()) {
    while (i < ops.size() && ops[i] == Op::Keep) ++i;
    if (i == ops.size()) break;
    // A hunk: from kContext before this change to kContext after the last change that is at
    // most 2 * kContext unchanged lines from the next.
    const std::size_t start = i >= kContext ? i - kContext : 0;
    std::size_t end = i;
    for (std::size_t j = i; j < ops.size(); ++j) {
      if (ops[j] != Op::Keep)
        end = j + 1;
      else if (j - end + 1 > 2 * kContext)
        break;
    }
    const std::size_t stop = std::min(ops.size(), end + kContext);
    std::size_t ai = 0, bi = 0;
    for (std::size_t j = 0; j < start; ++j) {
      if (ops[j] != Op::Add) ++ai;
      if (ops[j] != Op::Del) ++bi;
    }
    std::size_t ac = 0, bc = 0;
    std::string body;
    std::size_t x = ai, y = bi;
    for (std::size_t j = start; j < stop; ++j) {
      if (ops[j] == Op::Keep) {
        put_line(body, ' ', la[x++]);
        ++y, ++ac, ++bc;
      } else if (ops[j] == Op::Del) {
        put_line(body, '-', la[x++]);
        ++ac, ++removed;
      } else {
        put_line(body, '+', lb[y++]);
        ++bc, ++added;
      }
    }
    out += "@@ -" + std::to_string(ac ? ai + 1 : ai) + "," + std::to_string(ac) + " +" +
           std::to_string(bc ? bi + 1 : bi) + "," + std::to_string(bc) + " @@\n" + body;
    i = stop;
  }
  return out;
}

std::string git_quote(const std::string& p) {
  bool plain = true;
  for (unsigned char c : p)
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') plain = false;
  if (plain) return p;
  std::string q = "\"";
  for (unsigned char c : p) {
    switch (c) {
      case '"': q += "\\\""; break;
      case '\\': q += "\\\\"; break;
      case '\t': q += "\\t"; break;
      case '\n': q += "\\n"; break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          q += buf;
        } else {
          q += static_cast<char>(c);
        }
    }
  }
  return q + "\"";
}

base::Result<Diff> unified_diff(const ChangeSet& cs, const std::vector<Change>& changes) {
  RF_TRY_ASSIGN(trees, open_trees(cs, O_PATH));
  Writer w;
  for (const auto& c : changes) {
    // git apply refuses every path with a .git component: those are listed by scan, not diffed.
    if (in_git_dir(c.path)) continue;
    const char* om = c.kind == ChangeKind::Added ? nullptr : git_mode(c.old_mode);
    const char* nm = c.kind == ChangeKind::Deleted ? nullptr : git_mode(c.new_mode);
    if (!om && !nm) continue;
    std::string a, b;
    if (om) {
      RF_TRY_ASSIGN(t, content(trees.project.get(), c.path, c.old_mode, cs.meta.project + "/" + c.path));
      a = std::move(t);
    }
    if (nm) {
      RF_TRY_ASSIGN(t, content(trees.upper.get(), c.path, c.new_mode, cs.paths.upper + "/" + c.path));
      b = std::move(t);
    }
    const bool same_kind = om && nm && (c.old_mode & S_IFMT) == (c.new_mode & S_IFMT);
    if (om && nm && !same_kind) {
      // git shows a type change as a deletion and an addition.
      w.section(c.path, om, nullptr, a, "");
      w.section(c.path, nullptr, nm, "", b);
    } else {
      w.section(c.path, om, nm, a, b);
    }
  }
  return w.out;
}

}  // namespace rf::review
