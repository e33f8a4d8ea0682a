// SPDX-License-Identifier: LGPL-2.1-or-later
// The profile file: TOML read with toml++ (header-only, no exceptions) into a plain Profile;
// every key and value is checked, and a problem is reported at its line and column.
#define TOML_EXCEPTIONS 0
#define TOML_HEADER_ONLY 1
#define TOML_ENABLE_FORMATTERS 0
// toml++ 3.3's internal assertions fire on some malformed inputs (a line break inside a table
// header, found by fuzz_profile) and would abort on a user's bad file; as in a release build of
// the library they are off, and the parser reports its own error for such input.
#define TOML_ASSERT(expr) static_cast<void>(0)
// Its "unreachable" points can be reached by some non-ASCII input (fuzz_profile again): a defined
// abort instead of undefined behaviour. The text check in parse_profile keeps most such input away.
#include <toml++/impl/preprocessor.h>
#include <cstdlib>
#undef TOML_UNREACHABLE
#define TOML_UNREACHABLE std::abort()
#include <fcntl.h>
#include <sys/stat.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <toml++/toml.h>

#include "ringfence/base/paths.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/sys.hpp"
#include "ringfence/cli/profile_file.hpp"
#include "ringfence/net/hosts.hpp"

namespace rf::cli {

namespace {

constexpr off_t kMaxProfileSize = 1 << 20;
constexpr std::string_view kTopKeys =
    "preset, agent, agent_state, project, require, level, toggles, filesystem, env, network, limits";

// Collects problems; the one reported is the first in the file (tables iterate by key order).
class Checker {
public:
  explicit Checker(std::string_view origin) : origin_(origin) {}

