// SPDX-License-Identifier: LGPL-2.1-or-later
// DNS messages as the egress allowlist needs them (RFC 1035, RFC 3596): the one question of a
// query, the answers of a response (addresses and CNAMEs, with their TTLs), and the short replies
// the resolver gives itself (NXDOMAIN, REFUSED, SERVFAIL). Pure functions over bytes; every
// length and compression pointer is checked, and a message that breaks a rule is refused whole.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/net/address.hpp"

namespace rf::net::dns {

inline constexpr std::uint16_t kTypeA = 1, kTypeCname = 5, kTypeAaaa = 28, kTypeAny = 255;
inline constexpr std::uint16_t kClassIn = 1;
inline constexpr std::uint8_t kNoError = 0, kServFail = 2, kNxDomain = 3, kRefused = 5;

// The header and question of a query. The name is in presentation form, lowercase, without the
// final dot ("api.anthropic.com"; the root is ""). Every byte of a label that is not a letter,
// digit, '-' or '_' is kept as \DDD, so no two different wire names read alike.
struct Query {
  std::uint16_t id = 0;
  std::uint16_t flags = 0;  // the header's second 16 bits, as sent
  std::string name;
  std::uint16_t qtype = 0;
  std::uint16_t qclass = 0;
  std::size_t question_end = 0;  // offset just past the question (the reply copies up to here)
};

// A query from a client: QR clear, opcode QUERY, exactly one question, no answer or authority
// records (an EDNS OPT record in the additional section is allowed and ignored).
base::Result<Query> parse_query(std::string_view msg);

// One record of a response's answer section that the allowlist cares about.
struct Record {
  std::string name;  // owner, as Query::name
  std::uint16_t type = 0;
  std::uint32_t ttl = 0;
  std::optional<Address> address;  // A / AAAA
  std::string target;              // CNAME: the canonical name, as Query::name
};

struct Response {
  std::uint16_t id = 0;
  std::uint8_t rcode = 0;
  bool truncated = false;
  std::string name;  // the question's name
  std::uint16_t qtype = 0;
  std::vector<Record> answers;   // only A, AAAA and CNAME of class IN; others are skipped
  std::size_t question_end = 0;  // offset just past the question
};

// A response from a nameserver: QR set, one question. Records of other types are skipped (after
// their lengths are checked); names may use compression pointers, each pointing strictly back.
base::Result<Response> parse_response(std::string_view msg);

// The addresses the answer gives for `name`: its CNAME chain followed from `name` (at most 16
// links, each record's owner being the previous target), then every A/AAAA of the chain's last
// name. The TTL of each is the smallest along the chain. Records for other owners are ignored.
struct Pin {
  Address address;
  std::uint32_t ttl = 0;
  std::string canonical;  // the chain's last name
};
std::vector<Pin> addresses_for(const Response& response, std::string_view name);

// A reply of our own to `query` (whose bytes are `msg`): the query's id, question and RD bit,
// QR and RA set, the given rcode, no records.
std::string reply(std::string_view msg, const Query& query, std::uint8_t rcode);

// The query's id replaced (a forwarded query and its answer carry the resolver's own id).
std::string with_id(std::string_view msg, std::uint16_t id);

// The resolver's own query for q's question, under `id`: the name in lowercase, RD as q asked,
// an EDNS record advertising 1232 bytes and nothing else. No byte of the client's message but
// the question's meaning is carried (not the case of its letters, not an EDNS option, not an
// extra record), so a query for an allowed name is no channel out either.
std::string forwarded_query(std::uint16_t id, const Query& q);

// The upstream's response `resp` (parsed as r) as the client's answer: the client's id and its
// question exactly as it sent it (the case of its letters too), the rest as the upstream said.
// The two questions are one name, so every offset in the rest stays right.
std::string client_answer(std::string_view resp, const Response& r, std::string_view query, const Query& q);

// The name in its wire form, for tests and for building queries: labels of at most 63 bytes,
// 255 in all; a \DDD or \X escape gives one byte. Fails on an empty label or a name too long.
base::Result<std::string> encode_name(std::string_view name);

}  // namespace rf::net::dns
