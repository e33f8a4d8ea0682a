// SPDX-License-Identifier: LGPL-2.1-or-later
// net: DNS messages: the query's one question, names in presentation form (case, escapes, the
// length limits), compression pointers (backward only, no loops), answers and CNAME chains, and
// the replies the resolver makes itself.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "ringfence/net/dns.hpp"

using namespace rf::net;
using namespace rf::net::dns;
using namespace std::string_literals;

namespace {

std::string u16(unsigned v) { return {static_cast<char>(v >> 8), static_cast<char>(v & 0xFF)}; }
std::string u32(unsigned long v) {
  return u16(static_cast<unsigned>(v >> 16)) + u16(static_cast<unsigned>(v & 0xFFFF));
}

std::string header(unsigned id, unsigned flags, unsigned qd, unsigned an, unsigned ns = 0, unsigned ar = 0) {
  return u16(id) + u16(flags) + u16(qd) + u16(an) + u16(ns) + u16(ar);
}

std::string wire(const std::string& name) { return *encode_name(name); }

std::string question(const std::string& name, unsigned type = kTypeA) {
  return wire(name) + u16(type) + u16(kClassIn);
}

std::string rr(const std::string& owner_wire, unsigned type, unsigned long ttl, const std::string& data) {
  return owner_wire + u16(type) + u16(kClassIn) + u32(ttl) + u16(static_cast<unsigned>(data.size())) + data;
}

const std::string kPtrToQuestion = "\xC0\x0C";  // the question's name, right after the header

}  // namespace

TEST_CASE("dns: a query's question, lowercased, with its id and flags") {
  const std::string msg = header(0x1234, 0x0100, 1, 0) + question("Api.Anthropic.COM.", kTypeAaaa);
  auto q = parse_query(msg);
  REQUIRE_MESSAGE(q, (q ? "" : q.error().message()));
  CHECK(q->id == 0x1234);
  CHECK(q->name == "api.anthropic.com");
  CHECK(q->qtype == kTypeAaaa);
  CHECK(q->qclass == kClassIn);
  CHECK(q->question_end == msg.size());
  // EDNS: an OPT record in the additional section is fine.
  const std::string edns = header(1, 0x0100, 1, 0, 0, 1) + question("a.test") + std::string("\0", 1) +
                           u16(41) + u16(1232) + u32(0) + u16(0);
  CHECK(parse_query(edns));
}

TEST_CASE("dns: a query is refused unless it is one plain question") {
  CHECK_FALSE(parse_query(header(1, 0x8100, 1, 0) + question("a.test")));  // a response
  CHECK_FALSE(parse_query(header(1, 0x2800, 1, 0) + question("a.test")));  // opcode UPDATE
  CHECK_FALSE(parse_query(header(1, 0x0100, 2, 0) + question("a.test") + question("b.test")));
  CHECK_FALSE(parse_query(header(1, 0x0100, 0, 0)));
  CHECK_FALSE(parse_query(header(1, 0x0100, 1, 1) + question("a.test")));
  CHECK_FALSE(parse_query(header(1, 0x0100, 1, 0) + wire("a.test")));  // no type and class
  CHECK_FALSE(parse_query(header(1, 0x0100, 1, 0).substr(0, 11)));
  // A compressed name in a query, a label past the message's end, the reserved label types.
  CHECK_FALSE(parse_query(header(1, 0x0100, 1, 0) + kPtrToQuestion + u16(1) + u16(1)));
  CHECK_FALSE(parse_query(header(1, 0x0100, 1, 0) + "\x05"
                                                    "ab"));
  CHECK_FALSE(parse_query(header(1, 0x0100, 1, 0) + "\x40" + std::string(64, 'a') + std::string("\0", 1) +
                          u16(1) + u16(1)));
}

TEST_CASE("dns: names keep every byte apart (escapes), and the 255-byte limit holds") {
  const std::string odd = std::string(
                              "\x03"
                              "a.b") +
                          "\x04"
                          "TEST" +
                          std::string("\0", 1);
  auto q = parse_query(header(1, 0, 1, 0) + odd + u16(1) + u16(1));
  REQUIRE(q);
  CHECK(q->name == "a\\046b.test");  // not the same as the two labels a.b
  CHECK(wire("a\\046b.test") == odd.substr(0, 4) +
                                    "\x04"
                                    "test" +
                                    std::string("\0", 1));
  std::string long_name;
  for (int i = 0; i < 3; ++i) long_name += std::string(63, 'x') + ".";
  CHECK(encode_name(long_name + std::string(61, 'x')));  // 3 * 64 + 62 + 1 = 255 bytes
  CHECK_FALSE(encode_name(long_name + std::string(62, 'x')));
  CHECK_FALSE(encode_name("a..b"));
  CHECK_FALSE(encode_name(std::string(64, 'a')));
  CHECK(*encode_name("") == std::string("\0", 1));
}

