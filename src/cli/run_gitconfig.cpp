// SPDX-License-Identifier: LGPL-2.1-or-later
// The host's git identity in the throwaway HOME. The host's gitconfig is not bound: it names
// programs git runs (credential helpers, core.sshCommand, core.fsmonitor, pagers, editors, diff
// and merge drivers, filters, "!" aliases), files of the host (includes, core.hooksPath,
// core.excludesFile) and sometimes secrets (tokens in url.*.insteadOf and http.extraHeader, smtp
// passwords). A new ~/.gitconfig gets only an allowlist of settings that run nothing and hold no
// secret: the identity, the default branch, line endings, colors and the like.
#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <set>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/sys.hpp"
#include "run_toolchains.hpp"

namespace rf::cli {
namespace {

using base::Error;

// section.key, lowercase, for sections without a subsection.
const std::set<std::string, std::less<>> kAllowed = {
    "user.name",
    "user.email",
    "user.useconfigonly",
    "author.name",
    "author.email",
    "committer.name",
    "committer.email",
    "init.defaultbranch",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "core.quotepath",
    "core.whitespace",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.filemode",
    "core.abbrev",
    "pull.rebase",
    "pull.ff",
    "push.default",
    "push.autosetupremote",
    "push.followtags",
    "fetch.prune",
    "fetch.prunetags",
    "rebase.autostash",
    "rebase.autosquash",
    "rebase.updaterefs",
    "merge.conflictstyle",
    "merge.ff",
    "diff.algorithm",
    "diff.colormoved",
    "diff.renames",
    "diff.mnemonicprefix",
    "status.short",
    "status.branch",
    "status.showuntrackedfiles",
    "log.date",
    "log.decorate",
    "log.abbrevcommit",
    "branch.sort",
    "branch.autosetuprebase",
    "tag.sort",
    "column.ui",
    "commit.verbose",
    "rerere.enabled",
    "safe.directory",
};
// Sections whose every key is a color or a hint: names and booleans, nothing run.
bool free_section(std::string_view s) { return s == "color" || s == "advice"; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

struct Entry {
  std::string section, subsection, key, value;
  bool has_sub = false, implicit = false;
};

// Git's config syntax (config.c): [section], [section "sub"], [section.sub]; key = value with
// quotes, the escapes \n \t \b \\ \", a backslash at the end of a line continuing the value, # and ;
// comments; a key alone is true.
base::Result<std::vector<Entry>> parse(std::string_view t) {
  std::vector<Entry> out;
  std::size_t i = 0;
  int line = 1;
  std::string section, sub;
  bool has_sub = false;
  auto bad = [&line](const std::string& why) {
    return Error(EINVAL, "line " + std::to_string(line) + ": " + why);
  };
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
  };
  if (t.starts_with("\xef\xbb\xbf")) i = 3;  // a UTF-8 byte order mark, as git allows
  while (i < t.size()) {
    char c = t[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#' || c == ';') {
      while (i < t.size() && t[i] != '\n') ++i;
      continue;
    }
    if (c == '[') {
      ++i;
      std::size_t start = i;
      while (i < t.size() && (alnum(t[i]) || t[i] == '.')) ++i;
      std::string name(t.substr(start, i - start));
      if (name.empty()) return bad("a section header without a name");
      sub.clear();
      has_sub = false;
      if (i < t.size() && (t[i] == ' ' || t[i] == '\t')) {
        while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
        if (i >= t.size() || t[i] != '"') return bad("a subsection must be quoted");
        ++i;
        while (i < t.size() && t[i] != '"') {
          if (t[i] == '\n') return bad("a subsection ends at the end of the line");
          if (t[i] == '\\' && i + 1 < t.size() && t[i + 1] != '\n') ++i;
          sub += t[i++];
        }
        if (i >= t.size()) return bad("an unterminated subsection");
        ++i;
        has_sub = true;
        section = lower(name);
      } else {
        auto dot = name.find('.');
        section = lower(name.substr(0, dot));
        if (dot != std::string::npos) {
          sub = lower(name.substr(dot + 1));
          has_sub = true;
        }
      }
      if (i >= t.size() || t[i] != ']') return bad("a section header without its ]");
      ++i;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return bad("a key must start with a letter");
    if (section.empty()) return bad("a key before any section");
    std::size_t start = i;
    while (i < t.size() && alnum(t[i])) ++i;
    Entry e{section, sub, lower(t.substr(start, i - start)), "", has_sub, false};
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r')) ++i;
    if (i >= t.size() || t[i] == '\n' || t[i] == '#' || t[i] == ';') {
      e.implicit = true;
      e.value = "true";
      out.push_back(e);
      continue;
    }
    if (t[i] != '=') return bad("a key must be followed by = or the end of the line");
    ++i;
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
    bool quote = false;
    std::size_t spaces = 0;
    for (;;) {
      if (i >= t.size()) {
        if (quote) return bad("an unterminated quote");
        break;
      }
      char v = t[i];
      if (v == '\n') {
        if (quote) return bad("an unterminated quote");
        break;
      }
      ++i;
      if (!quote && (v == '#' || v == ';')) {
        while (i < t.size() && t[i] != '\n') ++i;
        break;
      }
      if (!quote && (v == ' ' || v == '\t' || v == '\r')) {
        if (!e.value.empty()) ++spaces;
        continue;
      }
      e.value.append(spaces, ' ');
      spaces = 0;
      if (v == '"') {
        quote = !quote;
        continue;
      }
      if (v == '\\') {
        if (i >= t.size()) return bad("a backslash at the end of the file");
        char n = t[i++];
        if (n == '\r' && i < t.size() && t[i] == '\n') n = t[i++];
        if (n == '\n') {
          ++line;
          continue;
        }
        if (n == 'n')
          e.value += '\n';
        else if (n == 't')
          e.value += '\t';
        else if (n == 'b')
          e.value += '\b';
        else if (n == '\\' || n == '"')
          e.value += n;
        else
          return bad("an unknown escape \\" + std::string(1, n));
        continue;
      }
      e.value += v;
    }
    out.push_back(e);
  }
  return out;
}

// The name a report shows: never the subsection, which may be a URL with a token in it.
std::string name_of(const Entry& e) { return e.section + (e.has_sub ? ".*." : ".") + e.key; }

bool clean_value(std::string_view v) {
  return std::none_of(v.begin(), v.end(), [](char c) {
    return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
  });
}

std::string quoted(std::string_view v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\t') {
      out += "\\t";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

void add_name(std::vector<std::string>& list, const std::string& n) {
  if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(n);
}

}  // namespace

base::Result<GitconfigFilter> filter_gitconfig(std::string_view text, const GitconfigInclude& include) {
  RF_TRY_ASSIGN(entries, parse(text));
  GitconfigFilter f;
  std::string header;
  for (const auto& e : entries) {
    // [include] path: the file's settings, filtered alike, where the include stands.
    if (include && !e.has_sub && e.section == "include" && e.key == "path" && !e.implicit &&
        clean_value(e.value)) {
      RF_TRY_ASSIGN(inner, include(e.value));
      if (!inner.text.empty()) {
        f.text += inner.text;
        header.clear();
      }
      for (const auto& n : inner.kept) add_name(f.kept, n);
      for (const auto& n : inner.dropped) add_name(f.dropped, n);
      continue;
    }
    bool keep = false;
    if (!e.has_sub) {
      keep = kAllowed.contains(e.section + "." + e.key) || free_section(e.section);
      // An alias that is a git command line runs git only; "!..." runs a shell.
      if (e.section == "alias")
        keep = !e.implicit && e.value.find_first_not_of(" \t") != std::string::npos &&
               e.value[e.value.find_first_not_of(" \t")] != '!';
    } else {
      keep = e.section == "color";
    }
    if (keep && !clean_value(e.value + e.subsection)) keep = false;
    if (!keep) {
      add_name(f.dropped, name_of(e));
      continue;
    }
    add_name(f.kept, name_of(e));
    std::string h = "[" + e.section + (e.has_sub ? " " + quoted(e.subsection) : "") + "]";
    if (h != header) {
      f.text += h + "\n";
      header = h;
    }
    f.text += "\t" + e.key + " = " + quoted(e.value) + "\n";
  }
  return f;
}

base::Status add_gitconfig(RunPlan& plan, const HostSnapshot& snap) {
  const std::string& home = plan.home_inside;
  const auto xdg = snap.env("XDG_CONFIG_HOME");
  const std::string xdg_file = (xdg && xdg->starts_with('/') ? *xdg : home + "/.config") + "/git/config";
  // One file of the host, its includes followed (relative to its folder, ~/ the home; at most
  // 10 deep, as git). A missing included file is nothing, as in git.
  std::function<base::Result<GitconfigFilter>(const std::string&, int)> read;
  read = [&](const std::string& path, int depth) -> base::Result<GitconfigFilter> {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return GitconfigFilter{};
    if (!S_ISREG(st.st_mode) || st.st_size > (1 << 20))
      return Error(EINVAL, path + " is not a regular file of at most 1 MiB");
    RF_TRY_ASSIGN(data, base::read_file(path));
    auto filtered = filter_gitconfig(data, [&](const std::string& given) -> base::Result<GitconfigFilter> {
      if (depth >= 10) return Error(ELOOP, path + ": includes nested more than 10 deep");
      std::string next = given.starts_with("~/")  ? home + given.substr(1)
                         : given.starts_with('/') ? given
                                                  : base::parent(path) + "/" + given;
      return read(base::normalize(next), depth + 1);
    });
    if (!filtered) return filtered.error().reworded(path + ": " + filtered.error().message());
    return filtered;
  };
  std::string text;
  bool any = false;
  // Git's order: the XDG file, then ~/.gitconfig, whose settings win.
  for (const auto& path : {xdg_file, home + "/.gitconfig"}) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;
    auto f = read(path, 0);
    if (!f) {
      plan.notes.push_back("gitconfig: " + path +
                           " not copied (git cannot read it either): " + f.error().message());
      continue;
    }
    any = true;
    text += f->text;
    for (const auto& n : f->kept) add_name(plan.gitconfig_kept, n);
    for (const auto& n : f->dropped) add_name(plan.gitconfig_dropped, n);
  }
  if (!any) return {};
  plan.home_files.push_back(
      {".gitconfig",
       "# Written by ringfence from the host's git configuration: only settings that run\n"
       "# no program and hold no secret. Changes last until the sandbox exits.\n" +
           text});
  return {};
}

}  // namespace rf::cli