  void fail(const toml::source_region& where, std::string message) {
    auto pos = std::make_pair(where.begin.line, where.begin.column);
    if (error_ && error_->first <= pos) return;
    error_ = std::make_pair(pos, std::move(message));
  }
  [[nodiscard]] std::optional<base::Error> error() const {
    if (!error_) return std::nullopt;
    auto [pos, message] = *error_;
    return base::Error(
        0, origin_ + ":" + std::to_string(pos.first) + ":" + std::to_string(pos.second) + ": " + message);
  }

private:
  std::string origin_;
  std::optional<std::pair<std::pair<toml::source_index, toml::source_index>, std::string>> error_;
};

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

// "a string" for wrong types; the value itself for a string that is wrong.
std::string shown(const toml::node& n) {
  if (const auto* s = n.as_string()) return "\"" + s->get() + "\"";
  return type_name(n);
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

const toml::table* table_of(Checker& c, const toml::node& n, std::string_view what) {
  if (const auto* t = n.as_table()) return t;
  c.fail(n.source(), "[" + std::string(what) + "] must be a table, not " + type_name(n));
  return nullptr;
}

std::optional<std::string> string_of(Checker& c, const toml::node& n, std::string_view what) {
  if (const auto* s = n.as_string()) return s->get();
  c.fail(n.source(), quoted(what) + " must be a string, not " + type_name(n));
  return std::nullopt;
}

// "on"/"off" or true/false.
std::optional<bool> switch_of(Checker& c, const toml::node& n, std::string_view what) {
  if (const auto* b = n.as_boolean()) return b->get();
  if (const auto* s = n.as_string()) {
    if (s->get() == "on") return true;
    if (s->get() == "off") return false;
  }
  c.fail(n.source(), quoted(what) + " must be \"on\" or \"off\" (or true/false), not " + shown(n));
  return std::nullopt;
}

// An array of strings; each element is handed to `each` with its node.
template <typename Each>
void strings_of(Checker& c, const toml::node& n, std::string_view what, Each each) {
  const auto* arr = n.as_array();
  if (arr == nullptr) {
    c.fail(n.source(), quoted(what) + " must be an array of strings, not " + type_name(n));
    return;
  }
  for (const toml::node& el : *arr) {
    if (const auto* s = el.as_string()) {
      each(s->get(), el);
    } else {
      c.fail(el.source(), quoted(what) + " entries must be strings, not " + type_name(el));
    }
  }
}

void unknown_key(Checker& c, const toml::key& k, std::string_view table, std::string_view valid) {
  std::string msg = "unknown key " + quoted(k.str());
  if (!table.empty()) msg += " in [" + std::string(table) + "]";
  msg += " (valid: " + std::string(valid) + ")";
  bool top = k.str() == "preset" || k.str() == "agent" || k.str() == "agent_state" || k.str() == "project" ||
             k.str() == "require" || k.str() == "level";
  if (!table.empty() && top) msg += "; top-level keys go before the first [table]";
  c.fail(k.source(), std::move(msg));
}

bool home_or_absolute(std::string_view p) { return p.starts_with("/") || p.starts_with("~/"); }

bool has_dot_components(std::string_view p) {
  for (const auto& part : base::split(p, '/')) {
    if (part == "." || part == "..") return true;
  }
  return false;
}

// The sections. Each checks its own keys; a key it does not know is an error.

void read_toggles(Checker& c, const toml::table& t, presets::Toggles& out) {
  static constexpr std::string_view kValid =
      "fs_jail, network, edits, shell, web_search, new_session, timeout, keep_home";
  for (const auto& [k, v] : t) {
    std::string what = "toggles." + std::string(k.str());
    std::optional<bool>* field = nullptr;
    if (k == "fs_jail") field = &out.fs_jail;
    if (k == "network") field = &out.network;
    if (k == "edits") field = &out.edits;
    if (k == "shell") field = &out.shell;
    if (k == "web_search") field = &out.web_search;
    if (k == "new_session") field = &out.new_session;
    if (k == "keep_home") field = &out.keep_home;
    if (k == "edits" && v.as_string() && v.as_string()->get() == "review") {  // a review run
      out.edits = true;
      out.review = true;
    } else if (field != nullptr) {
      *field = switch_of(c, v, what);
    } else if (k == "timeout") {
      // Seconds as a whole number, or a duration string ("90s", "5m", "2h").
      const auto* i = v.as_integer();
      const auto* str = v.as_string();
      if (i != nullptr && i->get() > 0) {
        out.timeout = static_cast<std::uint64_t>(i->get());
      } else if (str != nullptr) {
        auto d = presets::parse_duration(str->get());
        if (d)
          out.timeout = static_cast<std::uint64_t>(*d + 0.999);
        else
          c.fail(v.source(), quoted(what) + ": " + d.error().message());
      } else {
        c.fail(v.source(), quoted(what) +
                               " must be a positive whole number of seconds or a duration (\"5m\"), not " +
                               (i != nullptr ? std::to_string(i->get()) : type_name(v)));
      }
    } else {
      unknown_key(c, k, "toggles", kValid);
    }
  }
}

// A limit's text as set_limit takes it: strings as written, numbers in decimal.
std::optional<std::string> limit_text(const toml::node& n) {
  if (const auto* s = n.as_string()) return s->get();
  if (const auto* i = n.as_integer()) return std::to_string(i->get());
  if (const auto* f = n.as_floating_point()) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f->get());
    if (ec == std::errc()) return std::string(buf, end);
  }
  return std::nullopt;
}

void read_limits(Checker& c, const toml::table& t, presets::Limits& out) {
  for (const auto& [k, v] : t) {
    if (!presets::is_limit_name(k.str())) {
      unknown_key(c, k, "limits", presets::limit_names());
      continue;
    }
    auto text = limit_text(v);
    if (!text) {
      c.fail(v.source(), quoted("limits." + std::string(k.str())) +
                             " must be a number or a string such as \"2G\", not " + type_name(v));
      continue;
    }
    if (auto r = presets::set_limit(out, k.str(), *text); !r) c.fail(v.source(), r.error().message());
  }
}

void read_filesystem(Checker& c, const toml::table& t, Profile& out) {
  for (const auto& [k, v] : t) {
    std::string what = "filesystem." + std::string(k.str());
    if (k == "bind" || k == "ro_bind") {
      auto& list = k == "bind" ? out.bind : out.ro_bind;
      strings_of(c, v, what, [&](const std::string& s, const toml::node& el) {
        auto b = parse_bind_spec(s);
        if (b) {
          list.push_back(*b);
        } else {
          c.fail(el.source(), quoted(what) + " entry " + quoted(s) + ": " + b.error().message());
        }
      });
    } else if (k == "mask" || k == "unmask") {
      auto& list = k == "mask" ? out.mask : out.unmask;
      strings_of(c, v, what, [&](const std::string& s, const toml::node& el) {
        auto ok = presets::check_mask_pattern(s);
        if (ok) {
          list.push_back(s);
        } else {
          c.fail(el.source(), quoted(what) + ": " + ok.error().message());
        }
      });
    } else if (k == "toolchains") {
      const auto* s = v.as_string();
      if (s && (s->get() == "auto" || s->get() == "off"))
        out.toolchains = s->get() == "auto";
      else
        c.fail(v.source(), quoted(what) + " must be \"auto\" or \"off\", not " + shown(v));
    } else {
      unknown_key(c, k, "filesystem", "bind, ro_bind, mask, unmask, toolchains");
    }
  }
}

// An environment name from the file: valid, and not HOME (always the sandbox's home).
bool env_name_ok(Checker& c, std::string_view name, const toml::source_region& where, std::string_view what) {
  if (!presets::valid_env_name(name)) {
    c.fail(where, quoted(what) + ": " + quoted(name) + " is not a variable name (letters, digits, _)");
    return false;
  }
  if (name == "HOME") {
    c.fail(where, quoted(what) + ": HOME is always the sandbox's home directory");
    return false;
  }
  return true;
}

void read_env(Checker& c, const toml::table& t, Profile& out) {
  for (const auto& [k, v] : t) {
    std::string what = "env." + std::string(k.str());
    if (k == "pass") {
      strings_of(c, v, what, [&](const std::string& s, const toml::node& el) {
        if (env_name_ok(c, s, el.source(), what)) out.env_pass.push_back(s);
      });
    } else if (k == "set") {
      const toml::table* set = table_of(c, v, what);
      if (set == nullptr) continue;
      for (const auto& [name, value] : *set) {
        if (!env_name_ok(c, name.str(), name.source(), what)) continue;
        // The value is not shown: it may be a secret.
        if (const auto* s = value.as_string()) {
          out.env_set.emplace_back(std::string(name.str()), s->get());
        } else {
          c.fail(value.source(),
                 quoted(what + "." + std::string(name.str())) + " must be a string, not " + type_name(value));
        }
      }
    } else {
      unknown_key(c, k, "env", "pass, set");
    }
  }
}

void read_network(Checker& c, const toml::table& t, Profile& out) {
  for (const auto& [k, v] : t) {
    std::string what = "network." + std::string(k.str());
    if (k == "allow" || k == "deny") {
      auto& list = k == "allow" ? out.net_allow : out.net_deny;
      strings_of(c, v, what, [&](const std::string& s, const toml::node& el) {
        if (s.empty()) {
          c.fail(el.source(), quoted(what) + ": empty rule");
        } else {
          list.push_back(s);
        }
      });
    } else if (k == "allow_listen") {
      out.allow_listen = switch_of(c, v, what);
    } else if (k == "allow_hosts") {
      strings_of(c, v, what, [&](const std::string& s, const toml::node& el) {
        if (auto rule = net::parse_host_rule(s); rule) {
          out.allow_hosts.push_back(s);
        } else {
          c.fail(el.source(), quoted(what) + ": " + rule.error().message());
        }
      });
    } else if (k == "allow_host_sets") {
      strings_of(c, v, what, [&](const std::string& s, const toml::node& el) {
        if (auto set = presets::host_set_by_name(s); set) {
          out.allow_host_sets.push_back(s);
        } else {
          c.fail(el.source(), quoted(what) + ": " + set.error().message());
        }
      });
    } else {
      unknown_key(c, k, "network", "allow, deny, allow_listen, allow_hosts, allow_host_sets");
    }
  }
}

void read_scalar(Checker& c, std::string_view key, const toml::node& v, Profile& out) {
  auto s = string_of(c, v, key);
  if (!s) return;
  if (key == "preset") {
    auto p = presets::preset_by_name(*s);
    if (p) {
      out.preset = p->name;
    } else {
      c.fail(v.source(), p.error().message());
    }
  } else if (key == "agent") {
    auto a = presets::agent_by_name(*s);
    if (*s == "auto" || a) {
      out.agent = *s;
    } else {
      c.fail(v.source(), a.error().message());
    }
  } else if (key == "require" || key == "level") {
    auto l = presets::level_by_name(*s);
    if (l) {
      (key == "require" ? out.require : out.level) = *l;
    } else {
      c.fail(v.source(), l.error().message());
    }
  } else if (key == "agent_state") {
    const bool mode = *s == "default" || *s == "project" || *s == "throwaway" || *s == "host";
    if (mode || (home_or_absolute(*s) && !has_dot_components(*s))) {
      out.agent_state = *s;
    } else {
      c.fail(
          v.source(),
          "\"agent_state\" must be default, project, throwaway, host, or a directory (absolute or ~/, no . "
          "or .. in it), not " +
              quoted(*s));
    }
  } else if (!home_or_absolute(*s) || has_dot_components(*s)) {
    c.fail(v.source(), "\"project\" must be an absolute path or start with ~/ (no . or .. in it)");
  } else {
    out.project = *s;
  }
}

void read_top(Checker& c, const toml::key& k, const toml::node& v, Profile& out) {
  std::string_view key = k.str();
  if (key == "preset" || key == "agent" || key == "agent_state" || key == "project" || key == "require" ||
      key == "level") {
    return read_scalar(c, key, v, out);
  }
  if (key != "toggles" && key != "limits" && key != "filesystem" && key != "env" && key != "network") {
    return unknown_key(c, k, "", kTopKeys);
  }
  const toml::table* t = table_of(c, v, key);
  if (t == nullptr) return;
  if (key == "toggles") read_toggles(c, *t, out.toggles);
  if (key == "limits") read_limits(c, *t, out.toggles.limits);
  if (key == "filesystem") read_filesystem(c, *t, out);
  if (key == "env") read_env(c, *t, out);
  if (key == "network") read_network(c, *t, out);
}

}  // namespace

