// SPDX-License-Identifier: LGPL-2.1-or-later
// The metadata floor table, and the rule and policy text: parsing (with messages that name the
// bad text) and canonical formatting.
#include "ringfence/net/policy.hpp"

#include <array>

#include "text.hpp"

namespace rf::net {

using base::Result;

namespace {

constexpr std::string_view kAbstractPrefix = "unix-abstract:";
constexpr std::string_view kSpace = " \t";

Cidr v4_block(std::uint32_t addr, std::uint8_t prefix) { return Cidr{Address::v4(addr), prefix}; }

Cidr v6_block(std::array<std::uint8_t, 16> bytes, std::uint8_t prefix) {
  return Cidr{Address::v6(bytes), prefix};
}

// fd00:ec2::X, the AWS service addresses for Nitro instances.
Cidr aws_ula(std::uint16_t last) {
  return v6_block({0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<std::uint8_t>(last >> 8),
                   static_cast<std::uint8_t>(last & 0xff)},
                  128);
}

std::string_view trim(std::string_view s) {
  auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  auto last = s.find_last_not_of(kSpace);
  return s.substr(first, last - first + 1);
}

// Splits "verb rest" at the first run of blanks.
std::pair<std::string_view, std::string_view> split_word(std::string_view s) {
  auto end = s.find_first_of(kSpace);
  if (end == std::string_view::npos) return {s, {}};
  return {s.substr(0, end), trim(s.substr(end))};
}

Result<Rule> parse_abstract_target(Rule r, std::string_view spec) {
  if (spec == "*") return r;
  if (spec.empty() || spec[0] != '@')
    return base::Error(0, "bad rule " + quote(r.text) +
                              ": expected unix-abstract:@NAME or unix-abstract:* (the name starts with '@')");
  auto name = unescape_name(spec.substr(1));
  if (!name)
    return base::Error(0,
                       "bad rule " + quote(r.text) + ": bad escape in the socket name (use \\\\ or \\xNN)");
  r.name = std::move(*name);
  return r;
}

base::Status apply_directive(Policy& p, std::string_view line, bool& have_default) {
  auto [word, rest] = split_word(line);
  if (word == "default") {
    if (have_default) return base::Error(0, "a second 'default' line");
    if (rest != "allow" && rest != "deny")
      return base::Error(0, "bad default " + quote(rest) + ": expected 'default allow' or 'default deny'");
    p.default_verdict = rest == "allow" ? Verdict::Allow : Verdict::Deny;
    have_default = true;
    return {};
  }
  if (word == "resolver") {
    RF_TRY_ASSIGN(a, parse_ip(rest));
    p.resolvers.push_back(a);
    return {};
  }
  RF_TRY_ASSIGN(r, parse_rule(line));
  p.rules.push_back(std::move(r));
  return {};
}

}  // namespace

std::span<const FloorEntry> metadata_floor() {
  static const std::array<FloorEntry, 9> kFloor = {{
      {v4_block(0xa9fe0000, 16), "link-local, cloud metadata"},
      {v6_block({0xfe, 0x80}, 10), "IPv6 link-local"},
      {aws_ula(0x254), "AWS instance metadata over IPv6"},
      {aws_ula(0x253), "AWS DNS resolver over IPv6"},
      {aws_ula(0x123), "Amazon Time Sync over IPv6"},
      {aws_ula(0x23), "EKS Pod Identity credentials over IPv6"},
      {v4_block(0x646464c8, 32), "Alibaba Cloud metadata"},
      {v4_block(0xc00000c0, 32), "Oracle Cloud@Customer metadata"},
      {v4_block(0xa83f8110, 32), "Azure WireServer"},
  }};
  return kFloor;
}

Result<Rule> parse_rule(std::string_view text) {
  Rule r;
  r.text = std::string(trim(text));
  auto [verb, target] = split_word(r.text);
  if (verb != "allow" && verb != "deny")
    return base::Error(0, "bad rule " + quote(r.text) + ": expected 'allow' or 'deny' first");
  r.verdict = verb == "allow" ? Verdict::Allow : Verdict::Deny;
  if (target.empty())
    return base::Error(0, "bad rule " + quote(r.text) + ": no destination after '" + std::string(verb) + "'");
  if (target.substr(0, kAbstractPrefix.size()) == kAbstractPrefix) {
    r.kind = RuleKind::UnixAbstract;
    std::string spec(target.substr(kAbstractPrefix.size()));
    return parse_abstract_target(std::move(r), spec);
  }
  if (target.find_first_of(kSpace) != std::string_view::npos)
    return base::Error(0, "bad rule " + quote(r.text) + ": unexpected text after the destination");
  auto parsed = parse_net_target(target);
  if (!parsed) return std::move(parsed.error()).context("bad rule " + quote(r.text));
  r.net = parsed->net;
  r.ports = parsed->ports;
  return r;
}

Result<Policy> parse_policy(std::string_view text) {
  Policy p;
  bool have_default = false;
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    auto end = text.find('\n');
    std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line = trim(line.substr(0, line.size() - 1));
    if (line.empty() || line[0] == '#') continue;
    auto status = apply_directive(p, line, have_default);
    if (!status) return std::move(status.error()).context("line " + std::to_string(line_no));
  }
  return p;
}

std::string format_rule(const Rule& r) {
  std::string out = r.verdict == Verdict::Allow ? "allow " : "deny ";
  if (r.kind == RuleKind::UnixAbstract)
    return out + std::string(kAbstractPrefix) + (r.name ? "@" + escape_name(*r.name) : "*");
  return out + format_net_target(NetTarget{r.net, r.ports});
}

}  // namespace rf::net
