// SPDX-License-Identifier: LGPL-2.1-or-later
// DNS wire format (see dns.hpp).
#include "ringfence/net/dns.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace rf::net::dns {
namespace {

using base::Error;

constexpr std::size_t kHeader = 12;
constexpr std::size_t kMaxName = 255;  // wire length, with the final zero label
constexpr int kMaxChain = 16;

struct Reader {
  std::string_view msg;
  std::size_t at = 0;

  bool u8(std::uint8_t& v) {
    if (at + 1 > msg.size()) return false;
    v = static_cast<std::uint8_t>(msg[at++]);
    return true;
  }
  bool u16(std::uint16_t& v) {
    if (at + 2 > msg.size()) return false;
    v = static_cast<std::uint16_t>(static_cast<std::uint8_t>(msg[at]) << 8 |
                                   static_cast<std::uint8_t>(msg[at + 1]));
    at += 2;
    return true;
  }
  bool u32(std::uint32_t& v) {
    std::uint16_t hi = 0, lo = 0;
    if (!u16(hi) || !u16(lo)) return false;
    v = static_cast<std::uint32_t>(hi) << 16 | lo;
    return true;
  }
};

void append_label(std::string& out, std::string_view label) {
  if (!out.empty()) out += '.';
  for (char ch : label) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
      out += static_cast<char>(c);
    } else {
      out += '\\';
      out += static_cast<char>('0' + c / 100);
      out += static_cast<char>('0' + c / 10 % 10);
      out += static_cast<char>('0' + c % 10);
    }
  }
}

// A name at r.at, compression pointers allowed when `pointers`: each must point before the
// place it was read from, so no loop is possible. r.at ends just past the name's first part.
bool read_name(Reader& r, std::string& out, bool pointers) {
  out.clear();
  std::size_t pos = r.at;
  std::size_t resume = 0;  // where r continues after the first pointer (0: no pointer yet)
  std::size_t wire = 0;
  std::size_t limit = r.msg.size();  // a pointer must land below this
  for (;;) {
    if (pos >= r.msg.size()) return false;
    const auto len = static_cast<std::uint8_t>(r.msg[pos]);
    if ((len & 0xC0) == 0xC0) {
      if (!pointers || pos + 2 > r.msg.size()) return false;
      const std::size_t to =
          static_cast<std::size_t>(len & 0x3F) << 8 | static_cast<std::uint8_t>(r.msg[pos + 1]);
      if (to >= pos || to >= limit || to < kHeader) return false;
      if (resume == 0) resume = pos + 2;
      limit = to;
      pos = to;
      continue;
    }
    if ((len & 0xC0) != 0) return false;  // the 01 and 10 label types are not in use
    wire += 1u + len;
    if (wire > kMaxName) return false;
    if (len == 0) {
      r.at = resume ? resume : pos + 1;
      return true;
    }
    if (pos + 1 + len > r.msg.size()) return false;
    append_label(out, r.msg.substr(pos + 1, len));
    pos += 1u + len;
  }
}

bool is_address_type(std::uint16_t t) { return t == kTypeA || t == kTypeAaaa; }

}  // namespace

base::Result<Query> parse_query(std::string_view msg) {
  Reader r{msg};
  Query q;
  std::uint16_t qd = 0, an = 0, ns = 0, ar = 0;
  if (!r.u16(q.id) || !r.u16(q.flags) || !r.u16(qd) || !r.u16(an) || !r.u16(ns) || !r.u16(ar))
    return Error(0, "DNS query shorter than its header");
  if (q.flags & 0x8000) return Error(0, "DNS message is a response, not a query");
  if ((q.flags >> 11 & 0xF) != 0) return Error(0, "DNS query with an opcode other than QUERY");
  if (qd != 1) return Error(0, "DNS query with " + std::to_string(qd) + " questions (one is accepted)");
  if (an != 0 || ns != 0) return Error(0, "DNS query carrying answer or authority records");
  // Clients do not compress the only name of a query.
  if (!read_name(r, q.name, false)) return Error(0, "DNS query with a malformed name");
  if (!r.u16(q.qtype) || !r.u16(q.qclass)) return Error(0, "DNS query cut inside its question");
  q.question_end = r.at;
  return q;
}

base::Result<Response> parse_response(std::string_view msg) {
  Reader r{msg};
  Response out;
  std::uint16_t flags = 0, qd = 0, an = 0, ns = 0, ar = 0;
  if (!r.u16(out.id) || !r.u16(flags) || !r.u16(qd) || !r.u16(an) || !r.u16(ns) || !r.u16(ar))
    return Error(0, "DNS response shorter than its header");
  if (!(flags & 0x8000)) return Error(0, "DNS message is a query, not a response");
  out.rcode = static_cast<std::uint8_t>(flags & 0xF);
  out.truncated = (flags & 0x0200) != 0;
  if (qd != 1) return Error(0, "DNS response with " + std::to_string(qd) + " questions");
  std::uint16_t qclass = 0;
  if (!read_name(r, out.name, true) || !r.u16(out.qtype) || !r.u16(qclass))
    return Error(0, "DNS response with a malformed question");
  out.question_end = r.at;
  for (unsigned i = 0; i < an; ++i) {
    Record rec;
    std::uint16_t cls = 0, rdlen = 0;
    if (!read_name(r, rec.name, true) || !r.u16(rec.type) || !r.u16(cls) || !r.u32(rec.ttl) || !r.u16(rdlen))
      return Error(0, "DNS response with a malformed answer record");
    if (rdlen > msg.size() - r.at) return Error(0, "DNS answer record longer than the message");
    const std::size_t end = r.at + rdlen;
    rec.ttl = std::min<std::uint32_t>(rec.ttl, 0x7FFFFFFF);  // RFC 2181: the top bit means 0
    if (cls == kClassIn && rec.type == kTypeA) {
      if (rdlen != 4) return Error(0, "DNS A record of " + std::to_string(rdlen) + " bytes");
      std::uint32_t v = 0;
      r.u32(v);
      rec.address = Address::v4(v);
    } else if (cls == kClassIn && rec.type == kTypeAaaa) {
      if (rdlen != 16) return Error(0, "DNS AAAA record of " + std::to_string(rdlen) + " bytes");
      std::array<std::uint8_t, 16> b{};
      for (auto& x : b) r.u8(x);
      rec.address = Address::v6(b);
    } else if (cls == kClassIn && rec.type == kTypeCname) {
      Reader t{msg, r.at};
      if (!read_name(t, rec.target, true) || t.at != end)
        return Error(0, "DNS CNAME record with a malformed name");
      r.at = end;
    } else {
      r.at = end;
      continue;
    }
    out.answers.push_back(std::move(rec));
  }
  return out;
}

