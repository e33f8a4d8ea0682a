// SPDX-License-Identifier: LGPL-2.1-or-later
// Text helpers private to the net layer (see text.hpp).
#include "text.hpp"

#include <cstdint>
#include <cstdio>

namespace rf::net {

namespace {

constexpr std::size_t kQuoteLimit = 200;

void append_hex_byte(std::string& out, const char* prefix, unsigned char c) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "%s%02x", prefix, c);
  out += buf;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not one (overlong forms,
// surrogates and code points above U+10FFFF are invalid).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  auto cont = [&](std::size_t k) { return i + k < s.size() && (b(k) & 0xc0) == 0x80; };
  unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xe0 && b(1) < 0xa0) return 0;   // overlong
    if (c == 0xed && b(1) >= 0xa0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xf0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xf4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < kQuoteLimit; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      append_hex_byte(out, "\\x", c);
    }
  }
  out += text.size() > kQuoteLimit ? "\"..." : "\"";
  return out;
}

bool append_json_string(std::string& out, std::string_view s) {
  bool lossy = false;
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      append_hex_byte(out, "\\u00", c);
    } else if (std::size_t n = utf8_length(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    } else {
      out += "\\ufffd";
      lossy = true;
    }
    ++i;
  }
  out += '"';
  return lossy;
}

std::string escape_name(std::string_view name) {
  std::string out;
  for (char ch : name) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c > 0x20 && c < 0x7f) {
      out += ch;
    } else {
      append_hex_byte(out, "\\x", c);
    }
  }
  return out;
}

std::optional<std::string> unescape_name(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
    } else if (i + 1 < text.size() && text[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (i + 3 < text.size() && text[i + 1] == 'x' && hex_value(text[i + 2]) >= 0 &&
               hex_value(text[i + 3]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 2]) * 16 + hex_value(text[i + 3]));
      i += 3;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace rf::net
