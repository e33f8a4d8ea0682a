// SPDX-License-Identifier: LGPL-2.1-or-later
// The line parser: a small hand-written tokenizer and a recursive-descent parser per line.
// Expressions are flat (no parentheses), so recursion depth is fixed whatever the input.
#include <seccomp.h>

#include <cstdint>
#include <cstdio>
#include <utility>

#include "constants.hpp"
#include "parser.hpp"

namespace rf::policy::detail {

namespace {

enum class Tok { Ident, Number, Op, Directive, End };

struct Token {
  Tok kind = Tok::End;
  std::string_view text;
};

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string describe(const Token& t) { return t.kind == Tok::End ? "end of line" : quote(t.text); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Decimal, 0x hex or 0-prefixed octal, at most 2^64-1; nullopt for anything else.
std::optional<std::uint64_t> parse_number(std::string_view s) {
  unsigned base = 10;
  if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    unsigned d = 0;
    if (is_digit(c))
      d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      return std::nullopt;
    if (d >= base) return std::nullopt;
    if (v > (UINT64_MAX - d) / base) return std::nullopt;
    v = v * base + d;
  }
  return v;
}

base::Result<std::vector<Token>> tokenize(std::string_view code, std::string_view file, int line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < code.size()) {
    char c = code[i];
    std::size_t start = i;
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    Tok kind = Tok::Op;
    if (is_ident_start(c) || is_digit(c) || c == '@') {
      kind = c == '@' ? Tok::Directive : is_digit(c) ? Tok::Number : Tok::Ident;
      ++i;
      while (i < code.size() && is_ident_char(code[i])) ++i;
    } else if (i + 1 < code.size() && (code.substr(i, 2) == "==" || code.substr(i, 2) == "!=" ||
                                       code.substr(i, 2) == "&&" || code.substr(i, 2) == "||")) {
      i += 2;
    } else if (c == '&' || c == '|' || c == ':' || c == ';') {
      ++i;
    } else {
      return error_at(file, line, "unexpected " + quote(code.substr(i, 1)));
    }
    out.push_back({kind, code.substr(start, i - start)});
  }
  return out;
}

bool is_action_word(std::string_view w) { return w == "allow" || w == "errno" || w == "kill" || w == "log"; }

// Parses the tokens of one line. Every method consumes what it recognises and fails with a
// message naming the offending word.
class LineParser {
public:
  LineParser(std::vector<Token> toks, std::string_view file, int line)
      : toks_(std::move(toks)), file_(file), line_(line) {}

  base::Result<Line> parse_line();

private:
  const Token& peek() const { return pos_ < toks_.size() ? toks_[pos_] : end_; }
  Token next() { return pos_ < toks_.size() ? toks_[pos_++] : end_; }
  bool accept(std::string_view op) {
    if (peek().kind != Tok::Op || peek().text != op) return false;
    ++pos_;
    return true;
  }
  base::Error fail(const std::string& msg) const { return error_at(file_, line_, msg); }
  base::Status expect_end(std::string_view after) const {
    if (peek().kind == Tok::End) return {};
    return fail("unexpected " + describe(peek()) + " after " + std::string(after));
  }

  base::Result<Line> parse_default();
  base::Result<Line> parse_rule();
  base::Result<Action> parse_action();
  base::Result<Expr> parse_expr();
  base::Result<Atom> parse_atom();
  base::Result<std::uint64_t> parse_value(int arg);
  base::Result<std::uint64_t> parse_word(const Token& t);
  std::string render(std::size_t from, std::size_t to) const;