std::vector<Pin> addresses_for(const Response& response, std::string_view name) {
  std::string current(name);
  std::uint32_t ttl = 0x7FFFFFFF;
  std::vector<std::string> seen{current};
  for (int links = 0; links < kMaxChain; ++links) {
    auto cname = std::find_if(response.answers.begin(), response.answers.end(),
                              [&](const Record& r) { return r.type == kTypeCname && r.name == current; });
    if (cname == response.answers.end()) break;
    if (std::find(seen.begin(), seen.end(), cname->target) != seen.end()) return {};  // a loop
    ttl = std::min(ttl, cname->ttl);
    current = cname->target;
    seen.push_back(current);
  }
  std::vector<Pin> out;
  for (const auto& r : response.answers)
    if (is_address_type(r.type) && r.address && r.name == current)
      out.push_back({*r.address, std::min(ttl, r.ttl), current});
  return out;
}

std::string reply(std::string_view msg, const Query& query, std::uint8_t rcode) {
  std::string out(msg.substr(0, query.question_end));
  // QR, the query's opcode (0) and RD, RA; AA, TC, Z and AD clear; CD kept.
  const std::uint16_t flags = static_cast<std::uint16_t>(0x8000 | (query.flags & 0x0100) | 0x0080 |
                                                         (query.flags & 0x0010) | (rcode & 0xF));
  out[2] = static_cast<char>(flags >> 8);
  out[3] = static_cast<char>(flags & 0xFF);
  for (std::size_t i = 6; i < kHeader; ++i) out[i] = 0;  // no answer, authority or additional record
  return out;
}

std::string with_id(std::string_view msg, std::uint16_t id) {
  std::string out(msg);
  if (out.size() >= 2) {
    out[0] = static_cast<char>(id >> 8);
    out[1] = static_cast<char>(id & 0xFF);
  }
  return out;
}

std::string forwarded_query(std::uint16_t id, const Query& q) {
  auto name = encode_name(q.name);  // q.name came from a wire name: it always encodes
  std::string out;
  auto u16 = [&out](unsigned v) {
    out += static_cast<char>(v >> 8 & 0xFF);
    out += static_cast<char>(v & 0xFF);
  };
  u16(id);
  u16(q.flags & 0x0100);  // RD only
  u16(1);
  u16(0);
  u16(0);
  u16(1);
  out += name ? *name : std::string(1, '\0');
  u16(q.qtype);
  u16(q.qclass);
  out += '\0';  // OPT: the root name, type 41, the UDP size, no extended flags, no option
  u16(41);
  u16(1232);
  u16(0);
  u16(0);
  u16(0);
  return out;
}

std::string client_answer(std::string_view resp, const Response& r, std::string_view query, const Query& q) {
  std::string out = with_id(resp.substr(0, kHeader), q.id);
  out += query.substr(kHeader, q.question_end - kHeader);
  out += resp.substr(r.question_end);
  return out;
}

base::Result<std::string> encode_name(std::string_view name) {
  std::string out;
  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  std::string label;
  auto flush = [&]() -> bool {
    if (label.empty() || label.size() > 63) return false;
    out += static_cast<char>(label.size());
    out += label;
    label.clear();
    return true;
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '.') {
      if (!flush()) return Error(0, "DNS name with an empty or too long label: " + std::string(name));
      continue;
    }
    if (c == '\\' && i + 3 < name.size() && std::isdigit(static_cast<unsigned char>(name[i + 1])) &&
        std::isdigit(static_cast<unsigned char>(name[i + 2])) &&
        std::isdigit(static_cast<unsigned char>(name[i + 3]))) {
      const int v = (name[i + 1] - '0') * 100 + (name[i + 2] - '0') * 10 + (name[i + 3] - '0');
      if (v > 255) return Error(0, "DNS name with an escape above \\255: " + std::string(name));
      label += static_cast<char>(v);
      i += 3;
      continue;
    }
    if (c == '\\' && i + 1 < name.size()) c = name[++i];
    label += c;
  }
  if (!name.empty() && !flush())
    return Error(0, "DNS name with an empty or too long label: " + std::string(name));
  out += '\0';
  if (out.size() > kMaxName) return Error(0, "DNS name longer than 255 bytes: " + std::string(name));
  return out;
}

}  // namespace rf::net::dns