TEST_CASE("dns: a response's addresses and CNAME chain, with the smallest TTL") {
  const std::string q = question("www.allowed.test");
  const std::string cname_target = wire("edge.cdn.test");
  std::string msg = header(7, 0x8180, 1, 3) + q;
  msg += rr(kPtrToQuestion, kTypeCname, 300, cname_target);
  const std::size_t target_at = 12 + q.size() + 2 + 10;  // where the CNAME's target name lies
  const std::string ptr = {static_cast<char>(0xC0 | (target_at >> 8)), static_cast<char>(target_at & 0xFF)};
  msg += rr(ptr, kTypeA, 60, "\xC6\x33\x64\x07");  // 198.51.100.7
  msg += rr(ptr, kTypeAaaa, 600, std::string("\x20\x01\x0d\xb8", 4) + std::string(11, '\0') + "\x07");
  auto r = parse_response(msg);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
  CHECK(r->id == 7);
  CHECK(r->rcode == kNoError);
  CHECK(r->name == "www.allowed.test");
  REQUIRE(r->answers.size() == 3);
  CHECK(r->answers[0].target == "edge.cdn.test");
  CHECK(r->answers[1].name == "edge.cdn.test");
  auto pins = addresses_for(*r, "www.allowed.test");
  REQUIRE(pins.size() == 2);
  CHECK(format_ip(pins[0].address) == "198.51.100.7");
  CHECK(pins[0].ttl == 60);
  CHECK(format_ip(pins[1].address) == "2001:db8::7");
  CHECK(pins[1].ttl == 300);  // the CNAME's TTL bounds it
  CHECK(pins[0].canonical == "edge.cdn.test");
  // Asked for another name, the same answer gives nothing: only the chain from the name counts.
  CHECK(addresses_for(*r, "other.test").empty());
  CHECK(addresses_for(*r, "edge.cdn.test").size() == 2);
}

TEST_CASE("dns: records for another owner, loops and bad record lengths") {
  const std::string q = question("a.test");
  // An address for a name nobody asked about is not an address of a.test.
  std::string msg = header(1, 0x8180, 1, 1) + q + rr(wire("evil.test"), kTypeA, 60, "\x0a\x00\x00\x01"s);
  auto r = parse_response(msg);
  REQUIRE(r);
  CHECK(addresses_for(*r, "a.test").empty());
  // a.test -> b.test -> a.test: no address comes out of a loop.
  msg = header(1, 0x8180, 1, 3) + q + rr(kPtrToQuestion, kTypeCname, 60, wire("b.test")) +
        rr(wire("b.test"), kTypeCname, 60, kPtrToQuestion) +
        rr(kPtrToQuestion, kTypeA, 60, "\x0a\x00\x00\x01"s);
  r = parse_response(msg);
  REQUIRE(r);
  CHECK(addresses_for(*r, "a.test").empty());
  // An A record of 5 bytes, a record longer than the message, a pointer forward or to itself.
  CHECK_FALSE(
      parse_response(header(1, 0x8180, 1, 1) + q + rr(kPtrToQuestion, kTypeA, 60, "\x01\x02\x03\x04\x05")));
  CHECK_FALSE(
      parse_response(header(1, 0x8180, 1, 1) + q + kPtrToQuestion + u16(1) + u16(1) + u32(1) + u16(40)));
  const std::size_t here = 12 + q.size();
  const std::string self = {static_cast<char>(0xC0 | (here >> 8)), static_cast<char>(here & 0xFF)};
  CHECK_FALSE(parse_response(header(1, 0x8180, 1, 1) + q + rr(self, kTypeA, 60, "\x01\x02\x03\x04")));
  CHECK_FALSE(parse_response(header(1, 0x8180, 1, 1) + q + rr("\xC0\xFF", kTypeA, 60, "\x01\x02\x03\x04")));
  // Other types are skipped; the top bit of a TTL reads as the largest TTL allowed.
  msg = header(1, 0x8180, 1, 2) + q + rr(kPtrToQuestion, 16, 60, "\x03txt") +
        rr(kPtrToQuestion, kTypeA, 0x80000000ul, "\x0a\x00\x00\x02"s);
  r = parse_response(msg);
  REQUIRE(r);
  REQUIRE(r->answers.size() == 1);
  CHECK(r->answers[0].ttl == 0x7FFFFFFF);
}

TEST_CASE("dns: the resolver's own replies keep the id and question, and carry no record") {
  const std::string msg = header(0xBEEF, 0x0110, 1, 0, 0, 1) + question("secret-data.evil.test", 16) +
                          std::string("\0", 1) + u16(41) + u16(1232) + u32(0) + u16(0);
  auto q = parse_query(msg);
  REQUIRE(q);
  const std::string out = reply(msg, *q, kNxDomain);
  auto r = parse_response(out);
  REQUIRE(r);
  CHECK(r->id == 0xBEEF);
  CHECK(r->rcode == kNxDomain);
  CHECK(r->name == "secret-data.evil.test");
  CHECK(r->answers.empty());
  CHECK(out.size() == q->question_end);                        // the OPT record is not echoed
  CHECK((static_cast<unsigned char>(out[2]) & 0x01) == 0x01);  // RD kept
  CHECK((static_cast<unsigned char>(out[3]) & 0x80) == 0x80);  // RA
  CHECK(with_id(out, 0x0102).substr(0, 2) == "\x01\x02");
}
