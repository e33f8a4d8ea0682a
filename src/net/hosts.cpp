// SPDX-License-Identifier: LGPL-2.1-or-later
// Host rules and the names in a stream's first bytes (see hosts.hpp).
#include "ringfence/net/hosts.hpp"

#include <algorithm>

#include "text.hpp"

namespace rf::net {
namespace {

using base::Error;

constexpr std::size_t kMaxHello = 64 * 1024;
constexpr std::size_t kMaxHeaders = 16 * 1024;

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

// Letters, digits, '-', '_', dots between non-empty labels of at most 63 bytes, 253 in all; no
// label starts or ends with '-'.
bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  std::size_t label = 0;
  char prev = '.';
  for (char c : name) {
    if (c == '.') {
      if (label == 0 || prev == '-') return false;
      label = 0;
      prev = c;
      continue;
    }
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok || ++label > 63 || (c == '-' && prev == '.')) return false;
    prev = c;
  }
  return label != 0 && prev != '-';
}

std::uint32_t be(std::string_view b, std::size_t at, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v << 8 | static_cast<std::uint8_t>(b[at + i]);
  return v;
}

StreamName of(StreamName::Kind k, std::string name = {}) { return {k, std::move(name)}; }

// The server_name extension's body: a list of (type, length, name); type 0 is host_name.
StreamName server_name_list(std::string_view ext) {
  if (ext.size() < 2 || be(ext, 0, 2) != ext.size() - 2) return of(StreamName::Kind::Malformed);
  std::size_t at = 2;
  std::optional<std::string> found;
  while (at < ext.size()) {
    if (ext.size() - at < 3) return of(StreamName::Kind::Malformed);
    const auto type = static_cast<std::uint8_t>(ext[at]);
    const std::size_t len = be(ext, at + 1, 2);
    at += 3;
    if (len > ext.size() - at) return of(StreamName::Kind::Malformed);
    if (type == 0) {
      if (found) return of(StreamName::Kind::Malformed);  // two names: which one would count?
      std::string name = lowered(ext.substr(at, len));
      if (!valid_name(name)) return of(StreamName::Kind::Malformed);
      found = std::move(name);
    }
    at += len;
  }
  return found ? of(StreamName::Kind::Name, *found) : of(StreamName::Kind::NoName);
}

}  // namespace

base::Result<HostRule> parse_host_rule(std::string_view text) {
  HostRule r;
  r.text = std::string(text);
  std::string_view host = text;
  // A port after the last ':' (names hold no ':').
  if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
    host = text.substr(0, colon);
    auto ports = parse_ports(text.substr(colon + 1));
    if (!ports) return Error(0, "host rule " + quote(text) + ": " + ports.error().message());
    if (ports->first == 0) return Error(0, "host rule " + quote(text) + ": port 0 is no port to connect to");
    r.ports = *ports;
  }
  if (host.starts_with("*.")) {
    r.wildcard = true;
    host.remove_prefix(2);
  }
  r.name = lowered(host);
  if (!valid_name(r.name))
    return Error(0, "host rule " + quote(text) +
                        ": not a DNS name (letters, digits, '-', '_' and dots), "
                        "or *.SUFFIX");
  if (r.wildcard && r.name.find('.') == std::string::npos)
    return Error(
        0, "host rule " + quote(text) + ": a wildcard needs a suffix of two labels at least (*.example.com)");
  return r;
}

bool name_matches(const HostRule& rule, std::string_view name) {
  if (!rule.wildcard) return name == rule.name;
  return name.size() > rule.name.size() + 1 && name.ends_with(rule.name) &&
         name[name.size() - rule.name.size() - 1] == '.';
}

bool host_allowed(const std::vector<HostRule>& rules, std::string_view name,
                  std::optional<std::uint16_t> port) {
  return std::any_of(rules.begin(), rules.end(), [&](const HostRule& r) {
    if (!name_matches(r, name)) return false;
    return !port || !r.ports || (*port >= r.ports->first && *port <= r.ports->last);
  });
}

