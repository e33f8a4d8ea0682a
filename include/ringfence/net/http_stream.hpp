// SPDX-License-Identifier: LGPL-2.1-or-later
// The client side of a plain HTTP/1 connection, request after request, for the egress relay on
// port 80: every request head on the connection names its host (a second, pipelined or
// keep-alive request must not speak to another name behind an allowed address), and the bytes
// of a head are passed on only once its name was checked. The bodies are followed by their
// framing (Content-Length, chunked); what cannot be framed is refused rather than guessed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rf::net {

class HttpRequestStream {
public:
  struct Step {
    std::string forward;              // bytes that may go on once every name in `names` is allowed
    std::vector<std::string> names;   // the Host of each request head completed by these bytes
    std::vector<std::size_t> starts;  // where each of those heads starts in `forward`
    // Non-empty: the bytes after `forward` break the rules; nothing after them goes on (what
    // `forward` holds was checked, and may go on as above).
    std::string refusal;
  };
  static constexpr std::size_t kMaxHead = 16 * 1024;

  // The next bytes from the client. A head still incomplete is held back (at most kMaxHead).
  // CONNECT (a tunnel to anywhere) and upgrades (the bytes after them are no requests) are
  // refused: a WebSocket over plain HTTP does not pass, one over TLS does.
  Step feed(std::string_view bytes);

private:
  enum class State : std::uint8_t { Head, Body, ChunkSize, ChunkData, ChunkEnd, Trailers, Broken };
  // A complete head: its name and framing, or a refusal.
  std::string take_head(const std::string& head, Step& step);

  State state_ = State::Head;
  std::string held_;             // an incomplete head, a chunk-size line, trailer lines
  std::uint64_t remaining_ = 0;  // Body, ChunkData: bytes left
};

}  // namespace rf::net
