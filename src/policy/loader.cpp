// SPDX-License-Identifier: LGPL-2.1-or-later
// Builds a Policy from a profile: follows @include (next to a file first, then the catalog),
// rejects duplicates and cycles, then lets deny/always.policy refine the result.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "loader.hpp"
#include "lowering.hpp"
#include "parser.hpp"
#include "ringfence/base/sys.hpp"

namespace rf::policy::detail {

namespace {

namespace fs = std::filesystem;

struct Unit {
  std::string display;  // as messages name it
  std::string id;       // identity for cycles and include-once
  std::string text;
  bool on_disk = false;
  std::string dir;  // on disk: where its relative includes are looked up first
};

// A rule whose else-action may still be the profile's @default (set after all files are read).
struct Pending {
  Rule rule;
  bool else_default = false;
};

bool allows(const Action& a) { return a.kind == ActionKind::Allow || a.kind == ActionKind::Log; }

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

Unit disk_unit(const fs::path& path, std::string display, std::string text) {
  fs::path parent = path.parent_path();
  return Unit{std::move(display), "file:" + path.lexically_normal().string(), std::move(text), true,
              parent.empty() ? "." : parent.string()};
}

Unit catalog_unit(const CatalogEntry& e) {
  std::string rel(e.path);
  return Unit{std::string(kCatalogPrefix) + rel, "catalog:" + rel, std::string(e.text), false, {}};
}

class Loader {
public:
  explicit Loader(const Sources& s) : src_(s) {}
  base::Result<Policy> run(const Unit& top, std::string name);

private:
  base::Status walk(const Unit& u, int depth);
  base::Status include(const Unit& from, const Line& l, int depth);
  base::Result<Unit> resolve(const Unit& from, const std::string& path, int line);
  base::Status add_rule(const Unit& u, const Line& l);
  base::Result<std::vector<Pending>> always_rules();
  base::Status apply_always(std::vector<Pending> always);