  std::vector<Token> toks_;
  Token end_;
  std::size_t pos_ = 0;
  std::string_view file_;
  int line_;
  std::string syscall_;
};

base::Result<Line> LineParser::parse_line() {
  const Token& first = peek();
  if (first.kind == Tok::Directive) {
    if (first.text == "@default") return parse_default();
    return fail("unknown directive " + quote(first.text));
  }
  return parse_rule();
}

base::Result<Line> LineParser::parse_default() {
  next();
  Line l;
  l.kind = Line::Kind::Default;
  l.line = line_;
  RF_TRY_ASSIGN(action, parse_action());
  l.action = action;
  RF_TRY(expect_end("the @default action"));
  return l;
}

base::Result<Line> LineParser::parse_rule() {
  Token name = next();
  if (name.kind != Tok::Ident) return fail("expected a syscall name, got " + describe(name));
  syscall_ = std::string(name.text);
  if (seccomp_syscall_resolve_name(syscall_.c_str()) == __NR_SCMP_ERROR)
    return fail("unknown syscall " + quote(syscall_));
  Line l;
  l.line = line_;
  l.rule.syscall = syscall_;
  if (peek().kind == Tok::End) {
    l.rule.action = Action{};  // a bare name: allow
    return l;
  }
  if (!accept(":")) return fail("expected \":\" after " + syscall_ + ", got " + describe(peek()));
  if (peek().kind == Tok::End) return fail("expected an action or a condition after \"" + syscall_ + ":\"");
  if (peek().kind == Tok::Ident && is_action_word(peek().text)) {
    RF_TRY_ASSIGN(action, parse_action());
    l.rule.action = action;
    RF_TRY(expect_end("the action"));
    return l;
  }
  std::size_t from = pos_;
  RF_TRY_ASSIGN(expr, parse_expr());
  l.rule.expr = std::move(expr);
  l.rule.expr_text = render(from, pos_);
  if (accept(";")) {
    RF_TRY_ASSIGN(action, parse_action());
    l.rule.action = action;
    RF_TRY(expect_end("the action"));
  } else {
    RF_TRY(expect_end("the condition (expected \";\" and an action, \"&&\" or \"||\")"));
  }
  return l;
}

base::Result<Action> LineParser::parse_action() {
  Token w = next();
  if (w.kind == Tok::Ident && w.text == "allow") return Action{ActionKind::Allow, 0};
  if (w.kind == Tok::Ident && w.text == "kill") return Action{ActionKind::Kill, 0};
  if (w.kind == Tok::Ident && w.text == "log") return Action{ActionKind::Log, 0};
  if (w.kind != Tok::Ident || w.text != "errno")
    return fail("expected an action (allow, errno NAME, kill, log), got " + describe(w));
  Token v = next();
  if (v.kind == Tok::Ident) {
    auto e = lookup_errno(v.text);
    if (!e) return fail("unknown errno " + quote(v.text));
    return Action{ActionKind::Errno, *e};
  }
  if (v.kind != Tok::Number)
    return fail("expected an errno name or number after \"errno\", got " + describe(v));
  auto n = parse_number(v.text);
  if (!n) return fail("bad number " + quote(v.text));
  if (*n < 1 || *n > kMaxErrno)
    return fail("errno " + std::string(v.text) + " is out of range (1 to " + std::to_string(kMaxErrno) + ")");
  return Action{ActionKind::Errno, static_cast<int>(*n)};
}

base::Result<Expr> LineParser::parse_expr() {
  Expr e;
  e.terms.emplace_back();
  for (;;) {
    RF_TRY_ASSIGN(atom, parse_atom());
    e.terms.back().push_back(atom);
    if (accept("&&")) continue;
    if (accept("||")) {
      e.terms.emplace_back();
      continue;
    }
    return e;
  }
}

base::Result<Atom> LineParser::parse_atom() {
  Token a = next();
  if (a.kind != Tok::Ident || a.text.size() < 4 || a.text.substr(0, 3) != "arg")
    return fail("expected an argument (arg0 to arg5), got " + describe(a));
  if (a.text.size() != 4 || a.text[3] < '0' || a.text[3] > '5')
    return fail("no argument " + quote(a.text) + " (syscalls have arg0 to arg5)");
  Atom atom;
  atom.arg = a.text[3] - '0';
  Token op = peek();
  if (accept("==") || accept("!=")) {
    atom.op = op.text == "==" ? CmpOp::Eq : CmpOp::Ne;
    RF_TRY_ASSIGN(v, parse_value(atom.arg));
    atom.value = v;
    return atom;
  }
  bool in = op.kind == Tok::Ident && op.text == "in";
  if (!in && !accept("&"))
    return fail("expected \"==\", \"!=\", \"&\" or \"in\" after " + std::string(a.text) + ", got " +
                describe(op));
  if (in) next();
  RF_TRY_ASSIGN(mask, parse_value(atom.arg));
  atom.mask = mask;
  if (in) {
    atom.op = CmpOp::In;
    return atom;
  }
  if (mask == 0) return fail("mask 0 in " + std::string(a.text) + " & 0: no bit can ever be set");
  Token cmp = peek();
  if (!accept("==") && !accept("!=")) {
    atom.op = CmpOp::AnyBit;
    return atom;
  }
  atom.op = cmp.text == "==" ? CmpOp::MaskedEq : CmpOp::MaskedNe;
  RF_TRY_ASSIGN(v, parse_value(atom.arg));
  if ((v & ~mask) != 0) return fail("value " + hex(v) + " has bits outside the mask " + hex(mask));
  atom.value = v;
  return atom;
}

// A value: words joined by "|", checked against the argument's width.
base::Result<std::uint64_t> LineParser::parse_value(int arg) {
  std::uint64_t v = 0;
  do {
    RF_TRY_ASSIGN(w, parse_word(next()));
    v |= w;
  } while (accept("|"));
  int width = arg_width(syscall_, arg);
  if (width < 64 && (v >> width) != 0)
    return fail("value " + hex(v) + " does not fit the " + std::to_string(width) + "-bit argument arg" +
                std::to_string(arg) + " of " + syscall_);
  return v;
}

base::Result<std::uint64_t> LineParser::parse_word(const Token& t) {
  if (t.kind == Tok::Number) {
    auto n = parse_number(t.text);
    if (!n) return fail("bad number " + quote(t.text));
    return *n;
  }
  if (t.kind == Tok::Ident) {
    auto c = lookup_constant(t.text);
    if (!c) return fail("unknown constant " + quote(t.text));
    return *c;
  }
  return fail("expected a number or a constant, got " + describe(t));
}

// The tokens [from, to) with single spaces, "|" unspaced: "arg0 & CLONE_NEWNS|CLONE_NEWUSER == 0".
std::string LineParser::render(std::size_t from, std::size_t to) const {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    bool glue = i == from || toks_[i].text == "|" || toks_[i - 1].text == "|";
    if (!glue) out += ' ';
    out += toks_[i].text;
  }
  return out;
}

