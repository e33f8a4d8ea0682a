// SPDX-License-Identifier: LGPL-2.1-or-later
// HTTP/1 requests one after another on a client's stream (see http_stream.hpp). Strict where
// servers are lenient: a head whose lines a server could split differently from us (a bare LF
// or CR, a folded line, a NUL, a space before a field's colon) is refused, and so is a body
// whose length two readers could disagree on (Content-Length with Transfer-Encoding, two
// lengths, a coding after chunked).
#include "ringfence/net/http_stream.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "ringfence/net/hosts.hpp"

namespace rf::net {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trimmed(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// Every line ends in CRLF and nothing else splits one.
bool clean_lines(std::string_view head) {
  for (std::size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    if (c == '\0') return false;
    if (c == '\r' && (i + 1 >= head.size() || head[i + 1] != '\n')) return false;
    if (c == '\n' && (i == 0 || head[i - 1] != '\r')) return false;
    if (c == '\n' && i + 1 < head.size() && (head[i + 1] == ' ' || head[i + 1] == '\t')) return false;
  }
  return true;
}

std::optional<std::uint64_t> decimal(std::string_view v) {
  if (v.empty() || v.size() > 15) return std::nullopt;
  std::uint64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

std::optional<std::uint64_t> hex_size(std::string_view line) {
  line = line.substr(0, line.find(';'));  // chunk extensions
  line = trimmed(line);
  if (line.empty() || line.size() > 15) return std::nullopt;
  std::uint64_t n = 0;
  for (char c : line) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
            : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                        : -1;
    if (d < 0) return std::nullopt;
    n = n * 16 + static_cast<std::uint64_t>(d);
  }
  return n;
}

constexpr const char* kPrefix = "egress allowlist: plain HTTP: ";

}  // namespace

std::string HttpRequestStream::take_head(const std::string& head, Step& step) {
  if (!clean_lines(head))
    return std::string(kPrefix) + "a request head with a bare CR or LF, a NUL or a folded line";
  const StreamName n = http_host(head);
  if (n.kind == StreamName::Kind::NoName) return std::string(kPrefix) + "a request without a Host";
  if (n.kind != StreamName::Kind::Name)
    return std::string(kPrefix) + "a malformed request head, or no HTTP/1 request";
  if (head.starts_with("CONNECT ")) return std::string(kPrefix) + "CONNECT (a tunnel to another host)";
  std::optional<std::uint64_t> length;
  bool chunked = false, te = false;
  const std::size_t first = head.find("\r\n") + 2;
  for (std::size_t at = first; at + 2 <= head.size();) {
    const std::size_t e = head.find("\r\n", at);
    if (e == std::string::npos || e == at) break;
    const std::string_view field(head.data() + at, e - at);
    at = e + 2;
    const std::size_t colon = field.find(':');
    const std::string_view raw_name = field.substr(0, colon);
    if (raw_name.find_first_of(" \t") != std::string_view::npos)
      return std::string(kPrefix) + "a space in a header's name";
    const std::string name = lower(raw_name);
    const std::string_view value = trimmed(field.substr(colon + 1));
    if (name == "content-length") {
      auto v = decimal(value);
      if (!v || (length && *length != *v))
        return std::string(kPrefix) + "a Content-Length that cannot be read";
      length = v;
    } else if (name == "transfer-encoding") {
      if (te) return std::string(kPrefix) + "two Transfer-Encoding headers";
      te = true;
      const std::string v = lower(value);
      const std::size_t comma = v.rfind(',');
      chunked = trimmed(comma == std::string::npos ? std::string_view(v)
                                                   : std::string_view(v).substr(comma + 1)) == "chunked";
      if (!chunked) return std::string(kPrefix) + "a Transfer-Encoding that does not end in chunked";
    } else if (name == "upgrade") {
      return std::string(kPrefix) + "an upgrade (the bytes after it are no requests to check)";
    }
  }
  if (te && length) return std::string(kPrefix) + "both Content-Length and Transfer-Encoding";
  step.names.push_back(n.name);
  step.starts.push_back(step.forward.size());
  step.forward += head;
  if (chunked) {
    state_ = State::ChunkSize;
  } else if (length && *length > 0) {
    state_ = State::Body;
    remaining_ = *length;
  } else {
    state_ = State::Head;
  }
  return {};
}

HttpRequestStream::Step HttpRequestStream::feed(std::string_view bytes) {
  Step step;
  auto broken = [&](std::string why) {
    state_ = State::Broken;
    step.refusal = std::move(why);
    return step;
  };
  if (state_ == State::Broken) return broken(std::string(kPrefix) + "the stream was refused before");
  while (!bytes.empty()) {
    switch (state_) {
      case State::Head: {
        const std::size_t before = held_.size();
        held_.append(bytes);
        // The head's end may straddle the bytes held and the new ones.
        const std::size_t from = before >= 3 ? before - 3 : 0;
        const std::size_t end = held_.find("\r\n\r\n", from);
        if (end == std::string::npos) {
          if (held_.size() > kMaxHead)
            return broken(std::string(kPrefix) + "a request head longer than 16 KiB");
          return step;
        }
        if (end + 4 > kMaxHead) return broken(std::string(kPrefix) + "a request head longer than 16 KiB");
        const std::string head = held_.substr(0, end + 4);
        const std::size_t used = end + 4 - before;
        held_.clear();
        bytes.remove_prefix(used);
        if (std::string why = take_head(head, step); !why.empty()) return broken(std::move(why));
        break;
      }
      case State::Body:
      case State::ChunkData: {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, bytes.size()));
        step.forward.append(bytes.substr(0, n));
        bytes.remove_prefix(n);
        remaining_ -= n;
        if (remaining_ == 0) state_ = state_ == State::Body ? State::Head : State::ChunkEnd;
        break;
      }
      case State::ChunkSize:
      case State::ChunkEnd:
      case State::Trailers: {
        // Line by line: a chunk's size, the CRLF after its data, the trailer lines.
        const std::size_t nl = bytes.find('\n');
        const std::size_t take = nl == std::string_view::npos ? bytes.size() : nl + 1;
        held_.append(bytes.substr(0, take));
        bytes.remove_prefix(take);
        if (held_.size() > 4096) return broken(std::string(kPrefix) + "a chunk line longer than 4 KiB");
        if (nl == std::string_view::npos) break;  // held back until the line is complete and checked
        if (held_.size() < 2 || held_[held_.size() - 2] != '\r')
          return broken(std::string(kPrefix) + "a chunk line without CRLF");
        const std::string whole = std::move(held_);
        const std::string line = whole.substr(0, whole.size() - 2);
        held_.clear();
        if (!clean_lines(whole)) return broken(std::string(kPrefix) + "a chunk line with a bare CR or a NUL");
        if (state_ == State::ChunkEnd) {
          if (!line.empty()) return broken(std::string(kPrefix) + "chunk data longer than its size");
          state_ = State::ChunkSize;
        } else if (state_ == State::ChunkSize) {
          auto size = hex_size(line);
          if (!size) return broken(std::string(kPrefix) + "a chunk size that cannot be read");
          state_ = *size == 0 ? State::Trailers : State::ChunkData;
          remaining_ = *size;
        } else if (line.empty()) {  // the end of the trailers: the next request
          state_ = State::Head;
        } else if (line.find(':') == std::string::npos || line.front() == ' ' || line.front() == '\t') {
          return broken(std::string(kPrefix) + "a malformed trailer");
        }
        step.forward += whole;
        break;
      }
      case State::Broken: return broken(std::string(kPrefix) + "the stream was refused before");
    }
  }
  return step;
}

}  // namespace rf::net
