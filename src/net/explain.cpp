// SPDX-License-Identifier: LGPL-2.1-or-later
// The violation log explained (see explain.hpp). Each line's `rule` says what decided; the
// classes below follow the texts the policy, the allowlist and the listen policy write.
#include "ringfence/net/explain.hpp"

#include <cstdlib>

#include "ringfence/base/json.hpp"

namespace rf::net {
namespace {

bool has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// "203.0.113.5:443", "[2001:db8::1]:443", "/run/x.sock", "@abstract".
std::string target(const base::json::Value& v) {
  const std::string family = v.str("family");
  const std::string addr = v.str("address");
  if (family == "inet6") return "[" + addr + "]:" + std::to_string(static_cast<long>(v.num("port", 0)));
  if (family == "inet") return addr + ":" + std::to_string(static_cast<long>(v.num("port", 0)));
  if (!addr.empty()) return addr;
  return family.empty() ? std::string("an address") : "a " + family + " address";
}

std::string port_of(const base::json::Value& v) {
  return std::to_string(static_cast<long>(v.num("port", 0)));
}

// The first of a comma-separated list of names.
std::string first_name(const std::string& names) { return names.substr(0, names.find(',')); }

}  // namespace

std::optional<Explanation> explain_violation(std::string_view json_line) {
  auto parsed = base::json::parse(json_line);
  if (!parsed || parsed->type != base::json::Value::Type::Object) return std::nullopt;
  const base::json::Value& v = *parsed;
  if (v.str("action") != "deny") return std::nullopt;
  const std::string call = v.str("syscall");
  const std::string rule = v.str("rule");
  const std::string name = v.str("name");
  const std::string to = target(v);
  const bool inet = v.str("family") == "inet" || v.str("family") == "inet6";
  Explanation e;
  const std::string head = "refused " + (call.empty() ? std::string("a call") : call) + " to " + to;
  if (call == "dns") {
    e.kind = "dns";
    e.what = "refused the lookup of " + name + " (" + v.str("query_type") + ": not in --allow-host)";
    e.allow = "--allow-host " + name;
    if (has(rule, "ANY")) e.allow.clear();
    return e;
  }
  if (has(rule, "metadata floor")) {
    e.kind = "floor";
    e.what = head + " (the metadata floor: cloud credentials" +
             (name.empty() ? "" : ", though " + name + " resolved to it") + ")";
    e.note = "the cloud metadata addresses are never reachable from a sandbox";
    return e;
  }
  if (rule == "deny *") {
    e.kind = "network-off";
    e.what = head + " (the network is off)";
    e.allow = "--network on (or --allow-host NAME for named hosts only)";
    return e;
  }
  if (rule.starts_with("deny ")) {
    e.kind = "deny-rule";
    e.what = head + " (the rule '" + rule + "': --deny-net or the profile's [network] deny)";
    e.allow = "remove that rule, or a narrower --allow-net " + to;
    return e;
  }
  if (has(rule, "host's loopback")) {
    e.kind = "host-loopback";
    e.what = head + " (the host's loopback: at this level the sandbox shares the host's network)";
    e.allow = "--allow-net " + to;
    return e;
  }
  if (has(rule, "only TCP leaves")) {
    e.kind = "udp";
    e.what = head + " (UDP: only TCP leaves the sandbox under --allow-host; UDP reaches its resolver only)";
    e.allow = "--allow-net " + to + " lets TCP through; a UDP protocol needs --allow-unfiltered-network";
    return e;
  }
  if (has(rule, "egress allowlist: port ")) {
    e.kind = "allowlist-port";
    e.what = head + " (" + first_name(name) + " is allowed on another port)";
    e.allow = "--allow-host " + first_name(name) + ":" + port_of(v) + " (or " + first_name(name) +
              " for every port)";
    return e;
  }
  if (has(rule, "egress allowlist: the stream names ")) {
    // "... names X, which ..."
    std::string named = rule.substr(rule.find("names ") + 6);
    named = named.substr(0, named.find(','));
    e.kind = "allowlist-stream";
    e.what = head + " (the connection named " + named + ", which is not allowed there)";
    e.allow = "--allow-host " + named;
    return e;
  }
  if (has(rule, "egress allowlist")) {
    e.kind = "allowlist";
    e.what = head + " (not in --allow-host" + (name.empty() ? ": no allowed name resolved to it" : "") + ")";
    e.allow = inet ? "--allow-host NAME (the host's name), or --allow-net " + to : "--allow-host NAME";
    return e;
  }
  if (rule.starts_with("listen policy:")) {
    e.kind = "listen";
    e.what = "refused " + call + " on " + to + " (" + rule.substr(15) + ")";
    e.allow = "--allow-listen";
    return e;
  }
  if (rule.starts_with("network off:")) {
    e.kind = "network-off-server";
    e.what = "refused " + call + " on " + to + " (the network is off)";
    e.allow = "--network on";
    return e;
  }
  if (has(rule, "unix socket outside")) {
    e.kind = "unix";
    e.what = head + " (a unix socket of the host, outside the project and the agent's directories)";
    e.allow = "--bind the socket's directory (the host's services behind it then answer the sandbox)";
    return e;
  }
  e.kind = "other:" + rule.substr(0, rule.find(':'));
  e.what = head + " (" + rule + ")";
  return e;
}

std::string explanation_line(const Explanation& e) {
  std::string out = e.what;
  if (!e.allow.empty())
    out += "; to allow: " + e.allow;
  else if (!e.note.empty())
    out += "; nothing allows it: " + e.note;
  return out;
}

}  // namespace rf::net