base::Result<BindSpec> parse_bind_spec(std::string_view text) {
  size_t colon = text.find(':');
  BindSpec b{std::string(text.substr(0, colon)),
             std::string(colon == std::string_view::npos ? text : text.substr(colon + 1))};
  for (const std::string* p : {&b.source, &b.dest}) {
    if (p->empty()) return base::Error(0, "expected SRC[:DST] with non-empty paths");
    if (!home_or_absolute(*p)) return base::Error(0, quoted(*p) + " must be absolute or start with ~/");
    if (has_dot_components(*p)) return base::Error(0, quoted(*p) + ": \".\" and \"..\" are not allowed");
  }
  return b;
}

// Checks toml++ 3.3 must not see: TOML allows no control character but tab (CR only before LF),
// and non-ASCII text belongs in strings and comments only. toml++ asserts on some control
// characters in table headers and reaches an "unreachable" point on some non-ASCII characters
// outside strings (both found by fuzz_profile), so they are refused here with line:col.
std::optional<base::Error> not_for_toml(std::string_view text, std::string_view origin) {
  enum class In { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral } in = In::Code;
  int line = 1, col = 1;
  bool escaped = false;  // the previous character of a basic string was a backslash
  auto fail = [&](const std::string& what) {
    return base::Error(
        0, std::string(origin) + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    bool control =
        c < 0x20 ? !(c == '\t' || c == '\n' || (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n'))
                 : c == 0x7f;
    if (control) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", c);
      return fail(std::string("control character ") + hex + " is not allowed in TOML");
    }
    std::string_view rest = text.substr(i);
    switch (in) {
      case In::Code:
        if (c >= 0x80) return fail("non-ASCII text is only allowed in strings and comments");
        if (c == '#')
          in = In::Comment;
        else if (rest.substr(0, 3) == "\"\"\"") {
          in = In::MultiBasic;
          i += 2;
          col += 2;
        } else if (rest.substr(0, 3) == "'''") {
          in = In::MultiLiteral;
          i += 2;
          col += 2;
        } else if (c == '"')
          in = In::Basic;
        else if (c == '\'')
          in = In::Literal;
        break;
      case In::Comment:
        if (c == '\n') in = In::Code;
        break;
      case In::Basic:
        if (escaped)
          escaped = false;
        else if (c == '\\')
          escaped = true;
        else if (c == '"' || c == '\n')
          in = In::Code;
        break;
      case In::Literal:
        if (c == '\'' || c == '\n') in = In::Code;
        break;
      case In::MultiBasic:
        if (escaped)
          escaped = false;
        else if (c == '\\')
          escaped = true;
        else if (rest.substr(0, 3) == "\"\"\"") {
          in = In::Code;
          i += 2;
          col += 2;
        }
        break;
      case In::MultiLiteral:
        if (rest.substr(0, 3) == "'''") {
          in = In::Code;
          i += 2;
          col += 2;
        }
        break;
    }
    if (i < text.size() && text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::nullopt;
}

base::Result<Profile> parse_profile(std::string_view text, std::string_view origin) {
  Profile out;
  out.origin = std::string(origin);
  if (auto e = not_for_toml(text, origin)) return *e;
  toml::parse_result parsed = toml::parse(text, origin);
  if (!parsed) {
    const toml::parse_error& e = parsed.error();
    return base::Error(0, out.origin + ":" + std::to_string(e.source().begin.line) + ":" +
                              std::to_string(e.source().begin.column) + ": " + std::string(e.description()));
  }
  Checker c(origin);
  for (const auto& [k, v] : parsed.table()) read_top(c, k, v, out);
  // The allowlist is a way to have the network on: with the network off it would mean nothing.
  const bool allowlist = !out.allow_hosts.empty() || !out.allow_host_sets.empty();
  if (allowlist && out.toggles.network == std::optional<bool>(false)) {
    const char* key = !out.allow_hosts.empty() ? "allow_hosts" : "allow_host_sets";
    const toml::node* at = parsed.table().at_path(std::string("network.") + key).node();
    c.fail(at != nullptr ? at->source() : parsed.table().source(),
           quoted(std::string("network.") + key) +
               " needs the network, and \"toggles.network\" is off (drop one of them)");
  }
  if (auto e = c.error()) return *e;
  return out;
}

base::Result<Profile> load_profile(const std::string& path) {
  // O_NONBLOCK: a FIFO must not hang the open; it is refused below.
  auto fd = base::open_fd(path, O_RDONLY | O_NONBLOCK);
  if (!fd) return fd.error().reworded("profile " + path + ": can't open");
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return base::errno_error("profile " + path + ": fstat");
  if (!S_ISREG(st.st_mode)) return base::Error(0, "profile " + path + ": not a regular file");
  if (st.st_size > kMaxProfileSize) return base::Error(0, "profile " + path + ": larger than 1 MiB");
  auto text = base::read_all(fd->get());
  if (!text) return std::move(text.error()).context("profile " + path);
  return parse_profile(*text, path);
}

std::string expand_home(std::string_view path, std::string_view home) {
  if (!path.starts_with("~/")) return std::string(path);
  return base::join(home, path.substr(2));
}

std::optional<std::string> default_profile_path(const char* xdg_config_home, const char* home) {
  // The XDG base directory rules: a relative value is ignored.
  if (xdg_config_home != nullptr && xdg_config_home[0] == '/') {
    return base::join(xdg_config_home, "ringfence/profile.toml");
  }
  if (home != nullptr && home[0] == '/') return base::join(home, ".config/ringfence/profile.toml");
  return std::nullopt;
}

std::optional<std::string> default_profile_path() {
  return default_profile_path(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME"));
}

}  // namespace rf::cli
