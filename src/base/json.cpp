// SPDX-License-Identifier: LGPL-2.1-or-later
// The JSON reader (RFC 8259 values; \u escapes decoded to UTF-8, surrogate pairs joined).
#include "ringfence/base/json.hpp"

#include <cerrno>
#include <cstdlib>

namespace rf::base::json {
namespace {

constexpr int kMaxDepth = 16;

class Parser {
public:
  explicit Parser(std::string_view t) : t_(t) {}

  base::Result<Value> document() {
    Value v;
    if (!value(v, 0)) return error();
    space();
    if (i_ != t_.size()) {
      fail("text after the value");
      return error();
    }
    return v;
  }

private:
  base::Error error() const {
    return base::Error(EINVAL, "JSON: " + why_ + " at offset " + std::to_string(i_));
  }

  bool fail(const char* why) {
    if (why_.empty()) why_ = why;
    return false;
  }

  void space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\t' || t_[i_] == '\r')) ++i_;
  }

  bool literal(std::string_view word) {
    if (t_.substr(i_, word.size()) != word) return fail("unknown literal");
    i_ += word.size();
    return true;
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

  bool hex4(unsigned& out) {
    if (i_ + 4 > t_.size()) return fail("short \\u escape");
    out = 0;
    for (int k = 0; k < 4; ++k) {
      char c = t_[i_++];
      unsigned d = c >= '0' && c <= '9'   ? unsigned(c - '0')
                   : c >= 'a' && c <= 'f' ? unsigned(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? unsigned(c - 'A' + 10)
                                          : 16u;
      if (d == 16) return fail("bad \\u escape");
      out = out * 16 + d;
    }
    return true;
  }

  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  bool escape(std::string& out) {
    if (i_ >= t_.size()) return fail("unterminated string");
    char e = t_[i_++];
    switch (e) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': break;
      default: return fail("bad escape");
    }
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

  bool string(std::string& out) {
    ++i_;  // the opening quote
    while (i_ < t_.size()) {
      char c = t_[i_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
      if (c != '\\') {
        out += c;
      } else if (!escape(out)) {
        return false;
      }
    }
    return fail("unterminated string");
  }

  bool array(Value& v, int depth) {
    v.type = Value::Type::Array;
    ++i_;
    space();
    if (i_ < t_.size() && t_[i_] == ']') {
      ++i_;
      return true;
    }
    while (true) {
      Value item;
      if (!value(item, depth + 1)) return false;
      v.array.push_back(std::move(item));
      space();
      if (i_ >= t_.size()) return fail("unterminated array");
      char c = t_[i_++];
      if (c == ']') return true;
      if (c != ',') return fail("expected , or ]");
    }
  }

  bool object(Value& v, int depth) {
    v.type = Value::Type::Object;
    ++i_;
    space();
    if (i_ < t_.size() && t_[i_] == '}') {
      ++i_;
      return true;
    }
    while (true) {
      space();
      if (i_ >= t_.size() || t_[i_] != '"') return fail("expected a key");
      std::string key;
      if (!string(key)) return false;
      space();
      if (i_ >= t_.size() || t_[i_++] != ':') return fail("expected :");
      Value item;
      if (!value(item, depth + 1)) return false;
      v.object.push_back(Member{std::move(key), std::move(item)});
      space();
      if (i_ >= t_.size()) return fail("unterminated object");
      char c = t_[i_++];
      if (c == '}') return true;
      if (c != ',') return fail("expected , or }");
    }
  }

  std::string_view t_;
  size_t i_ = 0;
  std::string why_;
};

}  // namespace

const Value* Value::get(std::string_view key) const {
  if (type != Type::Object) return nullptr;
  for (const auto& [k, v] : object)
    if (k == key) return &v;
  return nullptr;
}

std::string Value::str(std::string_view key) const {
  const Value* v = get(key);
  return v && v->type == Type::String ? v->string : std::string();
}

double Value::num(std::string_view key, double fallback) const {
  const Value* v = get(key);
  return v && v->type == Type::Number ? v->number : fallback;
}

base::Result<Value> parse(std::string_view text) { return Parser(text).document(); }

}  // namespace rf::base::json
