// SPDX-License-Identifier: LGPL-2.1-or-later
// The JSON reader, and from_json: to_json's output back into a Report (the cache's content).
#include "json.hpp"

#include <cerrno>
#include <cstdlib>

#include "ringfence/probe/probe.hpp"

namespace rf::probe {
namespace json {
namespace {

constexpr int kMaxDepth = 32;

class Parser {
public:
  explicit Parser(std::string_view t) : t_(t) {}

  base::Result<Value> document() {
    Value v;
    if (!value(v, 0)) return error();
    space();
    if (i_ != t_.size()) {
      why_ = "text after the value";
      return error();
    }
    return v;
  }

private:
  base::Error error() const {
    return base::Error(EINVAL, "JSON: " + why_ + " at offset " + std::to_string(i_));
  }

  void space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\t' || t_[i_] == '\r')) ++i_;
  }

  bool literal(std::string_view word) {
    if (t_.substr(i_, word.size()) != word) return fail("unknown literal");
    i_ += word.size();
    return true;
  }

  bool fail(const char* why) {
    if (why_.empty()) why_ = why;
    return false;
  }

  bool value(Value& v, int depth) {
    if (depth > kMaxDepth) return fail("nested too deeply");
    space();
    if (i_ >= t_.size()) return fail("unexpected end");
    char c = t_[i_];
    if (c == '{') return object(v, depth);
    if (c == '[') return array(v, depth);
    if (c == '"') {
      v.type = Value::Type::String;
      return string(v.string);
    }
    if (c == 't' || c == 'f') {
      v.type = Value::Type::Bool;
      v.boolean = c == 't';
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') return literal("null");
    return number(v);
  }

  bool number(Value& v) {
    size_t start = i_;
    while (i_ < t_.size() && std::string_view("+-0123456789.eE").find(t_[i_]) != std::string_view::npos) ++i_;
    if (start == i_) return fail("unexpected character");
    std::string s(t_.substr(start, i_ - start));
    char* end = nullptr;
    v.type = Value::Type::Number;
    v.number = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() || fail("bad number");
  }

  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool hex4(unsigned& cp) {
    if (i_ + 4 > t_.size()) return fail("short \\u escape");
    cp = 0;
    for (int k = 0; k < 4; ++k) {
      char h = t_[i_++];
      cp <<= 4;
      if (h >= '0' && h <= '9')
        cp |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        cp |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        cp |= static_cast<unsigned>(h - 'A' + 10);
      else
        return fail("bad \\u escape");
    }
    return true;
  }

  bool escape(std::string& out) {
    char e = t_[i_++];
    switch (e) {
      case '"':
      case '\\':
      case '/': out += e; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': {
        unsigned cp = 0;
        if (!hex4(cp)) return false;
        if (cp >= 0xD800 && cp < 0xDC00 && t_.substr(i_, 2) == "\\u") {
          i_ += 2;
          unsigned lo = 0;
          if (!hex4(lo)) return false;
          if (lo < 0xDC00 || lo > 0xDFFF) return fail("bad surrogate pair");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        utf8(out, cp);
        return true;
      }
      default: return fail("bad escape");
    }
  }

  bool string(std::string& out) {
    ++i_;  // the opening quote
    while (i_ < t_.size()) {
      char c = t_[i_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
      if (c != '\\') {
        out += c;
      } else if (i_ >= t_.size() || !escape(out)) {
        return fail("bad escape");
      }
    }
    return fail("unterminated string");
  }

  bool array(Value& v, int depth) {
    v.type = Value::Type::Array;
    ++i_;
    space();
    if (i_ < t_.size() && t_[i_] == ']') return ++i_, true;
    for (;;) {
      Value item;
      if (!value(item, depth + 1)) return false;
      v.array.push_back(std::move(item));
      space();
      if (i_ < t_.size() && t_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < t_.size() && t_[i_] == ']') return ++i_, true;
      return fail("expected , or ]");
    }
  }

  bool object(Value& v, int depth) {
    v.type = Value::Type::Object;
    ++i_;
    space();
    if (i_ < t_.size() && t_[i_] == '}') return ++i_, true;
    for (;;) {
      space();
      std::string key;
      if (i_ >= t_.size() || t_[i_] != '"' || !string(key)) return fail("expected a key");
      space();
      if (i_ >= t_.size() || t_[i_++] != ':') return fail("expected :");
      Value item;
      if (!value(item, depth + 1)) return false;
      v.object.emplace_back(std::move(key), std::move(item));
      space();
      if (i_ < t_.size() && t_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < t_.size() && t_[i_] == '}') return ++i_, true;
      return fail("expected , or }");
    }
  }

  std::string_view t_;
  size_t i_ = 0;
  std::string why_;
};

}  // namespace

const Value* Value::get(std::string_view key) const {
  for (const auto& [k, v] : object)
    if (k == key) return &v;
  return nullptr;
}

std::string Value::str(std::string_view key) const {
  const Value* v = get(key);
  return v && v->type == Type::String ? v->string : std::string();
}

base::Result<Value> parse(std::string_view text) { return Parser(text).document(); }

}  // namespace json

namespace {

base::Result<Level> level_from(const std::string& name) {
  for (Level l : {Level::Soft, Level::Landlock, Level::Kernel})
    if (level_name(l) == name) return l;
  return base::Error(EINVAL, "unknown level \"" + name + "\"");
}

base::Result<Availability> availability_from(const std::string& name) {
  for (Availability a : {Availability::Yes, Availability::Partial, Availability::No})
    if (availability_name(a) == name) return a;
  return base::Error(EINVAL, "unknown availability \"" + name + "\"");
}

long long integer(const json::Value& v, std::string_view key) {
  const json::Value* n = v.get(key);
  return n && n->type == json::Value::Type::Number ? static_cast<long long>(n->number) : 0;
}

}  // namespace

base::Result<Report> report_from(const json::Value& doc) {
  using T = json::Value::Type;
  const json::Value* checks = doc.get("checks");
  const json::Value* facts = doc.get("facts");
  const json::Value* presets = doc.get("presets");
  if (doc.type != T::Object || !checks || checks->type != T::Array || !facts || facts->type != T::Object ||
      !presets || presets->type != T::Array)
    return base::Error(EINVAL, "not a probe report (checks, facts and presets are needed)");
  Report r;
  RF_TRY_ASSIGN(level, level_from(doc.str("level")));
  r.level = level;
  r.level_reason = doc.str("level_reason");
  r.landlock_abi = static_cast<int>(integer(doc, "landlock_abi"));
  r.probed_at = integer(doc, "probed_at");
  for (const auto& c : checks->array) {
    RF_TRY_ASSIGN(available, availability_from(c.str("available")));
    r.checks.push_back({c.str("id"), c.str("layer"), available, c.str("detail"), c.str("cause"), c.str("fix"),
                        c.str("needed_for")});
  }
  for (const auto& [id, value] : facts->object) {
    if (value.type != T::String) return base::Error(EINVAL, "fact \"" + id + "\" is not a string");
    r.facts.push_back({id, value.string});
  }
  for (const auto& p : presets->array) {
    RF_TRY_ASSIGN(aim, level_from(p.str("aim")));
    RF_TRY_ASSIGN(reached, level_from(p.str("reached")));
    r.presets.push_back({p.str("preset"), aim, reached, p.str("note")});
  }
  if (const json::Value* cache = doc.get("cache")) {
    r.cache = cache->str("status");
    r.cache_path = cache->str("path");
  }
  return r;
}

base::Result<Report> from_json(std::string_view text) {
  RF_TRY_ASSIGN(doc, json::parse(text));
  return report_from(doc);
}

}  // namespace rf::probe
