// SPDX-License-Identifier: LGPL-2.1-or-later
// net: the violation log line: fields, time format, and escaping of untrusted names and rules.
#include <doctest/doctest.h>

#include <cerrno>
#include <chrono>
#include <string>

#include "ringfence/net/decision.hpp"

using namespace rf::net;
using namespace std::chrono;

namespace {

// 2026-03-04T05:06:07.089Z
system_clock::time_point when() {
  return sys_days{year{2026} / 3 / 4} + hours{5} + minutes{6} + seconds{7} + milliseconds{89};
}

Destination inet(const char* text, std::uint16_t port) {
  Destination d;
  d.kind = DestinationKind::Inet;
  d.inet = *parse_ip(text);
  d.inet.port = port;
  return d;
}

Destination abstract(const std::string& name) {
  Destination d;
  d.kind = DestinationKind::Unix;
  d.unix_form = UnixForm::Abstract;
  d.unix_name = name;
  return d;
}

}  // namespace

TEST_CASE("a floor denial as one JSON line") {
  Destination d = inet("169.254.169.254", 80);
  auto line = format_violation_json(when(), 4242, "connect", d, decide(Policy{}, d));
  CHECK(line ==
        "{\"time\":\"2026-03-04T05:06:07.089Z\",\"pid\":4242,\"syscall\":\"connect\",\"family\":\"inet\","
        "\"address\":\"169.254.169.254\",\"port\":80,"
        "\"rule\":\"metadata floor: 169.254.0.0/16 (link-local, cloud metadata)\",\"action\":\"deny\","
        "\"errno\":\"ECONNREFUSED\"}");
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("an embedded form is logged with the literal address") {
  Destination d = inet("64:ff9b::a9fe:a9fe", 443);
  auto line = format_violation_json(when(), 1, "sendto", d, decide(Policy{}, d));
  CHECK(line ==
        "{\"time\":\"2026-03-04T05:06:07.089Z\",\"pid\":1,\"syscall\":\"sendto\",\"family\":\"inet6\","
        "\"address\":\"64:ff9b::a9fe:a9fe\",\"port\":443,"
        "\"embedded\":{\"form\":\"nat64\",\"address\":\"169.254.169.254\"},"
        "\"rule\":\"metadata floor: 169.254.0.0/16 (link-local, cloud metadata)\",\"action\":\"deny\","
        "\"errno\":\"ECONNREFUSED\"}");
}

TEST_CASE("unix names and rule texts are escaped; invalid UTF-8 adds the bytes in hex") {
  Destination d = abstract(std::string("a\"b\\c\n\x01\0z", 9));
  Decision dec = decide(Policy{}, d);
  auto line = format_violation_json(when(), 7, "connect", d, dec);
  CHECK(line.find("\"family\":\"unix\",\"address\":\"@a\\\"b\\\\c\\n\\u0001\\u0000z\",\"rule\"") !=
        std::string::npos);
  CHECK(line.find("address_hex") == std::string::npos);

  d = abstract("caf\xc3\xa9 \xff\xfe");
  line = format_violation_json(when(), 7, "connect", d, dec);
  CHECK(line.find("\"address\":\"@caf\xc3\xa9 \\ufffd\\ufffd\",\"address_hex\":\"636166c3a920fffe\"") !=
        std::string::npos);

  // Overlong encodings and surrogates are not UTF-8 either.
  d = abstract("\xc0\xaf\xed\xa0\x80");
  line = format_violation_json(when(), 7, "connect", d, dec);
  CHECK(line.find("\"address\":\"@\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"") != std::string::npos);

  Decision custom{
      Verdict::Deny, ECONNREFUSED, "deny unix-abstract:@\"quoted\"\t\x7f", false, std::nullopt, false, {}};
  line = format_violation_json(when(), 7, "sendmsg", abstract("x"), custom);
  CHECK(line.find("\"rule\":\"deny unix-abstract:@\\\"quoted\\\"\\t\\u007f\"") != std::string::npos);
  for (char c : line) CHECK(static_cast<unsigned char>(c) >= 0x20);
}

TEST_CASE("paths, no destination, other families, allowed decisions") {
  Destination path;
  path.kind = DestinationKind::Unix;
  path.unix_name = "/run/bus";
  auto line = format_violation_json(when(), 3, "connect", path, decide(Policy{}, path));
  CHECK(line.find("\"family\":\"unix\",\"address\":\"/run/bus\",") != std::string::npos);
  CHECK(line.find("\"action\":\"allow\"}") != std::string::npos);
  CHECK(line.find("errno") == std::string::npos);

  Destination other;
  other.kind = DestinationKind::Other;
  other.family = 40;
  line = format_violation_json(when(), 3, "connect", other, decide(Policy{}, other));
  CHECK(line.find("\"family\":\"other\",\"domain\":40,") != std::string::npos);
  CHECK(line.find("\"errno\":\"EAFNOSUPPORT\"") != std::string::npos);

  Destination v6 = inet("2001:db8::1", 443);
  v6.inet.scope_id = 0;
  line = format_violation_json(when(), 3, "connect", v6, decide(Policy{}, v6));
  CHECK(line.find("\"family\":\"inet6\",\"address\":\"2001:db8::1\",\"port\":443,") != std::string::npos);
}

TEST_CASE("times before the epoch and at day boundaries") {
  auto t = sys_days{year{1969} / 12 / 31} + hours{23} + minutes{59} + seconds{59} + milliseconds{999};
  Destination d = inet("169.254.169.254", 80);
  auto line = format_violation_json(t, 1, "connect", d, decide(Policy{}, d));
  CHECK(line.substr(0, 34) == "{\"time\":\"1969-12-31T23:59:59.999Z\"");
}

TEST_CASE("the line that ends a run's part of the log at its size limit") {
  auto line = format_log_limit_json(when(), 2u << 20);
  CHECK(line ==
        "{\"time\":\"2026-03-04T05:06:07.089Z\",\"action\":\"log-limit\",\"limit_bytes\":2097152,"
        "\"message\":\"this run reached the violation log's size limit: its later denials are not logged\"}");
  CHECK(line.find('\n') == std::string::npos);
}