  const Sources& src_;
  std::vector<const Unit*> stack_;
  std::set<std::string> done_;
  int files_ = 0;
  std::size_t bytes_ = 0;
  std::map<std::string, Pending, std::less<>> rules_;
  std::optional<Action> default_;
  SourceLoc default_loc_;
};

base::Result<Policy> Loader::run(const Unit& top, std::string name) {
  RF_TRY(walk(top, 0));
  if (!default_) return error_at(top.display, 0, "profile has no @default");
  for (auto& [_, p] : rules_)
    if (p.else_default) p.rule.action = *default_;
  RF_TRY_ASSIGN(always, always_rules());
  RF_TRY(apply_always(std::move(always)));
  Policy policy;
  policy.name = std::move(name);
  policy.origin = top.display;
  policy.default_action = *default_;
  policy.default_loc = default_loc_;
  for (auto& [_, p] : rules_) {
    RF_TRY(check_lowering(p.rule, *default_));
    policy.rules.push_back(std::move(p.rule));
  }
  return policy;
}

base::Status Loader::walk(const Unit& u, int depth) {
  if (++files_ > kMaxFiles)
    return error_at(u.display, 0, "too many policy files (limit " + std::to_string(kMaxFiles) + ")");
  if ((bytes_ += u.text.size()) > kMaxTotalBytes)
    return error_at(u.display, 0,
                    "policy files too large in total (limit " + std::to_string(kMaxTotalBytes) + " bytes)");
  RF_TRY_ASSIGN(lines, parse_policy(u.text, u.display));
  stack_.push_back(&u);
  done_.insert(u.id);
  for (const auto& l : lines) {
    switch (l.kind) {
      case Line::Kind::Include: RF_TRY(include(u, l, depth)); break;
      case Line::Kind::Rule: RF_TRY(add_rule(u, l)); break;
      case Line::Kind::Default:
        if (depth > 0)
          return error_at(u.display, l.line, "@default in an included file (only the profile sets it)");
        if (default_)
          return error_at(u.display, l.line, "duplicate @default (first at " + default_loc_.str() + ")");
        default_ = l.action;
        default_loc_ = SourceLoc{u.display, l.line};
        break;
    }
  }
  stack_.pop_back();
  return {};
}

base::Status Loader::include(const Unit& from, const Line& l, int depth) {
  if (depth + 1 > kMaxIncludeDepth)
    return error_at(from.display, l.line,
                    "@include nested too deeply (limit " + std::to_string(kMaxIncludeDepth) + ")");
  RF_TRY_ASSIGN(target, resolve(from, l.include, l.line));
  if (target.id == "catalog:" + std::string(kAlwaysPath))
    return error_at(from.display, l.line,
                    target.display + " applies to every profile by itself; do not @include it");
  for (std::size_t i = 0; i < stack_.size(); ++i) {
    if (stack_[i]->id != target.id) continue;
    std::string chain;
    for (std::size_t j = i; j < stack_.size(); ++j) chain += stack_[j]->display + " -> ";
    return error_at(from.display, l.line, "@include cycle: " + chain + target.display);
  }
  if (done_.count(target.id) != 0) return {};  // already included elsewhere: once is enough
  return walk(target, depth + 1);
}

base::Result<Unit> Loader::resolve(const Unit& from, const std::string& path, int line) {
  std::string rel = ends_with(path, kPolicySuffix) ? path : path + std::string(kPolicySuffix);
  if (from.on_disk && src_.read_file) {
    fs::path p = (fs::path(rel).is_absolute() ? fs::path(rel) : fs::path(from.dir) / rel).lexically_normal();
    auto text = src_.read_file(p.string());
    if (text) return disk_unit(p, p.string(), std::move(*text));
    if (text.error().code() != ENOENT && text.error().code() != ENOTDIR)
      return error_at(from.display, line, "@include " + path + ": " + text.error().describe());
  }
  fs::path c = fs::path(rel).lexically_normal();
  const CatalogEntry* e = nullptr;
  if (!c.is_absolute() && !c.empty() && *c.begin() != "..")
    e = catalog_find(src_.catalog, c.generic_string());
  if (e == nullptr)
    return error_at(from.display, line,
                    "@include \"" + path + "\": not found" + (from.on_disk ? " next to the file or" : "") +
                        " in the catalog");
  return catalog_unit(*e);
}

base::Status Loader::add_rule(const Unit& u, const Line& l) {
  SourceLoc loc{u.display, l.line};
  const ParsedRule& pr = l.rule;
  if (auto it = rules_.find(pr.syscall); it != rules_.end())
    return error_at(u.display, l.line,
                    "duplicate rule for " + pr.syscall + " (first at " + it->second.rule.loc.str() + ")");
  Pending p;
  p.rule.syscall = pr.syscall;
  p.rule.expr = pr.expr;
  p.rule.expr_text = pr.expr_text;
  p.rule.loc = loc;
  if (pr.action)
    p.rule.action = *pr.action;
  else
    p.else_default = true;
  rules_.emplace(pr.syscall, std::move(p));
  return {};
}

base::Result<std::vector<Pending>> Loader::always_rules() {
  const CatalogEntry* e = catalog_find(src_.catalog, kAlwaysPath);
  if (e == nullptr) return std::vector<Pending>{};
  Unit u = catalog_unit(*e);
  RF_TRY_ASSIGN(lines, parse_policy(u.text, u.display));
  std::vector<Pending> out;
  std::map<std::string, SourceLoc, std::less<>> seen;
  for (const auto& l : lines) {
    if (l.kind != Line::Kind::Rule)
      return error_at(u.display, l.line,
                      std::string(l.kind == Line::Kind::Include ? "@include" : "@default") +
                          " is not allowed in always.policy");
    const ParsedRule& pr = l.rule;
    if (pr.comment.empty())
      return error_at(u.display, l.line,
                      "missing reason comment for " + pr.syscall + " (end the line with # and why)");
    if (auto it = seen.find(pr.syscall); it != seen.end())
      return error_at(u.display, l.line,
                      "duplicate rule for " + pr.syscall + " (first at " + it->second.str() + ")");
    if (pr.expr.empty() && pr.action && pr.action->kind == ActionKind::Allow)
      return error_at(u.display, l.line,
                      "always.policy may only deny or condition " + pr.syscall + ", not allow it");
    Pending p;
    p.rule = Rule{pr.syscall,          pr.expr_text, pr.expr, pr.action.value_or(Action{}),
                  {u.display, l.line}, pr.comment,   true,    {}};
    p.else_default = !pr.action.has_value();
    seen.emplace(pr.syscall, p.rule.loc);
    out.push_back(std::move(p));
  }
  return out;
}

// always.policy only ever narrows: an unconditional always rule denies outright (naming the
// syscall in a profile is then an error); a conditional one replaces a profile's plain allow,
// or the default when that allows, and leaves a denial alone.
base::Status Loader::apply_always(std::vector<Pending> always) {
  const Action dflt = *default_;
  for (auto& a : always) {
    Rule& ar = a.rule;
    if (a.else_default) ar.action = dflt;
    auto it = rules_.find(ar.syscall);
    bool cond = !ar.expr.empty();
    if (it == rules_.end()) {
      std::string key = ar.syscall;
      if (!cond || allows(dflt)) rules_.emplace(std::move(key), Pending{std::move(ar), false});
      continue;
    }
    const Rule& pr = it->second.rule;
    if (!cond)
      return error_at(pr.loc.file, pr.loc.line,
                      ar.syscall +
                          (ar.action.kind == ActionKind::Log ? " is always logged by " : " is denied by ") +
                          ar.loc.str() + " (" + ar.reason + "); remove this rule");
    if (!pr.expr.empty())
      return error_at(pr.loc.file, pr.loc.line,
                      ar.syscall + " already has a condition in " + ar.loc.str() + " (" + ar.reason +
                          "); a profile cannot add its own");
    if (allows(pr.action)) {
      ar.refines = pr.loc;
      it->second.rule = std::move(ar);
    }
  }
  return {};
}

// A regular file of at most kMaxFileBytes.
base::Result<std::string> read_policy_file(const std::string& path) {
  RF_TRY_ASSIGN(fd, base::open_fd(path, O_RDONLY | O_NOCTTY | O_NONBLOCK));
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return base::errno_error("fstat " + path);
  if (!S_ISREG(st.st_mode)) return base::Error(EINVAL, path + " is not a regular file");
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::errno_error("read " + path);
    if (n == 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > kMaxFileBytes)
      return base::Error(EFBIG, path + ": larger than " + std::to_string(kMaxFileBytes) + " bytes");
  }
}

std::string stem_of(std::string_view s) {
  std::string stem = fs::path(std::string(s)).stem().string();
  return stem.empty() ? std::string(s) : stem;
}

}  // namespace