// Bytes a line may hold: printable ASCII and tabs in the code; comments also take UTF-8.
base::Status check_bytes(std::string_view s, bool comment, std::string_view file, int line) {
  for (char ch : s) {
    auto b = static_cast<unsigned char>(ch);
    if (b == '\t' || (b >= 0x20 && b < 0x7f) || (comment && b >= 0x80)) continue;
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", b);
    return error_at(file, line, std::string("unexpected byte ") + buf);
  }
  return {};
}

base::Result<std::optional<Line>> parse_one(std::string_view raw, std::string_view file, int line) {
  if (raw.size() > kMaxLineBytes)
    return error_at(file, line,
                    "line too long (" + std::to_string(raw.size()) + " bytes, limit " +
                        std::to_string(kMaxLineBytes) + ")");
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  std::string_view code = raw, comment;
  if (auto hash = raw.find('#'); hash != std::string_view::npos) {
    code = raw.substr(0, hash);
    comment = trim(raw.substr(hash + 1));
  }
  RF_TRY(check_bytes(code, false, file, line));
  RF_TRY(check_bytes(comment, true, file, line));
  code = trim(code);
  if (code.empty()) return std::optional<Line>();
  if (code.substr(0, 8) == "@include" && (code.size() == 8 || code[8] == ' ' || code[8] == '\t')) {
    std::string_view path = trim(code.substr(8));
    if (path.empty()) return error_at(file, line, "@include needs a path");
    if (path.size() > kMaxIncludePath) return error_at(file, line, "@include path too long");
    for (char c : path)
      if (!is_ident_char(c) && c != '.' && c != '/' && c != '-' && c != '+')
        return error_at(file, line, "bad @include path " + quote(path));
    Line l;
    l.kind = Line::Kind::Include;
    l.line = line;
    l.include = std::string(path);
    return std::optional<Line>(std::move(l));
  }
  RF_TRY_ASSIGN(toks, tokenize(code, file, line));
  LineParser p(std::move(toks), file, line);
  RF_TRY_ASSIGN(l, p.parse_line());
  l.rule.comment = std::string(comment);
  return std::optional<Line>(std::move(l));
}

}  // namespace

base::Error error_at(std::string_view file, int line, const std::string& message) {
  std::string where(file);
  if (line > 0) where += ":" + std::to_string(line);
  return base::Error(0, where + ": " + message);
}

base::Result<std::vector<Line>> parse_policy(std::string_view text, std::string_view file) {
  if (text.size() > kMaxFileBytes)
    return error_at(file, 0,
                    "file too large (" + std::to_string(text.size()) + " bytes, limit " +
                        std::to_string(kMaxFileBytes) + ")");
  std::vector<Line> out;
  int line = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    ++line;
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    RF_TRY_ASSIGN(parsed, parse_one(text.substr(start, end - start), file, line));
    if (parsed) out.push_back(std::move(*parsed));
    start = end + 1;
  }
  return out;
}

}  // namespace rf::policy::detail
