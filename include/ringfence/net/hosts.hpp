// SPDX-License-Identifier: LGPL-2.1-or-later
// The egress allowlist by host name: rules ("api.anthropic.com", "*.npmjs.org:443"), and what
// the first bytes of a stream say about the name it is for (the SNI of a TLS ClientHello, the
// Host header of plain HTTP), so that a connection to an allowed address cannot speak to another
// name behind it (domain fronting).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringfence/base/result.hpp"
#include "ringfence/net/address.hpp"

namespace rf::net {

// HOST[:PORT]. HOST is a DNS name (letters, digits, '-', '_' and dots; lowercased; a final dot
// dropped) or "*.SUFFIX": every name under SUFFIX, not SUFFIX itself. PORT (1-65535) or a range
// A-B; none means every port.
struct HostRule {
  std::string name;  // "api.anthropic.com", or the suffix of a wildcard ("npmjs.org")
  bool wildcard = false;
  std::optional<PortRange> ports;
  std::string text;  // as written, for messages
};
base::Result<HostRule> parse_host_rule(std::string_view text);

// `name` (lowercase, no final dot, as dns::Query::name) is allowed by the rule, ignoring ports.
bool name_matches(const HostRule& rule, std::string_view name);
// Any rule allows `name` (at `port`, when given).
bool host_allowed(const std::vector<HostRule>& rules, std::string_view name,
                  std::optional<std::uint16_t> port = {});

// A name from a stream's first bytes, lowercased and without a final dot.
struct StreamName {
  enum class Kind : std::uint8_t {
    NeedMore,  // not enough bytes yet to tell
    Name,      // `name` holds the name the client asked for
    NoName,    // the protocol was recognised but names nothing (a ClientHello without SNI)
    Other,     // neither a TLS ClientHello nor an HTTP/1 request: nothing to check
    Malformed  // it claims to be one but breaks its own format
  } kind = Kind::NeedMore;
  std::string name;
};

// The server_name of a TLS ClientHello (a handshake record, possibly spread over several
// records of at most 16 KiB each; the hello itself up to 64 KiB). A hello with two host_name
// entries, or two server_name extensions, is Malformed.
StreamName tls_server_name(std::string_view bytes);

// The Host header of an HTTP/1.x request (the port, if any, removed); a request with two Host
// headers, or an absolute-form target naming another host, is Malformed. The header block must
// end within 16 KiB.
StreamName http_host(std::string_view bytes);

}  // namespace rf::net
