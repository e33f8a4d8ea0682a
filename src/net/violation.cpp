// SPDX-License-Identifier: LGPL-2.1-or-later
// The violation log line: one JSON object per decision, every string escaped (unix names and
// rule texts come from untrusted or user input and need not be UTF-8).
#include <cerrno>
#include <cstdio>

#include "ringfence/net/decision.hpp"
#include "text.hpp"

namespace rf::net {

namespace {

std::string utc_time(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  auto ms = floor<milliseconds>(t);
  auto day = floor<days>(ms);
  year_month_day ymd{day};
  hh_mm_ss hms{ms - day};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()), static_cast<int>(hms.subseconds().count()));
  return buf;
}

std::string errno_name(int e) {
  switch (e) {
    case ECONNREFUSED: return "ECONNREFUSED";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ENETUNREACH: return "ENETUNREACH";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ECONNRESET: return "ECONNRESET";
    default: return std::to_string(e);
  }
}

std::string hex(std::string_view bytes) {
  std::string out;
  char buf[4];
  for (char c : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(c));
    out += buf;
  }
  return out;
}

void add_key(std::string& out, std::string_view key) {
  out += ",\"";
  out += key;
  out += "\":";
}

void add_string(std::string& out, std::string_view key, std::string_view value) {
  add_key(out, key);
  append_json_string(out, value);
}

void add_destination(std::string& out, const Destination& d) {
  switch (d.kind) {
    case DestinationKind::Inet:
      add_string(out, "family", d.inet.family == Family::V4 ? "inet" : "inet6");
      add_string(out, "address", format_ip(d.inet));
      add_key(out, "port");
      out += std::to_string(d.inet.port);
      return;
    case DestinationKind::Unix: {
      bool abstract = d.unix_form == UnixForm::Abstract;
      add_string(out, "family", "unix");
      add_key(out, "address");
      if (append_json_string(out, (abstract ? "@" : "") + d.unix_name))
        add_string(out, "address_hex", hex(d.unix_name));
      return;
    }
    case DestinationKind::Unspec: add_string(out, "family", "unspec"); return;
    case DestinationKind::Other:
      add_string(out, "family", "other");
      add_key(out, "domain");
      out += std::to_string(d.family);
      return;
  }
}

}  // namespace

std::string format_violation_json(std::chrono::system_clock::time_point time, int pid,
                                  std::string_view syscall, const Destination& dest,
                                  const Decision& decision) {
  std::string out = "{\"time\":\"" + utc_time(time) + "\"";
  add_key(out, "pid");
  out += std::to_string(pid);
  add_string(out, "syscall", syscall);
  add_destination(out, dest);
  if (decision.via) {
    add_key(out, "embedded");
    out += "{\"form\":\"" + std::string(embedding_name(decision.via->via)) + "\",\"address\":\"" +
           format_ip(decision.via->address) + "\"}";
  }
  if (!decision.name.empty()) add_string(out, "name", decision.name);
  add_string(out, "rule", decision.rule);
  add_string(out, "action", decision.verdict == Verdict::Allow ? "allow" : "deny");
  if (decision.error != 0) add_string(out, "errno", errno_name(decision.error));
  out += '}';
  return out;
}

std::string format_dns_violation_json(std::chrono::system_clock::time_point time, int pid,
                                      std::string_view name, std::string_view query_type,
                                      std::string_view rule) {
  std::string out = "{\"time\":\"" + utc_time(time) + "\"";
  if (pid > 0) {
    add_key(out, "pid");
    out += std::to_string(pid);
  }
  add_string(out, "syscall", "dns");
  add_string(out, "name", name);
  add_string(out, "query_type", query_type);
  add_string(out, "rule", rule);
  add_string(out, "action", "deny");
  out += '}';
  return out;
}

std::string format_log_limit_json(std::chrono::system_clock::time_point time, std::size_t limit_bytes) {
  return "{\"time\":\"" + utc_time(time) +
         "\",\"action\":\"log-limit\",\"limit_bytes\":" + std::to_string(limit_bytes) +
         ",\"message\":\"this run reached the violation log's size limit: its later denials are not "
         "logged\"}";
}

}  // namespace rf::net