StreamName tls_server_name(std::string_view bytes) {
  using K = StreamName::Kind;
  if (bytes.empty()) return of(K::NeedMore);
  if (static_cast<std::uint8_t>(bytes[0]) != 22) return of(K::Other);  // not a handshake record
  // The handshake messages, gathered from consecutive handshake records.
  std::string hs;
  std::size_t at = 0;
  auto need_hello = [&]() -> std::optional<std::size_t> {
    if (hs.size() < 4) return std::nullopt;
    return 4 + static_cast<std::size_t>(be(hs, 1, 3));
  };
  for (;;) {
    if (auto n = need_hello(); n && hs.size() >= *n) break;
    if (bytes.size() - at < 5) return of(K::NeedMore);
    if (static_cast<std::uint8_t>(bytes[at]) != 22)
      return of(K::Malformed);  // the hello was cut by another record
    if (static_cast<std::uint8_t>(bytes[at + 1]) != 3) return of(at == 0 ? K::Other : K::Malformed);
    const std::size_t len = be(bytes, at + 3, 2);
    if (len == 0 || len > 16384 + 2048) return of(K::Malformed);
    if (bytes.size() - at - 5 < len) return of(K::NeedMore);
    hs.append(bytes.substr(at + 5, len));
    at += 5 + len;
    if (hs.size() >= 4 && static_cast<std::uint8_t>(hs[0]) != 1)
      return of(K::Malformed);  // not a ClientHello
    if (auto n = need_hello(); n && *n > kMaxHello) return of(K::Malformed);
  }
  const std::string_view h = std::string_view(hs).substr(4, *need_hello() - 4);
  // version(2) random(32) session_id(1+n) cipher_suites(2+n) compression(1+n) extensions(2+n)
  std::size_t p = 34;
  if (h.size() < p + 1) return of(K::Malformed);
  p += 1 + static_cast<std::uint8_t>(h[p]);
  if (h.size() < p + 2) return of(K::Malformed);
  p += 2 + be(h, p, 2);
  if (h.size() < p + 1) return of(K::Malformed);
  p += 1 + static_cast<std::uint8_t>(h[p]);
  if (h.size() == p) return of(K::NoName);  // no extensions at all
  if (h.size() < p + 2 || be(h, p, 2) != h.size() - p - 2) return of(K::Malformed);
  p += 2;
  std::optional<StreamName> sni;
  while (p < h.size()) {
    if (h.size() - p < 4) return of(K::Malformed);
    const std::uint32_t type = be(h, p, 2);
    const std::size_t len = be(h, p + 2, 2);
    p += 4;
    if (len > h.size() - p) return of(K::Malformed);
    if (type == 0) {
      if (sni) return of(K::Malformed);
      sni = server_name_list(h.substr(p, len));
      if (sni->kind == K::Malformed) return *sni;
    }
    p += len;
  }
  return sni ? *sni : of(K::NoName);
}

StreamName http_host(std::string_view bytes) {
  using K = StreamName::Kind;
  // The request line: METHOD SP TARGET SP HTTP/1.x CRLF, METHOD in upper-case letters.
  std::size_t sp = 0;
  while (sp < bytes.size() && bytes[sp] >= 'A' && bytes[sp] <= 'Z') ++sp;
  if (sp == bytes.size()) return of(sp > 16 ? K::Other : K::NeedMore);
  if (sp == 0 || sp > 16 || bytes[sp] != ' ') return of(K::Other);
  const std::size_t end = bytes.find("\r\n\r\n");
  if (end == std::string_view::npos) return of(bytes.size() > kMaxHeaders ? K::Malformed : K::NeedMore);
  if (end > kMaxHeaders) return of(K::Malformed);
  const std::string_view head = bytes.substr(0, end + 2);
  const std::size_t line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  const std::size_t sp2 = line.rfind(' ');
  if (sp2 == std::string_view::npos || sp2 <= sp || !line.substr(sp2 + 1).starts_with("HTTP/1."))
    return of(K::Other);
  const std::string_view target = line.substr(sp + 1, sp2 - sp - 1);
  auto strip_port = [](std::string_view h) {
    if (h.starts_with('[')) return h;  // an IPv6 literal: names no host to allow
    if (auto c = h.rfind(':'); c != std::string_view::npos) h = h.substr(0, c);
    return h;
  };
  std::optional<std::string> host;
  for (std::size_t at = line_end + 2; at < head.size();) {
    const std::size_t e = head.find("\r\n", at);
    std::string_view field = head.substr(at, e - at);
    at = e + 2;
    const std::size_t colon = field.find(':');
    if (colon == std::string_view::npos) return of(K::Malformed);
    if (lowered(field.substr(0, colon)) != "host") continue;
    if (host) return of(K::Malformed);
    std::string_view v = field.substr(colon + 1);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    host = lowered(strip_port(v));
  }
  // An absolute-form target (a proxy request) names the host itself, and must name the same one.
  if (auto scheme = target.find("://"); scheme != std::string_view::npos) {
    std::string_view rest = target.substr(scheme + 3);
    rest = rest.substr(0, rest.find_first_of("/?#"));
    if (auto at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
    const std::string named = lowered(strip_port(rest));
    if (host && *host != named) return of(K::Malformed);
    host = named;
  }
  if (!host) return of(K::NoName);
  if (!valid_name(*host)) return of(K::Malformed);
  return of(K::Name, *host);
}

}  // namespace rf::net