Sources default_sources() { return Sources{embedded_catalog(), read_policy_file}; }

base::Result<Policy> load_from(const Sources& sources, std::string_view name_or_path) {
  if (name_or_path.find('/') != std::string_view::npos || ends_with(name_or_path, kPolicySuffix)) {
    std::string path(name_or_path);
    if (!sources.read_file) return base::Error(ENOENT, path + ": no file reader");
    RF_TRY_ASSIGN(text, sources.read_file(path));
    return Loader(sources).run(disk_unit(fs::path(path), path, std::move(text)), stem_of(path));
  }
  std::string rel = std::string(kProfilesDir) + std::string(name_or_path) + std::string(kPolicySuffix);
  const CatalogEntry* e = name_or_path.empty() ? nullptr : catalog_find(sources.catalog, rel);
  if (e == nullptr) {
    std::string known;
    for (const auto& p : profile_names(sources.catalog)) known += (known.empty() ? "" : ", ") + p;
    return base::Error(0, "unknown profile \"" + std::string(name_or_path) + "\" (" +
                              (known.empty() ? "the catalog has no profiles" : "profiles: " + known) + ")");
  }
  return Loader(sources).run(catalog_unit(*e), std::string(name_or_path));
}

base::Result<Policy> load_text_from(const Sources& sources, std::string_view text, std::string origin) {
  Unit top{origin, "text:" + origin, std::string(text), false, {}};
  return Loader(sources).run(top, stem_of(origin));
}

}  // namespace rf::policy::detail
